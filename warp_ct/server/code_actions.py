"""Code actions: each finding's quick fixes, "Disable WCTnnn for this line", and fix-all."""

from __future__ import annotations

import re
from typing import Sequence

from lsprotocol import types

from warp_ct.analyzer.engine import META_CODES
from warp_ct.analyzer.fixes import apply_fixes, parses
from warp_ct.analyzer.model import Finding, Fix, Range
from warp_ct.analyzer.noqa import add_code_to_line
from warp_ct.server.diagnostics import SOURCE, to_diagnostic
from warp_ct.server.positions import Converter, units

FIX_ALL_KIND = "source.fixAll.warp-ct"
ADVERTISED_KINDS = [types.CodeActionKind.QuickFix, FIX_ALL_KIND]

_KEEPENDS_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _split_keepends(text: str) -> list[str]:
    return _KEEPENDS_RE.findall(text)


def _kind_wanted(kind: str, only: Sequence[str] | None) -> bool:
    if not only:
        return True
    return any(kind == o or kind.startswith(f"{o}.") for o in only)


def _overlaps(finding: Finding, rng: Range) -> bool:
    start, end = finding.range.start, finding.range.end
    return (start <= rng.end and rng.start <= end) or start.line <= rng.start.line <= end.line


def _matches_context(finding: Finding, diagnostics: Sequence[types.Diagnostic], conv: Converter) -> bool:
    if not diagnostics:
        return False
    mine = conv.range(finding.range)
    return any(d.source == SOURCE and d.code == finding.rule and d.range == mine for d in diagnostics)


class ActionBuilder:
    def __init__(self, uri: str, version: int | None, text: str, encoding: str, document_changes: bool) -> None:
        self.uri = uri
        self.version = version
        self.text = text
        self.conv = Converter(text, encoding)
        self.document_changes = document_changes
        self._source_parses: bool | None = None

    def workspace_edit(self, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        if self.document_changes:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                        edits=edits,
                    )
                ]
            )
        return types.WorkspaceEdit(changes={self.uri: edits})

    def fix_edits(self, fix: Fix) -> list[types.TextEdit]:
        return [types.TextEdit(range=self.conv.range(e.range), new_text=e.new_text) for e in fix.edits]

    def quick_fixes(self, finding: Finding, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
        actions = []
        preferred_given = False
        for fix in finding.fixes:
            title = f"{fix.title} ({finding.rule})" + ("" if fix.is_safe else " — unsafe, review it")
            preferred = fix.is_safe and not preferred_given
            preferred_given = preferred_given or preferred
            actions.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=self.workspace_edit(self.fix_edits(fix)),
                    is_preferred=preferred or None,
                )
            )
        return actions

    def suppress(self, finding: Finding, diagnostic: types.Diagnostic) -> types.CodeAction | None:
        if finding.rule in META_CODES:
            return None  # parse errors and crashed rules are not suppressible per line
        line0 = finding.range.start.line
        line = self.conv.line(line0)
        new_line = add_code_to_line(line, finding.rule)
        if new_line == line:
            return None
        lines = _split_keepends(self.text)
        if 0 <= line0 < len(lines):
            ending = lines[line0][len(line) :]
            candidate = "".join(lines[:line0]) + new_line + ending + "".join(lines[line0 + 1 :])
            if self._source_parses is None:
                self._source_parses = parses(self.text)
            if self._source_parses and not parses(candidate):
                return None  # e.g. the line ends inside a string or with a backslash
        edit = types.TextEdit(
            range=types.Range(
                start=types.Position(line=line0, character=0),
                end=types.Position(line=line0, character=units(line, self.conv.encoding)),
            ),
            new_text=new_line,
        )
        return types.CodeAction(
            title=f"Disable {finding.rule} for this line",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            edit=self.workspace_edit([edit]),
        )

    def fix_all(self, findings: Sequence[Finding]) -> types.CodeAction | None:
        if not any(fix.is_safe for f in findings for fix in f.fixes):
            return None
        outcome = apply_fixes(self.text, findings, unsafe=False)
        if not outcome.applied or outcome.text == self.text:
            return None
        old, new = _split_keepends(self.text), _split_keepends(outcome.text)
        prefix = 0
        while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
            prefix += 1
        suffix = 0
        while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
            suffix += 1
        end_line = len(old) - suffix
        start = types.Position(line=prefix, character=0)
        if suffix == 0:
            end = self.conv.end()
        else:
            end = types.Position(line=end_line, character=0)
        new_text = "".join(new[prefix : len(new) - suffix])
        count = len(outcome.applied)
        return types.CodeAction(
            title=f"Fix all warp-ct problems ({count} safe fix{'es' if count != 1 else ''})",
            kind=FIX_ALL_KIND,
            edit=self.workspace_edit([types.TextEdit(range=types.Range(start=start, end=end), new_text=new_text)]),
        )


def code_actions(
    *,
    uri: str,
    version: int | None,
    text: str,
    findings: Sequence[Finding],
    params: types.CodeActionParams,
    encoding: str,
    document_changes: bool,
) -> list[types.CodeAction]:
    builder = ActionBuilder(uri, version, text, encoding, document_changes)
    only = params.context.only
    requested = builder.conv.to_char_range(params.range)
    actions: list[types.CodeAction] = []
    if _kind_wanted(types.CodeActionKind.QuickFix, only):
        suppressed: set[tuple[int, str]] = set()
        suppress_actions = []
        for finding in findings:
            if not (_overlaps(finding, requested) or _matches_context(finding, params.context.diagnostics, builder.conv)):
                continue
            diagnostic = to_diagnostic(finding, builder.conv)
            actions.extend(builder.quick_fixes(finding, diagnostic))
            key = (finding.range.start.line, finding.rule)
            if key not in suppressed:
                suppressed.add(key)
                action = builder.suppress(finding, diagnostic)
                if action is not None:
                    suppress_actions.append(action)
        actions.extend(suppress_actions)
    if _kind_wanted(FIX_ALL_KIND, only) and (only or actions):
        action = builder.fix_all(findings)
        if action is not None:
            actions.append(action)
    return actions


__all__ = ["ADVERTISED_KINDS", "FIX_ALL_KIND", "code_actions"]
