"""Kernel families by dtype: a factory registers the overloads and builds the table; a
dispatcher hands the table's row to the launcher."""

from dataclasses import dataclass
from typing import Any

import warp as wp

# forward-only: set for this module before its first kernel (nothing here is differentiated)
wp.set_module_options({"enable_backward": False})


@wp.kernel
def kick(v: wp.array(dtype=Any)):
    v[wp.tid()] = v[wp.tid()] + v.dtype(1.0)


@wp.kernel
def kick_ptr(v: wp.array(dtype=Any)):
    v[wp.tid()] = v[wp.tid()] + v.dtype(2.0)


@dataclass(frozen=True)
class Family:
    single: object
    atom_ptr: object = None


def register(kernel, dtypes):
    return {t: wp.overload(kernel, [wp.array(dtype=t)]) for t in dtypes}


def build_families(single_kernel, ptr_kernel, dtypes=(wp.float32, wp.float64)):
    singles = register(single_kernel, dtypes)
    ptrs = register(ptr_kernel, dtypes)
    return {t: Family(single=singles[t], atom_ptr=ptrs[t]) for t in dtypes}


KICK_FAMILIES = build_families(kick, kick_ptr)


def launch_family(family, v, ptr=False):
    # The first call loads this module: the kernel is a field of the row the dispatcher hands
    # over, an overload `build_families` registered of the kernel it was given.
    kernel = family.atom_ptr if ptr else family.single
    wp.launch(kernel, dim=v.shape, inputs=[v])


def dispatch(families, v, ptr=False):
    launch_family(families[v.dtype], v, ptr)


class Damping:
    def __init__(self, v):
        self.v = v
        self.kernels = []

    def add(self, factor: float):
        # silent: WCT007 — reported at the call of `add()`, made after the first kick.
        @wp.kernel
        def damp(v: wp.array(dtype=wp.float32)):
            v[wp.tid()] = v[wp.tid()] * factor

        self.kernels.append(damp)

    def run(self):
        for kernel in self.kernels:
            wp.launch(kernel, dim=self.v.shape, inputs=[self.v])
