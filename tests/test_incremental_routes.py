"""incremental.routes.RouteMemo against its specification, plan.routes.plan_routes: after
every step of random edit sequences (catalogs interned as a Builder interns them, or not) the
memo's plan equals a fresh plan, routes, order, paper lists and diagnostics alike.

CI runs a few hundred edit sequences; ``SITE_GEN_FUZZ=long`` runs thousands.
"""

from __future__ import annotations

from conftest import abstract, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st
from test_routes import CODES, LONG, NAMES, PAGES, TITLES, catalog_of, record_spec

from site_gen.incremental.builder import Builder
from site_gen.incremental.cache import intern_catalog
from site_gen.incremental.routes import RouteMemo, _unequalled
from site_gen.model import Author, Catalog, Paper, Subject
from site_gen.plan.routes import plan_routes

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
    assert strict(memo.plan(catalog, PAGES, 3, sizes[0])) == \
        strict(plan_routes(catalog, PAGES, 3, sizes[0]))
    for n, op in enumerate(ops):
        size = sizes[n % len(sizes)]
        apply_edit(specs, names, op)
        catalog = catalog_of(specs, names)
        if op[0] != "no-interning":
            catalog, _ = intern_catalog(catalog, previous)
        planned = memo.plan(catalog, PAGES, 3, size)
        assert strict(planned) == strict(plan_routes(catalog, PAGES, 3, size)), op
        assert all(holds_only_its(catalog, route.context) for route in planned[0]), op
        previous = catalog


def strict(plan: tuple) -> tuple:
    """A plan, with the paper lists and profiles of the authors and subjects in its routes'
    contexts, which route equality leaves out (model.py)."""
    routes, diagnostics = plan
    return tuple((r, _unequalled(r.context)) for r in routes), diagnostics


def holds_only_its(catalog: Catalog, value: object) -> bool:
    """Is every paper, author and subject in a route's context equal to this catalog's in
    every field, even those equality leaves out? (A kept route renews the authors and
    subjects that changed elsewhere; an older one would show their old lists of papers and
    profiles.)"""
    if isinstance(value, Paper):
        return value == catalog.paper(value.id)
    if isinstance(value, Author):
        now = catalog.author(value.id)
        return (value, value.members, value.own_profiles) == (now, now.members, now.own_profiles)
    if isinstance(value, Subject):
        now = catalog.subject(value.code)
        return (value, value.members) == (now, now.members)
    if isinstance(value, (tuple, list)):
        return all(holds_only_its(catalog, v) for v in value)
    if isinstance(value, dict):
        return all(holds_only_its(catalog, v) for v in value.values())
    return True


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
    old, _ = memo.plan(before, PAGES[:1], 3)
    specs[7] = {**specs[7], "abstract": 12345}
    after, _ = intern_catalog(catalog_of(specs, {}), before)
    new, _ = memo.plan(after, PAGES[:1], 3)
    edited = after.papers[[p.title for p in after.papers].index(specs[7]["title"])]
    assert [r.url for r in new] == [r.url for r in old]
    shows = [any(holds_paper(v, edited.id) for v in r.context.values()) for r in new]
    assert 5 < sum(shows) < len(new) / 2
    for route, was, shown in zip(new, old, shows):
        assert (route is was) != shown, route.url


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
