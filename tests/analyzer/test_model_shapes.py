"""Shapes of how real packages reach their kernels, and what the program model resolves for
each launch (issue 36 item 2): the kernels a launch can run, by name, or None where the model
does not follow it (unknown stays unknown: the rules stay silent there).
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.analyzer.helpers import write_files
from warp_ct.analyzer.engine import Linter, read_source
from warp_ct.analyzer.facts import Value
from warp_ct.analyzer.program import FunctionRef, KernelRef
from warp_ct.analyzer.project import deactivate
from warp_ct.config import load_config


def launched(tmp_path: Path, files: dict[str, str]) -> dict[tuple[str, int], list[str] | None]:
    """(file, line) of each launch -> the names of the kernels the model resolves it to
    (sorted), or None where any of them is unknown."""
    write_files(tmp_path, files)
    linter = Linter(load_config(tmp_path))
    paths = sorted(str(tmp_path / name) for name in files if name.endswith(".py"))
    linter.add_to_project([read_source(path) for path in paths])
    project = linter.project
    try:
        project.freeze()
        program = project.program()
        out: dict[tuple[str, int], list[str] | None] = {}
        for path in paths:
            facts = project.facts(project.files.get(path))
            for index, launch in enumerate(facts.launches):
                if not launch.kind.startswith("launch"):
                    continue
                found = program.launch_kernels(facts.module, index)
                key = (os.path.relpath(path, tmp_path), launch.span[0])
                if found and all(isinstance(ref, KernelRef) for ref in found):
                    out[key] = sorted({program.kernel(ref).name for ref in found})
                else:
                    out[key] = None
        return out
    finally:
        deactivate(project)


PYPROJECT = '[project]\nname = "pkg"\n'


def test_a_table_row_holds_its_kernel_beside_a_signature_of_literals(tmp_path):
    # ``kernel, signature = specs[(component, batched)]``: the rows' literal tuples hold no kernel.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
import warp as wp


@wp.kernel
def fill(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def energy(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


def get_kernel(component, batched=False):
    specs = {
        ("fill", False): (fill, ("f", "f64")),
        ("energy", False): (energy, ("f",)),
    }
    kernel, signature = specs[(component, batched)]
    return wp.overload(kernel, [wp.array(dtype=float) for token in signature])


def run(a):
    wp.launch(get_kernel("fill"), dim=1, inputs=[a])
""",
    }
    # ``get_kernel("fill")``: the rows keyed ("fill", False) only.
    assert launched(tmp_path, files) == {("pkg/k.py", 24): ["fill"]}


def test_a_long_chain_of_choices_and_tables_in_one_expression_is_followed(tmp_path):
    # The parts of one expression do not use up the depth the model follows calls to.
    choices = " else ".join(f"k{i} if mode == {i}" for i in range(8)) + " else k8"
    kernels = "".join(
        f"\n\n@wp.kernel\ndef k{i}(a: wp.array(dtype=float)):\n    a[wp.tid()] = {i}.0\n" for i in range(9)
    )
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": f"""\
import warp as wp
{kernels}

def pick(mode, component):
    chosen = {choices}
    table = {{"a": (chosen, ("f",)), "b": (k0, ("f",))}}
    kernel, signature = table[component]
    return wp.overload(kernel, [wp.array(dtype=float)])


def outer(mode, component):
    return pick(mode, component)


def outermost(mode, component):
    return outer(mode, component)


def run(a, mode):
    wp.launch(outermost(mode, "a"), dim=1, inputs=[a])
""",
    }
    (names,) = launched(tmp_path, files).values()
    assert names == [f"k{i}" for i in range(9)]


FACTORY_TYPED = """\
from typing import NamedTuple

import warp as wp


class Kernels(NamedTuple):
    reduce: wp.Kernel
    atom: wp.Kernel
    virial: wp.Kernel


def make_primary(dtype):
    @wp.kernel
    def reduce(a: wp.array(dtype=dtype)):
        a[wp.tid()] = dtype(0.0)

    @wp.kernel
    def atom(a: wp.array(dtype=dtype)):
        a[wp.tid()] = dtype(1.0)

    return reduce, atom


@wp.kernel
def double_virial(a: wp.array(dtype=float)):
    a[wp.tid()] = 3.0


def make_double(dtype) -> Kernels:
    reduce, atom = make_primary(dtype)
    return Kernels(reduce=reduce, atom=atom, virial=None)


def get_kernels(dtype, order: str, cell_grad: bool) -> Kernels:
    if order == "double":
        return make_double(dtype)
    reduce_kernel, atom_kernel = make_primary(dtype)
    virial = double_virial if cell_grad else None
    return Kernels(reduce=reduce_kernel, atom=atom_kernel, virial=virial)


def run(a, dtype, order, cell_grad):
    kernels = get_kernels(dtype, order, cell_grad)
    wp.launch(kernels.reduce, dim=1, inputs=[a])
    wp.launch(kernels.atom, dim=1, inputs=[a])
    if cell_grad:
        wp.launch(kernels.virial, dim=1, inputs=[a])
