"""The probe is the analyzer's oracle: small runnable Warp programs, linted and measured.

Each folder under tests/programs/ with a ``fixture.toml`` is a fixture project (see
README.md beside this file). Three checks per fixture:

1. ``test_lint_finds_exactly_the_marked_findings`` (static, every fixture): ``warp-ct lint``
   reports exactly the (file, line, code, severity) set marked with ``# expect:`` comments.
2. ``test_probe_measures_what_the_fixture_says`` (``warp`` marker, probe fixtures): the real
   program, run under ``warp-ct probe measure`` on CPU, shows the measured problems that
   ``fixture.toml`` lists in ``problems`` and no others. This keeps the fixtures honest: a
   fixture built to rebuild a module that stops rebuilding (a new Warp) fails here, not
   silently in the oracle.
3. ``test_confirm_explains_every_measured_problem`` (``warp`` marker, probe fixtures):
   ``warp-ct confirm`` over the same measurement, both directions — every measured rebuild,
   hash churn, unique one-kernel-module split and unreused cache is explained by a finding,
   and every finding whose message claims builds has those builds measured.

4. ``test_probe_measures_each_marked_finding_at_its_line`` (``warp`` marker, probe fixtures):
   the probe's own measured findings (the report's ``findings``, no linting) contain every
   marked finding of a rule the probe measures, at the marked (file, line, code): the probe
   names the line behind every build, the same line the static rule names.

Fixtures the analyzer does not handle yet are listed in ``KNOWN_ANALYZER_GAPS`` (static) and
``KNOWN_ORACLE_GAPS`` (confirm) and run as strict xfails: fixing a gap makes its test
XPASS, which fails the run until the entry is removed.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tokenize
import tomllib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from warp_ct.confirm import TWIN_RULES

PROGRAMS = Path(__file__).resolve().parent
ROOT = PROGRAMS.parents[1]

# Fixtures whose static expectations the analyzer does not meet today, and what it gets
# wrong. One place; each entry is a strict xfail of the static test.
KNOWN_ANALYZER_GAPS: dict[str, str] = {}

# Fixtures where `warp-ct confirm` leaves a measured problem unexplained or a build claim
# unmeasured. Each entry is a strict xfail of the confirm test.
KNOWN_ORACLE_GAPS: dict[str, str] = {}

# Rules whose findings the probe does not make (warp_ct/probe/findings.py measures WCT001, 002,
# 006, 007, 008, 009, 010, 015; a measured WCT007 stands for WCT003, a measured WCT010 for WCT013,
# see MEASURED_AS), and why no run can show them as a build at a line.
UNMEASURED_RULES: dict[str, str] = {
    "WCT004": "set_module_options(module=wp.get_module(...)) misbehaves on Warp <= 1.16 only; the probe runs the installed Warp",
    "WCT005": "module_options without module=\"unique\" raises at import: there is no run to measure",
    "WCT011": "a parallel CPU load costs a precompiled header per worker (a load race before 1.17), not one more module "
              "build: nothing for a cause record to attribute",
    "WCT012": "precompiled headers off make every cold build slower but add no build; `probe levers` measures that lever",
    "WCT014": "options that land on a module without kernels change no module's hash: no build to attribute",
}
# A marked finding of rule C is met by a measured finding of any rule K with C in
# MEASURED_AS[K] (confirm's twins): a kernel defined per call (WCT003) is measured as a kernel
# added to a loaded module (WCT007); a unique kernel that misses its file's options (WCT013) as
# backward code built for nothing (WCT010).
MEASURED_AS = TWIN_RULES

# Marked findings the probe misses on a fixture although it measures the rule: "path:line CODE"
# -> why. Each fixture listed is a strict xfail of the measured test for those marks only: the
# other marks must still be measured, and a listed mark that is measured fails the test until
# its entry goes.
KNOWN_MEASUREMENT_GAPS: dict[str, dict[str, str]] = {
    "kernel_table_loops": {
        "tiles/sim.py:14 WCT007": "the probe names the factory's kernel (tiles/kernels.py:9) as what joined the loaded "
        "module; the static rule marks the call that adds the new variant, in another file",
    },
    "app_canonical_pipeline": {
        f"vision/stages.py:{line} WCT003": "re-declared per frame, identical each time: no rebuild, only the "
        "per-call declaration cost (timed by hand in fixture.toml), which the probe does not record"
        for line in (13, 23, 33, 43)
    },
    "unique_kernel_decorator": {
        "mesh/warp_utils.py:13 WCT010": "a project's own kernel decorator: the probe measures each kernel it made "
        "(`area`, `centroid`, at their definitions); the one line that turns backward code off for all of them is "
        "the decorator's `wp.kernel` call, which no run-time record names",
    },
    "app_viewer_with_library": {
        "viewer/cli.py:18 WCT008": "behind --no-kernel-cache, which the measured command does not pass: the line never runs",
    },
    "backward_factory_default": {
        "rigid/integrator.py:14 WCT010": "enable_backward=True as a factory's default: the probe sees the kernel's "
        "option, not where its value came from, and places it at the kernel's decorator (line 15)",
    },
    "cache_clear_opt_in": {
        "mesher/__main__.py:26 WCT008": "behind --clear-kernel-cache, which the measured command does not pass: the line never runs",
    },
    "forward_factory_per_call": {
        "attn/kernels.py:11 WCT003": "re-declared per call, identical each time: no rebuild, only the per-call "
        "declaration cost (timed by hand in fixture.toml), which the probe does not record",
    },
    "late_config_example_init": {
        "example_wave/__main__.py:18 WCT001": "an info about options named on the command line: the measured one "
        "(verify_fp) is not copied at module creation, so this run has no late value to measure",
    },
    "captured_function_per_call": {
        "bodies/checks.py:17 WCT003": "re-declared per call with the same captured Warp function: no rebuild (1 build "
        "over 3 calls, as fixture.toml says), only the per-call declaration cost, which the probe does not record",
    },
    "per_call_factory_identical": {
        "particles/kernels.py:14 WCT003": "re-declared per frame, identical each time: no rebuild, only the per-call "
        "declaration cost (timed by hand in fixture.toml), which the probe does not record",
    },
    "property_kernels_lazy": {
        "solid/elastic.py:43 WCT007": "the static rule cannot see the order the properties are read in, so it marks "
        "all three; this run reads fun_kernel first, before solid.elastic is loaded: no rebuild to measure",
    },
}

# Probe diagnoses that are problems a rule must explain (DESIGN: rebuilds, hash churn,
# one-kernel-module splits, unreused caches). Others (LTO, granular file modules,
# hashes that differ per process) are the probe's own job.
ORACLE_DIAGNOSES = {"hash-churn", "block-dim-spread", "one-kernel-modules", "cache-not-reused"}

# The rules whose mechanism produces each measured problem (DESIGN's rule table). confirm is
# more generous (a late wp.config option or a misdirected set_module_options never changes a
# hash, yet it may attach churn to them): the oracle asks for a finding of a fitting rule.
MECHANISM_RULES = {
    "hash-churn": {"WCT003", "WCT006", "WCT007", "WCT015"},
    "block-dim-spread": {"WCT009"},
    "one-kernel-modules": {"WCT002", "WCT013"},
    "cache-not-reused": {"WCT008"},
}

# A finding that says nothing is rebuilt must not sit on a module measured with churn.
NO_REBUILD_CLAIM = re.compile(r"reuses the build|no rebuild|nothing is rebuilt|not rebuilt", re.IGNORECASE)

# A finding whose message says Warp builds a module (again, once per X, separately) must have
# those builds measured. Claims about other costs (a precompiled header per worker thread, a
# per-call declaration) are not module builds and the probe does not confirm them.
BUILD_CLAIM = re.compile(
    r"built again|rebuil|one build per|separate build"
    r"|builds? (?:it|them|the (?:whole )?module|all of its kernels|this module)\b(?: again)?"
    r"|compile[sd]? (?:the whole module|it) again",
    re.IGNORECASE,
)
# On CPU every launch runs at block_dim 1: a block_dim spread cannot be measured there, so
# WCT009's claims are checked statically only (fixtures say so in `why_static`).
GPU_ONLY_RULES = {"WCT009"}

EXPECT_COMMENT = re.compile(r"#\s*expect:\s*(?P<codes>[^#]+)")
EXPECT_CODE = re.compile(r"^(?P<code>WCT\d{3})(?::(?P<severity>error|warning|info|hint))?$")

PROBE_TIMEOUT_S = 240
PROBE_WORKERS = 2


@dataclass(frozen=True)
class Fixture:
    name: str
    path: Path
    command: list[str]
    probe: bool
    description: str
    problems: frozenset[str]
    # Kernel keys whose module="unique" split is deliberate (options differ, kernels made per
    # request): their one-kernel modules need no finding. Each says why in its source.
    deliberate_unique: frozenset[str]
    # Rules whose measured findings must be exactly the marked ones: the probe and the linter
    # agree on every module (a rule's silence is measured too, not only its marks).
    measured_exactly: frozenset[str]
    config: dict = field(hash=False, compare=False)


def load_fixture(path: Path) -> Fixture:
    config = tomllib.loads((path / "fixture.toml").read_text(encoding="utf-8"))
    missing = {"command", "probe", "description"} - set(config)
    if config.get("probe"):
        missing |= {"measured", "problems"} - set(config)
    if missing:
        raise ValueError(f"{path.name}/fixture.toml lacks {sorted(missing)}")
    if not config["probe"] and not config.get("why_static"):
        raise ValueError(f"{path.name}/fixture.toml: probe = false needs a why_static")
    exact = set(config.get("measured_exactly", []))
    if exact and not config.get("probe"):
        raise ValueError(f"{path.name}/fixture.toml: measured_exactly needs probe = true")
    if exact & (set(UNMEASURED_RULES) | GPU_ONLY_RULES):
        raise ValueError(f"{path.name}/fixture.toml: the probe cannot measure {sorted(exact & (set(UNMEASURED_RULES) | GPU_ONLY_RULES))}")
    unknown = set(config.get("problems", [])) - ORACLE_DIAGNOSES
    if unknown:
        raise ValueError(f"{path.name}/fixture.toml: problems {sorted(unknown)} are not probe diagnoses of {sorted(ORACLE_DIAGNOSES)}")
    return Fixture(
        name=path.name,
        path=path,
        command=list(config["command"]),
        probe=bool(config["probe"]),
        description=config["description"],
        problems=frozenset(config.get("problems", [])),
        deliberate_unique=frozenset(config.get("deliberate_unique", [])),
        measured_exactly=frozenset(config.get("measured_exactly", [])),
        config=config,
    )


FIXTURES = [load_fixture(p) for p in sorted(PROGRAMS.iterdir()) if (p / "fixture.toml").is_file()]
PROBE_FIXTURES = [f for f in FIXTURES if f.probe]


def _params(fixtures: list[Fixture], gaps: dict[str, str]) -> list:
    stale = set(gaps) - {f.name for f in fixtures}
    assert not stale, f"gap lists name fixtures that do not exist: {sorted(stale)}"
    return [
        pytest.param(f, id=f.name, marks=[pytest.mark.xfail(strict=True, reason=gaps[f.name])] if f.name in gaps else [])
        for f in fixtures
    ]


# ---------------------------------------------------------------- expectations in sources


def python_files(fixture: Fixture) -> list[Path]:
    return sorted(p for p in fixture.path.rglob("*.py") if "__pycache__" not in p.parts)


def expected_findings(fixture: Fixture) -> set[tuple[str, int, str, str]]:
    """(relative path, 1-based line, code, severity) from ``# expect:`` comments."""
    expected = set()
    for file in python_files(fixture):
        relative = file.relative_to(fixture.path).as_posix()
        source = file.read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.COMMENT:
                continue
            match = EXPECT_COMMENT.search(token.string)
            if not match:
                continue
            for item in match.group("codes").split(","):
                parsed = EXPECT_CODE.match(item.strip())
                if not parsed:
                    raise ValueError(f"{relative}:{token.start[0]}: bad expect marker {item.strip()!r}")
                expected.add((relative, token.start[0], parsed["code"], parsed["severity"] or "warning"))
    return expected


