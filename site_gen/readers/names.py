"""The shape of person names and author lists, shared by the dump grammars."""

from __future__ import annotations

import re

# A name: 1-6 words of letters (any script), marks, apostrophes, hyphens and initials' dots.
_WORD = r"[^\W\d_][\w'’.\-]*"
_NAME = rf"{_WORD}(?: {_WORD}){{0,5}}"
_ET_AL = re.compile(r"\s*,?\s*(?:et\.? al\.?|and others)\s*$", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*(?:,|;|\band\b|&)\s*")
_NAME_RE = re.compile(_NAME)
MAX_AUTHOR_LINE = 4000


def is_name(text: str) -> bool:
    """True for text shaped like one person's name (not a sentence)."""
    if not _NAME_RE.fullmatch(text) or len(text) > 100:
        return False
    # A trailing dot is an initial ("J."), never a sentence end ("We propose X.").
    return not text.endswith(".") or bool(re.search(r"(?:^| )\w\.$", text))


def split_author_list(line: str) -> tuple[tuple[str, ...], bool] | None:
    """``"A, B, C et al."`` -> ((A, B, C), True); None when the line is not an author list."""
    if len(line) > MAX_AUTHOR_LINE:
        return None
    body, et_al = _ET_AL.sub("", line), bool(_ET_AL.search(line))
    names = tuple(n for n in _SEPARATOR.split(body) if n)
    if not names or not all(is_name(n) for n in names):
        return None
    return names, et_al
