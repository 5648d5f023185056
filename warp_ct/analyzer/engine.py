"""Runs the rules: files in, findings out.

Cost model (the speed bar is "cold lint <= 2x bare ast.parse"): every file is read and
summarised with regular expressions; a file that does not touch Warp stops there; a Warp
file is parsed with ``ast`` (C) only when some active rule's text trigger and project gate
match it, otherwise only syntax-checked. Rules walk that tree; astroid builds a tree only
for the rare question that needs inference (``FileContext.infer``).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import io
import os
import stat
import tokenize
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from astroid import MANAGER, nodes

from warp_ct.analyzer import syntax
from warp_ct.analyzer.facts import NESTED_TOO_DEEPLY, parse_source
from warp_ct.analyzer.syntax import gc_paused
from warp_ct.analyzer.context import DEFAULT_INFERENCE_BUDGET_S, FileContext
from warp_ct.analyzer.deadline import DeadlineExceeded, hard_deadline, poll, thread_clock
from warp_ct.analyzer.model import (
    BINARY, SYNTAX_ERROR, TOO_LARGE, UNDECODABLE, UNREADABLE, UNREADABLE_FOLDER, FileResult, Finding, Range, Severity,
)
from warp_ct.analyzer.noqa import NoqaMap, parse_noqa
from warp_ct.analyzer.project import FileSummary, Project, module_name_for
from warp_ct.analyzer.query import QueryContext
from warp_ct.analyzer.scope import scope_root
from warp_ct.analyzer.rules import all_rules
from warp_ct.analyzer.rules.base import Rule
from warp_ct.config import Config
from warp_ct.errors import os_error_reason

# Meta findings: problems with the input itself, not Warp antipatterns (ruff's E999 role).
PARSE_ERROR = "WCT900"
PARSE_ERROR_NAME = "could-not-parse"
RULE_ERROR = "WCT901"
RULE_ERROR_NAME = "internal-rule-error"
META_CODES = {PARSE_ERROR: PARSE_ERROR_NAME, RULE_ERROR: RULE_ERROR_NAME}

MAX_FILE_BYTES = 10 * 1024 * 1024  # larger "source" files are almost surely generated data
# CPU-time limit for running the rules on one file, query and tree rules together: a
# backstop against a pathological shape, not a tuning knob (no setting raises it: running
# into it is a warp-ct performance bug, reported as WCT901). Enforced with a SIGPROF timer
# where the analysis runs on a main thread (CLI, workers), cooperatively elsewhere (the
# language server's worker thread); see ``deadline.py``.
DEFAULT_FILE_BUDGET_S = 30.0
# Project module trees kept in astroid's cache between files (memory bound for big runs):
# at most this many, and at most this much source (an astroid tree costs ~200x its source).
MAX_HELD_TREES = 64
MAX_HELD_SOURCE_BYTES = 2_000_000


def clear_inference_caches() -> None:
    """Drop astroid's inference memos (they keep every tree they saw alive)."""
    try:
        from astroid.context import _invalidate_cache
        from astroid.inference_tip import clear_inference_tip_cache

        _invalidate_cache()
        clear_inference_tip_cache()
    except ImportError:  # pragma: no cover - other astroid versions
        pass
    # Bounded lru_caches keyed by nodes: each entry keeps a whole tree alive (up to 1,024).
    for owner, name in (
        ("astroid.nodes._base_nodes", "LookupMixIn.lookup"),
        ("astroid.nodes.scoped_nodes", "ClassDef._metaclass_lookup_attribute"),
        ("astroid.interpreter.objectmodel", "ObjectModel.attributes"),
    ):
        try:
            target: Any = importlib.import_module(owner)
            for part in name.split("."):
                target = getattr(target, part)
            target.cache_clear()
        except (ImportError, AttributeError):  # pragma: no cover - other astroid versions
            pass


@dataclass
class SourceFile:
    path: str
    text: str | None  # None when it could not be read or decoded; ``problem`` says why
    problem: str | None = None
    problem_range: Range | None = None  # where the problem is (None: the start of the file)
    unchecked: str | None = None  # the kind of problem: model.UNREADABLE, TOO_LARGE, ...
    digest: str | None = None  # ``content_digest`` of the bytes read (None: nothing was read)


