"""Hover: the rule's explanation over a diagnostic or over a code in a ``# noqa:`` comment."""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types

from warp_ct.analyzer.engine import META_CODES
from warp_ct.analyzer.model import Finding, Position
from warp_ct.analyzer.noqa import noqa_codes_at
from warp_ct.analyzer.rules import get_rule
from warp_ct.server.diagnostics import message_of
from warp_ct.server.positions import Converter


def rule_markdown(code: str) -> str | None:
    rule = get_rule(code)
    if rule is not None:
        return f"{rule.markdown().rstrip()}\n\n[Documentation]({rule.docs_url()})"
    if code in META_CODES:
        return f"# {code} {META_CODES[code]}\n\nA problem with the input itself, reported by warp-ct's engine (not a Warp antipattern)."
    return None


def _contains(finding: Finding, pos: Position) -> bool:
    start, end = finding.range.start, finding.range.end
    if start == end:
        return pos.line == start.line
    return start <= pos <= end


def _extent(finding: Finding) -> tuple[int, int]:
    start, end = finding.range.start, finding.range.end
    return (end.line - start.line, end.character - start.character if end.line == start.line else 0)


def hover(
    *, text: str, findings: Sequence[Finding], position: types.Position, encoding: str, markdown: bool = True
) -> types.Hover | None:
    conv = Converter(text, encoding)
    pos = conv.to_char(position)
    line = conv.line(pos.line)
    parts: list[str] = []
    rng: types.Range | None = None
    for code, start, end in noqa_codes_at(line):
        if start <= pos.character <= end:
            body = rule_markdown(code)
            if body is not None:
                parts.append(body)
                rng = types.Range(
                    start=types.Position(line=pos.line, character=conv.position_for(pos.line, start)),
                    end=types.Position(line=pos.line, character=conv.position_for(pos.line, end)),
                )
            break
    if not parts:
        seen: set[str] = set()
        # The innermost finding first: over `module_options=` inside a decorator that another
        # rule flags as a whole, the specific rule is the one the user points at.
        under = sorted((f for f in findings if _contains(f, pos)), key=_extent)
        for finding in under:
            header = f"**{finding.rule}** `{finding.name}`: {message_of(finding)}" if finding.name else f"**{finding.rule}**: {message_of(finding)}"
            parts.append(header)
            if finding.rule not in seen:
                seen.add(finding.rule)
                body = rule_markdown(finding.rule)
                if body is not None:
                    parts.append(body)
            if rng is None:
                rng = conv.range(finding.range)
    if not parts:
        return None
    value = "\n\n---\n\n".join(parts)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=value), range=rng)
