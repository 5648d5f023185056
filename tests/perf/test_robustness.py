"""Bad or huge input never stalls or crashes a run: time limits, 50k-line files, odd files."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from astroid import MANAGER, nodes
from astroid import inference_tip

from tests.perf.generate import (
    OVER_BUDGET_S,
    STALLED_RULE,
    one_file_over_budget,
    rules_stalling_on_the_slow_file,
    warp_like_source,
)
from warp_ct.analyzer import deadline, project
from warp_ct.analyzer.batch import run_lint
from warp_ct.analyzer.engine import Linter
from warp_ct.analyzer.recursion import QueryMemo
from warp_ct.analyzer.rules import get_rule
from warp_ct.analyzer.rules.base import Rule
from warp_ct.config import Config

needs_timer = pytest.mark.skipif(not deadline.available(), reason="needs a SIGPROF timer on the main thread")


# ---------------------------------------------------------------------- pathological inference
def _endless_inference(node, context=None):  # an astroid inference tip that never finishes
    while True:  # busy: the limits count CPU time
        sum(range(1000))
    yield  # pragma: no cover


def _is_trap(node: nodes.Call) -> bool:
    return isinstance(node.func, nodes.Name) and node.func.name == "pathological_trap"


class InferEveryCall(Rule):
    """A test rule that infers every call (as real rules do through ctx.infer)."""

    code = "WCT990"
    name = "infer-every-call"
    summary = "test"
    docs = ""

    def visit_call(self, node, ctx) -> None:
        ctx.infer(node)


@pytest.fixture
def trap(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(project, "BRAIN_TRANSFORMS", True)  # the trap is an inference tip (a transform)
    tip = inference_tip(_endless_inference)
    MANAGER.register_transform(nodes.Call, tip, _is_trap)
    yield
    MANAGER.unregister_transform(nodes.Call, tip, _is_trap)


@needs_timer
def test_one_endless_inference_is_cut_off_and_other_files_proceed(tmp_path: Path, trap) -> None:
    bad = tmp_path / "a_bad.py"
    bad.write_text("import warp as wp\nx = pathological_trap()\ny = pathological_trap()\n", encoding="utf-8")
    good = tmp_path / "b_good.py"
    good.write_text(
        'import warp as wp\n\n@wp.kernel(module_options={"enable_backward": False})\ndef k(a: float):\n    pass\n',
        encoding="utf-8",
    )
    linter = Linter(Config(select=("ALL",), root=tmp_path), rules=[InferEveryCall(), get_rule("WCT005")], inference_budget_s=0.5)
    start = time.monotonic()
    results = linter.lint_paths([str(tmp_path)])
    assert time.monotonic() - start < 20
    by_name = {Path(r.path).name: r for r in results}
    assert any("inference budget" in n for n in by_name["a_bad.py"].notes)
    assert [f.rule for f in by_name["b_good.py"].findings] == ["WCT005"]


class EndlessRule(Rule):
    code = "WCT991"
    name = "endless"
    summary = "test"
    docs = ""

    def visit_module(self, node, ctx) -> None:
        while True:
            sum(range(1000))


@needs_timer
def test_file_time_limit_stops_a_stuck_rule_and_keeps_the_others(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        'import warp as wp\n\n@wp.kernel(module_options={"enable_backward": False})\ndef k(a: float):\n    pass\n',
        encoding="utf-8",
    )
    (tmp_path / "b.py").write_text((tmp_path / "a.py").read_text(), encoding="utf-8")
    linter = Linter(Config(select=("ALL",), root=tmp_path), rules=[get_rule("WCT005"), EndlessRule()], file_budget_s=0.5)
    results = linter.lint_paths([str(tmp_path)])
    assert len(results) == 2
    for result in results:
        assert sorted(f.rule for f in result.findings) == ["WCT005", "WCT901"], result.findings
        stop = next(f for f in result.findings if f.rule == "WCT901")
        assert "time budget of 0.5 s" in stop.message and "rule WCT991 did not finish" in stop.message
        assert "WCT005" not in stop.message  # it finished: its finding is there
    assert not deadline._active  # no timer left armed
    assert not getattr(deadline._local, "stack", None)  # nor a cooperative deadline


def test_no_timer_off_the_main_thread() -> None:
    seen = []
    t = threading.Thread(target=lambda: seen.append(deadline.hard_deadline(0.01, "x").__enter__()))
    t.start()
    t.join()
    assert seen == [False]  # no signal: only the cooperative checks (next tests) limit it there


def _in_a_thread(action):
    """``action()``'s result on a worker thread, like the language server's analysis."""
    out: dict = {}

    def run() -> None:
        out["timer"] = deadline.available()
        out["result"] = action()

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert out["timer"] is False  # what stops it there is the cooperative check
    return out["result"]


@pytest.mark.parametrize("threaded", [False, True], ids=["main-thread", "worker-thread"])
def test_a_file_over_its_budget_gets_wct901_and_the_others_are_unaffected(tmp_path: Path, threaded: bool) -> None:
    slow, quick = one_file_over_budget(tmp_path)
    config = Config(root=tmp_path)
    whole = {r.path: r.findings for r in Linter(config, file_budget_s=None).lint_paths([str(tmp_path)])}
    assert not [f for f in whole[slow] if f.rule == "WCT901"] and whole[quick]

    def lint():
        rules = rules_stalling_on_the_slow_file()
        return Linter(config, rules=rules, file_budget_s=OVER_BUDGET_S).lint_paths([str(tmp_path)])

    results = _in_a_thread(lint) if threaded else lint()
    assert [r.path for r in results] == [slow, quick]  # the slow one first: what it left behind is met
    stops = [f for f in results[0].findings if f.rule == "WCT901"]
    assert len(stops) == 1, results[0].findings
    assert f"time budget of {OVER_BUDGET_S:g} s of CPU time" in stops[0].message
    assert f"rules {STALLED_RULE}," in stops[0].message and "did not finish" in stops[0].message
    assert "per-file-ignores" in stops[0].message
    assert results[1].findings == whole[quick]  # exactly what it gets with no budget at all
    assert not getattr(deadline._local, "stack", None) and not deadline._active


def test_cooperative_deadline_stops_a_query_and_leaves_the_memo_clean() -> None:
    """Off the main thread the program model's queries check the deadline themselves; a stop
    must not leave an answer that depended on the stopped question behind."""
    memo = QueryMemo()

    def leaf(i: int) -> int:
        sum(range(3000))  # ~50 us: thousands of them are far over the limit
        inner = memo.ask("top", None, top, None)  # a cycle: this answer is provisional
        return i if inner is None else -1

    def top() -> int:
        return sum(memo.ask(("leaf", i), None, lambda i=i: leaf(i), 0) for i in range(20_000))

    def limited():
        try:
            with deadline.hard_deadline(0.01, "file"):
                return memo.ask("top", None, top, None)
        except deadline.DeadlineExceeded as exc:
            return exc

    stopped = _in_a_thread(limited)
    assert isinstance(stopped, deadline.DeadlineExceeded) and stopped.kind == "file"
    assert not memo._depth_of and not memo._provisional and not memo._exact
    assert memo.ask("top", None, top, None) == sum(range(20_000))  # asked again: answered whole


# ---------------------------------------------------------------------- big and odd files
def test_fifty_thousand_line_file_lints(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_text(warp_like_source(50_000), encoding="utf-8")
    (result,) = run_lint([str(big)], Config(select=("ALL",), root=tmp_path))
    # It is full of antipatterns; on a very slow machine the per-file CPU limit may stop the
    # rules first, which must then be said (a WCT901 naming the budget, never silently).
    assert not [f for f in result.findings if f.rule == "WCT900" or f.rule == "WCT901" and "time budget" not in f.message]
    assert [f for f in result.findings if f.rule != "WCT901"]


@pytest.mark.parametrize(
    "name, data",
    [
        ("binary.py", b"import warp\x00\x01\x02"),
        ("latin.py", b"# -*- coding: latin-1 -*-\nimport warp as wp\nx = '\xe9'\n"),
        ("bad_utf8.py", b"import warp as wp\nx = '\xff\xfe'\n"),
        ("bad_coding.py", b"# -*- coding: no-such-codec -*-\nimport warp\n"),
        ("syntax.py", b"import warp as wp\n@wp.kernel\ndef f(:\n"),
        ("deep.py", b"import warp as wp\nx = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n"),
        ("empty.py", b""),
        ("bom.py", b"\xef\xbb\xbfimport warp as wp\n"),
        ("warp.py", b"import warp as wp\n@wp.kernel(module_options={})\ndef k():\n    pass\n"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_bad_files_get_a_note_or_a_finding_never_a_crash(tmp_path: Path, name: str, data: bytes) -> None:
    (tmp_path / name).write_bytes(data)
    (result,) = run_lint([str(tmp_path / name)], Config(select=("ALL",), root=tmp_path))
    assert not [f for f in result.findings if f.rule == "WCT901"]
    # A file named like the stubbed warp package must not replace the stub for later files.
    assert "stub of warp" in (MANAGER.astroid_cache["warp"].doc_node.value or "").lower()


def test_warp_name_answers_are_not_reused_for_other_nodes() -> None:
    """Rules pass temporary nodes to ctx.warp_name; a freed node's id must not answer later."""
    import ast

    from warp_ct.analyzer.context import FileContext
    from warp_ct.analyzer.project import Project
    from warp_ct.analyzer.syntax import attach_parents

    def parse(source: str) -> ast.Module:
        tree = ast.parse(source)
        attach_parents(tree)
        return tree

    text = "import warp as wp\n"
    ctx = FileContext(path="x.py", text=text, module_name="x", tree=parse(text), project=Project())
    for i in range(300):
        is_warp = i % 2 == 0
        source = ("import warp as wp" if is_warp else "import os as wp") + "\nwp.config.mode\n"
        node = parse(source).body[-1].value  # a fresh tree each time, freed after
        assert (ctx.warp_name(node) == "warp.config.mode") is is_warp
