"""The rule registry: every ``wctNNN_<name>.py`` module in this package defines one Rule."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from warp_ct.analyzer.rules.base import Rule


@lru_cache(maxsize=1)
def all_rules() -> tuple[Rule, ...]:
    """One instance of every rule, ordered by code."""
    found: dict[str, Rule] = {}
    for info in pkgutil.iter_modules(__path__):
        if not (info.name.startswith("wct") and info.name[3:6].isdigit()):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule and value.__module__ == module.__name__:
                if value.code in found:
                    raise RuntimeError(f"two rules claim {value.code}")
                found[value.code] = value()
    return tuple(found[code] for code in sorted(found))


def get_rule(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    for rule in all_rules():
        if rule.code == key.upper() or rule.name == key.lower():
            return rule
    return None
