"""Route planning: the related-papers ranking checked against its rule, and the plan of
random catalogs (author pages). tests/test_incremental_routes.py holds the watch-mode plan
(incremental.routes.RouteMemo) to ``plan_routes``.
"""

from __future__ import annotations

import os
from itertools import chain

from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from site_gen.catalog.assemble import build_catalog
from site_gen.model import Catalog, Dump, Record, SourceRef
from site_gen.plan.related import RELATED_LIMIT, by_authors
from site_gen.plan.routes import COAUTHORS, paper_page_starts, plan_routes
from site_gen.read.curation import AuthorEdit, Curation
from site_gen.read.pages import Page


@st.composite
def authors_of_a_paper(draw: st.DrawFn) -> tuple[int, list[tuple[int, ...]]]:
    """A paper's rank and its authors' papers (sorted ranks, each holding the paper)."""
    own = draw(st.integers(0, 300))
    lists = draw(st.lists(st.sets(st.integers(0, 300), max_size=150), min_size=1, max_size=6))
    if draw(st.booleans()) and lists:  # the same author listed twice
        lists.append(lists[0])
    return own, [tuple(sorted(papers | {own})) for papers in lists]


@settings(max_examples=500, deadline=None)
@given(authors_of_a_paper(), st.booleans())
def test_related_papers_are_the_most_shared_then_the_newest(case, with_sets: bool) -> None:
    """The rule, checked on the result: other papers of these authors, none twice, ordered by
    how many of the author lists hold them (most first), then rank (newest first), and no
    paper left out comes before the last one listed, nor while fewer than the limit are."""
    own, groups = case
    sets = [frozenset(g) if with_sets else None for g in groups]
    found = list(by_authors(own, groups, sets))

    def place(paper: int) -> tuple[int, int]:
        return -sum(paper in group for group in groups), paper

    others = set(chain.from_iterable(groups)) - {own}
    assert len(set(found)) == len(found) == min(RELATED_LIMIT, len(others))
    assert set(found) <= others and found == sorted(found, key=place)
    assert all(place(paper) > place(found[-1]) for paper in others - set(found))


def test_a_prolific_author_is_probed_not_counted() -> None:
    big = tuple(range(0, 20_000, 2))
    small = (4, 7, 9, 11)
    # 4 is shared by both authors; then the newest of either, skipping the paper itself
    assert list(by_authors(7, [big, small], [frozenset(big), None])) == [4, 0, 2, 6, 8]


# --- plans of random catalogs ----------------------------------------------------------------

NAMES = ["Ann Lee", "Bo Wu", "Cy Ono", "Di Poe", "Ed Roy", "Flo Kim"]
TITLES = ["Graph Kernels", "Sparse Attention At Scale For Long Inputs", "Token Routing",
          "Cache Aware Scheduling Of Model Serving", "Zeta Functions", "Agents"]
CODES = ["cs.LG", "cs.CL", "cs.DC", "stat.ML", "q-bio.NC"]
LONG = os.environ.get("SITE_GEN_FUZZ") == "long"
PAGES = (Page("about", "About", Markup("<p>Hi</p>"), "content/pages/about.md"),
         Page("about", "About again", Markup("<p>Hi</p>"), "content/pages/about2.md"))


def record_spec() -> st.SearchStrategy[dict]:
    """One record: short titles repeat (same year and title: tied ranks), abstracts differ."""
    return st.fixed_dictionaries({
        "owner": st.sampled_from(NAMES[:4]),
        "title": st.sampled_from(TITLES),
        "year": st.sampled_from([2019, 2020, 2021, None]),
        "authors": st.lists(st.sampled_from(NAMES), max_size=4, unique=True),
        "subjects": st.lists(st.sampled_from(CODES), max_size=3, unique=True),
        "abstract": st.integers(0, 10**6),
    })


def catalog_of(specs: list[dict], names: dict[str, tuple[str | None, str | None]]) -> Catalog:
    """The catalog of these records, one dump per owner, with curation renaming authors."""
    dumps = []
    for owner in sorted({s["owner"] for s in specs}):
        mine = [s for s in specs if s["owner"] == owner]
        path = f"content/dumps/{owner}.txt"
        records = tuple(Record(SourceRef(path, 10 * i + 1), owner, s["title"],
                               tuple(s["authors"]), False, s["year"], tuple(s["subjects"]),
                               f"We study topic {s['abstract']}.") for i, s in enumerate(mine))
        dumps.append(Dump(path, "listing", owner, 1, None, records))
    curation = Curation(authors=tuple(AuthorEdit(0, n, display_name=shown, affiliation=where)
                                      for n, (shown, where) in sorted(names.items())))
    return build_catalog(dumps, curation)[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(record_spec(), min_size=1, max_size=12))
