"""Stage 3, planning: Catalog + Pages -> Routes, one per HTML file, decided before rendering.

A Route's context holds the frozen model objects its template shows, already grouped and
sorted, so templates only lay them out. Two routes on one output path is an error.
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain, groupby
from operator import itemgetter
from pathlib import PurePosixPath

from .diagnostics import Diagnostic, error
from .model import Author, Catalog, Paper, Subject
from .pages import Page
from .urls import author_feed_url, author_url, output_path, paper_url, subject_feed_url, subject_url

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
    by_rank = sorted(catalog.papers, key=_newest_first)
    routes = [
        _route("", "index.html", profiled=catalog.profiled_authors,
               recent=tuple(by_rank[:recent]), subjects=catalog.subjects),
        _route("papers/", "papers.html", years=by_year(catalog.papers)),
        _route("authors/", "authors.html", profiled=catalog.profiled_authors,
               others=tuple(a for a in catalog.authors if not a.profiled)),
        _route("subjects/", "subjects.html", groups=_subject_groups(catalog.subjects)),
        _route("search/", "search.html"),
        _route("404.html", "404.html"),
    ]
    rank = {p.id: i for i, p in enumerate(by_rank)}
    ranked_subjects = {s.code: sorted(rank[pid] for pid in s.paper_ids) for s in catalog.subjects}
    ranked_authors = {a.id: tuple(rank[pid] for pid in a.paper_ids) for a in catalog.authors}
    routes += [_paper_route(catalog, p, rank, ranked_subjects, ranked_authors, by_rank)
               for p in catalog.papers]
    profiled = catalog.profiled_authors
    routes += [_author_route(catalog, profiled, a) for a in catalog.authors]
    routes += [_route(subject_url(s.code), "subject.html", subject=s,
                      years=by_year(catalog.paper(i) for i in s.paper_ids),
                      feeds=((f"{s.name}: new papers", subject_feed_url(s.code)),))
               for s in catalog.subjects]
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


def _subject_groups(subjects: tuple[Subject, ...]) -> tuple[tuple[str, tuple[Subject, ...]], ...]:
    ordered = sorted(subjects, key=lambda s: (s.group, s.code))
    return tuple((g, tuple(members)) for g, members in groupby(ordered, key=lambda s: s.group))


def _paper_route(catalog: Catalog, paper: Paper, rank: Mapping[str, int],
                 ranked_subjects: Mapping[str, list[int]],
                 ranked_authors: Mapping[str, tuple[int, ...]], by_rank: list[Paper]) -> Route:
    by_authors = _related(rank[paper.id], [ranked_authors[a] for a in paper.all_author_ids],
                          by_rank)
    return _route(
        paper_url(paper.id), "paper.html", paper=paper,
        authors=tuple(catalog.author(a) for a in paper.author_ids),
        extra_authors=tuple(catalog.author(a) for a in paper.extra_author_ids),
        subjects=tuple(catalog.subject(c) for c in paper.subjects),
        related_by_authors=by_authors,
        related_by_subject=_nearby_in_subjects(paper, rank, ranked_subjects, by_rank),
    )


def _nearby_in_subjects(paper: Paper, rank: Mapping[str, int],
                        ranked_subjects: Mapping[str, list[int]], by_rank: list[Paper]
                        ) -> tuple[Paper, ...]:
    """Papers sharing the most subjects, nearest in date; only neighbours are looked at."""
    own = rank[paper.id]
    candidates: Counter[int] = Counter()
    for code in paper.subjects:
        ranks = ranked_subjects[code]
        at = bisect.bisect_left(ranks, own)
        candidates.update(ranks[max(0, at - RELATED_LIMIT):at + RELATED_LIMIT + 1])
    candidates.pop(own, None)
    best = heapq.nsmallest(RELATED_LIMIT, candidates.items(),
                           key=lambda kv: (-kv[1], abs(kv[0] - own), kv[0]))
    return tuple(by_rank[r] for r, _ in best)


def _related(own: int, groups: list[tuple[int, ...]], by_rank: list[Paper]) -> tuple[Paper, ...]:
    """Other papers ranked by how often they came up, then newest first (by rank).

    Papers are handled as their ranks, so the ranking is two sorts in C (a 10,000-paper site
    plans in a fraction of the time a key function per candidate takes).
    """
    counts = Counter(chain.from_iterable(groups))
    counts.pop(own, None)
    best = sorted(counts.items())  # by rank
    best.sort(key=itemgetter(1), reverse=True)  # most shared first; stable, so newest first within
    return tuple(by_rank[r] for r, _ in best[:RELATED_LIMIT])


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
        feeds=((f"{author.name}: new papers", author_feed_url(author.id)),),
    )


def year_counts(papers: Iterable[Paper]) -> tuple[tuple[int, int], ...]:
    """(year, papers) for every year from the first to the last, gaps included as zero."""
    counts = Counter(p.year for p in papers if p.year is not None)
    if not counts:
        return ()
    return tuple((y, counts.get(y, 0)) for y in range(min(counts), max(counts) + 1))
