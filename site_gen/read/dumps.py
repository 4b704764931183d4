"""Stage 1, reading: dump files -> Dumps (raw Records) + Diagnostics.

Each format lives in its own module with ``sniff(lines)`` and ``read(path, lines)``; the format
of a file is chosen by its content, never its name. Add a format by adding a module to
``FORMATS``.
"""

from __future__ import annotations

from types import ModuleType

from site_gen.model import Dump
from site_gen.read import coauthor, listing
from site_gen.read.source import decode, split_lines
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
    for reader in FORMATS:
        if reader.sniff(lines):
            dump, found = reader.read(path, lines)
            return dump, diagnostics + found
    message = ("not a known dump format: expected a profile listing ('arXiv subjects', "
               "'Publications and source records attributed to ...') or a co-author dump "
               "(a name, then author lists and abstracts)")
    return None, diagnostics + [error(path, lines[0].number, message)]