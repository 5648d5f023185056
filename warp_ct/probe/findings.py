"""Measured findings: the bootstrap's attributed causes as findings of the static rules.

Each ``cause`` record (see ``inject/sitecustomize.py``) says why a real module load happened
and at which user frames. A cause that cost a build becomes a finding of the rule that
predicts it, at the line the static rule would name (tests/programs/README.md, "Where a
finding starts"), with the measured figures in the message:

* ``options`` (``set_module_options`` / ``options.update`` + ``mark_modified`` on a loaded
  module) -> WCT006 at the call that changed the options; when a helper made the change, at
  the call of that helper in the flow that rebuilt the module (the change is ``also_at``);
* ``kernel_added`` / ``function_added`` / ``struct_added`` (defined into a loaded module)
  -> WCT007 at the definition's ``def`` line; a kernel that a factory called once made, at
  that call when the rebuilding flow calls the factory by name (the ``def`` is ``also_at``);
* ``generic_instance`` (a generic kernel instantiated with new types after its module was
  loaded) -> WCT007 at the generic kernel's ``def`` (where the ``wp.overload`` belongs; the
  launch that instantiated it is ``also_at``), or at a late ``wp.overload`` call itself;
* ``block_dim`` (a loaded module loaded again at another block_dim) -> WCT009 at the launch
  (or ``get_suggested_block_size`` / ``force_load`` call) that asked for it;
* ``config`` (a ``wp.config`` option read when a module is hashed -- ``mode``,
  ``optimization_level``, ``use_precompiled_headers`` -- differs from the module's previous
  load and the module was rebuilt with a new hash) -> WCT006 at the last assignment of that
  option (or the call of the helper that made it): for the module it is an option changed
  after load, like ``set_module_options``;
* ``config_ignored`` (a ``wp.config`` option copied when a module is created --
  ``enable_backward``, ``max_unroll``, ``lineinfo`` -- assigned after the module was created,
  and the module was then built with its old value) -> WCT001 at the assignment: no rebuild,
  the value never arrived. Not for Warp's own modules: they exist from ``import warp`` on,
  before any line of the user's could set an option;
* ``cache_removal`` records (``wp.clear_kernel_cache()``, ``wp.clear_lto_cache()``,
  ``shutil.rmtree`` of the kernel cache, ``wp.config.kernel_cache_dir`` set to a temporary
  dir, ``wp.config.cache_kernels = False``) when the warm run rebuilt modules -> WCT008 at the
  call, or, when the call ran at exit, at the ``atexit.register`` line that registered it;
* a module built with backward (adjoint) code whose kernels no ``wp.Tape`` recorded and no
  ``adjoint=True`` launch ran in this run -> WCT010 at the line that asked for that code (a
  kernel's ``enable_backward=True`` decorator, a ``set_module_options`` call before the first
  load: ``backward_option`` causes), else at its first kernel (user files only: an installed
  package's modules are not the user's to configure). A fact of this run: a library's other
  callers may differentiate, which the static rule weighs;
* ``package_build`` (a module of Warp's or a package's kernels built with backward code, and
  the user's call that made the package build it): where that call is ``fem.integrate`` /
  ``fem.interpolate`` and the module takes the call's ``kernel_options`` (the integrand's
  module, warp.fem's dispatch modules), WCT010 at the call, one finding per call, with the fix
  ``kernel_options={"enable_backward": False}``; other package modules stay a note;
* ``captured_global`` (a module loaded again whose kernel or ``wp.func`` hashes a module variable
  under one of its own names, a parameter or loop variable, that was unset or held another
  value at the module's previous load: Warp 1.19 looks such names up among the module's
  globals) -> WCT015 at the first module-scope statement binding that variable (the kernel's
  ``def`` is ``also_at``);
* ``unique_module`` -> WCT002, conservatively: only kernels defined at module scope (not in
  a factory: per-request or closure kernels are what ``module="unique"`` is for), whose
  module options equal those of the other modules built from the same file (no
  ``module_options`` of their own), and only where one file produced at least two such
  one-kernel modules (merging them saves a module's fixed cost) and the run used every kernel
  the file defines at its top (else a shared module would build the unused ones too);
* ``unique_module`` of a kernel whose ``module="unique"`` a factory passed on from a
  parameter (``def make(g, module="unique")``) -> WCT002 at that default when no call passed
  it (else at the call that passed "unique"), where each factory made its kernels before any
  of them was loaded and the file's factories made at least two such modules.

Every finding sits at a line of the user's. A cost that arose inside Warp or an installed
package is placed at the innermost user frame that led to it, with the package named
(``inside `warp.fem` (`interpolate`)``); where no user line can change it (a package's own
module rebuilt by the package, ``wp.map``'s generated kernels) it is a note
(:func:`package_notes`), never a finding in site-packages or ``<string>``. A build is counted
once: causes paid by one build (two kernels added before one launch) are one rebuild, and a
build whose causes sit at two places is counted by the first finding; the other says so.

The items have the shape of ``warp-ct lint --output-format json`` findings (the probe may not
import the analyzer, so the dicts are built here in the same shape) plus
``"origin": "measured"``. Figures come from the first successful sample's cold run, the
milliseconds are medians over samples of the load that paid for the cause.
"""

from __future__ import annotations

import ast
import os
import re
import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from warp_ct.probe.analysis import ModuleIdentity, normalize_kernel_key, shown_module_name
from warp_ct.probe.records import Cause, Frame, ModuleLoad, entry_package, is_user_file, package_of_file
from warp_ct.probe.samples import SampleResult

# Same values as the analyzer's rules (tests/probe/test_attribution.py checks they agree).
DOCS_URL = "https://github.com/warp-ct/warp-ct/blob/main/docs/rules/{code}.md"
RULE_NAMES = {
    "WCT001": "late-global-option",
    "WCT002": "unique-stable-kernel",
    "WCT006": "options-after-load",
    "WCT007": "kernel-after-load",
    "WCT008": "cache-destroyed",
    "WCT009": "block-dim-spread",
    "WCT010": "unused-backward",
    "WCT015": "captured-module-variable",
}
RULE_SEVERITY = {"WCT001": "warning", "WCT002": "info", "WCT006": "warning", "WCT007": "warning", "WCT008": "warning",
                 "WCT009": "warning", "WCT010": "warning", "WCT015": "warning"}  # fmt: skip
