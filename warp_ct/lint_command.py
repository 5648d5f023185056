"""``warp-ct lint`` and ``warp-ct fix``: the CI / pre-commit / terminal entry point.

Exit codes: 0 no finding at or above the fail level (``--fail-level`` / ``fail-level``,
default ``warning``: info findings are shown but do not fail), 1 one or more, or a fix
that could not be written (or, with ``--diff``, changes a fix would make), 2 usage,
configuration or internal error.
Never imports pygls, lsprotocol or warp.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import io
import os
import re
import stat
import sys
import tempfile
import tokenize
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, TextIO

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks; the re-read still guards
    fcntl = None  # type: ignore[assignment]

from warp_ct.config import FAIL_LEVELS, Config, ConfigError, load_config, parse_selectors
from warp_ct.errors import EXIT_CLEAN, EXIT_FINDINGS, UsageError, os_error_reason
from warp_ct.output import DEFAULT_FORMAT, FORMAT_ENV, FORMATS, Note, Report, relative_path, renderer, use_color

if TYPE_CHECKING:
    from warp_ct.analyzer.engine import Linter
    from warp_ct.analyzer.model import FileResult, Finding

STDIN = "-"
CACHE_DIR_ENV = "WARP_CT_CACHE_DIR"
DEFAULT_CACHE_DIR = ".warp_ct_cache"
MAX_FIX_ROUNDS = 10  # a fix may expose another: re-lint and fix again, up to this many times
CHANGED_NOTE = "not fixed: the file changed after warp-ct read it; run warp-ct again"
READ_ONLY_ERROR = "fix not written: permission denied (the file is read-only)"


def register(sub: argparse._SubParsersAction) -> None:
    lint = sub.add_parser(
        "lint",
        help="check files for Warp compile-time antipatterns",
        description="Check Python files for NVIDIA Warp compile-time antipatterns. "
        "Exit status: 0 when no finding is at or above the fail level (default: warning, "
        "so info findings alone pass), 1 when one is or a fix could not be written, 2 on a usage, "
        "configuration or internal error.",
    )
    add_arguments(lint)
    lint.set_defaults(handler=run_lint, fix_command=False)

    fix = sub.add_parser(
        "fix",
        help="apply automatic fixes (same as `lint --fix`)",
        description="Apply the safe automatic fixes (with --unsafe-fixes, the unsafe ones too), "
        "then report what remains. Same as `warp-ct lint --fix`.",
    )
    add_arguments(fix)
    fix.set_defaults(handler=run_lint, fix_command=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .); `-` reads stdin")
    sel = parser.add_argument_group("rule selection")
    sel.add_argument("--select", metavar="CODES", help="comma-separated rule codes or prefixes to enable (replaces the configured selection)")
    sel.add_argument("--extend-select", metavar="CODES", help="comma-separated rule codes or prefixes to enable in addition")
    sel.add_argument("--ignore", metavar="CODES", help="comma-separated rule codes or prefixes to disable")
    out = parser.add_argument_group("output")
    out.add_argument(
        "--output-format", choices=FORMATS, default=None,
        help=f"how findings are shown (default: ${FORMAT_ENV} or {DEFAULT_FORMAT})",
    )  # fmt: skip
    out.add_argument("-o", "--output-file", metavar="FILE", help="write the output to FILE instead of stdout")
    out.add_argument("--statistics", action="store_true", help="show counts per rule instead of each finding")
    out.add_argument("-q", "--quiet", action="store_true", help="no summary line and no notes")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    out.add_argument(
        "--fail-level", choices=FAIL_LEVELS, default=None,
        help="the lowest severity that makes the run exit 1; lower findings are still shown "
        "(default: fail-level in [tool.warp-ct], else warning)",
    )  # fmt: skip
    fixing = parser.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true", help="apply safe fixes to the files")
    fixing.add_argument("--unsafe-fixes", action="store_true", help="also offer and apply unsafe fixes")
    fixing.add_argument("--diff", action="store_true", help="print the changes fixes would make as a unified diff; write nothing (exit 1 if there are changes)")
    files = parser.add_argument_group("files and configuration")
    files.add_argument("--stdin-filename", metavar="NAME", help="lint source from stdin, as if it were file NAME (with `-` or no paths)")
    files.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml's [tool.warp-ct] instead of the nearest one")
    files.add_argument("--force-exclude", action="store_true", help="apply exclude patterns to files named on the command line too (for pre-commit)")
    files.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N", help="worker processes (default: all cores; 1: no workers)")
    files.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    files.add_argument("--cache-dir", metavar="DIR", help=f"result cache directory (default: ${CACHE_DIR_ENV} or {DEFAULT_CACHE_DIR} beside the config)")


def _jobs(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (all cores) or more")
    return value or None


# ---------------------------------------------------------------------- the command
@dataclass
class Options:
    paths: list[str]
    stdin: bool
    stdin_name: str
    fmt: str
    fix: bool
    diff: bool
    unsafe: bool
    stdin_text: str | None = None  # the source read from stdin, as decoded


def run_lint(args: argparse.Namespace) -> int:
    opts = _options(args)
    config = _config(args, opts)
    # The report is written to -o's file at the end; a file that cannot be written is a
    # usage error said before a long run, not an internal error after it (--diff writes no report).
    output = OutputFile.open(args.output_file) if args.output_file and not opts.diff else None
    try:
        return _run_lint(args, opts, config, output)
    finally:
        if output is not None:
            output.close()


def _run_lint(args: argparse.Namespace, opts: Options, config: Config, output: "OutputFile | None") -> int:
    if opts.stdin:
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8")
        results, fixes = _lint_stdin(raw, config, opts)
    else:
        for path in opts.paths:
            if _missing(path):
                raise UsageError(f"{path}: no such file or directory")
        paths = _force_excluded(opts.paths, config) if args.force_exclude else opts.paths
        results = _lint(paths, config, args) if paths else []
        fixes = FixSession(config, opts.unsafe, paths).run(results) if (opts.fix or opts.diff) and paths else []

    if opts.diff:
        changed = [fix for fix in fixes if fix.changed]
        for fix in changed:
            sys.stdout.write(fix.unified_diff(_display(fix.path) if not opts.stdin else opts.stdin_name))
        count = sum(fix.applied for fix in changed)
        if not args.quiet:
            print(f"Would fix {count} finding{'s' if count != 1 else ''}." if count else "No fixes available.", file=sys.stderr)
        _print_notes(_notes(results, fixes), args)
        return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN

    fixed = None
    if opts.fix:
        if opts.stdin:
            fix = fixes[0]
            fixed = fix.applied if fix.changed else 0
            _write_stdout_source(fix.new_text if fix.changed else fix.original_text, fix.encoding)
            results = [fix.remaining_result] if fix.changed else results
        else:
            roots = fix_roots(opts.paths, config)
            written = [fix for fix in fixes if fix.changed and fix.write(roots)]
            fixed = sum(fix.applied for fix in written)
            if written or any(fix.outdated for fix in fixes):  # re-lint from disk: the findings shown are of what is there
                results = _lint(_force_excluded(opts.paths, config) if args.force_exclude else opts.paths, config, args)

    report = _report(results, fixes, opts, fixed)
    _emit(report, args, opts, output)
    _print_notes(report.notes, args)
    failed = _fails(report.findings, args.fail_level or config.fail_level) or any(fix.errors for fix in fixes)
    return EXIT_FINDINGS if failed and not args.exit_zero else EXIT_CLEAN


def _missing(path: str) -> bool:
    """Whether nothing is at ``path``. One that cannot be looked at (a folder above it is
    unreadable) is not missing: linting it reports why it could not be read."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def _fails(findings: list["Finding"], fail_level: str) -> bool:
    """Whether a finding's severity (after the configured overrides) reaches the fail level."""
    from warp_ct.analyzer.model import Severity

    threshold = Severity.parse(fail_level)
    return any(finding.severity >= threshold for finding in findings)


