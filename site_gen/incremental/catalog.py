"""The catalog stage for a Builder that rebuilds: ``catalog.assemble.build_catalog``, remembered.

``CatalogMemo.build`` returns what ``build_catalog`` returns (it is the specification;
tests/test_incremental_catalog.py holds the memo to it on random edit sequences), object order
and diagnostics included. It runs the same steps, but what the last call made from unchanged
dumps (the very same objects, handed back by the Builder's file cache) is reused, so a
one-dump edit groups, drafts and finishes again only the papers that dump touches. Slugs,
author ids, authors and subjects still come from the whole catalog each time, as they depend
on all of it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from itertools import chain, compress
from operator import itemgetter
from typing import TypeVar

from site_gen.catalog.assemble import (
    AuthorInputs,
    NameIndex,
    author_ids,
    author_inputs,
    author_keys,
    build_catalog,
    build_subjects,
    draft_paper,
    id_order,
    make_author,
    settled,
    sorted_authors,
    unique_slugs,
    with_ids,
)
from site_gen.catalog.merge import RecordKeys
from site_gen.incremental.grouping import Regrouping
from site_gen.model import Author, Catalog, Dump, Paper, Record
from site_gen.read.curation import Curation
from site_gen.util.diagnostics import Diagnostic

T = TypeVar("T")


class CatalogMemo:
    """What ``build`` made last time, for a Builder that rebuilds (watch mode).

    A Builder's FileCache hands back the very same Dump, and so the same Records, for every
    unchanged file. What was made from them is found again by identity: groups of records
    (``Regrouping``), each group's draft paper, each draft's finished paper. The memo holds
    those objects, so their ids are not reused, and keeps only what the last call used.
    """

    def __init__(self) -> None:
        self._clear()

    def _clear(self) -> None:
        self.groups = Regrouping()
        self.names: CountedNames | None = None
        self.drafts: dict[int, tuple[list[Record], Paper, list[Diagnostic]]] = {}
        """By group: the group, its draft and the draft's warnings."""
        self.papers: dict[int, tuple[Paper, str, Paper]] = {}
        """By draft: the draft, its slug and the finished paper."""
        self.ordered: list[Paper] = []
        """The drafts in the order they picked slugs."""
        self.author_ids: dict[str, str] = {}
        self.authors: dict[str, tuple[AuthorInputs, Author]] = {}
        """By author id: what an Author was made from, and the Author."""

    def build(self, dumps: Sequence[Dump], curation: Curation,
              keys: Mapping[str, Sequence[RecordKeys]] | None = None
              ) -> tuple[Catalog, list[Diagnostic]]:
        """``build_catalog(dumps, curation, keys)``; after an error the memo starts afresh.
        Dumps sharing a path (no Builder hands such over) are merged without the memo."""
        if len({d.path for d in dumps}) != len(dumps):
            return build_catalog(dumps, curation, keys)
        try:
            return self._build(dumps, curation, keys)
        except BaseException:
            self._clear()
            raise

    def _build(self, dumps: Sequence[Dump], curation: Curation,
               keys: Mapping[str, Sequence[RecordKeys]] | None) -> tuple[Catalog, list[Diagnostic]]:
        groups, diagnostics = self.groups.update(dumps, keys)
        names = self._names(curation, dumps)
        drafts = self._drafts(groups, names, diagnostics)
        drafts, diagnostics = settled(groups, drafts, names, curation, diagnostics)
        papers = self._papers(drafts, dumps, names)
        authors = self._authors(papers, dumps, names, curation)
        subjects = build_subjects(papers, diagnostics, curation)
        return Catalog(tuple(papers), authors, subjects), diagnostics

    def _names(self, curation: Curation, dumps: Sequence[Dump]) -> CountedNames:
        """The name index, counted again for changed dumps; anew when author curation changed
        (and then drafts, which hold name keys, are made again too)."""
        if self.names is None or self.names.edits != curation.authors:
            self.names, self.drafts = CountedNames(curation), {}
        self.names.recount(dumps)
        return self.names

    def _drafts(self, groups: list[list[Record]], names: NameIndex,
                diagnostics: list[Diagnostic]) -> list[Paper]:
        """A draft per group (and its warnings): last call's for the very same group."""
        made = [hit if hit is not None and hit[0] is group else _drafted(group, names)
                for hit, group in zip(map(self.drafts.get, map(id, groups)), groups)]
        self.drafts = dict(zip(map(id, groups), made))
        diagnostics.extend(chain.from_iterable(map(itemgetter(2), made)))
        return list(map(itemgetter(1), made))

    def _papers(self, drafts: list[Paper], dumps: Sequence[Dump], names: NameIndex) -> list[Paper]:
        """Drafts with their slugs and author ids: last call's paper where all three are equal."""
        ordered = self._order(drafts)
        slugs = unique_slugs(ordered)
        ids = author_ids(author_keys(drafts, dumps, names), names)
        moved = {key for key, author_id in ids.items() if self.author_ids.get(key) != author_id}
        made = [hit if (hit is not None and hit[0] is draft and hit[1] == slug
                        and (not moved or moved.isdisjoint(draft.all_author_ids)))
                else (draft, slug, with_ids(draft, slug, ids))
                for hit, draft, slug in zip(map(self.papers.get, map(id, ordered)), ordered, slugs)]
        self.papers = dict(zip(map(id, ordered), made))
        self.ordered, self.author_ids = ordered, ids
        return list(map(itemgetter(2), made))

    def _order(self, drafts: list[Paper]) -> list[Paper]:
        """``sorted(drafts, key=id_order)``: last call's order, new drafts put in their place.
        Sorted afresh when many are new (over a tenth: sorting is then faster), or a new one's
        key ties (sorting keeps ties in ``drafts`` order)."""
        now = set(map(id, drafts))
        new = _those(drafts, now - self.papers.keys())
        if len(new) > 16 + len(drafts) // 10:
            return sorted(drafts, key=id_order)
        ordered = _those(self.ordered, now)
        for draft in new:
            at = bisect_right(ordered, id_order(draft), key=id_order)
            if at and id_order(ordered[at - 1]) == id_order(draft):
                return sorted(drafts, key=id_order)
            ordered.insert(at, draft)
        return ordered

    def _authors(self, papers: list[Paper], dumps: Sequence[Dump], names: NameIndex,
                 curation: Curation) -> tuple[Author, ...]:
        """Every person with their papers and profiles: last call's Author where made from
        equal inputs."""
        before, self.authors = self.authors, {}
        for author_id, inputs in author_inputs(papers, self.author_ids, dumps, names, curation):
            hit = before.get(author_id)
            self.authors[author_id] = (inputs, hit[1] if hit is not None and hit[0] == inputs
                                       else make_author(author_id, inputs))
        return sorted_authors(map(itemgetter(1), self.authors.values()))


