"""warp-ct probe bootstrap: runs inside every Python process of a measured command.

``warp-ct probe measure`` copies this file into a private temp directory and prepends that
directory to ``PYTHONPATH``, so Python's ``site`` imports it as ``sitecustomize`` at start-up.
It must stay self-contained (no ``warp_ct`` import: the measured interpreter may not have
warp-ct installed) and compatible with old Pythons (3.8+).

What it does:

* Chains the ``sitecustomize`` that would have run without us (the next one on
  ``sys.path``), so the user's start-up customisation still happens.
* Imports nothing heavy. It installs a ``sys.meta_path`` finder that waits for Warp's
  ``context`` module to be imported and only then wraps a few entry points:

  - ``Module.load`` -> one ``load`` record per real build or cache load (a load that is
    answered from the in-memory ``execs`` table -- every launch does that -- records
    nothing, it only remembers the resolved block_dim for the launch record);
  - ``build.build_cpu`` / ``build.build_cuda`` -> native compile milliseconds and whether
    the load compiled (native build ran) or came from the cache (it did not);
  - ``launch`` -> launch signatures, aggregated in memory with bounded size;
  - ``Tape.record_launch`` -> which kernels a ``wp.Tape`` recorded (differentiated code);
  - ``warp.config`` -> every assignment of a compile option, with the file and line that
    made it (where "the program turned precompiled headers off");
  - ``Module.mark_modified`` -> *why* a loaded module changed: every kernel, function,
    struct, generic instance or option change reaches Warp's ``mark_modified``. Only when
    the module already holds a loaded executable (the change will cost a rebuild) the
    bootstrap walks the stack (``sys._getframe``) for the user frames that did it and keeps
    them on the module; the next real load of that module writes them as ``cause`` records.
    A real load at a new block_dim of an already-loaded module, and the first load of a
    ``module="unique"`` module, are causes too. Stacks are never walked per launch.

* Applies one *lever* when ``$WARP_CT_PROBE_LEVER`` holds one (``probe levers``): config
  values pinned from the moment ``warp.config`` exists (later assignments by the program
  are recorded and ignored), and module options set on the named modules (or all)
  before each load, i.e. before the module's hash is computed.

* Writes JSON lines to ``$WARP_CT_PROBE_RECORDS_DIR/<pid>.jsonl``: load records as they
  happen (flushed: a killed process keeps them), the launch aggregate at exit.

Hooks that are missing in a Warp release are skipped and named in a ``notes`` list of
the ``warp`` record, so the report can say which fields it lacks.
"""

import atexit
import importlib
import importlib.abc
import importlib.util
import json
import os
import sys
import threading
import time
import weakref

_RECORDS_DIR_ENV = "WARP_CT_PROBE_RECORDS_DIR"
_LEVER_ENV = "WARP_CT_PROBE_LEVER"
# Bounds for programs that launch millions of times: distinct signatures kept (in order of
# first appearance), launches of further signatures are only counted.
_MAX_SIGNATURES = 4096
_MAX_KERNELS_PER_LOAD = 512

_CONTEXT_MODULES = ("warp._src.context", "warp.context")
_BUILD_MODULES = ("warp._src.build", "warp.build")
_TAPE_MODULES = ("warp._src.tape", "warp.tape")
_CONFIG_MODULE = "warp.config"
# Compile options whose assignments in wp.config are recorded with their source line.
_WATCHED_CONFIG = (
    "enable_backward", "max_unroll", "lineinfo", "mode", "optimization_level",
    "use_precompiled_headers", "fast_math", "verify_fp", "cache_kernels", "kernel_cache_dir",
)
_MAX_CONFIG_RECORDS = 200
_MAX_TAPED_KERNELS = 1024
# Attribution: user frames kept per cause, causes kept pending per module, cause records.
_MAX_FRAMES = 8
_MAX_PENDING = 16
_MAX_CAUSE_RECORDS = 2000
# Config options whose late assignment is attributed (cause records): those read when a module
# is hashed (a changed value moves the hash of the next build: WCT006), and those copied when
# a module is created (a later value never reaches an existing module: WCT001).
_HASH_TIME_CONFIG = ("mode", "optimization_level", "use_precompiled_headers")
_CREATION_CONFIG = ("enable_backward", "max_unroll", "lineinfo")
# Cache removal (WCT008): atexit registrations remembered (function, args, raw frames).
_MAX_ATEXIT_REGISTRATIONS = 256
_MAX_RAW_FRAMES = 32
_MAX_CACHE_RECORDS = 100
# Which Warp function called Module.mark_modified -> what changed the module.
_MODIFIED_BY = {
    "register_kernel": "kernel_added",
    "register_function": "function_added",
    "register_struct": "struct_added",
    "_add_normalized_overload": "generic_instance",
    "add_overload": "generic_instance",
    "set_module_options": "options",
}


class _Recorder:
    """Owns this process's record file and the in-memory launch aggregate."""

    def __init__(self, records_dir):
        self.records_dir = records_dir
        self.lock = threading.Lock()
        self.local = threading.local()
        self._reset_for_process()

    def _reset_for_process(self):
        self.pid = os.getpid()
        self.path = os.path.join(self.records_dir, "%d.jsonl" % self.pid)
        self.signatures = {}  # signature tuple -> [count, first_seen_index]
        self.total_launches = 0
        self.overflow_launches = 0
        self.warp_seen = False
        self.taped = {}  # (kernel key, module name) -> recordings on a wp.Tape
        self.config_records = 0
        self.cause_records = 0
        self.cache_records = 0
        self.main_file = None  # __main__'s file (Python drops __main__.__file__ before atexit)
        self.last_config = {}  # option -> {"t", "value", "frames", "package", "ignored"}

    def after_fork_in_child(self):
        self.lock = threading.Lock()
        self.local = threading.local()
        self._reset_for_process()

    def write(self, record):
        record["pid"] = self.pid
        line = json.dumps(record, default=str) + "\n"
        with self.lock:
            try:
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(line)
            except OSError:
                pass  # never break the measured program over a lost record

    def count_launch(self, signature):
        with self.lock:
            self.total_launches += 1
            entry = self.signatures.get(signature)
            if entry is not None:
                entry[0] += 1
            elif len(self.signatures) < _MAX_SIGNATURES:
                self.signatures[signature] = [1, len(self.signatures)]
            else:
                self.overflow_launches += 1

    def count_taped(self, kernel_key, module_name):
        with self.lock:
            key = (kernel_key, module_name)
            if key in self.taped or len(self.taped) < _MAX_TAPED_KERNELS:
                self.taped[key] = self.taped.get(key, 0) + 1

    def flush_launches(self):
        if not self.warp_seen:
            return
        with self.lock:
            ordered = sorted(self.signatures.items(), key=lambda item: item[1][1])
            payload = {
                "kind": "launches",
                "t": time.time(),
                "taped": [{"kernel": k, "module": m, "count": c} for (k, m), c in sorted(self.taped.items(), key=str)],
                "total": self.total_launches,
                "user_files": _user_module_files(self.main_file),
                "overflow_launches": self.overflow_launches,
                "max_signatures": _MAX_SIGNATURES,
                "signatures": [
                    {
                        "kernel": sig[0],
                        "module": sig[1],
                        "dim": list(sig[2]),
                        "device": sig[3],
                        "dtypes": list(sig[4]),
                        "block_dim": sig[5],
                        "adjoint": sig[6],
                        "count": entry[0],
                    }
                    for sig, entry in ordered
                ],
            }
        self.write(payload)