def _options(args: argparse.Namespace) -> Options:
    paths = list(args.paths)
    stdin = paths == [STDIN] or (not paths and args.stdin_filename is not None)
    if STDIN in paths and not stdin:
        raise UsageError("`-` (stdin) cannot be combined with other paths")
    fmt = args.output_format or os.environ.get(FORMAT_ENV, "").strip() or DEFAULT_FORMAT
    if fmt not in FORMATS:
        raise UsageError(f"{FORMAT_ENV}: unknown output format {fmt!r} (expected one of: {', '.join(FORMATS)})")
    return Options(
        paths=paths or ["."],
        stdin=stdin,
        stdin_name=args.stdin_filename or STDIN,
        fmt=fmt,
        fix=bool(args.fix or args.fix_command),
        diff=bool(args.diff),
        unsafe=bool(args.unsafe_fixes),
    )


def _config(args: argparse.Namespace, opts: Options) -> Config:
    from warp_ct.output.rules import known_codes

    try:
        if args.config:
            pyproject = Path(args.config)
            if not pyproject.is_file():
                raise UsageError(f"--config: {args.config}: no such file")
            config = load_config(pyproject.parent, pyproject=pyproject)
        else:
            first = Path(opts.stdin_name if opts.stdin and opts.stdin_name != STDIN else opts.paths[0])
            start = next((p for p in (first, first.parent) if os.path.exists(p)), Path.cwd())
            config = load_config(start)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if not args.quiet:
        for warning in config.warnings:
            print(f"warp-ct: warning: {warning}", file=sys.stderr)
    codes = known_codes()
    selection = {}
    for flag in ("select", "extend_select", "ignore"):
        value = getattr(args, flag)
        if value is None:
            continue
        option = "--" + flag.replace("_", "-")
        try:
            selection[flag] = parse_selectors(value, option)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
    return config.with_cli_selection(codes, **selection)


