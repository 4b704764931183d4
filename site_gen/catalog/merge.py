"""Grouping records that describe the same paper (used by the catalog stage).

The rule, in words (docs/merging.md says the same):

* Two records are one paper when their abstracts are equal after folding (accents, case,
  punctuation and white space ignored, LaTeX markup removed) and at least 200 characters long;
* or when their abstracts are equal after folding, shorter, and the records share a person
  (a dump's owner or a listed author): a short abstract alone may be two papers' boilerplate;
* or when their titles are equal after folding, the titles have at least four words, and
  their years do not disagree.

Keys are looked up in dictionaries, so grouping is linear in the number of records. Records
that share the opening of their abstract (a short abstract's opening is all of it) but no key
are reported as suspected duplicates.

``group_records`` is the rule's definition. What it compares are a record's ``RecordKeys``:
folding its text is most of merging's cost, so they may be made beforehand, where the record
is parsed (``pipeline.parse_dump`` does, in the processes that parse dumps, and the build
cache keeps them with each dump's parse). ``incremental.grouping.Regrouping`` keeps its
groups up to date while dumps change a few at a time (watch mode), from the pieces here
(``record_keys``, ``UnionFind``, ``years_agree``, ``suspected``); property tests hold it to
``group_records``.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from site_gen.model import Dump, Record
from site_gen.read.names import person_key
from site_gen.util.diagnostics import Diagnostic, warning
from site_gen.util.text import fold, plain_text

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


class RecordKeys(NamedTuple):
    """What a record is grouped and compared by, each a digest of the folded text (None
    where there is no such key): equal digests are equal texts; and the identity of its
    abstract that ``urls.lock`` records, which needs the same folding."""

    abstract: bytes | None
    """The folded abstract, when long enough to identify a paper."""
    title: bytes | None
    """The folded title, when specific enough (``title_key``)."""
    opening: bytes | None
    """The abstract's first words (``abstract_opening``): records opening alike but kept
    apart are suspected duplicates."""
    identity: str
    """The abstract's ``abstract_identity``, made here as it needs the folded abstract too."""
    shared: tuple[bytes, ...] = ()
    """A short abstract's keys, one for each person of the record (its owner and authors):
    records with an equal one share both the abstract and a person."""


def record_keys(record: Record) -> RecordKeys:
    """A record's keys (folding its abstract and title: the costly part of merging)."""
    folded = folded_abstract(record)
    title, opening = title_key(record), abstract_opening(folded)
    long = len(folded) >= MIN_ABSTRACT_KEY
    return RecordKeys(_digest(folded) if long else None,
                      None if title is None else _digest(title),
                      None if opening is None else _digest(opening), abstract_identity(folded),
                      () if long or not folded else _shared_keys(folded, record))


def _shared_keys(folded: str, record: Record) -> tuple[bytes, ...]:
    """The keys of a short abstract with each person of its record, in a stable order."""
    people = sorted({person_key(name) for name in (record.owner, *record.authors)})
    return tuple(_digest(f"{folded}\0{person}") for person in people)


def abstract_identity(folded: str) -> str:
    """What a paper URL shows, as ``content/urls.lock`` records it: its folded abstract's
    digest (``plan.redirects``; the lock files users commit hold it, so it never changes)."""
    return "paper:" + hashlib.sha256(folded.encode()).hexdigest()[:16]


def abstract_identities(dumps: Sequence[Dump], keys: Mapping[str, Sequence[RecordKeys]]
                        ) -> dict[str, str]:
    """Each record's ``abstract_identity`` by its abstract, where its keys were made already:
    a paper shows one of its records' abstracts, unless curation gave it another."""
    return {record.abstract: key.identity for dump in dumps if dump.path in keys
            for record, key in zip(dump.records, keys[dump.path], strict=True)}


def dump_keys(dump: Dump) -> tuple[RecordKeys, ...]:
    """The keys of each of a dump's records, in order."""
    return tuple(map(record_keys, dump.records))


def _digest(key: str) -> bytes:
    return hashlib.blake2b(key.encode("utf-8"), digest_size=16).digest()


class UnionFind:
    """Disjoint sets of ``0 .. size - 1``; each set's root is its smallest member."""

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


def group_records(records: Sequence[Record], keys: Sequence[RecordKeys] | None = None
                  ) -> tuple[list[list[Record]], list[Diagnostic]]:
    """Partition records into papers; groups keep the input order of their records.
    ``keys``: each record's ``record_keys``, when made already."""
    keys = list(map(record_keys, records)) if keys is None else keys
    sets = UnionFind(len(records))
    by_abstract: dict[bytes, int] = {}
    by_title: dict[bytes, int] = {}
    for i, (record, key) in enumerate(zip(records, keys, strict=True)):
        if key.abstract is not None:
            sets.union(by_abstract.setdefault(key.abstract, i), i)
        for shared in key.shared:
            sets.union(by_abstract.setdefault(shared, i), i)
        if key.title is not None:
            first = by_title.setdefault(key.title, i)
            if years_agree(records[first], record):
                sets.union(first, i)
    groups: dict[int, list[Record]] = defaultdict(list)
    for i, record in enumerate(records):
        groups[sets.find(i)].append(record)
    ordered = [groups[root] for root in sorted(groups)]
    return ordered, _suspected_duplicates(records, keys, sets)


def years_agree(a: Record, b: Record) -> bool:
    """Two records may be one paper by title: neither states a year, or both the same."""
    return a.year is None or b.year is None or a.year == b.year


def abstract_opening(folded: str) -> str | None:
    """The first words of a folded abstract; all of a shorter one; None for no abstract."""
    words = folded.split(" ", OPENING_WORDS)
    return " ".join(words[:OPENING_WORDS]) if folded else None


def _suspected_duplicates(records: Sequence[Record], keys: Sequence[RecordKeys],
                          sets: UnionFind) -> list[Diagnostic]:
    """Warn about records whose abstracts open alike but that were kept apart."""
    by_opening: dict[bytes, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        if key.opening is not None:
            by_opening[key.opening].append(i)
    diagnostics = []
    for members in by_opening.values():
        first = members[0]
        diagnostics += [suspected(records[other], records[first]) for other in members[1:]
                        if sets.find(other) != sets.find(first)]
    return diagnostics


def suspected(record: Record, first: Record) -> Diagnostic:
    """The warning that ``record`` opens like ``first`` yet was kept apart from it."""
    return warning(record.source.path, record.source.line,
                   f"suspected duplicate of {first.source}: the abstracts open alike "
                   "but differ beyond case, spacing and punctuation, so they were not merged; "
                   f"in curation.yaml, list [\"{first.source}\", \"{record.source}\"] under "
                   "merge: if they are one paper, under distinct: if they are two", "duplicate")