_MAX_USER_FILES = 2048


def _user_module_files(main_file=None):
    """Source files of the user's modules this process imported (what the run exercised)."""
    out = [os.path.abspath(main_file)] if main_file and _is_user_file(main_file) else []
    try:
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str) and path.endswith(".py") and _is_user_file(path):
                out.append(os.path.abspath(path))
                if len(out) >= _MAX_USER_FILES:
                    break
    except Exception:
        pass
    return sorted(set(out))


def _type_name(value):
    """A type's name that is the same in every process: never an object's address (a
    ``wp.struct`` made by warp.fem has no ``__name__`` and a repr with its address, which made
    two runs of one program look like different launches)."""
    name = getattr(value, "__name__", None)
    if isinstance(name, str):
        return name
    key = getattr(value, "key", None)  # warp.codegen.Struct
    if isinstance(key, str):
        return key
    text = repr(value)
    if " at 0x" not in text:
        return text
    dtype = getattr(value, "dtype", None)  # an array type without a readable repr (indexedarray)
    ndim = getattr(value, "ndim", None)
    if dtype is not None and ndim is not None:
        return "%s(ndim=%s, dtype=%s)" % (type(value).__name__, ndim, _type_name(dtype))
    return _without_addresses(text)


def _without_addresses(text):
    """``<pkg.Thing object at 0x7f40...>`` -> ``<pkg.Thing object>``."""
    while " at 0x" in text:
        head, tail = text.split(" at 0x", 1)
        digits = 0
        while digits < len(tail) and tail[digits] in "0123456789abcdefABCDEF":
            digits += 1
        text = head + tail[digits:]
    return text


def _describe_argument(value):
    """A short, stable type description of one launch argument."""
    dtype = getattr(value, "dtype", None)
    ndim = getattr(value, "ndim", None)
    if dtype is not None and ndim is not None:
        return "%s[%s,%sd]" % (type(value).__name__, _type_name(dtype), ndim)
    return type(value).__name__


def _normalize_dim(dim):
    if isinstance(dim, int):
        return (dim,)
    try:
        return tuple(int(d) for d in dim)
    except (TypeError, ValueError):
        return (str(dim),)


def _kernel_sources(module):
    """(key, file, line) of the kernels a module holds, deduplicated, bounded."""
    getter = getattr(module, "_get_live_kernels", None)
    try:
        kernels = list(getter()) if getter is not None else list(getattr(module, "kernels", {}).values())
    except Exception:
        kernels = list(getattr(module, "kernels", {}).values())
    seen = set()
    out = []
    for kernel in kernels:
        func = getattr(kernel, "func", None)
        code = getattr(func, "__code__", None)
        item = (
            getattr(kernel, "key", "?"),
            getattr(code, "co_filename", None),
            getattr(code, "co_firstlineno", None),
        )
        if item not in seen:
            seen.add(item)
            entry = {"key": item[0], "file": item[1], "line": item[2]}
            own = (getattr(kernel, "options", None) or {}).get("enable_backward")
            if own is not None:
                entry["backward"] = bool(own)  # the kernel's own option (decorator) wins over the module's
            out.append(entry)
            if len(out) >= _MAX_KERNELS_PER_LOAD:
                break
    out.sort(key=lambda k: (str(k["file"]), k["line"] or 0, k["key"]))
    return out


_RECORDED_OPTIONS = ("enable_backward", "max_unroll", "mode", "fast_math", "lineinfo", "optimization_level")
# Global values that module options inherit (None) or that apply to every build.
_LOAD_CONFIG = ("mode", "optimization_level", "use_precompiled_headers", "lineinfo", "max_unroll", "enable_backward")


