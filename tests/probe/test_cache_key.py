"""cache-key: built on wp.get_cpu_kernel_cache_key() in a child interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.probe.conftest import ROOT

pytestmark = pytest.mark.warp

OLD_WARP = Path("/tmp/warp118")  # optional: pip install --target /tmp/warp118 warp-lang==1.18.*


def _cache_key(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "warp_ct.probe", "cache-key", *args], cwd=ROOT, capture_output=True, text=True, env=env
    )


def test_key_names_the_cpu_target_and_hashes_files(tmp_path):
    import importlib.metadata

    version = importlib.metadata.version("warp-lang")
    plain = _cache_key()
    assert plain.returncode == 0, plain.stderr
    key = plain.stdout.strip()
    assert key.startswith(f"{version}-") and len(key.split("-")) >= 4
    generic = _cache_key("--cpu-compiler-flags=")
    assert generic.returncode == 0 and generic.stdout.strip() != ""
    source = tmp_path / "deps.txt"
    source.write_text("warp-lang==1\n")
    with_files = _cache_key(str(source)).stdout.strip()
    assert with_files.startswith(key + "-")
    source.write_text("warp-lang==2\n")
    assert _cache_key(str(source)).stdout.strip() != with_files


@pytest.mark.skipif(not (OLD_WARP / "warp").is_dir(), reason="no pre-1.19 Warp at /tmp/warp118")
def test_old_warp_is_a_clear_error_or_an_explicit_fallback():
    env = dict(os.environ, PYTHONPATH=str(OLD_WARP))
    refused = _cache_key(env=env)
    assert refused.returncode == 5 and "1.19" in refused.stderr and "Traceback" not in refused.stderr
    fallback = _cache_key("--allow-fallback", env=env)
    assert fallback.returncode == 0 and fallback.stdout.strip().endswith("-fallback")
