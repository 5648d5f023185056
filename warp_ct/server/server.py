"""The warp-ct language server: pygls wiring, document state, and publishing.

Threads: the protocol loop (pygls/asyncio) owns the document table and does all protocol
I/O; the analysis worker (``worker.py``) owns every Linter and astroid; the measure
thread runs the probe. Other threads reach the client only through ``call_soon``.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import os
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable
from urllib.parse import unquote

from cattrs import BaseValidationError, transform_error
from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path

from warp_ct import __version__
from warp_ct.analyzer.engine import discover, read_source
from warp_ct.analyzer.model import Finding
from warp_ct.analyzer.syntax import gc_paused
from warp_ct.server import code_actions as actions_mod
from warp_ct.server import hover as hover_mod
from warp_ct.server import transport
from warp_ct.server.diagnostics import to_diagnostics
from warp_ct.server.folders import Folders, normalize_path
from warp_ct.server.lenses import OPEN_REPORT_COMMAND, MeasuredState
from warp_ct.server.positions import UTF8, UTF16, Converter, normalize_encoding
from warp_ct.server.settings import SECTION, Settings, SettingsError, build_config, parse_settings, unwrap
from warp_ct.server.uris import UnusableUri, file_path, shown
from warp_ct.server.worker import Job, Worker

logger = logging.getLogger("warp_ct.server")

MEASURE_COMMAND = "warp-ct.measure"
MEASURE_LEVERS_COMMAND = "warp-ct.measureLevers"
LINT_WORKSPACE_COMMAND = "warp-ct.lintWorkspace"
ANALYSIS_TIMEOUT_S = 30.0
# A keystroke after a pause is analysed at once only while this document's analyses fit the
# keystroke-to-squiggle budget (150 ms, DESIGN.md): then starting at once is what meets it, and
# the analysis is mostly done before the next key. A slower one started at once would mostly be
# thrown away (stale) by the next key and hold up the one after it, so such documents are always
# debounced (a burst of 5 keys on the 2,400-line benchmark file under load: p50 1.58 s -> 0.66 s).
LEADING_EDGE_MAX_MS = 150.0


class _CollectorHold:
    """The cyclic collector, off while any analysis is held (from its start on the worker to
    its publication on the loop), back on when the last hold is released."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holds = 0
        self._was_enabled = False

    def hold(self) -> None:
        with self._lock:
            if self._holds == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._holds += 1

    def release(self) -> None:
        with self._lock:
            self._holds -= 1
            if self._holds == 0 and self._was_enabled:
                gc.enable()


_COLLECTOR = _CollectorHold()


@dataclass
class Doc:
    uri: str
    path: str
    text: str
    version: int | None
    generation: int  # changes when the document is closed and opened again
    last_change: float = 0.0  # time.monotonic() of the last didChange
    analysis_ms: float = 0.0  # moving average of this document's analysis time (worker thread writes it)


@dataclass
class Analysis:
    uri: str
    path: str
    text: str
    version: int | None
    generation: int
    findings: list[Finding]
    # The measured findings these findings stand for (confirm's join): not shown on their own.
    twinned: frozenset = frozenset()


def _is_python(uri: str, language_id: str | None) -> bool:
    if language_id:
        return language_id.lower() in ("python", "py")
    return uri.endswith((".py", ".pyi"))


def _path_for(uri: str) -> str:
    path = file_path(uri)  # the protocol refused the URIs it raises for (_check_document_uri)
    if path:
        return path
    # untitled:Untitled-1 and other schemes: a stable pseudo path (no project, no config above it)
    name = uri.split(":", 1)[-1].strip("/").replace("/", "_") or "untitled"
    return os.path.join(os.path.abspath(os.sep), "__warp_ct_untitled__", name if name.endswith(".py") else name + ".py")


