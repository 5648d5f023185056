"""Two module-scope kernels that are always launched together, each in its own module (WCT002)."""

import warp as wp


@wp.kernel(module="unique")
def apply_gravity(v: wp.array(dtype=wp.vec3), g: wp.vec3, dt: float):
    i = wp.tid()
    v[i] = v[i] + g * dt


@wp.kernel(module="unique")
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt


def step(x, v, dt):
    wp.launch(apply_gravity, dim=v.shape, inputs=[v, wp.vec3(0.0, -9.8, 0.0), dt], device=v.device)
    wp.launch(integrate, dim=x.shape, inputs=[x, v, dt], device=x.device)


if __name__ == "__main__":
    x = wp.zeros(256, dtype=wp.vec3, device="cpu")
    v = wp.zeros(256, dtype=wp.vec3, device="cpu")
    for _ in range(10):
        step(x, v, 0.01)
    print(x.numpy()[0])
