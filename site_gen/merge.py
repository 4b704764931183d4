"""Grouping records that describe the same paper (used by the catalog stage).

The rule, in words (docs/merging.md says the same):

* Two records are one paper when their abstracts are equal after folding (accents, case,
  punctuation and white space ignored, LaTeX markup removed) and at least 200 characters long.
* or when their titles are equal after folding, the titles have at least four words, and
  their years do not disagree.

Keys are looked up in dictionaries, so grouping is linear in the number of records. Records
that share the opening of their abstract but no key are reported as suspected duplicates.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from .diagnostics import Diagnostic, warning
from .model import Record
from .text import fold, plain_text

MIN_ABSTRACT_KEY = 200
MIN_TITLE_WORDS = 4
OPENING_WORDS = 25


def folded_abstract(record: Record) -> str:
    """The abstract reduced to its words (see text.fold); computed once per record."""
    return fold(plain_text(record.abstract))


def title_key(record: Record) -> str | None:
    """The folded title, when specific enough to identify a paper."""
    if not record.title:
        return None
    key = fold(plain_text(record.title))
    return key if len(key.split()) >= MIN_TITLE_WORDS else None


class _UnionFind:
    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def group_records(records: Sequence[Record]) -> tuple[list[list[Record]], list[Diagnostic]]:
    """Partition records into papers; groups keep the input order of their records."""
    abstracts = [folded_abstract(r) for r in records]
    sets = _UnionFind(len(records))
    by_abstract: dict[str, int] = {}
    by_title: dict[str, int] = {}
    for i, record in enumerate(records):
        if len(abstracts[i]) >= MIN_ABSTRACT_KEY:
            sets.union(by_abstract.setdefault(abstracts[i], i), i)
        if (key := title_key(record)) is not None:
            first = by_title.setdefault(key, i)
            if _years_agree(records[first], record):
                sets.union(first, i)
    groups: dict[int, list[Record]] = defaultdict(list)
    for i, record in enumerate(records):
        groups[sets.find(i)].append(record)
    ordered = [groups[root] for root in sorted(groups)]
    return ordered, _suspected_duplicates(records, abstracts, sets)


def _years_agree(a: Record, b: Record) -> bool:
    return a.year is None or b.year is None or a.year == b.year


def _suspected_duplicates(records: Sequence[Record], abstracts: Sequence[str],
                          sets: _UnionFind) -> list[Diagnostic]:
    """Warn about records whose abstracts open alike but that were kept apart."""
    by_opening: dict[str, list[int]] = defaultdict(list)
    for i, folded in enumerate(abstracts):
        words = folded.split(" ", OPENING_WORDS)
        if len(words) >= OPENING_WORDS:
            by_opening[" ".join(words[:OPENING_WORDS])].append(i)
    diagnostics = []
    for members in by_opening.values():
        first = members[0]
        for other in members[1:]:
            if sets.find(other) != sets.find(first):
                diagnostics.append(warning(
                    records[other].source.path, records[other].source.line,
                    f"suspected duplicate of {records[first].source}: the abstracts open alike "
                    "but differ beyond case, spacing and punctuation, so they were not merged"))
    return diagnostics
