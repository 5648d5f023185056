import warp as wp

from tiles.kernels import make_scale


class Sim:
    def __init__(self):
        # One kernel per size, all in tiles.kernels, made before any launch.
        self._kernels_by_size = {4: make_scale(4), 8: make_scale(8)}

    def add_size(self, size):
        # A size added after the first step: its kernel joins tiles.kernels, which the loop's
        # launches loaded, so the module gets a new hash and is built again, whole.
        self._kernels_by_size[size] = make_scale(size)  # expect: WCT007

    def step(self, x):
        # The loop over the table launches every kernel put in it: those of __init__ and add_size.
        for size, kernel in self._kernels_by_size.items():
            wp.launch(kernel, dim=size, inputs=[x], device="cpu")