class _Hooks:
    """Wraps Warp's entry points once; tolerant of releases where one of them moved."""

    def __init__(self, recorder, lever=None):
        self.recorder = recorder
        self.lever = lever or {}
        self.installed = set()
        self.notes = []
        self.announced = False

    # -- warp.config: record compile-option assignments, hold pinned lever values ---------
    def watch_config(self, config):
        if isinstance(config, _WatchedConfig):
            return
        pins = dict(self.lever.get("config") or {})
        missing = [name for name in pins if not hasattr(config, name)]
        for name in missing:  # this Warp has no such option: never invent one
            pins.pop(name)
            self.notes.append("lever: this Warp has no wp.config.%s" % name)
        for name, value in pins.items():
            setattr(config, name, value)
        try:
            config.__class__ = _WatchedConfig
        except TypeError as error:
            self.notes.append("wp.config assignments are not recorded: %r" % (error,))
            return
        # Set after the class change: ModuleType subclasses keep state in __dict__.
        object.__setattr__(config, "_warp_ct_pins", pins)
        object.__setattr__(config, "_warp_ct_recorder", self.recorder)
        self.installed.add("config")

    # -- Tape.record_launch: which kernels something differentiates through ---------------
    def wrap_tape(self, tape_module):
        tape_class = getattr(tape_module, "Tape", None)
        original = getattr(tape_class, "record_launch", None) if tape_class is not None else None
        if original is None or getattr(original, "_warp_ct_wrapped", False):
            return
        recorder = self.recorder

        def record_launch(tape, kernel, *args, **kwargs):
            try:
                recorder.count_taped(getattr(kernel, "key", repr(kernel)), getattr(getattr(kernel, "module", None), "name", None))
            except Exception:
                pass
            return original(tape, kernel, *args, **kwargs)

        record_launch._warp_ct_wrapped = True
        record_launch.__wrapped__ = original
        tape_class.record_launch = record_launch
        self.installed.add("Tape.record_launch")

    def apply_module_lever(self, module):
        """Set the lever's module options on a targeted module before its hash is computed."""
        wanted = self.lever.get("module_options")
        if not wanted:
            return
        targets = self.lever.get("modules")
        if targets is not None and getattr(module, "name", None) not in targets:
            return
        options = getattr(module, "options", None)
        if not isinstance(options, dict):
            return
        changed = False
        for name, value in wanted.items():
            if name in options and options[name] != value:
                options[name] = value
                changed = True
        if changed and getattr(module, "hashers", None):
            mark_modified = getattr(module, "mark_modified", None)
            if mark_modified is not None:
                mark_modified()

    # -- build: native compile time and compiled-vs-cached -------------------------------
    def wrap_build(self, build_module):
        for name in ("build_cpu", "build_cuda"):
            original = getattr(build_module, name, None)
            if original is None or getattr(original, "_warp_ct_wrapped", False):
                continue
            setattr(build_module, name, self._timed_native_build(original))
            self.installed.add(name)
        for name in ("clear_kernel_cache", "clear_lto_cache"):
            original = getattr(build_module, name, None)
            if original is not None and not getattr(original, "_warp_ct_wrapped", False):
                setattr(build_module, name, _hooked_removal(self.recorder, name, original))
                self.installed.add(name)
        shutil = sys.modules.get("shutil")
        rmtree = getattr(shutil, "rmtree", None)
        if rmtree is not None and not getattr(rmtree, "_warp_ct_wrapped", False):
            wrapped = _hooked_removal(self.recorder, "rmtree", rmtree)
            for attr in ("avoids_symlink_attacks",):
                if hasattr(rmtree, attr):
                    setattr(wrapped, attr, getattr(rmtree, attr))
            shutil.rmtree = wrapped

    def _timed_native_build(self, original):
        local = self.recorder.local

        def native_build(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                stack = getattr(local, "native_ms", None)
                if stack:
                    stack[-1] += (time.perf_counter() - t0) * 1000.0

        native_build._warp_ct_wrapped = True
        native_build.__wrapped__ = original
        return native_build

    # -- Module.load: one record per real load --------------------------------------------
    def wrap_context(self, context):
        module_class = getattr(context, "Module", None)
        load = getattr(module_class, "load", None) if module_class is not None else None
        if load is not None and not getattr(load, "_warp_ct_wrapped", False):
            module_class.load = self._recorded_load(load)
            self.installed.add("Module.load")
        mark_modified = getattr(module_class, "mark_modified", None) if module_class is not None else None
        if mark_modified is not None and not getattr(mark_modified, "_warp_ct_wrapped", False):
            module_class._warp_ct_pending = None  # causes waiting for the module's next real load
            module_class._warp_ct_block_dims = None  # block_dims this module was really loaded at
            module_class._warp_ct_backward_set = None  # where set_module_options set enable_backward before a load
            module_class._warp_ct_captured = None  # module variables hashed into its kernels at its last real load
            module_class.mark_modified = self._attributed_mark_modified(mark_modified)
            self.installed.add("Module.mark_modified")
        init = getattr(module_class, "__init__", None) if module_class is not None else None
        if init is not None and not getattr(init, "_warp_ct_wrapped", False):
            module_class.__init__ = _timed_module_init(init)
        launch = getattr(context, "launch", None)
        if launch is not None and not getattr(launch, "_warp_ct_wrapped", False):
            context.launch = self._recorded_launch(launch)
            self.installed.add("launch")
        if _cuda_builds:  # --cuda-arch: launch_tiled resolves block_dim for the device before launch
            try:
                _cuda_builds[0].wrap_launch_tiled(context)
            except Exception:
                pass

    # -- Module.mark_modified: why a loaded module changes (attribution) ------------------
    def _attributed_mark_modified(self, original):
        def mark_modified(module, *args, **kwargs):
            try:
                if module.execs:
                    _remember_cause(module, sys._getframe(1))
                else:
                    _remember_backward_option(module, sys._getframe(1))
            except Exception:
                pass
            return original(module, *args, **kwargs)

        mark_modified._warp_ct_wrapped = True
        mark_modified.__wrapped__ = original
        return mark_modified

    def _recorded_load(self, original):
        recorder = self.recorder
        local = recorder.local
        seen_execs = _ExecMarks()

        hooks = self

        def load(module, device, block_dim=None, *args, **kwargs):
            if hooks.lever:
                try:
                    hooks.apply_module_lever(module)
                except Exception as error:
                    hooks.notes.append("lever not applied to %s: %r" % (getattr(module, "name", "?"), error))
            stack = getattr(local, "native_ms", None)
            if stack is None:
                stack = local.native_ms = []
            stack.append(0.0)
            wall_start = time.time()
            t0 = time.perf_counter()
            try:
                result = original(module, device, block_dim, *args, **kwargs)
            except BaseException as error:
                native_ms = stack.pop()
                recorder.write(
                    _load_record(module, device, block_dim, None, wall_start, t0, native_ms, "error", repr(error))
                )
                raise
            native_ms = stack.pop()
            local.last_block_dim = getattr(result, "block_dim", block_dim)
            local.last_device = getattr(result, "device", device)
            if result is None or seen_execs.seen(result):
                if module._warp_ct_pending is not None:
                    module._warp_ct_pending = None  # the change did not move the hash: no cost
                return result  # in-memory hit: the common path of every launch
            status = "compiled" if native_ms > 0.0 else "cached"
            record = _load_record(module, device, block_dim, result, wall_start, t0, native_ms, status, None)
            recorder.write(record)
            try:
                _write_causes(recorder, module, record)
            except Exception:
                pass
            return result

        load._warp_ct_wrapped = True
        load.__wrapped__ = original
        return load

    # -- launch: bounded aggregate of signatures ------------------------------------------
    def _recorded_launch(self, original):
        recorder = self.recorder
        local = recorder.local

        def launch(kernel, dim, *args, **kwargs):
            local.last_block_dim = None
            local.last_device = None
            result = original(kernel, dim, *args, **kwargs)
            if kwargs.get("record_cmd") or (len(args) > 8 and args[8]):
                return result  # a recorded command runs later, via Launch.launch
            try:
                recorder.count_launch(_launch_signature(kernel, dim, args, kwargs, local))
            except Exception:
                pass
            if _cuda_builds:
                try:
                    _cuda_builds[0].remember_launch(kernel, args, kwargs, _user_frames, sys._getframe(1))
                except Exception:
                    pass
            return result

        launch._warp_ct_wrapped = True
        launch.__wrapped__ = original
        return launch

    def announce(self, warp_module):
        if self.announced:
            return
        self.announced = True
        self.recorder.warp_seen = True
        self.recorder.main_file = getattr(sys.modules.get("__main__"), "__file__", None)
        expected = ("Module.load", "launch", "build_cpu", "build_cuda", "config", "Tape.record_launch", "Module.mark_modified")
        missing = [name for name in expected if name not in self.installed]
        if missing:
            self.notes.append("hooks not found in this Warp release: " + ", ".join(missing))
        config = getattr(warp_module, "config", None)
        self.recorder.write(
            {
                "kind": "warp",
                "t": time.time(),
                "version": getattr(config, "version", None) or getattr(warp_module, "__version__", None),
                "kernel_cache_dir": getattr(config, "kernel_cache_dir", None),
                "python": sys.version.split()[0],
                "argv": sys.argv[:8],
                "hooks": sorted(self.installed),
                "notes": self.notes,
                "config": {name: getattr(config, name) for name in _WATCHED_CONFIG if hasattr(config, name)},
                "lever": self.lever or None,
            }
        )


def _timed_module_init(original):
    def __init__(module, *args, **kwargs):
        original(module, *args, **kwargs)
        try:
            module._warp_ct_created = time.time()
            module._warp_ct_factory = _unique_factory(sys._getframe(1))
        except Exception:
            pass

    __init__._warp_ct_wrapped = True
    __init__.__wrapped__ = original
    return __init__


def _unique_factory(caller):
    """Where a ``module="unique"`` value came from when a user function passed it on: the
    parameter of the factory that holds "unique" (``def make(gain, module="unique")`` ->
    ``@wp.kernel(module=module)``) and the user's call of that factory. None when the module is
    not made by Warp's kernel decorator for ``module="unique"``, or the kernel is decorated at
    module scope (nothing was passed on)."""
    if caller.f_code.co_name != "wrapper" or _is_user_file(caller.f_code.co_filename):
        return None
    decorator_locals = caller.f_locals  # the decorator's arguments are its closure's cells
    if decorator_locals.get("module") != "unique":
        return None
    frame = caller.f_back
    while frame is not None and not _is_user_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None or frame.f_code.co_name == "<module>":
        return None
    code = frame.f_code
    arguments = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    values = frame.f_locals
    params = [name for name in arguments if isinstance(values.get(name), str) and values.get(name) == "unique"]
    if not params:
        return None
    call = frame.f_back
    while call is not None and not _is_user_file(call.f_code.co_filename):
        call = call.f_back
    return {
        "file": code.co_filename,
        "line": code.co_firstlineno,
        "function": getattr(code, "co_qualname", code.co_name),
        "param": params[0],
        "position": arguments.index(params[0]),
        "keyword_only": arguments.index(params[0]) >= code.co_argcount,
        "module_options": bool(decorator_locals.get("module_options")),
        "call": None if call is None else {"file": call.f_code.co_filename, "line": call.f_lineno,
                                           "function": call.f_code.co_name},
    }  # fmt: skip


class _WatchedConfig(type(sys)):
    """``warp.config``'s class while the probe runs: records assignments, holds pins."""

    def __setattr__(self, name, value):
        pins = self.__dict__.get("_warp_ct_pins") or {}
        recorder = self.__dict__.get("_warp_ct_recorder")
        if name in _WATCHED_CONFIG or name in pins:
            pinned = name in pins and pins[name] != value
            if recorder is not None:
                try:
                    _config_assigned(recorder, name, value, name in pins and pins[name] != value, sys._getframe(1))
                except Exception:
                    pass
            if recorder is not None and recorder.config_records < _MAX_CONFIG_RECORDS:
                recorder.config_records += 1
                caller = sys._getframe(1)
                recorder.write(
                    {
                        "kind": "config_set",
                        "t": time.time(),
                        "name": name,
                        "value": value if isinstance(value, (bool, int, float, str, type(None))) else repr(value),
                        "file": caller.f_code.co_filename,
                        "line": caller.f_lineno,
                        "ignored": pinned,
                    }
                )
            if pinned:
                return  # the lever being measured holds this value
        type(sys).__setattr__(self, name, value)


class _ExecMarks:
    """Remembers which ModuleExec objects were already recorded (attribute, else weak set)."""

    def __init__(self):
        self._weak = weakref.WeakSet()

    def seen(self, module_exec):
        if getattr(module_exec, "_warp_ct_recorded", False):
            return True
        try:
            module_exec._warp_ct_recorded = True
            return False
        except Exception:
            pass
        try:
            if module_exec in self._weak:
                return True
            self._weak.add(module_exec)
        except TypeError:
            return False
        return False


def _load_record(module, device, block_dim, result, wall_start, t0, native_ms, status, error):
    ms = (time.perf_counter() - t0) * 1000.0
    module_hash = getattr(result, "module_hash", None)
    if module_hash is None:
        try:
            module_hash = module.get_module_hash(block_dim) if block_dim is not None else module.get_module_hash()
        except Exception:
            module_hash = None
    if isinstance(module_hash, (bytes, bytearray)):
        module_hash = module_hash.hex()
    options = getattr(module, "options", {}) or {}
    config = sys.modules.get(_CONFIG_MODULE)
    resolved_block_dim = getattr(result, "block_dim", None)
    if resolved_block_dim is None:
        resolved_block_dim = block_dim if block_dim is not None else options.get("block_dim")
    return {
        "kind": "load",
        "module": getattr(module, "name", None),
        "hash": module_hash,
        "device": str(getattr(result, "device", None) or device),
        "block_dim": resolved_block_dim,
        "t0": wall_start,
        "ms": round(ms, 3),
        "native_ms": round(native_ms, 3) if status == "compiled" else (0.0 if status == "cached" else None),
        "status": status,
        "error": error,
        "thread": threading.get_ident(),
        "cache_dir": getattr(config, "kernel_cache_dir", None),
        "options": {k: options.get(k) for k in _RECORDED_OPTIONS if k in options},
        "option_names": sorted(str(k) for k in options),
        "config": {k: getattr(config, k) for k in _LOAD_CONFIG if hasattr(config, k)},
        "kernels": _kernel_sources(module),
    }


def _library_roots():
    """Directory prefixes whose frames are not the user's: Warp, the standard library,
    installed packages (site-packages/dist-packages) and this bootstrap."""
    roots = []
    warp = sys.modules.get("warp")
    warp_file = getattr(warp, "__file__", None)
    if warp_file:
        roots.append(os.path.dirname(os.path.abspath(warp_file)) + os.sep)
    roots.append(os.path.dirname(os.path.abspath(os.__file__)) + os.sep)
    roots.append(os.path.dirname(os.path.abspath(__file__)) + os.sep)
    return tuple(roots)


_roots_cache = []
_user_file_cache = {}


def _is_user_file(filename):
    known = _user_file_cache.get(filename)
    if known is not None:
        return known
    if not _roots_cache:
        _roots_cache.append(_library_roots())
    path = os.path.abspath(filename) if filename and not filename.startswith("<") else filename or ""
    user = not (
        path.startswith("<")
        or path.startswith(_roots_cache[0])
        or (os.sep + "site-packages" + os.sep) in path
        or (os.sep + "dist-packages" + os.sep) in path
    )
    if len(_user_file_cache) < 4096:
        _user_file_cache[filename] = user
    return user


def _package_of(filename):
    """``newton`` for .../site-packages/newton/..., ``warp`` for Warp's own files."""
    for marker in ("site-packages", "dist-packages"):
        part = os.sep + marker + os.sep
        if part in filename:
            rest = filename.split(part, 1)[1]
            return rest.split(os.sep, 1)[0].rsplit(".py", 1)[0]
    return None


def _user_frames(frame):
    """(frames, package): up to _MAX_FRAMES user frames from the innermost outwards, and the
    innermost installed package (not Warp) between them and Warp, if any."""
    frames, package, _entry = _user_frames_and_entry(frame)
    return frames, package


_OWN_FILE = __file__


def _user_frames_and_entry(frame):
    """``_user_frames`` and the *entry*: the outermost frame of Warp or a package below the
    innermost user frame, i.e. what the user's line called (``{"module": "warp._src.fem.integrate",
    "function": "interpolate"}`` when ``fem.interpolate`` added functions to a module; Warp's
    ``kernel`` decorator when the user defined a kernel), None when the event was the user's
    own code. Whether the cost arose inside a package is judged from it by the report."""
    frames = []
    package = None
    entry = None
    while frame is not None and len(frames) < _MAX_FRAMES:
        code = frame.f_code
        if _is_user_file(code.co_filename):
            frames.append({"file": code.co_filename, "line": frame.f_lineno, "function": code.co_name})
        elif not frames:
            if code.co_filename != _OWN_FILE:  # our wrappers (launch, load) stand in front of Warp's
                entry = frame
            if package is None:
                name = _package_of(code.co_filename)
                if name is not None and name != "warp":
                    package = name
        frame = frame.f_back
    if entry is not None and frames:
        globals_name = entry.f_globals.get("__name__")
        entry = {"module": globals_name if isinstance(globals_name, str) else None,
                 "function": getattr(entry.f_code, "co_qualname", entry.f_code.co_name),
                 "file": entry.f_code.co_filename}  # fmt: skip
    else:
        entry = None
    return frames, package, entry


def _value(value):
    return value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)


