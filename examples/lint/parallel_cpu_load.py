"""Warming all modules with a thread pool, the CPU included (WCT011)."""

import warp as wp


@wp.kernel
def fill(a: wp.array(dtype=float), v: float):
    a[wp.tid()] = v


if __name__ == "__main__":
    # device=None means every device, the CPU among them: each worker builds its own
    # precompiled header (and before Warp 1.17 concurrent CPU loads could race).
    wp.force_load(max_workers=4)
    a = wp.zeros(8, dtype=float, device="cpu")
    wp.launch(fill, dim=8, inputs=[a, 1.0], device="cpu")
    print(a.numpy())
