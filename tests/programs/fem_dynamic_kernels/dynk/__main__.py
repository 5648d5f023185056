import warp as wp

from dynk.kernels import fill, make_scale


def step(x, y, factor):
    # silent: WCT007 — the scale kernel lands in a module of its own, not in the loaded dynk.kernels
    tape = wp.Tape()
    with tape:
        wp.launch(make_scale(factor), dim=x.shape[0], inputs=[x, y], device="cpu")
    tape.backward(grads={y: wp.ones(y.shape[0], dtype=float, device="cpu")})
    return x.grad.numpy()[0]


def main():
    x = wp.zeros(8, dtype=float, device="cpu", requires_grad=True)
    y = wp.zeros(8, dtype=float, device="cpu", requires_grad=True)
    wp.launch(fill, dim=8, inputs=[x, 1.0], device="cpu")
    total = 0.0
    for _ in range(3):
        total += step(x, y, 2)
        total += step(x, y, 3)
    print(total)


if __name__ == "__main__":
    main()
