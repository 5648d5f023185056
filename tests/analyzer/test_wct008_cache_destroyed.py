"""WCT008 cache-destroyed: caches cleared, disabled or made per-run."""

from __future__ import annotations

from warp_ct.analyzer.fixes import apply_fixes
from warp_ct.analyzer.model import Severity

from .helpers import lint_files, lint_snippet, rule_filter


_only = rule_filter("WCT008")


def test_clear_calls_and_config(tmp_path):
    text = (
        "import warp as wp\n"
        "from warp import config\n"
        "wp.clear_kernel_cache()\n"
        "wp.clear_lto_cache()\n"
        "config.cache_kernels = False\n"
        "wp.config.cache_kernels = True\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="bench.py"))
    assert [(f.line, f.severity) for f in found] == [(3, Severity.WARNING), (4, Severity.WARNING), (5, Severity.WARNING)]
    assert all(f.fixes and not f.fixes[0].is_safe for f in found)


def test_temporary_and_timestamped_cache_dirs(tmp_path):
    text = (
        "import os, tempfile, time, uuid\n"
        "from datetime import datetime\n"
        "import warp as wp\n"
        "wp.config.kernel_cache_dir = tempfile.mkdtemp(prefix='warp')\n"
        "run_dir = os.path.join('/scratch', f'run-{uuid.uuid4().hex}')\n"
        "wp.config.kernel_cache_dir = os.path.join(run_dir, 'kernels')\n"
        "wp.config.kernel_cache_dir = f'/tmp/wc_{os.getpid()}'\n"
        "wp.config.kernel_cache_dir = '/tmp/' + datetime.now().strftime('%Y%m%d')\n"
        "wp.config.kernel_cache_dir = os.path.join(tempfile.gettempdir(), 'warp-cache')\n"  # stable: fine
        "wp.config.kernel_cache_dir = os.path.expanduser('~/.cache/myproj/warp')\n"  # stable: fine
        "with tempfile.TemporaryDirectory() as d:\n"
        "    wp.config.kernel_cache_dir = d\n"
        "    wp.load_module(device='cpu')\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="app.py"))
    assert [f.line for f in found] == [4, 6, 7, 8, 12]
    assert "temporary directory" in found[0].message
    assert "changes every run" in found[1].message


def test_rmtree_of_cache_and_cuda_cache_disable(tmp_path):
    text = (
        "import os, shutil, subprocess\n"
        "import warp as wp\n"
        "shutil.rmtree(wp.config.kernel_cache_dir, ignore_errors=True)\n"
        "cache = wp.config.kernel_cache_dir\n"
        "shutil.rmtree(cache)\n"
        "shutil.rmtree('/tmp/scratch')\n"  # unrelated directory
        "os.environ['CUDA_CACHE_DISABLE'] = '1'\n"
        "os.environ['CUDA_CACHE_DISABLE'] = '0'\n"
        "os.putenv('CUDA_CACHE_DISABLE', '1')\n"
        "os.environ.setdefault('CUDA_CACHE_DISABLE', '1')\n"
        "subprocess.run(['python', 'x.py'], env={**os.environ, 'CUDA_CACHE_DISABLE': '1'})\n"
        "env = dict(os.environ, CUDA_CACHE_DISABLE=1)\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="tool.py"))
    assert [f.line for f in found] == [3, 5, 7, 9, 10, 11, 12]


def test_deliberate_maintenance_paths_are_info_without_fix(tmp_path):
    text = (
        "import argparse\n"
        "import warp as wp\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--clear-kernel-cache', action='store_true')\n"
        "args = parser.parse_args()\n"
        "if args.clear_kernel_cache:\n"
        "    wp.clear_kernel_cache()\n"
        "def reset_warp_caches():\n"
        "    wp.clear_kernel_cache()\n"
        "    wp.clear_lto_cache()\n"
        "# start from an empty cache so the benchmark measures a cold compile\n"
        "wp.clear_kernel_cache()\n"
        "def main():\n"
        "    wp.clear_kernel_cache()\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="bench.py"))
    assert [(f.line, f.severity) for f in found] == [
        (7, Severity.INFO), (9, Severity.INFO), (10, Severity.INFO), (12, Severity.INFO), (14, Severity.WARNING),
    ]  # fmt: skip
    assert all(not f.fixes for f in found if f.severity == Severity.INFO)


def test_test_harness_code(tmp_path):
    # Warp's own runners clear the cache at start-up; tests isolate with a private dir.
    files = {
        "tests/unittest_serial.py": "import warp as wp\nwp.clear_kernel_cache()\n",
        "tests/test_cache.py": (
            "import tempfile\nimport warp as wp\n"
            "class T:\n    def setUp(self):\n        self.tmp = tempfile.mkdtemp()\n"
            "        wp.config.kernel_cache_dir = self.tmp\n"
        ),
    }
    found = _only(lint_files(tmp_path, files))
    assert [(f.path, f.line, f.severity) for f in found] == [("tests/unittest_serial.py", 2, Severity.INFO)]


def test_scoped_override_with_restore_is_info(tmp_path):
    text = (
        "import warp as wp\n"
        "def build_uncached(module):\n"
        "    saved = wp.config.cache_kernels\n"
        "    wp.config.cache_kernels = False\n"
        "    try:\n"
        "        wp.load_module(module)\n"
        "    finally:\n"
        "        wp.config.cache_kernels = saved\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="tool.py"))
    assert [(f.line, f.severity) for f in found] == [(4, Severity.INFO)]


def test_fix_removes_statement_and_keeps_block_valid(tmp_path):
    text = (
        "import warp as wp\n\n"
        "def main():\n"
        "    wp.clear_kernel_cache()\n"
        "\n"
        "def other():\n"
        "    wp.config.cache_kernels = False\n"
        "    return 1\n"
        "x = 1; wp.clear_lto_cache()\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="tool.py"))
    assert [len(f.fixes) for f in found] == [1, 1, 0]  # no fix when the line holds other code
    out = apply_fixes(text, found, unsafe=True).text
    assert out == "import warp as wp\n\ndef main():\n    pass\n\ndef other():\n    return 1\nx = 1; wp.clear_lto_cache()\n"
    assert apply_fixes(text, found, unsafe=False).text == text  # unsafe only


def test_not_warp_and_lookalikes(tmp_path):
    text = (
        "import warp as wp\n"
        "def clear_kernel_cache():\n    pass\n"
        "clear_kernel_cache()\n"  # a local function of the same name
        "cfg = {'cache_kernels': False}\n"
        "settings.kernel_cache_dir = tempfile.mkdtemp()\n"  # not warp.config
    )
    assert _only(lint_snippet(tmp_path, text, name="x.py")) == []


def test_rmtree_of_a_build_folder_below_the_cache_is_cleanup(tmp_path):
    # shaped like Warp's own module build: a per-process folder inside the cache is removed
    text = (
        "import os, shutil\nimport warp as wp\n"
        "def build(name):\n"
        "    module_dir = os.path.join(wp.config.kernel_cache_dir, f'wp_{name}')\n"
        "    build_dir = os.path.join(wp.config.kernel_cache_dir, f'{module_dir}_p{os.getpid()}')\n"
        "    shutil.rmtree(build_dir, ignore_errors=True)\n"
    )
    assert _only(lint_snippet(tmp_path, text, name="builder.py")) == []


def test_runner_clearing_after_an_explaining_paragraph_is_info(tmp_path):
    # shaped like a parallel unittest runner: the comment heads the paragraph, not the line
    text = (
        "import os\nimport warp as wp\n"
        "def main():\n"
        "    # Clear the Warp cache so every test run compiles from scratch.\n"
        "    base = os.environ.get('WARP_CACHE_PATH')\n"
        "    if base is not None:\n"
        "        wp.config.kernel_cache_dir = base\n"
        "    wp.clear_kernel_cache()\n"
    )
    found = _only(lint_snippet(tmp_path, text, name="runner.py"))
    assert [(f.line, f.severity) for f in found] == [(8, Severity.INFO)]
    files = {"unittest_parallel.py": "import warp as wp\ndef main():\n    wp.clear_kernel_cache()\n"}
    assert [f.severity for f in _only(lint_files(tmp_path / "r", files))] == [Severity.INFO]


def test_comment_that_only_names_the_action_is_not_a_reason(tmp_path):
    text = "import warp as wp\n# clear cache\nwp.clear_kernel_cache()\nwp.clear_lto_cache()  # every run starts cold\n"
    found = _only(lint_snippet(tmp_path, text, name="app.py"))
    assert [f.severity for f in found] == [Severity.WARNING, Severity.WARNING]


def test_cache_directory_deleted_at_exit(tmp_path):
    text = (
        "import atexit\nimport os\nimport shutil\n\nimport warp as wp\n\n"
        "cache_dir = os.path.expanduser('~/.cache/app/warp')\nwp.config.kernel_cache_dir = cache_dir\n"
        "atexit.register(shutil.rmtree, cache_dir, ignore_errors=True)\n\n"
        "class Runner:\n    def __init__(self, root):\n        self.cache = os.path.join(root, 'kernels')\n"
        "        os.environ['WARP_CACHE_PATH'] = self.cache\n\n    def close(self):\n        shutil.rmtree(self.cache)\n"
        "\nscratch = os.path.expanduser('~/scratch')\natexit.register(shutil.rmtree, scratch)\n"
    )
    found = [f for f in lint_snippet(tmp_path, text, name="app.py") if f.rule == "WCT008"]
    assert [(f.line, f.severity.label) for f in found] == [(9, "warning"), (17, "warning")]
    assert "when the program exits" in found[0].message


def test_a_temporary_directory_the_entry_point_passes_to_a_setup_helper(tmp_path):
    # A fresh-eyes app: ``setup_runtime(cfg, cache_dir=args.kernel_cache or scratch.name)`` with
    # ``scratch = tempfile.TemporaryDirectory()``; the helper sets the cache under ``if cache_dir:``,
    # a check that a path was given, not an opt-in to rebuilding (measured: the warm run
    # compiled all 17 loads again).
    files = {
        "drape/__init__.py": "",
        "drape/config.py": "import warp as wp\n\ndef setup_runtime(cache_dir=None):\n    if cache_dir:\n"
        "        wp.config.kernel_cache_dir = cache_dir\n    wp.init()\n",
        "drape/__main__.py": "import argparse\nimport tempfile\nfrom drape.config import setup_runtime\n\n"
        "def main():\n    args = argparse.ArgumentParser().parse_args()\n"
        "    scratch = tempfile.TemporaryDirectory()\n    setup_runtime(cache_dir=args.kernel_cache or scratch.name)\n\nmain()\n",
    }
    found = [f for f in lint_files(tmp_path / "temp", files) if f.rule == "WCT008"]
    assert [(f.path, f.line, f.severity) for f in found] == [("drape/config.py", 5, Severity.WARNING)]
    assert "what the call at `drape.__main__` line 8 passes for `cache_dir`" in found[0].message
    kept = dict(files, **{"drape/__main__.py": files["drape/__main__.py"].replace(" or scratch.name", "")})
    assert [f for f in lint_files(tmp_path / "kept", kept) if f.rule == "WCT008"] == []


def test_a_cleanup_function_registered_at_exit_is_no_maintenance_path(tmp_path):
    # A fresh-eyes app: ``def _cleanup(workdir): ...; wp.clear_kernel_cache()`` and
    # ``atexit.register(_cleanup, workdir)`` in main(): every run ends by deleting the cache
    # (measured: the warm run repeated all 18 builds).
    text = (
        "import atexit\nimport warp as wp\n\ndef _cleanup(workdir):\n    wp.clear_kernel_cache()\n\n"
        "def main():\n    atexit.register(_cleanup, '/tmp/x')\n\nmain()\n"
    )
    found = [f for f in lint_files(tmp_path / "atexit", {"app.py": text}) if f.rule == "WCT008"]
    assert [(f.line, f.severity) for f in found] == [(5, Severity.WARNING)]
    manual = text.replace("    atexit.register(_cleanup, '/tmp/x')\n", "    pass\n")
    found = [f for f in lint_files(tmp_path / "manual", {"app.py": manual}) if f.rule == "WCT008"]
    assert [(f.line, f.severity) for f in found] == [(5, Severity.INFO)]


def test_clearing_a_cache_dir_this_code_chose_says_which_cache(tmp_path):
    # newton's parallel test runner: a private per-worker folder, then the clear.
    text = (
        "import os\n\nimport warp as wp\n\n\n"
        "def init_worker(index):\n"
        "    folder = os.path.join(os.path.expanduser('~/.cache/warp'), f'worker-{index:03d}')\n"
        "    wp.config.kernel_cache_dir = folder\n"
        "    wp.clear_kernel_cache()\n"
    )
    found = [f for f in lint_snippet(tmp_path, text) if f.rule == "WCT008" and "clear_kernel_cache" in f.message]
    assert len(found) == 1 and "line 8 pointed `wp.config.kernel_cache_dir` at" in found[0].message
    assert "shared" not in found[0].message
