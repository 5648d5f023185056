"""The text a batch lint extracts facts from: module-level kernel bodies left out.

The facts read a module-level ``@wp.kernel`` or ``@wp.func`` by its decorator and its
signature only (a kernel made inside a function is another matter: what it captures is
read from its body). Those bodies are a seventh of the lines of newton, mujoco-warp and
warp-lang, and denser in nodes than host code, so the parser building their trees, and
freeing them, was about a seventh of a cold lint's parse. ``skeleton`` replaces each such
body by ``pass`` on its first line and empty lines after it: every other line, column and
byte offset stays where it was, and ``restore_ends`` puts each definition's end back where
the body ended.

Found by lines, without tokenizing: a definition whose decorator line, ``def`` and body
are laid out in the usual way. Anything unusual (a one-line body, a body whose last line
holds a string, an unbalanced signature) keeps its body. A region cut in the wrong place
(a column-0 line inside a string or a bracket of the body) leaves text that does not
parse, and the caller parses the whole text instead (``facts.parse_for_facts``).
"""

from __future__ import annotations

import ast
import re

# A column-0 decorator whose last name is one of Warp's function decorators. Whether it is
# Warp's is checked on the tree (``FileFacts`` extraction falls back to the whole text).
_DECORATOR_RE = re.compile(r"@[ \t]*(?:[A-Za-z_][\w.]*\.)?(?:kernel|func|func_native|func_grad|func_replay)\b")
_DEF_PREFIXES = ("def ", "async def ")
_NEXT_TOP_LEVEL_RE = re.compile(r"\n(?=[^ \t\n#])")  # the end of a line before code at column 0
_HEADER_END_RE = re.compile(r":[ \t]*(?:#[^\n]*)?\n")  # a line whose code ends with ":"
_TOP_LEVEL_CODE_RE = re.compile(r"\n[^ \t\n#)\]}]")  # a line that starts other code at column 0
_FIRST_CODE_RE = re.compile(r"^[ \t]+(?=[^ \t\n#])", re.MULTILINE)  # an indented line's indentation


def skeleton(text: str) -> tuple[str, dict[int, tuple[int, int]]] | None:
    """``text`` with the bodies of its module-level Warp functions blanked, and for each
    blanked definition (by the 1-based line of its ``def``) the end (line, UTF-8 column)
    of its body; None when nothing was blanked."""
    if "\r" in text:
        return None  # ``\r`` line ends: Python's lines and ours would differ
    pieces: list[str] = []
    ends: dict[int, tuple[int, int]] = {}
    copied = 0  # text[copied:] is not in ``pieces`` yet
    line, counted = 1, 0  # the line number of offset ``counted``
    at = 0 if text.startswith("@") else text.find("\n@") + 1 or -1  # a decorator line's start
    while at >= 0:
        if at >= copied and _DECORATOR_RE.match(text, at):
            found = _definition(text, at)
            if found is not None:
                def_at, body_at, indent, last_at, region_end = found
                line += text.count("\n", counted, def_at)
                def_line = line
                end_line = def_line + text.count("\n", def_at, last_at)
                line, counted = def_line, def_at
                code = text[last_at : _line_end(text, last_at)].split("#", 1)[0].rstrip()
                ends[def_line] = (end_line, len(code.encode("utf-8")))
                pieces += (text[copied:body_at], indent, "pass", "\n" * text.count("\n", body_at, region_end))
                copied = region_end
        at = text.find("\n@", max(at, copied)) + 1 or -1
    if not ends:
        return None
    pieces.append(text[copied:])
    return "".join(pieces), ends


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _definition(text: str, decorator: int) -> tuple[int, int, str, int, int] | None:
    """Offsets of the definition the decorator at ``decorator`` starts: its ``def`` line,
    its first body line, that line's indentation, the start of its last line with code, and
    the end of the body (the newline before the next column-0 code, or the end of the
    text); None when its layout is not the usual one."""
    size = len(text)
    # Further decorators (and their continuation lines) up to the ``def``.
    at = _line_end(text, decorator) + 1
    for _ in range(40):
        if at >= size:
            return None
        if text.startswith(_DEF_PREFIXES, at):
            break
        if text[at] not in "@ \t)]}\n#":
            return None
        at = _line_end(text, at) + 1
    else:
        return None
    def_at = at
    # The signature ends at the first line whose code ends with ":" with brackets balanced
    # (no strings in it: their brackets and '#' are not code).
    for colon in _HEADER_END_RE.finditer(text, def_at):
        header = text[def_at : colon.start()]
        if "'" in header or '"' in header or colon.start() - def_at > 4000:
            return None
        opened = header.count("(") + header.count("[") + header.count("{")
        closed = header.count(")") + header.count("]") + header.count("}")
        if opened == closed:
            break
        if opened < closed:
            return None
    else:
        return None
    if _TOP_LEVEL_CODE_RE.search(text, _line_end(text, def_at), colon.start()):
        return None  # the "signature" runs past other column-0 code
    header_end = colon.end()
    top = _NEXT_TOP_LEVEL_RE.search(text, header_end)
    region_end = size if top is None else top.start()
    first = _FIRST_CODE_RE.search(text, header_end, region_end)
    if first is None:
        return None
    body_at = first.start()
    # The last line with code: back from the end over blank and comment-only lines.
    last_at = text.rfind("\n", body_at, region_end) + 1 or body_at
    while last_at > body_at and not text[last_at:_line_end(text, last_at)].strip(" \t").split("#", 1)[0]:
        last_at = text.rfind("\n", body_at, last_at - 1) + 1 or body_at
    last = text[last_at : _line_end(text, last_at)]
    if "'" in last or '"' in last or last.rstrip().endswith("\\"):
        return None  # its end is inside or after a string: not found by splitting at '#'
    if last_at == body_at and last.strip() in ("pass", "..."):
        return None  # nothing to leave out
    return def_at, body_at, first.group(), last_at, region_end


def restore_ends(tree: ast.Module, ends: dict[int, tuple[int, int]]) -> list[ast.AST]:
    """Give each blanked definition of ``tree`` the end its body had, and return the
    definitions found: fewer than ``ends`` means the text was cut wrong (the caller then
    parses it whole)."""
    found: list[ast.AST] = []
    for node in tree.body:
        if node.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef):
            end = ends.get(node.lineno)  # type: ignore[attr-defined]
            if end is not None:
                node.end_lineno, node.end_col_offset = end  # type: ignore[attr-defined]
                found.append(node)
    return found
