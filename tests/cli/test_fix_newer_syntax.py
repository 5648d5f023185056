"""A file with Python 3.12 syntax (PEP 695) linted by an older Python: a finding shown
fixable (``[*]``) is the one ``--fix`` applies and ``--diff`` shows. The analyzer reads such
a file through a rewrite of its type parameters; the fix's "does the result still parse"
check once used plain ``ast.parse``, refused every fix there, and said "No fixes available"
next to a ``[*]``. On Python 3.12 and later these pass without the rewrite."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes, parses
from warp_ct.analyzer.model import Finding, Fix, Range, Severity, TextEdit

from .conftest import FIXED_WCT005_SOURCE, WCT005_SOURCE

NEWER_SYNTAX = """\
type Scalar = float
type Pair[T] = tuple[T, T]


def first[T](items: list[T]) -> T:
    return items[0]


class Box[T]:
    def get(self) -> T: ...

"""
SOURCE = NEWER_SYNTAX + WCT005_SOURCE
FIXED_SOURCE = NEWER_SYNTAX + FIXED_WCT005_SOURCE


def test_newer_syntax_parses_for_the_fix_check_as_for_the_analyzer():
    assert parses(SOURCE) and parses(FIXED_SOURCE)
    assert not parses(NEWER_SYNTAX + "def broken(:\n")  # the rewrite does not hide real errors
    assert not parses("type X[T = int\n")


def test_the_fixable_finding_is_fixed(cli, project):
    target = project.write("generic.py", SOURCE)
    shown = cli("lint", "--no-cache", "generic.py")
    assert shown.rc == 1
    assert shown.out.splitlines()[0].startswith("generic.py:14:12: WCT005 [*] ")
    assert "1 fixable with --fix" in shown.out

    diff = cli("lint", "--no-cache", "--diff", "generic.py")
    assert "No fixes available" not in diff.out + diff.err
    assert '-@wp.kernel(module_options={"enable_backward": False})' in diff.out
    assert '+@wp.kernel(module="unique", module_options={"enable_backward": False})' in diff.out
    assert target.read_text(encoding="utf-8") == SOURCE  # --diff writes nothing

    fixed = cli("lint", "--no-cache", "--fix", "generic.py")
    assert fixed.rc == 0, fixed.out + fixed.err
    assert fixed.out == "Fixed 1 finding (0 remaining).\n"
    assert target.read_text(encoding="utf-8") == FIXED_SOURCE


def test_a_fix_that_would_break_a_file_with_newer_syntax_is_still_refused():
    def finding(new_text: str) -> Finding:
        where = Range.from_coords(4, 4, 4, 4)  # after ``def `` of ``def first[T](...)``
        return Finding("WCT005", "x.py", where, "m", Severity.ERROR, fixes=(Fix("t", (TextEdit(where, new_text),)),))

    outcome = apply_fixes(SOURCE, [finding("(")])
    assert outcome.text == SOURCE and not outcome.applied and len(outcome.skipped) == 1
    outcome = apply_fixes(SOURCE, [finding("the_")])
    assert outcome.text == SOURCE.replace("def first[T]", "def the_first[T]") and len(outcome.applied) == 1