def _remember_cause(module, caller):
    """Called from Module.mark_modified on a loaded module: keep why and where on it."""
    what = caller.f_code.co_name
    cause = _MODIFIED_BY.get(what)
    detail = {}
    local_vars = caller.f_locals
    if cause is None:
        # mark_modified called by the user (after options.update) or by other Warp code
        cause = "options" if _is_user_file(caller.f_code.co_filename) else "modified"
        detail["called_from"] = what
    elif cause == "options":
        options = local_vars.get("options")
        if isinstance(options, dict):
            detail["options"] = {str(k): _value(v) for k, v in options.items()}
    elif cause == "generic_instance":
        owner = local_vars.get("self")
        detail["kernel"] = getattr(owner, "key", None)
        code = getattr(getattr(owner, "func", None), "__code__", None)
        if code is not None:
            detail["file"] = code.co_filename
            detail["line"] = code.co_firstlineno
        # declared by wp.overload (the user's line is the declaration) or made by a launch
        detail["explicit"] = False
        frame = caller.f_back
        while frame is not None and not _is_user_file(frame.f_code.co_filename):
            if frame.f_code.co_name == "overload":
                detail["explicit"] = True
                break
            frame = frame.f_back
        sig = local_vars.get("sig")
        detail["signature"] = None if sig is None else str(sig)
        arg_types = local_vars.get("arg_types")
        if arg_types is not None:
            try:
                detail["types"] = [_type_name(t) for t in arg_types]
            except Exception:
                pass
    else:
        item = local_vars.get("kernel") or local_vars.get("func") or local_vars.get("struct")
        detail["key"] = getattr(item, "key", None)
        func = getattr(item, "func", None)
        code = getattr(func, "__code__", None)
        if code is not None:
            detail["file"] = code.co_filename
            detail["line"] = code.co_firstlineno
    frames, package, entry = _user_frames_and_entry(caller.f_back)
    pending = module._warp_ct_pending
    if pending is None:
        pending = module._warp_ct_pending = []
    if len(pending) < _MAX_PENDING:
        pending.append({"cause": cause, "detail": detail, "frames": frames, "package": package, "entry": entry,
                        "t": time.time()})  # fmt: skip


