"""The planning stage for a Builder that rebuilds: ``plan.routes.plan_routes``, remembered.

``RouteMemo.plan`` returns what ``plan_routes`` returns (it is the specification;
tests/test_incremental_routes.py holds the memo to it on random edit sequences), in the same
order. It plans with the same parts, but redoes only what an edit touched: a route made of
the very objects it was made from last time is last time's Route object (so the renderer
sees it is), and the related-paper lists, the costly part, are computed again only for
papers whose authors, subjects or neighbours in date order changed.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import cast

from site_gen.model import Author, Catalog, Paper, Subject
from site_gen.plan.routes import (
    Ranks,
    Route,
    author_routes,
    collisions,
    index_routes,
    newest_first,
    page_route,
    paper_route,
    profiled_places,
    related_by_authors,
    related_by_subject,
    subject_pages,
)
from site_gen.read.pages import Page
from site_gen.util.diagnostics import Diagnostic


class RouteMemo:
    """The last plan, which the next ``plan`` reuses where nothing changed.

    Only ever one plan: each call replaces the content, so a long watch session keeps one
    plan (about what its routes hold anyway), never a history.
    """

    def __init__(self) -> None:
        self._forget()

    def plan(self, catalog: Catalog, pages: tuple[Page, ...], recent: int = 10,
             page_size: int = 100) -> tuple[tuple[Route, ...], list[Diagnostic]]:
        """``plan_routes(catalog, pages, recent, page_size)``, reusing last plan where it still
        holds (see ``_Changes``); then this plan replaces the last."""
        if page_size != self.page_size:
            self._forget()
        ranks = Ranks.of(catalog)
        changes = _Changes.of(self, catalog, ranks)
        index = index_routes(catalog, ranks.by_rank, recent, page_size)
        papers = [_paper_plan(catalog, p, ranks, changes) for p in catalog.papers]
        profiled = profiled_places(catalog)
        authors = [_author_plan(catalog, profiled, a, ranks, changes, page_size)
                   for a in catalog.authors]
        subjects = {s.code: self._subject_plan(s, ranks, changes, page_size)
                    for s in catalog.subjects}
        others = [changes.same_as_before(r) for r in chain(index, map(page_route, pages))]
        self._remember(catalog, ranks, papers, authors, subjects, others, page_size)
        routes = (others[:len(index)] + [plan.route for plan, _ in papers]
                  + [route for plan in authors for route in plan.routes]
                  + [route for plan in subjects.values() for route in plan]
                  + others[len(index):])
        return tuple(routes), collisions(routes)

    def _subject_plan(self, subject: Subject, ranks: Ranks, changes: _Changes, size: int
                      ) -> list[Route]:
        """Last plan's routes of the subject when it and its papers are the very objects they
        were, in the same order (planning every subject's pages and comparing them with
        the last took 20 ms of each rebuild at 10,000 papers)."""
        old = self.subject_plans.get(subject.code)
        if (old is not None and changes.order_kept and subject.code not in changes.subjects
                and changes.papers.isdisjoint(subject.paper_ids)):
            return old
        return [changes.same_as_before(r) for r in subject_pages(subject, ranks, size)]

    def _forget(self) -> None:
        self.order: tuple[str, ...] = ()
        """Paper ids, newest first."""
        self.rank: dict[str, int] = {}
        """Paper id -> its place in ``order``."""
        self.papers: dict[str, _PaperPlan] = {}
        self.spans: dict[str, tuple[int, int]] = {}
        """Each paper's span of ranks its related papers by subject were read from
        (``related.by_subject``): apart from the plans, as an added paper shifts them all."""
        self.authors: dict[str, _AuthorPlan] = {}
        self.subjects: dict[str, Subject] = {}
        self.profiled: tuple[str, ...] = ()
        self.subject_plans: dict[str, list[Route]] = {}
        """Each subject's routes (its pages of papers), by its code."""
        self.routes: dict[str, Route] = {}
        """The other routes (the lists, subjects, Markdown pages) by URL."""
        self.page_size = 0
        """The page size the plan split its lists by."""

    def _remember(self, catalog: Catalog, ranks: Ranks,
                  papers: list[tuple[_PaperPlan, tuple[int, int]]], authors: list[_AuthorPlan],
                  subjects: dict[str, list[Route]], routes: list[Route], page_size: int) -> None:
        """Hold this plan instead of the previous one (``papers``: each plan and its span)."""
        self.page_size = page_size
        self.order, self.rank = ranks.order, ranks.rank
        self.papers = {plan.paper.id: plan for plan, _ in papers}
        self.spans = {plan.paper.id: span for plan, span in papers}
        self.authors = {plan.author.id: plan for plan in authors}
        self.subjects = {s.code: s for s in catalog.subjects}
        self.profiled = tuple(a.id for a in catalog.profiled_authors)
        self.subject_plans = subjects
        self.routes = {route.url: route for route in chain(
            routes, (route for plan in subjects.values() for route in plan))}


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
    ranks: Ranks
    papers: set[str]
    authors: set[str]
    renamed: set[str]
    """Of ``authors``, those new, gone, or changed in what a route's lists are sorted and
    chosen by (``_renamed``); the others changed in their papers or profiles only."""
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
    renewed: dict[tuple[str, ...], tuple[Subject, ...]] = field(default_factory=dict)
    """This catalog's subjects by their codes, as paper plans renew them."""

    @classmethod
    def of(cls, memo: RouteMemo, catalog: Catalog, ranks: Ranks) -> _Changes:
        if not memo.order:  # nothing to reuse (nor to compare with)
            return cls(memo, ranks, set(), set(), set(), set(), False, set(), [], [], False)
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
        renamed = {i for i in authors if _renamed(memo, catalog, ranks, i)}
        return cls(memo, ranks, papers, authors, renamed, subjects, order_kept, tainted,
                   sorted(memo.rank[i] for i in shifted if i in memo.rank),
                   sorted(ranks.rank[i] for i in shifted if i in ranks.rank), profiled_kept)

    def kept_span(self, paper: Paper, old: _PaperPlan) -> tuple[int, int] | None:
        """For a paper that is the very object of ``old``: when ``old``'s route shows what it
        would show now (``keeps_related``, ``keeps_nearby`` and ``keeps_route``, true of
        nearly every paper after an edit; its subjects may need renewing, ``renews``), the
        span of ranks its related papers by subject are read from now; None when it may
        not. One call, the author ids made once: it is asked of every paper at each rebuild."""
        ids = paper.all_author_ids
        if not (self.order_kept and self.authors.isdisjoint(ids)
                and self.tainted.isdisjoint(ids) and self.renamed.isdisjoint(ids)
                and self.papers.isdisjoint(old.related) and self.papers.isdisjoint(old.nearby)):
            return None
        kept = self.keeps_nearby(paper, old)
        return None if kept is None else kept[1]

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
            return old.nearby, self.memo.spans[paper.id]
        lo, hi = self.memo.spans[paper.id]
        if _any_within(self.shifted_before, lo, hi):
            return None
        start = 0 if lo == 0 else self.ranks.rank[self.memo.order[lo]]
        end = (len(self.ranks.order) - 1 if hi == len(self.memo.order) - 1
               else self.ranks.rank[self.memo.order[hi]])
        return None if _any_within(self.shifted_now, start, end) else (old.nearby, (start, end))

    def keeps_route(self, paper: Paper, old: _PaperPlan, related: tuple[str, ...],
                    nearby: tuple[str, ...]) -> bool:
        """Does ``old``'s route show exactly these objects, but perhaps the paper's authors
        and subjects, which changed elsewhere (``_paper_renewed``)?"""
        return (old.paper is paper and related == old.related and nearby == old.nearby
                and self.renamed.isdisjoint(paper.all_author_ids)
                and self.papers.isdisjoint(related) and self.papers.isdisjoint(nearby))

    def renews(self, paper: Paper) -> bool:
        """Does a kept route of this paper hold authors or subjects that changed elsewhere?"""
        return not (self.subjects.isdisjoint(paper.subjects)
                    and self.authors.isdisjoint(paper.all_author_ids))

    def keeps_author(self, author: Author, old: _AuthorPlan) -> bool:
        """Does ``old``'s route show the very objects this author's would, but perhaps its
        subjects and co-authors, which changed elsewhere (``_renewed``)? (The author, its
        papers and co-authors' names and profiles; the papers
        in rank order, and the profiled among the co-authors in their order, which hold as
        long as the others kept theirs.)"""
        return (old.author is author and self.papers.isdisjoint(author.paper_ids)
                and self.renamed.isdisjoint(old.coauthors))

    def same_as_before(self, route: Route) -> Route:
        """Last plan's route for this URL when it is equal, so the renderer sees it is."""
        old = self.memo.routes.get(route.url)
        return old if old is not None and _same_route(old, route) else route


