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

from collections.abc import Sequence
from dataclasses import dataclass, field

from site_gen.model import Dump, Record, SourceRef
from site_gen.read.names import MAX_NAME_WORDS, is_name, split_author_list
from site_gen.read.source import Line
from site_gen.util.diagnostics import Diagnostic, error

FORMAT = "coauthor"


def sniff(lines: Sequence[Line]) -> bool:
    """True for: an owner's line, then an author list, then more. The third line is the first
    abstract's, whatever it holds: a short abstract with a comma splits like a list of names."""
    return len(lines) >= 3 and is_name(lines[0].text) and split_author_list(lines[1].text) is not None


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
    for i, line in enumerate(lines[1:], start=1):
        authors = lists[i]
        if not entries:
            if authors is None:
                return None, [error(path, line.number, "expected an author list such as "
                                                        "'A. Author, B. Author et al.'")]
            entries.append(_Entry(line, *authors))
        elif authors is not None and entries[-1].abstract and _starts_entry(lists, i):
            entries.append(_Entry(line, *authors))
        else:
            entries[-1].abstract.append(line.text)
    diagnostics = [
        error(path, e.authors_line.number, "author list has no abstract after it")
        for e in entries if not e.abstract
    ]
    if not entries:
        diagnostics.append(error(path, owner.number, "dump has an owner but no entries"))
    if diagnostics:
        return None, diagnostics
    records = tuple(
        Record(SourceRef(path, e.authors_line.number), owner.text, None, e.authors, e.et_al,
               None, (), "\n\n".join(e.abstract))
        for e in entries
    )
    return Dump(path, FORMAT, owner.text, owner.number, None, records), []


def _starts_entry(lists: Sequence[tuple[tuple[str, ...], bool] | None], i: int) -> bool:
    """Is line ``i``, which splits into names, an author list? It is when an abstract follows
    it; a short line followed by another is an abstract's last paragraph. The last line of
    the file is an author list (with no abstract: an error) when it names several people or
    ends in 'et al.', else the abstract's last paragraph."""
    if i + 1 < len(lists):
        return lists[i + 1] is None
    names, et_al = lists[i]  # type: ignore[misc]
    return et_al or len(names) > 1
