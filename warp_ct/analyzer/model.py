"""The one data model every surface (CLI formats, SARIF, JSON, LSP) derives from.

Positions are 0-based lines and 0-based *character* offsets (Python str indices), never
UTF-8 byte offsets: ast/astroid columns are bytes, and the analyzer converts them once
(see ``positions.py``). The language server converts characters to the client's
negotiated units (UTF-16 by default).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any


class Severity(enum.IntEnum):
    """Ordered so that ``max()`` gives the most severe."""

    HINT = 1
    INFO = 2
    WARNING = 3
    ERROR = 4

    @classmethod
    def parse(cls, text: str) -> "Severity":
        key = text.strip().lower()
        aliases = {"information": "info", "note": "info", "warn": "warning", "err": "error"}
        key = aliases.get(key, key)
        try:
            return cls[key.upper()]
        except KeyError:
            raise ValueError(
                f"unknown severity {text!r} (expected one of: hint, info, warning, error)"
            ) from None

    @property
    def label(self) -> str:
        return self.name.lower()


class Applicability(str, enum.Enum):
    """Whether a fix can be applied without a human reading it (ruff's safe/unsafe)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 0-based
    character: int  # 0-based, in str characters (code points)


@dataclass(frozen=True, order=True)
class Range:
    start: Position
    end: Position

    @classmethod
    def from_coords(cls, line: int, character: int, end_line: int, end_character: int) -> "Range":
        return cls(Position(line, character), Position(end_line, end_character))

    def to_dict(self) -> dict[str, dict[str, int]]:
        return {
            "start": {"line": self.start.line, "character": self.start.character},
            "end": {"line": self.end.line, "character": self.end.character},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Range":
        return cls.from_coords(
            data["start"]["line"], data["start"]["character"], data["end"]["line"], data["end"]["character"]
        )


@dataclass(frozen=True)
class TextEdit:
    """Replace ``range`` of the file with ``new_text`` (insertion when the range is empty)."""

    range: Range
    new_text: str

    def to_dict(self) -> dict[str, Any]:
        return {"range": self.range.to_dict(), "new_text": self.new_text}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TextEdit":
        return cls(Range.from_dict(data["range"]), data["new_text"])


@dataclass(frozen=True)
class Fix:
    """A titled set of non-overlapping edits to the finding's own file."""

    title: str
    edits: tuple[TextEdit, ...]
    applicability: Applicability = Applicability.SAFE

    @property
    def is_safe(self) -> bool:
        return self.applicability is Applicability.SAFE

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "applicability": self.applicability.value,
            "edits": [e.to_dict() for e in self.edits],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Fix":
        return cls(
            title=data["title"],
            edits=tuple(TextEdit.from_dict(e) for e in data["edits"]),
            applicability=Applicability(data.get("applicability", "safe")),
        )


@dataclass(frozen=True)
class Evidence:
    """Measured facts attached by ``warp_ct.confirm`` from a probe report."""

    summary: str  # one line, e.g. "module `pkg.stages` built 3x with 3 hashes, 2.41 s"
    module: str | None = None
    builds: int | None = None
    distinct_hashes: int | None = None
    block_dims: tuple[int, ...] = ()
    milliseconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "module": self.module,
            "builds": self.builds,
            "distinct_hashes": self.distinct_hashes,
            "block_dims": list(self.block_dims),
            "milliseconds": self.milliseconds,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Evidence":
        return cls(
            summary=data["summary"],
            module=data.get("module"),
            builds=data.get("builds"),
            distinct_hashes=data.get("distinct_hashes"),
            block_dims=tuple(data.get("block_dims") or ()),
            milliseconds=data.get("milliseconds"),
        )


@dataclass(frozen=True)
class Finding:
    """One problem at one place. ``path`` is as given to the analyzer (made relative by the CLI)."""

    rule: str  # code, e.g. "WCT003"
    path: str
    range: Range
    message: str
    severity: Severity
    fixes: tuple[Fix, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    name: str = ""  # kebab-case rule name, e.g. "per-call-kernel"

    @property
    def line(self) -> int:
        """1-based line, for humans."""
        return self.range.start.line + 1

    @property
    def column(self) -> int:
        """1-based column, for humans."""
        return self.range.start.character + 1

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.range.start.line, self.range.start.character, self.rule, self.message)

    def with_evidence(self, *evidence: Evidence) -> "Finding":
        return replace(self, evidence=self.evidence + tuple(evidence))

    def with_severity(self, severity: Severity) -> "Finding":
        return replace(self, severity=severity)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.rule,
            "name": self.name,
            "path": self.path,
            "range": self.range.to_dict(),
            "message": self.message,
            "severity": self.severity.label,
            "fixes": [f.to_dict() for f in self.fixes],
            "evidence": [e.to_dict() for e in self.evidence],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Finding":
        return cls(
            rule=data["code"],
            name=data.get("name", ""),
            path=data["path"],
            range=Range.from_dict(data["range"]),
            message=data["message"],
            severity=Severity.parse(data["severity"]),
            fixes=tuple(Fix.from_dict(f) for f in data.get("fixes", ())),
            evidence=tuple(Evidence.from_dict(e) for e in data.get("evidence", ())),
        )


# Why a file could not be checked (``FileResult.unchecked``); each is also a WCT900 finding.
UNREADABLE = "unreadable"
UNREADABLE_FOLDER = "unreadable folder"  # a folder that could not be listed: its files are unknown
UNDECODABLE = "undecodable"
SYNTAX_ERROR = "syntax error"
TOO_LARGE = "too large"
BINARY = "binary"
UNCHECKED_REASONS = (UNREADABLE, UNDECODABLE, SYNTAX_ERROR, TOO_LARGE, BINARY, UNREADABLE_FOLDER)


@dataclass
class FileResult:
    """What linting one file produced: findings plus notes for the user (skipped, budget hit)."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unchecked: str | None = None  # why no rule could check the file (UNREADABLE, ...), else None
    # sha256 of the bytes the findings were computed from: --fix writes only over those bytes
    source_digest: str | None = None
