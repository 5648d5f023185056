"""run_lint: the result cache and parallel workers never change what is reported."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from warp_ct.analyzer import batch, cache_signing, parallel
from warp_ct.analyzer.batch import run_lint
from warp_ct.config import Config

KERNEL_FILE = '''import warp as wp

@wp.kernel(module_options={{"enable_backward": False}})
def scale{i}(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


def run{i}(a):
    wp.launch(scale{i}, dim=a.shape[0], inputs=[a, 2.0], block_dim={block})


def fresh{i}():
    wp.clear_kernel_cache()  # a tree rule's finding (WCT008): these files need their trees
'''


def _project(root: Path, count: int = 10) -> Path:
    pkg = root / "pkg"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    for i in range(count):
        (pkg / f"mod{i:02d}.py").write_text(KERNEL_FILE.format(i=i, block=64 * (1 + i % 3)), encoding="utf-8")
    (pkg / "plain.py").write_text("x = 1\n", encoding="utf-8")
    (pkg / "broken.py").write_text("import warp as wp\ndef f(:\n", encoding="utf-8")
    return pkg


def _dump(results):
    return [(r.path, [f.to_dict() for f in r.findings], r.notes) for r in results]


def _config(root: Path) -> Config:
    return Config(select=("ALL",), root=root)


def test_cache_hits_are_identical_and_skip_work(tmp_path: Path) -> None:
    pkg = _project(tmp_path)
    cache = tmp_path / ".warp_ct_cache"
    cold = run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    assert batch.last_stats.cache_hits == 0
    assert any(r.findings for r in cold)
    warm = run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    assert batch.last_stats.cache_hits == len(warm)
    assert batch.last_stats.trees == 0
    assert _dump(warm) == _dump(cold)
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_cache_key_covers_content_config_and_project_facts(tmp_path: Path) -> None:
    pkg = _project(tmp_path, count=3)
    cache = tmp_path / "c"
    run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    # Content change of one file: at least that file misses (others too when a rule's
    # project summary keeps the text, as lazy summaries do).
    target = pkg / "mod00.py"
    target.write_text(target.read_text() + "\n# a comment\n", encoding="utf-8")
    run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    assert batch.last_stats.cache_hits <= batch.last_stats.files - 1
    run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    assert batch.last_stats.cache_hits == batch.last_stats.files
    # Another configuration: everything misses.
    other = Config(select=("WCT005",), root=tmp_path)
    results = run_lint([str(pkg)], other, cache_dir=cache)
    assert batch.last_stats.cache_hits == 0
    assert {f.rule for r in results for f in r.findings} <= {"WCT005", "WCT900"}
    # A new import (a project-level fact) anywhere: every file misses.
    (pkg / "plain.py").write_text("import os\nx = 1\n", encoding="utf-8")
    run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    assert batch.last_stats.cache_hits == 0


def test_a_warm_run_over_an_unchanged_project_summarises_no_file(tmp_path: Path, monkeypatch) -> None:
    pkg = _project(tmp_path, count=3)
    cache = tmp_path / "c"
    cold = run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)

    def summarised(*args, **kwargs):
        raise AssertionError("a file was summarised on a warm run")

    monkeypatch.setattr("warp_ct.analyzer.project.summarize", summarised)
    warm = run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    assert _dump(warm) == _dump(cold)
    assert batch.last_stats.cache_hits == len(warm)


def test_an_edit_of_a_file_not_named_invalidates_the_named_ones(tmp_path: Path) -> None:
    pkg = _project(tmp_path, count=3)
    cache = tmp_path / "c"
    named = [str(pkg / "mod00.py")]
    run_lint(named, _config(tmp_path), cache_dir=cache)
    run_lint(named, _config(tmp_path), cache_dir=cache)
    assert batch.last_stats.cache_hits == 1
    other = pkg / "mod01.py"  # read for the model only: its content is part of the key
    other.write_text(other.read_text() + "\n# a comment\n", encoding="utf-8")
    run_lint(named, _config(tmp_path), cache_dir=cache)
    assert batch.last_stats.cache_hits == 0


def _stored(entry: Path) -> dict:
    """A result entry's contents (entries are signed with the user's key, ``cache_signing``)."""
    payload = cache_signing.verified_payload(cache_signing.user_key(), entry.read_bytes())
    assert payload is not None
    return json.loads(payload)


def test_corrupt_entries_are_ignored_and_rewritten(tmp_path: Path) -> None:
    pkg = _project(tmp_path, count=3)
    cache = tmp_path / "c"
    cold = run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    (entry,) = sorted((cache / "v1").rglob("*.json"))  # one per project
    stored = _stored(entry)
    first, second = sorted(stored)[:2]
    stored[first]["path"] = "elsewhere.py"  # a result for another file: a miss
    del stored[second]
    entry.write_bytes(cache_signing.sign(cache_signing.user_key(), json.dumps(stored).encode()))
    again = run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    assert _dump(again) == _dump(cold)
    assert batch.last_stats.cache_hits == batch.last_stats.files - 2
    entry.write_bytes(cache_signing.sign(cache_signing.user_key(), b"{not json"))
    again = run_lint([str(pkg)], _config(tmp_path), cache_dir=cache)
    assert _dump(again) == _dump(cold)
    assert batch.last_stats.cache_hits == 0
    assert len(_stored(entry)) == len(cold)  # rewritten whole
    assert not list((cache / "v1").rglob(".tmp-*"))


def test_files_linted_one_run_after_another_share_the_projects_entry(tmp_path: Path) -> None:
    pkg = _project(tmp_path, count=3)
    cache = tmp_path / "c"
    run_lint([str(pkg / "mod00.py")], _config(tmp_path), cache_dir=cache)
    run_lint([str(pkg / "mod01.py")], _config(tmp_path), cache_dir=cache)
    run_lint([str(pkg / "mod00.py"), str(pkg / "mod01.py")], _config(tmp_path), cache_dir=cache)
    assert batch.last_stats.cache_hits == 2
    assert len(list((cache / "v1").rglob("*.json"))) == 1


def test_unwritable_cache_degrades_to_no_cache(tmp_path: Path) -> None:
    pkg = _project(tmp_path, count=2)
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("")
    results = run_lint([str(pkg)], _config(tmp_path), cache_dir=blocker)
    assert any(r.findings for r in results)


def test_parallel_output_equals_serial(tmp_path: Path) -> None:
    pkg = _project(tmp_path, count=12)
    order: list[str] = []
    serial = run_lint([str(pkg)], _config(tmp_path), jobs=1)
    par = run_lint([str(pkg)], _config(tmp_path), jobs=2, on_file=lambda r: order.append(r.path))
    assert batch.last_stats.jobs == 2
    assert _dump(par) == _dump(serial)
    assert order == [r.path for r in serial]
    assert order == sorted(order)


def _die(indices):  # runs in a worker
    os._exit(3)


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_worker_crash_falls_back_to_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = _project(tmp_path, count=10)
    serial = run_lint([str(pkg)], _config(tmp_path), jobs=1)
    monkeypatch.setattr(parallel, "_lint_chunk", _die)
    par = run_lint([str(pkg)], _config(tmp_path), jobs=2)
    assert _dump(par) == _dump(serial)


def test_a_batch_lets_go_of_its_project_when_it_returns(tmp_path, monkeypatch):
    """A batch's model is millions of objects: kept alive by astroid's import hook until
    the interpreter exits, freeing them made ``warp-ct lint`` of a large corpus take seconds
    after its report was out."""
    import gc
    import weakref

    from warp_ct.analyzer.project import Project

    made: list = []
    real_init = Project.__init__

    def remember(self) -> None:
        real_init(self)
        made.append(weakref.ref(self))

    monkeypatch.setattr(Project, "__init__", remember)
    results = run_lint([str(_project(tmp_path, count=3))], Config(root=tmp_path))
    assert any(r.findings for r in results)
    gc.collect()
    assert made and all(ref() is None for ref in made)


def test_an_edit_extracts_only_the_edited_files_facts_again(tmp_path: Path) -> None:
    """A file linted alone reads its project for the model: the facts of the files read only
    for it are kept, so after an edit elsewhere only the named and the edited file are
    extracted again (the result cache misses on every file once any file changed)."""
    pkg = _project(tmp_path)
    cache = tmp_path / ".warp_ct_cache"
    whole = tmp_path / "whole_cache"
    run_lint([str(pkg)], _config(tmp_path), cache_dir=whole)
    assert not (whole / "v1" / "facts").exists()  # the whole project named: nothing kept
    run_lint([str(pkg / "mod00.py")], _config(tmp_path), cache_dir=cache)
    (pkg / "mod03.py").write_text(KERNEL_FILE.format(i=3, block=512), encoding="utf-8")
    edited = run_lint([str(pkg / "mod00.py")], _config(tmp_path), cache_dir=cache)
    in_program = 11  # the kernel files and broken.py (it mentions warp); plain.py is not read for the model
    assert batch.last_stats.cache_hits == 0
    assert batch.last_stats.facts_hits == in_program - 2  # not mod00 (named) nor mod03 (edited)
    assert _dump(edited) == _dump(run_lint([str(pkg / "mod00.py")], _config(tmp_path)))


WORKSPACE = Path(__file__).resolve().parents[1] / "analyzer" / "workspace"  # four projects


@pytest.fixture
def pools_for_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers for every scope, however small (the thresholds are for real projects)."""
    monkeypatch.setattr(parallel, "MIN_PARALLEL_FACTS_CHARS", 0)
    monkeypatch.setattr(parallel, "MIN_PARALLEL_FACTS_CHARS_WARM", 0)
    monkeypatch.setattr(parallel, "MIN_PARALLEL_PROJECT_CHARS", 0)
    monkeypatch.setattr(parallel, "MIN_PARALLEL_FILES", 1)
    monkeypatch.setattr(batch, "MIN_PARALLEL_FILES", 1)
    monkeypatch.setattr(batch, "MIN_PARALLEL_GATED_CHARS", 0)


