"""Each reduction family has a named module of its own, so each can use its own block size."""

import warp as wp

wp.config.enable_backward = False


# silent: WCT009 — stats.sum is only ever launched at block_dim 64 ...
@wp.kernel(module="stats.sum")
def sum_into(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    wp.atomic_add(out, 0, x[wp.tid()])


@wp.kernel(module="stats.sum")
def mean_finish(out: wp.array(dtype=float), n: int):
    out[0] = out[0] / float(n)


# silent: WCT009 — ... and stats.max only at 128: two modules, one block_dim each.
@wp.kernel(module="stats.max")
def max_into(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    wp.atomic_max(out, 0, x[wp.tid()])


@wp.kernel(module="stats.max")
def abs_values(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.abs(x[i])


SUM_BLOCK = 64
MAX_BLOCK = 128


def mean(x: wp.array) -> float:
    out = wp.zeros(1, dtype=float, device=x.device)
    wp.launch(sum_into, dim=x.shape, inputs=[x, out], block_dim=SUM_BLOCK, device=x.device)
    wp.launch(mean_finish, dim=1, inputs=[out, x.shape[0]], block_dim=SUM_BLOCK, device=x.device)
    return float(out.numpy()[0])


def abs_max(x: wp.array) -> float:
    out = wp.zeros(1, dtype=float, device=x.device)
    wp.launch(abs_values, dim=x.shape, inputs=[x], block_dim=MAX_BLOCK, device=x.device)
    wp.launch(max_into, dim=x.shape, inputs=[x, out], block_dim=MAX_BLOCK, device=x.device)
    return float(out.numpy()[0])
