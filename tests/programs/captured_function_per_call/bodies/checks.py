"""Check every body's state with a test a caller writes as a Python function."""

import numpy as np
import warp as wp


def check_state(positions: wp.array, test_fn, name: str) -> None:
    if isinstance(test_fn, wp.Function):
        warp_test_fn = test_fn
    else:
        warp_test_fn, _ = wp.utils.create_warp_function(test_fn)

    # expect WCT003: each call declares the kernel again (~0.1-3 ms); the captured function
    # is the same code whenever the caller passes the same test, so Warp reuses the module
    # (no rebuild): the message must not claim a new build per call.
    @wp.kernel(module="unique", enable_backward=False)
    def state_kernel(q: wp.array(dtype=wp.vec3), failures: wp.array(dtype=wp.int32)):  # expect: WCT003
        i = wp.tid()
        if not warp_test_fn(q[i]):
            failures[i] = 1

    failures = wp.zeros(positions.shape[0], dtype=wp.int32, device=positions.device)
    wp.launch(state_kernel, dim=positions.shape[0], inputs=[positions, failures], device=positions.device)
    failed = np.flatnonzero(failures.numpy())
    if failed.size:
        raise ValueError(f"{name}: bodies {failed.tolist()} failed")
