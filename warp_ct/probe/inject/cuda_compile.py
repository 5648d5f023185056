"""warp-ct probe: CUDA builds through NVRTC at the exit of a measured process (``--cuda-arch``).

``warp-ct probe measure --cuda-arch 86,90`` runs the command once more per sample after its
cold and warm runs (so this work never counts in their walls), in the same private caches,
with ``$WARP_CT_PROBE_CUDA_ARCHS`` set. The bootstrap (``sitecustomize.py``) then remembers,
per module and per process, the block_dims its launches asked for (and the first user line
that asked for each), and at exit calls :func:`compile_loaded_modules`: every module this
process loaded is compiled for each arch, at each of those block_dims, with its own options
(``Module._compile(None, dir, output_arch=A, options=...)``, what ``wp.compile_aot_module``
does, at a chosen block_dim). Warp's wheel carries NVRTC, so this runs without a GPU or a
driver: CUDA compile is host CPU work.

One ``cuda_build`` JSON line per build: module, CUDA hash, arch, block_dim, whether backward
code was in it, wall milliseconds of the build (codegen + NVRTC), NVRTC milliseconds, the
artifact's format (``ptx``/``cubin``) and bytes, the generated ``.cu`` bytes. A module that
built backward code that no ``wp.Tape`` recorded and no ``adjoint=True`` launch used in this
process is compiled once more without it (at its first block_dim): the measured CUDA share
of the backward code.

Artifacts go under ``$WARP_CACHE_PATH/warp-ct-cuda/`` (the probe's private cache, never the
module directories the program's own loads use, nor a ``kernel_cache_dir`` the program set),
LTO IR under ``warp-ct-cuda/cache/lto`` (``no-backward-cache/lto`` for the builds without
backward code). Where a GPU is present, its archs are
skipped: the program's real loads measured them.

Self-contained like the bootstrap (no ``warp_ct`` import; Python 3.8+). Imported by the
bootstrap from the same private directory.
"""

import os
import sys
import threading
import time

CUDA_ARCHS_ENV = "WARP_CT_PROBE_CUDA_ARCHS"
_CONTEXT_MODULES = ("warp._src.context", "warp.context")
_BUILD_MODULES = ("warp._src.build", "warp.build")
_DEFAULT_CUDA_BLOCK_DIM = 256  # what wp.launch resolves an omitted block_dim to on CUDA
_MAX_BUILDS = 2000
_MAX_FRAMES = 4


def archs_from_env():
    """The archs asked for in ``$WARP_CT_PROBE_CUDA_ARCHS`` ("86,90"), or () when unset."""
    text = os.environ.get(CUDA_ARCHS_ENV) or ""
    out = []
    for part in text.replace(" ", ",").split(","):
        part = part.strip().lower()
        if part.startswith("sm_"):
            part = part[3:]
        if part.isdigit() and int(part) not in out:
            out.append(int(part))
    return tuple(out)


_tiled = threading.local()  # the block_dim a wp.launch_tiled call was given, while it runs


def wrap_launch_tiled(context):
    """``launch_tiled`` resolves its block_dim for the device (1 on CPU) before it calls
    ``launch``: remember the block_dim it was given, for the launch it makes."""
    original = getattr(context, "launch_tiled", None)
    if original is None or getattr(original, "_warp_ct_cuda_wrapped", False):
        return

    def launch_tiled(*args, **kwargs):
        previous = getattr(_tiled, "block_dim", None)
        _tiled.block_dim = kwargs.get("block_dim")
        try:
            return original(*args, **kwargs)
        finally:
            _tiled.block_dim = previous

    launch_tiled._warp_ct_cuda_wrapped = True
    launch_tiled.__wrapped__ = original
    for name in ("__name__", "__qualname__", "__doc__"):
        try:
            setattr(launch_tiled, name, getattr(original, name))
        except (AttributeError, TypeError):
            pass
    context.launch_tiled = launch_tiled


def requested_block_dim(args, kwargs):
    """The block_dim a ``wp.launch(kernel, dim, *args, **kwargs)`` resolves to on CUDA."""
    value = kwargs.get("block_dim", args[10] if len(args) > 10 else None)
    tiled = getattr(_tiled, "block_dim", None)
    if tiled is not None:
        value = tiled
    try:
        value = int(value) if value is not None else None
    except (TypeError, ValueError):
        value = None
    return value if value is not None and value > 0 else _DEFAULT_CUDA_BLOCK_DIM


