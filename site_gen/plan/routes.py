"""Stage 3, planning: Catalog + Pages -> Routes, one per HTML file, decided before rendering.

A Route's context holds the frozen model objects its template shows, already grouped and
sorted, so templates only lay them out. Two routes on one output path is an error.

``plan_routes`` is the definition: it plans every route from the catalog each time. Its parts
(``index_routes``, ``paper_route``, ``author_routes``, the related papers, ...) are public
because ``incremental.routes.RouteMemo`` (watch mode) plans with them, reusing last plan's
routes where what they show did not change; property tests hold it to ``plan_routes``.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import attrgetter
from typing import TypeVar, cast

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
from site_gen.util.bidi import balance_bidi
from site_gen.util.diagnostics import Diagnostic, error
from site_gen.util.pickling import pickled_by_fields

T = TypeVar("T")


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Route:
    """One output HTML file: its URL, where it is written, and what its template is given."""

    url: str
    output: str
    template: str
    context: Mapping[str, object]
    source: str = ""


def plan_routes(catalog: Catalog, pages: tuple[Page, ...], recent: int = 10, page_size: int = 100
                ) -> tuple[tuple[Route, ...], list[Diagnostic]]:
    """Every HTML page of the site, with collision checks.

    Lists longer than ``page_size`` papers (authors: ``AUTHORS_PER_PAPER`` times as many) are
    split into pages (``Pager``).
    """
    ranks = Ranks.of(catalog)
    profiled = profiled_places(catalog)
    routes = [*index_routes(catalog, ranks.by_rank, recent, page_size),
              *(paper_route(catalog, ranks, paper, related_by_authors(ranks, paper),
                            related_by_subject(ranks, paper)[0]) for paper in catalog.papers),
              *(route for author in catalog.authors
                for route in author_routes(catalog, profiled, author, ranks, page_size)[0]),
              *subject_routes(catalog, ranks, page_size), *map(page_route, pages)]
    return tuple(routes), collisions(routes)


AUTHORS_PER_PAPER = 5
"""Authors on a page of the authors index per paper on a page of papers: a name weighs about
a fifth of a paper's list item."""


@pickled_by_fields
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
    return _pages(first, items, list(range(0, len(items), size)) or [0])


def _pages(first: str, items: Sequence[T], starts: list[int]) -> list[tuple[Pager, Sequence[T]]]:
    """``items`` split into pages where ``starts`` (ascending, from 0) says."""
    ends = [*starts[1:], len(items)]
    return [(Pager(first, n, len(starts)), items[start:end])
            for n, (start, end) in enumerate(zip(starts, ends), 1)]


