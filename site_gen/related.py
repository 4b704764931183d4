"""Related papers for paper pages (a helper of the routes stage).

Other papers are ranked by how many authors (or subjects) they share with a paper, then
newest first; ties in (year, title) fall back to the paper id, so the order is total. Papers
are handled as their rank in that order, so a ranking is one sort of integers.

A ``RelatedMemo`` kept between builds (watch mode) lets a ranking be reused while its inputs
are the very same objects as last time (the Builder interns unchanged catalog objects) and no
candidate paper moved in the order (its year or title changed, or it came or went).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter

from .model import Author, Catalog, Paper, Subject

RELATED_LIMIT = 5


def newest_first(paper: Paper) -> tuple[bool, int, str]:
    """Sort key: newest year first, papers with no year last, then by title."""
    return (paper.year is None, -(paper.year or 0), paper.title.casefold())


@dataclass(slots=True)
class RelatedMemo:
    """The rankings of the last planning: inputs (objects) and the ranked paper ids."""

    catalog: Catalog | None = None
    by_authors: dict[str, tuple[tuple[Author, ...], tuple[str, ...]]] = field(default_factory=dict)
    by_subjects: dict[frozenset[str], tuple[tuple[Subject, ...], tuple[str, ...]]] = field(
        default_factory=dict)


class Related:
    """Rankings for one catalog; see the module docstring."""

    def __init__(self, catalog: Catalog, memo: RelatedMemo | None = None) -> None:
        self.catalog = catalog
        ordered = sorted(catalog.papers, key=lambda p: (newest_first(p), p.id))
        self.papers = tuple(ordered)
        self.rank = {p.id: i for i, p in enumerate(ordered)}
        self.memo = memo if memo is not None else RelatedMemo()
        self.next = RelatedMemo(catalog)
        self.ranks: dict[tuple[str, str], tuple[int, ...]] = {}
        self.moved_authors, self.moved_subjects = _moved(self.memo.catalog, catalog)

    def by_authors(self, paper: Paper) -> tuple[Paper, ...]:
        """Papers sharing the most authors with this one."""
        authors = tuple(self.catalog.author(a) for a in paper.all_author_ids)
        known = self.memo.by_authors.get(paper.id)
        if known is not None and _same(known[0], authors) \
                and self.moved_authors.isdisjoint(paper.all_author_ids):
            ranked = known[1]
        else:
            ranked = self.top([self.ranks_of(("author", a.id), a.paper_ids) for a in authors])
        self.next.by_authors[paper.id] = (authors, ranked)
        return self.without(paper, ranked)

    def by_subject(self, paper: Paper) -> tuple[Paper, ...]:
        """Papers sharing the most subjects; many papers share a subject set, so it is kept."""
        key = frozenset(paper.subjects)
        if key not in self.next.by_subjects:
            subjects = tuple(self.catalog.subject(c) for c in sorted(key))
            known = self.memo.by_subjects.get(key)
            if known is not None and _same(known[0], subjects) \
                    and self.moved_subjects.isdisjoint(key):
                ranked = known[1]
            else:
                ranked = self.top([self.ranks_of(("subject", s.code), s.paper_ids) for s in subjects])
            self.next.by_subjects[key] = (subjects, ranked)
        return self.without(paper, self.next.by_subjects[key][1])

    def ranks_of(self, key: tuple[str, str], paper_ids: tuple[str, ...]) -> tuple[int, ...]:
        """An author's (or subject's) papers as ranks, computed once per planning."""
        ranks = self.ranks.get(key)
        if ranks is None:
            ranks = self.ranks[key] = tuple(self.rank[i] for i in paper_ids)
        return ranks

    def top(self, groups: Sequence[tuple[int, ...]], limit: int = RELATED_LIMIT + 1
            ) -> tuple[str, ...]:
        """The ``limit`` best paper ids: in most groups first, then lowest rank."""
        counts = Counter(chain.from_iterable(groups))
        by_rank = sorted(counts.items())
        by_rank.sort(key=itemgetter(1), reverse=True)  # stable: equal counts stay in rank order
        return tuple(self.papers[r].id for r, _ in by_rank[:limit])

    def without(self, paper: Paper, ranked: tuple[str, ...]) -> tuple[Paper, ...]:
        """The ranked papers other than ``paper`` itself, at most RELATED_LIMIT of them."""
        return tuple(self.catalog.paper(i) for i in ranked if i != paper.id)[:RELATED_LIMIT]

    def finish(self) -> None:
        """Keep this planning's rankings for the next one."""
        self.memo.catalog = self.next.catalog
        self.memo.by_authors = self.next.by_authors
        self.memo.by_subjects = self.next.by_subjects


def _same(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _moved(old: Catalog | None, new: Catalog) -> tuple[frozenset[str], frozenset[str]]:
    """Authors and subjects of papers whose place in the order changed (or that came or went)."""
    if old is None:
        return frozenset(), frozenset()
    before = {p.id: p for p in old.papers}
    after = {p.id: p for p in new.papers}
    moved: list[Paper] = []
    for pid in before.keys() | after.keys():
        a, b = before.get(pid), after.get(pid)
        if a is not b and (a is None or b is None or newest_first(a) != newest_first(b)):
            moved += [p for p in (a, b) if p is not None]
    return (frozenset(chain.from_iterable(p.all_author_ids for p in moved)),
            frozenset(chain.from_iterable(p.subjects for p in moved)))