def content_digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def read_source(path: str | os.PathLike[str]) -> SourceFile:
    """Read a Python file honouring its PEP 263 encoding; never raises."""
    path = str(path)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (regular files ignore it).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        return unreadable_source(path, exc)
    with open(fd, "rb") as handle:
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                return SourceFile(path, None, "could not read file: not a regular file", unchecked=UNREADABLE)
            # Asked for its size: a read of MAX_FILE_BYTES allocates that much for every file.
            raw = handle.read(min(status.st_size, MAX_FILE_BYTES) + 1)
            if status.st_size < len(raw) <= MAX_FILE_BYTES:  # it grew since: read on to the limit
                raw += handle.read(MAX_FILE_BYTES + 1 - len(raw))
        except OSError as exc:
            return unreadable_source(path, exc)
    return decode_source(path, raw)


def unreadable_source(path: str, exc: OSError, *, folder: bool = False) -> SourceFile:
    """A file (or a folder) that could not be read, saying why."""
    reason = os_error_reason(exc)
    if isinstance(exc, FileNotFoundError) and os.path.islink(path):
        reason += " (a broken symbolic link)"
    if folder:
        return SourceFile(path, None, f"could not read folder: {reason}", unchecked=UNREADABLE_FOLDER)
    return SourceFile(path, None, f"could not read file: {reason}", unchecked=UNREADABLE)


def decode_source(path: str, raw: bytes) -> SourceFile:
    if len(raw) > MAX_FILE_BYTES:
        return SourceFile(path, None, f"not checked: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB", unchecked=TOO_LARGE)
    if b"\0" in raw[:8192]:
        return SourceFile(path, None, "not checked: binary file (contains NUL bytes)", unchecked=BINARY)
    text = _plain_utf8(raw)
    try:
        if text is None:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
            text = raw.decode(encoding)
    except (SyntaxError, LookupError) as exc:
        return SourceFile(path, None, f"could not decode: {exc}", Range.from_coords(0, 0, 0, 0), UNDECODABLE)
    except UnicodeDecodeError as exc:
        line0 = raw[: exc.start].count(b"\n")
        return SourceFile(
            path, None, f"could not decode as {exc.encoding}: invalid byte at offset {exc.start}",
            Range.from_coords(line0, 0, line0, 0), UNDECODABLE,
        )  # fmt: skip
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceFile(path, text, digest=content_digest(raw))