def _force_excluded(paths: list[str], config: Config) -> list[str]:
    return [p for p in paths if not (os.path.isfile(p) and config.is_excluded(Path(p)))]


def _lint(paths: list[str], config: Config, args: argparse.Namespace) -> list["FileResult"]:
    from warp_ct.analyzer import batch

    problem = None
    if args.no_cache:
        cache_dir = None
    elif args.cache_dir:
        cache_dir = Path(args.cache_dir)
    elif os.environ.get(CACHE_DIR_ENV):
        cache_dir = Path(os.environ[CACHE_DIR_ENV])
    else:  # beside the pyproject.toml in use; without one, in the working directory
        cache_dir = (config.source.parent if config.source else Path.cwd()) / DEFAULT_CACHE_DIR
        if cache_dir.is_symlink():  # a cloned repository's link would lead the writes anywhere
            cache_dir = None
            problem = f"{DEFAULT_CACHE_DIR} is a symbolic link (pass --cache-dir to use it)"
    results = batch.run_lint(paths, config, jobs=args.jobs, cache_dir=cache_dir)
    problem = problem or batch.last_stats.cache_problem
    if problem and not args.quiet:
        print(f"warning: {problem}; linted without the cache", file=sys.stderr)
    return results


def _lint_stdin(raw: bytes, config: Config, opts: Options) -> tuple[list["FileResult"], list["FileFix"]]:
    from warp_ct.analyzer.engine import Linter, decode_source

    source = decode_source(opts.stdin_name, raw)
    opts.stdin_text = source.text
    linter = Linter(config)
    result = linter.lint_source_file(source)
    fixes: list[FileFix] = []
    if opts.fix or opts.diff:
        session = FixSession(config, opts.unsafe, [], linter=linter)
        fixes = [session.fix_one(result, raw)]
    return [result], fixes