CAUSE_RULES = {
    "options": "WCT006",
    "kernel_added": "WCT007",
    "function_added": "WCT007",
    "struct_added": "WCT007",
    "generic_instance": "WCT007",
    "block_dim": "WCT009",
    "config": "WCT006",
    "config_ignored": "WCT001",
    "captured_global": "WCT015",
}
MIN_UNIQUE_MODULES_PER_FILE = 2
_DECORATOR_SPAN = 20  # lines from a first decorator to its def


def _seconds(ms: float) -> str:
    return f"{ms / 1000.0:.2f} s"


LoadKey = tuple[str, "str | None", "int | None"]


def _paid_by(cause: Cause) -> LoadKey:
    """The build that paid for ``cause``: its module, hash and block_dim. Several causes (two
    functions added before one launch) are often paid by one build: count builds by this key."""
    return (cause.module, cause.hash, cause.block_dim)


def _load_ms(ok: Sequence[SampleResult], paid: LoadKey) -> float:
    """Median over samples of the cold load ``paid`` (a :func:`_paid_by` key)."""
    values = []
    for sample in ok:
        for load in sample.cold.loads:
            if (load.module, load.hash, load.block_dim) == paid:
                values.append(load.ms)
                break
    return statistics.median(values) if values else 0.0


def read_lines(path: str, cache: dict[str, list[str] | None]) -> list[str] | None:
    """A source file's lines, read once per ``cache`` (None when it cannot be read)."""
    if path not in cache:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                cache[path] = f.read().splitlines()
        except OSError:
            cache[path] = None
    return cache[path]


def _source_line(path: str, line: int, cache: dict[str, list[str] | None]) -> str | None:
    lines = read_lines(path, cache)
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]


def _display_path(path: str, cwd: str) -> str:
    try:
        relative = os.path.relpath(path, cwd) if cwd else path
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def _finding(rule: str, path: str, line: int, message: str, evidence: dict[str, Any], cwd: str,
             sources: dict[str, list[str] | None], kernel: str | None = None,
             also_at: Sequence[Frame] = ()) -> dict[str, Any]:  # fmt: skip
    text = _source_line(path, line, sources) if line > 0 else None
    start = len(text) - len(text.lstrip()) if text else 0
    end = len(text.rstrip()) if text else 0
    zero = max(line - 1, 0)
    return {
        "code": rule,
        "name": RULE_NAMES[rule],
        "path": _display_path(path, cwd),
        "range": {"start": {"line": zero, "character": start}, "end": {"line": zero, "character": end}},
        "message": message,
        "severity": RULE_SEVERITY[rule],
        "fixes": [],
        "evidence": [evidence],
        "location": {"line": zero + 1, "column": start + 1},
        "end_location": {"line": zero + 1, "column": end + 1},
        "fixable": False,
        "url": DOCS_URL.format(code=rule),
        "origin": "measured",
        # What the finding is about, for joining with static findings (confirm): the module
        # (evidence) and, when one kernel caused it, that kernel's key.
        "kernel": kernel,
        # Other lines the same cause runs through (a cache removed at exit: the removal call
        # inside the function that atexit ran), where a static finding may sit instead.
        "also_at": [{"path": _display_path(f.file, cwd), "line": f.line} for f in also_at],
    }


def measured_key(item: dict[str, Any]) -> tuple[str, str, int, str]:
    """What identifies one measured finding of a report (code, path, line, message): the key
    by which ``confirm``'s join says which measured findings a static finding stands for, and
    the editor leaves those out of its separate measured diagnostics."""
    try:
        line = int(item["location"]["line"])
    except (KeyError, TypeError, ValueError):
        line = int(((item.get("range") or {}).get("start") or {}).get("line", -1)) + 1
    return (str(item.get("code")), str(item.get("path")), line, str(item.get("message")))


def _evidence(summary: str, module: ModuleIdentity | None, name: str, ms: float) -> dict[str, Any]:
    return {
        "summary": summary,
        "module": name,
        "builds": None if module is None else module.loads,
        "distinct_hashes": None if module is None else len(module.hashes),
        "block_dims": [] if module is None else [b for b in module.block_dims if isinstance(b, int)],
        "milliseconds": round(ms, 3),
    }


def _def_line(path: str, line: int, sources: dict[str, list[str] | None]) -> int:
    """The ``def``/``class`` line of a definition whose frame or ``co_firstlineno`` names its
    first decorator (Python reports the decorator's line while it applies it)."""
    lines = read_lines(path, sources)
    if lines is None or not 1 <= line <= len(lines) or not lines[line - 1].lstrip().startswith("@"):
        return line
    for number in range(line, min(line + _DECORATOR_SPAN, len(lines)) + 1):
        text = lines[number - 1].lstrip()
        if text.startswith(("def ", "async def ", "class ")):
            return number
    return line


def _module_binding_line(path: str, name: str, sources: dict[str, list[str] | None]) -> int | None:
    """The first statement of ``path``'s module scope (outside every ``def`` and ``class``) that
    binds ``name``: where the module variable a kernel captured under its own name is made."""
    tree = _tree(path, {}, sources)
    if tree is None:
        return None
    pending = list(tree.body)
    found = []
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) or isinstance(node, ast.expr_context):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == name:
            found.append(node.lineno)
        pending.extend(ast.iter_child_nodes(node))
    return min(found) if found else None


def _caller_in_flow(cause: Cause) -> Frame | None:
    """The innermost frame of the cause that also ran the load that paid for it: the call, in
    the flow that rebuilt the module, of the helper or factory that made the change (None when
    the change was made at import time or outside that flow)."""
    paying = {(f.file, f.function) for f in cause.load_frames}
    for frame in cause.frames:
        if (frame.file, frame.function) in paying:
            return frame
        if frame.function == "<module>":
            return None  # an import is not a call of a helper
    return None


def _calls(frame: Frame, function: str, sources: dict[str, list[str] | None]) -> bool:
    """Whether ``frame``'s line calls ``function`` by name (a property read is no call)."""
    text = _source_line(frame.file, frame.line, sources) or ""
    return re.search(rf"\b{re.escape(function)}\s*\(", text) is not None


