"""State kernels: one concrete clear, one generic fill."""

from typing import Any

import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.kernel
def clear(state: wp.array(dtype=wp.float32)):
    state[wp.tid()] = 0.0


# expect WCT007: fill<float32> and fill<vec3> join the module after clear's launch loaded it.
@wp.kernel
def fill(target: wp.array(dtype=Any), value: Any):  # expect: WCT007
    target[wp.tid()] = value
