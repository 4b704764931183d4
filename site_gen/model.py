"""Data passed between stages: raw Records from the readers, and the merged Catalog.

The dataclasses are frozen; relations are by id and resolved through the Catalog's lookups.
Two things here are not: ``Catalog.derived`` (answers worked out once per catalog, such as
citation keys) and the read note (``noting_reads``, below), through which rendering learns
which pages read a paper list or an abstract.

An author's or subject's list of papers (``members``) is not part of its equality: a page
that shows an author (a name, a link) does not change when one of their papers is renamed.
It is read through ``paper_ids``, which tells the page being rendered (render/engine.py) that it
read the list, so that a rebuild knows which pages show it (incremental/cache.py). An
author's dumps (``profiles``, with their record counts) likewise. A paper's abstract is
read through ``abstract`` likewise: most pages that list a paper do not show its abstract,
and a rebuild after an abstract edit then leaves them as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from site_gen.util.pickling import pickled_by_fields

TitleOrigin = Literal["dump", "curation", "derived"]
Lookup = tuple[str, str]
"""One question asked of a catalog, e.g. ``("paper", id)``: what a rebuild compares."""

_READS: ContextVar[Callable[[str, str], None] | None] = ContextVar("site_gen_reads", default=None)
"""Told ``("author-papers", id)`` or ``("subject-papers", code)`` when a paper list is read,
``("author-profiles", id)`` when an author's dumps are, and ``("paper-abstract", id)`` when
an abstract is. A context variable, not a global: only the code inside ``noting_reads`` (one
page rendering) is told, in its own thread or task."""


def _noted(kind: str, key: str) -> None:
    """Tell the note of ``noting_reads``, if any, of a read."""
    note = _READS.get()
    if note is not None:
        note(kind, key)


@contextmanager
def noting_reads(note: Callable[[str, str], None]) -> Iterator[None]:
    """Have ``note`` told of each read of a paper list or an abstract within the block (a
    page rendering): how a rebuild learns which pages show a list or an abstract."""
    token = _READS.set(note)
    try:
        yield
    finally:
        _READS.reset(token)


@pickled_by_fields
@dataclass(frozen=True, slots=True, order=True)
class SourceRef:
    """Where a record starts: the dump's path (as shown to the user) and a 1-based line."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Record:
    """One paper as ONE dump states it: raw and unmerged."""

    source: SourceRef
    owner: str
    title: str | None
    authors: tuple[str, ...]
    et_al: bool
    year: int | None
    subjects: tuple[str, ...]
    abstract: str


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class CountClaim:
    """A dump's own statement of how many records the profile holds ("At least 19 records")."""

    count: int
    at_least: bool

    def __str__(self) -> str:
        noun = "record" if self.count == 1 else "records"
        return f"{'at least ' if self.at_least else ''}{self.count} {noun}"


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Dump:
    """One parsed dump file: whose profile it is, what it claims, and its records."""

    path: str
    format: str
    owner: str
    owner_line: int
    claim: CountClaim | None
    records: tuple[Record, ...]


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Link:
    """An outbound link of a paper (arXiv, PDF, code, ...)."""

    kind: str
    url: str
    label: str


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Paper:
    """One paper after merging every record that describes it."""

    id: str
    title: str
    title_origin: TitleOrigin
    year: int | None
    subjects: tuple[str, ...]
    abstract_text: str = field(repr=False)
    """Read it as ``abstract`` (see the module's docstring); left out of ``repr``, which
    would read it unnoted."""
    author_ids: tuple[str, ...]
    """Authors in the order the dumps list them."""
    extra_author_ids: tuple[str, ...]
    """Profiled authors known to be on the paper but not at a known position in the list."""
    et_al: bool
    """The known author list is truncated."""
    authors_listed: bool
    """Some dump stated an author list (listing dumps only name their owner)."""
    sources: tuple[SourceRef, ...]
    links: tuple[Link, ...] = ()
    aliases: tuple[str, ...] = ()
    """Old slugs (curation's ``aliases``) whose URLs redirect to this paper."""

    @property
    def abstract(self) -> str:
        """The abstract's source text (noted as read, while a page renders)."""
        _noted("paper-abstract", self.id)
        return self.abstract_text

    @property
    def all_author_ids(self) -> tuple[str, ...]:
        """Every known author, listed ones first."""
        return self.author_ids + self.extra_author_ids

    def __hash__(self) -> int:
        """By id: equal papers have equal ids, and hashing every field (abstract, sources)
        each time a paper keys a memo costs more than rendering its list item."""
        return hash(self.id)


