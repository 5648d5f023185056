"""QueryMemo: each (query, place) once, cycles cut once, answers independent of asking order."""

from __future__ import annotations

import pytest

from warp_ct.analyzer.recursion import QueryMemo

UNKNOWN = "?"


def _reachable(graph: dict[str, list[str]], memo: QueryMemo, calls: list[str]):
    """The nodes reachable from a node, as a query that asks itself (the model's shape)."""

    def ask(node: str) -> frozenset[str]:
        def compute() -> frozenset[str]:
            calls.append(node)
            out = {node}
            for child in graph[node]:
                answer = ask(child)
                if answer != UNKNOWN:
                    out |= answer
            return frozenset(out)

        return memo.ask(("reach", node), None, compute, UNKNOWN)

    return ask


def test_a_diamond_lattice_is_computed_once_per_node() -> None:
    # 30 levels of two nodes, each calling both nodes of the next level: 2**30 paths.
    graph = {f"{level}{side}": [f"{level + 1}a", f"{level + 1}b"] for level in range(30) for side in "ab"}
    graph.update({"30a": [], "30b": []})
    calls: list[str] = []
    ask = _reachable(graph, QueryMemo(), calls)
    assert len(ask("0a")) == 61
    assert len(calls) == len(set(calls)) == 61


def test_a_cycle_is_cut_once_and_its_root_answer_is_whole() -> None:
    graph = {"a": ["b"], "b": ["c", "a"], "c": ["a", "b"]}
    calls: list[str] = []
    memo = QueryMemo()
    ask = _reachable(graph, memo, calls)
    assert ask("a") == frozenset("abc")
    assert len(calls) == 3
    # Inside the cycle, b and c were answered while a was open: asked on their own later,
    # they are computed from their own place, so the answer does not depend on the order.
    assert ask("b") == frozenset("abc") and ask("c") == frozenset("abc")
    fresh = _reachable(graph, QueryMemo(), [])
    assert [fresh(n) for n in "cba"] == [ask(n) for n in "cba"]


def test_the_depth_cap_keeps_nothing_for_good() -> None:
    memo = QueryMemo()
    assert memo.ask("outer", None, lambda: memo.cut("cut"), UNKNOWN) == "cut"
    assert memo.ask("outer", None, lambda: "whole", UNKNOWN) == "whole"


def test_an_exception_leaves_no_open_question_behind() -> None:
    memo = QueryMemo()

    def failing() -> str:
        memo.ask("inner", None, lambda: memo.ask("outer", None, lambda: "x", UNKNOWN), UNKNOWN)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        memo.ask("outer", None, failing, UNKNOWN)
    assert memo.ask("outer", None, lambda: "answered", UNKNOWN) == "answered"
    assert memo.ask("inner", None, lambda: "inner answered", UNKNOWN) == "inner answered"


def test_a_key_naming_an_object_answers_only_for_that_object() -> None:
    memo = QueryMemo()
    first, second = object(), object()
    assert memo.ask(("q", 1), first, lambda: "first", UNKNOWN) == "first"
    assert memo.ask(("q", 1), second, lambda: "second", UNKNOWN) == "second"
