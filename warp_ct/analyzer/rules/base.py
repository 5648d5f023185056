"""The rule contract: one class per rule, pylint-style ``visit_<node>`` methods, ruff-style docs.

A rule file holds everything about one rule: its code, kebab-case name, default severity,
user docs (What it does / Why it costs compile time / Example / Use instead / When not to
apply), the check, and the fix. The engine walks each file's `ast` tree once and calls
``visit_<classname lowercased>(node, ctx)`` / ``leave_<...>(node, ctx)`` on every active rule.
"""

from __future__ import annotations

import functools
import re
import textwrap

try:  # the regex parser behind ``re``; private, so the prefilter is optional
    from re import _constants as _sre_constants, _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as _sre_constants  # type: ignore[no-redef]
    import sre_parse as _sre_parser  # type: ignore[no-redef]
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Pattern

from warp_ct.analyzer import textscan
from warp_ct.analyzer.model import Applicability, Severity

if TYPE_CHECKING:
    from warp_ct.analyzer.project import FileSummary, Project
    from warp_ct.analyzer.query import QueryContext

DOCS_URL = "https://github.com/warp-ct/warp-ct/blob/main/docs/rules/{code}.md"

_SECTION_RE = re.compile(r"^## (?P<title>.+)$", re.MULTILINE)
_CODE_BLOCK_RE = re.compile(r"```python\n(?P<code>.*?)```", re.DOTALL)
_FILE_MARKER_RE = re.compile(r"^# file: (?P<name>\S+)\s*$", re.MULTILINE)
EXPECT_MARKER_RE = re.compile(r"#.*?\b(?P<codes>WCT\d{3}(?:\s*,\s*WCT\d{3})*)\s*$")

REQUIRED_SECTIONS = ("What it does", "Why it costs compile time", "Example", "Use instead", "When not to apply")


@dataclass(frozen=True)
class DocExample:
    """A doc example: files (name -> source). In bad examples, a trailing ``# ... WCTnnn``
    comment marks each line where a finding of that code must start."""

    files: dict[str, str]

    def expected(self) -> set[tuple[str, int, str]]:
        marks = set()
        for name, source in self.files.items():
            for line0, line in enumerate(source.splitlines()):
                match = EXPECT_MARKER_RE.search(line)
                if match:
                    for code in re.split(r"\s*,\s*", match.group("codes")):
                        marks.add((name, line0, code))
        return marks


def _split_files(code: str) -> dict[str, str]:
    markers = list(_FILE_MARKER_RE.finditer(code))
    if not markers:
        return {"example.py": code}
    files = {}
    for i, marker in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(code)
        files[marker.group("name")] = code[marker.end() + 1 : end]
    return files


def required_literals(pattern: str) -> frozenset[str] | None:
    """Strings of which every match of ``pattern`` contains at least one; None when the
    pattern gives no such guarantee (or cannot be read).

    ``\\b(?:max_unroll|lineinfo)\\s*=`` -> {"max_unroll", "lineinfo"}: checking them with
    ``in`` first is several times cheaper than letting ``re`` try every offset of a file.
    """
    items = _case_sensitive_items(pattern)
    return None if items is None else _sequence_literals(items)


def _case_sensitive_items(pattern: str) -> list | None:
    """The parsed top-level items of ``pattern``; None when it cannot be read or ignores
    case (then no literal says anything about a match)."""
    try:
        parsed = _sre_parser.parse(pattern)
    except Exception:  # noqa: BLE001 - an unreadable pattern just gets no shortcut
        return None
    return None if parsed.state.flags & re.IGNORECASE else list(parsed)


def leading_literals(pattern: str) -> frozenset[str] | None:
    """Strings one of which every match of ``pattern`` starts with (after zero-width
    assertions such as ``\\b``); None when there is no such set. A search can then start at
    the first occurrence of one of them instead of at offset 0."""
    items = _case_sensitive_items(pattern)
    return None if items is None else _leading(items)


def single_line_anchored(pattern: str) -> bool:
    """Whether ``pattern`` starts with ``^`` and can never match a line break: compiled
    with MULTILINE, every match then lies within one line."""
    try:
        parsed = _sre_parser.parse(pattern)
    except Exception:  # noqa: BLE001 - an unreadable pattern just gets no shortcut
        return False
    items = list(parsed)
    if not items or items[0] != (_sre_constants.AT, _sre_constants.AT_BEGINNING):
        return False
    return _never_newline(items, bool(parsed.state.flags & re.DOTALL))


