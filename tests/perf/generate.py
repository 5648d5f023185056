"""Synthetic Warp-like sources for memory/robustness checks (and benchmarks/lint_memory.py)."""

from __future__ import annotations

BLOCK = '''

@wp.kernel
def integrate_{i}(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    tid = wp.tid()
    p = x[tid]
    q = v[tid]
    for k in range(4):
        q = q + wp.vec3(0.0, -9.8, 0.0) * dt
        p = p + q * dt
    x[tid] = p
    v[tid] = q


@wp.kernel(module="unique", module_options={{"enable_backward": False}})
def clamp_{i}(x: wp.array(dtype=float), lo: float, hi: float):
    tid = wp.tid()
    x[tid] = wp.clamp(x[tid], lo, hi)


def step_{i}(x, v, y, dt):
    wp.launch(integrate_{i}, dim=x.shape[0], inputs=[x, v, dt], block_dim={block})
    wp.launch(clamp_{i}, dim=y.shape[0], inputs=[y, 0.0, 1.0])
    with wp.ScopedDevice("cpu"):
        tape = wp.Tape()
        with tape:
            wp.launch(integrate_{i}, dim=x.shape[0], inputs=[x, v, dt])
        tape.backward()
    return x, v
'''

HEADER = '''"""Generated: many kernels and launches."""
import warp as wp

wp.set_module_options({"enable_backward": True})
'''


def warp_like_source(min_lines: int) -> str:
    """At least ``min_lines`` lines of kernels, launches and tapes."""
    parts = [HEADER]
    count = HEADER.count("\n")
    i = 0
    while count < min_lines:
        block = BLOCK.format(i=i, block=(64, 128, 256)[i % 3])
        parts.append(block)
        count += block.count("\n")
        i += 1
    parts.append('\nwp.config.enable_backward = False\n')
    return "".join(parts)


# A file whose own analysis takes ~1 s of CPU here (a long elif ladder choosing kernels and
# block_dims, 55k lines; parsing it alone takes 0.15 s, WCT010 most of the rest), and a small
# file that uses it (~2 ms): with a per-file budget of OVER_BUDGET_S the first runs out many
# times over and the second finishes with room to spare.
OVER_BUDGET_S = 0.05
QUICK_SOURCE = '''import warp as wp
from a_ladders import choose0, kern1

@wp.kernel
def own(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0

def go(x, mode):
    wp.launch(choose0(mode, x), dim=1, inputs=[x], block_dim=64)
    wp.launch(kern1, dim=1, inputs=[x])
    wp.launch(own, dim=1, inputs=[x], block_dim=64)
    wp.launch(own, dim=1, inputs=[x], block_dim=128)
'''


def one_file_over_budget(root) -> tuple[str, str]:
    """Write ``a_ladders.py`` (over the budget) and ``b_uses.py`` (importing it) under
    ``root``; their paths, linted in that order."""
    from pathlib import Path

    from tests.perf.test_bounded_analysis import elif_ladders

    slow, quick = Path(root) / "a_ladders.py", Path(root) / "b_uses.py"
    slow.write_text(elif_ladders(120), encoding="utf-8")
    quick.write_text(QUICK_SOURCE, encoding="utf-8")
    return str(slow), str(quick)
