"""Reader for the *co-author* dump format (seed 003_*): author lists with abstracts.

Grammar, on non-blank lines (blank lines, CRLF, BOM and trailing spaces are ignored)::

    dump    := owner entry+
    owner   := NAME                                   the profiled author, whatever it spells
    entry   := authors abstract+
    authors := NAME (("," | ";" | "and" | "&") NAME)* ["et al."]   the line before an abstract
    abstract:= any line

The format has no titles, years or subjects; the catalog takes them from matching records of
other dumps, or curation supplies them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from site_gen.model import Dump, Record, SourceRef
from site_gen.read.listing import is_source_line, parse_subjects
from site_gen.read.names import MAX_NAME_WORDS, is_name, split_author_list
from site_gen.read.source import Line
from site_gen.util.diagnostics import Diagnostic, error, has_errors, warning

FORMAT = "coauthor"


def sniff(lines: Sequence[Line]) -> bool:
    """True for: an owner's line, then an author list, then the first abstract's line: one
    that is not a list of names, or ends as a sentence does (a short abstract may hold a
    comma). A shopping list's, a data file's or a markup file's short lines split like lists
    of names and end in none of ``.!?``, so they never pass for an abstract."""
    return (len(lines) >= 3 and is_name(lines[0].text)
            and _first_list(lines[1].text) is not None
            and (split_author_list(lines[2].text) is None or _ends_sentence(lines[2].text)))


def _first_list(text: str) -> tuple[tuple[str, ...], bool] | None:
    """The first author list: the line after the owner's can be nothing else, so it may end
    in a full stop even when it names one person (``Jiamang Wang.``)."""
    return split_author_list(text) or (split_author_list(text[:-1]) if text.endswith(".")
                                       else None)


_INITIAL = re.compile(r"(?:^|[\s,;.])[^\W\d_]\.$")


def _ends_sentence(text: str) -> bool:
    """Whether a line ends in a sentence's stop, not an initial's (``Ann B.``)."""
    return text.endswith((".", "!", "?")) and not _INITIAL.search(text)


@dataclass
class _Entry:
    authors_line: Line
    authors: tuple[str, ...]
    et_al: bool
    abstract: list[str] = field(default_factory=list)


def read(path: str, lines: Sequence[Line]) -> tuple[Dump | None, list[Diagnostic]]:
    """Parse a co-author dump into a Dump; problems become diagnostics with line numbers."""
    if not lines or not is_name(lines[0].text):
        first = lines[0].number if lines else 1
        return None, [error(path, first, "expected the profile owner's name on the first line "
                                         f"(up to {MAX_NAME_WORDS} words)")]
    owner = lines[0]
    lists = [split_author_list(line.text) for line in lines]
    entries: list[_Entry] = []
    diagnostics: list[Diagnostic] = []
    for i, line in enumerate(lines[1:], start=1):
        authors = lists[i]
        if foreign := _listing_line(line):
            diagnostics.append(error(path, line.number, foreign))
        elif not entries:
            authors = _first_list(line.text)
            if authors is None:
                return None, [error(path, line.number, "expected an author list such as "
                                                        "'A. Author, B. Author et al.'")]
            entries.append(_Entry(line, *authors))
        elif authors is not None and entries[-1].abstract and _starts_entry(lists, i):
            entries.append(_Entry(line, *authors))
        else:
            if entries[-1].abstract and _may_start_entry(lines, lists, i):
                diagnostics.append(_ambiguous(path, line, entries[-1]))
            entries[-1].abstract.append(line.text)
    diagnostics += [error(path, e.authors_line.number, "author list has no abstract after it")
                    for e in entries if not e.abstract]
    if not entries:
        diagnostics.append(error(path, owner.number, "dump has an owner but no entries"))
    if has_errors(diagnostics):
        return None, diagnostics
    records = tuple(
        Record(SourceRef(path, e.authors_line.number), owner.text, None, e.authors, e.et_al,
               None, (), "\n\n".join(e.abstract))
        for e in entries
    )
    return Dump(path, FORMAT, owner.text, owner.number, None, records), diagnostics


def _starts_entry(lists: Sequence[tuple[tuple[str, ...], bool] | None], i: int) -> bool:
    """Is line ``i``, which splits into names, an author list? It is when an abstract follows
    it; a short line followed by another is an abstract's last paragraph. The last line of
    the file is an author list (with no abstract: an error) when it names several people or
    ends in 'et al.', else the abstract's last paragraph."""
    if i + 1 < len(lists):
        return lists[i + 1] is None
    names, et_al = lists[i]  # type: ignore[misc]
    return et_al or len(names) > 1


def _may_start_entry(lines: Sequence[Line], lists: Sequence[tuple[tuple[str, ...], bool] | None],
                     i: int) -> bool:
    """Whether line ``i``, read as a further paragraph of an abstract, stands where an author
    list would and would be one but for the full stop that ends it (``Jiamang Wang.``)."""
    text = lines[i].text
    return (text.endswith(".") and i + 1 < len(lists) and lists[i + 1] is None
            and _first_list(text) is not None)


def _ambiguous(path: str, line: Line, entry: _Entry) -> Diagnostic:
    """The warning for a line read as an abstract's paragraph that may be a lost entry."""
    return warning(path, line.number,
                   f"{line.text[:60]!r} is read as a further paragraph of the abstract of the "
                   f"entry at line {entry.authors_line.number}; if it names the authors of a new "
                   "entry, that entry is lost: an author list does not end in '.' (fix the "
                   "export, or acknowledge this warning)", "ambiguous-entry")


def _listing_line(line: Line) -> str | None:
    """Why ``line`` cannot stand in a co-author dump: it is a listing record's source or
    subject line (a listing record pasted into the file); None for any other line."""
    if is_source_line(line.text):
        kind = "source line"
    elif "↗" in line.text and parse_subjects(line.text) is not None:
        kind = "subject line"
    else:
        return None
    return (f"{line.text[:60]!r} is a listing record's {kind}, in a co-author dump (author "
            "lists and abstracts only): move that record into its profile's listing dump")