def _moved(memo: RouteMemo, catalog: Catalog, ranks: Ranks, changed: set[str]) -> set[str]:
    """Changed papers that are new, gone, or sort differently (none when no rank changed)."""
    if ranks.order == memo.order:
        return set()
    return {i for i in changed if i not in memo.papers or i not in ranks.rank
            or newest_first(memo.papers[i].paper) != newest_first(catalog.paper(i))}


def _renamed(memo: RouteMemo, catalog: Catalog, ranks: Ranks, author_id: str) -> bool:
    """Is a changed author new, gone, or changed in what routes show beyond their papers and
    profiles' counts: their name and the rest that equality compares, or whether they are
    profiled (which puts them among an author's profiled co-authors)?"""
    before = memo.authors.get(author_id)
    if before is None or author_id not in ranks.authors:
        return True
    now = catalog.author(author_id)
    return before.author != now or bool(before.author.own_profiles) != bool(now.own_profiles)


def _resubjected(memo: RouteMemo, catalog: Catalog, ranks: Ranks, changed: set[str]
                 ) -> set[str]:
    """Changed papers, in both plans, whose subjects changed."""
    return {i for i in changed if i in memo.papers and i in ranks.rank
            and memo.papers[i].paper.subjects != catalog.paper(i).subjects}