def _definition(cause: Cause, loads: Sequence[ModuleLoad], sources: dict[str, list[str] | None]) -> tuple[str, int] | None:
    """(file, def line) of the generic kernel a ``generic_instance`` cause instantiated."""
    key = cause.detail.get("kernel")
    for load in loads:
        if load.module != cause.module:
            continue
        for kernel in load.kernels:
            if kernel.file and kernel.line and kernel.key == key:
                return kernel.file, _def_line(kernel.file, kernel.line, sources)
    line = cause.detail.get("line")
    file = cause.detail.get("file")
    if file and line:
        return str(file), _def_line(str(file), int(line), sources)
    return None


def _place(cause: Cause, loads: Sequence[ModuleLoad], sources: dict[str, list[str] | None],
           additions: dict[tuple[str, str], int]) -> tuple[str, int, str, tuple[Frame, ...]]:  # fmt: skip
    """(file, line, note, also_at): where the user changes what caused the build.

    The places follow the static rules' (tests/programs/README.md): an option change at the
    call, in the flow that rebuilt the module, of the helper that made it (the change itself
    is also_at); a kernel defined after the load at its ``def`` line, but one that a factory
    called once made at that call; a generic kernel's new instance at the kernel's ``def``
    (where the ``wp.overload`` belongs; the launch is also_at). Without a user frame: the
    load's, else the module's kernel, with a note that Warp or a package did it.
    """
    inside = _inside_text(cause.entry)
    if cause.frames and inside:  # the change happened in a package the user's line called: that line
        return cause.frames[0].file, cause.frames[0].line, inside, ()
    path, line, note, also = _place_in_user_code(cause, loads, sources, additions)
    if cause.frames and cause.package:  # an installed package's code between the user's line and Warp
        note += f" inside `{cause.package}`"
    return path, line, note, also


def _place_in_user_code(cause: Cause, loads: Sequence[ModuleLoad], sources: dict[str, list[str] | None],
                        additions: dict[tuple[str, str], int]) -> tuple[str, int, str, tuple[Frame, ...]]:  # fmt: skip
    if cause.frames:
        inner = cause.frames[0]
        if cause.cause in ("options", "config"):
            caller = _caller_in_flow(cause)
            if caller is not None and caller != inner:
                return caller.file, caller.line, f" (in `{inner.function}`, {_where(inner, caller.file)})", (inner,)
            return inner.file, inner.line, "", ()
        if cause.cause in ("kernel_added", "function_added", "struct_added"):
            definition = Frame(inner.file, _def_line(inner.file, inner.line, sources), inner.function)
            once = additions.get((cause.module, str(cause.detail.get("key")))) == 1
            if cause.cause == "kernel_added" and once and "__locals__" in str(cause.detail.get("key")):
                caller = _caller_in_flow(cause)
                if caller is not None and caller != inner and _calls(caller, inner.function, sources):
                    return caller.file, caller.line, "", (definition,)
            return definition.file, definition.line, "", ()
        if cause.cause == "captured_global":
            binding = _module_binding_line(inner.file, str(cause.detail.get("name")), sources)
            definition = Frame(inner.file, _def_line(inner.file, inner.line, sources), inner.function)
            if binding is not None:
                return inner.file, binding, "", (definition,)
            return definition.file, definition.line, "", ()
        if cause.cause == "generic_instance" and not _explicit_overload(cause, sources):
            definition = _definition(cause, loads, sources)
            if definition is not None and definition != (inner.file, inner.line) and is_user_file(definition[0]):
                return definition[0], definition[1], "", (inner,)
        return inner.file, inner.line, "", ()
    by = f" inside package `{cause.package}`" if cause.package else " inside Warp or an installed package"
    if cause.load_frames:
        frame = cause.load_frames[0]
        return frame.file, frame.line, by, ()
    for load in loads:
        if load.module == cause.module:
            for kernel in load.kernels:
                if kernel.file and kernel.line and is_user_file(kernel.file):
                    return kernel.file, kernel.line, by, ()
    return "", 0, by, ()


def _inside_text(entry: dict[str, Any] | None) -> str:
    """`` inside `warp.fem` (`interpolate`)`` when the user's line called a package that did it."""
    package = entry_package(entry)
    if package is None or entry is None:
        return ""
    return f" inside `{package}` (`{entry.get('function')}`)"


def _explicit_overload(cause: Cause, sources: dict[str, list[str] | None]) -> bool:
    """A generic instance declared by ``wp.overload`` (its line is the late declaration), not
    made by a launch (the bootstrap says so; older reports: the line's text)."""
    if "explicit" in cause.detail:
        return bool(cause.detail["explicit"])
    return _calls(cause.frames[0], "overload", sources)


def _where(frame: Frame, file: str) -> str:
    """``line N`` in ``file``, else ``name.py line N``."""
    return f"line {frame.line}" if frame.file == file else f"{os.path.basename(frame.file)} line {frame.line}"


def _cost(ms: float, builds: int, counted_elsewhere: Sequence[str]) -> str:
    """``0.32 s``, ``0.63 s for 2 rebuilds``; a build that another finding's causes paid for too
    is counted there only: ``the same rebuild as at line 12`` (each build is counted once)."""
    if builds:
        text = _seconds(ms) + (f" for {builds} rebuilds" if builds > 1 else "")
        if counted_elsewhere:
            text += f" (and a rebuild counted at {', '.join(counted_elsewhere)})"
        return text
    if counted_elsewhere:
        return f"the same rebuild as at {', '.join(counted_elsewhere)} (counted there)"
    return _seconds(ms)


