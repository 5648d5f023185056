import warp as wp


@wp.kernel
def damp(v: wp.array(dtype=float), k: float):
    i = wp.tid()
    v[i] = v[i] * k