def run_cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "warp_ct", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def lint_findings(fixture: Fixture) -> list[dict]:
    result = run_cli("lint", "--output-format", "json", "--exit-zero", "--no-cache", "-j", "1", ".", cwd=fixture.path)
    assert result.returncode == 0, f"warp-ct lint failed ({result.returncode}):\n{result.stderr}"
    return json.loads(result.stdout)["findings"]


def finding_key(finding: dict) -> tuple[str, int, str, str]:
    return (Path(finding["path"]).as_posix(), finding["location"]["line"], finding["code"], finding["severity"])


def describe(keys, findings_by_key=None) -> str:
    lines = []
    for key in sorted(keys):
        text = f"  {key[0]}:{key[1]} {key[2]}:{key[3]}"
        if findings_by_key and key in findings_by_key:
            text += f"  {findings_by_key[key]['message'][:160]}"
        lines.append(text)
    return "\n".join(lines) or "  (none)"


@pytest.mark.parametrize("fixture", _params(FIXTURES, KNOWN_ANALYZER_GAPS))
def test_lint_finds_exactly_the_marked_findings(fixture: Fixture):
    expected = expected_findings(fixture)
    findings = lint_findings(fixture)
    by_key = {finding_key(f): f for f in findings}
    actual = set(by_key)
    missed, extra = expected - actual, actual - expected
    assert not missed and not extra, (
        f"{fixture.name}: {fixture.description}\n"
        f"missed (marked, not reported):\n{describe(missed)}\n"
        f"false (reported, not marked):\n{describe(extra, by_key)}"
    )


