"""Per-call closure kernels: a kernel defined inside a function gets a new identity per call.

    python closure_kernels.py 3        # 3 different captured constants -> 3 module hashes
    python closure_kernels.py 3 same   # the same constant every call -> deduplicated, 1 hash
"""

import sys

import warp as wp


def make_offset_kernel(offset: float):
    @wp.kernel
    def add_offset(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] + offset

    return add_offset


def main(calls: int, same: bool):
    a = wp.zeros(8, dtype=float, device="cpu")
    for call in range(calls):
        kernel = make_offset_kernel(1.0 if same else float(call + 1))
        wp.launch(kernel, dim=8, inputs=[a], device="cpu")
    wp.synchronize()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, len(sys.argv) > 2 and sys.argv[2] == "same")
