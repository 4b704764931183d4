"""incremental.outputs and incremental.search against their specification, the plain
generators of outputs/: after every step of random edit sequences (catalogs interned as a
Builder interns them, or not; settings changed between builds; builds whose files were thrown
away, as when a build fails after its generators ran) the kept variants give exactly the files
``outputs.files.site_files`` gives for a fresh catalog, carried files taken from the last
build's output as a Builder takes them.

CI runs a hundred edit sequences; ``SITE_GEN_FUZZ=long`` runs thousands.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from datetime import UTC, datetime
from unittest import mock

import pytest
from conftest import abstract, coauthor_dump, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st
from test_incremental_routes import apply_edit, edit
from test_outputs import small_catalog
from test_routes import LONG, catalog_of, record_spec

from site_gen.incremental import search
from site_gen.incremental.builder import Builder
from site_gen.incremental.cache import intern_catalog
from site_gen.incremental.outputs import (
    SiteFilesMemo,
    kept_bibtex_entries,
    kept_site_file_stream,
)
from site_gen.incremental.pieces import Carried, CatalogDelta
from site_gen.incremental.search import SearchMemo, kept_search_files
from site_gen.model import Catalog
from site_gen.outputs.citations import bibtex_entries
from site_gen.outputs.files import site_files
from site_gen.outputs.search import search_outputs
from site_gen.plan.routes import plan_routes
from site_gen.read.config import Config

CONFIGS = [Config(title="T", site_url="https://example.org/"),
           Config(title="T", site_url="https://example.org/", citation_files=True),
           Config(title="T", site_url="https://e.org/sub/", description="D", cname="e.org")]
TIMES = [None, datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)]


def on_disk(stream: object, before: dict[str, bytes]) -> dict[str, bytes]:
    """The files a build writes from a kept stream: carried ones are last build's (``before``)."""
    files: dict[str, bytes] = {}
    for item in stream:  # type: ignore[attr-defined]
        names = item.names if isinstance(item, Carried) else (item[0],)
        assert files.keys().isdisjoint(names), names
        if isinstance(item, Carried):
            files.update((name, before[name]) for name in item.names)
        else:
            name, data = item
            files[name] = data if isinstance(data, bytes) else b"".join(data)
    return files


def plain_files(catalog: Catalog, config: Config, build_time: datetime | None) -> dict[str, bytes]:
    """The specification: what a one-shot build writes beside the pages of ``catalog``."""
    routes = plan_routes(catalog, (), 3, 100)[0]
    entries = bibtex_entries(catalog, config.site_url)
    return site_files(catalog, config, routes, entries, build_time)


build = st.tuples(st.sampled_from(range(len(CONFIGS))), st.sampled_from(TIMES),
                  st.sampled_from([True, True, True, False]))
"""A build's settings, and whether its files reach the output (False: thrown away)."""


@settings(max_examples=1000 if LONG else 100, deadline=None)
@given(st.lists(record_spec(), max_size=20 if LONG else 12),
       st.lists(st.tuples(edit, build), min_size=1, max_size=10 if LONG else 6))
def test_kept_files_equal_plain_files(start: list[dict], steps: list[tuple]) -> None:
    specs, names = list(start), {}
    memo = SiteFilesMemo()
    previous: Catalog | None = None
    key: tuple[int, datetime | None] | None = None
    disk: dict[str, bytes] = {}
    for op, (setting, build_time, written) in [(("no-interning",), (0, None, True)), *steps]:
        apply_edit(specs, names, op)
        catalog, changes = catalog_of(specs, names), None
        if previous is not None and op[0] != "no-interning":
            catalog, changes = intern_catalog(catalog, previous)
        config = CONFIGS[setting]
        same = key == (setting, build_time)  # the Builder's site_files_key: settings unchanged
        delta = CatalogDelta.of(previous, catalog, changes) if same else None
        entries = kept_bibtex_entries(catalog, config.site_url, memo.citations, delta)
        fresh = catalog_of(specs, names)  # not interned, its own citation keys
        assert entries == bibtex_entries(fresh, config.site_url), op
        routes = plan_routes(catalog, (), 3, 100)[0]
        files = on_disk(kept_site_file_stream(catalog, config, routes, entries, build_time, memo,
                                              delta), disk)
        assert files == plain_files(fresh, config, build_time), op
        if written:
            previous, key, disk = catalog, (setting, build_time), files