class WarpCtProtocol(LanguageServerProtocol):
    """pygls' protocol, plus:

    - UTF-8 positions when the client offers them (else UTF-16);
    - requests and notifications whose params cannot be read, or whose document URI names no
      usable file (``%00``), raise a one-line ``JsonRpcInvalidParams`` (pygls 2.1 logs a
      traceback for them); ``transport.serve`` answers the request with it, or logs the
      notification it drops in one line;
    - the lifecycle as LSP has it: a request before ``initialize`` gets ServerNotInitialized
      (pygls answered null), a second ``initialize`` or a request after ``shutdown`` gets
      InvalidRequest (pygls answered nothing), and such notifications are dropped;
    - ``shutdown`` waits for the server's own shutdown (a running measurement is stopped),
      then cancels the requests still open without failing (pygls 2.1 answered -32603
      "dictionary changed size during iteration" and ``exit`` then ended with status 1);
    - a handler's JsonRpcException (InvalidParams for a command's arguments) is answered in
      one log line (pygls 2.1 logged its traceback, into the editor's log too);
    - ``didChange`` for a document that is not open is dropped in one log line (pygls 2.1
      failed with a KeyError and its traceback);
    - after ``exit`` (which closes the output) nothing more is sent: the tasks cancelled as
      the loop ends (a measurement when ``exit`` came without ``shutdown``) have their last
      messages dropped instead of a traceback per message on a closed file, and a request
      whose handler was cancelled that way is cancelled too (pygls 2.1 let the
      CancelledError escape to asyncio's log).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_received = False
        self.shutdown_received = False
        self.exit_received = False

    def structure_message(self, data: dict[str, Any]):  # type: ignore[override]
        method = data.get("method")
        if "jsonrpc" not in data or not isinstance(method, str) or "error" in data:
            return super().structure_message(data)  # a response (typed by the request it answers), or no message
        generic = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
        arguments = data.get("params", {}).get("arguments") if isinstance(data.get("params"), dict) else None
        if method == types.WORKSPACE_EXECUTE_COMMAND and arguments is not None and not isinstance(arguments, list):
            # cattrs would make a list of an object's keys: {"argv": [...]} measured a command named "argv"
            raise JsonRpcInvalidParams(f"invalid params for {method!r}: 'arguments' must be an array @ $.params.arguments")
        try:
            message = self._converter.structure(data, self.get_message_type(method) or generic)
        except Exception as exc:  # noqa: BLE001 - cattrs reports bad params in many ways
            raise JsonRpcInvalidParams(f"invalid params for {method!r}: {_params_problem(exc)}") from None
        _check_document_uri(method, message)
        return message

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method is None:  # a response to one of the server's requests
            return super().handle_message(message)
        request_id = getattr(message, "id", None)
        refusal = self._lifecycle_refusal(method)
        if refusal is None:
            if method == types.INITIALIZE:
                self.initialize_received = True
            elif method == types.SHUTDOWN:
                self.shutdown_received = True
            return super().handle_message(message)
        if request_id is None:
            logger.warning("ignored notification %r: %s", method, refusal.message)
        else:
            logger.warning("refused request %r: %s", method, refusal.message)
            self._send_response(request_id, error=refusal.to_response_error())
        return None

    def _lifecycle_refusal(self, method: str) -> JsonRpcException | None:
        """Why a message cannot be served at this point of the session (None when it can)."""
        if method == types.EXIT:
            return None  # also before initialize: it ends a server that never started (status 1)
        if not self.initialize_received:
            if method == types.INITIALIZE:
                return None
            return JsonRpcServerNotInitialized(f"The server is not initialized: {method!r} came before 'initialize'.")
        if self.shutdown_received:
            return JsonRpcInvalidRequest(f"The server is shutting down: {method!r} came after 'shutdown'; only 'exit' is served.")
        if method == types.INITIALIZE:
            return JsonRpcInvalidRequest("The server is already initialized: 'initialize' is sent once per session.")
        return None

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any):  # type: ignore[override]
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        # Over a copy: cancelling a request's future runs its callback at once, and that
        # callback removes the request from the table being walked.
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any):  # type: ignore[override]
        self.exit_received = True
        yield from super().lsp_exit(*args)

    def _send_data(self, data: Any) -> None:
        if self.exit_received:
            logger.debug("not sent after 'exit': %.200r", data)
            return
        super()._send_data(data)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):  # type: ignore[override]
        uri = params.text_document.uri
        if unquote(uri) not in self.workspace.text_documents:  # pygls keys documents by the unquoted URI
            logger.warning("ignored 'textDocument/didChange': %s is not open", shown(uri))
            return
        yield from super().lsp_text_document__did_change(params)

    def _run_generator(self, future: Any, *, gen: Any, result_future: Any) -> None:
        if future is not None and future.cancelled():
            gen.close()
            result_future.cancel()
            return
        super()._run_generator(future, gen=gen, result_future=result_future)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        error = None if future.cancelled() else future.exception()
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            self._request_futures.pop(msg_id, None)
            logger.warning("request %r answered with error %d: %s", msg_id, error.code, error.message)
            self._send_response(msg_id, error=error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):  # type: ignore[override]
        general = params.capabilities.general
        if general is not None and general.position_encodings and UTF8 in [
            normalize_encoding(e) for e in general.position_encodings
        ]:
            general.position_encodings = [types.PositionEncodingKind.Utf8]
        return (yield from super().lsp_initialize(params))


def _check_document_uri(method: str, message: Any) -> None:
    """Raise JsonRpcInvalidParams when the document a message is about has a ``file:`` URI
    that names no usable path (``%00``): the client's mistake, told in one line, before it
    fails deep inside the analysis."""
    document = getattr(getattr(message, "params", None), "text_document", None)
    uri = getattr(document, "uri", None)
    if isinstance(uri, str):
        try:
            file_path(uri)
        except UnusableUri as exc:
            raise JsonRpcInvalidParams(f"invalid params for {method!r}: {exc}") from None


def _params_problem(exc: Exception) -> str:
    """What is wrong with a message's params, on one line (cattrs says where: ``@ $.params.x``)."""
    if isinstance(exc, BaseValidationError):
        return "; ".join(transform_error(exc))
    return f"{type(exc).__name__}: {exc}"


class WarpCtServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("warp-ct", __version__, protocol_cls=WarpCtProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)  # fmt: skip
        self.settings = Settings()
        self.docs: dict[str, Doc] = {}
        self.results: dict[str, Analysis] = {}
        self.encoding = UTF16
        self.loop: asyncio.AbstractEventLoop | None = None
        # A broken [tool.warp-ct] leaves its folder on the defaults: shown, so the user knows why.
        self.folders = Folders(log=lambda message: self.log(message, types.MessageType.Warning), show=self.show_warning)
        self.worker: Worker | None = None
        self.measured = MeasuredState()
        self.measure_task: Any = None  # warp_ct.server.measure.MeasureRun while one runs
        self.published_closed: set[str] = set()  # URIs of closed files we published for
        self._generations = itertools.count(1)
        self._raw_settings: dict[str, Any] = {}
        self._logged_once: set[str] = set()
        # WARP_CT_LSP_TIMINGS=1: one window/logMessage (type Log) per analysis with its timing
        self.trace_timings = os.environ.get("WARP_CT_LSP_TIMINGS", "") not in ("", "0")

    # ------------------------------------------------------------------ transport
    # pygls' start_io and start_tcp with warp-ct's reader loop (transport.py): input that is
    # too big, not framed, not JSON or not JSON-RPC gets an error and the server reads on.
    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        self._stop_event = threading.Event()  # pygls' shutdown() sets it
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = transport.StdinReader(stdin or sys.stdin.buffer, self.thread_pool)
        exit_code = 0
        try:
            asyncio.run(transport.serve(reader, self, self._stop_event))
        except BrokenPipeError:
            logger.error("the connection to the client is lost; stopping")
        except KeyboardInterrupt:
            pass
        except SystemExit as exc:  # the ``exit`` notification: 1 when no ``shutdown`` came first (LSP)
            exit_code = exc.code if isinstance(exc.code, int) else 0
        finally:
            self.shutdown()
        if exit_code:
            raise SystemExit(exit_code)

    def start_tcp(self, host: str, port: int) -> None:
        self._stop_event = stop_event = threading.Event()

        async def connection(stream: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await transport.serve(transport.SocketReader(stream), self, stop_event)
            self.shutdown()

        async def listen() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(listen())
        except asyncio.CancelledError:
            pass

    # ------------------------------------------------------------------ plumbing
    def call_soon(self, fn: Callable[..., Any], *args: Any) -> bool:
        """Run ``fn`` on the protocol loop (from any thread); False when there is none."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return False

        def guarded() -> None:
            try:
                fn(*args)
            except Exception as exc:  # noqa: BLE001
                logger.exception("callback failed")
                self._log_now(f"internal error: {type(exc).__name__}: {exc}", types.MessageType.Error)

        try:
            loop.call_soon_threadsafe(guarded)
        except RuntimeError:  # loop closed during shutdown
            return False
        return True

    def _log_now(self, message: str, kind: types.MessageType) -> None:
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # noqa: BLE001 - no transport (yet/anymore)
            logger.warning("%s", message)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """window/logMessage from any thread."""
        logger.info("%s", message)
        if self.loop is None:
            return
        self.call_soon(self._log_now, f"[warp-ct] {message}", kind)

    def log_once(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """window/logMessage the first time ``message`` comes up in the session."""
        if message not in self._logged_once:
            self._logged_once.add(message)
            self.log(message, kind)

    def log_error(self, what: str, exc: BaseException) -> None:
        details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.log(f"error while {what}: {type(exc).__name__}: {exc}\n{details}", types.MessageType.Error)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Out-of-band errors (a notification handler raised, bad JSON): log, never pop up.
        self.log_error("handling a message", error)

    def show_warning(self, message: str) -> None:
        self.log(message, types.MessageType.Warning)

        def show() -> None:
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"warp-ct: {message}"))

        self.call_soon(show)

    def capability(self, field: str, default: Any = None) -> Any:
        return get_capability(self.client_capabilities, field, default)

    def client_shows_reports(self) -> bool:
        """The client shows the probe's HTML reports itself (the VS Code extension: a webview
        beside the code), announced as ``capabilities.experimental.warpCt.showsReports``; then
        the server does not open its markdown summary after measuring."""
        experimental = self.capability("experimental", None)
        if not isinstance(experimental, dict):
            return False
        ours = experimental.get("warpCt")
        return isinstance(ours, dict) and ours.get("showsReports") is True

    # ------------------------------------------------------------------ lifecycle
    def on_initialize(self, params: types.InitializeParams) -> None:
        self.loop = asyncio.get_running_loop()
        self.encoding = normalize_encoding(self.workspace.position_encoding)
        options = params.initialization_options
        data = unwrap(options) if options is not None else None
        if data:
            try:
                self.settings = parse_settings(data)
                self._raw_settings = dict(data)
            except SettingsError as exc:
                self.show_warning(f"ignoring initializationOptions: {exc}")
        self.worker = Worker(self._process, on_error=self.log_error, on_idle=self._check_config_files)
        roots, settings = self.workspace_roots(), self.settings
        self.worker.submit(lambda: self.folders.configure(roots, settings))
        self.log(f"warp-ct {__version__} started; positions in {self.encoding}; folders: "
                 f"{', '.join(str(r) for r in roots) or '(none)'}")  # fmt: skip

    async def on_initialized(self) -> None:
        if self.capability("workspace.did_change_watched_files.dynamic_registration", False):
            try:
                await self.client_register_capability_async(
                    types.RegistrationParams(
                        registrations=[
                            types.Registration(
                                id="warp-ct-pyproject-watcher",
                                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                    watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
                                ),
                            )
                        ]
                    )
                )
            except Exception as exc:  # noqa: BLE001 - the poller still notices changes
                self.log(f"could not register a pyproject.toml watcher: {exc}", types.MessageType.Warning)
        if not self._raw_settings and self.capability("workspace.configuration", False):
            await self.pull_settings()

    async def on_shutdown(self) -> None:
        """The ``shutdown`` request: a running measurement is cancelled and awaited (the probe
        stops the measured command and removes its temp dir) before the answer; then the
        analysis worker stops."""
        from warp_ct.server.measure import stop_measurement

        await stop_measurement(self, "shutdown")
        if self.worker is not None:
            self.worker.stop()

    def shutdown(self) -> None:
        """The end of the session (pygls' transport calls it), with or without a ``shutdown``
        request: the probe is told to stop, and the process waits for the measure thread to
        stop the command and remove its temp dir before it ends."""
        run = self.measure_task
        if run is not None:
            run.cancel.set()
        super().shutdown()

    def workspace_roots(self) -> list[Path]:
        """The local paths of the workspace folders (else of the root URI); a folder whose
        URI names no usable path is left out, and said so once."""
        uris = [folder.uri for folder in self.workspace.folders.values()]
        if not uris and self.workspace.root_uri:
            uris = [self.workspace.root_uri]
        roots = []
        for uri in uris:
            try:
                path = file_path(uri)
            except UnusableUri as exc:
                self.log_once(f"workspace folder left out: {exc}", types.MessageType.Warning)
                continue
            if path:
                roots.append(Path(path))
        return roots

    # ------------------------------------------------------------------ settings
    async def pull_settings(self) -> None:
        try:
            result = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            )
        except Exception as exc:  # noqa: BLE001
            self.log(f"workspace/configuration failed: {exc}", types.MessageType.Warning)
            return
        data = result[0] if result else None
        if isinstance(data, dict) and data:
            self.apply_settings(data)

    def apply_settings(self, data: dict[str, Any]) -> bool:
        try:
            settings = parse_settings(data)
        except SettingsError as exc:
            self.show_warning(f"{exc}; keeping the previous settings")
            return False
        self._raw_settings = dict(data)
        self.settings = settings
        self.reconfigure("settings changed")
        return True

    def reconfigure(self, reason: str) -> None:
        """Rebuild every folder's config and linter on the worker, then re-lint open documents."""
        if self.worker is None:
            return
        roots, settings = self.workspace_roots(), self.settings

        def task() -> None:
            self.folders.configure(roots, settings)
            self.call_soon(self.relint_all)

        self.log(f"{reason}: re-linting open documents")
        self.worker.submit(task)

    def _check_config_files(self) -> None:
        """Worker thread: a pyproject changed on disk -> that folder's config is rebuilt."""
        changed = self.folders.changed_configs()
        if changed:
            self.folders.drop(changed)
            self.log(f"configuration changed on disk ({', '.join(str(f.root) for f in changed)}): re-linting")
            self.call_soon(self.relint_all)

    # ------------------------------------------------------------------ documents (loop thread)
    def open_document(self, item: types.TextDocumentItem) -> None:
        if not _is_python(item.uri, item.language_id):
            return
        doc = Doc(item.uri, _path_for(item.uri), item.text, item.version, next(self._generations))
        self.docs[item.uri] = doc
        self.schedule(doc, delay_ms=0, reason="open")

    def change_document(self, params: types.DidChangeTextDocumentParams) -> None:
        doc = self.docs.get(params.text_document.uri)
        if doc is None:
            return
        document = self.workspace.get_text_document(doc.uri)
        doc.text = document.source
        doc.version = params.text_document.version
        now = _now()
        previous, doc.last_change = doc.last_change, now
        if self.settings.lint_on_change:
            # Debounce only bursts: a keystroke after a pause is analysed at once (its squiggles
            # are then one analysis away) when analyses of this document are quick; one that
            # follows the previous within the debounce waits, and replaces any job of this
            # document that has not started.
            debounce = self.settings.debounce_ms
            in_burst = (now - previous) * 1000.0 < debounce
            at_once = not in_burst and doc.analysis_ms <= LEADING_EDGE_MAX_MS
            self.schedule(doc, delay_ms=0 if at_once else debounce, reason="change")

    def save_document(self, uri: str) -> None:
        doc = self.docs.get(uri)
        if doc is None:
            if uri.endswith("pyproject.toml"):
                self.reconfigure("pyproject.toml saved")
            return
        doc.text = self.workspace.get_text_document(uri).source
        self.schedule(doc, delay_ms=0, reason="save")

    def close_document(self, uri: str) -> None:
        doc = self.docs.pop(uri, None)
        if doc is None:
            return
        if self.worker is not None:
            self.worker.cancel(uri)
        self.results.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def schedule(self, doc: Doc, *, delay_ms: int, reason: str) -> None:
        if self.worker is None:
            return
        now = _now()
        self.worker.schedule(
            Job(doc.uri, doc.path, doc.text, doc.version, doc.generation, now + delay_ms / 1000.0, reason, now)
        )

    def relint_all(self) -> None:
        for doc in list(self.docs.values()):
            self.schedule(doc, delay_ms=0, reason="relint")

    # ------------------------------------------------------------------ analysis (worker thread)
    def analyze(self, uri: str, path: str, text: str, version: int | None, generation: int) -> Analysis:
        self._check_config_files()
        folder = self.folders.folder_for(path)
        if not folder.project_loaded:
            count = folder.load_project()
            if count:
                self.log(f"project view of {folder.root}: {count} files")
        # The collector walks every object of the project model on each full collection: off
        # for the keystroke's analysis (~20% of it), back on between keystrokes.
        with gc_paused():
            result = folder.linter.lint_text(path, text)
        findings, twinned = self.join_measured(result.findings, path, text)
        return Analysis(uri, path, text, version, generation, findings, twinned)

    def join_measured(self, findings: list[Finding], path: str, text: str) -> tuple[list[Finding], frozenset]:
        """The last measurement joined with a file's static findings (``confirm``'s join, the only
        one): the findings with their evidence (a measured twin's figures, or what the run said
        about them: not exercised, not measurable here) and the measured findings they stand for,
        which :meth:`diagnostics_for` leaves out (one problem, one diagnostic)."""
        report = self.measured.report
        if report is None or not findings:
            return findings, frozenset()
        try:
            from warp_ct.confirm import join_for_editor
        except ImportError:
            return findings, frozenset()
        try:
            placed = self.measured.placed(path, Converter(text, self.encoding))
            found, twinned, _unexplained = join_for_editor(findings, report, self.measured.ledger, placed)
        except Exception as exc:  # noqa: BLE001 - evidence is a bonus, never a reason to lose findings
            self.log_error("attaching measured evidence", exc)
            return findings, frozenset()
        return found, twinned

    def file_diagnostics(self, path: str, text: str, findings: list[Finding]) -> tuple[list[Finding], list[types.Diagnostic]]:
        """A file's static findings joined with the measurement, and its diagnostics (for files
        no editor has open; open documents go through :meth:`analyze`)."""
        found, twinned = self.join_measured(findings, path, text)
        analysis = Analysis("", path, text, None, 0, found, twinned)
        return found, self.diagnostics_for(analysis)

    def diagnostics_for(self, analysis: Analysis) -> list[types.Diagnostic]:
        """The static findings (carrying the measured figures of their twins) and the measured
        findings no static finding matched, each problem once."""
        conv = Converter(analysis.text, self.encoding)
        skip = analysis.twinned | self.measured.twinned_elsewhere
        return to_diagnostics(analysis.findings, conv) + self.measured.diagnostics_for(analysis.path, conv, skip)

    def _process(self, job: Job) -> None:
        doc = self.docs.get(job.uri)
        if doc is None or doc.generation != job.generation:
            return  # closed meanwhile
        started = _now()
        cpu_started = time.thread_time()
        # The collector stays off until the diagnostics are out: turned back on, its first
        # pass surveys everything the analysis made (the edited file's facts and tree, ~20 ms
        # on the 2,400-line benchmark file), which belongs between keystrokes, not before the
        # squiggles.
        _COLLECTOR.hold()
        published_later = False
        try:
            analysis = self.analyze(job.uri, job.path, job.text, job.version, job.generation)
            diagnostics = self.diagnostics_for(analysis)
            took_ms = 1000.0 * (_now() - started)
            if job.reason != "open":
                # The first analysis builds the model of the whole project (seconds): it says
                # nothing of what a keystroke costs, and kept the next ~10 keystrokes
                # debounced while the average came down from it.
                doc.analysis_ms = took_ms if doc.analysis_ms == 0.0 else 0.7 * doc.analysis_ms + 0.3 * took_ms
            if self.trace_timings:
                done = _now()
                cpu = time.thread_time() - cpu_started
                self.log(
                    f"timing {job.uri} v{job.version} ({job.reason}): waited {1000 * (started - job.scheduled):.1f} ms, "
                    f"analysis {1000 * (done - started):.1f} ms (cpu {1000 * cpu:.1f} ms), {len(diagnostics)} diagnostics",
                    types.MessageType.Log,
                )
            published_later = self.call_soon(self._publish_then_collect, job, analysis, diagnostics)
        finally:
            if not published_later:
                _COLLECTOR.release()

    # ------------------------------------------------------------------ publishing (loop thread)
    def _publish_then_collect(self, job: Job, analysis: Analysis, diagnostics: list[types.Diagnostic]) -> None:
        try:
            self._publish_if_current(job, analysis, diagnostics)
        finally:
            _COLLECTOR.release()

    def _publish_if_current(self, job: Job, analysis: Analysis, diagnostics: list[types.Diagnostic]) -> None:
        doc = self.docs.get(job.uri)
        if doc is None or doc.generation != job.generation:
            return  # closed (and maybe reopened) since
        if self.worker is not None and self.worker.has_pending(job.uri):
            return  # a newer version is queued: this result is stale
        if job.text is not doc.text and self.settings.lint_on_change:
            return  # edited since (the newer version may already be on the worker): it publishes
        self.results[job.uri] = analysis
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=job.uri, version=job.version, diagnostics=diagnostics)
        )

    def _publish_closed(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        if uri in self.docs:
            return  # opened meanwhile: its own analysis publishes
        if diagnostics:
            self.published_closed.add(uri)
        else:
            self.published_closed.discard(uri)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    async def current_analysis(self, uri: str) -> Analysis | None:
        """The analysis of the document's current text (re-linting on the worker if stale)."""
        doc = self.docs.get(uri)
        if doc is None:
            return None
        cached = self.results.get(uri)
        if cached is not None and cached.version == doc.version and cached.generation == doc.generation and cached.text == doc.text:
            return cached
        if self.worker is None:
            return None
        uri_, path, text, version, generation = doc.uri, doc.path, doc.text, doc.version, doc.generation
        future = self.worker.submit(lambda: self.analyze(uri_, path, text, version, generation))
        analysis = await asyncio.wait_for(asyncio.wrap_future(future), ANALYSIS_TIMEOUT_S)
        current = self.docs.get(uri)
        if current is not None and current.generation == generation and current.version == version:
            self.results[uri] = analysis
        return analysis

    # ------------------------------------------------------------------ requests
    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        analysis = await self.current_analysis(params.text_document.uri)
        if analysis is None:
            return None
        document_changes = bool(self.capability("workspace.workspace_edit.document_changes", False))
        return actions_mod.code_actions(
            uri=analysis.uri, version=analysis.version, text=analysis.text, findings=analysis.findings,
            params=params, encoding=self.encoding, document_changes=document_changes,
        )  # fmt: skip

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        analysis = await self.current_analysis(params.text_document.uri)
        if analysis is None:
            return None
        formats = self.capability("text_document.hover.content_format", None)
        markdown = not formats or types.MarkupKind.Markdown in formats
        return hover_mod.hover(text=analysis.text, findings=analysis.findings, position=params.position,
                               encoding=self.encoding, markdown=markdown)  # fmt: skip

    def code_lenses(self, params: types.CodeLensParams) -> list[types.CodeLens]:
        doc = self.docs.get(params.text_document.uri)
        if doc is None:
            return []
        return self.measured.lenses_for(doc.path, Converter(doc.text, self.encoding))

    async def lint_workspace(self) -> dict[str, int]:
        if self.worker is None:
            raise RuntimeError("the server is not initialized")
        open_docs = {normalize_path(d.path): d for d in self.docs.values()}
        return await asyncio.wrap_future(self.worker.submit(lambda: self._lint_workspace(open_docs)))

    def _lint_workspace(self, open_docs: dict[str, Doc]) -> dict[str, int]:
        files = findings = 0
        for root in self.folders.roots:
            for path in discover([str(root)], build_config(root, self.folders.settings)[0]):
                folder = self.folders.folder_for(path)  # the project the file belongs to
                folder.load_project()
                files += 1
                doc = open_docs.get(normalize_path(path))
                if doc is not None:
                    analysis = self.analyze(doc.uri, doc.path, doc.text, doc.version, doc.generation)
                    findings += len(analysis.findings)
                    job = Job(doc.uri, doc.path, doc.text, doc.version, doc.generation, 0.0, "workspace")
                    self.call_soon(self._publish_if_current, job, analysis, self.diagnostics_for(analysis))
                    continue
                source = read_source(path)
                result = folder.linter.lint_source_file(source)
                found, diagnostics = self.file_diagnostics(path, source.text or "", result.findings)
                findings += len(found)
                self.call_soon(self._publish_closed, from_fs_path(path), diagnostics)
        return {"files": files, "findings": findings}

    def open_report(self, path: str | None) -> bool:
        path = path or self.measured.summary_path
        if not path:
            return False
        if not self.capability("window.show_document.support", False):
            self.log(f"measurement summary: {path}")
            return False
        external = path.endswith(".html")
        self.window_show_document(types.ShowDocumentParams(uri=from_fs_path(path), external=external, take_focus=True))
        return True


def _now() -> float:
    import time

    return time.monotonic()


def create_server() -> WarpCtServer:
    from warp_ct.server import measure as measure_mod

    server = WarpCtServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: WarpCtServer, params: types.InitializeParams) -> None:
        ls.on_initialize(params)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: WarpCtServer, params: types.InitializedParams) -> None:
        await ls.on_initialized()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: WarpCtServer, params: None) -> None:
        await ls.on_shutdown()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: WarpCtServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.open_document(params.text_document)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: WarpCtServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.change_document(params)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: WarpCtServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.save_document(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: WarpCtServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close_document(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: WarpCtServer, params: types.DidChangeConfigurationParams) -> None:
        data = unwrap(params.settings)
        if data:
            ls.apply_settings(data)
        elif ls.capability("workspace.configuration", False):
            await ls.pull_settings()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: WarpCtServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.endswith("pyproject.toml") for change in params.changes):
            ls.reconfigure("pyproject.toml changed")

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: WarpCtServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls.reconfigure("workspace folders changed")

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=actions_mod.ADVERTISED_KINDS, resolve_provider=False),
    )
    async def code_action(ls: WarpCtServer, params: types.CodeActionParams):
        return await ls.code_actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: WarpCtServer, params: types.HoverParams):
        return await ls.hover(params)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    def code_lens(ls: WarpCtServer, params: types.CodeLensParams):
        return ls.code_lenses(params)

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: WarpCtServer, params: types.WorkDoneProgressCancelParams) -> None:
        run = ls.measure_task
        if run is not None and run.token == params.token:
            ls.log("measurement cancelled by the user")
            run.cancel.set()

    @server.command(MEASURE_COMMAND)
    async def measure(ls: WarpCtServer, *args: Any):
        return await measure_mod.measure_command(ls, list(args))

    @server.command(MEASURE_LEVERS_COMMAND)
    async def measure_levers(ls: WarpCtServer, *args: Any):
        return await measure_mod.measure_levers_command(ls, list(args))

    @server.command(LINT_WORKSPACE_COMMAND)
    async def lint_workspace(ls: WarpCtServer, *args: Any):
        return await ls.lint_workspace()

    @server.command(OPEN_REPORT_COMMAND)
    def open_report(ls: WarpCtServer, *args: Any):
        path = args[0] if args and isinstance(args[0], str) else None
        return {"shown": ls.open_report(path)}

    return server


def main(tcp: str | None = None) -> int:
    logging.basicConfig(level=os.environ.get("WARP_CT_LOG_LEVEL", "WARNING"), format="warp-ct %(levelname)s %(name)s: %(message)s")
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        try:
            port_number = int(port)
        except ValueError:
            print(f"warp-ct: error: --tcp expects HOST:PORT, got {tcp!r}", file=sys.stderr)
            return 2
        server.start_tcp(host or "127.0.0.1", port_number)
    else:
        server.start_io()
    return 0
