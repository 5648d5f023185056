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


# A file over its time budget on any machine, however fast or busy: with
# ``rules_stalling_on_the_slow_file()`` in place of warp-ct's rules, WCT009 (a query over the
# program model) spins on ``a_ladders.py`` inside a question to the model until the file's
# deadline stops it: the CPU timer on the main thread, the cooperative ``poll`` on the language
# server's analysis thread. A fixture that is merely big or intricate stops being over any fixed
# budget as soon as the analysis gets faster, so the overrun is forced, never relied upon.
# ``b_uses.py`` imports the stalled file and must get, within the same budget, exactly the
# findings it gets with no budget at all; the budget leaves it room on a slow machine (its own
# analysis takes a few milliseconds of CPU; CPU time, so other load does not count).
OVER_BUDGET_S = 0.25
SLOW_FILE_NAME = "a_ladders.py"
STALLED_RULE = "WCT009"
# Far over OVER_BUDGET_S: if no deadline stopped the stalled rule by then, the budget did not
# hold, and the rule says so (an internal-error finding) rather than spinning forever.
STALL_LIMIT_S = 30.0
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
    """Write ``a_ladders.py`` (stalled by ``rules_stalling_on_the_slow_file``) and
    ``b_uses.py`` (importing it) under ``root``; their paths, linted in that order."""
    from pathlib import Path

    from tests.perf.test_bounded_analysis import elif_ladders

    slow, quick = Path(root) / SLOW_FILE_NAME, Path(root) / "b_uses.py"
    slow.write_text(elif_ladders(2), encoding="utf-8")
    quick.write_text(QUICK_SOURCE, encoding="utf-8")
    return str(slow), str(quick)


def _spin_until_stopped() -> None:
    """Busy (limits count CPU time) until a deadline raises ``DeadlineExceeded``."""
    import time

    from warp_ct.analyzer import deadline

    clock = getattr(time, "thread_time", time.process_time)
    give_up_at = clock() + STALL_LIMIT_S
    while clock() < give_up_at:
        deadline.poll()  # what stops it off the main thread, where no timer signal arrives
        sum(range(1000))
    raise AssertionError(f"no time budget stopped {STALLED_RULE} on {SLOW_FILE_NAME} in {STALL_LIMIT_S:g} s")


def rules_stalling_on_the_slow_file() -> tuple:
    """warp-ct's rules, with ``STALLED_RULE`` stuck on ``SLOW_FILE_NAME`` (test-only: pass it
    as a ``Linter``'s ``rules``); on every other file it is the real rule."""
    from pathlib import Path

    from warp_ct.analyzer.rules import all_rules, get_rule

    real = get_rule(STALLED_RULE)

    class StalledRule(type(real)):  # same code, name and docs: messages name the real rule
        def query(self, ctx) -> None:
            if Path(ctx.path).name == SLOW_FILE_NAME:
                # Stuck while answering the rule's own question to the program model (its
                # launches by Warp module, asked again for every other file): cut short, it
                # must leave no answer behind, or the next file's findings would differ.
                ctx.program.memo("WCT009.launches", _spin_until_stopped)
            super().query(ctx)

    return tuple(StalledRule() if rule.code == STALLED_RULE else rule for rule in all_rules())
