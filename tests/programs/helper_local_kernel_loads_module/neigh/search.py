"""Fill kernels and the runner that picks one of the two it is handed."""

import warp as wp

# forward-only: set for this module before its first kernel (nothing here is differentiated)
wp.set_module_options({"enable_backward": False})


@wp.kernel
def fill(counts: wp.array(dtype=wp.int32)):
    counts[wp.tid()] = 1


@wp.kernel
def fill_selected(counts: wp.array(dtype=wp.int32), flags: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if flags[i] != 0:
        counts[i] = 2


def _run_graph(counts, fill_kernel, selective_kernel=None, flags=None):
    # The kernel is one of the two the caller hands over: the first run loads this module.
    if flags is None:
        active_kernel = fill_kernel
        inputs = [counts]
    else:
        active_kernel = selective_kernel
        inputs = [counts, flags]
    wp.launch(active_kernel, dim=counts.shape, inputs=inputs)


def search(counts):
    _run_graph(counts, fill)


def search_selected(counts, flags):
    _run_graph(counts, fill, selective_kernel=fill_selected, flags=flags)


class Offsets:
    def __init__(self, counts):
        self.counts = counts
        self.kernels = []

    def add(self, offset: int):
        # silent: WCT007 — reported at the call of `add()`, made after the first search.
        @wp.kernel
        def shift(counts: wp.array(dtype=wp.int32)):
            counts[wp.tid()] = counts[wp.tid()] + offset

        self.kernels.append(shift)

    def run(self):
        for kernel in self.kernels:
            wp.launch(kernel, dim=self.counts.shape, inputs=[self.counts])
