"""Every rule's docs are complete, and their examples are tests: each bad example yields
exactly the marked findings of that rule, each good example none."""

from __future__ import annotations

import re

import pytest

from warp_ct.analyzer.rules import all_rules
from warp_ct.analyzer.rules.base import REQUIRED_SECTIONS

from .helpers import lint_files

RULES = all_rules()


def test_codes_and_names_are_unique_and_well_formed():
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    for rule in RULES:
        assert re.fullmatch(r"WCT\d{3}", rule.code)
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", rule.name)
        assert rule.summary and not rule.summary.endswith(".")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_docs_have_every_section(rule):
    sections = rule.sections()
    for title in REQUIRED_SECTIONS:
        assert sections.get(title), f"{rule.code} docs lack '## {title}'"
    bad, good = rule.examples()
    assert bad, f"{rule.code} has no bad example"
    assert good, f"{rule.code} has no good example"
    for example in bad:
        assert example.expected(), f"{rule.code}: a bad example marks no line with '# {rule.code}'"


def _findings_of(rule, tmp_path, files):
    findings = lint_files(tmp_path, files)
    return {(f.path, f.range.start.line, f.rule) for f in findings if f.rule == rule.code}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_bad_examples_produce_exactly_the_marked_findings(rule, tmp_path):
    bad, _ = rule.examples()
    for n, example in enumerate(bad):
        folder = tmp_path / f"bad{n}"
        expected = {m for m in example.expected() if m[2] == rule.code}
        assert _findings_of(rule, folder, example.files) == expected


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_good_examples_are_clean(rule, tmp_path):
    _, good = rule.examples()
    for n, example in enumerate(good):
        folder = tmp_path / f"good{n}"
        assert _findings_of(rule, folder, example.files) == set()