def _versions(memo: RouteMemo, catalog: Catalog, ranks: Ranks, paper_id: str) -> list[Paper]:
    """The paper as the memo's plan had it and as it is now, where it exists."""
    before = memo.papers.get(paper_id)
    return ([before.paper] if before is not None else []) + (
        [catalog.paper(paper_id)] if paper_id in ranks.rank else [])


def _any_within(sorted_ranks: list[int], lo: int, hi: int) -> bool:
    """Is any of these ranks between lo and hi (inclusive)?"""
    at = bisect.bisect_left(sorted_ranks, lo)
    return at < len(sorted_ranks) and sorted_ranks[at] <= hi


@dataclass(frozen=True, slots=True)
class _PaperPlan:
    """A paper's route, with what the next plan needs to tell whether it still holds."""

    paper: Paper
    route: Route
    related: tuple[str, ...]
    """Ids of the papers related by authors."""
    nearby: tuple[str, ...]
    """Ids of the papers related by subject (``RouteMemo.spans``: where they were read)."""


def _paper_plan(catalog: Catalog, paper: Paper, ranks: Ranks, changes: _Changes
                ) -> tuple[_PaperPlan, tuple[int, int]]:
    """Last plan's when the paper, its authors, subjects and related papers are the same;
    its related papers are looked for again only where they may differ. With the span of
    ranks its related papers by subject were read from."""
    old = changes.memo.papers.get(paper.id)
    if old is not None and old.paper is paper:
        span = changes.kept_span(paper, old)
        if span is not None:  # the authors did not change (kept_span): only the subjects may
            if changes.subjects.isdisjoint(paper.subjects):
                return old, span
            return _paper_renewed(catalog, old, changes.renewed), span
    related = old.related if old is not None and changes.keeps_related(paper, old) else None
    kept = changes.keeps_nearby(paper, old) if old is not None else None
    if related is None:
        related = related_by_authors(ranks, paper)
    if kept is None:
        kept = related_by_subject(ranks, paper)
    nearby, span = kept
    if old is not None and changes.keeps_route(paper, old, related, nearby):
        if not changes.renews(paper):
            return old, span
        return _paper_renewed(catalog, old, changes.renewed), span
    return _PaperPlan(paper, paper_route(catalog, ranks, paper, related, nearby), related,
                      nearby), span


