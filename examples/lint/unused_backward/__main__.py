import warp as wp

from .physics import energy, integrate
from .render import to_pixels

x = wp.zeros(8, dtype=float, device="cpu", requires_grad=True)
v = wp.ones(8, dtype=float, device="cpu", requires_grad=True)
loss = wp.zeros(1, dtype=float, device="cpu", requires_grad=True)
img = wp.zeros(8, dtype=float, device="cpu")

tape = wp.Tape()
with tape:
    wp.launch(integrate, dim=8, inputs=[x, v, 0.1], device="cpu")
    wp.launch(energy, dim=8, inputs=[x, loss], device="cpu")
tape.backward(loss)
print("dv:", v.grad.numpy())

wp.launch(to_pixels, dim=8, inputs=[x, img], device="cpu")  # forward only
print(img.numpy())
