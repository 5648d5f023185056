"""The same solver written three ways that keep one build of this module: in float64 only,
with its generic kernel's instantiations declared up front, and with concrete kernels from a
memoized factory that makes every pair at import."""

import functools
from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


class ExactSolver:
    def __init__(self, n: int):
        self._b, self._x = (wp.zeros(n, dtype=wp.float64) for _ in range(2))

    def solve(self, b: wp.array, x: wp.array) -> None:
        wp.launch(_copy, dim=b.shape[0], inputs=[b], outputs=[self._b])
        wp.launch(_copy, dim=b.shape[0], inputs=[self._b], outputs=[self._x])
        wp.launch(_copy, dim=b.shape[0], inputs=[self._x], outputs=[x])


# silent: WCT007 — every launch passes float64 arrays in and out: one instantiation, one build
@wp.kernel
def _copy(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):
    i = wp.tid()
    dst[i] = src[i]


class DeclaredSolver:
    def __init__(self, n: int, single: bool = False):
        dtype = wp.float32 if single else wp.float64
        self._b, self._x = (wp.zeros(n, dtype=dtype) for _ in range(2))

    def solve(self, b: wp.array, x: wp.array) -> None:
        wp.launch(_cast, dim=b.shape[0], inputs=[b], outputs=[self._b])
        wp.launch(_cast, dim=b.shape[0], inputs=[self._b], outputs=[self._x])
        wp.launch(_cast, dim=b.shape[0], inputs=[self._x], outputs=[x])


# silent: WCT007 — the overloads below put every instantiation in the module's first build
@wp.kernel
def _cast(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):
    i = wp.tid()
    dst[i] = type(dst[i])(src[i])


for _src, _dst in ((wp.float64, wp.float32), (wp.float32, wp.float32), (wp.float64, wp.float64)):
    wp.overload(_cast, {"src": wp.array(dtype=_src), "dst": wp.array(dtype=_dst)})


@functools.cache
def converter(src_dtype, dst_dtype):
    # silent: WCT007 — every (src, dst) pair is made below, at import, before any launch; the
    # solvers' calls are cache hits that add nothing to the loaded module
    @wp.kernel
    def convert(src: wp.array(dtype=src_dtype), dst: wp.array(dtype=dst_dtype)):
        i = wp.tid()
        dst[i] = dst_dtype(src[i])

    return convert


PAIRS = ((wp.float64, wp.float32), (wp.float32, wp.float32), (wp.float64, wp.float64))
for _src, _dst in PAIRS:
    converter(_src, _dst)


class MemoizedSolver:
    def __init__(self, n: int, single: bool = False):
        self.dtype = wp.float32 if single else wp.float64
        self._b = wp.zeros(n, dtype=self.dtype)

    def solve(self, b: wp.array, x: wp.array) -> None:
        wp.launch(converter(wp.float64, self.dtype), dim=b.shape[0], inputs=[b], outputs=[self._b])
        wp.launch(converter(self.dtype, self.dtype), dim=b.shape[0], inputs=[self._b], outputs=[x])
