"""Stage 3, planning: Catalog + Pages -> Routes, one per HTML file, decided before rendering.

A Route's context holds the frozen model objects its template shows, already grouped and
sorted, so templates only lay them out. Two routes on one output path is an error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain, groupby
from operator import itemgetter
from pathlib import PurePosixPath

from .diagnostics import Diagnostic, error
from .model import Author, Catalog, Paper, Subject
from .pages import Page
from .urls import author_url, output_path, paper_url, subject_url

RELATED_LIMIT = 5


@dataclass(frozen=True, slots=True)
class Route:
    """One output HTML file: its URL, where it is written, and what its template is given."""

    url: str
    output: PurePosixPath
    template: str
    context: Mapping[str, object]
    source: str = ""


def plan_routes(
    catalog: Catalog, pages: tuple[Page, ...], recent: int = 10
) -> tuple[tuple[Route, ...], list[Diagnostic]]:
    """Every HTML page of the site, with collision checks."""
    routes = [
        _route("", "index.html", profiled=catalog.profiled_authors,
               recent=_recent(catalog.papers, recent), subjects=catalog.subjects),
        _route("papers/", "papers.html", years=by_year(catalog.papers)),
        _route("authors/", "authors.html", profiled=catalog.profiled_authors,
               others=tuple(a for a in catalog.authors if not a.profiled)),
        _route("subjects/", "subjects.html", groups=_subject_groups(catalog.subjects)),
        _route("search/", "search.html"),
        _route("404.html", "404.html"),
    ]
    related = _Related(catalog)
    routes += [_paper_route(catalog, related, p) for p in catalog.papers]
    profiled = catalog.profiled_authors
    routes += [_author_route(catalog, profiled, a) for a in catalog.authors]
    routes += [_route(subject_url(s.code), "subject.html", subject=s,
                      years=by_year(catalog.paper(i) for i in s.paper_ids)) for s in catalog.subjects]
    routes += [_route(f"{p.slug}/", "page.html", page=p, source=p.source) for p in pages]
    return tuple(routes), _collisions(routes)


def _route(url: str, template: str, source: str = "", **context: object) -> Route:
    return Route(url, output_path(url), template, context, source)


def _collisions(routes: Iterable[Route]) -> list[Diagnostic]:
    seen: dict[PurePosixPath, Route] = {}
    problems = []
    for route in routes:
        first = seen.setdefault(route.output, route)
        if first is not route:
            problems.append(error(route.source or "site", 0,
                                  f"{route.output} would be written twice (also by "
                                  f"{first.source or first.template})"))
    return problems


def by_year(papers: Iterable[Paper]) -> tuple[tuple[int | None, tuple[Paper, ...]], ...]:
    """Papers grouped by year, newest first, papers with no year last."""
    ordered = sorted(papers, key=_newest_first)
    return tuple((year, tuple(group)) for year, group in groupby(ordered, key=lambda p: p.year))


def _newest_first(paper: Paper) -> tuple[bool, int, str]:
    return (paper.year is None, -(paper.year or 0), paper.title.casefold())


def _recent(papers: Iterable[Paper], count: int) -> tuple[Paper, ...]:
    return tuple(sorted(papers, key=_newest_first)[:count])


def _subject_groups(subjects: tuple[Subject, ...]) -> tuple[tuple[str, tuple[Subject, ...]], ...]:
    ordered = sorted(subjects, key=lambda s: (s.group, s.code))
    return tuple((g, tuple(members)) for g, members in groupby(ordered, key=lambda s: s.group))


def _paper_route(catalog: Catalog, related: _Related, paper: Paper) -> Route:
    return _route(
        paper_url(paper.id), "paper.html", paper=paper,
        authors=tuple(catalog.author(a) for a in paper.author_ids),
        extra_authors=tuple(catalog.author(a) for a in paper.extra_author_ids),
        subjects=tuple(catalog.subject(c) for c in paper.subjects),
        related_by_authors=related.by_authors(paper), related_by_subject=related.by_subject(paper),
    )


class _Related:
    """Other papers ranked by how many authors (or subjects) they share, then newest first.

    Ties in (year, title) fall back to the paper id, so the order is total. Papers are handled
    as their rank in that order: a ranking is then one sort of integers, which keeps a
    10,000-paper site's planning linear-ish rather than quadratic.
    """

    def __init__(self, catalog: Catalog) -> None:
        ordered = sorted(catalog.papers, key=lambda p: (_newest_first(p), p.id))
        self.papers = tuple(ordered)
        self.rank = {p.id: i for i, p in enumerate(ordered)}
        self.of_author = {a.id: tuple(self.rank[i] for i in a.paper_ids) for a in catalog.authors}
        self.of_subject = {s.code: tuple(self.rank[i] for i in s.paper_ids)
                           for s in catalog.subjects}
        self.by_subject_set: dict[frozenset[str], tuple[int, ...]] = {}

    def by_authors(self, paper: Paper) -> tuple[Paper, ...]:
        """Papers sharing the most authors with this one."""
        ranked = self.top((self.of_author[a] for a in paper.all_author_ids), RELATED_LIMIT + 1)
        return self.without(paper, ranked)

    def by_subject(self, paper: Paper) -> tuple[Paper, ...]:
        """Papers sharing the most subjects; many papers share a subject set, so it is cached."""
        key = frozenset(paper.subjects)
        if key not in self.by_subject_set:
            self.by_subject_set[key] = self.top((self.of_subject[c] for c in sorted(key)),
                                                RELATED_LIMIT + 1)
        return self.without(paper, self.by_subject_set[key])

    def top(self, groups: Iterable[tuple[int, ...]], limit: int) -> tuple[int, ...]:
        """The ``limit`` best ranks: most groups shared first, then lowest rank."""
        counts = Counter(chain.from_iterable(groups))
        by_rank = sorted(counts.items())
        by_rank.sort(key=itemgetter(1), reverse=True)  # stable: equal counts stay in rank order
        return tuple(rank for rank, _ in by_rank[:limit])

    def without(self, paper: Paper, ranked: tuple[int, ...]) -> tuple[Paper, ...]:
        """The ranked papers other than ``paper`` itself, at most RELATED_LIMIT of them."""
        own = self.rank[paper.id]
        return tuple(self.papers[r] for r in ranked if r != own)[:RELATED_LIMIT]


def _author_route(catalog: Catalog, profiled: tuple[Author, ...], author: Author) -> Route:
    papers = [catalog.paper(pid) for pid in author.paper_ids]
    coauthors = Counter(a for p in papers for a in p.all_author_ids if a != author.id)
    subjects = Counter(code for p in papers for code in p.subjects)
    profiled_with = tuple(a for a in profiled if a.id != author.id and a.id in coauthors)
    return _route(
        author_url(author.id), "author.html", author=author, years=by_year(papers),
        paper_count=len(papers),
        coauthors=tuple((catalog.author(a), n) for a, n in
                        sorted(coauthors.items(), key=lambda kv: (-kv[1], catalog.author(kv[0]).name))),
        subject_counts=tuple((catalog.subject(c), n) for c, n in
                             sorted(subjects.items(), key=lambda kv: (-kv[1], kv[0]))),
        year_counts=year_counts(papers), profiled_with=profiled_with,
    )


def year_counts(papers: Iterable[Paper]) -> tuple[tuple[int, int], ...]:
    """(year, papers) for every year from the first to the last, gaps included as zero."""
    counts = Counter(p.year for p in papers if p.year is not None)
    if not counts:
        return ()
    return tuple((y, counts.get(y, 0)) for y in range(min(counts), max(counts) + 1))
