"""``python -m warp_ct.probe probe measure -- CMD…``: the probe's commands without ``warp_ct.cli``."""

from warp_ct.probe.commands import main

raise SystemExit(main())
