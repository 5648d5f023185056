"""Six math-heavy kernels launched forward only: the fixture of `probe levers` tests.

    python forward_kernels.py              # one module, backward code built, never used
    python forward_kernels.py tape         # the same launches recorded on a wp.Tape + backward()
    python forward_kernels.py unique-no-pch  # one module="unique" module per kernel,
                                             # precompiled headers turned off by the program

Backward code of these kernels is a large share of each build (WARP_FACTS: -50% or more
without it), so the effect of each lever is far outside a 2-core machine's noise.
"""

import sys

import warp as wp

MODE = sys.argv[1] if len(sys.argv) > 1 else "forward"
KERNEL_MODULE = "unique" if MODE == "unique-no-pch" else None
if MODE == "unique-no-pch":
    wp.config.use_precompiled_headers = False


@wp.func
def smooth(x: float, k: float):
    y = wp.sin(x * k) * wp.exp(-x * x) + wp.cos(k) * wp.tanh(x)
    for _ in range(3):
        y = y * 0.5 + wp.sqrt(wp.abs(y) + 1.0) * wp.log(1.0 + x * x)
        y = wp.max(y, wp.sin(y) * wp.cosh(0.1 * x)) - wp.min(y, wp.atan(x * y))
    return y


@wp.kernel(module=KERNEL_MODULE)
def stage_a(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.vec3(x[i], smooth(x[i], 1.0), smooth(x[i], 2.0))
    m = wp.mat33(v[0], v[1], v[2], v[2], v[0], v[1], v[1], v[2], v[0])
    y[i] = wp.length(m * v) + wp.determinant(m)


@wp.kernel(module=KERNEL_MODULE)
def stage_b(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.quat_from_axis_angle(wp.normalize(wp.vec3(1.0, x[i], 0.5)), smooth(x[i], 3.0))
    r = wp.quat_rotate(q, wp.vec3(x[i], 1.0, 2.0))
    y[i] = y[i] + wp.dot(r, wp.vec3(smooth(x[i], 0.5), 1.0, 0.0))


@wp.kernel(module=KERNEL_MODULE)
def stage_c(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.transform(wp.vec3(x[i], 0.0, 1.0), wp.quat_rpy(x[i], 0.1, 0.2))
    p = wp.transform_point(t, wp.vec3(smooth(x[i], 1.5), 2.0, 3.0))
    y[i] = y[i] * wp.length(p) + smooth(p[0], p[1])


@wp.kernel(module=KERNEL_MODULE)
def stage_d(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(8):
        s += smooth(x[i] + float(j), float(j) * 0.25) * wp.atan2(x[i], float(j) + 1.0)
    y[i] = y[i] + s


@wp.kernel(module=KERNEL_MODULE)
def stage_e(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    a = wp.matrix_from_rows(wp.vec4(x[i], 1.0, 2.0, 3.0), wp.vec4(1.0, x[i], 0.0, 1.0),
                 wp.vec4(2.0, 0.0, x[i], 1.0), wp.vec4(3.0, 1.0, 1.0, x[i]))
    b = wp.transpose(a) * a
    y[i] = y[i] + wp.trace(b) + smooth(b[0, 1], b[2, 3])


@wp.kernel(module=KERNEL_MODULE)
def stage_f(x: wp.array(dtype=float), y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.vec2(smooth(y[i], 0.7), smooth(x[i], 1.3))
    wp.atomic_add(loss, 0, wp.length_sq(v) + wp.pow(wp.abs(y[i]) + 1.0, 0.5))


def main():
    n = 64
    x = wp.array([0.01 * i for i in range(n)], dtype=float, device="cpu", requires_grad=MODE == "tape")
    y = wp.zeros(n, dtype=float, device="cpu", requires_grad=MODE == "tape")
    loss = wp.zeros(1, dtype=float, device="cpu", requires_grad=MODE == "tape")
    tape = wp.Tape() if MODE == "tape" else None
    if tape is not None:
        tape.__enter__()
    for kernel in (stage_a, stage_b, stage_c, stage_d, stage_e):
        wp.launch(kernel, dim=n, inputs=[x, y], device="cpu")
    wp.launch(stage_f, dim=n, inputs=[x, y, loss], device="cpu")
    if tape is not None:
        tape.__exit__(None, None, None)
        tape.backward(loss=loss)
    wp.synchronize()


if __name__ == "__main__":
    main()