"""


def test_the_fields_of_an_object_a_typed_factory_returns_are_its_constructor_arguments(tmp_path):
    # ``def get_kernels(dtype, order, cell_grad) -> Kernels``: the factory's own arguments are not
    # the NamedTuple's fields; its ``return Kernels(reduce=..., ...)`` says what they hold, and a
    # field one return sets to None holds no kernel there.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": FACTORY_TYPED}
    assert launched(tmp_path, files) == {
        ("pkg/k.py", 44): ["reduce"],
        ("pkg/k.py", 45): ["atom"],
        ("pkg/k.py", 47): ["double_virial"],
    }


def test_a_typed_factory_whose_field_comes_from_its_own_argument_stays_unknown(tmp_path):
    # The factory's argument is not the field: ``make(step)`` -> ``Kernels(fill=...)`` built
    # from an unknown call stays unknown, never the argument at the field's position.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
from typing import NamedTuple

import warp as wp

from other import lookup


class Kernels(NamedTuple):
    fill: wp.Kernel


@wp.kernel
def step(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


def make(kernel) -> Kernels:
    return Kernels(fill=lookup(kernel))


def run(a):
    wp.launch(make(step).fill, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 22): None}


def test_a_lookup_with_get_in_a_table_of_tables_filled_entry_by_entry(tmp_path):
    # ``_TABLES[dtype][order] = wp.overload(...)`` fills a table of tables; ``.get(dtype, {}).get(order)``
    # and ``_FLAT.get(dtype)`` read an entry (or None: no kernel).
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
from typing import Any

import warp as wp


@wp.kernel
def spread(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(1.0)


@wp.kernel
def gather(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(2.0)


_TABLES = {wp.float32: {}, wp.float64: {}}
for _order in (3, 4):
    for _scalar in (wp.float32, wp.float64):
        _TABLES[_scalar][_order] = wp.overload(spread, [wp.array(dtype=_scalar)])

_FLAT = {wp.float32: gather, wp.float64: gather}


def run(a, dtype, order):
    per_order = _TABLES.get(dtype, {}).get(order)
    if per_order is not None:
        wp.launch(per_order, dim=1, inputs=[a])
    wp.launch(_TABLES[dtype].get(order), dim=1, inputs=[a])
    kernel = _FLAT.get(dtype)
    wp.launch(kernel, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {
        ("pkg/k.py", 27): ["spread"],
        ("pkg/k.py", 28): ["spread"],
        ("pkg/k.py", 30): ["gather"],
    }


def test_get_on_an_object_that_is_no_table_stays_unknown(tmp_path):
    # ``registry.get(name)`` of an object (not a dict the project builds) says nothing of
    # what it returns; neither does ``.get`` on a parameter the model cannot see.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
import warp as wp

from other import Registry

REGISTRY = Registry()


def run(a, name, table):
    wp.launch(REGISTRY.get(name), dim=1, inputs=[a])
    wp.launch(table.get(name), dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 9): None, ("pkg/k.py", 10): None}


def test_a_kernel_made_by_calling_wp_kernel_on_a_function(tmp_path):
    # ``wp.kernel(enable_backward=False, module="unique")(fn)`` and ``wp.kernel(fn)`` in a cached
    # factory are kernels made where the call runs, as ``@wp.kernel`` makes them.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
import warp as wp

_CACHE = {}


def get_solver(n: int):
    key = int(n)
    if key in _CACHE:
        return _CACHE[key]

    def _solve(a: wp.array(dtype=float)):
        a[wp.tid()] = float(n)

    kernel = wp.kernel(enable_backward=False, module="unique")(_solve)
    _CACHE[key] = kernel
    return kernel


def get_plain():
    def _plain(a: wp.array(dtype=float)):
        a[wp.tid()] = 0.0

    return wp.kernel(_plain)


def run(a):
    wp.launch(get_solver(4), dim=1, inputs=[a])
    wp.launch(get_plain(), dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 27): ["_solve"], ("pkg/k.py", 28): ["_plain"]}


def test_a_kernel_a_star_import_brings(tmp_path):
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/hashing.py": """\
import warp as wp


@wp.kernel
def hash_cells(a: wp.array(dtype=int)):
    a[wp.tid()] = 7
""",
        "pkg/build.py": """\
import warp as wp

from .hashing import *


def build(a):
    wp.launch(hash_cells, dim=1, inputs=[a])
""",
        "pkg/shadowed.py": """\
import warp as wp

from .hashing import *
from numpy import *


def build(a):
    wp.launch(hash_cells, dim=1, inputs=[a])
""",
    }
    # A later ``*`` import from outside the project may bind the name again: unknown.
    assert launched(tmp_path, files) == {("pkg/build.py", 7): ["hash_cells"], ("pkg/shadowed.py", 8): None}


def test_a_literal_a_call_passes_picks_the_rows_its_callee_keys_by_it(tmp_path):
    # ``get(dtype, component="fill")`` -> ``_get(dtype, component=component)`` -> ``specs[(component,
    # batched)]``: the launch runs a fill kernel, not every kernel of the table; a key the call
    # does not fix (``name``) keeps every row.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
import warp as wp


@wp.kernel
def fill(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def fill_batched(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.5


@wp.kernel
def energy(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


def _get(dtype, *, component, batched=False):
    specs = {
        ("fill", False): (fill, ("f",)),
        ("fill", True): (fill_batched, ("f",)),
        ("energy", False): (energy, ("f",)),
    }
    kernel, signature = specs[(component, batched)]
    return wp.overload(kernel, [wp.array(dtype=dtype)])


def get(dtype, *, component, batched=False):
    return _get(dtype, component=component, batched=batched)


def run(a, name, batched):
    wp.launch(get(wp.float32, component="fill"), dim=1, inputs=[a])
    wp.launch(_get(wp.float32, component="fill", batched=batched), dim=1, inputs=[a])
    wp.launch(_get(wp.float32, component="energy"), dim=1, inputs=[a])
    wp.launch(get(wp.float32, component=name), dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {
        ("pkg/k.py", 34): ["fill"],
        ("pkg/k.py", 35): ["fill", "fill_batched"],
        ("pkg/k.py", 36): ["energy"],
        ("pkg/k.py", 37): ["energy", "fill", "fill_batched"],
    }


def test_a_field_the_factorys_returns_set_to_different_kernels_stays_unknown(tmp_path):
    # ``if order == "double": return make_double(...)`` beside ``return Kernels(fill=fill)``: which
    # return a call gets is a branch the model does not follow, so ``.fill`` is unknown there;
    # the field both returns agree on is followed.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
from typing import NamedTuple

import warp as wp


class Kernels(NamedTuple):
    fill: wp.Kernel
    compute: wp.Kernel


@wp.kernel
def fill(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def reduce(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


@wp.kernel
def compute(a: wp.array(dtype=float)):
    a[wp.tid()] = 3.0


def make_double() -> Kernels:
    return Kernels(fill=reduce, compute=compute)


def make(order: str) -> Kernels:
    if order == "double":
        return make_double()
    return Kernels(fill=fill, compute=compute)


def run(a):
    bundle = make("double")
    wp.launch(bundle.fill, dim=1, inputs=[a])
    wp.launch(bundle.compute, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 38): None, ("pkg/k.py", 39): ["compute"]}


CACHED_ON_CONTEXT = """\
from dataclasses import dataclass

import warp as wp


@dataclass
class RenderContext:
    width: int
    _megakernel: wp.Kernel | None = None
    _megakernel_key: tuple | None = None


def build_shaded(width):
    @wp.kernel
    def shaded(a: wp.array(dtype=float)):
        a[wp.tid()] = float(width)

    return shaded


def build_flat(width):
    @wp.kernel
    def flat(a: wp.array(dtype=float)):
        a[wp.tid()] = 0.0

    return flat


def cached_kernel(rc, build):
    key = (rc.width,)
    if rc._megakernel is None or rc._megakernel_key != key:
        rc._megakernel = build(rc.width)
        rc._megakernel_key = key
    return rc._megakernel


def render(rc, a):
    kernel = cached_kernel(rc, build_shaded)
    wp.launch(kernel, dim=1, inputs=[a])


def render_flat(rc, a):
    if rc._megakernel is None:
        rc._megakernel = build_flat(rc.width)
    wp.launch(rc._megakernel, dim=1, inputs=[a])