def test_an_author_page_names_the_profiled_co_authors_in_site_order(specs: list[dict]) -> None:
    catalog = catalog_of(specs, {})
    routes, _ = plan_routes(catalog, ())
    pages = {r.context["author"].id: r for r in routes if r.template == "author.html"}
    for author in catalog.authors:
        shared = {a for p in catalog.papers if author.id in p.all_author_ids
                  for a in p.all_author_ids}
        expected = tuple(a for a in catalog.profiled_authors
                         if a.id != author.id and a.id in shared)
        assert pages[author.id].context["profiled_with"] == expected, author.name


def test_a_co_author_page_lists_profiles_in_site_order_not_paper_order() -> None:
    specs = [{"owner": owner, "title": title, "year": 2020, "authors": [owner, "Ed Roy"],
              "subjects": [], "abstract": n}
             for n, (owner, title) in enumerate([("Cy Ono", "Agents"), ("Bo Wu", "Token Routing"),
                                                 ("Ann Lee", "Zeta Functions")])]
    catalog = catalog_of(specs, {})
    routes, _ = plan_routes(catalog, ())
    ed = next(r for r in routes if r.template == "author.html"
              and r.context["author"].name == "Ed Roy")
    assert [a.name for a in ed.context["profiled_with"]] == \
        [a.name for a in catalog.profiled_authors] == ["Ann Lee", "Bo Wu", "Cy Ono"]


def test_an_author_page_names_the_co_authors_with_most_joint_papers_and_counts_the_rest() -> None:
    many = COAUTHORS + 50
    specs = [{"owner": "Ann Lee", "title": f"Paper number {i}", "year": 2020 - i % 3,
              "authors": ["Ann Lee", f"Coauthor Number{i:03d}"] + (["Bo Wu"] if i < 3 else []),
              "subjects": ["cs.LG"], "abstract": i} for i in range(many)]
    catalog = catalog_of(specs, {})
    routes, _ = plan_routes(catalog, (), page_size=100)
    pages = [r for r in routes if r.template == "author.html"
             and r.context["author"].name == "Ann Lee"]
    assert [r.url for r in pages] == ["authors/ann-lee/", "authors/ann-lee/page/2/",
                                      "authors/ann-lee/page/3/"]
    first = pages[0].context
    assert first["coauthor_total"] == many + 1 and len(first["coauthors"]) == COAUTHORS
    assert [(a.name, n) for a, n in first["coauthors"][:2]] == [("Bo Wu", 3),
                                                                 ("Coauthor Number000", 1)]
    assert all(r.context["coauthors"] == () and r.context["paper_count"] == many
               for r in pages[1:])
    assert sum(len(papers) for r in pages for _, papers in r.context["years"]) == many
    assert pages[1].context["continued"] or pages[2].context["continued"]


class _Listed:
    """A stand-in for a Paper: ``paper_page_starts`` reads the id only."""

    def __init__(self, id: str) -> None:
        self.id = id


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2_000), st.integers(1, 120), st.integers(0, 10**6))
def test_a_list_breaks_into_pages_of_half_to_one_and_a_half_times_page_size(
        length: int, size: int, seed: int) -> None:
    papers = [_Listed(f"paper-{seed}-{n}") for n in range(length)]
    starts = paper_page_starts(papers, size)  # type: ignore[arg-type]
    assert starts[0] == 0 and starts == sorted(set(starts))
    lengths = [end - start for start, end in zip(starts, [*starts[1:], length])]
    if length <= size:
        assert lengths == [length]
    else:
        assert all(max(1, size // 2) <= n <= size + size // 2 for n in lengths), lengths


def test_a_paper_added_or_removed_changes_the_page_it_is_on_seldom_more() -> None:
    """Breaks chosen by id: the pages before the edit are the same, and so, mostly, are the
    pages after it (breaking every ``size`` papers changed every page after an edit)."""
    papers = [_Listed(f"paper-{n}") for n in range(10_000)]

    def pages(listed: list[_Listed]) -> list[tuple[str, ...]]:
        starts = paper_page_starts(listed, 100)  # type: ignore[arg-type]
        ends = [*starts[1:], len(listed)]
        return [tuple(p.id for p in listed[a:b]) for a, b in zip(starts, ends)]

    before = pages(papers)
    changed = []
    for edit in range(100):
        at = (edit * 7919) % len(papers)
        edited = [*papers[:at], _Listed(f"new-{edit}"), *papers[at:]] if edit % 2 else \
            [*papers[:at], *papers[at + 1:]]
        after = pages(edited)
        page = next(n for n, ids in enumerate(after) if ids != before[n])
        assert sum(map(len, before[:page + 1])) >= at  # the pages before it are kept
        changed.append(len(set(after) - set(before)))
    assert sum(changed) <= 2 * len(changed) and max(changed) <= 40, changed
