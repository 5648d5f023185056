"""Band filters applied to every block."""

import warp as wp


@wp.kernel
def band_energy(x: wp.array(dtype=float), lo: int, hi: int, out: wp.array(dtype=float)):
    i = wp.tid()
    if i >= lo and i < hi:
        wp.atomic_add(out, 0, x[i] * x[i])


class BandMonitor:
    def __init__(self, lo: int, hi: int, device: str = "cpu"):
        self.lo, self.hi, self.device = lo, hi, device
        self.energy = wp.zeros(1, dtype=float, device=device)

    def forward(self, x):
        self.energy.zero_()
        wp.launch(band_energy, dim=x.shape, inputs=[x, self.lo, self.hi, self.energy], device=self.device)
        return float(self.energy.numpy()[0])

    __call__ = forward