"""


def test_a_kernel_cached_in_a_private_attribute_of_a_context_object(tmp_path):
    # ``rc._megakernel = build(...)``: a private attribute holds what the package writes there
    # (the builders callers hand to ``cached_kernel``, ``build_flat``), or None.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": CACHED_ON_CONTEXT}
    assert launched(tmp_path, files) == {("pkg/k.py", 39): ["flat", "shaded"], ("pkg/k.py", 45): ["flat", "shaded"]}


def test_a_private_attribute_also_written_with_an_unknown_value_stays_unknown(tmp_path):
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": CACHED_ON_CONTEXT,
        "pkg/other.py": """\
import warp as wp
from plugins import make_kernel


def install(rc):
    rc._megakernel = make_kernel(wp.float32)
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 39): None, ("pkg/k.py", 45): None}


def test_a_get_or_build_cache_on_self_and_a_lookup_in_a_looked_up_table(tmp_path):
    # ``k = self._cache.get(key); if k is None: k = build(); self._cache[key] = k``: the cache
    # holds what is built (the entry stored back adds nothing else); ``rows = T.get(dtype)``
    # then ``rows.get(rank)`` reads an entry of an entry.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
import warp as wp


def create_kernel(width):
    @wp.kernel
    def render(a: wp.array(dtype=float)):
        a[wp.tid()] = float(width)

    return render


@wp.kernel
def gather1(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def gather2(a: wp.array2d(dtype=float)):
    a[0, 0] = 2.0


_BY_DTYPE_AND_RANK = {wp.float32: {1: gather1, 2: gather2}}


class Renderer:
    def __init__(self):
        self._cache = {}

    def render(self, a, width):
        kernel = self._cache.get(width)
        if kernel is None:
            kernel = create_kernel(width)
            self._cache[width] = kernel
        wp.launch(kernel, dim=1, inputs=[a])


def read(a):
    by_rank = _BY_DTYPE_AND_RANK.get(a.dtype)
    kernel = by_rank.get(a.ndim) if by_rank is not None else None
    wp.launch(kernel, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 34): ["render"], ("pkg/k.py", 40): ["gather1", "gather2"]}


def test_a_kernel_of_the_enclosing_function_and_a_local_holding_one_of_two_factories(tmp_path):
    # A nested launcher reads the kernel its enclosing function defined (or a local of it); a
    # local bound to one of two factory functions is called: what either returns.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
import warp as wp


def get_plain(n):
    @wp.kernel
    def plain(a: wp.array(dtype=float)):
        a[wp.tid()] = float(n)

    return plain


def get_masked(n):
    @wp.kernel
    def masked(a: wp.array(dtype=float)):
        a[wp.tid()] = -float(n)

    return masked


def model(n):
    @wp.kernel
    def count(a: wp.array(dtype=float)):
        a[wp.tid()] = 1.0

    chosen = get_plain(n)

    def launch(a):
        wp.launch(count, dim=1, inputs=[a])
        wp.launch(chosen, dim=1, inputs=[a])

    return launch


def probe(a, mask):
    kernel_fn = get_masked if mask else get_plain
    kernel = kernel_fn(3)
    wp.launch(kernel, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {
        ("pkg/k.py", 28): ["count"],
        ("pkg/k.py", 29): ["plain"],
        ("pkg/k.py", 37): ["masked", "plain"],
    }


def test_a_private_kernel_set_on_a_subclass_made_at_run_time_read_through_self(tmp_path):
    # ``_Specialized._step = staticmethod(step)`` on a class a method builds; the base class's
    # methods launch ``self._step``.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
import warp as wp


class Optimizer:
    def __new__(cls, n):
        return object.__new__(cls._build_specialized(n))

    @classmethod
    def _build_specialized(cls, n):
        def _step_template(a: wp.array(dtype=float)):
            a[wp.tid()] = float(n)

        _step = wp.kernel(enable_backward=False, module="unique")(_step_template)

        class _Specialized(cls):
            pass

        _Specialized._step = staticmethod(_step)
        return _Specialized

    def solve(self, a):
        wp.launch(self._step, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 22): ["_step_template"]}


def test_a_field_of_a_local_that_is_none_until_a_factory_fills_it(tmp_path):
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": """\
from typing import NamedTuple

import warp as wp


class Kernels(NamedTuple):
    count: wp.Kernel


def get_kernels(n) -> Kernels:
    @wp.kernel
    def count(a: wp.array(dtype=float)):
        a[wp.tid()] = float(n)

    return Kernels(count=count)


def contour(a, n):
    kernels = None
    if n:
        kernels = get_kernels(n)
        wp.launch(kernels.count, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 22): ["count"]}


DISPATCHER = """\
import functools
from typing import Any

import warp as wp

from other import lookup


class Dispatcher:
    def __init__(self, kernel, names):
        self._names = names
        self._overloads = {}
        for dt in (wp.int32, wp.int64):
            self._overloads[dt] = wp.overload(kernel, {n: wp.array(dtype=dt) for n in names})

    def select_dtypes(self, *dts):
        return self._overloads[dts[0]]

    def select(self, ids):
        return self.select_dtypes(ids.dtype)


@wp.kernel
def scatter(ids: wp.array(dtype=Any), out: wp.array(dtype=float)):
    out[ids[wp.tid()]] = 1.0


@wp.kernel
def gather(ids: wp.array(dtype=Any), out: wp.array(dtype=float)):
    out[wp.tid()] = float(ids[wp.tid()])


_SCATTER = Dispatcher(scatter, ("ids",))
_GATHER = Dispatcher(gather, ("ids",))
_UNKNOWN = Dispatcher(lookup("k"), ("ids",))


def scatter_kernel(ids):
    return _SCATTER.select(ids)


@functools.cache
def gather_dispatcher():
    return Dispatcher(gather, ("ids",))


def run(ids, out, n, dispatcher):
    wp.launch(scatter_kernel(ids), dim=n, inputs=[ids, out])
    wp.launch(_GATHER.select(ids), dim=n, inputs=[ids, out])
    local = Dispatcher(gather, ("ids",))
    wp.launch(local.select(ids), dim=n, inputs=[ids, out])
    made = gather_dispatcher()
    wp.launch(made.select(ids), dim=n, inputs=[ids, out])
    wp.launch(_UNKNOWN.select(ids), dim=n, inputs=[ids, out])
    wp.launch(dispatcher.select(ids), dim=n, inputs=[ids, out])
"""


