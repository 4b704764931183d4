"""Decoding a dump file into numbered, normalised lines, whatever its encoding quirks.

Readers work on the non-blank lines this module yields, so CRLF/CR line endings, a BOM,
trailing spaces, extra blank lines and stray control characters never reach a grammar.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass

from site_gen.util.bidi import CONTROLS as BIDI_CONTROLS
from site_gen.util.bidi import EMBEDDINGS, control_name, first_unbalanced
from site_gen.util.diagnostics import Diagnostic, error, warning

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# C0/C1 controls other than tab, plus DEL; they have no place in a dump and break HTML/XML.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""``_CONTROL`` but carriage return, which a whole text holds as a line break."""


@dataclass(frozen=True, slots=True)
class Line:
    """A non-blank line of a dump: its 1-based number and its normalised text."""

    number: int
    text: str


def decode(path: str, data: bytes) -> tuple[str | None, list[Diagnostic]]:
    """Bytes -> text. UTF-8 (BOM optional) or BOM-marked UTF-16; anything else is an error."""
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            data = data[len(bom):]
            break
    else:
        codec = "utf-8"
    try:
        return data.decode(codec), []
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        bad = data[exc.start : exc.start + 1].hex()
        message = f"not valid {codec.upper()} (byte 0x{bad}); save the file as UTF-8"
        return None, [error(path, line, message)]


def normalise_line(text: str) -> str:
    """NFC, tabs as spaces, no control characters, no surrounding white space."""
    text = _CONTROL.sub("", text.replace("\t", " "))
    return unicodedata.normalize("NFC", text).strip()


def has_control_characters(text: str) -> bool:
    """Does ``text`` hold a character ``normalise_line`` removes (for text kept as it is, such
    as a URL, which is refused rather than changed)?"""
    return _CONTROL.search(text) is not None


def split_lines(path: str, text: str) -> tuple[list[Line], list[Diagnostic]]:
    """The non-blank lines of ``text`` with their numbers; warns once about control characters,
    and at each line whose bidi controls plain-text outputs will change (``bidi_warnings``)."""
    lines, diagnostics = _split_lines(path, text)
    if BIDI_CONTROLS.search(text):
        diagnostics += bidi_warnings(path, lines)
    return lines, diagnostics


_FIELD_BREAKS = re.compile(r"[,;&]|\band\b")
"""Where a reader may cut a line into fields (an author list's names): a name may leave open
a control that the line as a whole closes."""


def bidi_warnings(path: str, lines: list[Line]) -> list[Diagnostic]:
    """A warning at each line holding a bidi control left open, or closing nothing, in the line
    or in a part of it that may be a name. Pages isolate every name and title, so nothing
    changes there; feeds, citations, search and page titles close it (``util.bidi``), and an
    export must not change without a word."""
    found: list[Diagnostic] = []
    for line in lines:
        if not BIDI_CONTROLS.search(line.text):
            continue
        problem = first_unbalanced(line.text) or next(
            filter(None, map(first_unbalanced, _FIELD_BREAKS.split(line.text))), None)
        if problem is None:
            continue
        char, left_open = problem
        closer = "U+202C" if char in EMBEDDINGS else "U+2069"
        message = (f"bidi control {control_name(char)} left open: isolated on the pages; feeds, "
                   f"citations, search and page titles close it ({closer} added)" if left_open
                   else f"bidi control {control_name(char)} closes nothing: isolated on the "
                   f"pages; left out of feeds, citations, search and page titles")
        found.append(warning(path, line.number, message, "bidi-controls"))
    return found


def _split_lines(path: str, text: str) -> tuple[list[Line], list[Diagnostic]]:
    """``split_lines`` but the bidi warnings."""
    if _CONTROL_IN_TEXT.search(text) or not unicodedata.is_normalized("NFC", text):
        return _split_lines_normalising(path, text)
    # Every line is already what normalise_line makes of it but for its white space: NFC
    # text split where no character composes or reorders across the break is NFC in each
    # piece. This path is a sixth of the time of the one below (the parse of a dump).
    raw = _LINE_BREAK.split(text) if "\r" in text else text.split("\n")
    if "\t" in text:
        raw = [line.replace("\t", " ") for line in raw]
    return [Line(number, clean) for number, line in enumerate(raw, start=1)
            if (clean := line.strip())], []


def _split_lines_normalising(path: str, text: str) -> tuple[list[Line], list[Diagnostic]]:
    """``split_lines`` of a text that holds control characters or is not NFC: line by line."""
    lines: list[Line] = []
    diagnostics: list[Diagnostic] = []
    for number, raw in enumerate(_LINE_BREAK.split(text), start=1):
        if _CONTROL.search(raw) and not diagnostics:
            diagnostics.append(warning(path, number, "control characters removed",
                                               "control-characters"))
        clean = normalise_line(raw)
        if clean:
            lines.append(Line(number, clean))
    return lines, diagnostics
