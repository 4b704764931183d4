"""Route planning: the related-papers ranking against a plain reference implementation, and
plans reusing the last plan (RouteMemo) against fresh plans over random edits.

CI runs a few hundred edit sequences; ``SITE_GEN_FUZZ=long`` runs thousands.
"""

from __future__ import annotations

import os
from collections import Counter
from itertools import chain

from conftest import abstract, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from site_gen.catalog.assemble import build_catalog
from site_gen.incremental.builder import Builder
from site_gen.incremental.cache import intern_catalog
from site_gen.model import Catalog, Dump, Paper, Record, SourceRef
from site_gen.plan.related import RELATED_LIMIT, by_authors
from site_gen.plan.routes import COAUTHORS, RouteMemo, _paper_lists, plan_routes
from site_gen.read.curation import AuthorEdit, Curation
from site_gen.read.pages import Page


def reference(own: int, groups: list[tuple[int, ...]]) -> list[int]:
    """Count every paper of every author; most shared first, then newest (lowest rank)."""
    counts = Counter(chain.from_iterable(groups))
    counts.pop(own, None)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [rank for rank, _ in ranked[:RELATED_LIMIT]]


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
def test_related_papers_match_counting_every_paper(case, with_sets: bool) -> None:
    own, groups = case
    sets = [frozenset(g) if with_sets else None for g in groups]
    assert list(by_authors(own, groups, sets)) == reference(own, groups)


def test_a_prolific_author_is_probed_not_counted() -> None:
    big = tuple(range(0, 20_000, 2))
    small = (4, 7, 9, 11)
    # 4 is shared by both authors; then the newest of either, skipping the paper itself
    assert list(by_authors(7, [big, small], [frozenset(big), None])) == [4, 0, 2, 6, 8]


# --- RouteMemo: a memoized plan equals a fresh one -------------------------------------------

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


edit = st.one_of(
    st.tuples(st.just("add"), record_spec()),
    st.tuples(st.just("delete"), st.integers(0, 99)),
    st.tuples(st.sampled_from(["abstract", "title", "year", "authors", "subjects", "owner"]),
              st.integers(0, 99), record_spec()),
    st.tuples(st.just("rename"), st.sampled_from(NAMES),
              st.sampled_from(["Zed Ash", "Al Bo", None])),
    st.tuples(st.just("affiliation"), st.sampled_from(NAMES), st.sampled_from(["MIT", None])),
    st.tuples(st.just("no-interning")),
)


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


def apply_edit(specs: list[dict], names: dict[str, tuple[str | None, str | None]],
               op: tuple) -> None:
    kind = op[0]
    if kind == "add":
        specs.append(op[1])
    elif kind == "delete" and specs:
        del specs[op[1] % len(specs)]
    elif kind in ("abstract", "title", "year", "authors", "subjects", "owner") and specs:
        at = op[1] % len(specs)
        specs[at] = {**specs[at], kind: op[2][kind]}
    elif kind == "rename":
        names[op[1]] = (op[2], names.get(op[1], (None, None))[1])
    elif kind == "affiliation":
        names[op[1]] = (names.get(op[1], (None, None))[0], op[2])


@settings(max_examples=3000 if LONG else 200, deadline=None)
@given(st.lists(record_spec(), max_size=20 if LONG else 12),
       st.lists(edit, min_size=1, max_size=12 if LONG else 8),
       st.lists(st.sampled_from([1, 2, 3, 100]), min_size=1, max_size=3))
def test_memoized_plans_equal_fresh_plans(start: list[dict], ops: list[tuple],
                                          sizes: list[int]) -> None:
    """Also with lists split into pages (``page_size``), and its value changed between plans."""
    specs, names = list(start), {}
    memo = RouteMemo()
    previous = catalog = catalog_of(specs, names)
    assert strict(plan_routes(catalog, PAGES, 3, memo, sizes[0])) == \
        strict(plan_routes(catalog, PAGES, 3, None, sizes[0]))
    for n, op in enumerate(ops):
        size = sizes[n % len(sizes)]
        apply_edit(specs, names, op)
        catalog = catalog_of(specs, names)
        if op[0] != "no-interning":
            catalog, _ = intern_catalog(catalog, previous)
        assert strict(plan_routes(catalog, PAGES, 3, memo, size)) == \
            strict(plan_routes(catalog, PAGES, 3, None, size)), op
        previous = catalog


def strict(plan: tuple) -> tuple:
    """A plan, with the paper lists of the authors and subjects in its routes' contexts, which
    route equality leaves out (model.py)."""
    routes, diagnostics = plan
    return tuple((r, _paper_lists(r.context)) for r in routes), diagnostics


def holds_paper(value: object, paper_id: str) -> bool:
    """Does a route's context hold (anywhere inside) the paper with this id?"""
    if isinstance(value, Paper):
        return value.id == paper_id
    if isinstance(value, tuple):
        return any(holds_paper(v, paper_id) for v in value)
    return False


def test_an_abstract_edit_keeps_every_route_that_does_not_show_the_paper() -> None:
    specs = [{"owner": NAMES[i % 3], "title": f"{TITLES[i % 6]} number {i}", "year": 2018 + i % 4,
              "authors": [NAMES[i % 3], NAMES[(i + 1) % 6]], "subjects": [CODES[i % 5]],
              "abstract": i} for i in range(40)]
    memo = RouteMemo()
    before = catalog_of(specs, {})
    old, _ = plan_routes(before, PAGES[:1], 3, memo)
    specs[7] = {**specs[7], "abstract": 12345}
    after, _ = intern_catalog(catalog_of(specs, {}), before)
    new, _ = plan_routes(after, PAGES[:1], 3, memo)
    edited = after.papers[[p.title for p in after.papers].index(specs[7]["title"])]
    assert [r.url for r in new] == [r.url for r in old]
    shows = [any(holds_paper(v, edited.id) for v in r.context.values()) for r in new]
    assert 5 < sum(shows) < len(new) / 2
    for route, was, shown in zip(new, old, shows):
        assert (route is was) != shown, route.url


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


def test_only_a_builder_that_rebuilds_keeps_the_plan(make_project) -> None:
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2020, "Paper One On Systems", abstract("graphs"), ["cs.LG"]),
        (2021, "Paper Two On Systems", abstract("tokens"), ["cs.CL"])])})
    watching, once = Builder(project, keep_spare=True), Builder(project, project / "once")
    assert watching.build().ok and once.build().ok
    assert once.routes_memo is None
    assert watching.routes_memo is not None and len(watching.routes_memo.papers) == 2
    first = watching.routes_memo.papers
    assert watching.build().ok
    assert all(watching.routes_memo.papers[i] is plan for i, plan in first.items())
    watching.close()