ANN = [(2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"]),
       (2023, "Phase Multiplexing for Rollouts", abstract("multiplexing"), ["cs.DC"]),
       (2022, "Elastic Caches for Long Contexts", abstract("caches"), ["cs.LG", "cs.DC"])]


@pytest.mark.parametrize("citation_files", [False, True])
def test_memo_gives_fresh_bytes_and_forgets_papers_that_went(make_project,
                                                             citation_files: bool) -> None:
    project = make_project({"content/site.yaml": "title: T\nsite_url: https://example.org/\n"
                                                 f"citation_files: {str(citation_files).lower()}\n",
                            "content/dumps/a.txt": listing_dump("Ann Lee", ANN),
                            "content/dumps/b.txt": coauthor_dump("Bo Wu", [
                                ("Bo Wu, Ann Lee", abstract("multiplexing"))])})
    builder = Builder(project, keep_spare=True)
    memo = SiteFilesMemo()
    edits = [ANN, ANN[:2] + [(2022, "Elastic Caches", abstract("caches") + " More.", ["cs.AI"])],
             ANN[1:], [(None, "Undated Work", abstract("undated"), ["cs.LG"])] + ANN]
    for records in edits:
        (project / "content/dumps/a.txt").write_text(listing_dump("Ann Lee", records))
        plan = builder.plan()[0]
        assert plan is not None
        catalog, config = plan.catalog, plan.config
        entries = kept_bibtex_entries(catalog, config.site_url, memo.citations)
        assert entries == bibtex_entries(catalog, config.site_url)
        kept = on_disk(kept_site_file_stream(catalog, config, plan.routes, entries, None, memo),
                       {})
        assert kept == site_files(catalog, config, plan.routes, entries, None)
        assert len(memo.citations.files) == (len(catalog.papers) if citation_files else 0)
        assert len(memo.citations.authors) == len(catalog.authors)
        assert len(memo.exports.papers) == len(catalog.papers)
        assert len(memo.exports.authors) == len(catalog.authors)
        assert len(memo.search.docs) == len(catalog.papers) + len(catalog.authors)
        builder.memory = replace(builder.memory, catalog=catalog)  # intern the next catalog


def test_a_catalog_delta_names_what_changed_what_went_and_what_shows_it() -> None:
    before = small_catalog(["One", "Abstract", "code", "Code", "Ann Lee", "Other"], 2024)
    p1 = before.papers[0]
    renamed = replace(before.authors[0], name="Ann B. Lee", members=("p1",))  # shown on p1
    after = Catalog((replace(p1, abstract_text="Another abstract"),),  # p2 went
                    (renamed, replace(before.authors[1], members=("p1",))),
                    (replace(before.subjects[0], members=("p1",)), before.subjects[1]))
    interned, changes = intern_catalog(after, before)
    delta = CatalogDelta.of(before, interned, changes)
    assert delta is not None and delta.previous is before
    assert delta.papers == {"p1", "p2"} and delta.papers_gone == {"p2"}
    assert delta.authors == {"a1"} and delta.author_papers == {"a1", "a2"}
    assert not delta.authors_gone and not delta.subjects and delta.subject_papers == {"cs.LG"}
    assert delta.papers_shown == {"p1", "p2"}
    assert CatalogDelta.of(None, interned, changes) is None
    assert CatalogDelta.of(before, interned, None) is None
    same, none = intern_catalog(before, before)
    assert same is before and none == frozenset()


def test_search_terms_keep_their_order_as_edits_add_and_remove_words() -> None:
    """A rebuild's search files sort the terms again only when the vocabulary changed; with
    words added that sort first and last (UTF-16 order), a same-words edit, and the words
    taken away again, they are the bytes a fresh index gives (carried files: last time's)."""
    memo = SearchMemo()
    previous, before = None, {}
    for abstract_text in ["Graph kernels at scale.", "Aardvark graph kernels at scale \uff21.",
                          "Aardvark graph kernels, at scale \uff21!", "Graph kernels at scale."]:
        catalog = small_catalog(["Kernels", abstract_text, "code", "Code", "Ann Lee", "Other"],
                                2024)
        delta = None
        if previous is not None:
            catalog, changes = intern_catalog(catalog, previous)
            delta = CatalogDelta.of(previous, catalog, changes)
            assert delta is not None and delta.papers == {"p1"}
        files = on_disk(kept_search_files(catalog, memo, delta), before)
        assert files == search_outputs(catalog)
        previous, before = catalog, files
    assert memo.sorted_terms == sorted(memo.vocabulary, key=lambda t: t.encode("utf-16-be"))
    assert "aardvark" not in memo.vocabulary and "graph" in memo.vocabulary


TERM_SETS = st.lists(st.frozensets(st.tuples(st.sampled_from("abcdef"), st.integers(0, 2)),
                                   max_size=4), min_size=4, max_size=4).map(tuple)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), TERM_SETS), min_size=1, max_size=30), st.data())
def test_postings_update_equals_postings_made_again(before, data) -> None:
    """The kept postings after any change of the documents at each number (documents moved
    anywhere, in any order, taken out, added, numbers left empty, as many numbers as before
    or not) are the postings made from the new documents alone."""
    from site_gen.incremental.search import _postings, _update_postings
    from site_gen.outputs.search import NO_TERMS

    old = [NO_TERMS if t is None else t for t in before]
    kept = data.draw(st.permutations(old))
    if data.draw(st.booleans()):  # a dump added or deleted: another number of numbers
        kept = kept[:data.draw(st.integers(0, len(old)))] + data.draw(st.lists(TERM_SETS, max_size=5))
    new = [t if data.draw(st.booleans()) else data.draw(st.one_of(st.just(NO_TERMS), TERM_SETS))
           for t in kept]
    apart, most = data.draw(st.sampled_from([(64, 8), (2, 3), (1, 100)]))  # how numbers group
    stretches = functools.partial(search._stretches, apart=apart, most=most)
    lists = functools.partial(search._lists_holding, many=data.draw(st.sampled_from([8, 0])))
    with mock.patch.object(search, "_stretches", stretches), \
            mock.patch.object(search, "_lists_holding", lists):
        memo = SearchMemo()
        memo.terms, memo.index = old, _postings(old)
        touched = _update_postings(memo, new)
    made_again, empty = _postings(new), [[]] * 12
    assert memo.index == made_again
    for term in made_again.keys() | _postings(old).keys():  # told which lists to encode again
        was, now = _postings(old).get(term, empty), made_again.get(term, empty)
        assert {slot for slot in range(12) if was[slot] != now[slot]} <= touched.get(term, set())