def _paper_renewed(catalog: Catalog, plan: _PaperPlan,
                   renewed: dict[tuple[str, ...], tuple[Subject, ...]]) -> _PaperPlan:
    """The plan with this catalog's objects for the paper's authors and subjects, which are
    all that differs when they changed only in their lists of papers (another paper joined or
    left them): a title edit changed the Subject of 5,648 of 10,000 papers. ``renewed``: the
    subjects of each set of codes so far."""
    paper = plan.paper
    subjects = renewed.get(paper.subjects)
    if subjects is None:
        subjects = renewed[paper.subjects] = tuple(map(catalog.subject, paper.subjects))
    route = _with_context(plan.route, authors=tuple(map(catalog.author, paper.author_ids)),
                          extra_authors=tuple(map(catalog.author, paper.extra_author_ids)),
                          subjects=subjects)
    return _PaperPlan(paper, route, plan.related, plan.nearby)


@dataclass(frozen=True, slots=True)
class _AuthorPlan:
    """An author's routes (its pages of papers), and the co-authors and subjects it counts
    (for the next plan)."""

    author: Author
    routes: tuple[Route, ...]
    coauthors: tuple[str, ...]
    subjects: tuple[str, ...]


def _author_plan(catalog: Catalog, profiled: Mapping[str, int], author: Author,
                 ranks: Ranks, changes: _Changes, size: int) -> _AuthorPlan:
    """Last plan's when the author and everything its page shows are the same objects."""
    old = changes.memo.authors.get(author.id)
    if old is None or not changes.keeps_author(author, old):
        return _new_author_plan(catalog, profiled, author, ranks, size)
    if not (changes.subjects.isdisjoint(old.subjects)
            and changes.authors.isdisjoint(old.coauthors)):
        old = _renewed(catalog, old)
    if changes.order_kept and changes.profiled_kept:
        return old
    plan = _new_author_plan(catalog, profiled, author, ranks, size)  # its lists may be reordered
    if len(plan.routes) == len(old.routes) and all(map(_same_route, plan.routes, old.routes)):
        return replace(plan, routes=old.routes)
    return plan


def _renewed(catalog: Catalog, plan: _AuthorPlan) -> _AuthorPlan:
    """The plan with this catalog's objects for the subjects and co-authors its first page
    counts, which are all that differs when those changed only in their lists of papers or
    profiles' counts (another author's paper joined or left them): the counts are of the
    author's own papers, the same as before. A paper added to a subject changed the Subject
    of some 500 of 1,641 authors at 10,000 papers, and planning them again was a third of the
    routes' time."""
    return replace(plan, routes=tuple(_route_renewed(catalog, r) for r in plan.routes))


def _route_renewed(catalog: Catalog, route: Route) -> Route:
    context = route.context
    counts = cast("tuple[tuple[Subject, int], ...]", context.get("subject_counts", ()))
    coauthors = cast("tuple[tuple[Author, int], ...]", context.get("coauthors", ()))
    if not counts and not coauthors:  # an author's later pages count none
        return route
    profiled = cast("tuple[Author, ...]", context.get("profiled_with", ()))
    return _with_context(
        route,
        subject_counts=tuple((catalog.subject(subject.code), n) for subject, n in counts),
        coauthors=tuple((catalog.author(author.id), n) for author, n in coauthors),
        profiled_with=tuple(catalog.author(author.id) for author in profiled))


def _with_context(route: Route, **values: object) -> Route:
    """The route with these values in its context (a Route made directly: thousands are
    renewed after some edits, and ``dataclasses.replace`` costs several times more)."""
    return Route(route.url, route.output, route.template, {**route.context, **values},
                 route.source)


def _same_route(old: Route, new: Route) -> bool:
    """Equal routes whose authors and subjects list the same papers and profiles: their
    equality leaves those out (model.py), and a page may show them."""
    return old == new and _unequalled(old.context) == _unequalled(new.context)


def _unequalled(value: object) -> list[object]:
    """What equality leaves out of every author and subject in a route's context (their
    papers; an author's profiles, with their record counts), in a fixed order."""
    found: list[object] = []
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is Paper:  # most of them: the papers index lists thousands
            continue
        if kind is Author:
            author = cast("Author", item)
            found.append((author.members, author.own_profiles))
        elif kind is Subject:
            found.append(cast("Subject", item).members)
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def _new_author_plan(catalog: Catalog, profiled: Mapping[str, int], author: Author,
                     ranks: Ranks, size: int) -> _AuthorPlan:
    return _AuthorPlan(author, *author_routes(catalog, profiled, author, ranks, size))