def _plain_utf8(raw: bytes) -> str | None:
    """The text of a file that declares no encoding and has no BOM (what ``detect_encoding``
    then answers: UTF-8), decoded; None for any other file, or one that does not decode
    (the general path says why)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return None
    first = raw.find(b"\n")
    second = raw.find(b"\n", first + 1) if first >= 0 else -1
    if b"coding" in (raw if second < 0 else raw[:second]):
        return None  # maybe a PEP 263 declaration
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def discover(paths: Iterable[str], config: Config, on_error: Callable[[str, OSError], None] | None = None) -> list[str]:
    """Python files under ``paths``, sorted, excluding configured patterns.

    A path named explicitly is always linted, whatever it is (reading one that is not a
    readable file says why); directories are walked, skipping excludes. ``on_error(path,
    exc)`` hears of each folder that could not be listed.
    """
    found: dict[str, None] = {}

    def walk_error(exc: OSError) -> None:
        if on_error is not None:
            on_error(str(Path(exc.filename)), exc)

    for given in paths:
        p = Path(given)
        if not os.path.isdir(p):
            found[str(p)] = None
            continue
        # A Path's text is normalised, so joining the folders the walk gives is what Path
        # would, except below "." (Path(".", "a") is "a", the walk's folder "./a").
        within = "" if os.fspath(p) == os.curdir else os.fspath(p)  # the walk's folders start with it
        for dirpath, dirnames, filenames in os.walk(p, onerror=walk_error):
            if dirpath == os.curdir:
                dirpath = ""
            elif dirpath.startswith(os.curdir + os.sep) and os.fspath(p) == os.curdir:
                dirpath = dirpath[len(os.curdir + os.sep):]
            dirnames[:] = sorted(d for d in dirnames if not config.is_excluded(os.path.join(dirpath, d), within))
            for filename in sorted(filenames):
                if filename.endswith((".py", ".pyi")):
                    candidate = os.path.join(dirpath, filename)
                    if not config.is_excluded(candidate, within):
                        found[candidate] = None
    return sorted(found)


def read_sources(paths: Iterable[str], config: Config) -> list[SourceFile]:
    """``read_source`` of each file ``discover`` finds, and one source saying why for each
    folder that could not be listed; in path order."""
    unlisted: dict[str, SourceFile] = {}  # a folder named and walked into is reported once
    found = discover(paths, config, on_error=lambda path, exc: unlisted.setdefault(path, unreadable_source(path, exc, folder=True)))
    return sorted([read_source(p) for p in found] + list(unlisted.values()), key=lambda source: source.path)


class Linter:
    """Lints files against one configuration, sharing one project view between them."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        rules: Iterable[Rule] | None = None,
        project: Project | None = None,
        inference_budget_s: float = DEFAULT_INFERENCE_BUDGET_S,
        file_budget_s: float | None = DEFAULT_FILE_BUDGET_S,
    ) -> None:
        self.config = config or Config()
        self.rules = tuple(rules) if rules is not None else all_rules()
        self.project = project or Project()
        self.project.target_warp_version = self.config.target_warp_version
        self.inference_budget_s = inference_budget_s
        self._held_trees: OrderedDict[str, int] = OrderedDict()  # module -> source size
        self._enabled_cache: dict[tuple[str, str], bool] = {}
        # path -> (summary, project generation, rules needing a tree): the batch asks once to
        # sort files, then the lint asks again; the answer holds until any file changes.
        self._active_cache: dict[str, tuple[FileSummary, int, list[Rule]]] = {}
        self._noqa_cache: dict[str, tuple[FileSummary, NoqaMap]] = {}
        self.file_budget_s = file_budget_s
        for rule in self.rules:
            # Only selected rules pay for their project facts on every file.
            if type(rule).summarize is not Rule.summarize and self.config.is_enabled(rule.code):
                self.project.rule_summarizers[rule.code] = rule.summarize

    # ------------------------------------------------------------------ entry points
    def lint_paths(self, paths: Iterable[str], *, on_file: Callable[[FileResult], None] | None = None) -> list[FileResult]:
        files = read_sources(paths, self.config)
        if self.project.root is None and files:
            # One project's files (``batch`` splits a run by project): its folder, against
            # which a file's folders tell a test or an example.
            markers: dict[str, str | None] = {}
            roots = {scope_root(source.path, markers)[0] for source in files}
            if len(roots) == 1:
                self.project.root = os.path.realpath(roots.pop())
        self.add_to_project(files)
        results = []
        for source in files:
            result = self.lint_source_file(source)
            if on_file:
                on_file(result)
            results.append(result)
        return results

    def add_to_project(self, files: Iterable[SourceFile]) -> None:
        with gc_paused():  # summaries allocate acyclic garbage only (regex matches, ast trees)
            for source in files:
                if source.text is not None:
                    self.project.add(source.path, source.text)

    def lint_text(self, path: str, text: str) -> FileResult:
        """Lint one file's current text (editor buffers), updating the project view."""
        self.project.add(path, text)
        return self.lint_source_file(SourceFile(path, text))

    def lint_source_file(self, source: SourceFile) -> FileResult:
        result = FileResult(source.path, source_digest=source.digest)
        if source.text is None:
            assert source.problem is not None and source.unchecked is not None
            where = source.problem_range or Range.from_coords(0, 0, 0, 0)
            self._not_checked(source.path, source.unchecked, where, source.problem, result)
            return result
        self._lint_text(source.path, source.text, result)
        result.findings.sort(key=lambda f: f.sort_key)
        return result

    # ------------------------------------------------------------------ one file
    def _enabled(self, code: str, path: str) -> bool:
        # Memoised: the config is immutable and is_enabled resolves paths (syscalls) each time.
        key = (code, path)
        cached = self._enabled_cache.get(key)
        if cached is None:
            cached = self._enabled_cache[key] = self.config.is_enabled(code, path)
        return cached

    def prepare_shared_answers(self, between: Callable[[], None] | None = None) -> None:
        """Build the model and the program-wide answers the selected rules share (before
        workers that share them are forked). A rule that fails here fails again where it
        checks a file, and says so there. ``between``: called after each step (a batch
        gives its idle workers more work there)."""
        step = between or (lambda: None)
        with gc_paused():
            self.project.program()
            step()
            for rule in self.rules:
                if self.config.is_enabled(rule.code):
                    try:
                        rule.prepare(self.project)
                    except Exception:  # noqa: BLE001 - reported by the rule's own checks
                        pass
                    step()

    def active_rules(self, path: str, text: str) -> list[Rule]:
        """The rules that will run on this text (empty: no tree is built for it)."""
        summary = self.project.files.get(path) or self.project.add(path, text)
        if not self.project.uses_warp(summary):
            return []
        if self._noqa(summary).file_codes is None:
            return []
        return self._rules_needing_tree(summary, path, text)

    def _noqa(self, summary: FileSummary) -> NoqaMap:
        """The file's noqa comments, read once per text (the gates ask, then the lint)."""
        cached = self._noqa_cache.get(summary.path)
        if cached is None or cached[0] is not summary:
            cached = self._noqa_cache[summary.path] = (summary, parse_noqa(summary.text))
        return cached[1]

    def _rules_needing_tree(self, summary: FileSummary, path: str, text: str) -> list[Rule]:
        if not self.project.answers_for_module(summary):
            return []  # a stub beside its source: every gate asks the model, which knows the source
        cached = self._active_cache.get(path)
        if cached is not None and cached[0] is summary and cached[1] == self.project.generation:
            return cached[2]
        active = [
            r
            for r in self.rules
            if r.checks_trees()
            and self._enabled(r.code, path)
            and r.triggered_by(text)
            and r.needs_tree(summary, self.project)
        ]
        self._active_cache[path] = (summary, self.project.generation, active)
        return active

    def _lint_text(self, path: str, text: str, result: FileResult) -> None:
        summary = self.project.files.get(path) or self.project.add(path, text)
        if not self.project.uses_warp(summary):
            return
        noqa = self._noqa(summary)
        if noqa.file_codes is None:
            return
        if not self.project.answers_for_module(summary):  # a stub beside its source: it never runs
            self._check_syntax(path, text, result)
            return
        error = self.project.facts(summary).syntax_error
        if error is not None and error != NESTED_TOO_DEEPLY:
            # The text does not parse (a keystroke halfway through a statement): no rule can
            # check it, so the model of the other files is not built for it.
            self._check_syntax(path, text, result)
            return
        budget = _FileBudget(self.file_budget_s)
        self._run_queries(path, text, summary, noqa, result, budget)
        active = self._rules_needing_tree(summary, path, text)
        if not active:
            self._check_syntax(path, text, result)  # a broken Warp file must say so all the same
        elif not budget.exhausted():
            cached_before = set(MANAGER.astroid_cache)
            shadowed = MANAGER.astroid_cache.get(summary.module_name)
            used_astroid = True
            try:
                with gc_paused():
                    used_astroid = self._lint_tree(path, text, summary.module_name, active, noqa, result, budget)
            finally:
                if used_astroid:
                    self._release_trees(summary.module_name, shadowed, cached_before)
        else:  # the query rules spent the whole budget
            budget.stopped([r.code for r in active], None)
        if budget.unfinished:
            result.findings.append(self._meta(RULE_ERROR, path, budget.where(), budget.message()))

    def _release_trees(self, module_name: str, shadowed: nodes.Module | None, cached_before: set[str]) -> None:
        """Keep memory bounded over a long run: astroid caches every tree inference builds
        (the linted file's and each project module it imported) and memoises inference.
        Project trees stay cached for later files' inference, up to ``MAX_HELD_TREES``."""
        cache = MANAGER.astroid_cache
        if shadowed is not None:
            cache[module_name] = shadowed  # a file named like a stdlib/stub module must not replace it
        for name in cache.keys() - cached_before:
            summary = self.project.by_module.get(name)
            if summary is not None:
                self._held_trees[name] = summary.size
                self._held_trees.move_to_end(name)
        held = sum(self._held_trees.values())
        while self._held_trees and (len(self._held_trees) > MAX_HELD_TREES or held > MAX_HELD_SOURCE_BYTES):
            name, size = self._held_trees.popitem(last=False)
            held -= size
            cache.pop(name, None)
        clear_inference_caches()

    def _lint_tree(self, path: str, text: str, module_name: str, active: list[Rule], noqa, result: FileResult,
                   budget: _FileBudget) -> bool:  # fmt: skip
        """Parse and run ``active`` on the tree; True when some rule's question needed astroid.

        The tree lives only in this call: it must be gone before the collector resumes,
        or its first collection walks every node (the tree is young and was never surveyed).
        """
        tree = self.project.take_tree(text) or self._parse(path, text, result)
        if tree is None:
            return False
        ctx = FileContext(
            path=path,
            text=text,
            module_name=module_name,
            tree=tree,
            project=self.project,
            target_warp_version=self.config.target_warp_version,
            inference_budget_s=self.inference_budget_s,
        )
        order = syntax.attach_parents(tree)
        try:
            self._run_rules(ctx, active, order, result, budget)
        finally:
            syntax.detach_parents(order)
        result.notes.extend(ctx.notes)
        for finding in ctx.findings:
            if noqa.suppresses(finding):
                continue
            severity = self.config.severity_for(finding.rule, finding.severity)
            result.findings.append(finding if severity == finding.severity else finding.with_severity(severity))
        return ctx.used_astroid

    def _parse(self, path: str, text: str, result: FileResult) -> ast.Module | None:
        """The file's ``ast`` tree; a WCT900 finding (or a note) when it does not parse."""
        tree, problem = parse_source(text, path)
        if problem is not None:
            message, line, col = problem
            self._not_checked(path, SYNTAX_ERROR, Range.from_coords(line, col, line, col), message, result)
        return tree

    def _check_syntax(self, path: str, text: str, result: FileResult) -> None:
        """``_parse`` for a file no rule needs a tree of: the parse its facts came from says."""
        facts = self.project.facts(self.project.files.get(path) or self.project.add(path, text))
        if facts.syntax_error is not None:
            line, col = facts.syntax_error_at
            self._not_checked(path, SYNTAX_ERROR, Range.from_coords(line, col, line, col), facts.syntax_error, result)

    def _not_checked(self, path: str, reason: str, rng: Range, message: str, result: FileResult) -> None:
        """A file no rule could check (``reason``: model.UNREADABLE, SYNTAX_ERROR, ...): a
        WCT900 finding, or a note where WCT900 is turned off for it."""
        result.unchecked = reason
        if self._enabled(PARSE_ERROR, path):
            result.findings.append(self._meta(PARSE_ERROR, path, rng, message))
        else:
            result.notes.append(message)

    def _run_queries(self, path: str, text: str, summary: FileSummary, noqa: NoqaMap, result: FileResult,
                     budget: _FileBudget) -> None:  # fmt: skip
        """Run the rules written as queries over the program model on this file."""
        queries = [r for r in self.rules if r.is_query() and self._enabled(r.code, path)]
        if not queries:
            return
        start = thread_clock()
        program = self.project.program()
        budget.credit(thread_clock() - start)  # built once for every file: not this file's cost
        facts = self.project.facts(summary)
        if facts.syntax_error is not None:
            return  # the tree rules' parse reports it
        ctx = QueryContext(path=path, text=text, module_name=summary.module_name, facts=facts, program=program,
                           project=self.project, target_warp_version=self.config.target_warp_version)  # fmt: skip
        with gc_paused():
            for at, rule in enumerate(queries):
                ctx.current_rule = rule
                try:
                    with budget.enforced():
                        rule.query(ctx)
                except DeadlineExceeded as exc:
                    if exc.kind not in ("file", "inference"):
                        raise
                    budget.stopped([r.code for r in queries[at:]], None)  # this rule and those not started
                    break
                except Exception as exc:  # noqa: BLE001 - one broken rule must not stop the others
                    result.findings.append(self._meta(
                        RULE_ERROR, path, Range.from_coords(0, 0, 0, 0),
                        f"internal error in rule {rule.code} ({rule.name}): {type(exc).__name__}: {exc}; "
                        "other rules still ran. Please report this with the file.",
                    ))  # fmt: skip
                finally:
                    ctx.current_rule = None
        for finding in ctx.findings:
            if noqa.suppresses(finding):
                continue
            severity = self.config.severity_for(finding.rule, finding.severity)
            result.findings.append(finding if severity == finding.severity else finding.with_severity(severity))

    def _run_rules(self, ctx: FileContext, rules: list[Rule], order: list[ast.AST], result: FileResult,
                   budget: _FileBudget) -> None:  # fmt: skip
        """Call each rule's ``visit_<kind>`` on the nodes in pre-order, then ``leave_module``."""
        visitors: dict[str, list[tuple[Rule, Callable]]] = {}
        leavers: list[tuple[Rule, Callable]] = []
        for rule in rules:
            for attr in dir(rule):
                if attr.startswith("visit_"):
                    visitors.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))
                elif attr == "leave_module":
                    leavers.append((rule, getattr(rule, attr)))
                elif attr.startswith("leave_"):
                    raise TypeError(f"{rule.code}: only leave_module is supported, not {attr}")
        failed: set[str] = set()

        def call(rule: Rule, method: Callable, node) -> None:
            if rule.code in failed:
                return
            ctx.current_rule = rule
            try:
                method(node, ctx)
            except Exception as exc:  # noqa: BLE001 - one broken rule must not stop the others
                failed.add(rule.code)
                line = (getattr(node, "lineno", None) or 1) - 1
                where = f"{type(exc).__name__}: {exc}"
                finding = self._meta(
                    RULE_ERROR, ctx.path, Range.from_coords(line, 0, line, 0),
                    f"internal error in rule {rule.code} ({rule.name}) at line {line + 1}: {where}; "
                    "other rules still ran. Please report this with the file.",
                )  # fmt: skip
                result.findings.append(finding)
            finally:
                ctx.current_rule = None

        # Handlers per node class, looked up once per class rather than per node.
        by_class: dict[type, list[tuple[Rule, Callable]]] = {}
        node = ctx.tree
        try:
            with budget.enforced():
                for node in order:
                    cls = node.__class__
                    handlers = by_class.get(cls)
                    if handlers is None:
                        handlers = by_class[cls] = visitors.get(cls.__name__.lower(), [])
                    if handlers:
                        poll()  # many handlers that are each quick add up too (where no timer stops them)
                    for rule, method in handlers:
                        call(rule, method, node)
                node = ctx.tree
                for rule, method in leavers:
                    call(rule, method, node)
        except DeadlineExceeded as exc:
            if exc.kind not in ("file", "inference"):
                raise
            # The line it stopped near (none at the module: before the walk, or in leave_module).
            budget.stopped([r.code for r in rules if r.code not in failed], getattr(node, "lineno", None))

    def _meta(self, code: str, path: str, rng: Range, message: str) -> Finding:
        severity = self.config.severity_for(code, Severity.ERROR)
        return Finding(rule=code, name=META_CODES[code], path=path, range=rng, message=message, severity=severity)


