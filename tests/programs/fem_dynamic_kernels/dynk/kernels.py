import warp as wp
import warp.fem as fem


# Nothing differentiates fill: its module (dynk.kernels) compiles adjoint code for nothing. The
# taped scale kernels live in their own dyn modules, so the tape does not make this one needed.
@wp.kernel  # expect: WCT010
def fill(x: wp.array(dtype=float), value: float):
    i = wp.tid()
    x[i] = value


def make_scale(factor: int):
    # silent: WCT003 — warp.fem caches the kernel by its suffix: a second call with the same
    # factor defines nothing, a new factor builds a module of its own (dynk.kernels.dyn.scale_<hash>)
    @fem.cache.dynamic_kernel(suffix=factor)
    def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * float(factor)

    return scale
