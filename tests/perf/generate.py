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