def _remember_backward_option(module, caller):
    """``set_module_options({"enable_backward": ...})`` on a module not loaded yet: keep where,
    for the module's first load (the line that asked for backward code, WCT010)."""
    if caller.f_code.co_name != "set_module_options":
        return
    options = caller.f_locals.get("options")
    if not isinstance(options, dict) or "enable_backward" not in options:
        return
    frames, package = _user_frames(caller.f_back)
    module._warp_ct_backward_set = {"value": _value(options["enable_backward"]), "frames": frames, "package": package}


def _package_kernels_with_backward(record):
    """The load built backward code for kernels none of which is in a user file."""
    kernels = record.get("kernels") or []
    module_backward = bool((record.get("options") or {}).get("enable_backward"))
    return bool(kernels) and not any(_is_user_file(k.get("file")) for k in kernels) and any(
        k.get("backward", module_backward) for k in kernels
    )


def _hashed_additions(module, block_dim, causes):
    """``causes`` without the functions added to the module that none of its kernels calls:
    Warp hashes a module's kernels and the functions they reference, so such a function (a
    warp.fem integrand's, registered in the integrand's module) did not move the hash; what did
    is among the other causes (a captured module variable)."""
    hasher = (getattr(module, "hashers", None) or {}).get(block_dim)
    hashed = getattr(hasher, "function_hashes", None)
    if hashed is None:
        return causes
    keys = {getattr(function, "key", None) for function in hashed}
    return [c for c in causes if c.get("cause") != "function_added" or c.get("detail", {}).get("key") in keys]


