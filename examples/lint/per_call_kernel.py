"""A kernel factory called on every step without memoization (WCT003)."""

import warp as wp


def make_damping(k: float):
    @wp.kernel
    def damp(v: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        v[i] = v[i] * k

    return damp


def step(v, k):
    # A new kernel object per call: the module is re-hashed every step and rebuilt for
    # every damping value not seen before.
    wp.launch(make_damping(k), dim=v.shape, inputs=[v], device=v.device)


if __name__ == "__main__":
    v = wp.ones(256, dtype=wp.vec3, device="cpu")
    for frame in range(4):
        step(v, 0.99 - 0.01 * frame)
    print(v.numpy()[0])
