"""Pieces of the files beside the pages, kept between builds of one Builder.

The plain generators (``outputs/``: search, feeds, citations, exports, sitemap) make their
files from the catalog (the sitemap: from the routes). Their rebuilding variants
(incremental/outputs.py, incremental/search.py) make the same files from the same piece
functions, but keep, per paper or author, what they made in a ``Pieces`` and reuse it while
its inputs are the same: the memo is the one thing a variant changes besides its output. The catalog is interned
(incremental/cache.py), so an unchanged paper is the very same object and comparing a
piece's inputs costs a few pointer comparisons; a changed paper compares unequal and its
piece is made again. A piece nobody asked for in a build is dropped after it, so a long
watch session keeps only the pieces of the current catalog.

A rebuild goes further with a ``CatalogDelta``: what changed since the catalog the site on
disk was built from. A generator whose pieces were last completed for that catalog visits
only what the delta names, takes every other piece as it is (``Pieces.value``), forgets the
pieces of what went (``Pieces.settle``), and names the files it did not make again in a
``Carried``, which the Builder stages from the output.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from site_gen.model import Catalog

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class CatalogDelta:
    """How this build's catalog differs from ``previous``, the catalog of the site on disk.

    The catalog is interned (incremental/cache.py): every paper, author and subject not named here is
    the very object ``previous`` holds. A generator whose pieces were last made from
    ``previous`` (and from the same settings) may then visit only what is named here.
    """

    previous: Catalog
    papers: frozenset[str]
    """Ids of papers changed, added or removed."""
    authors: frozenset[str]
    """Ids of authors whose shown data (name, affiliation, ...) changed, added or removed."""
    author_papers: frozenset[str]
    """Ids of authors whose list of papers changed."""
    author_profiles: frozenset[str]
    """Ids of authors whose dumps (their record counts) changed."""
    subjects: frozenset[str]
    """Codes of subjects changed, added or removed."""
    subject_papers: frozenset[str]
    """Codes of subjects whose list of papers changed."""
    papers_shown: frozenset[str]
    """``papers``, and the papers that show the name of an author or subject named (their
    search entries, citations and feed entries do)."""
    papers_gone: frozenset[str]
    """The papers named that the catalog no longer holds; likewise the authors and subjects."""
    authors_gone: frozenset[str]
    subjects_gone: frozenset[str]

    @classmethod
    def of(cls, previous: Catalog | None, catalog: Catalog,
           changes: Collection[tuple[str, str]] | None) -> CatalogDelta | None:
        """The delta from ``intern_catalog``'s changes; None when all is to be made again."""
        if previous is None or changes is None:
            return None
        named: dict[str, set[str]] = {"paper": set(), "author": set(), "author-papers": set(),
                                      "author-profiles": set(), "subject": set(),
                                      "subject-papers": set()}
        for kind, key in changes:
            if kind in named:
                named[kind].add(key)
            elif kind == "paper-abstract":  # the files beside the pages show abstracts
                named["paper"].add(key)
        papers, authors, subjects = named["paper"], named["author"], named["subject"]
        shown = set(papers)
        if authors or subjects:
            shown.update(p.id for p in catalog.papers
                         if not authors.isdisjoint(p.all_author_ids)
                         or not subjects.isdisjoint(p.subjects))
        return cls(previous, papers=frozenset(papers), authors=frozenset(authors),
                   author_papers=frozenset(named["author-papers"]),
                   author_profiles=frozenset(named["author-profiles"]),
                   subjects=frozenset(subjects), subject_papers=frozenset(named["subject-papers"]),
                   papers_shown=frozenset(shown),
                   papers_gone=frozenset(i for i in papers if i not in catalog._papers_by_id),
                   authors_gone=frozenset(i for i in authors if i not in catalog._authors_by_id),
                   subjects_gone=frozenset(c for c in subjects
                                           if c not in catalog._subjects_by_code))


def in_step(delta: CatalogDelta | None, made_for: Catalog | None) -> CatalogDelta | None:
    """``delta``, if a generator may visit only what it names: its memo keeps pieces and
    was last completed for ``delta.previous`` (the catalog of the site on disk), not for a
    build that failed after making its files. Else None: make every piece."""
    if delta is not None and made_for is delta.previous:
        return delta
    return None


class Carried(NamedTuple):
    """Files a generator did not make again: each holds what the last build wrote under its
    name (the Builder stages them from the output as they are)."""

    names: tuple[str, ...]


class Pieces(Generic[V]):
    """Values by key, each with the inputs it was made from; reused while the inputs are equal."""

    def __init__(self) -> None:
        self._kept: dict[Hashable, tuple[object, V]] = {}
        self._used: set[Hashable] = set()
        """The keys asked for since the last ``done``."""

    def get(self, key: Hashable, inputs: object, make: Callable[[], V]) -> V:
        """The value kept for ``key`` if it was made from equal ``inputs``, else ``make()``.

        A reused value keeps its kept (inputs, value) pair as it is: a rebuild asks for
        65,000 pieces on a 10,000-paper site, and making and later freeing a new pair for each
        cost more than the rest of the lookup.
        """
        self._used.add(key)
        kept = self._kept.get(key)
        if kept is not None and (kept[0] is inputs or kept[0] == inputs):
            return kept[1]
        value = make()
        self._kept[key] = (inputs, value)
        return value

    def value(self, key: Hashable) -> V:
        """The value kept for ``key``, for a caller that knows its inputs are unchanged (a
        ``CatalogDelta`` does not name them); not noted as used (see ``settle``)."""
        return self._kept[key][1]

    def settle(self, gone: Iterable[Hashable]) -> None:
        """End a build that visited only what changed: forget the pieces of ``gone`` keys
        (papers removed), keep all others."""
        self._used = set()
        for key in gone:
            self._kept.pop(key, None)

    def kept_keys(self) -> list[Hashable]:
        """The keys of the pieces kept."""
        return list(self._kept)

    def done(self) -> None:
        """End a build: keep only the pieces it used (the catalog's current papers)."""
        used, self._used = self._used, set()
        if len(used) != len(self._kept):
            self._kept = {key: kept for key, kept in self._kept.items() if key in used}

    def __len__(self) -> int:
        return len(self._kept)


