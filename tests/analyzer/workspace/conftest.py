"""Four independent projects for tests/analyzer/test_scope.py: code to lint, not tests to run
(lib/tests has a conftest.py that turns Warp's backward code off: never loaded here)."""

from pathlib import Path

collect_ignore = [p.name for p in Path(__file__).parent.iterdir() if p.is_dir()]
