"""Stage 3, planning: Catalog + Pages -> Routes, one per HTML file, decided before rendering.

A Route's context holds the frozen model objects its template shows, already grouped and
sorted, so templates only lay them out. Two routes on one output path is an error.

Given the previous call's ``RouteMemo`` (a watch-mode Builder keeps one), a plan redoes only
what an edit touched: a route made of the very objects it was made from last time is last
time's Route object, and the related-paper lists, the costly part, are computed again only
for papers whose authors, subjects or neighbours in date order changed. The result is equal
to a plan made from scratch, in the same order.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain, groupby
from operator import attrgetter
from typing import TypeVar

from site_gen.model import Author, Catalog, Paper, Subject
from site_gen.plan.related import LONG_LIST, by_authors, by_subject
from site_gen.plan.urls import (
    author_feed_url,
    author_url,
    list_page_url,
    output_path,
    paper_url,
    subject_feed_url,
    subject_url,
)
from site_gen.read.pages import Page
from site_gen.util.diagnostics import Diagnostic, error

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Route:
    """One output HTML file: its URL, where it is written, and what its template is given."""

    url: str
    output: str
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
        self.rank: dict[str, int] = {}
        """Paper id -> its place in ``order``."""
        self.papers: dict[str, _PaperPlan] = {}
        self.authors: dict[str, _AuthorPlan] = {}
        self.subjects: dict[str, Subject] = {}
        self.profiled: tuple[str, ...] = ()
        self.routes: dict[str, Route] = {}
        """The other routes (the lists, subjects, Markdown pages) by URL."""
        self.page_size = 0
        """The page size the plan split its lists by."""

    def remember(self, catalog: Catalog, ranks: _Ranks, papers: list[_PaperPlan],
                 authors: list[_AuthorPlan], routes: list[Route], page_size: int) -> None:
        """Hold this plan instead of the previous one."""
        self.page_size = page_size
        self.order, self.rank = ranks.order, ranks.rank
        self.papers = {plan.paper.id: plan for plan in papers}
        self.authors = {plan.author.id: plan for plan in authors}
        self.subjects = {s.code: s for s in catalog.subjects}
        self.profiled = tuple(a.id for a in catalog.profiled_authors)
        self.routes = {route.url: route for route in routes}


def plan_routes(
    catalog: Catalog, pages: tuple[Page, ...], recent: int = 10, memo: RouteMemo | None = None,
    page_size: int = 100,
) -> tuple[tuple[Route, ...], list[Diagnostic]]:
    """Every HTML page of the site, with collision checks.

    Lists longer than ``page_size`` papers (authors: ``AUTHORS_PER_PAPER`` times as many) are
    split into pages (``Pager``). ``memo`` holds the previous call's plan, which this one
    reuses where it still holds (see ``_Changes``); the call then replaces the memo's content
    with its own.
    """
    ranks = _Ranks.of(catalog)
    last = memo if memo is not None and memo.page_size == page_size else RouteMemo()
    changes = _Changes.of(last, catalog, ranks)
    index = _index_routes(catalog, ranks.by_rank, recent, page_size)
    papers = [_paper_plan(catalog, p, ranks, changes) for p in catalog.papers]
    profiled = {a.id: i for i, a in enumerate(catalog.profiled_authors)}
    authors = [_author_plan(catalog, profiled, a, ranks, changes, page_size)
               for a in catalog.authors]
    subjects = [route for s in catalog.subjects
                for route in _subject_routes(s, [ranks.by_rank[r] for r in ranks.subjects[s.code]],
                                             page_size)]
    own_pages = [_route(f"{p.slug}/", "page.html", p.source, page=p) for p in pages]
    others = [changes.same_as_before(r) for r in chain(index, subjects, own_pages)]
    if memo is not None:
        memo.remember(catalog, ranks, papers, authors, others, page_size)
    routes = (others[:len(index)] + [plan.route for plan in papers]
              + [route for plan in authors for route in plan.routes] + others[len(index):])
    return tuple(routes), _collisions(routes)


AUTHORS_PER_PAPER = 5
"""Authors on a page of the authors index per paper on a page of papers: a name weighs about
a fifth of a paper's list item."""