def paper_page_starts(papers: Sequence[Paper], size: int) -> list[int]:
    """Where each page of a list of papers starts.

    A list of at most ``size`` papers is one page. A longer one breaks before papers chosen
    by their id alone (a CRC-32 that is a multiple of about half of ``size``), once a page
    holds at least half of ``size`` and leaves as many for the last page; a page that
    reaches one and a half times ``size`` without such a paper breaks there. Pages so hold
    about ``size`` papers (1,000 lists of 10,000 papers in pages of 100: between 50 and 150,
    93 on average), and adding or removing a paper changes the page it is on, seldom the
    next. Breaking every ``size`` papers moved every paper after an edit to another page: a
    rebuild rendered, and a deploy uploaded, every later page (101 of the papers index at
    10,000 papers)."""
    total = len(papers)
    if total <= size:
        return [0]
    least = max(1, size // 2)
    most, every = size + size // 2, size - least + 1
    starts = [0]
    while total - starts[-1] > most:
        end, limit = starts[-1] + least, min(starts[-1] + most, total - least)
        while end < limit and zlib.crc32(papers[end].id.encode()) % every:
            end += 1
        starts.append(end)
    return starts


def index_routes(catalog: Catalog, by_rank: list[Paper], recent: int, size: int) -> list[Route]:
    """The home page and the lists of papers, authors and subjects, search and 404."""
    profiled = catalog.profiled_authors
    others = tuple(a for a in catalog.authors if not a.profiled)
    pages = _paper_pages("papers/", by_rank, size)
    starts = _year_starts(pages)
    papers = [_route(pager.url(pager.number), "papers.html", pager=pager, year_pages=starts,
                     **({"total": len(by_rank)} if pager.number == 1 else {}), **lists)
              for pager, lists in pages]
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


def _year_starts(pages: list[tuple[Pager, dict[str, object]]]
                 ) -> tuple[tuple[int | None, str], ...]:
    """Each year of the papers index with the URL of the page its first paper is on."""
    starts: dict[int | None, str] = {}
    for pager, lists in pages:
        for year, _ in cast("tuple[tuple[int | None, object], ...]", lists["years"]):
            starts.setdefault(year, pager.url(pager.number))
    return tuple(starts.items())


def _paper_pages(first: str, newest_first: Sequence[Paper], size: int
                 ) -> list[tuple[Pager, dict[str, object]]]:
    """A list of papers split into pages (``paper_page_starts``), each with its papers
    grouped by year (``years``), how many papers each year that begins on this page has in
    the whole list (``year_totals``: a year may run over pages), and whether its first year
    began on an earlier page (``continued``; that year's count is where it begins, so that
    a paper added to a year changes one heading, not one on every page the year runs over)."""
    totals = Counter(p.year for p in newest_first)
    starts = paper_page_starts(newest_first, size)
    pages = []
    for (pager, page), start in zip(_pages(first, newest_first, starts), starts):
        years = _grouped_by_year(page)
        continued = start > 0 and newest_first[start - 1].year == page[0].year
        pages.append((pager, {
            "years": years, "continued": continued,
            "year_totals": {year: totals[year] for year, _ in years[1 if continued else 0:]}}))
    return pages


def subject_routes(catalog: Catalog, ranks: Ranks, size: int) -> list[Route]:
    """Every subject's pages of papers."""
    return [route for s in catalog.subjects for route in subject_pages(s, ranks, size)]


def subject_pages(subject: Subject, ranks: Ranks, size: int) -> list[Route]:
    """A subject's pages of papers."""
    return _subject_pages(subject, [ranks.by_rank[r] for r in ranks.subjects[subject.code]], size)


def page_route(page: Page) -> Route:
    """The route of a Markdown page of the project's own."""
    return _route(f"{page.slug}/", "page.html", page.source, page=page)


def _subject_pages(subject: Subject, newest_first: list[Paper], size: int) -> list[Route]:
    """A subject's pages of papers."""
    return [_route(pager.url(pager.number), "subject.html", subject=subject, pager=pager,
                   feeds=((f"{subject.name}: new papers", subject_feed_url(subject.code)),),
                   **lists)
            for pager, lists in _paper_pages(subject_url(subject.code), newest_first, size)]


@dataclass(frozen=True, slots=True)
class Ranks:
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
    def of(cls, catalog: Catalog) -> Ranks:
        by_rank = sorted(catalog.papers, key=newest_first)
        order = tuple(p.id for p in by_rank)
        rank = {pid: i for i, pid in enumerate(order)}
        by_id = dict(zip(order, by_rank))
        subjects = {s.code: sorted(rank[pid] for pid in s.paper_ids) for s in catalog.subjects}
        authors = {a.id: tuple(sorted(rank[pid] for pid in a.paper_ids)) for a in catalog.authors}
        sets = {a: frozenset(ranks) for a, ranks in authors.items() if len(ranks) > LONG_LIST}
        return cls(by_rank, order, rank, by_id, subjects, authors, sets)


def _route(url: str, template: str, source: str = "", /, **context: object) -> Route:
    return Route(url, output_path(url), template, context, source)


def collisions(routes: Iterable[Route]) -> list[Diagnostic]:
    """An error for each route whose output file an earlier route writes already."""
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
    return _grouped_by_year(sorted(papers, key=newest_first))


def _grouped_by_year(newest_first: Iterable[Paper]) -> tuple[tuple[int | None, tuple[Paper, ...]], ...]:
    """Papers already in site order (``plan_routes``' ranks), grouped by year."""
    return tuple((year, tuple(group)) for year, group in groupby(newest_first, key=_YEAR))


_YEAR = attrgetter("year")


def newest_first(paper: Paper) -> tuple[bool, int, str]:
    """The site's order of papers: newest first, undated last, then by title."""
    return (paper.year is None, -(paper.year or 0), paper.title.casefold())


def _subject_groups(subjects: tuple[Subject, ...]) -> tuple[tuple[str, tuple[Subject, ...]], ...]:
    ordered = sorted(subjects, key=lambda s: (s.group, s.code))
    return tuple((g, tuple(members)) for g, members in groupby(ordered, key=lambda s: s.group))


def profiled_places(catalog: Catalog) -> dict[str, int]:
    """Each profiled author's place in the site's order of them (``author_routes``)."""
    return {a.id: i for i, a in enumerate(catalog.profiled_authors)}


def related_by_authors(ranks: Ranks, paper: Paper) -> tuple[str, ...]:
    """The ids of the papers a paper's page relates to it by shared authors."""
    ids = paper.all_author_ids
    return _ids(ranks, by_authors(ranks.rank[paper.id], [ranks.authors[a] for a in ids],
                                  [ranks.author_sets.get(a) for a in ids]))


def related_by_subject(ranks: Ranks, paper: Paper) -> tuple[tuple[str, ...], tuple[int, int]]:
    """The ids of the papers a paper's page relates to it by subject, and the span of ranks
    they were read from (``related.by_subject``)."""
    found, span = by_subject(ranks.rank[paper.id], [ranks.subjects[c] for c in paper.subjects],
                             len(ranks.order))
    return _ids(ranks, found), span


def _ids(ranks: Ranks, found: Iterable[int]) -> tuple[str, ...]:
    return tuple(map(ranks.order.__getitem__, found))


def paper_route(catalog: Catalog, ranks: Ranks, paper: Paper, related: tuple[str, ...],
                nearby: tuple[str, ...]) -> Route:
    """A paper's page, showing the papers ``related`` (by authors) and ``nearby`` (by subject)."""
    return _route(
        paper_url(paper.id), "paper.html", paper=paper,
        authors=tuple(map(catalog.author, paper.author_ids)),
        extra_authors=tuple(map(catalog.author, paper.extra_author_ids)),
        subjects=tuple(map(catalog.subject, paper.subjects)),
        related_by_authors=tuple(map(ranks.by_id.__getitem__, related)),
        related_by_subject=tuple(map(ranks.by_id.__getitem__, nearby)),
    )


def author_routes(catalog: Catalog, profiled: Mapping[str, int], author: Author, ranks: Ranks,
                  size: int) -> tuple[tuple[Route, ...], tuple[str, ...], tuple[str, ...]]:
    """An author's pages of papers, with the ids of the co-authors and the subjects they count.

    ``profiled``: each profiled author's place in the site's order of them. The profiled
    co-authors are found among the co-authors, not the other way round: every author
    scanning every profiled one cost 33 million probes at 100,000 papers."""
    papers = [catalog.paper(pid) for pid in author.paper_ids]
    newest_first = [ranks.by_rank[r] for r in ranks.authors[author.id]]
    coauthors = Counter(a for p in papers for a in p.all_author_ids if a != author.id)
    subjects = Counter(code for p in papers for code in p.subjects)
    profiled_with = tuple(map(catalog.author, sorted(
        (a for a in coauthors if a in profiled), key=profiled.__getitem__)))
    whole = {"author": author, "paper_count": len(papers), "year_counts": year_counts(papers),
             "feeds": ((f"{balance_bidi(author.name)}: new papers",  # a plain-text title
                        author_feed_url(author.id)),)}
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
    return routes, tuple(coauthors), tuple(subjects)


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
