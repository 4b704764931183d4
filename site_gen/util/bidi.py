"""Unicode bidi controls in untrusted text, closed before the text reaches a plain-text output.

An embedding or override (U+202A-U+202E) or an isolate (U+2066-U+2068) left open in a name
reorders everything after it on the same line: in an HTML page an isolating element
(``<bdi>``, ``dir``) stops it, but a feed, a BibTeX entry, a search result or a ``<title>``
has no element to stop it. ``balance_bidi`` closes what a text leaves open and drops the
terminators that close nothing in it (which would close what the text sits in), following
the Unicode Bidirectional Algorithm's rules X1-X8 for which terminator matches which
initiator. ``read.source`` warns at each dump line that this will change.
"""

from __future__ import annotations

import re
import unicodedata

EMBEDDINGS = frozenset("\u202a\u202b\u202d\u202e")
"""LRE, RLE, LRO, RLO: closed by PDF."""
PDF = "\u202c"
"""POP DIRECTIONAL FORMATTING."""
ISOLATES = frozenset("\u2066\u2067\u2068")
"""LRI, RLI, FSI: closed by PDI."""
PDI = "\u2069"
"""POP DIRECTIONAL ISOLATE."""
CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""The explicit bidi formatting characters that open or close something (not the marks
LRM, RLM and ALM, which open nothing)."""
_EVENTS = re.compile("[\u202a-\u202e\u2066-\u2069\n\r\x1c-\x1e\x85\u2029]")
"""Controls and the paragraph separators (bidi class B), which close whatever is open."""


def balance_bidi(text: str) -> str:
    """``text`` with every embedding, override and isolate it opens closed, at the end of its
    paragraph, and every terminator that matches nothing before it removed; a balanced text
    is returned as it is."""
    if text.isprintable() or CONTROLS.search(text) is None:  # printable: no format character
        return text
    return _balance(text)[0]


def is_balanced(text: str) -> bool:
    """Does ``text`` close every bidi control it opens, and close nothing it did not open?"""
    return CONTROLS.search(text) is None or _balance(text)[1] is None


def first_unbalanced(text: str) -> tuple[str, bool] | None:
    """The first control ``balance_bidi`` closes or drops, with True for one left open and
    False for a terminator that closes nothing; None for a balanced text."""
    return None if CONTROLS.search(text) is None else _balance(text)[1]


def _balance(text: str) -> tuple[str, tuple[str, bool] | None]:
    """``balance_bidi``, and the first control it closed or dropped."""
    pieces: list[str] = []
    open_: list[str] = []  # the initiators still open, innermost last
    first: tuple[str, bool] | None = None
    start = 0

    def close_all() -> None:
        nonlocal first
        if open_ and first is None:
            first = open_[-1], True
        pieces.extend(PDF if c in EMBEDDINGS else PDI for c in reversed(open_))
        open_.clear()

    for match in _EVENTS.finditer(text):
        char = match.group()
        pieces.append(text[start:match.start()])
        start = match.end()
        if char in EMBEDDINGS or char in ISOLATES:
            open_.append(char)
        elif char == PDF and open_ and open_[-1] in EMBEDDINGS:
            open_.pop()
        elif char == PDI and any(c in ISOLATES for c in open_):
            while open_.pop() not in ISOLATES:  # X6a: it ends the embeddings within it too
                pass
        elif char in (PDF, PDI):  # X6a, X7: it matches nothing here, so it would close
            if first is None:     # something around the text: dropped
                first = char, False
            continue
        else:  # a paragraph separator ends everything open (X8)
            close_all()
        pieces.append(char)
    pieces.append(text[start:])
    close_all()
    return "".join(pieces), first


def control_name(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: how a message names a control."""
    return f"U+{ord(char):04X} {unicodedata.name(char, '')}".rstrip()