def remember_launch(kernel, args, kwargs, user_frames, caller):
    """Called by the bootstrap's launch hook: the block_dim this launch asks for on CUDA, per
    module and process, with the user frames of the first launch that asked for it (the
    stack is walked once per module and block_dim, never per launch)."""
    module = getattr(kernel, "module", None)
    if module is None:
        return
    given = kwargs.get("block_dim", args[10] if len(args) > 10 else None)
    if bool(kwargs.get("adjoint", args[6] if len(args) > 6 else False)) or type(given).__name__ == "_ResolvedBlockDim":
        return  # tape.backward's replay of a recorded launch: the block_dim resolved for the device it ran on
    block_dim = requested_block_dim(args, kwargs)
    pid = os.getpid()
    seen = getattr(module, "_warp_ct_cuda_launches", None)
    if seen is None or seen[0] != pid:  # a forked child starts its own list
        seen = (pid, {})
        module._warp_ct_cuda_launches = seen
    if block_dim in seen[1]:
        return
    frames, _package = user_frames(caller)
    seen[1][block_dim] = {"order": len(seen[1]), "frames": frames[:_MAX_FRAMES], "kernel": getattr(kernel, "key", None)}


def _context():
    for name in _CONTEXT_MODULES:
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "user_modules"):
            return module
    return None


def _build_module():
    for name in _BUILD_MODULES:
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "build_cuda"):
            return module
    return None


def _present_archs(context):
    """Archs of the CUDA devices of this process (their real loads are the measurement)."""
    runtime = getattr(context, "runtime", None)
    out = set()
    try:
        for device in getattr(runtime, "cuda_devices", None) or ():
            arch = getattr(device, "arch", None)
            if isinstance(arch, int):
                out.add(arch)
    except Exception:
        pass
    return out


def _has_backward(module, options):
    """Whether a build with ``options`` holds adjoint code (a kernel's own option wins)."""
    try:
        kernels = list(module._get_live_kernels())
    except Exception:
        kernels = list((getattr(module, "kernels", None) or {}).values())
    for kernel in kernels:
        own = (getattr(kernel, "options", None) or {}).get("enable_backward")
        if (options.get("enable_backward") if own is None else own):
            return True
    return False


def _kernel_sources(module):
    try:
        kernels = list(module._get_live_kernels())
    except Exception:
        kernels = list((getattr(module, "kernels", None) or {}).values())
    out = []
    for kernel in kernels[:64]:
        code = getattr(getattr(kernel, "func", None), "__code__", None)
        out.append({"key": getattr(kernel, "key", "?"), "file": getattr(code, "co_filename", None),
                    "line": getattr(code, "co_firstlineno", None)})  # fmt: skip
    out.sort(key=lambda k: (str(k["file"]), k["line"] or 0, k["key"]))
    return out


def _loaded_modules(context, forked):
    """(module, {block_dim: launch info}) for each module this process loaded or launched."""
    out = []
    seen = set()
    pid = os.getpid()
    for module in list(getattr(context, "user_modules", {}).values()):
        if id(module) in seen:
            continue
        seen.add(id(module))
        launches = getattr(module, "_warp_ct_cuda_launches", None)
        if launches is not None and launches[0] == pid and launches[1]:
            out.append((module, dict(launches[1])))
        elif launches is None and getattr(module, "execs", None) and not forked:
            # loaded without a launch (force_load, load_module, get_suggested_block_size):
            # at the module's own block_dim
            block_dim = (getattr(module, "options", None) or {}).get("block_dim") or _DEFAULT_CUDA_BLOCK_DIM
            out.append((module, {int(block_dim): {"order": 0, "frames": [], "kernel": None}}))
    return out


def _artifact(directory):
    """(format, bytes, .cu bytes) of the build written into ``directory``."""
    kind, size, source = None, 0, 0
    try:
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            if name.endswith((".ptx", ".cubin")):
                kind = name.rsplit(".", 1)[1]
                size += os.path.getsize(path)
            elif name.endswith(".cu"):
                source += os.path.getsize(path)
    except OSError:
        pass
    return kind, size, source


def _compile_one(context, module, arch, block_dim, backward_off, root, nvrtc_ms):
    """Build ``module`` for ``arch`` at ``block_dim``; returns the record's measured fields."""
    import warp

    config = warp.config
    options = module.resolve_options(config, block_dim=block_dim)
    module_hash = module.get_module_hash(block_dim)
    identifier = module.get_module_identifier(block_dim=block_dim)
    if backward_off:
        options = dict(options)
        options["enable_backward"] = False
    directory = os.path.join(root, "sm%d" % arch, identifier + ("-nobackward" if backward_off else ""))
    nvrtc_ms[0] = 0.0
    saved_cache = config.kernel_cache_dir
    # LTO IR (MathDx) is cached in <kernel_cache_dir>/lto: keep it in the probe's private cache
    # (a program may point kernel_cache_dir elsewhere), and give the builds without backward
    # code an LTO cache of their own, so they pay their forward LTO as a program without
    # backward code would, instead of reusing what the build with backward code made.
    _set_config(config, "kernel_cache_dir", os.path.join(root, "no-backward-cache" if backward_off else "cache"))
    t0 = time.perf_counter()
    try:
        built = module._compile(None, directory, output_arch=arch, options=options)
    finally:
        ms = (time.perf_counter() - t0) * 1000.0
        _set_config(config, "kernel_cache_dir", saved_cache)
    kind, size, source = _artifact(directory)
    return {
        "hash": module_hash.hex() if isinstance(module_hash, (bytes, bytearray)) else str(module_hash),
        "status": "compiled" if built is not False else "cached",
        "ms": round(ms, 3),
        "nvrtc_ms": round(nvrtc_ms[0], 3),
        "format": kind,
        "bytes": size,
        "source_bytes": source,
        "backward": _has_backward(module, options),
        "options": {k: options.get(k) for k in ("mode", "optimization_level", "fast_math", "lineinfo", "max_unroll")
                    if k in options},  # fmt: skip
    }


