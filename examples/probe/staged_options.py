"""One module, several kernels, options changed between launches (compare fixture).

    python staged_options.py late    # options change after each stage: a rebuild per stage
    python staged_options.py fixed   # the same options set once, before the first launch
    python staged_options.py drop    # like late, but the last stage's launch is missing

All modes launch the same kernels with the same dims and dtypes (except ``drop``), so
``probe compare`` of late vs fixed is valid and should show the improvement.
"""

import sys

import warp as wp

STAGES = 3

# Forward-only: smaller modules keep this fixture quick to build. Without precompiled
# headers every build costs about the same, so the first build of the process (which
# otherwise also builds the header, with large run-to-run noise) does not drown the
# difference this fixture exists to show.
wp.set_module_options({"enable_backward": False})
wp.config.use_precompiled_headers = False


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    v[i] = v[i] + wp.vec3(0.0, -9.8, 0.0) * dt
    x[i] = x[i] + v[i] * dt


@wp.kernel
def collide(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    if p[1] < 0.0:
        x[i] = wp.vec3(p[0], 0.0, p[2])
        v[i] = wp.vec3(v[i][0], -0.5 * v[i][1], v[i][2])


@wp.kernel
def energy(v: wp.array(dtype=wp.vec3), e: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.length_sq(v[i])
    e[i] = 0.5 * s + wp.sin(s) * wp.cos(s) + wp.sqrt(s + 1.0)


def main(mode: str):
    n = 32
    x = wp.zeros(n, dtype=wp.vec3, device="cpu")
    v = wp.zeros(n, dtype=wp.vec3, device="cpu")
    e = wp.zeros(n, dtype=float, device="cpu")
    if mode == "fixed":
        wp.set_module_options({"max_unroll": STAGES - 1})
    stages = STAGES - 1 if mode == "drop" else STAGES
    for stage in range(stages):
        wp.launch(integrate, dim=n, inputs=[x, v, 0.01], device="cpu")
        wp.launch(collide, dim=n, inputs=[x, v], device="cpu")
        wp.launch(energy, dim=n, inputs=[v, e], device="cpu")
        if mode != "fixed":
            wp.set_module_options({"max_unroll": stage + 1})  # after load: next launch rebuilds
    wp.synchronize()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "late")