def newest_first(paper: Paper) -> tuple[bool, int, str]:
    """Sort key of papers in feeds and BibTeX files: newest first, undated last, then by id."""
    return (paper.year is None, -(paper.year or 0), paper.id)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Profile:
    """What a dump says about the profiled author it belongs to."""

    path: str
    claim: CountClaim | None
    records: int


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Author:
    """One person: profiled (owns a dump) or a co-author seen in author lists."""

    id: str
    name: str
    members: tuple[str, ...] = field(compare=False)
    """The ids of their papers; read them as ``paper_ids`` (see the module's docstring)."""
    own_profiles: tuple[Profile, ...] = field(default=(), compare=False)
    """Their dumps, with each one's record count; read them as ``profiles`` or ``profiled``
    (like ``members``: a record added to a dump changes its count, and a dump deleted makes
    its owner a co-author, which only the pages that show the profiles show, not every page
    that names the owner)."""
    affiliation: str | None = None
    homepage: str | None = None
    variants: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    """Old slugs (curation's ``aliases``) whose URLs redirect to this author."""

    @property
    def paper_ids(self) -> tuple[str, ...]:
        """The ids of their papers (noted as read, while a page renders)."""
        _noted("author-papers", self.id)
        return self.members

    @property
    def profiles(self) -> tuple[Profile, ...]:
        """Their dumps (noted as read, while a page renders)."""
        _noted("author-profiles", self.id)
        return self.own_profiles

    @property
    def profiled(self) -> bool:
        """True when some dump is this person's own profile (noted as reading the profiles)."""
        return bool(self.profiles)

    def __hash__(self) -> int:
        """By id (see Paper.__hash__)."""
        return hash(self.id)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Subject:
    """An arXiv category present on the site."""

    code: str
    name: str
    group: str
    known: bool
    members: tuple[str, ...] = field(compare=False)
    """The ids of its papers; read them as ``paper_ids`` (see the module's docstring)."""

    @property
    def paper_ids(self) -> tuple[str, ...]:
        """The ids of its papers (noted as read, while a page renders)."""
        _noted("subject-papers", self.code)
        return self.members

    def __hash__(self) -> int:
        """By code (see Paper.__hash__)."""
        return hash(self.code)


@dataclass(frozen=True, slots=True)
class Catalog:
    """The merged, de-duplicated site content; lookups by id."""

    papers: tuple[Paper, ...]
    authors: tuple[Author, ...]
    subjects: tuple[Subject, ...]
    _papers_by_id: dict[str, Paper] = field(default_factory=dict, compare=False, repr=False)
    _authors_by_id: dict[str, Author] = field(default_factory=dict, compare=False, repr=False)
    _subjects_by_code: dict[str, Subject] = field(default_factory=dict, compare=False, repr=False)
    derived: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Answers worked out from this catalog once and kept with it (its authors' names per
    paper, its citation keys): they go when the catalog goes, and a new catalog starts empty."""

    def __post_init__(self) -> None:
        self._papers_by_id.update((p.id, p) for p in self.papers)
        self._authors_by_id.update((a.id, a) for a in self.authors)
        self._subjects_by_code.update((s.code, s) for s in self.subjects)

    def paper(self, paper_id: str) -> Paper:
        """The paper with this id."""
        return self._papers_by_id[paper_id]

    def author(self, author_id: str) -> Author:
        """The author with this id."""
        return self._authors_by_id[author_id]

    def subject(self, code: str) -> Subject:
        """The subject with this arXiv code."""
        return self._subjects_by_code[code]

    @property
    def profiled_authors(self) -> tuple[Author, ...]:
        """Authors that own at least one dump."""
        return tuple(a for a in self.authors if a.profiled)
