"""Stage 3, planning: Catalog + Pages -> Routes, one per HTML file, decided before rendering.

A Route's context holds the frozen model objects its template shows, already grouped and
sorted, so templates only lay them out. Two routes on one output path is an error.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
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


class RouteMemo:
    """The last ``plan_routes`` call's plan, which the next call reuses where nothing changed.

    Only ever one call's: each call replaces the content, so a long watch session keeps one
    plan (about what its routes hold anyway), never a history.
    """

    def __init__(self) -> None:
        self.order: tuple[str, ...] = ()
        """Paper ids, newest first."""
        self.papers: dict[str, _PaperPlan] = {}
        self.authors: dict[str, _AuthorPlan] = {}
        self.subjects: dict[str, Subject] = {}
        self.profiled: tuple[str, ...] = ()
        self.routes: dict[str, Route] = {}
        """The other routes (the lists, subjects, Markdown pages) by URL."""

    def remember(self, catalog: Catalog, ranks: _Ranks, papers: list[_PaperPlan],
                 authors: list[_AuthorPlan], routes: list[Route]) -> None:
        """Hold this plan instead of the previous one."""
        self.order = ranks.order
        self.papers = {plan.paper.id: plan for plan in papers}
        self.authors = {plan.author.id: plan for plan in authors}
        self.subjects = {s.code: s for s in catalog.subjects}
        self.profiled = tuple(a.id for a in catalog.profiled_authors)
        self.routes = {route.url: route for route in routes}


def plan_routes(
    catalog: Catalog, pages: tuple[Page, ...], recent: int = 10, memo: RouteMemo | None = None
) -> tuple[tuple[Route, ...], list[Diagnostic]]:
    """Every HTML page of the site, with collision checks.

    ``memo`` (the previous call's, kept by a Builder in watch mode) lets a route whose inputs
    are the very objects it was planned from last time be that call's Route object again;
    the call then replaces the memo's content with its own.
    """
    ranks = _Ranks.of(catalog)
    changes = _Changes.of(memo or RouteMemo(), catalog, ranks)
    index = _index_routes(catalog, ranks.by_rank, recent)
    papers = [_paper_plan(catalog, p, ranks, changes) for p in catalog.papers]
    profiled = catalog.profiled_authors
    authors = [_author_plan(catalog, profiled, a, ranks, changes) for a in catalog.authors]
    subjects = [_route(subject_url(s.code), "subject.html", subject=s,
                       years=_grouped_by_year(ranks.by_rank[r] for r in ranks.subjects[s.code]),
                       feeds=((f"{s.name}: new papers", subject_feed_url(s.code)),))
                for s in catalog.subjects]
    own_pages = [_route(f"{p.slug}/", "page.html", page=p, source=p.source) for p in pages]
    others = [changes.same_as_before(r) for r in chain(index, subjects, own_pages)]
    if memo is not None:
        memo.remember(catalog, ranks, papers, authors, others)
    routes = (others[:len(index)] + [plan.route for plan in papers]
              + [plan.route for plan in authors] + others[len(index):])
    return tuple(routes), _collisions(routes)


def _index_routes(catalog: Catalog, by_rank: list[Paper], recent: int) -> list[Route]:
    """The home page and the lists of papers, authors and subjects, search and 404."""
    return [
        _route("", "index.html", profiled=catalog.profiled_authors,
               recent=tuple(by_rank[:recent]), subjects=catalog.subjects),
        _route("papers/", "papers.html", years=_grouped_by_year(by_rank)),
        _route("authors/", "authors.html", profiled=catalog.profiled_authors,
               others=tuple(a for a in catalog.authors if not a.profiled)),
        _route("subjects/", "subjects.html", groups=_subject_groups(catalog.subjects)),
        _route("search/", "search.html"),
        _route("404.html", "404.html"),
    ]


@dataclass(frozen=True, slots=True)
class _Ranks:
    """Papers newest first, and each subject's and author's papers as ranks in that order."""

    by_rank: list[Paper]
    order: tuple[str, ...]
    rank: dict[str, int]
    subjects: dict[str, list[int]]
    authors: dict[str, tuple[int, ...]]
    author_sets: dict[str, frozenset[int]]
    """The papers of authors with more than ``_LONG_LIST``, for probing (``_related``)."""

    @classmethod
    def of(cls, catalog: Catalog) -> _Ranks:
        by_rank = sorted(catalog.papers, key=_newest_first)
        order = tuple(p.id for p in by_rank)
        rank = {pid: i for i, pid in enumerate(order)}
        subjects = {s.code: sorted(rank[pid] for pid in s.paper_ids) for s in catalog.subjects}
        authors = {a.id: tuple(sorted(rank[pid] for pid in a.paper_ids)) for a in catalog.authors}
        sets = {a: frozenset(ranks) for a, ranks in authors.items() if len(ranks) > _LONG_LIST}
        return cls(by_rank, order, rank, subjects, authors, sets)


@dataclass(frozen=True, slots=True)
class _Changes:
    """What changed since the memo's plan: ids whose object is new, gone or another object.

    Catalogs are interned (cache.py), so an unchanged paper, author or subject is the very
    object it was, and a route made only of such objects can be last plan's Route.
    """

    memo: RouteMemo
    papers: set[str]
    authors: set[str]
    subjects: set[str]
    ranks_kept: bool
    """Every paper has its old rank, so lists computed over ranks hold as they were."""
    profiled_kept: bool
    """The unchanged profiled authors are in their old order."""

    @classmethod
    def of(cls, memo: RouteMemo, catalog: Catalog, ranks: _Ranks) -> _Changes:
        if not memo.order:  # nothing to reuse (nor to compare with)
            return cls(memo, set(), set(), set(), False, False)
        papers = {p.id for p in catalog.papers
                  if (plan := memo.papers.get(p.id)) is None or plan.paper is not p}
        papers.update(memo.papers.keys() - ranks.rank.keys())
        authors = {a.id for a in catalog.authors
                   if (done := memo.authors.get(a.id)) is None or done.author is not a}
        authors.update(memo.authors.keys() - ranks.authors.keys())
        subjects = {s.code for s in catalog.subjects if memo.subjects.get(s.code) is not s}
        subjects.update(memo.subjects.keys() - ranks.subjects.keys())
        profiled_kept = ([a for a in memo.profiled if a not in authors]
                         == [a.id for a in catalog.profiled_authors if a.id not in authors])
        return cls(memo, papers, authors, subjects, ranks.order == memo.order, profiled_kept)

    def keeps_related(self, paper: Paper, old: _PaperPlan) -> bool:
        """Are the papers related by authors those of ``old``? (Same authors, same ranks.)"""
        ids = paper.all_author_ids
        return self.ranks_kept and old.paper.all_author_ids == ids and self.authors.isdisjoint(ids)

    def keeps_nearby(self, paper: Paper, old: _PaperPlan) -> bool:
        """Are the papers related by subject those of ``old``? (Same subjects, same ranks.)"""
        return (self.ranks_kept and old.paper.subjects == paper.subjects
                and self.subjects.isdisjoint(paper.subjects))

    def keeps_author(self, author: Author, old: _AuthorPlan) -> bool:
        """Is ``old``'s route this author's? (It holds the author, its papers in rank order,
        its co-authors, subjects and the profiled among its co-authors.)"""
        return (old.author is author and self.ranks_kept and self.profiled_kept
                and self.papers.isdisjoint(author.paper_ids)
                and self.authors.isdisjoint(old.coauthors)
                and self.subjects.isdisjoint(old.subjects))

    def same_as_before(self, route: Route) -> Route:
        """Last plan's route for this URL when it is equal, so the renderer sees it is."""
        old = self.memo.routes.get(route.url)
        return old if old is not None and old == route else route


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
_ID = attrgetter("id")


def _newest_first(paper: Paper) -> tuple[bool, int, str]:
    return (paper.year is None, -(paper.year or 0), paper.title.casefold())


def _subject_groups(subjects: tuple[Subject, ...]) -> tuple[tuple[str, tuple[Subject, ...]], ...]:
    ordered = sorted(subjects, key=lambda s: (s.group, s.code))
    return tuple((g, tuple(members)) for g, members in groupby(ordered, key=lambda s: s.group))


@dataclass(frozen=True, slots=True)
class _PaperPlan:
    """A paper's route, and the ids of the related papers it lists (for the next plan)."""

    paper: Paper
    route: Route
    related: tuple[str, ...]
    nearby: tuple[str, ...]


def _paper_plan(catalog: Catalog, paper: Paper, ranks: _Ranks, changes: _Changes) -> _PaperPlan:
    """Last plan's when the paper, its authors, subjects and related papers are the same."""
    old = changes.memo.papers.get(paper.id)
    if old is None:
        return _new_paper_plan(catalog, paper, ranks)
    related = old.related if changes.keeps_related(paper, old) else None
    nearby = old.nearby if changes.keeps_nearby(paper, old) else None
    if (old.paper is paper and related is not None and nearby is not None
            and changes.papers.isdisjoint(related) and changes.papers.isdisjoint(nearby)):
        return old
    plan = _new_paper_plan(catalog, paper, ranks, related, nearby)
    return replace(plan, route=old.route) if plan.route == old.route else plan


def _new_paper_plan(catalog: Catalog, paper: Paper, ranks: _Ranks,
                    related: tuple[str, ...] | None = None,
                    nearby: tuple[str, ...] | None = None) -> _PaperPlan:
    """The paper's route; related papers given by id are not looked for again."""
    if related is None:
        ids = paper.all_author_ids
        by_authors = _related(ranks.rank[paper.id], [ranks.authors[a] for a in ids],
                              [ranks.author_sets.get(a) for a in ids], ranks.by_rank)
    else:
        by_authors = tuple(catalog.paper(pid) for pid in related)
    by_subject = (_nearby_in_subjects(paper, ranks.rank, ranks.subjects, ranks.by_rank)
                  if nearby is None else tuple(catalog.paper(pid) for pid in nearby))
    route = _route(
        paper_url(paper.id), "paper.html", paper=paper,
        authors=tuple(catalog.author(a) for a in paper.author_ids),
        extra_authors=tuple(catalog.author(a) for a in paper.extra_author_ids),
        subjects=tuple(catalog.subject(c) for c in paper.subjects),
        related_by_authors=by_authors,
        related_by_subject=by_subject,
    )
    return _PaperPlan(paper, route, tuple(map(_ID, by_authors)), tuple(map(_ID, by_subject)))


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
@dataclass(frozen=True, slots=True)
class _AuthorPlan:
    """An author's route, and the co-authors and subjects it counts (for the next plan)."""

    author: Author
    route: Route
    coauthors: tuple[str, ...]
    subjects: tuple[str, ...]


def _author_plan(catalog: Catalog, profiled: tuple[Author, ...], author: Author,
                 ranks: _Ranks, changes: _Changes) -> _AuthorPlan:
    """Last plan's when the author and everything its page shows are the same objects."""
    old = changes.memo.authors.get(author.id)
    if old is not None and changes.keeps_author(author, old):
        return old
    plan = _new_author_plan(catalog, profiled, author,
                            [ranks.by_rank[r] for r in ranks.authors[author.id]])
    return replace(plan, route=old.route) if old is not None and plan.route == old.route else plan


def _new_author_plan(catalog: Catalog, profiled: tuple[Author, ...], author: Author,
                     newest_first: list[Paper]) -> _AuthorPlan:
    papers = [catalog.paper(pid) for pid in author.paper_ids]
    coauthors = Counter(a for p in papers for a in p.all_author_ids if a != author.id)
    subjects = Counter(code for p in papers for code in p.subjects)
    profiled_with = tuple(a for a in profiled if a.id != author.id and a.id in coauthors)
    route = _route(
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
    return _AuthorPlan(author, route, tuple(coauthors), tuple(subjects))


def year_counts(papers: Iterable[Paper]) -> tuple[tuple[int, int], ...]:
    """(year, papers) for every year from the first to the last, gaps included as zero."""
    counts = Counter(p.year for p in papers if p.year is not None)
    if not counts:
        return ()
    return tuple((y, counts.get(y, 0)) for y in range(min(counts), max(counts) + 1))