# ---------------------------------------------------------------- measured under the probe


@dataclass
class Measurement:
    report: dict
    confirm: dict
    report_path: Path


_executor: ThreadPoolExecutor | None = None
_measurements: dict[str, Future] = {}


def _measure(fixture: Fixture, out_dir: Path) -> Measurement:
    report_path = out_dir / f"{fixture.name}.json"
    command = [sys.executable if part == "python" else part for part in fixture.command]
    probe = run_cli(
        "probe", "measure", "--samples", "1", "--quiet", "--json", str(report_path), "--", *command,
        cwd=fixture.path, timeout=PROBE_TIMEOUT_S,
    )
    if not report_path.is_file():
        raise AssertionError(f"probe wrote no report ({probe.returncode}):\n{probe.stdout[-3000:]}\n{probe.stderr[-3000:]}")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    failed = [s for s in report["samples"] if not s["ok"]]
    if failed:
        tail = failed[0]["cold"].get("stderr_tail", "")
        raise AssertionError(f"{fixture.name} did not run cleanly under the probe:\n{tail}")
    confirm = run_cli("confirm", "--json", str(report_path), "--format", "json", ".", cwd=fixture.path)
    assert confirm.returncode in (0, 1), f"warp-ct confirm failed ({confirm.returncode}):\n{confirm.stderr}"
    return Measurement(report, json.loads(confirm.stdout), report_path)


