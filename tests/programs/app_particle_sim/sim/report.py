"""Plain-text progress output."""


def report(step: int, world) -> None:
    x = world.x.numpy()
    print(f"step {step}: mean height {x[:, 1].mean():.4f}, tracer x {float(world.tx.numpy()[0][0]):.3f}")
