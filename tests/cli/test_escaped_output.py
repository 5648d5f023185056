"""Text the linted files control (string literals quoted in messages, paths, source lines)
is printed escaped in the text formats: a file cannot forge a finding line, hide one, clear
the screen or reorder what is shown with a newline, a carriage return, an ANSI escape or a
bidirectional override. Each finding is one line in ``concise``; ``full`` shows the message
and every source line on one line each, the underline under the shown text."""

from __future__ import annotations

import argparse

import pytest

from warp_ct.lint_command import _print_notes
from warp_ct.output import Note
from warp_ct.output.escape import printable, printable_but_line_breaks

# What a hostile string literal holds: a line break and a forged finding after it, a carriage
# return, a screen clear and a right-to-left override.
HOSTILE = "a\nb.py:1:1: WCT005 forged\r\x1b[2J\u202eevil"
SHOWN = "a\\nb.py:1:1: WCT005 forged\\r\\x1b[2J\\u202eevil"
# Characters that act on a terminal, or break a line for str.splitlines or a log viewer.
RAW = ("\n", "\r", "\x1b", "\u202e", "\x0c", "\x85", "\u2028", "\x00")

# WCT009 names the Warp module, a string literal written here with Python's escapes (the
# message gets the characters themselves), launched at two block_dims. Line 15 holds the raw
# characters in the file's own text, before the launch the finding points at.
SOURCE = f"""\
import warp as wp

@wp.kernel(module={HOSTILE!r})
def k(a: wp.array(dtype=float)):
    pass

@wp.kernel(module={HOSTILE!r})
def k2(a: wp.array(dtype=float)):
    pass

def go(a):
    wp.launch(k, dim=1, inputs=[a], block_dim=64)
    s = "\x1b[2J\u202e\x0c\x85\u2028"
    raw = "\x1b]0;title\x07\u2066"
    t = "\x1b[1A"; wp.launch(k2, dim=1, inputs=[a], block_dim=128)
"""


@pytest.fixture
def hostile(project):
    project.write("hostile.py", SOURCE)
    return project


def _no_raw(text: str) -> None:
    # The only line breaks are the format's own, one at the end of each line.
    body = text.replace("\n", "")
    assert not [c for c in RAW if c in body], text
    assert [line + "\n" for line in text.split("\n")[:-1]] == text.splitlines(keepends=True)


def test_concise_prints_one_line_per_finding_with_the_literal_escaped(cli, hostile):
    run = cli("lint", "--no-cache", "--select", "WCT009", "hostile.py")
    assert run.rc == 1
    _no_raw(run.out)
    lines = run.out.splitlines()
    assert lines[-1] == "Found 1 finding."
    [finding] = lines[:-1]
    assert finding.startswith("hostile.py:15:17: WCT009 module `" + SHOWN + "` is launched at block_dim 128")
    assert not [line for line in lines if "forged" in line and not line.startswith("hostile.py:15:17: WCT009")]


def test_full_escapes_the_message_and_the_source_lines_and_underlines_what_is_shown(cli, hostile):
    run = cli("lint", "--no-cache", "--select", "WCT009", "--output-format", "full", "hostile.py")
    assert run.rc == 1
    _no_raw(run.out)
    lines = run.out.splitlines()
    assert lines[0].startswith("WCT009 module `" + SHOWN + "` is launched")
    assert lines[1] == " --> hostile.py:15:17"
    assert lines[3] == '14 |     raw = "\\x1b]0;title\\x07\\u2066"'
    shown = '15 |     t = "\\x1b[1A"; wp.launch(k2, dim=1, inputs=[a], block_dim=128)'
    assert lines[4] == shown
    underline = lines[5]
    assert underline.index("^") == shown.index("wp.launch")  # counted on the escaped text
    assert underline.endswith("^ WCT009") and underline.count("^") == len("wp.launch(k2, dim=1, inputs=[a], block_dim=128)")
    assert "forged" not in "".join(line for line in lines if not line.startswith(("WCT009", "14 |", "15 |")))


def test_full_shows_a_context_line_with_line_breaking_characters_on_one_line(cli, project):
    source = SOURCE.replace('    raw = "\x1b]0;title\x07\u2066"\n', "").replace('    t = "\x1b[1A"; ', "    ")
    assert source.count("\n") == SOURCE.count("\n") - 1
    project.write("hostile.py", source)
    run = cli("lint", "--no-cache", "--select", "WCT009", "--output-format", "full", "hostile.py")
    _no_raw(run.out)
    lines = run.out.splitlines()
    assert lines[1] == " --> hostile.py:14:5"
    assert lines[3] == '13 |     s = "\\x1b[2J\\u202e\\x0c\\x85\\u2028"'
    assert lines[4] == "14 |     wp.launch(k2, dim=1, inputs=[a], block_dim=128)"


def test_github_escapes_controls_as_well_as_its_own_line_breaks(cli, hostile):
    run = cli("lint", "--no-cache", "--select", "WCT009", "--output-format", "github", "hostile.py")
    _no_raw(run.out)
    [annotation] = run.out.splitlines()
    assert "::module `a%0Ab.py:1:1: WCT005 forged%0D\\x1b[2J\\u202eevil` is launched" in annotation


def test_a_path_with_a_line_break_and_a_terminal_control_is_escaped(cli, project):
    from .conftest import WCT005_SOURCE

    project.write("x\ny.py:1:1: WCT005 \x1b[2Jforged.py", WCT005_SOURCE)
    for fmt in ("concise", "full"):
        run = cli("lint", "--no-cache", "--output-format", fmt, ".")
        assert run.rc == 1
        _no_raw(run.out)
        assert "x\\ny.py:1:1: WCT005 \\x1b[2Jforged.py:3:12" in run.out


def test_an_error_naming_a_path_escapes_it(cli, project):
    run = cli("lint", "--no-cache", "gone\n\x1b[2Jforged.py")
    assert run.rc == 2
    assert run.err == "warp-ct: error: gone\\n\\x1b[2Jforged.py: no such file or directory\n"


def test_notes_are_escaped(capsys):
    _print_notes([Note("x\n\x1b[2Jy.py", "could not \u202eread\r")], argparse.Namespace(quiet=False))
    assert capsys.readouterr().err == "x\\n\\x1b[2Jy.py: note: could not \\u202eread\\r\n"


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"), ("\x00", "\\x00"), ("\x1b", "\\x1b"), ("\x7f", "\\x7f"),
        ("\x85", "\\x85"), ("\x9b", "\\x9b"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"), ("\u061c", "\\u061c"),
        ("\u200e", "\\u200e"), ("\u200f", "\\u200f"),
        *[(chr(c), f"\\u{c:04x}") for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]],
    ],
)
def test_each_unsafe_character_is_written_as_its_escape(raw: str, shown: str):
    assert printable(f"a{raw}b") == f"a{shown}b"


def test_printable_text_is_left_as_it_is():
    text = "module `pkg.mod` — café 日本 🚀 \\n (a backslash and an n)"
    assert printable(text) is text
    assert printable_but_line_breaks("a\r\nb\x1b") == "a\r\nb\\x1b"
