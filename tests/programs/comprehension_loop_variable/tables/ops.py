"""Shared helpers: the typed table builder, beside this module's own kernel named `kernel`."""

import warp as wp

# forward-only: set for this module before its first kernel (nothing here is differentiated)
wp.set_module_options({"enable_backward": False})


@wp.kernel
def kernel(a: wp.array(dtype=float)):
    a[wp.tid()] = 0.0


def typed(rows, dtype):
    # `kernel` here is the comprehension's own variable (each row's kernel), not the global.
    return {name: wp.overload(kernel, [wp.array(dtype=dtype)]) for name, kernel in rows}


class Extras:
    def __init__(self, a):
        self.a = a
        self.kernels = []

    def add(self, value: float):
        # silent: WCT007 — nothing launched this module before: its first launch builds it once.
        @wp.kernel
        def fill(a: wp.array(dtype=float)):
            a[wp.tid()] = a[wp.tid()] + value

        self.kernels.append(fill)

    def run(self):
        for k in self.kernels:
            wp.launch(k, dim=self.a.shape, inputs=[self.a])