def _write_causes(recorder, module, record):
    """After a real load: the pending causes of the module, a new block_dim, a unique module."""
    causes = module._warp_ct_pending or []
    module._warp_ct_pending = None
    block_dims = module._warp_ct_block_dims
    block_dim = record.get("block_dim")
    try:
        causes = _hashed_additions(module, block_dim, causes)
    except Exception:
        pass
    first_load = block_dims is None
    if first_load:
        block_dims = module._warp_ct_block_dims = set()
    new_block_dim = not first_load and block_dim not in block_dims
    block_dims.add(block_dim)
    try:
        causes = causes + _captured_global_causes(module, first_load)
    except Exception:
        pass
    load_frames = load_package = load_entry = None
    if new_block_dim or causes:
        load_frames, load_package, load_entry = _user_frames_and_entry(sys._getframe(2))
    if new_block_dim:
        causes = causes + [{
            "cause": "block_dim",
            "detail": {"block_dim": block_dim, "loaded_block_dims": sorted(b for b in block_dims if b != block_dim and b is not None)},
            "frames": load_frames, "package": load_package, "entry": load_entry, "t": time.time(),
        }]  # fmt: skip
    try:
        causes = causes + _config_causes(recorder, module, record, first_load)
    except Exception:
        pass
    backward_set = module._warp_ct_backward_set
    if first_load and backward_set is not None:
        module._warp_ct_backward_set = None
        causes = causes + [{"cause": "backward_option", "detail": {"enable_backward": backward_set["value"]},
                            "frames": backward_set["frames"], "package": backward_set["package"], "t": time.time()}]  # fmt: skip
    if first_load and _package_kernels_with_backward(record):
        # A module of Warp's or a package's kernels (warp.fem's integrands: the kernel is
        # integrate.py's, the integrand the user's) built with backward code: the user's
        # call that made the package build it (``fem.integrate(...)``), for WCT010.
        frames, package, entry = (
            (load_frames, load_package, load_entry) if load_frames is not None else _user_frames_and_entry(sys._getframe(2))
        )
        if frames and entry is not None:
            causes = causes + [{"cause": "package_build", "detail": {"enable_backward": True}, "frames": frames,
                                "package": package, "entry": entry, "t": time.time()}]  # fmt: skip
    if first_load and _is_unique_module(module):
        kernels = record.get("kernels") or []
        generic = any(getattr(k, "is_generic", False) for k in (getattr(module, "kernels", None) or {}).values())
        detail = {"key": kernels[0]["key"] if kernels else None, "generic": generic,
                  "created": getattr(module, "_warp_ct_created", None), "loaded": record.get("t0")}
        factory = getattr(module, "_warp_ct_factory", None)
        if factory is not None:
            detail["factory"] = factory
        causes = causes + [{
            "cause": "unique_module",
            "detail": detail,
            "frames": [{"file": k["file"], "line": k["line"], "function": k["key"]} for k in kernels[:1] if k.get("file")],
            "package": None, "t": time.time(),
        }]  # fmt: skip
    for cause in causes:
        if recorder.cause_records >= _MAX_CAUSE_RECORDS:
            return
        recorder.cause_records += 1
        out = {"kind": "cause", "module": record.get("module"), "hash": record.get("hash"),
               "device": record.get("device"), "block_dim": block_dim, "load_t0": record.get("t0"),
               "load_frames": load_frames, "load_entry": load_entry}  # fmt: skip
        out.update(cause)
        recorder.write(out)


# -- module variables hashed under a kernel's own names (WCT015) ----------------------------

_MAX_CAPTURED = 64  # (kernel, name) pairs remembered per module


def _own_names_read(item):
    """Names the body of a user kernel or ``wp.func`` reads that Python treats as its own (a
    parameter, a loop variable, a name assigned with ``+=``) but Warp does not: Warp 1.19's
    ``Adjoint.get_references`` leaves out only the targets of ``=`` in the body, so it looks
    each other name up in the module's globals and hashes a Warp value it finds there."""
    names = item.__dict__.get("_warp_ct_own_names")
    if names is None:
        names = ()
        adj = getattr(item, "adj", None)
        code = getattr(getattr(item, "func", None), "__code__", None)
        tree = getattr(adj, "tree", None)
        if code is not None and tree is not None and _is_user_file(code.co_filename):
            import ast

            assigned = adj.assigned_name_ids() if hasattr(adj, "assigned_name_ids") else frozenset(
                target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for top in node.targets for target in ast.walk(top) if isinstance(target, ast.Name))  # fmt: skip
            local = set(code.co_varnames) - set(assigned)
            names = tuple(sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in local}))
        item._warp_ct_own_names = names
    return names


def _captured_globals(items):
    """{(kernel key, name): repr of the value}: module variables Warp hashed into ``items`` (a
    module's kernels and functions by key; the user's only) under a name of their own
    (``loss = example.step()`` in a script, read by ``def add_loss(loss: wp.array(...))``)."""
    from warp._src.types import is_value

    out = {}
    for key, item in items.items():
        names = _own_names_read(item)
        if not names:
            continue
        scope = item.func.__globals__
        for name in names:
            value = scope.get(name)
            if value is not None and is_value(value) and len(out) < _MAX_CAPTURED:
                out[(key, name)] = repr(value)
    return out


def _captured_global_causes(module, first_load):
    """A real load after the first whose kernels hash a module variable that was unbound, or held
    another value, at the previous real load: that variable moved the module's hash."""
    items = {str(getattr(item, "key", "?")): item for item in
             [*(module.kernels or {}).values(), *(module.functions or {}).values()]}  # fmt: skip
    captured = _captured_globals(items)
    before, module._warp_ct_captured = module._warp_ct_captured, captured
    if first_load or before is None:
        return []
    out = []
    for (key, name), value in captured.items():
        if before.get((key, name)) == value:
            continue
        code = getattr(getattr(items.get(key), "func", None), "__code__", None)
        detail = {"kernel": key, "name": name, "before": before.get((key, name)), "after": value}
        frames = []
        if code is not None:
            detail["file"], detail["line"] = code.co_filename, code.co_firstlineno
            frames = [{"file": code.co_filename, "line": code.co_firstlineno, "function": code.co_name}]
        out.append({"cause": "captured_global", "detail": detail, "frames": frames, "package": None, "t": time.time()})
    return out


# -- config causes and cache removal (WCT001/WCT006 from wp.config, WCT008) ----------------


def _config_assigned(recorder, name, value, ignored, caller):
    """A watched ``wp.config`` option was assigned: remember where (for config causes) and
    report assignments that defeat the kernel cache."""
    if name in _HASH_TIME_CONFIG or name in _CREATION_CONFIG:
        frames, package = _user_frames(caller)
        recorder.last_config[name] = {"t": time.time(), "value": _value(value), "frames": frames,
                                      "package": package, "ignored": ignored}  # fmt: skip
    elif ignored or _is_warp_file(caller.f_code.co_filename):
        return  # a lever holds it, or Warp itself set it (init resolves kernel_cache_dir)
    elif name == "cache_kernels" and value is False:
        _cache_removal(recorder, "cache_kernels_off", None, caller)
    elif name == "kernel_cache_dir" and isinstance(value, (str, os.PathLike)) and _is_temporary_dir(value):
        _cache_removal(recorder, "temporary_kernel_cache_dir", os.fspath(value), caller)


def _is_warp_file(filename):
    warp_file = getattr(sys.modules.get("warp"), "__file__", None)
    return bool(warp_file) and os.path.abspath(filename).startswith(os.path.dirname(os.path.abspath(warp_file)) + os.sep)


def _is_temporary_dir(path):
    """Inside the system temp dir, and not the private cache the probe gave the run."""
    import tempfile

    real = os.path.realpath(os.fspath(path))
    private = os.environ.get("WARP_CACHE_PATH")
    if private and _inside(real, os.path.realpath(private)):
        return False
    return _inside(real, os.path.realpath(tempfile.gettempdir()))