def _message(cause: Cause, module: ModuleIdentity | None, cost: str, note: str, at: tuple[str, int]) -> str:
    shown = f"`{cause.module}`" if module is None else shown_module_name(module)  # `app` (run as `__main__`)
    hashes = 0 if module is None else len(module.hashes)
    built = "" if module is None else f"{shown} built {module.loads}× ({hashes} hash{'es' if hashes != 1 else ''}) in this run"
    paid = cause.load_frames[0] if cause.load_frames else None
    if paid is None:
        rebuilt = "so it was rebuilt"
    elif (paid.file, paid.line) == at:
        rebuilt = "so this launch rebuilt it"
    else:
        where = _where(paid, at[0]) + (f" (`{paid.function}`)" if paid.function not in ("<module>", "") else "")
        rebuilt = f"so the launch or load at {where} rebuilt it"
    detail = cause.detail
    if cause.cause == "options":
        names = ", ".join(f"`{k}`" for k in sorted(detail.get("options") or {})) or "its options"
        how = "`set_module_options`" if "options" in detail else f"`{detail.get('called_from', 'mark_modified')}`"
        what = f"{how} changed {names}{note} after the module was loaded, {rebuilt}"
    elif cause.cause == "generic_instance":
        types = ", ".join(detail.get("types") or ()) or str(detail.get("signature"))
        what = (f"generic kernel `{detail.get('kernel')}` was instantiated for ({types}){note} after the module "
                f"was loaded, {rebuilt}; declare the instance with `wp.overload` before the first launch")
    elif cause.cause == "config":
        what = (f"`wp.config.{detail.get('option')}` changed from {detail.get('before')!r} to {detail.get('after')!r}"
                f"{note} after the module was loaded; its hash includes that value, {rebuilt}")
    elif cause.cause == "config_ignored":
        what = (f"`wp.config.{detail.get('option')} = {detail.get('value')!r}`{note} came after the module was created, "
                f"which copies that option: it was built with {detail.get('option')}={detail.get('module_value')!r}, "
                "the value never arrived; set it before the module's kernels are defined, or as the module's option")
        return f"{built}: {what}" if built else f"{shown}: {what}"
    elif cause.cause == "captured_global":
        before = "was not set" if detail.get("before") is None else f"held {detail.get('before')}"
        what = (f"module variable `{detail.get('name')}` {before} when the module was loaded and held "
                f"{detail.get('after')} when it was hashed again; kernel `{detail.get('kernel')}` reads `{detail.get('name')}` "
                "as its own name (a parameter or loop variable), but Warp looks that name up among the module's globals "
                f"and hashes its value, {rebuilt}; rename the variable or move this code into a function")
    elif cause.cause == "block_dim":
        before = ", ".join(str(b) for b in detail.get("loaded_block_dims") or ()) or "another"
        what = f"it was loaded at block_dim {detail.get('block_dim')}{note} after block_dim {before}: one more build"
    else:
        kind = cause.cause.split("_")[0]
        what = f"{kind} `{detail.get('key')}` was added to it{note} after it was loaded, {rebuilt}"
    return (f"{built}: {what}: {cost}" if built else f"{shown}: {what}: {cost}")


def measured_findings(ok: Sequence[SampleResult], modules: Sequence[ModuleIdentity], cwd: str) -> list[dict[str, Any]]:
    """The findings of the first successful sample's cold run, sorted like lint's: each at a
    line of the user's (never in Warp, an installed package or generated ``<string>`` code)."""
    return _attribute(ok, modules, cwd)[0]


def package_notes(ok: Sequence[SampleResult], modules: Sequence[ModuleIdentity]) -> list[str]:
    """Costs that arose inside Warp or an installed package where no line of the user's can
    change them (Warp's CG solver instantiating its own generic kernels, ``wp.map``'s kernels
    made by ``tape.backward``): notes naming the package and the user's line that led there."""
    return _attribute(ok, modules, "")[1]


def _attribute(ok: Sequence[SampleResult], modules: Sequence[ModuleIdentity],
               cwd: str) -> tuple[list[dict[str, Any]], list[str]]:  # fmt: skip
    if not ok:
        return [], []
    first = ok[0]
    by_name = {(m.name, m.device): m for m in modules}
    packages = _package_modules(modules, first.cold.loads)
    grouped: dict[tuple[str, str, int, str], list[Cause]] = defaultdict(list)
    notes: dict[tuple[str, str, int, str], tuple[str, tuple[Frame, ...]]] = {}
    in_packages: dict[str, list[Cause]] = defaultdict(list)  # package module -> causes no user line changes
    sources: dict[str, list[str] | None] = {}
    # How often each kernel (module, key) was added to a loaded module: once is a late
    # definition (a factory called late), more is a definition per call.
    additions: dict[tuple[str, str], int] = defaultdict(int)
    for cause in first.cold.causes:
        if cause.cause in ("kernel_added", "function_added", "struct_added"):
            additions[(cause.module, str(cause.detail.get("key")))] += 1
    for cause in first.cold.causes:
        rule = CAUSE_RULES.get(cause.cause)
        if rule is None:
            continue
        if cause.module in packages:
            if cause.cause == "config_ignored":
                continue  # Warp's own modules exist from `import warp` on: no user line can come before them
            if not _users_own_act(cause):
                in_packages[cause.module].append(cause)
                continue
        path, line, note, also = _place(cause, first.cold.loads, sources, additions)
        if not path or not is_user_file(path):
            in_packages[cause.module].append(cause)  # no line of the user's led to it: a note
            continue
        key = (rule, path, line, cause.module)
        grouped[key].append(cause)
        notes.setdefault(key, (note, also))
    out = []
    # Each build is counted once, by the first finding (in the order they are read) that it
    # paid for; the others say so.
    counted: dict[LoadKey, tuple[str, int]] = {}
    for (rule, path, line, name), causes in sorted(grouped.items(), key=lambda item: (item[0][1], item[0][2], item[0][0])):
        cause = causes[0]
        module = by_name.get((name, str(cause.device)))
        paid = [] if cause.cause == "config_ignored" else list(dict.fromkeys(_paid_by(c) for c in causes))
        own = [p for p in paid if counted.setdefault(p, (path, line)) == (path, line)]
        elsewhere = list(dict.fromkeys(_where(Frame(*counted[p], ""), path) for p in paid if p not in own))
        ms = sum(_load_ms(ok, p) for p in own)
        note, also = notes[(rule, path, line, name)]
        message = _message(cause, module, _cost(ms, len(own), elsewhere), note, (path, line))
        out.append(_finding(rule, path, line, message, _evidence(message, module, name, ms), cwd, sources,
                            _cause_kernel(cause), also))  # fmt: skip
    out.extend(_unique_findings(ok, modules, cwd, sources))
    out.extend(_factory_default_findings(ok, modules, cwd, sources))
    out.extend(_cache_findings(ok, modules, cwd, sources))
    backward, backward_notes = _backward_findings(ok, modules, cwd, sources)
    out.extend(backward)
    out.sort(key=lambda f: (f["path"], f["range"]["start"]["line"], f["range"]["start"]["character"], f["code"], f["message"]))
    text = [_package_note(name, causes, by_name, packages, ok) for name, causes in in_packages.items()]
    text += _unattributed_package_rebuilds(modules, set(in_packages))
    return out, text + backward_notes