def test_a_dispatcher_object_returns_the_overloads_its_constructor_built_of_the_kernel_it_was_handed(tmp_path):
    # ``Dispatcher(kernel, names)`` fills ``self._overloads`` with ``wp.overload(kernel, ...)`` in
    # ``__init__``; ``select`` -> ``select_dtypes`` -> ``self._overloads[...]``. Each object holds
    # the kernel of its own constructor call (never the other objects'); an object the model
    # cannot see built (a parameter) or built of an unknown kernel stays unknown.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": DISPATCHER}
    assert launched(tmp_path, files) == {
        ("pkg/k.py", 48): ["scatter"],
        ("pkg/k.py", 49): ["gather"],
        ("pkg/k.py", 51): ["gather"],
        ("pkg/k.py", 53): ["gather"],
        ("pkg/k.py", 54): None,
        ("pkg/k.py", 55): None,
    }


KEYED_FACTORY = """\
import functools

import warp as wp


@functools.cache
def fft_kernels(n):
    block_dim = max(2, n // 2)

    @wp.kernel(module=f"dft_{n}")
    def fft_tiled(a: wp.array(dtype=float)):
        a[wp.tid()] = float(n)

    @wp.kernel(module=f"dft_{n}")
    def ifft_tiled(a: wp.array(dtype=float)):
        a[wp.tid()] = -float(n)

    return {"fft_tiled": fft_tiled, "ifft_tiled": ifft_tiled, "block_dim": block_dim}


def stage(kernels, a, n, fwd):
    kernel = kernels["fft_tiled"] if fwd else kernels["ifft_tiled"]
    wp.launch_tiled(kernel, dim=[n, 1], inputs=[a], block_dim=kernels["block_dim"])


def run(a, n, table):
    kernels = fft_kernels(n)
    wp.launch_tiled(kernels["fft_tiled"], dim=[n, 1], inputs=[a], block_dim=kernels["block_dim"])
    stage(kernels, a, n, True)
    wp.launch_tiled(fft_kernels(n)["ifft_tiled"], dim=[n, 1], inputs=[a], block_dim=kernels["block_dim"])
    wp.launch_tiled(kernels["missing"], dim=[n, 1], inputs=[a], block_dim=kernels["block_dim"])
    wp.launch_tiled(table["fft_tiled"], dim=[n, 1], inputs=[a], block_dim=64)
"""


def test_a_constant_key_of_a_dict_a_cached_factory_returns_picks_that_entry(tmp_path):
    # ``kernels = fft_kernels(n); kernels["fft_tiled"]``: the factory's dict literal holds a
    # number beside its kernels (``"block_dim": max(2, n // 2)``, unknown as a kernel); the
    # constant key picks the kernel, also through a parameter every caller passes the dict to.
    # A key no literal has, or a table the model does not see built, stays unknown.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": KEYED_FACTORY}
    assert launched(tmp_path, files) == {
        ("pkg/k.py", 23): ["fft_tiled", "ifft_tiled"],
        ("pkg/k.py", 28): ["fft_tiled"],
        ("pkg/k.py", 30): ["ifft_tiled"],
        ("pkg/k.py", 31): None,
        ("pkg/k.py", 32): None,
    }


DTYPE_TABLE = """\
from typing import NamedTuple

import torch
import warp as wp


@wp.kernel
def forward_f32(a: wp.array(dtype=wp.float32)):
    a[wp.tid()] = 1.0


@wp.kernel
def forward_f64(a: wp.array(dtype=wp.float64)):
    a[wp.tid()] = wp.float64(1.0)


class _KernelSet(NamedTuple):
    warp_dtype: object
    forward: object


_KERNELS = {
    torch.float32: _KernelSet(wp.float32, forward_f32),
    torch.float64: _KernelSet(wp.float64, forward_f64),
}
_NAMED = {"single": _KernelSet(wp.float32, forward_f32), "double": _KernelSet(wp.float64, forward_f64)}


def _kernels(dtype):
    try:
        return _KERNELS[dtype]
    except KeyError:
        raise TypeError(dtype) from None


def run(a, lookup):
    ks = _kernels(a.dtype)
    wp.launch(ks.forward, dim=1, inputs=[a])
    wp.launch(_KERNELS[a.dtype].forward, dim=1, inputs=[a])
    wp.launch(_NAMED["double"].forward, dim=1, inputs=[a])
    wp.launch(lookup[a.dtype].forward, dim=1, inputs=[a])
"""


def test_a_field_of_a_namedtuple_row_of_a_dtype_table(tmp_path):
    # ``_kernels(dtype)`` returns ``_KERNELS[dtype]`` (a KeyError turned into a TypeError): the
    # field of every row the table holds, positional fields of the NamedTuple; a constant key
    # picks its row; a table the model does not see built stays unknown.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": DTYPE_TABLE}
    assert launched(tmp_path, files) == {
        ("pkg/k.py", 38): ["forward_f32", "forward_f64"],
        ("pkg/k.py", 39): ["forward_f32", "forward_f64"],
        ("pkg/k.py", 40): ["forward_f64"],
        ("pkg/k.py", 41): None,
    }


# An object handed through several others before its kernels are launched (rewarped's MPM
# model, reached as ``model.mpm_model``; dismech's element blocks, ``e.blk.k.previous``): the
# model does not follow the object to where it is built, but every value the program gives an
# attribute of that name is a kernel of one module, so the launch runs one of those.
HANDED_ON = {
    "pyproject.toml": PYPROJECT,
    "pkg/__init__.py": "",
    "pkg/mpm.py": """\
import warp as wp


class MPMModel:
    def __init__(self):
        self.grid_op = None

    @staticmethod
    @wp.kernel
    def p2g(a: wp.array(dtype=float)):
        a[wp.tid()] = 1.0

    @staticmethod
    @wp.kernel
    def grid_op_freeslip(a: wp.array(dtype=float)):
        a[wp.tid()] = 0.0

    @staticmethod
    @wp.kernel
    def grid_op_noslip(a: wp.array(dtype=float)):
        a[wp.tid()] = 2.0

    def forward(self, a):
        wp.launch(self.grid_op, dim=a.shape, inputs=[a])


class Builder:
    def finalize(self, bc):
        model = MPMModel()
        if bc == "freeslip":
            model.grid_op = MPMModel.grid_op_freeslip
        else:
            model.grid_op = MPMModel.grid_op_noslip
        return model
""",
    "pkg/integrator.py": """\
import warp as wp


def simulate(model, a):
    mpm_model = model.mpm_model
    wp.launch(mpm_model.p2g, dim=a.shape, inputs=[a])
    wp.launch(mpm_model.grid_op, dim=a.shape, inputs=[a])
    for e in model.elements:
        wp.launch(e.blk.k.previous, dim=a.shape, inputs=[a])
""",
    "pkg/elements.py": """\
from types import SimpleNamespace

import warp as wp


def element_kernels(dtype):
    @wp.kernel
    def previous(a: wp.array(dtype=dtype)):
        a[wp.tid()] = dtype(0.0)

    return SimpleNamespace(previous=previous, D=3)
""",
}