def _inside(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


_atexit_registrations = []  # (function, args, kwargs, raw frames) of atexit.register calls
_removing = threading.local()  # set while a hooked removal runs (clear_kernel_cache -> rmtree)


def _raw_frames(frame):
    out = []
    while frame is not None and len(out) < _MAX_RAW_FRAMES:
        out.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    return out


def _watch_atexit():
    """Wrap ``atexit.register`` to remember where each function was registered (the frames
    are filtered for user code only when a registered function removes the cache)."""
    original = atexit.register
    if getattr(original, "_warp_ct_wrapped", False):
        return

    def register(func, *args, **kwargs):
        try:
            if len(_atexit_registrations) < _MAX_ATEXIT_REGISTRATIONS:
                _atexit_registrations.append((func, args, kwargs, _raw_frames(sys._getframe(1))))
        except Exception:
            pass
        return original(func, *args, **kwargs)

    register._warp_ct_wrapped = True
    register.__wrapped__ = original
    atexit.register = register


def _code_of(func):
    func = getattr(func, "func", func)  # functools.partial
    return getattr(func, "__code__", None)


def _atexit_frames(call_frame, args, kwargs, func=None):
    """The user frames of the ``atexit.register`` call that registered the function now
    running at exit (the outermost frame of the stack), or None when not run by atexit."""
    outer = call_frame
    while outer.f_back is not None:
        outer = outer.f_back
    if outer is call_frame and func is not None:  # the hooked function itself was registered
        candidates = [r for r in _atexit_registrations if r[0] is func]
    else:
        candidates = [r for r in _atexit_registrations if _code_of(r[0]) is outer.f_code]
    if not candidates:
        return None
    exact = [r for r in candidates if r[1] == args and r[2] == kwargs]
    raw = (exact or candidates)[-1][3]
    return [{"file": f, "line": n, "function": c} for f, n, c in raw if _is_user_file(f)][:_MAX_FRAMES]


def _cache_removal(recorder, what, path, caller, args=(), kwargs=None, call_frame=None, func=None):
    if recorder.cache_records >= _MAX_CACHE_RECORDS:
        return
    recorder.cache_records += 1
    frames, package = _user_frames(caller)
    at_exit = _atexit_frames(call_frame or caller, args, kwargs or {}, func)
    recorder.write({"kind": "cache_removal", "t": time.time(), "what": what, "path": path, "frames": frames,
                    "package": package, "atexit_frames": at_exit})  # fmt: skip


def _kernel_cache_dir():
    config = sys.modules.get(_CONFIG_MODULE)
    cache = getattr(config, "kernel_cache_dir", None) or os.environ.get("WARP_CACHE_PATH")
    return os.path.realpath(os.fspath(cache)) if cache else None


def _removes_cache(path):
    """``path`` is the kernel cache directory, a folder above it, or a part of it."""
    try:
        cache = _kernel_cache_dir()
        if cache is None:
            return False
        target = os.path.realpath(os.fspath(path))
        return _inside(target, cache) or _inside(cache, target)
    except Exception:
        return False


def _hooked_removal(recorder, what, original):
    """``clear_kernel_cache`` / ``clear_lto_cache`` / ``shutil.rmtree`` of the cache."""

    def removal(*args, **kwargs):
        active = getattr(_removing, "active", False)
        if not active:
            frame = direct = None
            try:
                path = args[0] if args else kwargs.get("path")
                frame = sys._getframe(0)
                direct = frame.f_back
                user_call = direct is None or _is_user_file(direct.f_code.co_filename)
                if what != "rmtree" or (user_call and path is not None and _removes_cache(path)):
                    _cache_removal(recorder, what, None if path is None else str(path), frame.f_back, args, kwargs, frame,
                                   removal)
            except Exception:
                pass
            finally:
                # This frame held in its own locals is a cycle: it would keep its callers'
                # locals alive (Warp's build removes temp dirs with rmtree while it holds the
                # module's kernels) until the collector runs, and a module's hash counts the
                # kernels still alive: cold and warm runs then hashed the same module apart.
                del frame, direct
        _removing.active = True
        try:
            return original(*args, **kwargs)
        finally:
            _removing.active = active

    removal._warp_ct_wrapped = True
    removal.__wrapped__ = original
    removal.__name__ = getattr(original, "__name__", what)
    return removal


def _config_causes(recorder, module, record, first_load):
    """Causes from ``wp.config``: a hash-time option that changed since this module's previous
    load when the hash changed, and a creation-time option assigned after the module was made
    that never reached it."""
    config = record.get("config") or {}
    options = getattr(module, "options", None) or {}
    out = []
    previous = getattr(module, "_warp_ct_last_load", None)
    if previous is not None and previous[0] != record.get("hash"):
        for name in _HASH_TIME_CONFIG:
            if name in options and options.get(name) is not None:
                continue  # the module's own value wins: the global one did not move its hash
            if name in config and previous[1].get(name) != config.get(name):
                assigned = recorder.last_config.get(name) or {}
                out.append({"cause": "config", "detail": {"option": name, "before": _value(previous[1].get(name)),
                                                           "after": _value(config.get(name))},
                            "frames": assigned.get("frames") or [], "package": assigned.get("package"), "t": time.time()})  # fmt: skip
    module._warp_ct_last_load = (record.get("hash"), dict(config))
    created = getattr(module, "_warp_ct_created", None)
    reported = getattr(module, "_warp_ct_ignored_config", None)
    for name in _CREATION_CONFIG:
        assigned = recorder.last_config.get(name)
        if not assigned or assigned.get("ignored") or created is None or assigned["t"] <= created:
            continue
        if name not in options or options.get(name) == config.get(name) or (reported and name in reported):
            continue
        if reported is None:
            reported = module._warp_ct_ignored_config = set()
        reported.add(name)
        out.append({"cause": "config_ignored", "detail": {"option": name, "value": assigned.get("value"),
                                                           "module_value": _value(options.get(name))},
                    "frames": assigned.get("frames") or [], "package": assigned.get("package"), "t": time.time()})  # fmt: skip
    return out


def _is_unique_module(module):
    """A module made by ``module="unique"``: named ``<kernel key>_<hash8>``, one kernel."""
    kernels = getattr(module, "kernels", None) or {}
    name = getattr(module, "name", "") or ""
    if len(kernels) != 1:
        return False
    (key,) = kernels
    suffix = name[len(key) + 1:] if name.startswith(str(key) + "_") else ""
    return len(suffix) == 8 and all(c in "0123456789abcdef" for c in suffix)


# Declared argument types per kernel, weakly keyed: holding a kernel alive would keep it
# in its module's live-kernel set and change the module hash we are measuring.
_declared_types = weakref.WeakKeyDictionary()


def _launch_signature(kernel, dim, args, kwargs, local):
    # launch(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device, stream, adjoint, ...)
    inputs = kwargs.get("inputs", args[0] if len(args) > 0 else ())
    outputs = kwargs.get("outputs", args[1] if len(args) > 1 else ())
    adjoint = bool(kwargs.get("adjoint", args[6] if len(args) > 6 else False))
    device = local.last_device
    if device is None:
        device = kwargs.get("device", args[4] if len(args) > 4 else None)
    if getattr(kernel, "is_generic", False):
        dtypes = tuple(_describe_argument(a) for a in list(inputs or ()) + list(outputs or ()))
    else:
        try:
            dtypes = _declared_types.get(kernel)
        except TypeError:
            dtypes = None
        if dtypes is None:
            arg_list = getattr(getattr(kernel, "adj", None), "args", None) or []
            dtypes = tuple(_type_name(getattr(a, "type", a)) for a in arg_list)
            try:
                _declared_types[kernel] = dtypes
            except TypeError:
                pass
    module = getattr(getattr(kernel, "module", None), "name", None)
    return (
        getattr(kernel, "key", repr(kernel)),
        module,
        _normalize_dim(dim),
        None if device is None else str(device),
        dtypes,
        local.last_block_dim,
        adjoint,
    )


class _WarpImportWatcher(importlib.abc.MetaPathFinder):
    """Patches Warp's modules right after they execute, before user code can bind names."""

    def __init__(self, hooks):
        self.hooks = hooks
        self.busy = set()

    def find_spec(self, fullname, path=None, target=None):
        if (
            fullname not in _CONTEXT_MODULES
            and fullname not in _BUILD_MODULES
            and fullname not in _TAPE_MODULES
            and fullname not in ("warp", _CONFIG_MODULE)
        ):
            return None
        if fullname in self.busy:
            return None
        self.busy.add(fullname)
        try:
            spec = importlib.util.find_spec(fullname)
        except Exception:
            spec = None
        finally:
            self.busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _PatchingLoader(spec.loader, fullname, self.hooks)
        return spec


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner, fullname, hooks):
        self.inner = inner
        self.fullname = fullname
        self.hooks = hooks

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        if self.fullname in _BUILD_MODULES:
            self.inner.exec_module(module)
            self.hooks.wrap_build(module)
        elif self.fullname in _CONTEXT_MODULES:
            self.inner.exec_module(module)
            self.hooks.wrap_context(module)
        elif self.fullname in _TAPE_MODULES:
            self.inner.exec_module(module)
            self.hooks.wrap_tape(module)
        elif self.fullname == _CONFIG_MODULE:
            self.inner.exec_module(module)
            self.hooks.watch_config(module)
        else:  # the "warp" package itself: patch what its __init__ re-exported
            self.inner.exec_module(module)
            for name in _CONTEXT_MODULES:
                context = sys.modules.get(name)
                if context is not None:
                    self.hooks.wrap_context(context)
            for name in _BUILD_MODULES:
                build = sys.modules.get(name)
                if build is not None:
                    self.hooks.wrap_build(build)
            for name in _TAPE_MODULES:
                tape = sys.modules.get(name)
                if tape is not None:
                    self.hooks.wrap_tape(tape)
            config = sys.modules.get(_CONFIG_MODULE)
            if config is not None:
                self.hooks.watch_config(config)
            context_launch = None
            for name in _CONTEXT_MODULES:
                context_launch = getattr(sys.modules.get(name), "launch", None) or context_launch
            if context_launch is not None and getattr(context_launch, "_warp_ct_wrapped", False):
                module.launch = context_launch
            self.hooks.announce(module)

    def __getattr__(self, name):  # get_resource_reader, is_package, ... of the real loader
        return getattr(self.inner, name)


