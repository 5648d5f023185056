"""Unit tests of the server's pure parts (no subprocess)."""

from __future__ import annotations

import math
import sys
import threading
import time

import pytest

from warp_ct.analyzer.model import Position, Range
from warp_ct.server import positions
from warp_ct.server.measure import MEASURE_ARGUMENTS, InvalidArguments, parse_arguments
from warp_ct.server.settings import MAX_SAMPLES, Settings, SettingsError, build_config, parse_settings, unwrap
from warp_ct.server.uris import UnusableUri, file_path
from warp_ct.server.worker import Job, Worker


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [("utf-16", 15), ("utf-8", 18), ("utf-32", 14)],
)
def test_char_to_client_units(encoding, expected):
    line = 's = "é😀"; x = foo'
    char = line.index("foo")
    assert char == 14
    assert positions.char_to_client(line, char, encoding) == expected
    assert positions.client_to_char(line, expected, encoding) == char


def test_converter_line_breaks_and_clamping():
    conv = positions.Converter("a\r\nb\x0cc\rd\n", "utf-16")
    assert conv.lines == ["a", "b\x0cc", "d", ""]  # form feed is not a line break in LSP
    assert conv.position(Position(1, 2)).character == 2
    assert conv.position(Position(9, 0)) == conv.end()
    assert conv.to_char_range(conv.range(Range.from_coords(0, 0, 2, 1))) == Range.from_coords(0, 0, 2, 1)


def test_settings_parse_and_merge(tmp_path):
    settings = parse_settings({"select": ["wct0"], "severity": {"WCT005": "hint"}, "probeCommand": "python app.py",
                               "samples": 2, "lintOnChange": False, "debounceMs": 50, "interpreter": "/x/python"})  # fmt: skip
    assert settings.select == ("WCT0",) and settings.probe_command == ("python", "app.py")
    assert settings.samples == 2 and settings.lint_on_change is False and settings.debounce_ms == 50
    (tmp_path / "pyproject.toml").write_text('[tool.warp-ct]\nignore = ["WCT003"]\nselect = ["WCT"]\n')
    config, problems = build_config(tmp_path, settings)
    assert not problems
    assert config.select == ("WCT0",) and config.ignore == ("WCT003",)  # editor overrides, pyproject stays
    assert dict(config.severity)["WCT005"].label == "hint"
    # empty values mean "not set": the pyproject's select stays
    config, _ = build_config(tmp_path, parse_settings({"select": [], "ignore": []}))
    assert config.select == ("WCT",) and config.ignore == ("WCT003",)


@pytest.mark.parametrize(
    "bad",
    [{"select": ["NOPE1"]}, {"samples": 0}, {"samples": True}, {"lintOnChange": "yes"}, {"severity": {"WCT005": "loud"}},
     {"targetWarpVersion": "latest"}, {"debounceMs": -1}, {"probeCommand": [1, 2]}],
)  # fmt: skip
def test_bad_settings_are_refused(bad):
    with pytest.raises(SettingsError):
        parse_settings(bad)


def test_unwrap():
    assert unwrap({"warpCt": {"samples": 2}}) == {"samples": 2}
    assert unwrap({"samples": 2}) == {"samples": 2}
    assert unwrap(None) is None
    assert parse_settings(None, Settings(samples=5)).samples == 5


def test_worker_coalesces_a_burst_and_keeps_the_newest():
    seen: list[int] = []
    done = threading.Event()

    def process(job: Job) -> None:
        seen.append(job.version)
        if job.version == 1000:
            done.set()

    worker = Worker(process, on_error=lambda what, exc: None)
    try:
        now = time.monotonic()
        for version in range(1, 1001):
            worker.schedule(Job("file:///a.py", "/a.py", f"text {version}", version, 1, now + 0.05))
        assert done.wait(5)
        assert seen == [1000]
        assert worker.jobs_run == 1
        # tasks run in order on the same thread, and errors reach the caller
        assert worker.submit(lambda: threading.current_thread().name).result(5) == "warp-ct-analysis"
        with pytest.raises(ZeroDivisionError):
            worker.submit(lambda: 1 / 0).result(5)
    finally:
        worker.stop()