def test_an_attribute_of_an_object_handed_on_holds_what_the_program_gives_that_name(tmp_path):
    assert launched(tmp_path, HANDED_ON) == {
        ("pkg/integrator.py", 6): ["p2g"],
        ("pkg/integrator.py", 7): ["grid_op_freeslip", "grid_op_noslip"],
        ("pkg/integrator.py", 9): ["previous"],
        ("pkg/mpm.py", 24): ["grid_op_freeslip", "grid_op_noslip"],
    }


def test_an_attribute_name_also_given_an_unknown_value_stays_unknown(tmp_path):
    files = {**HANDED_ON, "pkg/plugin.py": """\
import warp as wp
from plugins import make_kernel


def install(model):
    model.grid_op = make_kernel(wp.float32)
"""}
    found = launched(tmp_path, files)
    assert found[("pkg/integrator.py", 7)] is None and found[("pkg/mpm.py", 24)] is None
    assert found[("pkg/integrator.py", 6)] == ["p2g"]


def test_an_attribute_name_of_kernels_in_two_modules_stays_unknown(tmp_path):
    # Which module the launch builds is what the rules speak of: kernels of one name in two
    # modules do not say it.
    files = {**HANDED_ON, "pkg/other.py": """\
import warp as wp


class Other:
    @staticmethod
    @wp.kernel
    def p2g(a: wp.array(dtype=float)):
        a[wp.tid()] = 3.0
"""}
    assert launched(tmp_path, files)[("pkg/integrator.py", 6)] is None


def test_a_dataclass_or_namedtuple_field_of_that_name_stays_unknown(tmp_path):
    # Their constructors set the field from arguments the model does not index by name.
    dataclass = {**HANDED_ON, "pkg/cfg.py": """\
from dataclasses import dataclass

import warp as wp


@dataclass
class Ops:
    previous: wp.Kernel
"""}
    assert launched(tmp_path, dataclass)[("pkg/integrator.py", 9)] is None
    namedtuple = {**HANDED_ON, "pkg/cfg.py": """\
import collections

import warp as wp

Ops = collections.namedtuple("Ops", ["p2g", "scale"])
"""}
    assert launched(tmp_path, namedtuple)[("pkg/integrator.py", 6)] is None


def test_a_module_and_a_class_are_not_objects_handed_on(tmp_path):
    # ``ext.p2g`` of an imported package, ``Other.p2g`` of a class: not an attribute of an
    # object the program builds, so the attribute's name says nothing.
    files = {**HANDED_ON, "pkg/use.py": """\
import warp as wp
import ext


def run(a):
    wp.launch(ext.p2g, dim=a.shape, inputs=[a])
"""}
    assert launched(tmp_path, files)[("pkg/use.py", 6)] is None


def test_attributes_written_from_each_other_stay_unknown_and_end(tmp_path):
    # ``a.grid_op = b.grid_op``: the name's values go round in a cycle (cut: unknown).
    files = {**HANDED_ON, "pkg/swap.py": """\
import warp as wp


def swap(a, b):
    a.grid_op, b.grid_op = b.grid_op, a.grid_op
    a.grid_op = b.grid_op
"""}
    found = launched(tmp_path, files)
    assert found[("pkg/integrator.py", 7)] is None and found[("pkg/integrator.py", 6)] == ["p2g"]


RESULT_METHOD = DISPATCHER.replace("def run(ids, out, n, dispatcher):", """\
@functools.cache
def typed_dispatcher(dtype):
    return Dispatcher(scatter, ("ids",))


def run_on_results(ids, out, n, dtype, make):
    wp.launch(typed_dispatcher(dtype).select(ids), dim=n, inputs=[ids, out])
    wp.launch(Dispatcher(gather, ("ids",)).select(ids), dim=n, inputs=[ids, out])
    wp.launch(make(dtype).select(ids), dim=n, inputs=[ids, out])
    wp.launch(lookup(dtype).select(ids), dim=n, inputs=[ids, out])
    wp.launch(typed_dispatcher(dtype).missing(ids), dim=n, inputs=[ids, out])


def run(ids, out, n, dispatcher):""")


def test_a_method_called_on_what_a_call_returns_runs_on_the_object_that_call_builds(tmp_path):
    # ``typed_dispatcher(dtype).select(ids)``: no name holds the object; the call builds it
    # (a cached factory's ``return Dispatcher(...)``, a constructor call itself), so ``select``
    # returns the overloads of its kernel. A factory the callers pass, one of another package
    # and a method the class lacks stay unknown.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": RESULT_METHOD}
    found = launched(tmp_path, files)
    assert found[("pkg/k.py", 53)] == ["scatter"]
    assert found[("pkg/k.py", 54)] == ["gather"]
    assert found[("pkg/k.py", 55)] is None
    assert found[("pkg/k.py", 56)] is None
    assert found[("pkg/k.py", 57)] is None
    assert found[("pkg/k.py", 62)] == ["gather"]  # the named receivers as before


SUPER_INIT = {
    "pkg/base.py": """\
import warp as wp


@wp.kernel
def soft(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def hard(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


class Base:
    def __init__(self, *, kernels):
        self._kernels = kernels

    def __call__(self, a):
        wp.launch(self._kernels[a.dtype], dim=a.shape, inputs=[a])
""",
    "pkg/soft.py": """\
import warp as wp

from pkg.base import Base, soft


class Soft(Base):
    def __init__(self):
        super().__init__(kernels={wp.float32: soft})
""",
}


def test_a_base_constructor_super_runs_is_called_with_what_the_subclass_passes(tmp_path):
    # ``super().__init__(kernels=...)`` in a subclass of another module calls the base's
    # ``__init__``: what it stores on ``self`` is what the subclasses pass.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", **SUPER_INIT}
    assert launched(tmp_path, files)[("pkg/base.py", 19)] == ["soft"]


def test_super_of_another_class_or_a_rebound_super_is_no_call_of_the_base(tmp_path):
    # ``super(Other, self)`` starts the lookup elsewhere, a module's own ``super`` is not the
    # builtin, and an unknown subclass argument keeps the launch unknown.
    for line in ("        super(Other, self).__init__(kernels={wp.float32: soft})",
                 "        super().__init__(kernels=make())"):  # fmt: skip
        soft_module = SUPER_INIT["pkg/soft.py"].replace(
            "        super().__init__(kernels={wp.float32: soft})", line) + "\n\nclass Other(Base):\n    pass\n"
        files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", **SUPER_INIT, "pkg/soft.py": soft_module}
        assert launched(tmp_path / str(len(line)), files)[("pkg/base.py", 19)] is None, line
    rebound = SUPER_INIT["pkg/soft.py"].replace("class Soft", "def super():\n    return Base\n\n\nclass Soft")
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", **SUPER_INIT, "pkg/soft.py": rebound}
    assert launched(tmp_path / "rebound", files)[("pkg/base.py", 19)] is None


