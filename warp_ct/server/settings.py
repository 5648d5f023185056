"""Editor settings: parsing, validation, and merging over the workspace's ``[tool.warp-ct]``.

The settings object (``initializationOptions``, ``workspace/didChangeConfiguration``'s
``settings`` either as is or wrapped as ``{"warpCt": {...}}``, or the ``warpCt`` section
pulled with ``workspace/configuration``)::

    {"select": ["WCT"], "ignore": [], "severity": {"WCT003": "error"},
     "probeCommand": ["python", "train.py"], "samples": 3, "lintOnChange": true,
     "targetWarpVersion": null, "debounceMs": 50, "cudaArch": "86,90"}

Empty values (``[]``, ``{}``, ``null``, ``""``) mean "not set": the pyproject's value stays.
Unknown keys are ignored (clients send their own keys in the same section, e.g. an
interpreter path); known keys with bad values raise :class:`SettingsError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warp_ct.config import Config, ConfigError, config_from_mapping, load_config

SECTION = "warpCt"
# Keystroke-to-squiggle is budgeted at 150 ms p95 (DESIGN.md), analysis included. A change that
# comes alone (the previous one was more than this long ago) is analysed at once; changes that come
# faster (key repeat at ~30 ms, a burst of edits) wait until this long after the last one, so that
# a burst is analysed once. See WarpCtServer.change_document.
DEFAULT_DEBOUNCE_MS = 50
DEFAULT_SAMPLES = 3
# Each sample runs the measured command twice (cold, warm): a hundred is hours for a real
# program, and more is a typo (10**9 was accepted and would have run for ever).
MAX_SAMPLES = 100
_MAX_DEBOUNCE_MS = 10_000


class SettingsError(ValueError):
    """A setting with a bad value; the message names the key."""


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()
    probe_command: tuple[str, ...] = ()
    samples: int = DEFAULT_SAMPLES
    lint_on_change: bool = True
    target_warp_version: str | None = None
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    cuda_archs: tuple[int, ...] = ()  # "Measure compile time" also compiles CUDA for these (probe --cuda-arch)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def analyzer_mapping(self) -> dict[str, Any]:
        """The ``[tool.warp-ct]``-shaped overrides these settings make (only those set)."""
        mapping: dict[str, Any] = {}
        if self.select:
            mapping["select"] = list(self.select)
        if self.ignore:
            mapping["ignore"] = list(self.ignore)
        if self.severity:
            mapping["severity"] = dict(self.severity)
        if self.target_warp_version:
            mapping["target-warp-version"] = self.target_warp_version
        return mapping


def unwrap(value: Any) -> dict[str, Any] | None:
    """The settings object inside a didChangeConfiguration payload (None when absent)."""
    if not isinstance(value, dict):
        return None
    for key in (SECTION, "warp-ct", "warp_ct"):
        inner = value.get(key)
        if isinstance(inner, dict):
            return inner
    return value


def _string_list(value: Any, key: str, *, upper: bool = False) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [v for v in re.split(r"[\s,]+", value) if v]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"setting {key!r} must be a list of strings, got {value!r}")
    items = tuple(v.strip() for v in value if v.strip())
    return tuple(v.upper() for v in items) if upper else items


def parse_settings(data: dict[str, Any] | None, base: Settings | None = None) -> Settings:
    """Settings from a client mapping; keys absent from ``data`` keep ``base``'s values."""
    base = base or Settings()
    if data is None:
        return base
    if not isinstance(data, dict):
        raise SettingsError(f"settings must be an object, got {type(data).__name__}")
    values: dict[str, Any] = {
        "select": base.select,
        "ignore": base.ignore,
        "severity": base.severity,
        "probe_command": base.probe_command,
        "samples": base.samples,
        "lint_on_change": base.lint_on_change,
        "target_warp_version": base.target_warp_version,
        "debounce_ms": base.debounce_ms,
        "cuda_archs": base.cuda_archs,
    }
    for key, value in data.items():
        if key == "select":
            values["select"] = _string_list(value, key, upper=True)
        elif key == "ignore":
            values["ignore"] = _string_list(value, key, upper=True)
        elif key == "severity":
            if value is None:
                values["severity"] = ()
                continue
            if not isinstance(value, dict):
                raise SettingsError(f"setting 'severity' must be an object of code -> level, got {value!r}")
            levels = []
            for code, level in value.items():
                if not isinstance(level, str):
                    raise SettingsError(f"setting 'severity.{code}' must be a string, got {level!r}")
                levels.append((str(code).upper(), level))
            values["severity"] = tuple(levels)
        elif key == "probeCommand":
            if isinstance(value, str):
                import shlex

                value = shlex.split(value)
            values["probe_command"] = _string_list(value, key)
        elif key == "samples":
            if value is None:
                values["samples"] = DEFAULT_SAMPLES
                continue
            whole = not isinstance(value, bool) and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))
            if not whole or not 1 <= value <= MAX_SAMPLES:
                raise SettingsError(f"setting 'samples' must be a whole number from 1 to {MAX_SAMPLES}, got {value!r}")
            values["samples"] = int(value)
        elif key == "lintOnChange":
            if value is None:
                values["lint_on_change"] = True
                continue
            if not isinstance(value, bool):
                raise SettingsError(f"setting 'lintOnChange' must be true or false, got {value!r}")
            values["lint_on_change"] = value
        elif key == "targetWarpVersion":
            if value in (None, ""):
                values["target_warp_version"] = None
                continue
            if not isinstance(value, str) or not re.fullmatch(r"\d+(\.\d+){0,2}", value.strip()):
                raise SettingsError(f"setting 'targetWarpVersion' must be a version like \"1.16\", got {value!r}")
            values["target_warp_version"] = value.strip()
        elif key == "debounceMs":
            if value is None:
                values["debounce_ms"] = DEFAULT_DEBOUNCE_MS
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= _MAX_DEBOUNCE_MS:
                raise SettingsError(f"setting 'debounceMs' must be a number of milliseconds (0-{_MAX_DEBOUNCE_MS}), got {value!r}")
            values["debounce_ms"] = int(value)
        elif key == "cudaArch":
            from warp_ct.probe.cuda import parse_cuda_archs

            try:
                values["cuda_archs"] = parse_cuda_archs(value)
            except ValueError as exc:
                raise SettingsError(f"setting 'cudaArch': {exc}") from None
        # any other key belongs to the client (interpreter path, trace level...): ignored
    settings = Settings(**values, raw=dict(data))
    # Validate the analyzer part now, so a bad code is rejected when the setting arrives.
    try:
        config_from_mapping(settings.analyzer_mapping(), origin="editor settings", root=Path.cwd())
    except ConfigError as exc:
        raise SettingsError(str(exc).replace("[tool.warp-ct]", "the editor settings")) from None
    return settings


def build_config(root: Path, settings: Settings) -> tuple[Config, list[str]]:
    """The folder's ``[tool.warp-ct]`` with the editor settings on top, and any problems.

    A broken pyproject is reported and replaced by the defaults; settings were validated
    when they arrived.
    """
    problems: list[str] = []
    try:
        base = load_config(root)
    except ConfigError as exc:
        problems.append(f"{exc}. Using the default configuration until it is fixed.")
        base = Config(root=root)
    problems.extend(base.warnings)  # ``[tool.warp_ct]`` and the like: what ``warp-ct lint`` warns about
    mapping = settings.analyzer_mapping()
    if not mapping:
        return base, problems
    try:
        config = config_from_mapping(mapping, origin="editor settings", root=base.root, base=base)
    except ConfigError as exc:  # validated earlier; kept for safety
        problems.append(str(exc))
        return base, problems
    return config, problems
