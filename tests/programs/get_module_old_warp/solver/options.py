"""Options for the solver's module, set before its first load."""

import warp as wp

from solver import kernels


def forward_only():
    # expect WCT004: on Warp <= 1.16 (pyproject: warp-lang<=1.16) set_module_options reads
    # `module.__name__`, which a wp.Module lacks: this raises AttributeError.
    wp.set_module_options({"enable_backward": False}, module=wp.get_module("solver.kernels"))  # expect: WCT004


def fewer_unrolls():
    # silent: WCT004 — the documented way on every version.
    wp.get_module("solver.kernels").options.update({"max_unroll": 4})


def fast_math():
    # silent: WCT004 — a Python module object has __name__ on every version.
    wp.set_module_options({"fast_math": False}, module=kernels)