# ---------------------------------------------------------------------- fixing
@dataclass
class FileFix:
    path: str
    original_bytes: bytes
    original_text: str
    encoding: str
    new_text: str
    applied: int = 0
    remaining_result: "FileResult | None" = None
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # a fix that was due could not be written: the run fails
    outdated: bool = False  # the file on disk is no longer what was analysed: left alone

    @property
    def changed(self) -> bool:
        return self.applied > 0 and self.new_text != self.original_text

    def encoded(self) -> bytes | None:
        try:
            return self.new_text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            self.notes.append(f"fix not written: the result cannot be encoded as {self.encoding} ({exc.reason})")
            return None

    def write(self, roots: tuple[str, ...]) -> bool:
        """Write the fixed text over the file, under an advisory lock (``flock``) on it.

        Refuses when the result would not parse, when the file is a link to a file outside
        ``roots`` (the project and the linted paths: a cloned repository's link must not
        let ``--fix`` edit the user's other files), when the user may not write the file,
        or when the file's bytes, read again under the lock, are no longer the ones the
        fixes were computed on. Bytes that already are the fixed text (another run wrote
        these very fixes) are left alone and not counted. A file with one link is replaced
        atomically; one with several (hard links) is rewritten in place, so that every
        name keeps sharing the fixed file.
        """
        from warp_ct.analyzer.fixes import parses

        if not parses(self.new_text):
            self.notes.append("fix not written: the result would not parse")
            return False
        data = self.encoded()
        if data is None:
            return False
        target = os.path.realpath(self.path)
        if not _is_within(target, roots):
            self.notes.append(f"not fixed: it links to {target}, outside the project and the linted paths")
            return False
        try:
            if not _writable(target):
                self.errors.append(READ_ONLY_ERROR)
                return False
            with _locked(target) as handle:
                on_disk = handle.read()
                if on_disk == data:
                    self.outdated = True  # fixed meanwhile by another run: nothing of ours to count
                    return False
                if on_disk != self.original_bytes:
                    self.notes.append(CHANGED_NOTE)
                    self.outdated = True
                    return False
                if os.fstat(handle.fileno()).st_nlink > 1:
                    _write_in_place(handle, data)
                else:
                    write_atomic(target, data)
        except OSError as exc:
            self.errors.append(f"fix not written: {os_error_reason(exc)}")
            return False
        return True

    def unified_diff(self, display: str) -> str:
        before = _lines_keepends(self.original_text)
        after = _lines_keepends(self.new_text)
        out = []
        for line in difflib.unified_diff(before, after, fromfile=display, tofile=display):
            out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
        return "".join(out)


class FixSession:
    """Applies fixes in memory, re-linting each fixed text (fixes can expose new findings)
    against a project view of all the linted files, so cross-file rules see the project."""

    def __init__(self, config: Config, unsafe: bool, paths: list[str], *, linter: "Linter | None" = None) -> None:
        self.config = config
        self.unsafe = unsafe
        self.paths = paths
        self._linter = linter

    @property
    def linter(self) -> "Linter":
        if self._linter is None:
            from warp_ct.analyzer.engine import Linter, discover, read_source

            self._linter = Linter(self.config)
            self._linter.add_to_project(read_source(p) for p in discover(self.paths, self.config))
        return self._linter

    def eligible(self, findings: list["Finding"]) -> bool:
        return any(fix.is_safe or self.unsafe for f in findings for fix in f.fixes)

    def run(self, results: list["FileResult"]) -> list[FileFix]:
        """Fix each file in memory, from the very bytes its findings were computed on; a file
        whose bytes changed since is left alone, with a note."""
        from warp_ct.analyzer.engine import content_digest

        out = []
        for result in results:
            if not self.eligible(result.findings):
                continue
            try:
                with open(result.path, "rb") as handle:
                    raw = handle.read()
            except OSError as exc:
                note = f"not fixed: could not read the file again: {os_error_reason(exc)}"
                out.append(FileFix(result.path, b"", "", "utf-8", "", notes=[note], outdated=True))
                continue
            if result.source_digest is None or content_digest(raw) != result.source_digest:
                out.append(FileFix(result.path, raw, "", "utf-8", "", notes=[CHANGED_NOTE], outdated=True))
                continue
            out.append(self.fix_one(result, raw))
        return out

    def fix_one(self, result: "FileResult", raw: bytes) -> FileFix:
        from warp_ct.analyzer.engine import decode_source
        from warp_ct.analyzer.fixes import apply_fixes

        source = decode_source(result.path, raw)
        encoding = _encoding(raw)
        text = source.text
        fix = FileFix(result.path, raw, text or "", encoding or "utf-8", text or "", remaining_result=result)
        if text is None or encoding is None or not self.eligible(result.findings):
            return fix  # unreadable or undecodable files are never touched
        findings = result.findings
        current = text
        for _ in range(MAX_FIX_ROUNDS):
            outcome = apply_fixes(current, findings, unsafe=self.unsafe)
            if not outcome.applied or outcome.text == current:
                break
            current = outcome.text
            fix.applied += len(outcome.applied)
            fix.remaining_result = self._relint(result.path, current)
            findings = fix.remaining_result.findings
        fix.new_text = current
        if fix.changed:
            self.linter.project.add(result.path, current)
        return fix

    def _relint(self, path: str, text: str) -> "FileResult":
        return self.linter.lint_text(path, text)


def _encoding(raw: bytes) -> str | None:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError:
        return None
    return encoding


_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _lines_keepends(text: str) -> list[str]:
    return _LINE_RE.findall(text)


