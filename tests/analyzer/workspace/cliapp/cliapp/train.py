import warp as wp


@wp.kernel
def update(w: wp.array(dtype=float), g: wp.array(dtype=float)):
    i = wp.tid()
    w[i] = w[i] - 0.1 * g[i]


def train(n):
    w = wp.zeros(n, dtype=float, requires_grad=True)
    g = wp.zeros(n, dtype=float)
    tape = wp.Tape()
    with tape:
        wp.launch(update, dim=n, inputs=[w, g])
    tape.backward()
