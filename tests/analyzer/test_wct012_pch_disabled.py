"""WCT012 pch-disabled."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.model import Severity

from .helpers import lint_files, lint_snippet, rule_filter


_only = rule_filter("WCT012")


def test_assignment_through_aliases(tmp_path):
    text = (
        "import warp as wp\nimport warp.config as wcfg\nfrom warp import config\n"
        "wp.config.use_precompiled_headers = False\n"
        "wcfg.use_precompiled_headers = 0\n"
        "config.use_precompiled_headers = False\n"
        "wp.config.use_precompiled_headers = True\n"
        "opts.use_precompiled_headers = False\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="main.py"))
    assert [f.line for f in found] == [4, 5, 6]
    assert "measure" in found[0].message
    out = apply_fixes(text, found[:1], unsafe=True).text
    assert "wp.config.use_precompiled_headers = False" not in out


def test_scoped_override_and_tests(tmp_path):
    files = {
        "tool.py": (
            "import warp as wp\n\ndef no_pch(m):\n    old = wp.config.use_precompiled_headers\n"
            "    wp.config.use_precompiled_headers = False\n    try:\n        wp.load_module(m, device='cpu')\n"
            "    finally:\n        wp.config.use_precompiled_headers = old\n"
        ),
        "tests/test_pch.py": "import warp as wp\n\ndef test_off():\n    wp.config.use_precompiled_headers = False\n",
    }
    found = _only(lint_files(tmp_path, files))
    assert [(f.path, f.line, f.severity) for f in found] == [("tests/test_pch.py", 4, Severity.INFO)]