def _never_newline(items: list, dotall: bool) -> bool:
    newline = ord("\n")
    for op, arg in items:
        if op is _sre_constants.LITERAL:
            ok = arg != newline
        elif op is _sre_constants.NOT_LITERAL:
            ok = arg == newline
        elif op is _sre_constants.ANY:
            ok = not dotall
        elif op is _sre_constants.AT:
            ok = True
        elif op is _sre_constants.IN:
            ok = all(_class_item_never_newline(item_op, item_arg) for item_op, item_arg in arg)
        elif op in (_sre_constants.MAX_REPEAT, _sre_constants.MIN_REPEAT):
            ok = _never_newline(list(arg[2]), dotall)
        elif op is _sre_constants.SUBPATTERN:
            ok = _never_newline(list(arg[-1]), dotall)
        elif op is _sre_constants.BRANCH:
            ok = all(_never_newline(list(branch), dotall) for branch in arg[1])
        else:  # look-arounds, back references...: not worth reasoning about
            ok = False
        if not ok:
            return False
    return True


# Character-class members that never match a line break.
_NEWLINE_FREE_CATEGORIES = frozenset(
    getattr(_sre_constants, name)
    for name in ("CATEGORY_WORD", "CATEGORY_DIGIT", "CATEGORY_NOT_DIGIT_NEVER", "CATEGORY_NOT_LINEBREAK")
    if hasattr(_sre_constants, name)
)


def _class_item_never_newline(op, arg) -> bool:
    newline = ord("\n")
    if op is _sre_constants.LITERAL:
        return arg != newline
    if op is _sre_constants.RANGE:
        return not arg[0] <= newline <= arg[1]
    if op is _sre_constants.CATEGORY:
        return arg in _NEWLINE_FREE_CATEGORIES
    return False  # NEGATE and anything else


def _leading(items: list) -> frozenset[str] | None:
    position = 0
    while position < len(items) and items[position][0] is _sre_constants.AT:
        position += 1
    run: list[str] = []
    for op, arg in items[position:]:
        if op is not _sre_constants.LITERAL:
            break
        run.append(chr(arg))
    if run:
        return frozenset({"".join(run)})
    if position >= len(items):
        return None
    op, arg = items[position]
    if op is _sre_constants.SUBPATTERN and not arg[1] & re.IGNORECASE:
        return _leading(list(arg[-1]))
    if op is _sre_constants.BRANCH:
        alternatives = [_leading(list(branch)) for branch in arg[1]]
        if all(alternatives):
            return frozenset().union(*alternatives)  # type: ignore[arg-type]
    return None


def _sequence_literals(items: list) -> frozenset[str] | None:
    """The best literal set among the parts every match of this sequence goes through."""
    candidates: list[frozenset[str]] = []
    run: list[str] = []
    for op, arg in items:
        if op is _sre_constants.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            candidates.append(frozenset({"".join(run)}))
            run = []
        found: frozenset[str] | None = None
        if op is _sre_constants.SUBPATTERN:
            if not arg[1] & re.IGNORECASE:  # a scoped (?i:...) matches other spellings
                found = _sequence_literals(list(arg[-1]))
        elif op is _sre_constants.BRANCH:
            alternatives = [_sequence_literals(list(branch)) for branch in arg[1]]
            if all(alternatives):
                found = frozenset().union(*alternatives)  # type: ignore[arg-type]
        if found:
            candidates.append(found)
    if run:
        candidates.append(frozenset({"".join(run)}))
    if not candidates:
        return None
    # The set whose shortest member is longest rules out the most files.
    return max(candidates, key=lambda c: min(len(s) for s in c))


