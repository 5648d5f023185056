"""State kernels: one concrete reset, one generic indexed write."""

from functools import cache
from typing import Any

import warp as wp

from robot.dispatch import IndexKernelDispatcher

wp.set_module_options({"enable_backward": False})


@wp.kernel
def reset_state(state: wp.array2d(dtype=wp.float32)):
    i, j = wp.tid()
    state[i, j] = 0.0


# silent: WCT007 — its instantiations are declared by the dispatcher's wp.overload, reported there.
@wp.kernel
def write_indexed(source: wp.array2d(dtype=Any), rows: wp.array(dtype=Any), target: wp.array2d(dtype=Any)):
    i, j = wp.tid()
    target[wp.int32(rows[i]), j] = source[i, j]


@cache
def _dispatcher(dtype):
    return IndexKernelDispatcher(
        write_indexed, ("rows",), {"source": wp.array2d(dtype=dtype), "target": wp.array2d(dtype=dtype)}
    )


def write_rows(source, rows, target, dtype):
    kernel = _dispatcher(dtype).select(rows)
    wp.launch(kernel, dim=source.shape, inputs=[source, rows, target], device=source.device)
