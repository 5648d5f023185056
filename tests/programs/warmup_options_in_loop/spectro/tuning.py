"""Speed knobs for the filters."""

import warp as wp

_FILTER_MODULES = ("spectro.filters",)


def use_fast_math(enabled: bool = True) -> None:
    for name in _FILTER_MODULES:
        wp.set_module_options({"fast_math": enabled}, module=name)