def test_worker_survives_a_crashing_job():
    errors = []
    ran = threading.Event()

    def process(job: Job) -> None:
        if job.uri.endswith("bad.py"):
            raise RuntimeError("boom")
        ran.set()

    worker = Worker(process, on_error=lambda what, exc: errors.append((what, exc)))
    try:
        worker.schedule(Job("file:///bad.py", "/bad.py", "", 1, 1, 0.0))
        worker.schedule(Job("file:///good.py", "/good.py", "", 1, 1, 0.0))
        assert ran.wait(5)
        assert errors and "bad.py" in errors[0][0]
    finally:
        worker.stop()


def test_lint_path_does_not_import_pygls():
    import subprocess
    import sys

    code = (
        "import sys, warp_ct.server, warp_ct.cli\n"
        "warp_ct.cli.build_parser()\n"
        "assert 'pygls' not in sys.modules and 'lsprotocol' not in sys.modules, sorted(m for m in sys.modules if 'pygls' in m)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]))


def test_collector_is_held_off_until_the_last_analysis_is_published():
    import gc

    from warp_ct.server.server import _CollectorHold

    hold = _CollectorHold()
    was = gc.isenabled()
    gc.enable()
    try:
        hold.hold()
        hold.hold()  # a second analysis overlapping the first
        assert not gc.isenabled()
        hold.release()
        assert not gc.isenabled()  # the other one's diagnostics are not out yet
        hold.release()
        assert gc.isenabled()
        gc.disable()  # a collector the embedding process turned off stays off
        hold.hold()
        hold.release()
        assert not gc.isenabled()
    finally:
        gc.enable() if was else gc.disable()


def _measured_item(path: str, line0: int, start: int, end: int, message: str = "`m` built 2×: `set_module_options` ...") -> dict:
    return {
        "code": "WCT006", "name": "options-after-load", "path": path, "severity": "warning", "message": message,
        "range": {"start": {"line": line0, "character": start}, "end": {"line": line0, "character": end}},
        "evidence": [{"module": "m", "summary": message}], "url": "https://x/WCT006.md", "origin": "measured",
    }  # fmt: skip


def test_measured_findings_follow_their_line(tmp_path):
    from types import SimpleNamespace

    from warp_ct.server.lenses import build_findings

    source = 'import warp as wp\n\ndef f():\n    wp.set_module_options({"x": 1})  # é\n'
    (tmp_path / "p.py").write_text(source, encoding="utf-8")
    report = SimpleNamespace(cwd=str(tmp_path), findings=[_measured_item("p.py", 3, 4, 43)])
    (found,) = next(iter(build_findings(report).values()))
    assert found.place(positions.Converter(source, "utf-16")) == 3
    assert found.place(positions.Converter("# new\n" + source, "utf-16")) == 4
    assert found.place(positions.Converter(source.replace("wp.set_module_options", "pass  #"), "utf-16")) is None


def test_lens_says_why_the_module_was_rebuilt(tmp_path):
    from warp_ct.server.lenses import lens_with_reasons

    kernel = str(tmp_path / "k.py")
    items = [
        {**_measured_item(kernel, 11, 4, 10), "_abs_path": kernel},
        {**_measured_item(str(tmp_path / "tuning.py"), 9, 4, 10), "_abs_path": str(tmp_path / "tuning.py")},
        {**_measured_item(kernel, 20, 0, 5, "generic kernel `g` was instantiated"), "code": "WCT007", "_abs_path": kernel},
    ]
    title = lens_with_reasons("built 4× · 2.41 s cold", items, kernel)
    assert title == "built 4× · 2.41 s cold · options changed at line 12, options changed at tuning.py:10 +1 more"
    assert lens_with_reasons("built 1× · 0.10 s cold", [], kernel) == "built 1× · 0.10 s cold"


def test_measure_arguments_bounds_without_json():
    # NaN and infinity cannot travel in strict JSON, but Python's json module reads them
    for samples in (math.nan, math.inf):
        with pytest.raises(InvalidArguments, match="samples must be a whole number"):
            parse_arguments([["python"], None, samples], MEASURE_ARGUMENTS, (), None, 3)
    for timeout in (math.nan, math.inf, 0):
        with pytest.raises(InvalidArguments, match="timeout must be a number of seconds"):
            parse_arguments([["python"], None, 1, timeout], MEASURE_ARGUMENTS, (), None, 3)
    given = parse_arguments([None, None, None, 30], MEASURE_ARGUMENTS, ("python", "app.py"), "/work", 3)
    assert (given.argv, given.cwd, given.samples, given.timeout_s) == (["python", "app.py"], "/work", 3, 30.0)
    with pytest.raises(SettingsError, match=f"from 1 to {MAX_SAMPLES}, got 1000000000"):
        parse_settings({"samples": 10**9})


def test_file_uris_to_paths():
    assert file_path("file://localhost/tmp/a%20b.py") == file_path("file:///tmp/a%20b.py") == "/tmp/a b.py"
    assert file_path("file://LOCALHOST/tmp/a.py") == "/tmp/a.py"
    assert file_path("untitled:Untitled-1") is None
    if sys.platform != "win32":
        assert file_path("file://otherhost/share/a.py") is None  # not a local file: analysed alone
    for uri, reason in [("file:///tmp/a%00.py", "holds a NUL character"), ("file:", "names no path"), ("file://[x/a.py", "is not a URI")]:
        with pytest.raises(UnusableUri, match=reason):
            file_path(uri)


def test_a_measured_problem_is_one_diagnostic_at_its_first_kernel(tmp_path):
    """One problem, one diagnostic: "2 modules hold a single kernel" (and any problem of a module
    with several kernels) is said once, at its first kernel, pointing at the others; a problem a
    measured finding explains (confirm.explained_by_measured) is left to that finding."""
    from types import SimpleNamespace

    from warp_ct.probe.analysis import Diagnosis, ModuleIdentity
    from warp_ct.probe.records import KernelSource
    from warp_ct.server.lenses import MeasuredState, build_marks

    app = tmp_path / "app.py"
    source = "".join(f"# line {i + 1}\n" for i in range(20))
    app.write_text(source)

    def module(name: str, *kernels: tuple[str, int], hashes: int = 1) -> ModuleIdentity:
        return ModuleIdentity(name, "cpu", [f"h{i}" for i in range(hashes)], [1], {}, hashes, hashes, 100.0, None,
                              [KernelSource(k, str(app), line) for k, line in kernels], None)  # fmt: skip

    modules = [module("scale_1a2b", ("scale", 5)), module("__main__", ("shift", 11), ("grow", 15), hashes=2)]
    one_kernel = Diagnosis("one-kernel-modules", "2 modules hold a single kernel", "Every module pays a fixed cost.", [],
                           ["scale_1a2b", "__main__"])  # fmt: skip
    rebuilt = Diagnosis("hash-churn", "Module `app` (run as `__main__`) was rebuilt", "Its options changed.", [], ["__main__"])
    report = SimpleNamespace(cwd=str(tmp_path), findings=[], analysis=SimpleNamespace(modules=modules, diagnoses=[one_kernel, rebuilt]))

    marks = build_marks(report)
    state = MeasuredState(report=report, marks=marks)
    diagnostics = state.diagnostics_for(str(app), positions.Converter(source, "utf-16"))
    by_line = {d.range.start.line: d for d in diagnostics}
    assert sorted(by_line) == [4, 10]  # scale's line; shift's (grow, the module's second kernel, says nothing)
    assert by_line[4].message.startswith("measured: 2 modules hold a single kernel.")
    assert [(r.location.range.start.line, r.message) for r in by_line[4].related_information] == [
        (10, "module `app`, kernel `shift`"), (14, "module `app`, kernel `grow`")]  # fmt: skip
    assert by_line[10].message == "measured: Module `app` (run as `__main__`) was rebuilt. Its options changed."
    assert [(r.location.range.start.line, r.message) for r in by_line[10].related_information] == [(14, "module `app`, kernel `grow`")]
    assert {mark.line0: mark.lens.split(" · ")[0] for mark in marks[next(iter(marks))]} == {4: "built 1×", 10: "built 2×", 14: "built 2×"}

    # the rebuild explained by a measured finding: that finding's diagnostic says it
    marks = build_marks(report, frozenset({("hash-churn", "__main__")}))
    diagnostics = MeasuredState(report=report, marks=marks).diagnostics_for(str(app), positions.Converter(source, "utf-16"))
    assert [d.range.start.line for d in diagnostics] == [4]
