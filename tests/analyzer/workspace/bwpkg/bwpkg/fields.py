import warp as wp


@wp.kernel
def advect_kernel(q: wp.array(dtype=float)):
    i = wp.tid()
    q[i] = q[i] + 1.0


def advect(q):
    wp.launch(advect_kernel, dim=q.shape[0], inputs=[q])
