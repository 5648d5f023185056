"""Every model query terminates in time linear in what it visits.

Each generated shape is one the program model once expanded per path (a function whose
returns call itself, callers that fan in along a deep chain, wide tables, long ladders):
linting it must cost a small multiple of ``ast.parse`` of the same text. The ratio is
measured in the same run, in CPU time of this process (other work on a busy machine does not
count), the best of several rounds; the bar (5x) leaves room for noise, while the defects it
guards against were 100x-10,000x.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest

from warp_ct.analyzer.batch import run_lint
from warp_ct.config import Config

RATIO_BAR = 5.0
_KERNEL = '''
@wp.kernel
def kern{i}(a: wp.array(dtype=float)):
    t = wp.tid()
    a[t] = a[t] + {i}.0
'''


def _header(kernels: int) -> list[str]:
    lines = ["import warp as wp", ""]
    for i in range(kernels):
        lines += _KERNEL.format(i=i).splitlines()
    return lines


def self_recursive_returns(size: int) -> str:
    """``pick`` returns itself with swapped arguments: each return was followed per path."""
    lines = _header(2)
    for f in range(size):
        lines += ["", f"def pick{f}(a, b, c):"]
        for j in range(12):
            lines += [f"    if c == {j}:", f"        return pick{f}(b, a, c - 1)"]
        lines += ["    return a", "", f"def run{f}(x):",
                  f"    wp.launch(pick{f}(kern0, kern1, 3), dim=1, inputs=[x])"]  # fmt: skip
    return "\n".join(lines) + "\n"


def mutually_recursive_returns(size: int) -> str:
    lines = _header(2)
    for f in range(size):
        lines += ["", f"def even{f}(a, b, n):"]
        for j in range(6):
            lines += [f"    if n == {j}:", f"        return odd{f}(b, a, n - 1)"]
        lines += ["    return a", "", f"def odd{f}(a, b, n):"]
        for j in range(6):
            lines += [f"    if n == {j}:", f"        return even{f}(a, b, n - 1)"]
        lines += ["    return b", "", f"def run{f}(x, n):",
                  f"    wp.launch(even{f}(kern0, kern1, n), dim=1, inputs=[x])"]  # fmt: skip
    return "\n".join(lines) + "\n"


def fanning_call_chain(size: int) -> str:
    """Each level calls the next from two places, passing the kernel and a block_dim on:
    2**depth paths from the top to the launch."""
    lines = _header(1)
    depth = 24
    for f in range(size):
        lines += ["", f"def level{f}_{depth}(kernel, block, x):",
                  "    wp.launch(kernel, dim=1, inputs=[x], block_dim=block)"]  # fmt: skip
        for d in range(depth - 1, -1, -1):
            lines += ["", f"def level{f}_{d}(kernel, block, x):",
                      "    for i in range(3):",
                      f"        level{f}_{d + 1}(kernel, block, x)",
                      f"    level{f}_{d + 1}(kernel, block * 2, x)"]  # fmt: skip
        lines += ["", f"def main{f}(x):", f"    level{f}_0(kern0, 64, x)"]
    return "\n".join(lines) + "\n"


def wide_tables(size: int) -> str:
    kernels = 50
    lines = _header(kernels)
    for t in range(size):
        rows = ", ".join(f"(kern{i % kernels}, {32 * (1 + i % 4)})" for i in range(200))
        lines += ["", f"TABLE{t} = [{rows}]",
                  f"BY_NAME{t} = {{{', '.join(f'{chr(34)}k{i}{chr(34)}: kern{i % kernels}' for i in range(200))}}}",
                  "", f"def run{t}(x, name):",
                  f"    for kernel, block in TABLE{t}:",
                  "        wp.launch(kernel, dim=1, inputs=[x], block_dim=block)",
                  f"    wp.launch(BY_NAME{t}[name], dim=1, inputs=[x])"]  # fmt: skip
    return "\n".join(lines) + "\n"


def elif_ladders(size: int) -> str:
    lines = _header(4)
    for f in range(size):
        lines += ["", f"def choose{f}(mode, x):", "    kernel = kern0"]
        for j in range(150):
            lines += [f"    {'if' if j == 0 else 'elif'} mode == {j}:", f"        kernel = kern{j % 4}",
                      f"        block = {32 * (1 + j % 8)}"]  # fmt: skip
        lines += ["    wp.launch(kernel, dim=1, inputs=[x], block_dim=block)", "    return kernel"]
    return "\n".join(lines) + "\n"


def many_functions(size: int) -> str:
    lines = _header(3)
    for f in range(size):
        lines += ["", f"def f{f}(x, k=kern{f % 3}):", f"    return f{f + 1}(x, k) if x else k"]
    lines += ["", f"def f{size}(x, k):", "    wp.launch(k, dim=1, inputs=[x])", "    return k"]
    return "\n".join(lines) + "\n"


SHAPES = {
    "self_recursive_returns": (self_recursive_returns, 120),
    "mutually_recursive_returns": (mutually_recursive_returns, 120),
    "fanning_call_chain": (fanning_call_chain, 40),
    "wide_tables": (wide_tables, 40),
    "elif_ladders": (elif_ladders, 40),
    "many_functions": (many_functions, 10_000),
}


def _cpu_seconds(action) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_shape_lints_in_a_small_multiple_of_parsing(shape: str, tmp_path: Path) -> None:
    generate, size = SHAPES[shape]
    warm_up = tmp_path / "warm_up"
    warm_up.mkdir()
    (warm_up / "small.py").write_text(generate(2), encoding="utf-8")
    run_lint([str(warm_up)], Config(select=("ALL",), root=warm_up))  # imports and first uses, not measured
    project = tmp_path / "project"
    project.mkdir()
    text = generate(size)
    (project / f"{shape}.py").write_text(text, encoding="utf-8")
    config = Config(select=("ALL",), root=project)
    # Rounds of (parse, lint) back to back: the best round's ratio, so that a burst of other
    # work that slows one side of one round does not decide it.
    rounds = [(_cpu_seconds(lambda: ast.parse(text)), _cpu_seconds(lambda: run_lint([str(project)], config)))
              for _ in range(4)]  # fmt: skip
    parse, lint = min(rounds, key=lambda pair: pair[1] / pair[0])
    assert lint <= RATIO_BAR * parse, (
        f"{shape}: {len(text.splitlines())} lines lint in {lint:.3f} s, {lint / parse:.1f}x ast.parse ({parse:.3f} s)"
    )
