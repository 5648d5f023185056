"""docs/rules/*.md and the README's rules table are generated from the rule files.

If this fails after adding or changing a rule, run:  python scripts/gen_rule_docs.py
"""

from __future__ import annotations

import importlib.util
import re

from warp_ct.cli import rules_table_text

from .conftest import ROOT


def _script():
    spec = importlib.util.spec_from_file_location("gen_rule_docs", ROOT / "scripts" / "gen_rule_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_rule_docs_and_readme_table_are_up_to_date():
    problems = _script().stale()
    assert not problems, "stale generated docs (run `python scripts/gen_rule_docs.py`): " + ", ".join(problems)


def test_readme_table_lists_the_same_rules_as_warp_ct_rules():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    codes_in_cli = re.findall(r"^(WCT\d{3})  ", rules_table_text(), re.MULTILINE)
    table = readme[readme.index("rules-table:start") : readme.index("rules-table:end")]
    codes_in_readme = [row.split("[")[1].split("]")[0] for row in table.splitlines() if row.startswith("| [WCT")]
    assert codes_in_readme == codes_in_cli


def test_rules_and_explain_commands(cli):
    run = cli("rules")
    assert run.rc == 0 and run.out == rules_table_text()
    assert "WCT005  module-options-without-unique" in run.out
    import json

    data = json.loads(cli("rules", "--output-format", "json").out)
    wct005 = next(r for r in data if r["code"] == "WCT005")
    assert wct005 == {
        "code": "WCT005", "name": "module-options-without-unique", "summary": wct005["summary"],
        "severity": "error", "fix": "safe", "url": wct005["url"],
    }  # fmt: skip
    run = cli("explain", "WCT005")
    assert run.rc == 0 and run.out.startswith("# WCT005 module-options-without-unique\n")
    assert "## Why it costs compile time" in run.out
    assert cli("explain", "module-options-without-unique").out == run.out
    assert cli("explain", "wct005").out == run.out
    assert cli("explain", "WCT900").out.startswith("# WCT900 could-not-parse")
    assert (ROOT / "docs" / "rules" / "WCT005.md").read_text(encoding="utf-8") == run.out
