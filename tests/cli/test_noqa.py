"""Suppression comments: ``# noqa: WCT005``, several codes, blanket ``# noqa``, and the
file-level ``# warp-ct: noqa[: codes]``."""

from __future__ import annotations

import pytest

from warp_ct.analyzer.noqa import add_code_to_line, parse_noqa

from .conftest import WCT005_SOURCE

DECORATOR = '@wp.kernel(module_options={"enable_backward": False})'


@pytest.mark.parametrize(
    ("comment", "suppressed"),
    [
        ("  # noqa: WCT005", True),
        ("  # noqa:WCT005", True),
        ("  # NOQA: wct005", True),
        ("  # noqa: E501, WCT005", True),
        ("  # noqa: E501 WCT005 -- explained", True),
        ("  # noqa", True),
        ("  # noqa: WCT003", False),
        ("  # noqa: E501", False),
        ("", False),
    ],
)
def test_line_noqa(cli, project, comment, suppressed):
    project.write("mod.py", WCT005_SOURCE.replace(DECORATOR, DECORATOR + comment))
    assert cli("lint", "mod.py").rc == (0 if suppressed else 1)


@pytest.mark.parametrize(
    ("header", "suppressed"),
    [
        ("# warp-ct: noqa\n", True),
        ("# warp-ct: noqa: WCT005\n", True),
        ("# warp-ct: noqa: WCT001, WCT005\n", True),
        ("# warp-ct: noqa: WCT003\n", False),
        ("# some other comment\n", False),
    ],
)
def test_file_level_noqa(cli, project, header, suppressed):
    project.write("mod.py", header + WCT005_SOURCE)
    assert cli("lint", "mod.py").rc == (0 if suppressed else 1)


def test_noqa_line_numbers_are_pythons_lines():
    # A form feed is not a line break for Python; the noqa must stay on the finding's line.
    noqa = parse_noqa("x = 1\x0c\ny = 2  # noqa: WCT005\n")
    assert noqa.line_codes == {1: {"WCT005"}}
    noqa = parse_noqa("a = 1\r\nb = 2  # noqa\r\n")
    assert noqa.line_codes == {1: None}
    # Old Mac line ends, several mentions on one line, "noqa" outside a comment, a
    # character whose lower case is longer ("İ"), a file-level comment between.
    noqa = parse_noqa("a = noqa\rb = 2  # NOQA: wct001 # noqa\r\n# warp-ct: noqa: WCT002\nİ = 1  # noqa: WCT003\n")
    assert noqa.line_codes == {1: {"WCT001"}, 3: {"WCT003"}}
    assert noqa.file_codes == {"WCT002"}


def test_add_code_to_line_merges():
    assert add_code_to_line("x = 1", "WCT005") == "x = 1  # noqa: WCT005"
    assert add_code_to_line("x = 1  # noqa: E501", "WCT005") == "x = 1  # noqa: E501, WCT005"
    assert add_code_to_line("x = 1  # noqa", "WCT005") == "x = 1  # noqa"
