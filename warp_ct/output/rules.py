"""Rule metadata for every surface that lists rules (``warp-ct rules``/``explain``, SARIF,
docs/rules): the rule files, plus the two meta codes the engine emits about the input
itself (WCT900 could-not-parse, WCT901 internal-rule-error)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache

from warp_ct.analyzer.model import Severity
from warp_ct.analyzer.rules.base import DOCS_URL


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    summary: str
    severity: Severity
    fix: str | None  # None, "safe" or "unsafe"
    url: str
    markdown: str  # the full docs page
    docs: str  # the docs without the title block
    meta: bool = False  # about the input, not a Warp antipattern

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "name": self.name,
            "summary": self.summary,
            "severity": self.severity.label,
            "fix": self.fix,
            "url": self.url,
        }


_META_DOCS = {
    "WCT900": (
        "could-not-parse",
        "The file could not be read or parsed as Python, so no rule checked it",
        """
        ## What it does
        Reports a file that warp-ct could not analyse: a syntax error (at the error's
        location), a file that cannot be decoded with its declared encoding, a file or
        folder that cannot be read (permissions, a broken symbolic link, not a regular
        file), and a file skipped for its size (over 10 MiB) or for being binary. The
        summary line counts them: "2 files could not be checked: 1 unreadable, 1 too large".

        ## Why it matters
        No other rule runs on such a file, so its compile-time problems stay hidden: the
        run fails rather than pass unread files. The other files of the run are still
        checked.

        ## What to do
        Fix the syntax error, the encoding or the permissions. Files that are not meant to
        be Python can be left out with `exclude`/`extend-exclude` in `[tool.warp-ct]`, or
        this code can be ignored for them with `per-file-ignores` (they are then notes, and
        the summary line still counts them).
        """,
    ),
    "WCT901": (
        "internal-rule-error",
        "A rule could not finish on this file (an internal error, or the file's time budget ran out)",
        """
        ## What it does
        Reports that a rule did not finish on this file, for one of two reasons:

        - the rule failed with an internal error: the finding names the rule and the line
          it was checking. That rule is skipped for the rest of the file; every other rule
          still runs.
        - the analysis of the file ran past its time budget (30 s of CPU time per file, the
          query and tree rules together): the finding names the budget and the rules that
          did not finish, and where they stopped when it knows. The budget is a backstop
          against a shape that warp-ct analyses far too slowly; it also holds in the
          language server, and the other files are checked as usual.

        ## Why it matters
        It is a bug in warp-ct, not in your code: findings of the rules named may be
        missing for this file, so the run fails rather than pass it as checked.

        ## What to do
        Please report it with the file (or a reduced example). Until it is fixed, ignore
        the rules it names for that file with `per-file-ignores`. There is no setting for
        the time budget: a file that needs more is a performance bug to fix, not to wait out.
        """,
    ),
}


def _fix_label(value: str | None) -> str:
    return value or "none"


@lru_cache(maxsize=1)
def all_rule_infos() -> tuple[RuleInfo, ...]:
    """Every rule, ordered by code, then the meta codes."""
    from warp_ct.analyzer.rules import all_rules

    infos = []
    for rule in all_rules():
        fix = rule.fix_applicability.value if rule.fix_applicability else None
        infos.append(
            RuleInfo(
                code=rule.code, name=rule.name, summary=rule.summary, severity=rule.severity, fix=fix,
                url=rule.docs_url(), markdown=rule.markdown(), docs=rule.doc_text(),
            )  # fmt: skip
        )
    for code, (name, summary, docs) in _META_DOCS.items():
        text = textwrap.dedent(docs).strip() + "\n"
        markdown = f"# {code} {name}\n\n{summary}\n\nDefault severity: error · Fix: none\n\n{text}"
        infos.append(RuleInfo(code, name, summary, Severity.ERROR, None, DOCS_URL.format(code=code), markdown, text, True))
    return tuple(infos)


def rule_info(code_or_name: str) -> RuleInfo | None:
    key = code_or_name.strip()
    for info in all_rule_infos():
        if info.code == key.upper() or info.name == key.lower():
            return info
    return None


def known_codes() -> tuple[str, ...]:
    return tuple(info.code for info in all_rule_infos())