def _set_config(config, name, value):
    """Set a ``warp.config`` value without the bootstrap's assignment recording."""
    type(sys).__setattr__(config, name, value)


def compile_loaded_modules(write, archs, differentiated=(), forked=False):
    """Compile every module this process loaded for ``archs``; ``write(record)`` each result.

    ``differentiated``: names of modules whose kernels a ``wp.Tape`` recorded or an
    ``adjoint=True`` launch ran (their backward code is used: no build without it).
    """
    context = _context()
    if context is None or not archs:
        return
    import warp

    started = time.time()
    present = _present_archs(context)
    skipped = [a for a in archs if a in present]
    archs = [a for a in archs if a not in present]
    modules = _loaded_modules(context, forked)
    # the probe's private cache, even when the program set wp.config.kernel_cache_dir elsewhere
    cache = os.environ.get("WARP_CACHE_PATH") or getattr(warp.config, "kernel_cache_dir", None) or "."
    root = os.path.join(str(cache), "warp-ct-cuda")
    if modules and not _supported(modules[0][0]):
        write({"kind": "cuda_start", "t": started, "archs": [], "skipped_archs": skipped, "modules": len(modules),
               "toolkit": _toolkit(context),
               "note": "this Warp release cannot compile a module for an arch at a chosen block_dim (Warp 1.19 can): "
                       "no CUDA builds"})  # fmt: skip
        write({"kind": "cuda_end", "t": time.time(), "builds": 0, "wall_s": 0.0})
        return
    build = _build_module()
    nvrtc_ms = [0.0]
    original = getattr(build, "build_cuda", None) if build is not None else None

    def timed_build_cuda(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            nvrtc_ms[0] += (time.perf_counter() - t0) * 1000.0

    if original is not None:
        build.build_cuda = timed_build_cuda
    count = 0
    try:
        write({"kind": "cuda_start", "t": started, "archs": list(archs), "skipped_archs": skipped,
               "modules": len(modules), "toolkit": _toolkit(context)})  # fmt: skip
        for arch in archs:
            for module, launches in modules:
                ordered = sorted(launches.items(), key=lambda item: item[1]["order"])
                variants = [(block_dim, info, False) for block_dim, info in ordered]
                if ordered and getattr(module, "name", None) not in differentiated:
                    first_block_dim, first_info = ordered[0]
                    try:
                        options = module.resolve_options(warp.config, block_dim=first_block_dim)
                        if _has_backward(module, options):
                            variants.append((first_block_dim, first_info, True))
                    except Exception:
                        pass
                for block_dim, info, backward_off in variants:
                    if count >= _MAX_BUILDS:
                        return
                    count += 1
                    record = {"kind": "cuda_build", "t": time.time(), "module": getattr(module, "name", None),
                              "arch": arch, "block_dim": block_dim, "variant": "no_backward" if backward_off else "as_run",
                              "launch_order": info.get("order"), "frames": info.get("frames") or [],
                              "kernel": info.get("kernel"), "kernels": _kernel_sources(module)}  # fmt: skip
                    try:
                        record.update(_compile_one(context, module, arch, block_dim, backward_off, root, nvrtc_ms))
                        record["error"] = None
                    except Exception as error:  # one module's failure must not hide the others
                        record.update({"status": "error", "error": ("%s: %s" % (type(error).__name__, error))[:500]})
                    write(record)
    finally:
        if original is not None:
            build.build_cuda = original
        write({"kind": "cuda_end", "t": time.time(), "builds": count, "wall_s": round(time.time() - started, 3)})


def _supported(module):
    """``Module.resolve_options(config, block_dim=)`` and ``Module._compile(..., options=)``."""
    import inspect

    try:
        resolve = inspect.signature(module.resolve_options).parameters
        compile_ = inspect.signature(module._compile).parameters
    except (AttributeError, TypeError, ValueError):
        return False
    return "block_dim" in resolve and "options" in compile_ and "output_arch" in compile_


def _toolkit(context):
    version = getattr(getattr(context, "runtime", None), "toolkit_version", None)
    try:
        return ".".join(str(v) for v in version) if version else None
    except TypeError:
        return None
