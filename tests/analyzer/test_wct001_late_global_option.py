"""WCT001 late-global-option: options copied at module creation, set after kernels exist."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.model import Severity

from .helpers import lint_files, lint_snippet, rule_filter

KERNELS = """\
import warp as wp

@wp.kernel
def step(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0
"""


_wct001 = rule_filter("WCT001")


def test_entry_point_sets_option_after_importing_kernel_module(tmp_path):
    main = "import warp as wp\nfrom sim import kernels\n\nwp.config.enable_backward = False\n"
    found = _wct001(lint_files(tmp_path, {"sim/__init__.py": "", "sim/kernels.py": KERNELS, "main.py": main}))
    assert [(f.path, f.line) for f in found] == [("main.py", 4)]
    assert "sim.kernels" in found[0].message and "line 2" in found[0].message
    assert "CS-" not in found[0].message
    fix = found[0].fixes[0]
    assert not fix.is_safe
    fixed = apply_fixes(main, found, unsafe=True).text
    assert fixed == "import warp as wp\nwp.config.enable_backward = False\nfrom sim import kernels\n\n"


def test_option_set_at_top_of_entry_point_is_fine(tmp_path):
    main = "import warp as wp\n\nwp.config.enable_backward = False\nwp.config.max_unroll = 4\n\nimport sim.kernels\n"
    assert _wct001(lint_files(tmp_path, {"sim/__init__.py": "", "sim/kernels.py": KERNELS, "main.py": main})) == []


def test_only_importing_warp_is_fine(tmp_path):
    # warp/examples/*: `import warp as wp` then `wp.config.enable_backward = False`.
    text = "import numpy as np\n\nimport warp as wp\n\nwp.config.enable_backward = False\n\n" + KERNELS.split("\n", 1)[1]
    assert _wct001(lint_snippet(tmp_path, text)) == []


def test_transitive_import_through_project_module(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/kernels.py": KERNELS,
        "app/pipeline.py": "from app import kernels\n\ndef run():\n    pass\n",
        "main.py": "import warp as wp\nimport app.pipeline\nwp.config.lineinfo = True\n",
    }
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("main.py", 3)]


def test_relative_import_in_package(tmp_path):
    files = {
        "pkg/__init__.py": "import warp as wp\nfrom . import kernels\n\nwp.config.max_unroll = 1\n",
        "pkg/kernels.py": KERNELS,
    }
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("pkg/__init__.py", 4)]


def test_third_party_kernel_library_is_not_reported(tmp_path):
    text = "import warp as wp\nimport newton\n\nwp.config.enable_backward = False\n"
    assert _wct001(lint_snippet(tmp_path, text)) == []


def test_hash_time_options_are_not_deadline_options(tmp_path):
    text = KERNELS + '\nwp.config.mode = "debug"\nwp.config.optimization_level = 2\nwp.config.cpu_compiler_flags = ["-O1"]\n'
    assert _wct001(lint_snippet(tmp_path, text)) == []


def test_kernel_defined_earlier_in_same_file(tmp_path):
    found = _wct001(lint_snippet(tmp_path, KERNELS + "\nwp.config.deterministic_max_records = 4\n"))
    assert [f.line for f in found] == [8]
    assert "step" in found[0].message


def test_spellings_of_config(tmp_path):
    text = (
        "import warp\nfrom warp import config, kernel\n\n@kernel\ndef k(x: warp.array(dtype=float)):\n    pass\n\n"
        "warp.config.enable_backward = False\nconfig.lineinfo = True\n"
    )
    assert [f.line for f in _wct001(lint_snippet(tmp_path, text))] == [8, 9]


def test_config_reexported_through_project_module(tmp_path):
    files = {
        "common.py": "import warp as wp\nfrom warp import config as cfg\n",
        "kernels.py": KERNELS,
        "main.py": "from common import wp, cfg\nimport kernels\n\ncfg.enable_backward = False\nwp.config.max_unroll = 2\n",
    }
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("main.py", 4), ("main.py", 5)]


def test_inside_main_function_after_imports(tmp_path):
    main = "import warp as wp\nimport kernels\n\ndef main():\n    wp.config.enable_backward = False\n\nmain()\n"
    found = _wct001(lint_files(tmp_path, {"kernels.py": KERNELS, "main.py": main}))
    assert [(f.path, f.line) for f in found] == [("main.py", 5)]
    assert found[0].fixes == ()  # inside a function: no automatic move


def test_function_defined_before_the_import_is_not_assumed_late(tmp_path):
    main = "import warp as wp\n\ndef configure():\n    wp.config.enable_backward = False\n\nconfigure()\nimport kernels\n"
    assert _wct001(lint_files(tmp_path, {"kernels.py": KERNELS, "main.py": main})) == []


def test_save_and_restore_in_tests_is_not_reported(tmp_path):
    # warp/tests: old = wp.config.x; wp.config.x = ...; new unique kernel; finally restore.
    text = KERNELS + (
        "\ndef test_option(test, device):\n"
        "    old = wp.config.deterministic_max_records\n"
        "    try:\n"
        "        wp.config.deterministic_max_records = 7\n"
        "        @wp.kernel(module=\"unique\")\n"
        "        def k(x: wp.array(dtype=float)):\n"
        "            pass\n"
        "    finally:\n"
        "        wp.config.deterministic_max_records = old\n"
        "\nclass T:\n"
        "    @classmethod\n"
        "    def setUpClass(cls):\n"
        "        cls._old = wp.config.lineinfo\n"
        "        wp.config.lineinfo = True\n"
        "    @classmethod\n"
        "    def tearDownClass(cls):\n"
        "        wp.config.lineinfo = cls._old\n"
    )
    assert _wct001(lint_snippet(tmp_path, text)) == []


def test_type_checking_imports_are_ignored(tmp_path):
    main = "import typing\nimport warp as wp\nif typing.TYPE_CHECKING:\n    import kernels\n\nwp.config.enable_backward = False\n"
    assert _wct001(lint_files(tmp_path, {"kernels.py": KERNELS, "main.py": main})) == []


def test_no_fix_when_value_is_computed_after_the_import(tmp_path):
    main = "import warp as wp\nimport kernels\nflag = False\nwp.config.enable_backward = flag\n"
    found = _wct001(lint_files(tmp_path, {"kernels.py": KERNELS, "main.py": main}))
    assert len(found) == 1 and found[0].fixes == ()


def test_no_fix_when_warp_is_imported_after_the_kernel_module(tmp_path):
    main = "import kernels\nimport warp as wp\nwp.config.enable_backward = False\n"
    found = _wct001(lint_files(tmp_path, {"kernels.py": KERNELS, "main.py": main}))
    assert len(found) == 1 and found[0].fixes == ()


def test_noqa(tmp_path):
    main = "import warp as wp\nimport kernels\nwp.config.enable_backward = False  # noqa: WCT001\n"
    assert _wct001(lint_files(tmp_path, {"kernels.py": KERNELS, "main.py": main})) == []


SIM = "import warp as wp\n\n@wp.kernel\ndef step(x: wp.array(dtype=float)):\n    x[wp.tid()] = x[wp.tid()] + 1.0\n"


def test_setup_function_called_after_kernel_modules_were_imported(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/sim.py": SIM,
        "app/settings.py": (
            "from warp import config as wp_config\nimport warp as wp\n\ndef setup_tests(fast=True):\n"
            "    wp_config.enable_backward = not fast\n\ndef apply(options):\n    for key, value in options.items():\n"
            "        setattr(wp.config, key, value)\n\ndef lineinfo():\n    setattr(wp.config, 'lineinfo', True)\n"
        ),
        "app/__main__.py": (
            "import warp as wp\nfrom . import sim\nfrom .settings import apply, lineinfo, setup_tests\n\n"
            "def main(options):\n    setup_tests()\n    apply(options)\n    lineinfo()\n\nmain({})\n"
        ),
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT001"]
    assert [(f.path, f.line, f.severity.label) for f in found] == [
        ("app/settings.py", 5, "warning"), ("app/settings.py", 9, "info"), ("app/settings.py", 12, "warning"),
    ]
    assert "`app.__main__` imports `app.sim` (line 2)" in found[0].message


def test_setup_function_called_before_the_kernel_imports_is_fine(tmp_path):
    files = {
        "app/__init__.py": "",
        "app/sim.py": SIM,
        "app/settings.py": "import warp as wp\n\ndef configure():\n    wp.config.enable_backward = False\n",
        "app/__main__.py": (
            "from .settings import configure\n\nconfigure()\n\nfrom . import sim  # noqa: E402\n"
        ),
        "conftest.py": "from app.settings import configure\n\ndef pytest_configure(config):\n    configure()\n",
    }
    assert [f for f in lint_files(tmp_path, files) if f.rule == "WCT001"] == []


def test_imports_inside_a_package_functions_do_not_run_at_import(tmp_path):
    # Isaac Lab: ``isaaclab/__init__.py`` imports its CLI (which reaches kernels) only inside
    # ``def main()``; importing the package for a helper creates no kernel.
    files = {
        "pkg/__init__.py": "import sys\n\n\ndef main():\n    from .cli import run\n\n    sys.exit(run())\n",
        "pkg/cli.py": "from pkg import kernels\n\n\ndef run():\n    return 0\n",
        "pkg/kernels.py": KERNELS,
        "pkg/utils.py": "def lazy_export():\n    pass\n",
        "pkg/bench.py": "import warp as wp\n\nfrom pkg.utils import lazy_export\n\nwp.config.enable_backward = False\n",
    }
    assert _wct001(lint_files(tmp_path, files)) == []
    # The same import at the package's top level runs with it: then it is too late.
    files["pkg/__init__.py"] = "from .cli import run\n"
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("pkg/bench.py", 5)]


def test_options_applied_by_name_from_a_config_dict_after_the_imports(tmp_path):
    # A fresh-eyes app: ``for key, value in opts.items(): setattr(wp.config, key, value)`` in
    # a config helper that ``main()`` calls after importing the kernel modules. No option
    # name is in the text: the facts decide, not the text trigger.
    files = {
        "heat/__init__.py": "",
        "heat/kernels.py": "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n    x[0] = 1.0\n",
        "heat/config.py": "import warp as wp\n\ndef apply_warp_options(opts):\n    for key, value in opts.items():\n"
        "        setattr(wp.config, key, value)\n",
        "heat/__main__.py": "from heat import kernels\nfrom heat.config import apply_warp_options\n\n"
        "def main():\n    apply_warp_options({'max_unroll': 4})\n\nmain()\n",
    }
    found = [f for f in lint_files(tmp_path, files) if f.rule == "WCT001"]
    assert [(f.path, f.line, f.severity) for f in found] == [("heat/config.py", 5, Severity.INFO)]


# The value Warp already has (warp/config.py, 1.19): a late assignment of it changes nothing.
DEFAULT_ASSIGNMENTS = (
    "wp.config.enable_backward = True\n"
    "wp.config.max_unroll = 16\n"
    "wp.config.lineinfo = False\n"
    "wp.config.compile_time_trace = False\n"
    "wp.config.deterministic = wp.DeterministicMode.NOT_GUARANTEED\n"
    "wp.config.deterministic_max_records = 0\n"
    "setattr(wp.config, 'lineinfo', False)\n"
    "LINEINFO = False\n"
    "wp.config.lineinfo = LINEINFO\n"
)


def test_a_late_assignment_of_the_default_value_is_silent(tmp_path):
    assert _wct001(lint_snippet(tmp_path, KERNELS + "\n" + DEFAULT_ASSIGNMENTS)) == []
    files = {"sim/__init__.py": "", "sim/kernels.py": KERNELS,
             "main.py": "import warp as wp\nfrom sim import kernels\n\ndef setup():\n    wp.config.lineinfo = False\n\nsetup()\n"}  # fmt: skip
    assert _wct001(lint_files(tmp_path / "callers", files)) == []


def test_a_late_assignment_of_another_or_an_unknown_value_is_still_reported(tmp_path):
    text = KERNELS + (
        "\nwp.config.enable_backward = False\n"
        "wp.config.max_unroll = 8\n"
        "wp.config.lineinfo = True\n"
        "wp.config.deterministic = wp.DeterministicMode.RUN_TO_RUN\n"
        "wp.config.deterministic_max_records = 4\n"
        "import sys\nwp.config.compile_time_trace = '--trace' in sys.argv\n"
    )
    assert [f.line for f in _wct001(lint_snippet(tmp_path, text))] == [8, 9, 10, 11, 12, 14]


def test_the_default_value_restored_after_another_assignment_is_still_reported(tmp_path):
    # The first assignment reaches the modules created after it; setting the default back
    # late leaves the kernels made before with ``True``.
    main = "import warp as wp\n\nwp.config.lineinfo = True\n\nfrom sim import kernels\n\nwp.config.lineinfo = False\n"
    files = {"sim/__init__.py": "", "sim/kernels.py": KERNELS, "main.py": main}
    assert [(f.path, f.line) for f in _wct001(lint_files(tmp_path / "same", files))] == [("main.py", 7)]
    # ... in another file of the program too.
    files = {"sim/__init__.py": "import warp as wp\n\nwp.config.enable_backward = False\n", "sim/kernels.py": KERNELS,
             "main.py": "import warp as wp\nfrom sim import kernels\n\nwp.config.enable_backward = True\n"}  # fmt: skip
    assert [(f.path, f.line) for f in _wct001(lint_files(tmp_path / "other", files))] == [("main.py", 4)]
    # ... or a value set by a name the linter cannot read.
    text = KERNELS + "\nimport sys\nkey, value = sys.argv[1:3]\nsetattr(wp.config, key, value)\nwp.config.lineinfo = False\n"
    assert [(f.line, f.severity) for f in _wct001(lint_snippet(tmp_path / "by_name", text))] == [
        (10, Severity.INFO), (11, Severity.WARNING)]  # fmt: skip


# --- issue 36 item 3a: star imports, and packages that create kernels before this file runs


def test_star_import_of_a_package_that_star_imports_its_kernels(tmp_path):
    # `from pkg import *` where pkg/__init__.py does `from .kernels import *` (nvalchemi-style
    # re-exporting packages): the star import creates the kernels.
    files = {
        "sim/__init__.py": "from .kernels import *\n",
        "sim/kernels.py": KERNELS,
        "main.py": "import warp as wp\nfrom sim import *\n\nwp.config.enable_backward = False\n",
    }
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("main.py", 4)]


def test_setup_in_a_submodule_of_a_package_that_creates_kernels(tmp_path):
    # `from app.config import setup` runs app/__init__.py to its end first: its kernels exist
    # before setup() can run.
    files = {
        "app/__init__.py": "from .kernels import *\n",
        "app/kernels.py": KERNELS,
        "app/config.py": "import warp as wp\n\ndef setup():\n    wp.config.enable_backward = False\n",
        "main.py": "from app.config import setup\n\nsetup()\n",
    }
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("app/config.py", 4)]
    assert "whose package creates kernels" in found[0].message


def test_conftest_inside_a_package_that_creates_kernels(tmp_path):
    # mujoco_warp/conftest.py: `pytest_configure` sets `wp.config.lineinfo = True` behind a
    # flag, but pytest imports the package `mujoco_warp` (whose __init__ imports every kernel
    # module) before its conftest.
    files = {
        "mjw/__init__.py": "from mjw._src.forward import step as step\n",
        "mjw/_src/__init__.py": "",
        "mjw/_src/forward.py": KERNELS,
        "mjw/conftest.py": (
            "import warp as wp\n\ndef pytest_addoption(parser):\n    parser.addoption('--lineinfo', action='store_true')\n\n"
            "def pytest_configure(config):\n    if config.getoption('--lineinfo'):\n        wp.config.lineinfo = True\n"
        ),
    }
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("mjw/conftest.py", 8)]
    assert "the package `mjw`" in found[0].message and "mjw._src.forward" in found[0].message


def test_package_that_configures_before_importing_its_kernels_is_fine(tmp_path):
    # mjlab/__init__.py: `_configure_warp()` first, then the kernel modules; and a package
    # whose __init__ imports the settings module before its kernels.
    files = {
        "app/__init__.py": "from . import settings\nfrom .kernels import *\n",
        "app/settings.py": "import warp as wp\nwp.config.enable_backward = False\n",
        "app/kernels.py": KERNELS,
        "main.py": "import app\n",
    }
    assert _wct001(lint_files(tmp_path, files)) == []


def test_settings_module_imported_after_the_kernels_by_every_importer(tmp_path):
    files = {
        "kern.py": KERNELS,
        "cfg.py": "import warp as wp\nwp.config.max_unroll = 2\n",
        "run.py": "import kern\nimport cfg\n\nkern.step\n",
    }
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("cfg.py", 2)]
    assert "`run` imports `kern` (line 1)" in found[0].message


def test_settings_module_imported_first_by_one_importer_is_not_reported(tmp_path):
    files = {
        "kern.py": KERNELS,
        "cfg.py": "import warp as wp\nwp.config.max_unroll = 2\n",
        "run.py": "import kern\nimport cfg\n",
        "fast.py": "import cfg\nimport kern\n",
    }
    assert _wct001(lint_files(tmp_path, files)) == []


def test_a_tests_teardown_putting_options_back_is_not_late(tmp_path):
    # newton's test_warp_config_cli: setUp saves every wp.config option, tearDown puts them back.
    files = {
        "pkg/__init__.py": "",
        "pkg/kernels.py": "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n    x[0] = 1.0\n",
        "tests/test_config.py": (
            "import unittest\n\nimport warp as wp\n\nimport pkg.kernels\n\n\n"
            "class TestConfig(unittest.TestCase):\n"
            "    def setUp(self):\n        self._saved = {a: getattr(wp.config, a) for a in dir(wp.config)}\n"
            "        self._backward = wp.config.enable_backward\n\n"
            "    def tearDown(self):\n"
            "        for attr, value in self._saved.items():\n            setattr(wp.config, attr, value)\n"
            "        wp.config.enable_backward = self._backward\n"
        ),
    }
    assert [f for f in lint_files(tmp_path, files) if f.rule == "WCT001"] == []


# A file whose import defines only a Warp function and a struct; its kernels are made later by
# factories, each into a module of its own (`module=` given per factory below).
FACTORY_HELPERS = """\
import warp as wp


@wp.struct
class Tone:
    gain: float


@wp.func
def shade(x: float, tone: Tone):
    return x * tone.gain


def make_tint(channel: str):
    @wp.kernel({module})
    def tint(img: wp.array(dtype=float), tone: Tone):
        i = wp.tid()
        img[i] = shade(img[i], tone)

    return tint
"""
FACTORY_MAIN = "import warp as wp\nfrom shade.common import make_tint\n\nwp.config.enable_backward = False\n"


def _factory_files(module: str, main: str = FACTORY_MAIN) -> dict[str, str]:
    return {"shade/__init__.py": "", "shade/common.py": FACTORY_HELPERS.replace("{module}", module), "main.py": main}


def test_functions_only_at_import_with_factory_kernels_in_own_modules_are_fine(tmp_path):
    # The Warp function and struct create `shade.common` with the old options, but no kernel
    # lands there: each factory kernel's module is created at the call, after the assignment.
    for module in ('module="unique"', 'module=f"shade.tint_{channel}"', 'module="shade.tints"'):
        found = _wct001(lint_files(tmp_path / module[8:12], _factory_files(module)))
        assert found == [], (module, [f.message for f in found])


def test_functions_at_import_then_a_factory_kernel_in_the_file_module_reports(tmp_path):
    # No `module=`: the kernel lands in `shade.common`, which the Warp function created at
    # import with the old options.
    for module in ("", 'module=f"{__name__}"', 'module=__name__'):
        found = _wct001(lint_files(tmp_path / str(len(module)), _factory_files(module)))
        assert [(f.path, f.line) for f in found] == [("main.py", 4)], module
        assert "shade.common" in found[0].message


def test_module_level_factory_call_creates_kernels_at_import(tmp_path):
    # `shade.presets` defines nothing itself, but its body calls the factory at import.
    files = _factory_files('module="unique"', "import warp as wp\nfrom shade import presets\n\nwp.config.enable_backward = False\n")
    files["shade/presets.py"] = "from shade.common import make_tint\n\nRED = make_tint('red')\n"
    found = _wct001(lint_files(tmp_path, files))
    assert [(f.path, f.line) for f in found] == [("main.py", 4)]
    assert "shade.presets" in found[0].message


def test_own_functions_before_the_option_with_unique_factory_kernels_are_fine(tmp_path):
    text = FACTORY_HELPERS.replace("{module}", 'module="unique"') + "\nwp.config.enable_backward = False\n"
    assert _wct001(lint_snippet(tmp_path, text)) == []
    # Without `module=` the factory's kernel lands in the file's module, which the struct made.
    text = FACTORY_HELPERS.replace("{module}", "") + "\nwp.config.enable_backward = False\n"
    found = _wct001(lint_snippet(tmp_path / "own", text))
    assert len(found) == 1 and "the struct `Tone` (line 4) already did" in found[0].message