def _package_modules(modules: Sequence[ModuleIdentity], loads: Sequence[ModuleLoad]) -> dict[str, str]:
    """Module name -> the package it belongs to, for the modules that are not the user's: every
    kernel of theirs in Warp, an installed package or generated code, or named after Warp."""
    out = {m.name: m.package for m in modules if m.package is not None}
    for load in loads:  # a module without an identity (no successful sample of it): by its name
        if load.module not in out and (load.module == "warp" or load.module.startswith("warp.")) and not any(
                is_user_file(k.file) for k in load.kernels if k.file):
            out[load.module] = "warp"
    return out  # type: ignore[return-value]


def _users_own_act(cause: Cause) -> bool:
    """A change to a package's module that the user's line made itself: ``set_module_options``
    or a ``wp.config`` option assigned by the user, a launch at a new block_dim, called straight
    from the user's code (not from inside a package)."""
    return cause.cause in ("options", "config", "block_dim") and bool(cause.frames) and entry_package(cause.entry) is None


_CAUSE_WORDS = {
    "generic_instance": "generic kernel `{kernel}` instantiated after the module was loaded",
    "kernel_added": "kernel `{key}` added after the module was loaded",
    "function_added": "function `{key}` added after the module was loaded",
    "struct_added": "struct `{key}` added after the module was loaded",
    "block_dim": "loaded again at block_dim {block_dim}",
    "options": "its options changed after it was loaded",
    "config": "`wp.config.{option}` changed after it was loaded",
    "captured_global": "module variable `{name}` hashed into kernel `{kernel}` changed after it was loaded",
}


def _package_note(name: str, causes: Sequence[Cause], by_name: dict[tuple[str, str], ModuleIdentity],
                  packages: dict[str, str], ok: Sequence[SampleResult]) -> str:  # fmt: skip
    """One note per package module: what rebuilt it, the builds (each once), the user's line."""
    cause = causes[0]
    module = by_name.get((name, str(cause.device)))
    paid = list(dict.fromkeys(_paid_by(c) for c in causes))
    ms = sum(_load_ms(ok, p) for p in paid)
    what = list(dict.fromkeys(_CAUSE_WORDS.get(c.cause, c.cause).format_map(defaultdict(str, c.detail)) for c in causes))
    whats = "; ".join(what[:3]) + (f"; and {len(what) - 3} more" if len(what) > 3 else "")
    built = f"built {module.loads}× with {len(module.hashes)} hashes" if module is not None else "rebuilt"
    lines = []
    for c in causes:
        frames, entry = (c.frames, c.entry) if c.frames else (c.load_frames, c.load_entry)
        if frames:
            inside = _inside_text(entry)
            lines.append(f"{os.path.basename(frames[0].file)} line {frames[0].line} (`{frames[0].function}`){inside}")
    via = f", during {', '.join(dict.fromkeys(lines))}" if lines else ""
    owner = packages.get(name)
    whose = f"{owner}'s own module" if owner else "a module of yours, changed with no line of yours on the stack"
    return (f"`{name}` ({whose}) was {built}: {whats}{via}: {len(paid)} rebuild{'s' if len(paid) != 1 else ''}, "
            f"{_seconds(ms)}. {'The package does this itself; n' if owner else 'N'}o line of your code changes it, so "
            "it is a note, not a finding")


def _unattributed_package_rebuilds(modules: Sequence[ModuleIdentity], noted: set[str]) -> list[str]:
    """Package modules rebuilt with no attributed cause (older reports, changes Warp made)."""
    out = []
    for module in modules:
        if module.package is None or module.name in noted or not (module.hash_churn or module.block_dim_spread):
            continue
        out.append(f"`{module.name}` ({module.package}'s own module) was built {module.loads}× with "
                   f"{len(module.hashes)} hashes ({_seconds(module.ms)} in all), inside {module.package}: no line of "
                   "your code changes it, so it is a note, not a finding")  # fmt: skip
    return out


def _cause_kernel(cause: Cause) -> str | None:
    if cause.cause == "generic_instance":
        return cause.detail.get("kernel")
    if cause.cause == "kernel_added":
        return cause.detail.get("key")
    return None


_REMOVAL_TEXT = {
    "clear_kernel_cache": "`wp.clear_kernel_cache()` removed the kernel cache",
    "clear_lto_cache": "`wp.clear_lto_cache()` removed the LTO cache",
    "rmtree": "`shutil.rmtree` removed the kernel cache directory",
    "temporary_kernel_cache_dir": "`wp.config.kernel_cache_dir` was set to a temporary directory",
    "cache_kernels_off": "`wp.config.cache_kernels = False` turned the kernel cache off",
}


def _cache_findings(ok: Sequence[SampleResult], modules: Sequence[ModuleIdentity], cwd: str,
                    sources: dict[str, list[str] | None]) -> list[dict[str, Any]]:  # fmt: skip
    """WCT008: the warm run rebuilt what the cold run built, and the cold run removed the cache."""
    first = ok[0]
    rebuilt = [m for m in modules if m.warm_builds]
    if not rebuilt or first.warm is None:
        return []
    names = ", ".join(shown_module_name(m) for m in rebuilt[:5]) + (f" and {len(rebuilt) - 5} more" if len(rebuilt) > 5 else "")
    ms = sum(m.warm_ms for m in rebuilt)
    warm = sum(m.warm_builds for m in rebuilt)
    out = []
    seen: set[tuple[str, int]] = set()
    cuda = any(str(m.device).startswith("cuda") for m in modules)
    for removal in first.cold.cache_removals:
        if removal.what == "clear_lto_cache" and not cuda:
            continue  # LTO artifacts are CUDA's (MathDx): they did not cost a CPU rebuild
        if removal.atexit_frames:
            frame, when = removal.atexit_frames[0], " at exit (registered with `atexit.register` here)"
        elif removal.frames:
            frame, when = removal.frames[0], ""
        else:
            continue
        if (frame.file, frame.line) in seen:
            continue
        seen.add((frame.file, frame.line))
        what = _REMOVAL_TEXT.get(removal.what, removal.what)
        if removal.package and not removal.atexit_frames:
            what += f" inside `{removal.package}`, called here"
        message = (f"{what}{when}: the warm run built {names} again ({warm} build{'s' if warm != 1 else ''}, "
                   f"{_seconds(ms)}); the cache the cold run filled was not reused")
        evidence = _evidence(message, rebuilt[0], rebuilt[0].name, ms)
        evidence["builds"] = rebuilt[0].warm_builds
        also = removal.frames[:1] if removal.atexit_frames else ()
        out.append(_finding("WCT008", frame.file, frame.line, message, evidence, cwd, sources, also_at=also))
    return out


