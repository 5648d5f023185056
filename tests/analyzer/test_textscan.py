"""Anchored regex scans (textscan, rule triggers) answer exactly like a plain ``re`` search."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from warp_ct.analyzer import project, textscan
from warp_ct.analyzer.context import UNIQUE_MODULE_TEXT
from warp_ct.analyzer.rules import all_rules
from warp_ct.analyzer.rules.base import _Trigger, single_line_anchored

TEXT = st.text(alphabet="abkernlimportfw_ @.=(),\n\t#'\"xyzunique)]}", max_size=80)
TRIGGERS = [t for rule in all_rules() for t in rule.triggers] + [
    r"^[ \t]*ab", r"^x[^\n]*kern", r"^\s*kern", r"\b(?:ab|kern)\s*=", r"^[ \t]*(?:import|from)[ \t]+\w+",
]


def test_single_line_anchored_shapes():
    assert single_line_anchored(r"^[ \t]+@[ \t]*[\w.]*kernel\b")
    assert single_line_anchored(r"^.*x") and single_line_anchored(r"^[^\n]*x")
    assert not single_line_anchored(r"^\s*kernel")  # \s crosses lines
    assert not single_line_anchored(r"^[^)]*x")  # so does a negated class
    assert not single_line_anchored(r"(?s)^.*x")
    assert not single_line_anchored(r"x^")


@settings(max_examples=400, deadline=None)
@given(pattern=st.sampled_from(TRIGGERS), text=TEXT)
def test_triggers_find_what_a_search_finds(pattern, text):
    assert _Trigger.of(pattern).found_in(text) == (re.search(pattern, text, re.MULTILINE) is not None)


def spans(matches) -> list[tuple[int, int]]:
    return [m.span() for m in matches]


@settings(max_examples=300, deadline=None)
@given(text=TEXT, pos=st.integers(0, 90))
def test_line_scans_find_what_finditer_finds(text, pos):
    # Matches that run over several lines (parenthesised imports, stacked decorators) too.
    for pattern, literals in (
        (project._IMPORT_RE, "import"),
        (project._KERNEL_DEF_RE, "kernel"),
        (project._WARP_IMPORT_RE, "warp"),
        (re.compile(r"^[ \t]*a[^\n]*\n[ \t]*b", re.MULTILINE), "a"),
        (re.compile(r"^[ \t]*(?:im|fr)\w*", re.MULTILINE), ("im", "fr")),
    ):
        assert spans(textscan.finditer_lines(pattern, literals, text, pos)) == spans(pattern.finditer(text, pos)), pattern


LITERAL_PATTERNS = [
    (re.compile(r"\bkern\w*\s*\("), "kern"),
    (re.compile(r"ab+"), "ab"),
    (re.compile(r"aa"), "a"),
    (re.compile(r"\b(?:launch|launch_tiled|load_module)\s*\("), ("launch", "load_module")),
    (re.compile(r"@[ \t]*[\w.]*(?:kern|func)\b|overload\s*\("), ("@", "overload")),  # overlapping alternatives
    (re.compile(r"a|ab|b"), ("a", "ab", "b")),  # one literal a prefix of another
    (re.compile(UNIQUE_MODULE_TEXT), "module"),
]


@settings(max_examples=300, deadline=None)
@given(text=TEXT, pos=st.integers(0, 90))
def test_literal_scans_find_what_finditer_finds(text, pos):
    for pattern, literals in LITERAL_PATTERNS:
        expected = spans(pattern.finditer(text, pos))
        assert spans(textscan.finditer_at(pattern, literals, text, pos)) == expected, pattern
        found = textscan.search_at(pattern, literals, text, pos)
        assert (found.span() if found else None) == (expected[0] if expected else None)


def test_line_scans_on_real_import_shapes():
    text = "from a import (b,\n    c)  # import\nimport d, e as f\nx = 'import'\n  from . import g\n"
    assert spans(textscan.finditer_lines(project._IMPORT_RE, "import", text)) == spans(project._IMPORT_RE.finditer(text))
    assert len(list(textscan.finditer_lines(project._IMPORT_RE, "import", text))) == 3


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_top_level_lines_are_the_unindented_statement_lines(text):
    expected = [m.start() for m in re.finditer(r"^[^ \t#)\]}\n]", text, re.MULTILINE)]
    assert textscan.top_level_lines(text) == expected


def test_function_start_reads_indentation():
    text = 'x = 1\ndef f():\n    a = 1\n    b = """\nnot code\n"""\n    c = 2\nclass C:\n    d = 3\n'
    lines = textscan.top_level_lines(text)
    assert textscan.function_start(text, text.index("a = 1"), lines) == text.index("def f")
    assert textscan.function_start(text, text.index("d = 3"), lines) is None  # a class body
    assert textscan.function_start(text, text.index("x = 1"), lines) is None
    # A column-0 line of a string reads as module level: "anything may precede".
    assert textscan.function_start(text, text.index("c = 2"), lines) is None
