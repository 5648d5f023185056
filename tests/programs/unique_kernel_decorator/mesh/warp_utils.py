"""The project's own kernel decorator: every element kernel gets a module of its own."""

import warp as wp


def element_kernel(**kwargs):
    """Decorate an element kernel: a module of its own, so that each can be reloaded alone
    (module="unique" is deliberate: the mesh editor reloads one element kernel at a time)."""

    def decorate(func):
        # expect WCT010: nothing in this project differentiates, yet every kernel this
        # decorator makes compiles adjoint code in its own module.
        return wp.kernel(func, module="unique", **kwargs)  # expect: WCT010

    return decorate