def _selected_probe_fixtures(items) -> list[Fixture]:
    """The probe fixtures of the selected tests that wait on a measurement."""
    names = set()
    for item in items:
        callspec = getattr(item, "callspec", None)
        if "measurements" in getattr(item, "fixturenames", ()) and callspec is not None and "fixture" in callspec.params:
            names.add(callspec.params["fixture"].name)
    return [f for f in PROBE_FIXTURES if f.name in names]


@pytest.fixture(scope="module")
def measurements(request, tmp_path_factory):
    """The measurement of every probe fixture a selected test asks for (``-k <fixture>``
    measures that one only), started at once (2 at a time); tests wait on theirs."""
    global _executor
    if _executor is None:
        out_dir = tmp_path_factory.mktemp("probe-reports")
        _executor = ThreadPoolExecutor(max_workers=PROBE_WORKERS)
        for fixture in _selected_probe_fixtures(request.session.items):
            _measurements[fixture.name] = _executor.submit(_measure, fixture, out_dir)
    yield _measurements
    _executor.shutdown(wait=True, cancel_futures=True)
    _executor = None
    _measurements.clear()


@pytest.fixture(scope="module", autouse=True)
def _measure_while_linting(request):
    """Start the probe runs before the static tests when probe tests are selected too, so the
    measurements (most of the time) overlap the lint runs."""
    if any("measurements" in item.fixturenames for item in request.session.items):
        request.getfixturevalue("measurements")