@dataclass(frozen=True, slots=True)
class Pager:
    """Where a page stands in a list split into pages (partials/pager.html lays it out)."""

    first: str
    """The URL of the list's first page, which is the list's own URL."""
    number: int
    """This page's number, from 1."""
    count: int
    """How many pages the list has (at least 1)."""

    def url(self, number: int) -> str:
        """The URL of page ``number`` of this list."""
        return list_page_url(self.first, number)

    @property
    def prev(self) -> str | None:
        return self.url(self.number - 1) if self.number > 1 else None

    @property
    def next(self) -> str | None:
        return self.url(self.number + 1) if self.number < self.count else None

    def numbers(self, around: int = 2) -> tuple[int | None, ...]:
        """The page numbers to link: the first, the last and ``around`` either side of this
        one, None where a run of numbers is left out (a single left-out number is shown)."""
        keep = sorted({1, self.count} | set(range(max(1, self.number - around),
                                                  min(self.count, self.number + around) + 1)))
        shown: list[int | None] = []
        for n in keep:
            if shown and n - (shown[-1] or 0) == 2:
                shown.append(n - 1)
            elif shown and n - (shown[-1] or 0) > 2:
                shown.append(None)
            shown.append(n)
        return tuple(shown)


def _paged(first: str, items: Sequence[T], size: int) -> list[tuple[Pager, Sequence[T]]]:
    """``items`` split into pages of ``size`` (one page, perhaps empty, when they fit)."""
    count = max(1, -(-len(items) // size))
    return [(Pager(first, n, count), items[(n - 1) * size:n * size]) for n in range(1, count + 1)]


def _index_routes(catalog: Catalog, by_rank: list[Paper], recent: int, size: int) -> list[Route]:
    """The home page and the lists of papers, authors and subjects, search and 404."""
    profiled = catalog.profiled_authors
    others = tuple(a for a in catalog.authors if not a.profiled)
    starts = _year_starts(by_rank, size)
    papers = [_route(pager.url(pager.number), "papers.html", pager=pager, total=len(by_rank),
                     year_pages=starts, **lists)
              for pager, lists in _paper_pages("papers/", by_rank, size)]
    authors = [_route(pager.url(pager.number), "authors.html", pager=pager,
                      profiled=tuple(a for a in page if a.profiled),
                      others=tuple(a for a in page if not a.profiled),
                      profiled_total=len(profiled), others_total=len(others))
               for pager, page in _paged("authors/", profiled + others, size * AUTHORS_PER_PAPER)]
    return [
        _route("", "index.html", profiled=profiled[:size], profiled_total=len(profiled),
               recent=tuple(by_rank[:recent]), subjects=catalog.subjects),
        *papers, *authors,
        _route("subjects/", "subjects.html", groups=_subject_groups(catalog.subjects)),
        _route("search/", "search.html"),
        _route("404.html", "404.html"),
    ]


def _year_starts(by_rank: Sequence[Paper], size: int) -> tuple[tuple[int | None, str], ...]:
    """Each year of the papers index with the URL of the page its first paper is on."""
    starts: dict[int | None, str] = {}
    for at, paper in enumerate(by_rank):
        if paper.year not in starts:
            starts[paper.year] = list_page_url("papers/", at // size + 1)
    return tuple(starts.items())


def _paper_pages(first: str, newest_first: Sequence[Paper], size: int
                 ) -> list[tuple[Pager, dict[str, object]]]:
    """A list of papers split into pages, each with its papers grouped by year (``years``),
    how many papers each of those years has in the whole list (``year_totals``: a year may
    run over pages), and whether its first year began on an earlier page (``continued``)."""
    totals = Counter(p.year for p in newest_first)
    pages = []
    for pager, page in _paged(first, newest_first, size):
        start = (pager.number - 1) * size
        years = _grouped_by_year(page)
        pages.append((pager, {
            "years": years, "year_totals": {year: totals[year] for year, _ in years},
            "continued": start > 0 and newest_first[start - 1].year == page[0].year}))
    return pages


def _subject_routes(subject: Subject, newest_first: list[Paper], size: int) -> list[Route]:
    """A subject's pages of papers."""
    return [_route(pager.url(pager.number), "subject.html", subject=subject, pager=pager,
                   feeds=((f"{subject.name}: new papers", subject_feed_url(subject.code)),),
                   **lists)
            for pager, lists in _paper_pages(subject_url(subject.code), newest_first, size)]


@dataclass(frozen=True, slots=True)
class _Ranks:
    """Papers newest first, and each subject's and author's papers as ranks in that order."""

    by_rank: list[Paper]
    order: tuple[str, ...]
    rank: dict[str, int]
    by_id: dict[str, Paper]
    subjects: dict[str, list[int]]
    authors: dict[str, tuple[int, ...]]
    author_sets: dict[str, frozenset[int]]
    """The papers of authors with more than ``LONG_LIST``, for probing (``by_authors``)."""

    @classmethod
    def of(cls, catalog: Catalog) -> _Ranks:
        by_rank = sorted(catalog.papers, key=_newest_first)
        order = tuple(p.id for p in by_rank)
        rank = {pid: i for i, pid in enumerate(order)}
        by_id = dict(zip(order, by_rank))
        subjects = {s.code: sorted(rank[pid] for pid in s.paper_ids) for s in catalog.subjects}
        authors = {a.id: tuple(sorted(rank[pid] for pid in a.paper_ids)) for a in catalog.authors}
        sets = {a: frozenset(ranks) for a, ranks in authors.items() if len(ranks) > LONG_LIST}
        return cls(by_rank, order, rank, by_id, subjects, authors, sets)


@dataclass(frozen=True, slots=True)
class _Changes:
    """What changed since the memo's plan: ids whose object is new, gone or another object.

    Catalogs are interned (incremental/cache.py), so an unchanged paper, author or subject is the very
    object it was, and a route made only of such objects can be last plan's Route. Related
    papers are kept as ids, valid while what they were computed from holds: papers that
    *moved* (new, gone, or sorted elsewhere by a new year or title) shift the ranks of others,
    which matters only to lists that count those papers or measure distances across them.
    """

    memo: RouteMemo
    ranks: _Ranks
    papers: set[str]
    authors: set[str]
    subjects: set[str]
    order_kept: bool
    """The papers that did not move are in their old order (else no ranked list is reused)."""
    tainted: set[str]
    """Authors of papers that moved."""
    shifted_before: list[int]
    """Old ranks of the papers that moved or changed subjects, sorted (``keeps_nearby``)."""
    shifted_now: list[int]
    """Their ranks now, sorted."""
    profiled_kept: bool
    """The unchanged profiled authors are in their old order."""

    @classmethod
    def of(cls, memo: RouteMemo, catalog: Catalog, ranks: _Ranks) -> _Changes:
        if not memo.order:  # nothing to reuse (nor to compare with)
            return cls(memo, ranks, set(), set(), set(), False, set(), [], [], False)
        papers = {p.id for p in catalog.papers
                  if (plan := memo.papers.get(p.id)) is None or plan.paper is not p}
        papers.update(memo.papers.keys() - ranks.rank.keys())
        authors = {a.id for a in catalog.authors
                   if (done := memo.authors.get(a.id)) is None or done.author is not a}
        authors.update(memo.authors.keys() - ranks.authors.keys())
        subjects = {s.code for s in catalog.subjects if memo.subjects.get(s.code) is not s}
        subjects.update(memo.subjects.keys() - ranks.subjects.keys())
        moved = _moved(memo, catalog, ranks, papers)
        order_kept = not moved or ([i for i in memo.order if i not in moved]
                                   == [i for i in ranks.order if i not in moved])
        tainted = {a for i in moved for p in _versions(memo, catalog, ranks, i)
                   for a in p.all_author_ids}
        shifted = moved | _resubjected(memo, catalog, ranks, papers)
        profiled_kept = ([a for a in memo.profiled if a not in authors]
                         == [a.id for a in catalog.profiled_authors if a.id not in authors])
        return cls(memo, ranks, papers, authors, subjects, order_kept, tainted,
                   sorted(memo.rank[i] for i in shifted if i in memo.rank),
                   sorted(ranks.rank[i] for i in shifted if i in ranks.rank), profiled_kept)

    def keeps_related(self, paper: Paper, old: _PaperPlan) -> bool:
        """Are the papers related by authors those of ``old``? (Same authors, and none of
        their papers moved, so ranks among those papers are as they were.)"""
        ids = paper.all_author_ids
        return (self.order_kept and old.paper.all_author_ids == ids
                and self.authors.isdisjoint(ids) and self.tainted.isdisjoint(ids))

    def keeps_nearby(self, paper: Paper, old: _PaperPlan
                     ) -> tuple[tuple[str, ...], tuple[int, int]] | None:
        """The papers ``old`` relates by subject, and the span of ranks they were read from,
        now; None when they may differ.

        A span that holds no paper that moved or changed subjects, before or now, holds the
        same papers in the same order (the others kept theirs), perhaps shifted as a whole:
        each subject's neighbours, and their distances, are as they were.
        """
        if not self.order_kept or old.paper.subjects != paper.subjects:
            return None
        if not self.shifted_before and not self.shifted_now:
            return old.nearby, old.span
        lo, hi = old.span
        if _any_within(self.shifted_before, lo, hi):
            return None
        start = 0 if lo == 0 else self.ranks.rank[self.memo.order[lo]]
        end = (len(self.ranks.order) - 1 if hi == len(self.memo.order) - 1
               else self.ranks.rank[self.memo.order[hi]])
        return None if _any_within(self.shifted_now, start, end) else (old.nearby, (start, end))

    def keeps_route(self, paper: Paper, old: _PaperPlan, related: tuple[str, ...],
                    nearby: tuple[str, ...]) -> bool:
        """Does ``old``'s route show exactly these objects?"""
        return (old.paper is paper and related == old.related and nearby == old.nearby
                and self.authors.isdisjoint(paper.all_author_ids)
                and self.subjects.isdisjoint(paper.subjects)
                and self.papers.isdisjoint(related) and self.papers.isdisjoint(nearby))

    def keeps_author(self, author: Author, old: _AuthorPlan) -> bool:
        """Does ``old``'s route show the very objects this author's would? (The author, its
        papers, co-authors and subjects; the papers in rank order, and the profiled among the
        co-authors in their order, which hold as long as the others kept theirs.)"""
        return (old.author is author and self.papers.isdisjoint(author.paper_ids)
                and self.authors.isdisjoint(old.coauthors)
                and self.subjects.isdisjoint(old.subjects))

    def same_as_before(self, route: Route) -> Route:
        """Last plan's route for this URL when it is equal, so the renderer sees it is."""
        old = self.memo.routes.get(route.url)
        return old if old is not None and _same_route(old, route) else route


def _moved(memo: RouteMemo, catalog: Catalog, ranks: _Ranks, changed: set[str]) -> set[str]:
    """Changed papers that are new, gone, or sort differently (none when no rank changed)."""
    if ranks.order == memo.order:
        return set()
    return {i for i in changed if i not in memo.papers or i not in ranks.rank
            or _newest_first(memo.papers[i].paper) != _newest_first(catalog.paper(i))}


def _resubjected(memo: RouteMemo, catalog: Catalog, ranks: _Ranks, changed: set[str]
                 ) -> set[str]:
    """Changed papers, in both plans, whose subjects changed."""
    return {i for i in changed if i in memo.papers and i in ranks.rank
            and memo.papers[i].paper.subjects != catalog.paper(i).subjects}


def _versions(memo: RouteMemo, catalog: Catalog, ranks: _Ranks, paper_id: str) -> list[Paper]:
    """The paper as the memo's plan had it and as it is now, where it exists."""
    before = memo.papers.get(paper_id)
    return ([before.paper] if before is not None else []) + (
        [catalog.paper(paper_id)] if paper_id in ranks.rank else [])


def _any_within(sorted_ranks: list[int], lo: int, hi: int) -> bool:
    """Is any of these ranks between lo and hi (inclusive)?"""
    at = bisect.bisect_left(sorted_ranks, lo)
    return at < len(sorted_ranks) and sorted_ranks[at] <= hi


def _route(url: str, template: str, source: str = "", /, **context: object) -> Route:
    return Route(url, output_path(url), template, context, source)


def _collisions(routes: Iterable[Route]) -> list[Diagnostic]:
    seen: dict[str, Route] = {}
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
    """A paper's route, with what the next plan needs to tell whether it still holds."""

    paper: Paper
    route: Route
    related: tuple[str, ...]
    """Ids of the papers related by authors."""
    nearby: tuple[str, ...]
    """Ids of the papers related by subject."""
    span: tuple[int, int]
    """The ranks those were read from (``related.by_subject``)."""


def _paper_plan(catalog: Catalog, paper: Paper, ranks: _Ranks, changes: _Changes) -> _PaperPlan:
    """Last plan's when the paper, its authors, subjects and related papers are the same;
    its related papers are looked for again only where they may differ."""
    old = changes.memo.papers.get(paper.id)
    related = old.related if old is not None and changes.keeps_related(paper, old) else None
    kept = changes.keeps_nearby(paper, old) if old is not None else None
    if related is None:
        ids = paper.all_author_ids
        related = _ids(ranks, by_authors(ranks.rank[paper.id], [ranks.authors[a] for a in ids],
                                         [ranks.author_sets.get(a) for a in ids]))
    if kept is None:
        found, span = by_subject(ranks.rank[paper.id], [ranks.subjects[c] for c in paper.subjects],
                                 len(ranks.order))
        kept = _ids(ranks, found), span
    nearby, span = kept
    if old is not None and changes.keeps_route(paper, old, related, nearby):
        return old if span == old.span else replace(old, span=span)
    return _PaperPlan(paper, _paper_route(catalog, ranks, paper, related, nearby), related, nearby,
                      span)


def _ids(ranks: _Ranks, found: Iterable[int]) -> tuple[str, ...]:
    return tuple(map(ranks.order.__getitem__, found))


def _paper_route(catalog: Catalog, ranks: _Ranks, paper: Paper, related: tuple[str, ...],
                 nearby: tuple[str, ...]) -> Route:
    return _route(
        paper_url(paper.id), "paper.html", paper=paper,
        authors=tuple(map(catalog.author, paper.author_ids)),
        extra_authors=tuple(map(catalog.author, paper.extra_author_ids)),
        subjects=tuple(map(catalog.subject, paper.subjects)),
        related_by_authors=tuple(map(ranks.by_id.__getitem__, related)),
        related_by_subject=tuple(map(ranks.by_id.__getitem__, nearby)),
    )


@dataclass(frozen=True, slots=True)
class _AuthorPlan:
    """An author's routes (its pages of papers), and the co-authors and subjects it counts
    (for the next plan)."""

    author: Author
    routes: tuple[Route, ...]
    coauthors: tuple[str, ...]
    subjects: tuple[str, ...]


def _author_plan(catalog: Catalog, profiled: Mapping[str, int], author: Author,
                 ranks: _Ranks, changes: _Changes, size: int) -> _AuthorPlan:
    """Last plan's when the author and everything its page shows are the same objects."""
    old = changes.memo.authors.get(author.id)
    if old is None or not changes.keeps_author(author, old):
        return _new_author_plan(catalog, profiled, author, ranks, size)
    if changes.order_kept and changes.profiled_kept:
        return old
    plan = _new_author_plan(catalog, profiled, author, ranks, size)  # its lists may be reordered
    if len(plan.routes) == len(old.routes) and all(map(_same_route, plan.routes, old.routes)):
        return replace(plan, routes=old.routes)
    return plan


def _same_route(old: Route, new: Route) -> bool:
    """Equal routes whose authors and subjects list the same papers: their equality leaves
    the lists out (model.py), and a page may show them."""
    return old == new and _paper_lists(old.context) == _paper_lists(new.context)


def _paper_lists(value: object) -> list[tuple[str, ...]]:
    """The paper list of every author and subject in a route's context, in a fixed order."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if type(item) is Paper:  # most of them: the papers index lists thousands
            continue
        if isinstance(item, (Author, Subject)):
            found.append(item.members)
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def _new_author_plan(catalog: Catalog, profiled: Mapping[str, int], author: Author,
                     ranks: _Ranks, size: int) -> _AuthorPlan:
    """``profiled``: each profiled author's place in the site's order of them. The profiled
    co-authors are found among the co-authors, not the other way round: every author
    scanning every profiled one cost 33 million probes at 100,000 papers."""
    papers = [catalog.paper(pid) for pid in author.paper_ids]
    newest_first = [ranks.by_rank[r] for r in ranks.authors[author.id]]
    coauthors = Counter(a for p in papers for a in p.all_author_ids if a != author.id)
    subjects = Counter(code for p in papers for code in p.subjects)
    profiled_with = tuple(map(catalog.author, sorted(
        (a for a in coauthors if a in profiled), key=profiled.__getitem__)))
    whole = {"author": author, "paper_count": len(papers), "year_counts": year_counts(papers),
             "feeds": ((f"{author.name}: new papers", author_feed_url(author.id)),)}
    overview = {
        "coauthors": tuple((catalog.author(a), n) for a, n in sorted(
            coauthors.items(), key=lambda kv: (-kv[1], catalog.author(kv[0]).name))[:COAUTHORS]),
        "coauthor_total": len(coauthors),
        "subject_counts": tuple((catalog.subject(c), n) for c, n in
                                sorted(subjects.items(), key=lambda kv: (-kv[1], kv[0]))),
        "profiled_with": profiled_with}
    routes = tuple(_route(pager.url(pager.number), "author.html", pager=pager, **whole, **lists,
                          **(overview if pager.number == 1 else _NO_OVERVIEW))
                   for pager, lists in _paper_pages(author_url(author.id), newest_first, size))
    return _AuthorPlan(author, routes, tuple(coauthors), tuple(subjects))


COAUTHORS = 200
"""Co-authors named on an author's page, most joint papers first: at 100,000 papers a
prolific author has thousands, which made a 290 KB list. The page says how many more there are."""

_NO_OVERVIEW: dict[str, object] = {"coauthors": (), "coauthor_total": 0, "subject_counts": (),
                                   "profiled_with": ()}
"""An author's later pages list papers only: co-authors and subjects are on the first."""


def year_counts(papers: Iterable[Paper]) -> tuple[tuple[int, int], ...]:
    """(year, papers) for every year from the first to the last, gaps included as zero."""
    counts = Counter(p.year for p in papers if p.year is not None)
    if not counts:
        return ()
    return tuple((y, counts.get(y, 0)) for y in range(min(counts), max(counts) + 1))
