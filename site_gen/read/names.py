"""Person names and author lists, as the dump grammars place them.

A dump's structure says where a name stands (the owner's line, an author list before an
abstract); what the name holds is the person's business: any script, digits (``Wei Wang
0001``), brackets (``Li Na (李娜)``), titles and suffixes, ``<``, ``&``, ``"``. So a name is
judged only by its length, and an author list only by not reading as prose: a segment longer
than a name, or one holding a sentence break. Suffixes and degrees (``Jr.``, ``PhD``) after a
comma belong to the name before them.
"""

from __future__ import annotations

import re
import unicodedata

from site_gen.util.text import fold

MAX_NAME_WORDS = 16
MAX_NAME = 200
"""Characters in a name: a sane bound that no real name reaches, but a paragraph does."""
MAX_AUTHOR_LINE = 200_000
"""Characters in an author list: a thousand names of the longest kind. Lists of hundreds of
authors are ordinary in some fields; a line longer than this is no list of people."""
_ET_AL = re.compile(r"\s*,?\s*(?:et\.? al\.?|and others)\s*$", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*(?:,|;|\band\b|&)\s*")
_BRACKETS = {"(": ")", "[": "]", "{": "}", "（": "）"}
SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "phd", "md", "dphil", "msc", "mba", "mph",
                      "esq", "jd", "dds", "frs", "facs", "ba", "bsc", "ma"})
"""Segments of an author list that belong to the name before them (folded: no dots, case)."""
# A sentence inside a segment: a lower-case word of two letters or more ended by a stop and
# followed by more text ("... a letter. Not ..."); initials and "Dr. X" are not sentences.
_SENTENCE_BREAK = re.compile(r"[^\W\d_]{2,}[.!?]\s+\S")
_SENTENCE_END = re.compile(r"(?:[^\W\d_]{4,}|\d|\))[.!?]$|[!?]$")


def is_name(text: str) -> bool:
    """True for text that can stand for one person: up to 16 words and 200 characters."""
    return 0 < len(text) <= MAX_NAME and len(text.split()) <= MAX_NAME_WORDS


def reads_as_prose(text: str) -> bool:
    """True when a segment holds a sentence break or ends like a sentence (not an initial)."""
    if _SENTENCE_END.search(text) and not _is_suffix(text.rsplit(" ", 1)[-1]):
        return True
    return any(not _is_title(m.group(0)) for m in _SENTENCE_BREAK.finditer(text))


_TITLES = frozenset({"dr", "prof", "mr", "mrs", "ms", "mx", "st", "rev", "sir", "hon", "jr", "sr"})


def _is_title(match: str) -> bool:
    """"Dr. X", "Prof. X": an abbreviation before a name, not a sentence end."""
    return match.split()[0].rstrip(".!?").casefold() in _TITLES


def _is_suffix(segment: str) -> bool:
    return segment.replace(".", "").strip().casefold() in SUFFIXES


def split_author_list(line: str) -> tuple[tuple[str, ...], bool] | None:
    """``"A, B, C et al."`` -> ((A, B, C), True); None when the line reads as prose."""
    if len(line) > MAX_AUTHOR_LINE:
        return None
    body = _ET_AL.sub("", line) if _may_end_in_et_al(line) else line
    et_al = len(body) < len(line)
    if not all(map(is_name, _segments(body, brackets=False))):
        return None  # what brackets join holds these segments, so is longer still: prose
    names: list[str] = []
    for segment in _segments(body):
        if _is_suffix(segment) and names:
            names[-1] += ", " + segment
        else:
            names.append(segment)
    if len(names) > 1 and not et_al:
        names[-1] = _without_final_stop(names[-1])
    if not names or not all(is_name(n) and not reads_as_prose(n) for n in names):
        return None
    return tuple(names), et_al


def _without_final_stop(name: str) -> str:
    """The last name of a list of several without the full stop that ends the list (``Ada
    Lovelace, Jiamang Wang.``); an initial's or a suffix's dot stays (``Ann B.``, ``Jr.``)."""
    if name.endswith(".") and not name.endswith("..") and reads_as_prose(name):
        return name[:-1].rstrip()
    return name


def person_key(name: str) -> str:
    """Who a name stands for, as names are matched: folded (``text.fold``), so accents, case
    and punctuation never tell people apart. A name with no letter or digit (``😀``) folds
    to nothing: it keeps its own characters then, marked so that no folded name equals it."""
    folded = fold(name)
    if folded:
        return folded
    return "~" + " ".join(unicodedata.normalize("NFC", name).casefold().split())


def _may_end_in_et_al(line: str) -> bool:
    """Whether ``_ET_AL`` may match: the line ends, but for white space, in ``l``, ``.`` or
    ``s`` as the pattern's case-insensitive matching takes them. Most lines tried (the
    abstracts of co-author dumps too) do not, and the pattern takes 70 µs to find so."""
    return line.rstrip()[-1:].casefold() in ("l", ".", "s")


def _segments(body: str, brackets: bool = True) -> list[str]:
    """``body`` split at separators outside brackets (``Li Na (李娜, Nina)`` stays whole); a
    bracket never closed protects nothing (``Ann (, Bo`` is two names)."""
    if not brackets or not any(b in body for b in _BRACKETS):  # most lines: split at C speed
        return [s for s in map(str.strip, _SEPARATOR.split(body)) if s]
    segments: list[str] = []
    closing: list[str] = []
    start = pos = 0
    while pos < len(body):
        char = body[pos]
        if char in _BRACKETS:
            closing.append(_BRACKETS[char])
        elif closing and char == closing[-1]:
            closing.pop()
        elif not closing and (match := _SEPARATOR.match(body, pos)):
            segments.append(body[start:pos])
            start = pos = match.end()
            continue
        pos += 1
    if closing:
        return _segments(body, brackets=False)
    segments.append(body[start:])
    return [s.strip() for s in segments if s.strip()]