FAMILY_ROWS = """\
from dataclasses import dataclass
from typing import NamedTuple

import warp as wp

from other import lookup


@wp.kernel
def single(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def per_atom(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


@dataclass(frozen=True)
class KernelFamily:
    single: object
    atom_ptr: object | None = None


class Typed(NamedTuple):
    warp_dtype: object
    step: object


FAMILIES = {"plain": KernelFamily(single=single), "ptr": KernelFamily(single=single, atom_ptr=per_atom)}
NO_PTR = {"plain": KernelFamily(single=single), "also": KernelFamily(single=per_atom, atom_ptr=None)}
UNKNOWN_PTR = {"plain": KernelFamily(single=single), "other": KernelFamily(single=single, atom_ptr=lookup())}
TYPED = {wp.float32: Typed(wp.float32, single), wp.float64: Typed(wp.float64, per_atom)}


def launch_family(family, a):
    kernel = family.atom_ptr
    if kernel is None:
        raise ValueError("no atom_ptr kernel")
    wp.launch(kernel, dim=a.shape, inputs=[a])


def run(a, name):
    launch_family(FAMILIES[name], a)
    launch_family(NO_PTR[name], a)


def _typed(dtype):
    return TYPED[dtype]


def _validated(a):
    return _typed(a.dtype), a.shape[0]


def step(a):
    family, n = _validated(a)
    wp.launch(family.step, dim=n, inputs=[a])


def swapped(a):
    n, family = _validated(a)
    wp.launch(family.step, dim=n, inputs=[a])
"""


def test_a_field_none_in_some_rows_holds_the_kernels_of_the_others(tmp_path):
    # ``family.atom_ptr`` of tables whose rows leave it None (the dataclass's default) or set
    # it: the kernels of the rows that set it (None is no kernel; the launch raises before
    # it), also where one caller's table sets it in no row.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": FAMILY_ROWS}
    assert launched(tmp_path, files)[("pkg/k.py", 40)] == ["per_atom"]
    # A row with an unknown kernel: unknown.
    source = FAMILY_ROWS.replace("launch_family(NO_PTR[name], a)", "launch_family(UNKNOWN_PTR[name], a)")
    assert launched(tmp_path / "unknown", {**files, "pkg/k.py": source})[("pkg/k.py", 40)] is None


def test_a_field_of_an_item_a_call_returns_unpacked_into_names(tmp_path):
    # ``family, n = _validated(a)``: ``family`` is the first item of what the call returns (a
    # row of a table, by an unknown key: any row); swapped, it is a number, no object.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": FAMILY_ROWS}
    found = launched(tmp_path, files)
    assert found[("pkg/k.py", 58)] == ["per_atom", "single"]
    assert found[("pkg/k.py", 63)] is None


LOCAL_OF_PARAMETERS = """\
import warp as wp

from other import lookup


@wp.kernel
def fill(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def fill_selected(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


def _run(a, fill_kernel, selective_kernel=None, flags=None):
    if flags is None:
        active_kernel = fill_kernel
    else:
        active_kernel = selective_kernel
    wp.launch(active_kernel, dim=a.shape, inputs=[a])


def run(a):
    _run(a, fill)


def run_selective(a, flags):
    _run(a, fill, selective_kernel=fill_selected, flags=flags)
"""


def launched_at_call_sites(tmp_path: Path, files: dict[str, str], module: str) -> dict[int, list[str] | None]:
    """Line -> the kernels of each launch the model adds to ``module`` at a call site of a
    launching helper (the launch as that call gives it), None where unknown."""
    write_files(tmp_path, files)
    linter = Linter(load_config(tmp_path))
    linter.add_to_project([read_source(str(tmp_path / name)) for name in sorted(files) if name.endswith(".py")])
    project = linter.project
    try:
        project.freeze()
        program = project.program()
        own = len(project.facts(project.files.get(str(tmp_path / (module.replace(".", "/") + ".py")))).launches)
        out: dict[int, list[str] | None] = {}
        for index, launch in enumerate(program.modules[module].launches[own:], own):
            found = program.launch_kernels(module, index)
            ok = found and all(isinstance(ref, KernelRef) for ref in found)
            out[launch.span[0]] = sorted({program.kernel(ref).name for ref in found}) if ok else None
        return out
    finally:
        deactivate(project)


def test_a_local_that_is_one_of_the_helpers_kernel_parameters_is_launched_at_its_call_sites(tmp_path):
    # ``active_kernel = fill_kernel`` on one branch, ``= selective_kernel`` (None by default) on
    # the other: at each call site, the kernels that call passes (None, left out, is none).
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": LOCAL_OF_PARAMETERS}
    assert launched(tmp_path, files) == {("pkg/k.py", 21): None}  # the helper's own launch: its callers say
    assert launched_at_call_sites(tmp_path, files, "pkg.k") == {25: ["fill"], 29: ["fill", "fill_selected"]}
    # A call passing an unknown kernel adds no launch there; a local also holding something
    # else than parameters is no helper's kernel.
    unknown = LOCAL_OF_PARAMETERS.replace("_run(a, fill)", "_run(a, lookup())")
    assert launched_at_call_sites(tmp_path / "unknown", {**files, "pkg/k.py": unknown}, "pkg.k") == {
        29: ["fill", "fill_selected"]}
    mixed = LOCAL_OF_PARAMETERS.replace("active_kernel = selective_kernel", "active_kernel = lookup()")
    assert launched_at_call_sites(tmp_path / "mixed", {**files, "pkg/k.py": mixed}, "pkg.k") == {}


BUILT_FAMILIES = """\
from dataclasses import dataclass
from typing import Any

import warp as wp

from other import lookup


@wp.kernel
def scale(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(2.0) * a[wp.tid()]


@wp.kernel
def scale_ptr(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(3.0) * a[wp.tid()]


@dataclass(frozen=True)
class Family:
    single: object
    atom_ptr: object | None = None


def register(kernel, dtypes):
    return {t: wp.overload(kernel, [wp.array(dtype=t)]) for t in dtypes}


def build_families(single_kernel, ptr_kernel, dtypes=(wp.float32, wp.float64)):
    singles = register(single_kernel, dtypes)
    ptrs = register(ptr_kernel, dtypes)
    return {t: Family(single=singles[t], atom_ptr=ptrs[t]) for t in dtypes}


FAMILIES = build_families(scale, scale_ptr)


def launch_family(family, a):
    wp.launch(family.single, dim=a.shape, inputs=[a])
    wp.launch(family.atom_ptr, dim=a.shape, inputs=[a])


def dispatch(families, a):
    family = families[a.dtype]
    launch_family(family, a)


def run(a):
    dispatch(FAMILIES, a)
"""