class _FileBudget:
    """The CPU time the analysis of one file may take, its query and tree rules together,
    and what was cut when it ran out."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds if seconds is not None and seconds > 0 else None
        self._end = thread_clock() + self.seconds if self.seconds is not None else None
        self.unfinished: list[str] = []  # rule codes, in the order they were cut
        self.line: int | None = None  # where the tree rules were when it ran out

    def credit(self, seconds: float) -> None:
        """Time that was not this file's own (the program model, built once for every file)."""
        if self._end is not None:
            self._end += seconds

    def exhausted(self) -> bool:
        """Whether it ran out (a rule was stopped, or no time is left for the next)."""
        return bool(self.unfinished) or (self._end is not None and self._end <= thread_clock())

    @contextmanager
    def enforced(self) -> Iterator[None]:
        """Raise ``DeadlineExceeded("file")`` in this block when the budget runs out."""
        if self.exhausted():  # nothing left: a deadline of <= 0 s would not limit the block
            raise DeadlineExceeded("file", self.seconds or 0)
        with hard_deadline(None if self._end is None else self._end - thread_clock(), "file"):
            yield

    def stopped(self, codes: list[str], line: int | None) -> None:
        self.unfinished.extend(code for code in codes if code not in self.unfinished)
        self.line = self.line or line

    def where(self) -> Range:
        line = (self.line or 1) - 1
        return Range.from_coords(line, 0, line, 0)

    def message(self) -> str:
        rules = ", ".join(self.unfinished)
        plural = "s" if len(self.unfinished) != 1 else ""
        near = f" near line {self.line}" if self.line else ""
        size = f" of {self.seconds:g} s of CPU time" if self.seconds else ""
        return (
            f"analysis of this file stopped{near} after its time budget{size}: "
            f"rule{plural} {rules} did not finish, so some of {'their' if plural else 'its'} findings may be "
            "missing. This is a warp-ct performance bug: please report it with the file; until it is fixed, "
            f"ignoring {'those rules' if plural else 'that rule'} for this file with `per-file-ignores` avoids it."
        )


def lint_paths(paths: Iterable[str], config: Config | None = None) -> list[FileResult]:
    """Lint files and directories; results per file, in path order."""
    return Linter(config).lint_paths(paths)


def lint_source(text: str, path: str = "<stdin>.py", config: Config | None = None, *, project: Project | None = None) -> FileResult:
    """Lint one source text (it joins ``project`` if given, for cross-file rules)."""
    return Linter(config, project=project).lint_text(path, text)


__all__ = ["Linter", "lint_paths", "lint_source", "read_source", "read_sources", "discover", "module_name_for", "META_CODES"]