def measured_problems(report: dict) -> dict[str, list[str]]:
    """Oracle-kind problem diagnoses of a report: code -> module names."""
    return {d["code"]: list(d["modules"]) for d in report["diagnoses"] if d["problem"] and d["code"] in ORACLE_DIAGNOSES}


def module_summary(report: dict) -> str:
    return "\n".join(
        f"  {m['name']}: {m['builds']} builds, {len(m['hashes'])} hashes, {len(m['kernels'])} kernels,"
        f" warm builds {m['warm_builds']}{', unique' if m.get('unique_module') else ''}"
        for m in report["modules"]
    )


@pytest.mark.warp
@pytest.mark.parametrize("fixture", _params(PROBE_FIXTURES, {}))
def test_probe_measures_what_the_fixture_says(fixture: Fixture, measurements):
    measurement = measurements[fixture.name].result(timeout=PROBE_TIMEOUT_S * 2)
    problems = measured_problems(measurement.report)
    assert set(problems) == fixture.problems, (
        f"{fixture.name}: fixture.toml says problems = {sorted(fixture.problems)}, the probe measured "
        f"{sorted(problems)}\n{module_summary(measurement.report)}"
    )


def unexplained_modules(measurement: Measurement, fixture: Fixture) -> dict[str, list[str]]:
    """Diagnosis code -> measured problem modules that no expected finding of a fitting rule explains.

    Two sources, both must be empty: what `confirm` itself lists as unexplained, and the
    stricter reading of its evidence — each problem module needs confirmed evidence on a
    finding that the fixture marks (`# expect:`) and whose rule's mechanism causes that
    problem (MECHANISM_RULES).

    One-kernel modules count only when they come from ``module="unique"``: a file whose
    module happens to hold one kernel is granular code, the probe's job, not a rule's; nor
    do deliberate splits that the fixture lists in ``deliberate_unique``.
    """
    report = measurement.report
    diagnoses = {d["title"]: d for d in report["diagnoses"]}
    split = {
        m["name"]
        for m in report["modules"]
        if m.get("unique_module") and not {k["key"] for k in m["kernels"]} <= fixture.deliberate_unique
    }
    left: dict[str, list[str]] = {}

    def add(code: str, name: str) -> None:
        if name not in left.setdefault(code, []):
            left[code].append(name)

    for sentence in measurement.confirm["unexplained"]:
        title = sentence.split(" — ", 1)[0]
        diagnosis = diagnoses.get(title)
        assert diagnosis is not None, f"confirm names a problem the report does not have: {sentence}"
        if diagnosis["code"] not in ORACLE_DIAGNOSES:
            continue
        where = sentence.split(" — ", 1)[1].split(": no lint finding", 1)[0]
        names = re.findall(r"`([^`]+)`", where.split(" (", 1)[0]) or ["the command"]
        for name in names:
            if diagnosis["code"] != "one-kernel-modules" or name in split:
                add(diagnosis["code"], f"{name} (confirm)")

    expected = {(path, line, code) for path, line, code, _ in expected_findings(fixture)}
    confirmed: dict[str, set[str]] = {}  # module -> rules of expected findings confirmed on it
    for finding in measurement.confirm["findings"]:
        key = (Path(finding["path"]).as_posix(), finding["range"]["start"]["line"] + 1, finding["code"])
        if key not in expected:
            continue
        for evidence in finding.get("evidence", []):
            if evidence["summary"].startswith("confirmed:"):
                confirmed.setdefault(evidence["module"] or "", set()).add(finding["code"])
    for diagnosis in report["diagnoses"]:
        code = diagnosis["code"]
        if code not in ORACLE_DIAGNOSES or not diagnosis["problem"]:
            continue
        names = diagnosis["modules"] or [""]
        if code == "one-kernel-modules":
            names = [n for n in names if n in split]
        fitting = MECHANISM_RULES[code]
        for name in names:
            rules = confirmed.get(name, set()) if name else set().union(*confirmed.values(), set())
            if not rules & fitting:
                add(code, f"{name or 'the command'} (needs an expected {'/'.join(sorted(fitting))} finding)")
    return {code: names for code, names in left.items() if names}