def test_a_field_of_a_row_of_the_table_a_parameter_receives_from_a_factory(tmp_path):
    # ``dispatch(FAMILIES, a)`` hands a table ``build_families`` returns (a comprehension of
    # dataclass rows) to ``families[a.dtype]``: any row; each field an overload of the kernel
    # the factory received and handed on to ``register`` (its callers say which).
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": BUILT_FAMILIES}
    found = launched(tmp_path, files)
    assert found[("pkg/k.py", 39)] == ["scale"] and found[("pkg/k.py", 40)] == ["scale_ptr"]
    # A table of unknown rows, or a factory handed an unknown kernel, stays unknown.
    for broken in ("dispatch(lookup(), a)", "dispatch(build_families(scale, lookup()), a)"):
        source = BUILT_FAMILIES.replace("dispatch(FAMILIES, a)", broken)
        found = launched(tmp_path / str(len(broken)), {**files, "pkg/k.py": source})
        assert found[("pkg/k.py", 40)] is None, broken


COMPREHENDED = """\
from typing import Any

import warp as wp

from other import lookup


@wp.kernel
def stvk(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(1.0)


@wp.kernel
def measure(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(2.0)


kernel = measure  # a module global of the same name as the loop variable below
BASE = (((1, 1), stvk), ((2, 2), stvk))
OTHER = (((1, 1), lookup()),)


def _overload(kernel, dtype):
    return wp.overload(kernel, [wp.array(dtype=dtype)])


def precision_family(dtype):
    by_rows = {dims: _overload(kernel, dtype) for dims, kernel in BASE}
    listed = [_overload(row[1], dtype) for row in BASE]
    unknown = {dims: _overload(kernel, dtype) for dims, kernel in OTHER}
    return by_rows, listed, unknown


F32, LISTED, UNKNOWN_F32 = precision_family(wp.float32)


def run(a, dims, i):
    wp.launch(F32[dims], dim=a.shape, inputs=[a])
    wp.launch(LISTED[i], dim=a.shape, inputs=[a])
    wp.launch(UNKNOWN_F32[dims], dim=a.shape, inputs=[a])
"""


def test_a_comprehension_in_a_function_reads_its_own_loop_variables(tmp_path):
    # ``{dims: _overload(kernel, dtype) for dims, kernel in BASE}``: ``kernel`` is the
    # comprehension's own variable, the second item of each row of BASE (not the module's
    # global ``kernel``, which Python's scoping hides there). A table of unknown rows stays
    # unknown.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": COMPREHENDED}
    found = launched(tmp_path, files)
    assert found[("pkg/k.py", 38)] == ["stvk"]
    assert found[("pkg/k.py", 39)] == ["stvk"]
    assert found[("pkg/k.py", 40)] is None


def _kernel_facts(tmp_path: Path, files: dict[str, str]) -> dict[str, tuple[list, object]]:
    """Kernel name -> (the Warp module identities the model gives it, its backward option)."""
    write_files(tmp_path, files)
    linter = Linter(load_config(tmp_path))
    paths = sorted(str(tmp_path / name) for name in files if name.endswith(".py"))
    linter.add_to_project([read_source(path) for path in paths])
    project = linter.project
    try:
        project.freeze()
        program = project.program()
        return {kernel.name: (program.kernel_modules(ref), kernel.enable_backward) for ref, kernel in program.kernels()}
    finally:
        deactivate(project)


_DYNAMIC_FACTORY = """\
import warp as wp
import warp.fem as fem
from warp.fem import cache


def make_scale(factor: int):
    @fem.cache.dynamic_kernel(suffix=factor, kernel_options={"enable_backward": False, "fast_math": True})
    def scale(x: wp.array(dtype=float)):
        x[wp.tid()] = x[wp.tid()] * float(factor)

    return scale


def make_shift(n: int):
    @cache.dynamic_kernel((n, "shift"))
    def shift(x: wp.array(dtype=float)):
        x[wp.tid()] = x[wp.tid()] + float(n)

    return shift


def run(x):
    wp.launch(make_scale(2), dim=1, inputs=[x])
    wp.launch(make_shift(3), dim=1, inputs=[x])
"""


def test_a_kernel_warp_fems_cache_makes_per_suffix_has_a_module_of_its_own(tmp_path):
    # ``fem.cache.dynamic_kernel(suffix, kernel_options)``: warp.fem makes one ``wp.Kernel`` per
    # suffix, in a module ``<file module>.dyn.<name>_<hash>`` of its own (fem/cache.py,
    # get_kernel), with ``kernel_options`` as its options.
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/k.py": _DYNAMIC_FACTORY}
    assert launched(tmp_path, files) == {("pkg/k.py", 23): ["scale"], ("pkg/k.py", 24): ["shift"]}
    kernels = _kernel_facts(tmp_path, files)
    assert kernels["scale"] == ([("fem.dynamic", "pkg.k", "make_scale.<locals>.scale")], Value("const", False))
    assert kernels["shift"] == ([("fem.dynamic", "pkg.k", "make_shift.<locals>.shift")], None)  # the file module's


def test_other_cache_decorators_and_a_bare_dynamic_kernel_are_no_kernels(tmp_path):
    # ``dynamic_func`` makes a ``wp.Function``; a bare ``@dynamic_kernel`` makes the decorator
    # (``dynamic_kernel(func)`` returns ``wrap_kernel``); a project's own ``dynamic_kernel`` is
    # not warp.fem's: none is a kernel the model knows.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/mycache.py": """\
def dynamic_kernel(suffix):
    def wrap(func):
        return func

    return wrap
""",
        "pkg/k.py": """\
import warp as wp
import warp.fem as fem
from pkg import mycache


def make_a(n):
    @fem.cache.dynamic_func(suffix=n)
    def a(x: wp.array(dtype=float)):
        x[wp.tid()] = 1.0

    return a


def make_b(n):
    @fem.cache.dynamic_kernel
    def b(x: wp.array(dtype=float)):
        x[wp.tid()] = 1.0

    return b


def make_c(n):
    @mycache.dynamic_kernel(suffix=n)
    def c(x: wp.array(dtype=float)):
        x[wp.tid()] = 1.0

    return c


def run(x):
    wp.launch(make_a(1), dim=1, inputs=[x])
    wp.launch(make_b(1), dim=1, inputs=[x])
    wp.launch(make_c(1), dim=1, inputs=[x])
""",
    }
    assert launched(tmp_path, files) == {("pkg/k.py", 31): None, ("pkg/k.py", 32): None, ("pkg/k.py", 33): None}


_TABLE_KERNELS = """\
import warp as wp


