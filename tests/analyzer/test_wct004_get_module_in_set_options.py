"""WCT004 get-module-in-set-options: only on Warp <= 1.16."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes

from .helpers import lint_files, rule_filter

CALL = 'import warp as wp\n\nwp.set_module_options({"enable_backward": False}, module=wp.get_module("sim.kernels"))\n'


_wct004 = rule_filter("WCT004")


def test_reported_with_target_version_setting_and_safe_fix(tmp_path):
    files = {"pyproject.toml": '[tool.warp-ct]\ntarget-warp-version = "1.16"\n', "sim.py": CALL}
    found = _wct004(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("sim.py", 3)]
    assert found[0].fixes[0].is_safe
    fixed = apply_fixes(CALL, found).text
    assert fixed == 'import warp as wp\n\nwp.get_module("sim.kernels").options.update({"enable_backward": False})\n'


def test_reported_from_declared_dependency(tmp_path):
    files = {
        "pyproject.toml": '[project]\nname = "sim"\ndependencies = ["numpy", "warp-lang>=1.15"]\n',
        "sim.py": "import warp\n\nwarp.set_module_options({'max_unroll': 1}, warp.get_module(__name__))\n",
    }
    found = _wct004(lint_files(tmp_path, files))
    assert len(found) == 1 and "1.15" in found[0].message
    assert apply_fixes(files["sim.py"], found).text.endswith("warp.get_module(__name__).options.update({'max_unroll': 1})\n")


def test_silent_on_newer_warp(tmp_path):
    for pyproject in ('[tool.warp-ct]\ntarget-warp-version = "1.17"\n', '[project]\nname = "s"\ndependencies = ["warp-lang>=1.19"]\n'):
        assert _wct004(lint_files(tmp_path, {"pyproject.toml": pyproject, "sim.py": CALL})) == []


def test_silent_for_names_and_python_modules(tmp_path):
    text = (
        "import warp as wp\nimport sim_kernels\n\n"
        "wp.set_module_options({'enable_backward': False}, module=sim_kernels)\n"
        "wp.set_module_options({'enable_backward': False})\n"
    )
    files = {"pyproject.toml": '[tool.warp-ct]\ntarget-warp-version = "1.10"\n', "sim.py": text}
    assert _wct004(lint_files(tmp_path, files)) == []


def test_from_import_spelling(tmp_path):
    text = "from warp import get_module, set_module_options\n\nset_module_options(options={'lineinfo': True}, module=get_module('a.b'))\n"
    files = {"pyproject.toml": '[tool.warp-ct]\ntarget-warp-version = "1.14.2"\n', "sim.py": text}
    found = _wct004(lint_files(tmp_path, files))
    assert len(found) == 1
    assert apply_fixes(text, found).text.endswith("get_module('a.b').options.update({'lineinfo': True})\n")
