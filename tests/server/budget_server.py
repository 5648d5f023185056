"""`warp-ct serve` with the small per-file time budget of tests/perf/generate.py instead of
30 s and a rule that stalls on one file until that budget stops it, to check that the budget
holds on the server's analysis thread (no timer signal reaches it) and that a file running
out of it leaves the others as they are."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.perf.generate import OVER_BUDGET_S, rules_stalling_on_the_slow_file  # noqa: E402
from warp_ct.analyzer.engine import Linter  # noqa: E402
from warp_ct.server import folders  # noqa: E402

folders.Linter = partial(Linter, rules=rules_stalling_on_the_slow_file(), file_budget_s=OVER_BUDGET_S)  # type: ignore[misc]

if __name__ == "__main__":
    from warp_ct.server import main

    raise SystemExit(main())
