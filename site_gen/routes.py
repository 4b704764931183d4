"""Stage 3, planning: Catalog + Pages -> Routes, one per HTML file, decided before rendering.

A Route's context holds the frozen model objects its template shows, already grouped and
sorted, so templates only lay them out. Two routes on one output path is an error.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain, groupby
from operator import attrgetter, itemgetter
from pathlib import PurePosixPath

from .diagnostics import Diagnostic, error
from .model import Author, Catalog, Paper, Subject
from .pages import Page
from .urls import author_feed_url, author_url, output_path, paper_url, subject_feed_url, subject_url

RELATED_LIMIT = 5
_LONG_LIST = 64
"""Authors with more papers than this get a set of them for probing (``_related``)."""


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
        _route("papers/", "papers.html", years=_grouped_by_year(by_rank)),
        _route("authors/", "authors.html", profiled=catalog.profiled_authors,
               others=tuple(a for a in catalog.authors if not a.profiled)),
        _route("subjects/", "subjects.html", groups=_subject_groups(catalog.subjects)),
        _route("search/", "search.html"),
        _route("404.html", "404.html"),
    ]
    rank = {p.id: i for i, p in enumerate(by_rank)}
    ranked_subjects = {s.code: sorted(rank[pid] for pid in s.paper_ids) for s in catalog.subjects}
    ranked_authors = {a.id: tuple(sorted(rank[pid] for pid in a.paper_ids))
                      for a in catalog.authors}
    author_sets = {a: frozenset(ranks) for a, ranks in ranked_authors.items()
                   if len(ranks) > _LONG_LIST}
    routes += [_paper_route(catalog, p, rank, ranked_subjects, ranked_authors, author_sets,
                            by_rank) for p in catalog.papers]
    profiled = catalog.profiled_authors
    routes += [_author_route(catalog, profiled, a, [by_rank[r] for r in ranked_authors[a.id]])
               for a in catalog.authors]
    routes += [_route(subject_url(s.code), "subject.html", subject=s,
                      years=_grouped_by_year(by_rank[r] for r in ranked_subjects[s.code]),
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
    return _grouped_by_year(sorted(papers, key=_newest_first))


def _grouped_by_year(newest_first: Iterable[Paper]) -> tuple[tuple[int | None, tuple[Paper, ...]], ...]:
    """Papers already in site order (``plan_routes``' ranks), grouped by year."""
    return tuple((year, tuple(group)) for year, group in groupby(newest_first, key=_YEAR))


_YEAR = attrgetter("year")


def _newest_first(paper: Paper) -> tuple[bool, int, str]:
    return (paper.year is None, -(paper.year or 0), paper.title.casefold())


def _subject_groups(subjects: tuple[Subject, ...]) -> tuple[tuple[str, tuple[Subject, ...]], ...]:
    ordered = sorted(subjects, key=lambda s: (s.group, s.code))
    return tuple((g, tuple(members)) for g, members in groupby(ordered, key=lambda s: s.group))


def _paper_route(catalog: Catalog, paper: Paper, rank: Mapping[str, int],
                 ranked_subjects: Mapping[str, list[int]],
                 ranked_authors: Mapping[str, tuple[int, ...]],
                 author_sets: Mapping[str, frozenset[int]], by_rank: list[Paper]) -> Route:
    ids = paper.all_author_ids
    by_authors = _related(rank[paper.id], [ranked_authors[a] for a in ids],
                          [author_sets.get(a) for a in ids], by_rank)
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
    best = sorted(candidates.items(),  # a few dozen: cheaper than heapq.nsmallest
                  key=lambda kv: (-kv[1], abs(kv[0] - own), kv[0]))[:RELATED_LIMIT]
    return tuple(by_rank[r] for r, _ in best)


def _related(own: int, groups: list[tuple[int, ...]], sets: list[frozenset[int] | None],
             by_rank: list[Paper]) -> tuple[Paper, ...]:
    """Other papers ranked by how many of these authors they share, then newest first.

    ``groups`` are the authors' papers as ranks, sorted. Counting every paper of every author
    would cost the square of a prolific author's paper count summed over that author's
    papers, so the longest list is not counted: it is probed (through its set in ``sets``)
    for the papers of the other lists, and read from its start for papers it alone holds.
    """
    longest = max(range(len(groups)), key=lambda i: len(groups[i]), default=None)
    if longest is None:
        return ()
    counts = Counter(chain.from_iterable(g for i, g in enumerate(groups) if i != longest))
    probe = sets[longest]
    if probe is None:
        probe = frozenset(groups[longest])
    for candidate in counts:
        if candidate in probe:
            counts[candidate] += 1
    counts.pop(own, None)
    shared = sorted(counts.items())  # by rank
    shared.sort(key=itemgetter(1), reverse=True)  # most shared first; stable, so newest first
    best = shared[:RELATED_LIMIT]
    if len(best) < RELATED_LIMIT or best[-1][1] == 1:
        alone = [(r, 1) for r in _first_not_in(groups[longest], counts, own, RELATED_LIMIT)]
        best = sorted([kv for kv in best if kv[1] > 1] + sorted(
            [kv for kv in best if kv[1] == 1] + alone)[:RELATED_LIMIT],
            key=itemgetter(1), reverse=True)[:RELATED_LIMIT]
    return tuple(by_rank[r] for r, _ in best)


def _first_not_in(ranks: tuple[int, ...], counted: Mapping[int, int], own: int,
                  limit: int) -> list[int]:
    """The first ``limit`` ranks of a sorted list that are neither counted nor ``own``."""
    found: list[int] = []
    for r in ranks:
        if r != own and r not in counted:
            found.append(r)
            if len(found) == limit:
                break
    return found
def _author_route(catalog: Catalog, profiled: tuple[Author, ...], author: Author,
                  newest_first: list[Paper]) -> Route:
    papers = [catalog.paper(pid) for pid in author.paper_ids]
    coauthors = Counter(a for p in papers for a in p.all_author_ids if a != author.id)
    subjects = Counter(code for p in papers for code in p.subjects)
    profiled_with = tuple(a for a in profiled if a.id != author.id and a.id in coauthors)
    return _route(
        author_url(author.id), "author.html", author=author,
        years=_grouped_by_year(newest_first),
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
