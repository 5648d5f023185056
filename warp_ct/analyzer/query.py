"""What a rule written as a query over the program model sees for one file.

A query rule (``Rule.query``) reads the model (``ctx.program``), picks the places of *this*
file to report, and builds fixes from the source text: no tree of its own. Positions come
from facts as ``Span`` (1-based line, UTF-8 byte columns, as ``ast`` gives them) and are
converted to the data model's characters here, once.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from warp_ct.analyzer.facts import FileFacts, Span, span_of
from warp_ct.analyzer.model import Applicability, Finding, Fix, Range, Severity, TextEdit
from warp_ct.analyzer.positions import LineIndex

if TYPE_CHECKING:
    from warp_ct.analyzer.program import Program
    from warp_ct.analyzer.project import Project


@dataclass
class QueryContext:
    path: str
    text: str
    module_name: str
    facts: FileFacts
    program: "Program"
    project: "Project"
    target_warp_version: tuple[int, ...] | None = None
    findings: list[Finding] = field(default_factory=list)
    current_rule: Any = None  # the rule running now (rules.base.Rule; not imported: rules import this)
    _index: LineIndex | None = None

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index

    def range_of(self, span: Span) -> Range:
        lineno, col, end_lineno, end_col = span
        start, end = lineno - 1, end_lineno - 1
        return Range.from_coords(start, self.index.char_from_byte(start, col), end,
                                 self.index.char_from_byte(end, end_col))  # fmt: skip

    def source_of(self, where: Span | ast.AST) -> str:
        """The source text of a span, or of a node of ``expression_at``'s trees."""
        rng = self.range_of(where if isinstance(where, tuple) else span_of(where))
        return self.text[self.index.offset(rng.start.line, rng.start.character) : self.index.offset(rng.end.line, rng.end.character)]

    def version_at_most(self, major: int, minor: int) -> bool:
        version = self.target_warp_version
        return version is not None and tuple(version[:2]) <= (major, minor)

    def report(self, where: Span | Range, message: str, *, fixes: Iterable[Fix] = (), severity: Severity | None = None) -> None:
        rule = self.current_rule
        assert rule is not None, "report() is only valid while a rule runs"
        rng = where if isinstance(where, Range) else self.range_of(where)
        self.findings.append(
            Finding(rule=rule.code, name=rule.name, path=self.path, range=rng, message=message,
                    severity=severity if severity is not None else rule.severity, fixes=tuple(fixes))  # fmt: skip
        )

    @staticmethod
    def fix(title: str, *edits: TextEdit, safe: bool = True) -> Fix:
        return Fix(title, tuple(edits), Applicability.SAFE if safe else Applicability.UNSAFE)

    def replace(self, span: Span, new_text: str) -> TextEdit:
        return TextEdit(self.range_of(span), new_text)

    def insert_at(self, line0: int, character: int, new_text: str) -> TextEdit:
        return TextEdit(Range.from_coords(line0, character, line0, character), new_text)

    def node_range(self, node: ast.AST) -> Range:
        """The range of a node of ``expression_at``'s trees (they carry the file's positions)."""
        return self.range_of(span_of(node))

    def expression_at(self, span: Span) -> ast.expr | None:
        """The expression the fact's span covers (a call, a decorator), parsed from its
        source alone, its nodes positioned as in the file: what a fix needs to read of it
        (keys, values, their text) without a tree of the whole file. None when the span's
        text is not one expression."""
        try:
            tree = ast.parse(self.source_of(span), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        first_line, first_col = span[0], span[1]
        for node in ast.walk(tree.body):
            if "lineno" not in node._attributes:
                continue
            # Columns of the snippet's first line count from the span's start; later lines
            # are whole lines of the file.
            if node.lineno == 1:  # type: ignore[attr-defined]
                node.col_offset += first_col  # type: ignore[attr-defined]
            if node.end_lineno == 1:  # type: ignore[attr-defined]
                node.end_col_offset += first_col  # type: ignore[attr-defined]
            node.lineno += first_line - 1  # type: ignore[attr-defined]
            node.end_lineno += first_line - 1  # type: ignore[attr-defined]
        return tree.body


def where(module: str, span: Span, current: str) -> str:
    """"line 12" in the same file, else "pkg/x.py line 12"-like text for messages."""
    if module == current:
        return f"line {span[0]}"
    return f"`{module}` line {span[0]}"


__all__ = ["QueryContext", "where"]