@dataclass(frozen=True)
class _Trigger:
    """A trigger pattern and the cheapest way to look for it in a file."""

    pattern: Pattern[str]
    leading: frozenset[str] | None  # every match starts with one of these
    required: frozenset[str] | None  # every match holds one of these
    one_line: bool  # ``^``-anchored and never across a line break

    @classmethod
    def of(cls, source: str) -> "_Trigger":
        return cls(re.compile(source, re.MULTILINE), leading_literals(source), required_literals(source),
                   single_line_anchored(source))  # fmt: skip

    def found_in(self, text: str) -> bool:
        # ``find``/``in`` (C, memchr-fast) rule most files out before the regex engine
        # starts, and the pattern is then tried only where a match can start.
        if self.leading is not None:
            return textscan.search_at(self.pattern, self.leading, text) is not None
        if self.required is None:
            return self.pattern.search(text) is not None
        if self.one_line:
            return textscan.search_lines(self.pattern, self.required, text) is not None
        return any(word in text for word in self.required) and self.pattern.search(text) is not None


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.WARNING
    summary: ClassVar[str]  # one line, used by `warp-ct rules`, SARIF shortDescription
    docs: ClassVar[str]  # markdown with the REQUIRED_SECTIONS as "## " headings
    fix_applicability: ClassVar[Applicability | None] = None  # None: no automatic fix
    # Regular expressions over the raw text; a file none of them matches skips this rule
    # without building a tree. Empty: the rule runs on every Warp-using file.
    triggers: ClassVar[tuple[str, ...]] = ()
    _trigger_res: ClassVar[tuple["_Trigger", ...] | None] = None

    def query(self, ctx: "QueryContext") -> None:
        """A rule written as a query over the program model (``ctx.program``) reports this
        file's findings here, without a tree of its own; see docs/ANALYZER_GUIDE.md."""

    @classmethod
    def is_query(cls) -> bool:
        return cls.query is not Rule.query

    @classmethod
    def checks_trees(cls) -> bool:
        """A tree check (``visit_*``/``leave_module``): every rule not written as a query, and a
        query that leaves to the tree what the facts cannot name (``needs_tree`` says when)."""
        return _checks_trees(cls)

    def summarize(self, summary: "FileSummary") -> Any:
        """Optional project-wide fact about one file, stored in ``summary.extra[code]``."""
        return None

    def prepare(self, project: "Project") -> None:
        """Optional: compute now the program-wide answers the gates and checks of many files
        share (memoized in the program). A batch calls it once before it forks workers that
        share the model, so that each does not compute them again."""

    def needs_tree(self, summary: "FileSummary", project: "Project") -> bool:
        """Second, project-aware gate after ``triggers``: False when the project view
        already shows this file cannot produce a finding, so no tree is built
        for this rule. It must never be False for a file the check would report."""
        return True

    @classmethod
    def triggered_by(cls, text: str) -> bool:
        if not cls.triggers:
            return True
        if cls._trigger_res is None:
            cls._trigger_res = tuple(_Trigger.of(t) for t in cls.triggers)
        return any(trigger.found_in(text) for trigger in cls._trigger_res)

    # ------------------------------------------------------------------ docs
    @classmethod
    def doc_text(cls) -> str:
        return textwrap.dedent(cls.docs).strip() + "\n"

    @classmethod
    def sections(cls) -> dict[str, str]:
        text = cls.doc_text()
        matches = list(_SECTION_RE.finditer(text))
        out = {}
        for i, m in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
            out[m.group("title").strip()] = text[m.end() :end].strip()
        return out

    @classmethod
    def examples(cls) -> tuple[list[DocExample], list[DocExample]]:
        """(bad examples, good examples) from the Example / Use instead sections."""
        sections = cls.sections()

        def blocks(title: str) -> list[DocExample]:
            return [DocExample(_split_files(m.group("code"))) for m in _CODE_BLOCK_RE.finditer(sections.get(title, ""))]

        return blocks("Example"), blocks("Use instead") + blocks("When not to apply")

    @classmethod
    def docs_url(cls) -> str:
        return DOCS_URL.format(code=cls.code)

    @classmethod
    def markdown(cls) -> str:
        """The full page: title line, then the docs."""
        fix = {None: "none", Applicability.SAFE: "safe", Applicability.UNSAFE: "unsafe"}[cls.fix_applicability]
        return (
            f"# {cls.code} {cls.name}\n\n"
            f"{cls.summary}\n\n"
            f"Default severity: {cls.severity.label} · Fix: {fix}\n\n"
            f"{cls.doc_text()}"
        )


@functools.cache
def _checks_trees(cls: type[Rule]) -> bool:
    # Asked for every rule of every file: ``dir()`` of a class once, not 20k times a run.
    return not cls.is_query() or any(name.startswith("visit_") or name == "leave_module" for name in dir(cls))
