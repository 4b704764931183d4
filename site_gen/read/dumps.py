"""Stage 1, reading: dump files -> Dumps (raw Records) + Diagnostics.

Each format lives in its own module with ``sniff(lines)`` and ``read(path, lines)``; the format
of a file is chosen by its content, never its name. Add a format by adding a module to
``FORMATS``.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from types import ModuleType

from site_gen.model import Dump
from site_gen.read import coauthor, listing
from site_gen.read.names import is_name, split_author_list
from site_gen.read.source import Line, decode, split_lines
from site_gen.util.diagnostics import Diagnostic, error

FORMATS: tuple[ModuleType, ...] = (listing, coauthor)


def read_dump(path: str, data: bytes) -> tuple[Dump | None, list[Diagnostic]]:
    """Decode and parse one dump; ``path`` is how diagnostics name the file."""
    text, diagnostics = decode(path, data)
    if text is None:
        return None, diagnostics
    lines, line_diagnostics = split_lines(path, text)
    diagnostics += line_diagnostics
    if not lines:
        return None, diagnostics + [error(path, 1, "empty dump: no records")]
    other = other_format(text, lines)
    if other is not None:
        return None, diagnostics + [error(path, lines[0].number, f"not a dump: this is {other}, "
                                          "not a profile export; move it out of content/dumps")]
    for reader in FORMATS:
        if reader.sniff(lines):
            dump, found = reader.read(path, lines)
            return dump, diagnostics + found
    message = ("not a known dump format: expected a profile listing ('arXiv subjects', "
               "'Publications and source records attributed to ...') or a co-author dump "
               "(a name, an author list, then an abstract)")
    return None, diagnostics + [error(path, lines[0].number, message + _shape(lines))]


_MARKUP = re.compile(r"<(?:!doctype\s+html|html|\?xml|svg|rss|feed)[\s>]", re.IGNORECASE)
_BIBTEX = re.compile(r"@[a-z]+\s*[{(]\s*[^\s,]*\s*,?$", re.IGNORECASE)
_RIS = re.compile(r"TY  - \w+")
_YAML_LINE = re.compile(r"(?:[A-Za-z_][\w-]*\s*:(?:\s|$)|-(?:\s|$)|#|---$|\.\.\.$)")


def other_format(text: str, lines: Sequence[Line]) -> str | None:
    """The well-known format a file is written in, when its first line or whole text says so
    beyond doubt (no export starts so): JSON, HTML or XML, BibTeX, RIS, YAML; else None."""
    first = lines[0].text
    if first[:1] in "{[":
        with contextlib.suppress(ValueError, RecursionError):
            if isinstance(json.loads(text), dict | list):
                return "JSON"
    if _MARKUP.match(first + " "):
        return "HTML or XML markup"
    if _BIBTEX.fullmatch(first):
        return "a BibTeX file"
    if _RIS.match(first):
        return "an RIS file"
    if len(lines) >= 3 and all(_YAML_LINE.match(line.text.lstrip()) for line in lines):
        return "a YAML file (every line a 'key: value', a '- ' item or a comment)"
    return None


def _shape(lines: Sequence[Line]) -> str:
    """A hint at what the file is, for the message refusing it."""
    if len(lines) < 3:
        return f"; the file has {len(lines)} non-blank line{'s' * (len(lines) != 1)}"
    fields = {len(re.split(r"[,\t;]", line.text)) for line in lines[:20]}
    if len(fields) == 1 and fields.pop() > 1:
        return "; its lines split into the same number of fields, like a table (CSV)"
    if is_name(lines[0].text) and split_author_list(lines[1].text) is not None:
        return (f"; its third line {lines[2].text[:40]!r} is no abstract: a short line that "
                "ends no sentence, as a list's or a note's lines do")
    return ""