def _backward_findings(ok: Sequence[SampleResult], modules: Sequence[ModuleIdentity], cwd: str,
                       sources: dict[str, list[str] | None]) -> tuple[list[dict[str, Any]], list[str]]:  # fmt: skip
    """Modules built with adjoint code that nothing in this run differentiated, and a note for
    such modules of Warp or installed packages (their options are not the user's).

    At the line that asked for the backward code when the run saw one (the first kernel
    whose decorator says ``enable_backward=True``, else the ``set_module_options`` call
    that set it before the module's first load), else at the module's first kernel. The
    figure is the module's whole cold build: an upper bound of what dropping the adjoint code
    saves (``probe levers`` measures the share), and said so.
    """
    loads_of: dict[tuple[str, str], list[ModuleLoad]] = defaultdict(list)
    for load in ok[0].cold.loads:
        loads_of[(load.module, load.device)].append(load)
    asked: dict[str, Frame] = {}  # module -> the set_module_options call that set enable_backward=True
    fem_calls: dict[tuple[str, str], Cause] = {}  # (module, device) -> the user's fem call that built it
    for cause in ok[0].cold.causes:
        if cause.cause == "backward_option" and cause.detail.get("enable_backward") is True and cause.frames:
            asked.setdefault(cause.module, cause.frames[0])
        elif cause.cause == "package_build" and _fem_call(cause) is not None:
            fem_calls.setdefault((cause.module, str(cause.device)), cause)
    out = []
    in_packages: list[ModuleIdentity] = []
    at_fem_call: dict[tuple[str, int], list[tuple[ModuleIdentity, Cause]]] = defaultdict(list)
    for module in modules:
        loads = loads_of.get((module.name, module.device)) or []
        module_backward = any(bool(load.options.get("enable_backward")) for load in loads) if loads else bool(
            module.options.get("enable_backward"))
        # A kernel's own ``enable_backward`` overrides its module's (a unique kernel's module
        # keeps the default True while its one kernel says False).
        with_backward = [k for k in module.kernels if (module_backward if k.backward is None else k.backward)]
        if not with_backward or module.differentiated or not module.builds:
            continue
        kernels = sorted((k for k in with_backward if k.file and k.line and is_user_file(k.file)),
                         key=lambda k: (k.file or "", k.line or 0))  # fmt: skip
        if not kernels:
            call = fem_calls.get((module.name, str(module.device)))
            if call is not None and _takes_fem_call_options(module):
                at_fem_call[(call.frames[0].file, call.frames[0].line)].append((module, call))
            elif module.package is not None:
                in_packages.append(module)
            continue
        explicit = [k for k in kernels if k.backward]
        if explicit:
            file, line = explicit[0].file or "", int(explicit[0].line or 0)
            why = f" (kernel `{explicit[0].key}` asks for it: `enable_backward=True`)"
        elif module_backward and module.name in asked and is_user_file(asked[module.name].file):
            file, line = asked[module.name].file, asked[module.name].line
            why = " (`set_module_options` asked for it here)"
        else:
            file, line, why = kernels[0].file or "", int(kernels[0].line or 0), ""
        size = f", {module.source_bytes / 1024:.0f} KiB of generated source" if module.source_bytes else ""
        message = (f"{shown_module_name(module)} was built with backward (adjoint) code{why} for its {len(with_backward)} kernel(s) "
                   f"({_seconds(module.ms)} cold for the whole module{size}), but in this run no wp.Tape recorded them "
                   "and no launch asked for adjoint=True: the adjoint code was compiled for nothing here; dropping it "
                   f"saves up to {_seconds(module.ms)} (`warp-ct probe levers` measures the share)")  # fmt: skip
        evidence = _evidence(message, module, module.name, module.ms)
        evidence["upper_bound"] = True  # the whole build, of which the adjoint code is a share
        out.append(_finding("WCT010", file, line, message, evidence, cwd, sources))
    out.extend(_fem_call_findings(at_fem_call, cwd, sources))
    notes = []
    if in_packages:
        total = sum(m.ms for m in in_packages)
        names = ", ".join(f"`{m.name}` ({m.package})" for m in in_packages[:4]) + (
            f" and {len(in_packages) - 4} more" if len(in_packages) > 4 else "")
        notes.append(f"{len(in_packages)} module(s) of Warp or installed packages were built with backward (adjoint) "
                     f"code that nothing in this run differentiated: {names}; up to {_seconds(total)} of cold builds. "
                     "Their options are set inside those packages, not by a line of yours, so this is a note, "
                     "not a finding")  # fmt: skip
    return out, notes


# warp.fem's entry points whose ``kernel_options`` reach the kernels they build for the user's
# integrand (and the dispatch kernels built with them).
FEM_KERNEL_OPTION_CALLS = ("integrate", "interpolate")
FEM_FIX = 'kernel_options={"enable_backward": False}'
# The modules those options reach (measured on Warp 1.19: with the fix they build without
# adjoint code): the integrand's own, named after the user's Python module
# (``__main__.diffusion_form_f31b3bb2``), and warp.fem's bilinear dispatch kernels made with
# the call's options. Warp's shared fem modules built during the call (``warp.fem.utils``, the
# sparse-matrix kernels) keep their options: they stay in the package note.
_FEM_DISPATCH_PREFIX = "warp._src.fem.field.virtual.dyn.dispatch_"


