"""``--cuda-arch``: CUDA builds through Warp's own NVRTC, on a machine without a GPU (nothing mocked).

The programs are tiny (an elementwise kernel, an 8-wide tile) so that each CUDA build takes
well under a few seconds; one module launched at two block_dims gives two CUDA builds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from warp_ct.probe.cuda import CUDA_ARCHS_ENV, parse_cuda_archs
from warp_ct.probe.html import render_html
from warp_ct.probe.measure import run_measure
from warp_ct.probe.report import ProbeReport
from warp_ct.probe.text import render_text

pytestmark = pytest.mark.warp

ROOT = Path(__file__).resolve().parents[2]

TWO_BLOCK_DIMS = textwrap.dedent(
    """\
    import warp as wp

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s

    @wp.kernel
    def shift(a: wp.array(dtype=float), s: float):
        a[wp.tid()] = a[wp.tid()] + s

    a = wp.ones(64, dtype=float)
    wp.launch(scale, dim=64, inputs=[a, 2.0], block_dim=128)
    wp.launch(shift, dim=64, inputs=[a, -1.0])
    assert float(a.numpy().sum()) == 64.0
    """
)

TILE = textwrap.dedent(
    """\
    import warp as wp

    TILE = 8

    @wp.kernel
    def row_sums(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        t = wp.tile_load(a[i], shape=TILE)
        wp.tile_store(out, wp.tile_sum(t), offset=i)

    a = wp.ones((4, TILE), dtype=float)
    out = wp.zeros(4, dtype=float)
    wp.launch_tiled(row_sums, dim=[4], inputs=[a, out], block_dim=32)
    assert list(out.numpy()) == [8.0] * 4
    """
)

TAPED = textwrap.dedent(
    """\
    import warp as wp

    @wp.kernel
    def square_sum(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(loss, 0, x[i] * x[i])

    x = wp.ones(8, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square_sum, dim=8, inputs=[x, loss])
    tape.backward(loss)
    assert list(x.grad.numpy()) == [2.0] * 8
    """
)

_reports: dict[str, ProbeReport] = {}


def _measure(tmp_path_factory, name: str, source: str, archs=(86,)) -> ProbeReport:
    if name not in _reports:
        folder = tmp_path_factory.mktemp(name)
        (folder / "app.py").write_text(source)
        _reports[name] = run_measure([sys.executable, "app.py"], cwd=str(folder), samples=1, cuda_archs=list(archs))
    return _reports[name]


@pytest.fixture(scope="module")
def two_block_dims(tmp_path_factory) -> ProbeReport:
    return _measure(tmp_path_factory, "two_block_dims", TWO_BLOCK_DIMS)


def _rows(report: ProbeReport) -> list[dict]:
    return report.to_json_dict()["cuda"]["builds"]


def test_one_module_at_two_block_dims_is_two_cuda_builds(two_block_dims):
    report = two_block_dims
    (sample,) = report.samples
    # the CPU runs are what they always were: one build, at block_dim 1 (CPU)
    assert [(load.module, load.block_dim) for load in sample.cold.loads] == [("__main__", 1)]
    assert sample.cuda is not None and sample.cuda.exit_code == 0
    as_run = [r for r in _rows(report) if r["variant"] == "as_run"]
    assert [(r["module"], r["arch"], r["block_dim"]) for r in as_run] == [("__main__", 86, 128), ("__main__", 86, 256)]
    assert len({r["hash"] for r in as_run}) == 2  # every block_dim is a hash of its own
    for row in as_run:
        assert row["format"] in ("cubin", "ptx") and row["bytes"] > 1000 and row["source_bytes"] > 1000
        assert 0 < row["nvrtc_ms"]["median"] <= row["ms"]["median"] and row["backward"] is True
    assert [r["frames"][0]["line"] for r in as_run] == [13, 14]  # the launches that asked for each
    (total,) = report.to_json_dict()["cuda"]["totals"]
    assert total["arch"] == 86 and total["builds"] == 2
    assert total["ms"] == pytest.approx(sum(r["ms"]["median"] for r in as_run), abs=0.01)


def test_block_dim_spread_is_a_measured_wct009_at_the_second_launch(two_block_dims):
    (finding,) = [f for f in two_block_dims.findings if f["code"] == "WCT009"]
    assert finding["path"] == "app.py" and finding["location"]["line"] == 14
    assert "block_dim 256 here after block_dim 128 (app.py line 13)" in finding["message"]
    assert "2 builds, 2 hashes" in finding["message"] and "sm_86" in finding["message"]
    evidence = finding["evidence"][0]
    assert evidence["block_dims"] == [128, 256] and evidence["builds"] == 2 and evidence["milliseconds"] > 0


def test_unused_backward_gets_the_measured_cuda_share(two_block_dims):
    (finding,) = [f for f in two_block_dims.findings if f["code"] == "WCT010"]
    assert "CUDA, measured through NVRTC: sm_86 at block_dim 128" in finding["message"]
    (share,) = finding["evidence"][0]["cuda_backward"]
    assert share["without_backward_ms"] < share["with_backward_ms"]
    assert share["without_backward_bytes"] < share["with_backward_bytes"]
    (off,) = [r for r in _rows(two_block_dims) if r["variant"] == "no_backward"]
    assert (off["block_dim"], off["backward"]) == (128, False)  # only at the first block_dim


def test_report_json_text_and_html_carry_the_cuda_builds(two_block_dims):
    data = json.loads(json.dumps(two_block_dims.to_json_dict()))
    schema = json.loads((ROOT / "warp_ct/probe/report.schema.json").read_text())
    jsonschema.validate(data, schema)
    again = ProbeReport.from_json_dict(data)  # read back: the derived section is recomputed the same
    assert again.to_json_dict()["cuda"] == data["cuda"]
    assert [f["code"] for f in again.findings] == [f["code"] for f in two_block_dims.findings]
    text = render_text(two_block_dims)
    assert "CUDA builds through NVRTC for sm_86" in text and "sm_86: 2 build(s)" in text
    page = render_html(two_block_dims)
    assert "CUDA builds through NVRTC (sm_86)" in page and "<td class=num>128</td>" in page
    assert "Measured findings with CUDA figures" in page and "WCT009" in page


def test_tile_kernel_is_compiled_at_the_block_dim_launch_tiled_asked_for(tmp_path_factory):
    report = _measure(tmp_path_factory, "tile", TILE)
    rows = _rows(report)
    assert {(r["block_dim"], r["variant"]) for r in rows} == {(32, "as_run"), (32, "no_backward")}
    (finding,) = [f for f in report.findings if f["code"] == "WCT010"]
    assert "sm_86 at block_dim 32" in finding["message"]


def test_a_taped_module_keeps_its_backward_code_and_the_replay_is_no_second_block_dim(tmp_path_factory):
    report = _measure(tmp_path_factory, "taped", TAPED)
    # tape.backward replays the launch at the block_dim resolved on the CPU (1): not a launch of
    # the user's at another block_dim; and a differentiated module is not built without backward
    assert [(r["block_dim"], r["variant"]) for r in _rows(report)] == [(256, "as_run")]
    assert not [f for f in report.findings if f["code"] in ("WCT009", "WCT010")]


def test_without_cuda_arch_nothing_is_compiled_for_cuda(tmp_path):
    (tmp_path / "app.py").write_text(TWO_BLOCK_DIMS)
    env = dict(__import__("os").environ)
    env[CUDA_ARCHS_ENV] = "86"  # a stray variable in the caller's environment is not obeyed
    report = run_measure([sys.executable, "app.py"], cwd=str(tmp_path), samples=1, env=env)
    assert report.samples[0].cuda is None and "cuda" not in report.to_json_dict()
    assert not [f for f in report.findings if f["code"] == "WCT009"]


def test_a_program_without_warp_gives_no_cuda_builds(tmp_path):
    (tmp_path / "app.py").write_text("print('no warp here')\n")
    report = run_measure([sys.executable, "app.py"], cwd=str(tmp_path), samples=1, cuda_archs=[86])
    assert report.samples[0].cuda is not None and report.samples[0].cuda.builds == []
    assert report.to_json_dict()["cuda"]["builds"] == []
    assert any("loaded no Warp module" in note for note in report.to_json_dict()["cuda"]["notes"])


def test_parse_cuda_archs():
    assert parse_cuda_archs("86,90") == (86, 90)
    assert parse_cuda_archs("sm_86 sm_90, 86") == (86, 90)
    assert parse_cuda_archs([75, "120"]) == (75, 120)
    assert parse_cuda_archs("") == () and parse_cuda_archs(None) == ()
    for bad in ("8.6", "x", "9", [True], "1000"):
        with pytest.raises(ValueError):
            parse_cuda_archs(bad)


def test_cli_refuses_a_bad_cuda_arch():
    result = subprocess.run([sys.executable, "-m", "warp_ct", "probe", "measure", "--cuda-arch", "8.6", "--", "true"],
                            cwd=ROOT, capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 2 and "--cuda-arch" in result.stderr and "86,90" in result.stderr


def test_editor_setting_cuda_arch_reaches_the_measure_command():
    from warp_ct.server.settings import SettingsError, parse_settings

    assert parse_settings({"cudaArch": "86, sm_90"}).cuda_archs == (86, 90)
    assert parse_settings({"cudaArch": ""}).cuda_archs == ()
    assert parse_settings({"samples": 2}, parse_settings({"cudaArch": "86"})).cuda_archs == (86,)
    with pytest.raises(SettingsError, match="cudaArch"):
        parse_settings({"cudaArch": "8.6"})
    source = (ROOT / "warp_ct/server/measure.py").read_text()
    assert "cuda_archs=ls.settings.cuda_archs" in source  # the measure command passes the setting on


def test_lto_in_cache_counts_the_lto_folders_but_the_no_backward_one(tmp_path):
    from warp_ct.probe.cuda import lto_in_cache

    (tmp_path / "1.19.0" / "lto").mkdir(parents=True)
    (tmp_path / "1.19.0" / "lto" / "a.lto").write_bytes(b"x" * 10)
    (tmp_path / "1.19.0" / "lto" / "a.meta").write_bytes(b"1")
    skipped = tmp_path / "1.19.0" / "warp-ct-cuda" / "no-backward-cache" / "lto"
    skipped.mkdir(parents=True)
    (skipped / "b.lto").write_bytes(b"y" * 100)
    assert lto_in_cache(tmp_path) == (2, 11)


def test_a_cuda_run_past_the_timeout_keeps_the_builds_done(tmp_path, monkeypatch):
    """The builds are written as they finish: a run stopped at --timeout keeps those."""
    from warp_ct.probe import measure
    from warp_ct.probe.errors import ProbeTimeout
    from warp_ct.probe.isolation import Workspace

    def stopped_run(argv, *, cwd, env, output_dir, timeout, cancel):
        assert env[CUDA_ARCHS_ENV] == "86"
        records = Path(env["WARP_CT_PROBE_RECORDS_DIR"])
        lines = [{"kind": "cuda_start", "archs": [86], "skipped_archs": []},
                 {"kind": "cuda_build", "module": "m", "arch": 86, "block_dim": 256, "variant": "as_run",
                  "status": "compiled", "ms": 1200.0, "nvrtc_ms": 1100.0, "format": "cubin", "bytes": 2048}]  # fmt: skip
        (records / "1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
        raise ProbeTimeout("stopped")

    monkeypatch.setattr(measure, "run_child", stopped_run)
    with Workspace() as workspace:
        run = measure._cuda_run(["python", "app.py"], None, {}, workspace.new_sample(0), workspace, (86,), None, 5.0, None)
    assert [(b.module, b.ms) for b in run.builds] == [("m", 1200.0)] and run.exit_code is None
    assert any("5 s timeout" in note for note in run.notes) and any("did not finish" in note for note in run.notes)


def test_one_kernel_at_two_block_dims_is_no_spread(tmp_path_factory):
    # Each block_dim a lone kernel asks for is a build it needs: no module of its own would
    # save one (the static WCT009 is silent too), so the two builds are figures, not a finding.
    one_kernel = textwrap.dedent(
        """\
        import warp as wp

        @wp.kernel
        def scale(a: wp.array(dtype=float), s: float):
            a[wp.tid()] = a[wp.tid()] * s

        a = wp.ones(64, dtype=float)
        wp.launch(scale, dim=64, inputs=[a, 2.0], block_dim=128)
        wp.launch(scale, dim=64, inputs=[a, 0.5])
        """
    )
    report = _measure(tmp_path_factory, "one_kernel", one_kernel)
    assert [r["block_dim"] for r in _rows(report) if r["variant"] == "as_run"] == [128, 256]
    assert not [f for f in report.findings if f["code"] == "WCT009"]
