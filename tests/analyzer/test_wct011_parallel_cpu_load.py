"""WCT011 parallel-cpu-load: threaded module loading on devices that include the CPU."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.model import Severity

from .helpers import lint_snippet, rule_filter

TEXT = (
    "import os\nimport warp as wp\nimport kernels\n"
    "wp.force_load(max_workers=4)\n"  # 4: all devices, CPU included
    "wp.force_load(device='cpu', max_workers=os.cpu_count())\n"  # 5: non-constant
    "wp.force_load(device=['cuda:0', 'cpu'], max_workers=2)\n"  # 6
    "wp.force_load(device='cuda:0', max_workers=8)\n"  # GPU only: fine
    "wp.force_load(max_workers=1)\n"  # serial
    "wp.force_load(max_workers=0)\n"
    "wp.force_load(modules=[kernels.mod], max_workers=4)\n"  # one module: no pool
    "wp.load_module(kernels, max_workers=4)\n"  # one module
    "wp.load_module(kernels, recursive=True, max_workers=4)\n"  # 12
    "wp.force_load(device=dev, max_workers=4)\n"  # unknown device: silent
)


_only = rule_filter("WCT011")


def test_newest_warp_is_a_slowdown_warning(tmp_path):
    found = _only(lint_snippet(tmp_path, TEXT, name="main.py"))
    assert [f.line for f in found] == [4, 5, 6, 12]
    assert all(f.severity == Severity.WARNING and "precompiled header" in f.message for f in found)
    out = apply_fixes(TEXT, found, unsafe=True).text
    assert "wp.force_load(max_workers=0)\nwp.force_load(device='cpu', max_workers=0)" in out


def test_old_warp_is_a_race(tmp_path):
    found = _only(lint_snippet(tmp_path, TEXT, name="main.py", target_warp_version=(1, 16)))
    assert [f.line for f in found] == [4, 5, 6, 12]
    assert all(f.severity == Severity.ERROR and "race" in f.message for f in found)
    newer = _only(lint_snippet(tmp_path / "n", TEXT, name="main.py", target_warp_version=(1, 17)))
    assert all(f.severity == Severity.WARNING for f in newer)


def test_config_default_workers(tmp_path):
    text = "import warp as wp\nwp.config.load_module_max_workers = None\nwp.force_load()\nwp.force_load(device='cuda')\n"
    found = _only(lint_snippet(tmp_path, text, name="main.py"))
    assert [(f.line, bool(f.fixes)) for f in found] == [(3, False)]
    serial = "import warp as wp\nwp.config.load_module_max_workers = 0\nwp.force_load()\nwp.force_load(max_workers=None)\n"
    assert _only(lint_snippet(tmp_path / "s", serial, name="main.py")) == []


def test_tests_of_parallel_loading_are_info(tmp_path):
    text = "import warp as wp\ndef test_parallel(modules):\n    wp.force_load(device='cpu', modules=modules, max_workers=len(modules))\n"
    found = _only(lint_snippet(tmp_path, text, name="tests/test_module_parallel_load.py"))
    assert [(f.line, f.severity, len(f.fixes)) for f in found] == [(3, Severity.INFO, 0)]