def _fem_call(cause: Cause) -> str | None:
    """``integrate`` / ``interpolate`` when a line of the user's called that ``warp.fem``
    function and it built the module (a ``package_build`` cause) with the call's
    ``kernel_options``, else None."""
    entry = cause.entry or {}
    function = str(entry.get("function") or "")
    if entry_package(entry) != "warp.fem" or function not in FEM_KERNEL_OPTION_CALLS:
        return None
    if not cause.frames or not is_user_file(cause.frames[0].file):
        return None
    return function


def _takes_fem_call_options(module: ModuleIdentity) -> bool:
    """The module's kernels are warp.fem's and the call's ``kernel_options`` reach it: an
    integrand's module (not named after Warp) or a dispatch module (see above); not one of
    warp.fem's shared modules, nor Warp's sparse-matrix kernels the call also builds."""
    if not module.kernels or any(package_of_file(k.file) != "warp.fem" for k in module.kernels):
        return False
    return not module.name.startswith("warp.") or module.name.startswith(_FEM_DISPATCH_PREFIX)


def _fem_call_findings(at_call: dict[tuple[str, int], list[tuple[ModuleIdentity, Cause]]], cwd: str,
                       sources: dict[str, list[str] | None]) -> list[dict[str, Any]]:  # fmt: skip
    """WCT010 at the user's ``fem.integrate`` / ``fem.interpolate`` call that made warp.fem build
    modules with backward code (the integrand's kernel, the dispatch kernels it needs) that no
    tape recorded and no adjoint launch ran: the call's ``kernel_options`` decide their options.
    The figure is the modules' whole cold build, an upper bound of the adjoint share."""
    out = []
    for (file, line), built in at_call.items():
        function = _fem_call(built[0][1]) or "integrate"
        modules = [module for module, _cause in built]
        ms = sum(module.ms for module in modules)
        names = ", ".join(f"`{m.name}`" for m in modules[:3]) + (f" and {len(modules) - 3} more" if len(modules) > 3 else "")
        size = sum(m.source_bytes or 0 for m in modules)
        source = f", {size / 1024:.0f} KiB of generated source" if size else ""
        message = (f"`fem.{function}` here made warp.fem build {len(modules)} module(s) with backward (adjoint) code "
                   f"inside `warp.fem` (`{function}`): {names} ({_seconds(ms)} cold{source}), but in this run no "
                   "wp.Tape recorded them and no launch asked for adjoint=True: pass "
                   f"`{FEM_FIX}` to this call; dropping the adjoint code saves up to {_seconds(ms)} "
                   "(`warp-ct probe levers` measures the share)")  # fmt: skip
        evidence = _evidence(message, modules[0], modules[0].name, ms)
        evidence["upper_bound"] = True
        evidence["modules"] = [m.name for m in modules]
        out.append(_finding("WCT010", file, line, message, evidence, cwd, sources))
    return out


def _factory_default_findings(ok: Sequence[SampleResult], modules: Sequence[ModuleIdentity], cwd: str,
                              sources: dict[str, list[str] | None]) -> list[dict[str, Any]]:  # fmt: skip
    """WCT002 where a kernel factory's ``module="unique"`` came from: the parameter's default
    (``def make_gain(gain, module="unique")`` -> ``@wp.kernel(module=module)``) when no call in
    this run passed it, else the call that passed "unique".

    Like the static rule: only where one file's factories made at least two one-kernel modules
    this way, without options of their own, and each factory made its kernels up front (all
    before the first load of any of them): kernels made per request, between launches, are
    what ``module="unique"`` is for (in a shared module each would rebuild it).
    """
    by_name = {m.name: m for m in modules}
    made: dict[tuple[str, int, str, str], list[tuple[Cause, ModuleIdentity]]] = defaultdict(list)
    for cause in ok[0].cold.causes:
        factory = cause.detail.get("factory") if cause.cause == "unique_module" else None
        module = by_name.get(cause.module)
        if not isinstance(factory, dict) or cause.detail.get("generic") or factory.get("module_options"):
            continue
        if module is None or len(module.kernels) != 1 or not module.builds or module.kernels[0].backward is not None:
            continue
        if not is_user_file(factory.get("file")):
            continue
        made[(str(factory["file"]), int(factory["line"]), str(factory["function"]), str(factory["param"]))].append((cause, module))
    up_front = {key: group for key, group in made.items() if _made_up_front([c for c, _ in group])}
    by_file: dict[str, int] = defaultdict(int)
    for (file, _line, _function, _param), group in up_front.items():
        by_file[file] += len(group)
    trees: dict[str, ast.Module | None] = {}
    out = []
    for (file, def_line, function, param), group in up_front.items():
        if by_file[file] < MIN_UNIQUE_MODULES_PER_FILE:
            continue
        default = _default_of(file, def_line, function, param, trees, sources)
        if default is None:
            continue  # "unique" came from a caller, and no default says it
        explicit: list[tuple[str, int]] = []
        unread = False
        for cause, _module in group:
            call = cause.detail["factory"].get("call") or {}
            passed = _call_passes(str(call.get("file") or ""), int(call.get("line") or 0), function, param,
                                  cause.detail["factory"], trees, sources)  # fmt: skip
            if passed is None:
                unread = True
            elif passed:
                explicit.append(passed)
        if unread and not explicit:
            continue  # the calls cannot be read: whether the default decided is unknown
        modules_made = [m for _c, m in group]
        ms = sum(m.ms for m in modules_made)
        names = ", ".join(f"`{normalize_kernel_key(m.kernels[0].key)}`" for m in modules_made[:3]) + (
            f" and {len(modules_made) - 3} more" if len(modules_made) > 3 else "")
        short = function.rsplit(".", 1)[-1]
        common = (f"{len(modules_made)} one-kernel module{'s' if len(modules_made) != 1 else ''} ({names}), "
                  f"{_seconds(ms)} cold, of {by_file[file]} such modules made by this file's factories in this run; "
                  "kernels with the same options can share the file's module and pay its fixed cost once")  # fmt: skip
        if explicit:
            for call_file, call_line in dict.fromkeys(explicit):
                message = (f'this call passes {param}="unique" to `{short}()`, so every kernel it makes gets a module '
                           f"of its own: {common}; pass None (the file's shared module)")  # fmt: skip
                out.append(_finding("WCT002", call_file, call_line, message,
                                    _evidence(message, modules_made[0], modules_made[0].name, ms), cwd, sources,
                                    modules_made[0].kernels[0].key))  # fmt: skip
            continue
        message = (f'`{param}` defaults to "unique" in `{short}()` and no call in this run passed it, so every kernel '
                   f'it makes gets a module of its own: {common}; default `{param}` to None and pass "unique" where a '
                   "caller needs a variant of its own")  # fmt: skip
        out.append(_finding("WCT002", file, default, message, _evidence(message, modules_made[0], modules_made[0].name, ms),
                            cwd, sources, modules_made[0].kernels[0].key))  # fmt: skip
    return out


