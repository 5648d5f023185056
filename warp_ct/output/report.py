"""What one ``warp-ct lint`` run shows (findings, notes), the input of every output format.

Its own module so the format modules need not import the package that picks among them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from warp_ct.analyzer.model import Finding


@dataclass(frozen=True)
class Note:
    """Something the user should know that is not a finding (a budget hit, a fix not
    written). ``level``: "note", or "error" for a fix that was due and could not be written."""

    path: str
    message: str
    level: str = "note"

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message, "level": self.level}


@dataclass
class Report:
    """What one ``warp-ct lint`` run shows. Paths are display paths (relative to the cwd)."""

    findings: list[Finding]
    notes: list[Note] = field(default_factory=list)
    unsafe_fixes: bool = False
    fixed: int | None = None  # findings fixed by --fix (None: not fixing)
    unchecked: dict[str, int] = field(default_factory=dict)  # files no rule could check, by reason
    # display path -> text, for formats that quote source lines (read lazily otherwise)
    texts: dict[str, str] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # display path -> path as linted
    _lines: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.findings = sorted(self.findings, key=lambda f: f.sort_key)
        self.notes = sorted(self.notes, key=lambda n: (n.path, n.message))

    def is_fixable(self, finding: Finding) -> bool:
        return any(fix.is_safe or self.unsafe_fixes for fix in finding.fixes)

    @property
    def fixable_count(self) -> int:
        return sum(1 for f in self.findings if self.is_fixable(f))

    @property
    def unsafe_only_count(self) -> int:
        """Findings fixable only with --unsafe-fixes (when it is not given)."""
        if self.unsafe_fixes:
            return 0
        return sum(1 for f in self.findings if f.fixes and not self.is_fixable(f))

    def source_lines(self, path: str) -> list[str]:
        """The file's lines without line endings, split as Python counts lines (none when
        the file cannot be read)."""
        if path not in self._lines:
            text = self.texts.get(path)
            if text is None:
                from warp_ct.analyzer.engine import read_source

                text = read_source(self.origins.get(path, path)).text
            from warp_ct.analyzer.fixes import _LINE_END_RE

            self._lines[path] = _LINE_END_RE.split(text) if text is not None else []
        return self._lines[path]