class CountedNames(NameIndex):
    """A name index counted again for the dumps that differ from the ones it counted last."""

    def __init__(self, curation: Curation) -> None:
        super().__init__(curation)
        self.edits = curation.authors
        """The curation entries for authors this index was made with."""
        self.counted: dict[str, Dump] = {}
        """The dumps counted, by path."""

    def recount(self, dumps: Sequence[Dump]) -> None:
        """Count spellings in ``dumps`` (unique paths) by taking back and adding only the dumps
        that differ from the ones counted last time."""
        now = {d.path: d for d in dumps}
        touched: set[str] = set()
        for path, dump in self.counted.items():
            if now.get(path) is not dump:
                self.count(dump, -1, touched)
        for path, dump in now.items():
            if self.counted.get(path) is not dump:
                self.count(dump, 1, touched)
        self.counted = now
        self.show(touched)


def _drafted(group: list[Record], names: NameIndex) -> tuple[list[Record], Paper, list[Diagnostic]]:
    """A group with its draft and the draft's warnings."""
    found: list[Diagnostic] = []
    return group, draft_paper(group, names, found), found


def _those(items: Sequence[T], ids: Collection[int]) -> list[T]:
    """The items whose ``id()`` is in ``ids``, in order; without a Python loop, as this runs
    over every paper on every rebuild."""
    return list(compress(items, map(ids.__contains__, map(id, items))))