@wp.kernel
def small(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@wp.kernel
def large(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


@wp.kernel
def extra(a: wp.array(dtype=float)):
    a[wp.tid()] = 3.0


def make(size):
    return small if size < 8 else large
"""


def test_loops_over_tables_a_class_fills_hold_every_kernel_put_in_them(tmp_path):
    # A dict built by a comprehension in ``__init__``, filled entry by entry in another method,
    # iterated with ``.items()`` / ``.values()`` / ``enumerate``; a list filled with ``append``;
    # a loop over the rows of a tuple of tuples; a local table assigned in two places.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": _TABLE_KERNELS,
        "pkg/solver.py": """\
import warp as wp

from pkg.k import extra, large, make, small


class Solver:
    def __init__(self, sizes):
        self._by_size = {size: make(size) for size in sizes}
        self._more = {}
        self._list = [small]
        self._named = dict()

    def setup(self, sizes):
        for size in sizes:
            self._more[size] = make(size)
        self._list.append(extra)
        self._named.update({"extra": extra})

    def step(self, a):
        for size, kernel in self._by_size.items():
            wp.launch(kernel, dim=size, inputs=[a])
        for kernel in self._more.values():
            wp.launch(kernel, dim=1, inputs=[a])
        for i, (size, kernel) in enumerate(self._more.items()):
            wp.launch(kernel, dim=i, inputs=[a])
        for kernel in self._list:
            wp.launch(kernel, dim=1, inputs=[a])
        for kernel in self._named.values():
            wp.launch(kernel, dim=1, inputs=[a])


def run(a, edge):
    kernels = (small,)
    if edge:
        kernels = tuple([large, extra])
    for kernel in kernels:
        wp.launch(kernel, dim=1, inputs=[a])
    for row in ((small,), (large, extra)):
        for kernel in row:
            wp.launch(kernel, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {
        ("pkg/solver.py", 21): ["large", "small"],
        ("pkg/solver.py", 23): ["large", "small"],
        ("pkg/solver.py", 25): ["large", "small"],
        ("pkg/solver.py", 27): ["extra", "small"],
        ("pkg/solver.py", 29): ["extra"],
        ("pkg/solver.py", 37): ["extra", "large", "small"],
        ("pkg/solver.py", 40): ["extra", "large", "small"],
    }


def test_a_table_with_a_value_the_model_cannot_follow_stays_unknown(tmp_path):
    # Any value put in the table that is not followed (a parameter nobody passes, an
    # ``update`` with keywords, a ``setdefault`` of a kernel handed in) leaves the loop unknown;
    # so do the keys of ``.items()`` and a dict indexed by a position it does not have.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": _TABLE_KERNELS,
        "pkg/solver.py": """\
import warp as wp

from pkg.k import large, small


class Solver:
    def __init__(self):
        self._table = {0: small}
        self._list = [small]
        self._cache = {1: large}

    def register(self, kernel):
        self._table[1] = kernel
        self._list.extend(kernel)
        self._cache.setdefault(2, kernel)

    def step(self, a):
        for kernel in self._table.values():
            wp.launch(kernel, dim=1, inputs=[a])
        for kernel in self._list:
            wp.launch(kernel, dim=1, inputs=[a])
        for kernel, _ in self._cache.items():
            wp.launch(kernel, dim=1, inputs=[a])
        wp.launch(self._cache[1], dim=1, inputs=[a])


def run(a, table):
    for kernel in table.values():
        wp.launch(kernel, dim=1, inputs=[a])
    kernels = {1: large, 0: small}
    wp.launch(kernels[0], dim=1, inputs=[a])
""",
    }
    found = launched(tmp_path, files)
    assert found[("pkg/solver.py", 19)] is None
    assert found[("pkg/solver.py", 21)] is None
    assert found[("pkg/solver.py", 23)] is None  # the key of ``.items()``
    assert found[("pkg/solver.py", 24)] is None  # ``setdefault(2, kernel)`` of a kernel nobody passes
    assert found[("pkg/solver.py", 29)] is None
    # ``kernels[0]`` is the key 0 (``small``), not the first value (``large``): a dict is keyed,
    # not indexed by position, so the lookup holds any of its values
    assert found[("pkg/solver.py", 31)] == ["large", "small"]


def test_a_method_called_on_the_elements_of_a_table_is_one_callee_only_for_one_class(tmp_path):
    # ``for energy in self.energies.values(): energy.fun()``: objects of two classes call two
    # methods, which is not one callee; objects of one class call its method.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/m.py": """\
import warp as wp


class A:
    def fun(self):
        pass


class B:
    def fun(self):
        pass


class Model:
    def __init__(self, energies):
        self.energies = energies

    def fun(self):
        for energy in self.energies.values():
            energy.fun()


class Single:
    def __init__(self):
        self.parts = {"a": A(), "b": A()}

    def fun(self):
        for part in self.parts.values():
            part.fun()


def main():
    Model({"a": A(), "b": B()}).fun()
    Single().fun()
""",
    }
    write_files(tmp_path, files)
    linter = Linter(load_config(tmp_path))
    linter.add_to_project([read_source(str(tmp_path / name)) for name in files if name.endswith(".py")])
    project = linter.project
    try:
        program = project.program()
        model_fun = program.function(FunctionRef("pkg.m", "Model.fun"))
        single_fun = program.function(FunctionRef("pkg.m", "Single.fun"))
        assert model_fun is not None and single_fun is not None
        assert program.resolve_call("pkg.m", model_fun, "energy.fun") is None
        assert program.resolve_call("pkg.m", single_fun, "part.fun") == FunctionRef("pkg.m", "A.fun")
    finally:
        deactivate(project)


def test_a_get_or_build_cache_read_by_a_constant_key_holds_what_it_is_filled_with(tmp_path):
    # ``kernel = self._k[0]`` or ``self._k.get(p)``, else built and stored back: what the cache
    # stores back is what it read or built, so it holds its literal's kernels and the built ones.
    files = {
        "pyproject.toml": PYPROJECT,
        "pkg/__init__.py": "",
        "pkg/k.py": _TABLE_KERNELS,
        "pkg/solver.py": """\\
import warp as wp

from pkg.k import make, small


class C:
    def __init__(self):
        self._k = {0: small}

    def run(self, a, p):
        if 0 in self._k:
            kernel = self._k[0]
        else:
            kernel = self._k.get(p)
            if kernel is None:
                kernel = make(p)
                self._k[p] = kernel
        wp.launch(kernel, dim=1, inputs=[a])
""",
    }
    assert launched(tmp_path, files) == {("pkg/solver.py", 19): ["large", "small"]}