def unmeasured_claims(measurement: Measurement) -> list[str]:
    """Findings whose message claims builds that the measurement did not confirm, or claims
    that nothing is rebuilt where the probe measured the module's hash change."""
    unmeasured = []
    churned = {m["name"]: len(m["hashes"]) for m in measurement.report["modules"] if m["hash_churn"]}
    for finding in measurement.confirm["findings"]:
        if NO_REBUILD_CLAIM.search(finding["message"]):
            for evidence in finding.get("evidence", []):
                if evidence["module"] in churned:
                    line = finding["range"]["start"]["line"] + 1
                    unmeasured.append(
                        f"{finding['path']}:{line} {finding['code']} says nothing is rebuilt, but "
                        f"`{evidence['module']}` was measured with {churned[evidence['module']]} hashes"
                    )
        if finding["code"] in GPU_ONLY_RULES or not BUILD_CLAIM.search(finding["message"]):
            continue
        if not any(e["summary"].startswith("confirmed:") for e in finding.get("evidence", [])):
            seen = "; ".join(e["summary"] for e in finding.get("evidence", [])) or "no measured module matched"
            line = finding["range"]["start"]["line"] + 1
            unmeasured.append(f"{finding['path']}:{line} {finding['code']}: {finding['message'][:140]} [{seen}]")
    return unmeasured


@pytest.mark.warp
@pytest.mark.parametrize("fixture", _params(PROBE_FIXTURES, KNOWN_ORACLE_GAPS))
def test_confirm_explains_every_measured_problem(fixture: Fixture, measurements):
    measurement = measurements[fixture.name].result(timeout=PROBE_TIMEOUT_S * 2)
    unexplained = unexplained_modules(measurement, fixture)
    unmeasured = unmeasured_claims(measurement)
    assert not unexplained and not unmeasured, (
        f"{fixture.name}: {fixture.description}\n"
        f"measured, no finding explains it: {unexplained or '(none)'}\n"
        "claims builds, not measured:\n  " + ("\n  ".join(unmeasured) or "(none)") + "\n"
        f"modules:\n{module_summary(measurement.report)}"
    )


def measured_places(report: dict) -> set[tuple[str, int, str]]:
    """(path, line, code) of every marked code a measured finding stands for (MEASURED_AS)."""
    return {
        (Path(finding["path"]).as_posix(), finding["location"]["line"], code)
        for finding in report["findings"]
        for code in MEASURED_AS.get(finding["code"], {finding["code"]})
    }


def describe_places(places) -> str:
    return "\n".join(f"  {path}:{line} {code}" for path, line, code in sorted(places)) or "  (none)"