def _chain_next_sitecustomize():
    """Import the sitecustomize that ``site`` would have found without our directory."""
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    original_path = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        importlib.import_module("sitecustomize")
    except ModuleNotFoundError as error:
        if error.name != "sitecustomize":
            raise
    finally:
        chained = sys.modules.get("sitecustomize")
        added = [p for p in sys.path if p not in original_path]
        sys.path[:] = [p for p in original_path if os.path.abspath(p or os.curdir) != here] + added
        if ours is not None:
            sys.modules["_warp_ct_probe_bootstrap"] = ours
        if chained is None and ours is not None:
            sys.modules["sitecustomize"] = ours


# ``--cuda-arch`` (see ``_warp_ct_cuda_compile.py``, copied beside this file): the loaded
# helper module while CUDA builds are asked for, else empty (launches pay one list test).
_cuda_builds = []
_CUDA_HELPER = "_warp_ct_cuda_compile.py"


def _install_cuda_builds(recorder):
    if not os.environ.get("WARP_CT_PROBE_CUDA_ARCHS"):
        return
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), _CUDA_HELPER)
    spec = importlib.util.spec_from_file_location("_warp_ct_cuda_compile", path)
    if spec is None or spec.loader is None or not os.path.isfile(path):
        return
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    archs = helper.archs_from_env()
    if not archs:
        return
    _cuda_builds.append(helper)
    install_pid = os.getpid()

    def build_at_exit():
        with recorder.lock:
            used = {module for (_key, module), _count in recorder.taped.items()}
            used.update(sig[1] for sig in recorder.signatures if sig[6])  # adjoint=True launches
        try:
            helper.compile_loaded_modules(recorder.write, archs, used, forked=os.getpid() != install_pid)
        except Exception as error:
            recorder.write({"kind": "cuda_end", "t": time.time(), "error": repr(error)[:500]})

    atexit.register(build_at_exit)


def _install():
    records_dir = os.environ.get(_RECORDS_DIR_ENV)
    if not records_dir or not os.path.isdir(records_dir):
        return
    recorder = _Recorder(records_dir)
    lever = None
    lever_text = os.environ.get(_LEVER_ENV)
    if lever_text:
        try:
            lever = json.loads(lever_text)
        except ValueError:
            sys.stderr.write("warp-ct probe: ignoring malformed %s\n" % _LEVER_ENV)
    hooks = _Hooks(recorder, lever if isinstance(lever, dict) else None)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=recorder.after_fork_in_child)
    atexit.register(recorder.flush_launches)
    _install_cuda_builds(recorder)  # --cuda-arch: CUDA builds at exit (after the program's own atexit work)
    _watch_atexit()

    previous_excepthook = sys.excepthook

    def excepthook(exc_type, exc, tb):
        recorder.write(
            {
                "kind": "uncaught",
                "t": time.time(),
                "type": getattr(exc_type, "__name__", str(exc_type)),
                "message": str(exc)[:500],
                "missing_module": getattr(exc, "name", None) if isinstance(exc, ImportError) else None,
            }
        )
        previous_excepthook(exc_type, exc, tb)

    sys.excepthook = excepthook
    sys.meta_path.insert(0, _WarpImportWatcher(hooks))


try:
    _install()
except Exception as _error:  # the probe must never break the measured program
    sys.stderr.write("warp-ct probe: bootstrap disabled: %r\n" % (_error,))

_chain_next_sitecustomize()