def test_every_jobs_count_gives_the_same_output_on_a_multi_project_workspace(pools_for_any_size, monkeypatch) -> None:
    facts_pools: list[int] = []
    real = parallel.WorkerPool.extract
    monkeypatch.setattr(parallel.WorkerPool, "extract", lambda *a: facts_pools.append(real(*a)) or facts_pools[-1])
    config = Config(select=("ALL",), root=WORKSPACE)
    serial = run_lint([str(WORKSPACE)], config, jobs=1)
    assert batch.last_stats.jobs == 1
    assert any(r.findings for r in serial)
    for jobs in (2, 3):
        order: list[str] = []
        par = run_lint([str(WORKSPACE)], config, jobs=jobs, on_file=lambda r: order.append(r.path))
        assert batch.last_stats.jobs > 1  # the pools ran
        assert facts_pools and max(facts_pools) == jobs
        assert _dump(par) == _dump(serial)
        assert order == [r.path for r in serial]
        assert not __import__("multiprocessing").active_children()  # the run's workers are gone


def test_one_pool_serves_every_project_of_a_run(tmp_path: Path, pools_for_any_size, monkeypatch) -> None:
    started: list[int] = []
    real = parallel.WorkerPool._start
    monkeypatch.setattr(parallel.WorkerPool, "_start", lambda pool: started.append(pool.jobs) or real(pool))
    served: list[int] = []
    extract = parallel.WorkerPool.extract
    monkeypatch.setattr(parallel.WorkerPool, "extract", lambda *a: served.append(extract(*a)) or served[-1])
    log = tmp_path / "who.txt"
    _record_linting_process(monkeypatch, log)
    run_lint([str(WORKSPACE)], Config(select=("ALL",), root=WORKSPACE), jobs=2)
    assert started == [2]
    in_workers = log.read_text(encoding="utf-8").split().count("worker")
    # Projects linted by a worker, and projects whose facts the workers helped extract.
    assert in_workers + served.count(2) >= 2


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_a_worker_helps_with_the_parents_facts_before_it_takes_a_project(pools_for_any_size, monkeypatch) -> None:
    """The parent's model waits for its facts: an idle worker's first job is a chunk of
    them, and the projects waiting come after (newton's facts, then warp-lang)."""
    jobs: list[str] = []
    real = parallel.WorkerPool._hand_out

    def recording(pool, connection):
        real(pool, connection)
        job = pool._busy.get(connection)
        if job is not None and (not jobs or jobs[-1][1] is not job):
            jobs.append(("project" if isinstance(job, int) else "facts", job))

    monkeypatch.setattr(parallel.WorkerPool, "_hand_out", recording)
    config = Config(select=("ALL",), root=WORKSPACE)
    serial = run_lint([str(WORKSPACE)], config, jobs=1)
    assert _dump(run_lint([str(WORKSPACE)], config, jobs=2)) == _dump(serial)
    kinds = [kind for kind, _job in jobs]
    assert kinds[0] == "facts" and "project" in kinds


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_a_facts_worker_crash_leaves_the_facts_to_the_model(tmp_path: Path, pools_for_any_size, monkeypatch) -> None:
    pkg = _project(tmp_path, count=10)
    serial = run_lint([str(pkg)], _config(tmp_path), jobs=1)
    monkeypatch.setattr(parallel, "_facts_chunk", _die)
    par = run_lint([str(pkg)], _config(tmp_path), jobs=2)
    assert _dump(par) == _dump(serial)