def describe_measured(finding: dict) -> str:
    also = ", ".join(f"{a['path']}:{a['line']}" for a in finding.get("also_at") or ())
    where = f"{finding['path']}:{finding['location']['line']} {finding['code']}" + (f" (also at {also})" if also else "")
    return f"  {where}  {finding['message'][:140]}"


@pytest.mark.warp
@pytest.mark.parametrize("fixture", _params(PROBE_FIXTURES, {}))
def test_probe_measures_each_marked_finding_at_its_line(fixture: Fixture, measurements):
    """The probe alone (no lint) names the lines the fixture marks, for every rule it measures:
    the line behind every build is the line the static rule names."""
    report = measurements[fixture.name].result(timeout=PROBE_TIMEOUT_S * 2).report
    on_cuda = any(str(m["device"]).startswith("cuda") for m in report["modules"])
    expected = {
        (path, line, code)
        for path, line, code, _ in expected_findings(fixture)
        if code not in UNMEASURED_RULES and (on_cuda or code not in GPU_ONLY_RULES)
    }
    gaps = KNOWN_MEASUREMENT_GAPS.get(fixture.name, {})
    gap_keys = {(mark.split(":")[0], int(mark.split(":")[1].split()[0]), mark.split()[1]) for mark in gaps}
    assert gap_keys <= expected, f"{fixture.name}: KNOWN_MEASUREMENT_GAPS names unmarked findings: {sorted(gap_keys - expected)}"
    measured = measured_places(report)
    missed = expected - gap_keys - measured
    fixed = gap_keys & measured
    found = "\n".join(describe_measured(f) for f in report["findings"]) or "  (none)"
    assert not missed and not fixed, (
        f"{fixture.name}: {fixture.description}\n"
        f"marked, not measured at that line:\n{describe_places(missed)}\n"
        f"listed in KNOWN_MEASUREMENT_GAPS but measured now (remove the entry):\n{describe_places(fixed)}\n"
        f"measured findings:\n{found}"
    )
    if gaps:
        pytest.xfail("; ".join(f"{mark}: {why}" for mark, why in sorted(gaps.items())))


EXACT_FIXTURES = [f for f in PROBE_FIXTURES if f.measured_exactly]


@pytest.mark.warp
@pytest.mark.parametrize("fixture", _params(EXACT_FIXTURES, {}))
def test_probe_measures_nothing_unmarked_for_exact_rules(fixture: Fixture, measurements):
    """For the rules a fixture lists in ``measured_exactly``, the probe's measured findings are
    the marked ones and no others: where the linter stays silent (a module whose backward code
    a library's tape uses), the run shows no cost either."""
    report = measurements[fixture.name].result(timeout=PROBE_TIMEOUT_S * 2).report
    expected = {(path, line, code) for path, line, code, _ in expected_findings(fixture) if code in fixture.measured_exactly}
    measured = {
        (Path(f["path"]).as_posix(), f["location"]["line"], f["code"]) for f in report["findings"] if f["code"] in fixture.measured_exactly
    }
    unmarked = measured - expected
    found = "\n".join(describe_measured(f) for f in report["findings"] if f["code"] in fixture.measured_exactly) or "  (none)"
    assert not unmarked, (
        f"{fixture.name}: measured, not marked (the linter is silent there):\n{describe_places(unmarked)}\n"
        f"measured findings of {sorted(fixture.measured_exactly)}:\n{found}"
    )


CACHE_DIR_THEN_CLEAR = [f for f in PROBE_FIXTURES if f.name == "cache_dir_then_clear"]


