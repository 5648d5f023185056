"""One module, options changed between launches (the compare fixture).

    python staged_options.py late    # options change after each stage: a rebuild per stage
    python staged_options.py fixed   # the same options set once, before the first launch
    python staged_options.py drop    # like late, but the last stage's launches are missing

All modes launch the same kernels with the same dims and dtypes (except ``drop``), so
``probe compare`` of late vs fixed is valid and shows the improvement.
"""

import sys

import warp as wp

STAGES = 3

# Without precompiled headers every build costs about the same, so the first build of the
# process (which otherwise also builds the header, with large run-to-run noise) does not
# drown the difference this fixture exists to show.
wp.config.use_precompiled_headers = False
wp.set_module_options({"enable_backward": False})


@wp.kernel
def integrate(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float):
    i = wp.tid()
    v[i] = v[i] - 9.8 * dt
    x[i] = x[i] + v[i] * dt


@wp.kernel
def collide(x: wp.array(dtype=float), v: wp.array(dtype=float)):
    i = wp.tid()
    if x[i] < 0.0:
        x[i] = 0.0
        v[i] = -0.5 * v[i]


def main(mode: str):
    n = 32
    x = wp.zeros(n, dtype=float, device="cpu")
    v = wp.zeros(n, dtype=float, device="cpu")
    if mode == "fixed":
        wp.set_module_options({"max_unroll": STAGES - 1})
    stages = STAGES - 1 if mode == "drop" else STAGES
    for stage in range(stages):
        wp.launch(integrate, dim=n, inputs=[x, v, 0.01], device="cpu")
        wp.launch(collide, dim=n, inputs=[x, v], device="cpu")
        if mode != "fixed":
            wp.set_module_options({"max_unroll": stage + 1})  # after load: the next launch rebuilds
    wp.synchronize()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "late")