def _made_up_front(causes: Sequence[Cause]) -> bool:
    """Every module was created before the first of them was loaded (older reports: unknown,
    taken as up front)."""
    created = [c.detail.get("created") for c in causes]
    loaded = [c.detail.get("loaded") for c in causes]
    if any(not isinstance(t, (int, float)) for t in created + loaded):
        return True
    return max(created) <= min(loaded)  # type: ignore[type-var]


def _tree(path: str, trees: dict[str, ast.Module | None], sources: dict[str, list[str] | None]) -> ast.Module | None:
    if path not in trees:
        lines = read_lines(path, sources)
        try:
            trees[path] = None if lines is None else ast.parse("\n".join(lines))
        except (SyntaxError, ValueError):
            trees[path] = None
    return trees[path]


def _default_of(file: str, first_line: int, function: str, param: str, trees: dict[str, ast.Module | None],
                sources: dict[str, list[str] | None]) -> int | None:  # fmt: skip
    """The line of the "unique" default of ``param`` in the def of ``function`` that starts at
    ``first_line`` (its ``co_firstlineno``: the first decorator's line when it has one)."""
    tree = _tree(file, trees, sources)
    name = function.rsplit(".", 1)[-1]
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != name:
            continue
        if first_line not in (node.lineno, *(d.lineno for d in node.decorator_list)):
            continue
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        defaults: dict[str, ast.expr | None] = dict(zip((a.arg for a in positional[len(positional) - len(args.defaults):]),
                                                        args.defaults))  # fmt: skip
        defaults.update(zip((a.arg for a in args.kwonlyargs), args.kw_defaults))
        value = defaults.get(param)
        if isinstance(value, ast.Constant) and value.value == "unique":
            return value.lineno
        return None
    return None


def _call_passes(file: str, line: int, function: str, param: str, factory: dict[str, Any],
                 trees: dict[str, ast.Module | None], sources: dict[str, list[str] | None]) -> tuple[str, int] | bool | None:  # fmt: skip
    """Whether the call of ``function`` at ``file:line`` passes ``param``: the (file, line) of the
    argument when it does, False when the default decided, None when the call cannot be read
    (no such call there, ``*args``/``**kwargs``)."""
    tree = _tree(file, trees, sources) if file and line else None
    name = function.rsplit(".", 1)[-1]
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and (node.lineno <= line <= (node.end_lineno or node.lineno))
             and ((isinstance(node.func, ast.Name) and node.func.id == name)
                  or (isinstance(node.func, ast.Attribute) and node.func.attr == name))] if tree is not None else []  # fmt: skip
    if len(calls) != 1:
        return None
    (call,) = calls
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    for keyword in call.keywords:
        if keyword.arg == param:
            return file, keyword.value.lineno
    position = int(factory.get("position", -1))
    if isinstance(call.func, ast.Attribute) and "." in function:
        position -= 1  # a method called on its object: `self` is not written in the call
    if not factory.get("keyword_only") and 0 <= position < len(call.args):
        return file, call.args[position].lineno
    return False


def _kernels_defined(path: str, sources: dict[str, list[str] | None]) -> set[str]:
    """The names of the functions at the top of ``path`` that a ``kernel`` decorator makes kernels."""
    tree = _tree(path, {}, sources)
    found = set()
    for node in tree.body if tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name == "kernel":
                    found.add(node.name)
    return found


def _unique_findings(ok: Sequence[SampleResult], modules: Sequence[ModuleIdentity], cwd: str,
                     sources: dict[str, list[str] | None]) -> list[dict[str, Any]]:  # fmt: skip
    first = ok[0]
    # A generic kernel's module is made per instantiation (its overloads' types): nothing to
    # share. An installed package's kernels are not the user's line to change.
    unique = {c.module for c in first.cold.causes
              if c.cause == "unique_module" and not (c.detail or {}).get("generic")}  # fmt: skip
    by_file: dict[str, list[ModuleIdentity]] = defaultdict(list)
    others_options: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for module in modules:
        files = {k.file for k in module.kernels if k.file}
        if module.name in unique and len(module.kernels) == 1:
            kernel = module.kernels[0]
            if kernel.file and kernel.line and "__locals__" not in kernel.key and is_user_file(kernel.file):
                by_file[kernel.file].append(module)
        else:
            for file in files:
                others_options[file].append(module.options)
    out = []
    for file, group in by_file.items():
        options = [m.options for m in group] + others_options.get(file, [])
        if len(group) < MIN_UNIQUE_MODULES_PER_FILE or any(o != options[0] for o in options):
            continue  # one kernel only, or module options differ: module="unique" is doing its job
        loaded = {k.key for m in modules for k in m.kernels if k.file == file}
        if _kernels_defined(file, sources) - loaded:
            # The run used some of the file's kernels only (newton's geometry/inertia.py: its 2
            # unique kernels, not the 2 of its own module): in one shared module every run that
            # needs these would build the others too.
            continue
        total = sum(m.ms for m in group)
        for module in group:
            kernel = module.kernels[0]
            message = (f"kernel `{kernel.key}` got a module of its own (`module=\"unique\"`): one of {len(group)} "
                       f"one-kernel modules with the same options built from this file in this run, "
                       f"{_seconds(module.ms)} here, {_seconds(total)} in all; kernels defined at module scope "
                       "with the same options can share the file's module and pay its fixed cost once")
            out.append(_finding("WCT002", file, int(kernel.line or 0), message, _evidence(message, module, module.name, module.ms),
                                cwd, sources, kernel.key))  # fmt: skip
    return out
