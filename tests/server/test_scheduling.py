"""When the server analyses an edit and what it publishes (no subprocess): a keystroke after a
pause is analysed at once, a burst is debounced, and a result for a text the document no longer
has is never published, even when the newer version has already left the queue."""

from __future__ import annotations

import types as pytypes

import pytest
from lsprotocol import types

from warp_ct.server import server as server_mod
from warp_ct.server.server import Analysis, Doc, WarpCtServer
from warp_ct.server.settings import DEFAULT_DEBOUNCE_MS, Settings
from warp_ct.server.worker import Job

URI = "file:///proj/a.py"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ls(monkeypatch: pytest.MonkeyPatch):
    clock = Clock()
    monkeypatch.setattr(server_mod, "_now", clock)
    server = WarpCtServer()
    texts: dict[str, str] = {}
    monkeypatch.setattr(WarpCtServer, "workspace", property(lambda self: pytypes.SimpleNamespace(
        get_text_document=lambda uri: pytypes.SimpleNamespace(source=texts[uri]))))  # fmt: skip
    scheduled: list[tuple[int | None, int, str]] = []
    monkeypatch.setattr(server, "schedule", lambda doc, *, delay_ms, reason: scheduled.append((doc.version, delay_ms, reason)))
    published: list[types.PublishDiagnosticsParams] = []
    monkeypatch.setattr(server, "text_document_publish_diagnostics", published.append)
    server.docs[URI] = Doc(URI, "/proj/a.py", "v1", 1, 1)
    server._test = pytypes.SimpleNamespace(clock=clock, texts=texts, scheduled=scheduled, published=published)  # type: ignore[attr-defined]
    return server


def change(ls: WarpCtServer, version: int, text: str) -> None:
    ls._test.texts[URI] = text  # type: ignore[attr-defined]
    ls.change_document(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version), content_changes=[]))  # fmt: skip


def test_default_debounce_fits_the_latency_budget():
    assert Settings().debounce_ms == DEFAULT_DEBOUNCE_MS <= 50


def test_a_keystroke_after_a_pause_runs_at_once_a_burst_waits(ls: WarpCtServer):
    t = ls._test  # type: ignore[attr-defined]
    change(ls, 2, "v2")  # the first edit: nothing came before it
    t.clock.now += 0.2
    change(ls, 3, "v3")  # a typist's gap (200 ms): at once
    t.clock.now += 0.03
    change(ls, 4, "v4")  # key repeat (30 ms): debounced
    t.clock.now += 0.03
    change(ls, 5, "v5")
    t.clock.now += 0.5
    change(ls, 6, "v6")  # after a pause again: at once
    assert t.scheduled == [(2, 0, "change"), (3, 0, "change"), (4, DEFAULT_DEBOUNCE_MS, "change"),
                           (5, DEFAULT_DEBOUNCE_MS, "change"), (6, 0, "change")]  # fmt: skip


def test_a_slow_document_is_always_debounced(ls: WarpCtServer):
    t = ls._test  # type: ignore[attr-defined]
    ls.docs[URI].analysis_ms = server_mod.LEADING_EDGE_MAX_MS + 1
    change(ls, 2, "v2")
    t.clock.now += 1.0
    change(ls, 3, "v3")
    assert t.scheduled == [(2, DEFAULT_DEBOUNCE_MS, "change"), (3, DEFAULT_DEBOUNCE_MS, "change")]


def test_the_first_analysis_of_a_document_does_not_make_its_keystrokes_wait(ls: WarpCtServer, monkeypatch):
    """Opening a document analyses it with a cold model (seconds): its keystrokes are timed
    by the analyses of edits only."""
    t = ls._test  # type: ignore[attr-defined]
    ls.worker = pytypes.SimpleNamespace(has_pending=lambda uri: False)  # type: ignore[assignment]
    took = {"open": 3.0, "change": 0.04}

    def analyze(uri, path, text, version, generation, reason):
        t.clock.now += took[reason]
        return Analysis(uri, path, text, version, generation, [])

    for version, reason in ((1, "open"), (2, "change")):
        job = Job(URI, "/proj/a.py", "v1", version, 1, 0.0, reason)
        monkeypatch.setattr(ls, "analyze", lambda *args, reason=reason: analyze(*args, reason))
        monkeypatch.setattr(ls, "diagnostics_for", lambda analysis: [])
        monkeypatch.setattr(ls, "call_soon", lambda *args: False)
        ls._process(job)
        if reason == "open":
            assert ls.docs[URI].analysis_ms == 0.0
    assert ls.docs[URI].analysis_ms == pytest.approx(40.0)
    t.clock.now += 1.0
    change(ls, 2, "v2")
    assert t.scheduled[-1] == (2, 0, "change")  # at once


def test_lint_on_change_off_schedules_nothing(ls: WarpCtServer):
    ls.settings = Settings(lint_on_change=False)
    change(ls, 2, "v2")
    assert ls._test.scheduled == []  # type: ignore[attr-defined]


def _result(ls: WarpCtServer, version: int, text: str) -> tuple[Job, Analysis]:
    job = Job(URI, "/proj/a.py", text, version, 1, 0.0)
    return job, Analysis(URI, "/proj/a.py", text, version, 1, [])


def test_a_result_for_an_older_text_is_never_published(ls: WarpCtServer):
    t = ls._test  # type: ignore[attr-defined]
    change(ls, 2, "v2")
    job2, analysis2 = _result(ls, 2, ls.docs[URI].text)
    change(ls, 3, "v3")  # v3 arrived while v2 was analysed, and the worker already took v3
    ls._publish_if_current(job2, analysis2, [])
    assert t.published == [], "v2's diagnostics would be stale"
    job3, analysis3 = _result(ls, 3, ls.docs[URI].text)
    ls._publish_if_current(job3, analysis3, [])
    assert [p.version for p in t.published] == [3]
    assert ls.results[URI] is analysis3


def test_with_lint_on_change_off_the_saved_text_still_publishes(ls: WarpCtServer):
    t = ls._test  # type: ignore[attr-defined]
    ls.settings = Settings(lint_on_change=False)
    job, analysis = _result(ls, 1, ls.docs[URI].text)
    change(ls, 2, "typed after the save")  # no analysis comes for it: keep what the save found
    ls._publish_if_current(job, analysis, [])
    assert [p.version for p in t.published] == [1]


def test_hover_puts_the_innermost_finding_first():
    from warp_ct.analyzer.model import Finding, Position, Range, Severity
    from warp_ct.server.hover import hover

    text = '@wp.kernel(module_options={"enable_backward": False})\ndef k(): pass\n'
    wide = Finding("WCT010", "/a.py", Range(Position(0, 1), Position(0, 54)), "wide", Severity.WARNING)
    narrow = Finding("WCT005", "/a.py", Range(Position(0, 11), Position(0, 53)), "narrow", Severity.ERROR)
    result = hover(text=text, findings=[wide, narrow], position=types.Position(line=0, character=20), encoding="utf-16")
    value = result.contents.value
    assert value.index("WCT005") < value.index("WCT010")
    assert result.range.start.character == 11
