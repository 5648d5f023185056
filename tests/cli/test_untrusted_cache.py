"""A cloned repository may commit a ``.warp_ct_cache`` of its own: nothing in it may run code,
hide findings, hang the run or lead writes outside the folder.

Each test lints a real two-file project whose cache sits where a repository would put it
(``.warp_ct_cache`` beside ``pyproject.toml``), replaces every entry a previous run wrote with
a payload, edits the named file so that the results miss and the facts entries are read, and
checks that the payload did nothing and the findings are those of an uncached run."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from warp_ct.analyzer import batch, cache_signing
from warp_ct.analyzer.cache import _FactsUnpickler
from warp_ct.config import load_config

from tests.cli.conftest import WCT005_SOURCE

LIB_SOURCE = """\
import warp as wp

@wp.kernel
def shift(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0
"""
APP_SOURCE = WCT005_SOURCE + "\nfrom lib import shift\n"


class _RunsCode:
    """Unpickling this creates ``marker``: proof that the entry's code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@pytest.fixture
def user_cache(tmp_path, monkeypatch) -> Path:
    """The user's own cache folder (where the signing key lives), outside the project."""
    home = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("WARP_CT_CACHE_DIR", raising=False)
    monkeypatch.setattr(cache_signing, "_KEYS", {})
    return home


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "cloned"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "cloned"\n', encoding="utf-8")
    (root / "lib.py").write_text(LIB_SOURCE, encoding="utf-8")
    (root / "app.py").write_text(APP_SOURCE, encoding="utf-8")
    return root


def _lint(root: Path, cached: bool = True) -> list[tuple[str, int, str]]:
    results = batch.run_lint([str(root / "app.py")], load_config(root), jobs=1,
                             cache_dir=root / ".warp_ct_cache" if cached else None)  # fmt: skip
    return [(f.rule, f.range.start.line, f.message) for r in results for f in r.findings]


def _entries(root: Path) -> list[Path]:
    found = sorted(p for p in (root / ".warp_ct_cache").rglob("*") if p.suffix in (".json", ".pickle"))
    assert any(p.suffix == ".json" for p in found) and any(p.suffix == ".pickle" for p in found)
    return found


def _edit(root: Path) -> None:
    """A change to the named file: every result misses, and the other files' facts are read."""
    with open(root / "app.py", "a", encoding="utf-8") as handle:
        handle.write("# edited\n")


def _forged_key() -> bytes:
    return bytes(range(32))


def _payloads(marker: Path, own_key: bytes) -> dict[str, bytes]:
    code = pickle.dumps(_RunsCode(marker), protocol=pickle.HIGHEST_PROTOCOL)
    no_findings = b'{"x": {"path": "app.py", "findings": []}}'
    return {
        "raw pickle": code,
        "pickle signed with another key": cache_signing.sign(_forged_key(), code),
        # The user's own key leaked: the unpickler still builds nothing but facts.
        "pickle signed with the user's key": cache_signing.sign(own_key, code),
        "results signed with another key": cache_signing.sign(_forged_key(), no_findings),
        "garbage": b"\x00\xff" * 100,
    }


def test_genuine_entries_are_read_so_the_planted_ones_would_be(repo, user_cache) -> None:
    """The planting tests below mean something only if a second run reads the facts entries."""
    first = _lint(repo)
    _edit(repo)
    assert _lint(repo) == first
    assert batch.last_stats.facts_hits >= 1
    key_file = user_cache / "warp-ct" / "cache-key"
    assert key_file.is_file() and not (key_file.stat().st_mode & 0o077)
    assert not any(repo.rglob("cache-key")), "the key never lives in the linted tree"


@pytest.mark.parametrize("kind", ["raw pickle", "pickle signed with another key", "pickle signed with the user's key",
                                  "results signed with another key", "garbage"])  # fmt: skip
def test_planted_entries_run_nothing_and_hide_nothing(repo, user_cache, tmp_path, kind) -> None:
    expected = _lint(repo, cached=False)
    assert expected, "the project has a finding to hide"
    _lint(repo)
    marker = tmp_path / "payload-ran"
    payload = _payloads(marker, cache_signing.user_key())[kind]
    for entry in _entries(repo):
        entry.write_bytes(payload)
    _edit(repo)
    assert _lint(repo) == expected
    assert not marker.exists()
    assert batch.last_stats.facts_hits == 0


def test_entries_that_are_not_regular_files_are_misses(repo, user_cache) -> None:
    """A FIFO would block a read forever, ``/dev/zero`` would fill memory."""
    expected = _lint(repo, cached=False)
    _lint(repo)
    for number, entry in enumerate(_entries(repo)):
        entry.unlink()
        if number % 2:
            os.mkfifo(entry)
        else:
            entry.symlink_to("/dev/zero")
    _edit(repo)
    assert _lint(repo) == expected


def test_a_cache_folder_linked_outside_gets_no_writes(repo, user_cache, tmp_path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".warp_ct_cache").mkdir()
    (repo / ".warp_ct_cache" / "v1").symlink_to(elsewhere)
    expected = _lint(repo, cached=False)
    assert _lint(repo) == expected
    assert "outside the cache folder" in (batch.last_stats.cache_problem or "")
    assert not any(elsewhere.iterdir())


def test_the_unpickler_builds_only_facts() -> None:
    # Protocol 4 resolves dotted names: a path from a fact class to a module's globals.
    dotted = b"\x80\x04\x8c\x16warp_ct.analyzer.facts\x94\x8c\x1cFileFacts.__init__.__globals__\x94\x93\x94."
    for data in (pickle.dumps(os.system), pickle.dumps(print), dotted):
        with pytest.raises(pickle.UnpicklingError):
            _FactsUnpickler(io.BytesIO(data)).load()


def test_the_cli_runs_no_planted_code_and_says_when_it_cannot_cache(repo, tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "WARP_CT_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")
    command = [sys.executable, "-m", "warp_ct", "lint", "--output-format", "concise", "app.py"]

    def lint(**extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, cwd=repo, env={**env, **extra}, capture_output=True, text=True, timeout=120)

    expected = lint()
    assert expected.returncode == 1 and "WCT005" in expected.stdout and not expected.stderr
    marker = tmp_path / "payload-ran"
    code = pickle.dumps(_RunsCode(marker), protocol=pickle.HIGHEST_PROTOCOL)
    for entry in _entries(repo):
        entry.write_bytes(code)
    _edit(repo)
    again = lint()
    assert (again.returncode, again.stdout) == (expected.returncode, expected.stdout)
    assert not marker.exists()

    # No place for the key (the user's cache folder is a file): linted uncached, and told so.
    (tmp_path / "not-a-folder").write_text("", encoding="utf-8")
    uncached = lint(XDG_CACHE_HOME=str(tmp_path / "not-a-folder"))
    assert (uncached.returncode, uncached.stdout) == (expected.returncode, expected.stdout)
    assert uncached.stderr.startswith("warning: cannot read the cache key") and uncached.stderr.count("\n") == 1


def test_a_linked_cache_folder_in_the_project_is_not_used(repo, tmp_path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".warp_ct_cache").symlink_to(elsewhere)
    env = {k: v for k, v in os.environ.items() if k != "WARP_CT_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")
    run = subprocess.run([sys.executable, "-m", "warp_ct", "lint", "app.py"], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 1 and "WCT005" in run.stdout
    assert run.stderr == "warning: .warp_ct_cache is a symbolic link (pass --cache-dir to use it); linted without the cache\n"
    assert not any(elsewhere.iterdir())


def test_facts_with_every_kind_of_constant_are_read_back(repo, user_cache) -> None:
    """``x[...]`` and ``2j`` are pickled through builtins the unpickler must allow."""
    (repo / "lib.py").write_text(LIB_SOURCE + "\nSLICE = LIB[..., 0]\nSCALE = 2j\n", encoding="utf-8")
    first = _lint(repo)
    _edit(repo)
    assert _lint(repo) == first
    assert batch.last_stats.facts_hits == 1