def _writable(path: str) -> bool:
    """Whether the user may write the file: its mode has a write bit (read-only files stay
    read-only, even for root, whom ``os.access`` lets write anything) and ``os.access`` agrees."""
    mode = os.stat(path).st_mode
    return bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) and os.access(path, os.W_OK)


def fix_roots(paths: list[str], config: Config) -> tuple[str, ...]:
    """The real paths of the folders whose files ``--fix`` may write: each linted folder
    (a folder named on the command line is the user's choice, link or not; for a file, the
    folder it is named in, so that a named link to a file elsewhere is not followed out),
    and the project's (the folder of the pyproject.toml in use) when the linted paths are
    in it. A pyproject.toml found from where a named link points does not count: it is
    another project's."""
    linted = set()
    for path in paths:
        folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        linted.add(os.path.realpath(folder))
    roots = set(linted)
    if config.source is not None:
        project = os.path.realpath(config.source.parent)
        if all(_is_within(folder, (project,)) for folder in linted):
            roots.add(project)
    return tuple(sorted(roots))


def _is_within(real: str, roots: tuple[str, ...]) -> bool:
    for root in roots:
        prefix = root if root.endswith(os.sep) else root + os.sep
        if real == root or real.startswith(prefix):
            return True
    return False


# A run that waited for the lock while another replaced the file holds the replaced inode;
# it opens the path again. More tries than this means something keeps replacing the file.
_LOCK_TRIES = 20


@contextmanager
def _locked(path: str) -> Iterator[IO[bytes]]:
    """``path`` open for reading and writing, under an exclusive ``flock`` held until the
    block ends, on the file the path names once the lock is granted. Two ``--fix`` runs on
    one file take turns: the second reads what the first wrote. Where the file system has
    no advisory locks, the file is used unlocked (the re-read still catches most edits)."""
    for _ in range(_LOCK_TRIES):
        handle = open(path, "r+b")
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                except OSError as exc:
                    if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL):
                        raise
            held, named = os.fstat(handle.fileno()), os.stat(path)
            if (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino):
                yield handle
                return
        finally:
            handle.close()  # releases the lock
    raise OSError(errno.EAGAIN, "the file kept being replaced while warp-ct waited to write it")


def _write_in_place(handle: IO[bytes], data: bytes) -> None:
    """Rewrite the open file with ``data``, keeping its inode: the file's other hard links
    see the fix (a replacement would leave them with the old text). Not atomic, as it
    cannot be with more than one name: the new bytes are written and flushed before the
    file is cut to their length."""
    handle.seek(0)
    handle.write(data)
    handle.truncate(len(data))
    handle.flush()
    os.fsync(handle.fileno())