def test_facts_extracted_by_workers_are_the_parents(tmp_path: Path, pools_for_any_size) -> None:
    """The facts cache: hits counted and entries written the same from workers."""
    pkg = _project(tmp_path)
    cache = tmp_path / ".warp_ct_cache"
    run_lint([str(pkg / "mod00.py")], _config(tmp_path), cache_dir=cache, jobs=2)
    (pkg / "mod03.py").write_text(KERNEL_FILE.format(i=3, block=512), encoding="utf-8")
    edited = run_lint([str(pkg / "mod00.py")], _config(tmp_path), cache_dir=cache, jobs=2)
    assert batch.last_stats.facts_hits == 11 - 2
    assert _dump(edited) == _dump(run_lint([str(pkg / "mod00.py")], _config(tmp_path), jobs=1))


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_an_interrupt_while_workers_extract_stops_them_at_once(tmp_path: Path, pools_for_any_size, monkeypatch) -> None:
    import multiprocessing

    from warp_ct.analyzer.project import Project

    pkg = _project(tmp_path, count=12)
    real = Project.facts
    calls = []

    def interrupted(self, summary):
        calls.append(summary.path)
        if len(calls) == 3:  # the parent's own share, with the workers busy
            raise KeyboardInterrupt
        return real(self, summary)

    monkeypatch.setattr(Project, "facts", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_lint([str(pkg)], _config(tmp_path), jobs=2)
    assert not multiprocessing.active_children()


def _record_linting_process(monkeypatch: pytest.MonkeyPatch, log: Path, *, in_worker=None) -> None:
    """Each project's root and the process that linted it, appended to ``log`` (a worker's
    memory is its own); ``in_worker(scope)`` runs first in a worker process."""
    parent = os.getpid()
    real = batch._lint_scope

    def recording(scope, *args, **kwargs):
        if os.getpid() != parent and in_worker is not None:
            in_worker(scope)
        with log.open("a", encoding="utf-8") as out:
            out.write(f"{scope.root.name} {'parent' if os.getpid() == parent else 'worker'}\n")
        return real(scope, *args, **kwargs)

    monkeypatch.setattr(batch, "_lint_scope", recording)


def test_one_process_lints_the_largest_project_first(tmp_path: Path, monkeypatch) -> None:
    """Its peak is the run's: what a smaller project frees before it does not all come back."""
    small, large = tmp_path / "a_small", tmp_path / "b_large"
    for root, count in ((small, 1), (large, 6)):
        (root / "pkg").mkdir(parents=True)
        (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
        for i in range(count):
            (root / "pkg" / f"mod{i}.py").write_text(KERNEL_FILE.format(i=i, block=256), encoding="utf-8")
    log = tmp_path / "who.txt"
    _record_linting_process(monkeypatch, log)
    order: list[str] = []
    results = run_lint([str(small), str(large)], Config(root=tmp_path), jobs=1, on_file=lambda r: order.append(r.path))
    assert [line.split()[0] for line in log.read_text(encoding="utf-8").splitlines()] == ["b_large", "a_small"]
    assert order == [r.path for r in results] == sorted(order)  # still reported in path order


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_workers_lint_whole_projects_beside_the_parents(tmp_path: Path, pools_for_any_size, monkeypatch) -> None:
    config = Config(select=("ALL",), root=WORKSPACE)
    serial = run_lint([str(WORKSPACE)], config, jobs=1)
    log = tmp_path / "who.txt"
    _record_linting_process(monkeypatch, log)
    par = run_lint([str(WORKSPACE)], config, jobs=2)
    assert _dump(par) == _dump(serial)
    lines = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    who = dict(lines)
    assert len(who) == len(lines)  # each project linted once
    assert {"taper", "cliapp", "lib", "bwpkg"} <= set(who)  # (and the repository's, for the top conftest.py)
    assert {"parent", "worker"} <= set(who.values())


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_a_project_whose_worker_dies_is_linted_by_the_parent(tmp_path: Path, pools_for_any_size, monkeypatch) -> None:
    config = Config(select=("ALL",), root=WORKSPACE)
    serial = run_lint([str(WORKSPACE)], config, jobs=1)
    log = tmp_path / "who.txt"
    _record_linting_process(monkeypatch, log, in_worker=lambda scope: os._exit(3))
    order: list[str] = []
    par = run_lint([str(WORKSPACE)], config, jobs=2, on_file=lambda r: order.append(r.path))
    assert _dump(par) == _dump(serial)
    assert order == [r.path for r in serial]
    assert not __import__("multiprocessing").active_children()


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_an_interrupt_while_workers_lint_projects_stops_them_at_once(tmp_path: Path, pools_for_any_size, monkeypatch) -> None:
    import multiprocessing
    import time

    parent = os.getpid()
    real = batch._lint_scope

    def slow_in_workers_interrupted_here(scope, *args, **kwargs):
        if os.getpid() != parent:
            time.sleep(60)  # busy with its project when the parent is interrupted
        else:
            time.sleep(0.2)  # the workers have their projects by now
            raise KeyboardInterrupt
        return real(scope, *args, **kwargs)

    monkeypatch.setattr(batch, "_lint_scope", slow_in_workers_interrupted_here)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_lint([str(WORKSPACE)], Config(select=("ALL",), root=WORKSPACE), jobs=3)
    assert time.monotonic() - started < 5  # killed, not waited for
    assert not multiprocessing.active_children()