DENSE_TERM_SETS = st.lists(st.frozensets(st.tuples(st.sampled_from("ab"), st.integers(0, 1)),
                                         max_size=3), min_size=4, max_size=4).map(tuple)
"""Few terms, so that most lists are long enough to be bitmaps (``encode_ids``)."""
MIXED_TERM_SETS = st.one_of(DENSE_TERM_SETS, st.lists(
    st.frozensets(st.tuples(st.sampled_from("cd"), st.integers(0, 1)), max_size=3),
    min_size=4, max_size=4).map(tuple))
"""Documents of two vocabularies, so that changing the documents of one leaves the lists of
the other alone."""


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), MIXED_TERM_SETS), min_size=1, max_size=40), st.data())
def test_kept_encodings_equal_postings_encoded_again(before, data) -> None:
    """After any change of the documents at each number, a count of numbers that grew or
    shrank included (bitmaps change length with it, and a list of gaps may become a bitmap
    or one again), the kept encodings are those of the new documents' postings alone, the
    lists spliced (``_spliced``) or encoded again."""
    from types import SimpleNamespace

    from site_gen.incremental.search import _encoded_terms
    from site_gen.outputs.search import NO_TERMS

    old = [NO_TERMS if t is None else t for t in before]
    kept = data.draw(st.permutations(old)) if data.draw(st.booleans()) else list(old)
    if data.draw(st.booleans()):  # a dump added or deleted: another number of numbers
        kept = kept[:data.draw(st.integers(0, len(old)))] + data.draw(st.lists(MIXED_TERM_SETS,
                                                                              max_size=40))
    new = [t if data.draw(st.sampled_from([True, True, True, False])) else
           data.draw(st.one_of(st.just(NO_TERMS), MIXED_TERM_SETS)) for t in kept]

    def docs(terms: list) -> list:
        return [None if t is NO_TERMS else SimpleNamespace(terms=t) for t in terms]

    memo = SearchMemo()
    _encoded_terms(docs(old), memo)
    spliced_from = data.draw(st.sampled_from([0, search.SPLICED_FROM]))  # 0: every list spliced
    apart, most = data.draw(st.sampled_from([(64, 8), (2, 3), (1, 100)]))  # how numbers group
    stretches = functools.partial(search._stretches, apart=apart, most=most)
    with mock.patch.object(search, "SPLICED_FROM", spliced_from), \
            mock.patch.object(search, "_stretches", stretches):
        kept = dict(_encoded_terms(docs(new), memo))
    assert kept == _encoded_terms(docs(new), SearchMemo())


@st.composite
def spliced_lists(draw: st.DrawFn) -> tuple[list[int], list[int], list[tuple[int, int]], int]:
    """A list of doc numbers, stretches of numbers, and the list with other numbers within
    those stretches: gaps of every length a code has (one to four characters)."""
    total = draw(st.sampled_from([60, 200, 5_000, 70_000]))  # 60, 200: bitmaps too
    old = sorted(draw(st.sets(st.integers(0, total - 1), max_size=60)))
    bounds = sorted(draw(st.sets(st.integers(0, total - 1), min_size=2, max_size=8)))
    changed = [(low, high) for low, high in zip(bounds[::2], bounds[1::2])]
    inside = [number for low, high in changed
              for number in draw(st.sets(st.integers(low, high), max_size=8))]
    new = sorted({n for n in old if not any(low <= n <= high for low, high in changed)}
                 | set(inside))
    return old, new, changed, total


@settings(max_examples=500, deadline=None)
@given(spliced_lists())
def test_a_list_of_gaps_spliced_is_the_list_encoded_again(case) -> None:
    """``_spliced`` keeps the codes outside the changed stretches of numbers and encodes the
    rest: the text is ``encode_ids`` of the new list whenever both are lists of gaps, or
    both bitmaps with more numbers than the bitmap has characters (or it declines)."""
    from site_gen.incremental.search import _spliced
    from site_gen.outputs.search import bitmap_length, encode_ids

    old, new, changed, total = case
    text, wanted = encode_ids(old, total), encode_ids(new, total)
    made = _spliced(text, old, new, changed, total)
    assert made is None or made == wanted
    gaps = text and not text.startswith("~") and not wanted.startswith("~")
    bitmaps = text.startswith("~") and len(new) > bitmap_length(total)
    if gaps or bitmaps:
        assert made == wanted
