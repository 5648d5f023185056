"""The fixture projects beside this file are programs to lint and measure, not test modules."""

from pathlib import Path

collect_ignore = [p.name for p in Path(__file__).parent.iterdir() if (p / "fixture.toml").is_file()]
