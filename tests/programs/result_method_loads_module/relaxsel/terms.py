"""The solver and the terms a user adds to it; its first kernel comes from a picker."""

import functools

import warp as wp

# forward-only: set for this module before its first kernel (nothing here is differentiated)
wp.set_module_options({"enable_backward": False})


@wp.kernel
def init_ones(x: wp.array(dtype=float)):
    x[wp.tid()] = 1.0


class Picker:
    def __init__(self, kernel):
        self._kernel = kernel

    def select(self, x):
        return self._kernel


@functools.cache
def picker(kind):
    return Picker(init_ones)


class Solver:
    def __init__(self, x: wp.array):
        self.x = x
        self.terms = []
        # The constructor's launch loads this module (built once, with `init_ones` only): the
        # kernel is what `select` returns on the object `picker("ones")` builds.
        wp.launch(picker("ones").select(x), dim=x.shape, inputs=[x])

    def add_term(self, gain: float):
        # silent: WCT007 — the definition itself is not the line to move: `add_term()` is
        # called after the constructor's launch, and that call is reported where it is made.
        @wp.kernel
        def scale(x: wp.array(dtype=float)):
            x[wp.tid()] = x[wp.tid()] * gain

        self.terms.append(scale)

    def step(self):
        for term in self.terms:
            wp.launch(term, dim=self.x.shape, inputs=[self.x])