@pytest.mark.warp
@pytest.mark.parametrize("fixture", CACHE_DIR_THEN_CLEAR, ids=lambda f: f.name)
def test_clear_after_own_cache_dir_says_what_the_probe_measures(fixture: Fixture, measurements):
    """WCT008 on ``clear_kernel_cache()`` right after ``wp.config.kernel_cache_dir`` was set:
    the message names the folder that line chose, not Warp's shared cache, and says the next
    run that uses it compiles everything again. The probe measures just that: both runs used
    the program's folder (not the probe's private cache), the clear ran at the marked line,
    and the warm run built again every module the cold run built."""
    setup = (fixture.path / "sweep/setup.py").read_text(encoding="utf-8").splitlines()
    pointed = next(n for n, line in enumerate(setup, 1) if "wp.config.kernel_cache_dir =" in line)
    cleared = next(n for n, line in enumerate(setup, 1) if "wp.clear_kernel_cache()" in line)
    (finding,) = [f for f in lint_findings(fixture) if f["code"] == "WCT008"]
    assert (finding["path"], finding["location"]["line"]) == ("sweep/setup.py", cleared)
    assert f"line {pointed} pointed `wp.config.kernel_cache_dir` at" in finding["message"]
    assert "the next run that uses that folder compiles all of its modules" in finding["message"]
    assert "shared" not in finding["message"]

    report = measurements[fixture.name].result(timeout=PROBE_TIMEOUT_S * 2).report
    folder = (fixture.path / "build" / "kernel-cache").resolve()
    for run in ("cold", "warm"):
        dirs = report["samples"][0][run]["cache_dirs"]
        assert dirs and all(Path(d).resolve().is_relative_to(folder) for d in dirs), (run, dirs)
    (removal,) = report["samples"][0]["cold"]["cache_removals"]
    assert removal["what"] == "clear_kernel_cache"
    assert (Path(removal["frames"][0]["file"]).name, removal["frames"][0]["line"]) == ("setup.py", cleared)
    built = {m["name"] for m in report["modules"] if m["builds"]}
    assert built and built == {m["name"] for m in report["modules"] if m["warm_builds"]}


# ---------------------------------------------------------------- the corpus itself


def test_corpus_covers_every_rule_both_ways():
    """Every rule of the DESIGN table has a fixture that expects it and one marked silent for it."""
    rules = {f"WCT{n:03d}" for n in range(1, 15)}
    expected = {key[2] for fixture in FIXTURES for key in expected_findings(fixture)}
    silent = set()
    for fixture in FIXTURES:
        for file in python_files(fixture):
            silent |= set(re.findall(r"#\s*silent:\s*(WCT\d{3})", file.read_text(encoding="utf-8")))
    assert len(FIXTURES) >= 26
    assert rules <= expected, f"no fixture expects {sorted(rules - expected)}"
    assert rules <= silent, f"no fixture marks a deliberately silent place for {sorted(rules - silent)}"


def test_measurement_gaps_name_probe_fixtures_and_measured_rules():
    """KNOWN_MEASUREMENT_GAPS lists probe fixtures only, each mark as "path:line CODE" of a rule
    the probe measures (UNMEASURED_RULES and GPU-only rules are left out by rule)."""
    probe = {f.name for f in PROBE_FIXTURES}
    assert set(KNOWN_MEASUREMENT_GAPS) <= probe, sorted(set(KNOWN_MEASUREMENT_GAPS) - probe)
    for name, gaps in KNOWN_MEASUREMENT_GAPS.items():
        for mark, why in gaps.items():
            assert re.fullmatch(r"[\w/.]+\.py:\d+ WCT\d{3}", mark), f"{name}: bad mark {mark!r}"
            assert mark.split()[1] not in UNMEASURED_RULES | dict.fromkeys(GPU_ONLY_RULES), f"{name}: {mark}"
            assert why, f"{name}: {mark} needs a reason"


def test_markers_sit_on_code_lines():
    """An ``# expect:`` comment on a line of its own would expect a finding on a comment."""
    for fixture in FIXTURES:
        for file in python_files(fixture):
            for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                if EXPECT_COMMENT.search(line):
                    assert not line.lstrip().startswith("#"), f"{file}:{number}: marker on a comment line"
