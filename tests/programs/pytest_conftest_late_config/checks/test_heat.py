import numpy as np
import warp as wp


def test_heat_is_conserved(spike, diffusion):
    out = wp.zeros_like(spike)
    wp.launch(diffusion.diffuse, dim=spike.shape, inputs=[spike, out, 0.25], device="cpu")
    s = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(diffusion.total, dim=out.shape, inputs=[out, s], device="cpu")
    assert np.isclose(s.numpy()[0], 1.0)


def test_heat_spreads(spike, diffusion):
    out = wp.zeros_like(spike)
    wp.launch(diffusion.diffuse, dim=spike.shape, inputs=[spike, out, 0.25], device="cpu")
    assert out.numpy()[7] > 0.0
