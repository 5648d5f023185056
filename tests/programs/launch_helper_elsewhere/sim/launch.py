"""One place that launches kernels (device and dims decided here)."""

import warp as wp

DEVICE = "cpu"


def run(kernel, n, inputs):
    # silent: WCT007 — the helper launches what its callers pass; the model reads each call as a launch
    wp.launch(kernel, dim=n, inputs=inputs, device=DEVICE)