def write_atomic(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically: a temp file in the same directory, flushed,
    given the original file's owner (where allowed) and permission bits, then ``os.replace``."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    original = os.stat(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".warp-ct.tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _keep_owner(tmp, original)
        os.chmod(tmp, stat.S_IMODE(original.st_mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _keep_owner(tmp: str, original: os.stat_result) -> None:
    """Give the new file the original's owner: root fixing a user's file must not take it."""
    created = os.stat(tmp)
    if (created.st_uid, created.st_gid) == (original.st_uid, original.st_gid) or not hasattr(os, "chown"):
        return
    try:
        os.chown(tmp, original.st_uid, original.st_gid)
    except OSError:
        pass  # only root may give a file away; otherwise it is now the file of whoever fixed it


def _write_stdout_source(text: str, encoding: str) -> None:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode("utf-8")
    buffer.write(data)
    buffer.flush()


# ---------------------------------------------------------------------- output
def _display(path: str) -> str:
    return path if path == STDIN else relative_path(path)


def _notes(results: list["FileResult"], fixes: list[FileFix]) -> list[Note]:
    notes = {Note(_display(result.path), n) for result in results for n in result.notes}
    notes.update(Note(_display(fix.path), n) for fix in fixes for n in fix.notes)
    notes.update(Note(_display(fix.path), n, level="error") for fix in fixes for n in fix.errors)
    return sorted(notes, key=lambda n: (n.path, n.message))


def _report(results: list["FileResult"], fixes: list[FileFix], opts: Options, fixed: int | None) -> Report:
    findings = []
    origins = {}
    texts = {}
    unchecked: dict[str, int] = {}
    for result in results:
        display = _display(result.path)
        origins[display] = result.path
        findings.extend(replace(f, path=_display(f.path)) for f in result.findings)
        if result.unchecked:
            unchecked[result.unchecked] = unchecked.get(result.unchecked, 0) + 1
    notes = _notes(results, fixes)
    if opts.stdin:
        text = opts.stdin_text or ""
        if opts.fix and fixes and fixes[0].changed:
            text = fixes[0].new_text
        texts[opts.stdin_name] = text
    return Report(findings, notes, unsafe_fixes=opts.unsafe, fixed=fixed, unchecked=unchecked, texts=texts, origins=origins)


class OutputFile:
    """The ``-o/--output-file`` file, opened (and its folders made) before linting and
    written once the report is ready. A name that cannot be written is a UsageError naming
    it. Opened without truncating: until the report is written, the file keeps what it had."""

    def __init__(self, name: str, fd: int, created: bool) -> None:
        self.name = name
        self._fd: int | None = fd
        self._created = created
        self._written = False

    @classmethod
    def open(cls, name: str) -> "OutputFile":
        path = Path(name)
        try:
            if path.is_dir():
                raise IsADirectoryError(errno.EISDIR, "is a directory")
            blocker = _non_folder_above(path)
            if blocker is not None:
                raise UsageError(f"-o/--output-file: cannot write {name}: {blocker} is not a directory")
            path.parent.mkdir(parents=True, exist_ok=True)
            created = not os.path.lexists(path)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
        except OSError as exc:
            raise UsageError(f"-o/--output-file: cannot write {name}: {os_error_reason(exc)}") from None
        return cls(name, fd, created)

    def write(self, text: str) -> None:
        assert self._fd is not None
        try:
            if stat.S_ISREG(os.fstat(self._fd).st_mode):  # not a pipe or a terminal (/dev/stdout)
                os.ftruncate(self._fd, 0)
            data = text.encode("utf-8")
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as exc:
            raise UsageError(f"-o/--output-file: cannot write {self.name}: {os_error_reason(exc)}") from None
        self._written = True

    def close(self) -> None:
        if self._fd is None:
            return
        os.close(self._fd)
        self._fd = None
        if self._created and not self._written:  # the run stopped before its report: leave no empty file
            try:
                os.unlink(self.name)
            except OSError:
                pass


def _non_folder_above(path: Path) -> Path | None:
    """The nearest existing folder-to-be above ``path`` that is not a folder (a file named
    where a folder would be made), or None."""
    for parent in path.absolute().parents:
        if os.path.lexists(parent):
            return None if os.path.isdir(parent) else _shown(parent, path)
    return None


def _shown(parent: Path, path: Path) -> Path:
    """``parent`` as the user wrote it, where ``path`` was given relative."""
    if path.is_absolute():
        return parent
    try:
        return parent.relative_to(Path.cwd())
    except ValueError:
        return parent


def _emit(report: Report, args: argparse.Namespace, opts: Options, output: OutputFile | None = None) -> None:
    # With `--fix` on stdin, stdout carries the fixed source: findings go to stderr.
    stream: TextIO = sys.stderr if (opts.stdin and opts.fix) else sys.stdout
    if args.statistics:
        from warp_ct.output import statistics

        text = statistics.render(report, opts.fmt)
        color = False
    else:
        color = not args.output_file and use_color(stream)
        text = renderer(opts.fmt)(report, color)
        if args.quiet and opts.fmt in ("concise", "full"):
            text = _without_summary(text)
    if opts.fmt not in ("concise", "full") and report.fixed and not args.quiet:
        print(f"Fixed {report.fixed} finding{'s' if report.fixed != 1 else ''} ({len(report.findings)} remaining).", file=sys.stderr)
    if output is not None:
        output.write(text)
    else:
        stream.write(text)
        stream.flush()


def _without_summary(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:-1]) if lines else text


def _print_notes(notes: list[Note], args: argparse.Namespace) -> None:
    """``path: note: message`` (``path: error: ...`` for a fix that could not be written),
    escaped as the findings are: notes quote paths and the linted files' text."""
    from warp_ct.output.escape import printable

    for note in notes:  # -q keeps the errors
        if note.level == "error" or not args.quiet:
            print(f"{printable(note.path)}: {note.level}: {printable(note.message)}", file=sys.stderr)
