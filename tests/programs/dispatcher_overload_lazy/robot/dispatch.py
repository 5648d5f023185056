"""Picks the overload of a generic kernel that matches the index arrays' dtypes."""

from itertools import product

import warp as wp


class IndexKernelDispatcher:
    def __init__(self, kernel, selector_names, argument_types):
        self._overloads = {}
        for dtypes in product((wp.int32, wp.int64), repeat=len(selector_names)):
            signature = dict(argument_types)
            signature.update({name: wp.array(dtype=d) for name, d in zip(selector_names, dtypes)})
            # expect WCT007: built lazily (see kernels._dispatcher), these overloads join
            # robot.kernels after reset() loaded it: a new hash, a whole new build.
            self._overloads[dtypes] = wp.overload(kernel, signature)  # expect: WCT007

    def select(self, *selectors):
        return self._overloads[tuple(s.dtype for s in selectors)]
