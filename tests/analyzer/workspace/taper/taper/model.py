import warp as wp


@wp.kernel
def loss_kernel(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i] * x[i])


@wp.kernel
def show_kernel(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i]


class Model:
    def __init__(self, n):
        self.x = wp.ones(n, dtype=float, requires_grad=True)
        self.loss = wp.zeros(1, dtype=float, requires_grad=True)
        self.out = wp.zeros(n, dtype=float)

    def forward(self):
        wp.launch(loss_kernel, dim=self.x.shape[0], inputs=[self.x, self.loss])

    def show(self):
        wp.launch(show_kernel, dim=self.x.shape[0], inputs=[self.x, self.out])
