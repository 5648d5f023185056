"""The probe: run a command in isolated Warp/CUDA caches and measure its module builds.

Never imports Warp in this process (the measured command's environment provides it) and
never imports the analyzer or pygls. Public API, stable for the language server:

* :func:`warp_ct.probe.measure.run_measure` -> :class:`warp_ct.probe.report.ProbeReport`
* :meth:`ProbeReport.to_json_dict` / :meth:`ProbeReport.from_json_dict`
* :func:`warp_ct.probe.html.write_html`, :func:`warp_ct.probe.text.render_text`
* :func:`warp_ct.probe.compare.compare_reports`
* :func:`warp_ct.probe.levers.run_levers` -> :class:`warp_ct.probe.levers.Ledger`
  (``to_json_dict``, ``load_ledger``, ``render_ledger_text``, ``html.write_levers_html``)
* :class:`warp_ct.probe.errors.ProbeError` (``exit_code``) and its subclasses,
  :class:`~warp_ct.probe.errors.ProbeCancelled` among them.

Submodules are imported lazily, so ``import warp_ct.probe`` costs nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Ledger", "ProbeCancelled", "ProbeError", "ProbeReport", "render_text", "run_levers", "run_measure", "write_html"]

_EXPORTS = {
    "run_measure": "warp_ct.probe.measure",
    "run_levers": "warp_ct.probe.levers",
    "Ledger": "warp_ct.probe.levers",
    "ProbeReport": "warp_ct.probe.report",
    "write_html": "warp_ct.probe.html",
    "render_text": "warp_ct.probe.text",
    "ProbeError": "warp_ct.probe.errors",
    "ProbeCancelled": "warp_ct.probe.errors",
}


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'warp_ct.probe' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name), name)
