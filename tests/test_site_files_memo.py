"""Files beside the pages made from kept pieces: the same bytes as the straightforward way.

Feeds are joined from strings; here they are parsed back with ElementTree, over hostile text,
and checked to show what an Atom reader must find, laid out as ElementTree writes. Exports and
search.json are joined from entries' JSON texts; the reference is ``encode_json`` of the whole
document. And a Builder's memo gives, after edits, exactly what a fresh one gives, and forgets
the papers that went.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from conftest import abstract, coauthor_dump, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen import __version__
from site_gen.incremental.builder import Builder
from site_gen.model import Author, Catalog, Link, Paper, Subject, newest_first
from site_gen.outputs.citations import bibtex_entries
from site_gen.outputs.exports import (
    ExportMemo,
    authors_document,
    export_files,
    export_outputs,
    papers_document,
)
from site_gen.outputs.feeds import ATOM, FeedSpec, _newest_date, _timestamp, render_feed
from site_gen.outputs.files import SiteFilesMemo, site_file_stream, site_files
from site_gen.outputs.search import (
    SEARCH_FILE,
    SearchMemo,
    search_files,
    search_index,
    search_outputs,
)
from site_gen.plan.urls import AUTHORS_EXPORT, PAPERS_EXPORT, absolute_url, paper_url
from site_gen.read.config import Config
from site_gen.render.citation import clean_text
from site_gen.util.jsonenc import encode_json
from site_gen.util.text import plain_text

HOSTILE = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]) |
                  st.sampled_from(list("<>&\"'\r\n\t \x00\x01\x85\u2028]]>")), max_size=30)


# ---- feeds, read back -------------------------------------------------------------------

A = f"{{{ATOM}}}"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def read_feed(data: bytes) -> ET.Element:
    """A feed parsed, after checking its declaration and ElementTree's layout: one element a
    line, indented one space a level."""
    declaration = b'<?xml version="1.0" encoding="utf-8"?>\n'
    assert data.startswith(declaration) and data.endswith(b"</feed>\n")
    root = ET.fromstring(data)

    def laid_out(element: ET.Element, depth: int) -> None:
        children = list(element)
        if children:
            assert element.text == "\n" + " " * (depth + 1), element.tag
            for child in children:
                laid_out(child, depth + 1)
                assert child.tail == "\n" + " " * (depth + (child is not children[-1])), child.tag
    laid_out(root, 0)
    return root


def shown(element: ET.Element | None, text: str) -> None:
    """The element shows ``text`` as the feed must: cleaned to one plain line."""
    assert element is not None and (element.text or "") == clean_text(text)


def links(element: ET.Element) -> list[dict[str, str]]:
    return [link.attrib for link in element.findall(A + "link")]


def assert_feed_shows(root: ET.Element, spec: FeedSpec, catalog: Catalog, config: Config,
                      build_time: datetime | None) -> None:
    """What an Atom reader must find in the feed of ``spec``: its own elements in Atom's
    order, then the newest ``spec.limit`` papers, each with everything an entry shows."""
    papers = sorted(map(catalog.paper, spec.paper_ids), key=newest_first)[:spec.limit]
    years = [p.year for p in papers if p.year]
    updated = (_timestamp(build_time) if build_time else
               f"{max(years)}-01-01T00:00:00Z" if years else _newest_date([]))
    url = absolute_url(spec.url, config.site_url)
    assert root.tag == A + "feed" and root.get(XML_LANG) == config.language
    tags = [child.tag.removeprefix(A) for child in root]
    assert tags == ["title", *(["subtitle"] if config.description else []), "id", "link", "link",
                    "updated", "author", "generator", *["entry"] * len(papers)]
    shown(root.find(A + "title"), spec.title)
    if config.description:
        shown(root.find(A + "subtitle"), config.description)
    shown(root.find(A + "id"), url)
    assert links(root) == [{"href": url, "rel": "self", "type": "application/atom+xml"},
                           {"href": absolute_url(spec.page_url, config.site_url),
                            "rel": "alternate", "type": "text/html"}]
    shown(root.find(A + "updated"), updated)
    shown(root.find(f"{A}author/{A}name"), config.title)
    generator = root.find(A + "generator")
    assert generator is not None and generator.text == "site-gen"
    assert generator.attrib == {"version": __version__}
    for paper, entry in zip(papers, root.findall(A + "entry"), strict=True):
        page = absolute_url(paper_url(paper.id), config.site_url)
        shown(entry.find(A + "title"), plain_text(paper.title))
        shown(entry.find(A + "id"), page)
        assert links(entry) == [{"href": page, "rel": "alternate", "type": "text/html"}] + [
            {"href": clean_text(link.url), "rel": "related",
             **({"title": clean_text(link.label)} if link.label else {})} for link in paper.links]
        shown(entry.find(A + "updated"), f"{paper.year}-01-01T00:00:00Z" if paper.year else updated)
        assert [name.text or "" for name in entry.findall(f"{A}author/{A}name")] == \
            [clean_text(catalog.author(a).name) for a in paper.all_author_ids]
        assert [c.attrib for c in entry.findall(A + "category")] == \
            [{"term": clean_text(code), "label": clean_text(catalog.subject(code).name)}
             for code in paper.subjects]
        summary = entry.find(A + "summary")
        if paper.abstract:
            shown(summary, plain_text(paper.abstract))
            assert summary is not None and summary.attrib == {"type": "text"}
        else:
            assert summary is None


SUBJECT_NAME = "Q&A <\"x\"> 'y'"
"""A subject's name is an arXiv name or a code the readers checked (``looks_like_category``),
never free text: feeds write it as it is, escaped but not cleaned."""


def small_catalog(text: list[str], year: int | None) -> Catalog:
    """Two papers and two authors carrying ``text`` everywhere a feed shows text."""
    papers = (
        Paper("p1", text[0], "dump", year, ("cs.LG", "x.Y"), text[1], ("a1", "a2"), (), False,
              True, (), (Link("code", "https://e.org/" + text[2], text[3]),)),
        Paper("p2", "Second", "dump", None, ("cs.LG",), "", ("a2",), ("a1",), True, True, ()),
    )
    authors = (Author("a1", text[4] or "A", ("p1", "p2")), Author("a2", "Bo Wu", ("p1", "p2")))
    subjects = (Subject("cs.LG", "Machine Learning", "cs", True, ("p1", "p2")),
                Subject("x.Y", SUBJECT_NAME, "x", False, ("p1",)))
    return Catalog(papers, authors, subjects)


@settings(max_examples=60, deadline=None)
@given(st.lists(HOSTILE, min_size=7, max_size=7), st.sampled_from([None, 2024]),
       st.sampled_from([None, datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)]))
def test_feeds_read_back_as_atom_showing_every_paper(text: list[str], year: int | None,
                                                    build_time: datetime | None) -> None:
    """Over hostile text: the feed parses, is laid out as ElementTree lays it out, and shows
    what it must (``assert_feed_shows``)."""
    catalog = small_catalog(text, year)
    config = Config(title=text[6], description=text[5], language="en")
    for description in (text[5], ""):
        config = replace(config, description=description)
        spec = FeedSpec("feed.xml", "", config.title, tuple(p.id for p in catalog.papers))
        root = read_feed(render_feed(spec, catalog, config, build_time))
        assert_feed_shows(root, spec, catalog, config, build_time)


# ---- JSON joined from pieces -------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(st.lists(HOSTILE, min_size=7, max_size=7))
def test_exports_and_search_json_are_the_whole_documents_encoded(text: list[str]) -> None:
    catalog = small_catalog(text, 2024)
    config = Config(title=text[6], site_url="https://e.org/x/")
    exports = export_outputs(catalog, config)
    assert exports[PAPERS_EXPORT] == encode_json(papers_document(catalog, config))
    assert exports[AUTHORS_EXPORT] == encode_json(authors_document(catalog, config))
    assert search_outputs(catalog)[SEARCH_FILE] == encode_json(search_index(catalog))
    one_shot = joined(search_files(catalog, SearchMemo(keep=False)))
    assert one_shot == search_outputs(catalog)
    assert joined(export_files(catalog, config, ExportMemo(keep=False))) == exports


def joined(stream: Iterable[tuple[str, bytes | list[bytes]]]) -> dict[str, bytes]:
    """A stream of files as ``site_files`` gives them, each name once."""
    files: dict[str, bytes] = {}
    for name, data in stream:
        assert name not in files
        files[name] = data if isinstance(data, bytes) else b"".join(data)
    return files


# ---- a Builder's memo --------------------------------------------------------------------

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
        entries = bibtex_entries(catalog, config.site_url, memo.citations)
        assert entries == bibtex_entries(catalog, config.site_url)
        kept = site_files(catalog, config, plan.routes, entries, None, memo)
        assert kept == site_files(catalog, config, plan.routes, entries, None)
        one_shot = SiteFilesMemo(keep=False)  # a one-shot build's: no pieces, streamed files
        assert joined(site_file_stream(catalog, config, plan.routes, entries, None,
                                       one_shot)) == kept
        assert not (one_shot.citations.files or one_shot.exports.papers or one_shot.search.docs
                    or one_shot.search.index or one_shot.feeds.entries or one_shot.sitemap)
        assert len(memo.citations.files) == (len(catalog.papers) if citation_files else 0)
        assert len(memo.citations.authors) == len(catalog.authors)
        assert len(memo.exports.papers) == len(catalog.papers)
        assert len(memo.exports.authors) == len(catalog.authors)
        assert len(memo.search.docs) == len(catalog.papers) + len(catalog.authors)
        builder.memory = replace(builder.memory, catalog=catalog)  # intern the next catalog


def test_a_one_shot_build_stages_each_site_file_before_the_next_is_made(make_project,
                                                                         monkeypatch) -> None:
    import site_gen.incremental.builder as build_module
    from site_gen.write.tree import Staging

    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    events: list[tuple[str, str]] = []
    stream = build_module.site_file_stream

    def watched(*args, **kwargs):
        for name, data in stream(*args, **kwargs):
            events.append(("made", name))
            yield name, data

    put, put_parts = Staging.put, Staging.put_parts
    monkeypatch.setattr(build_module, "site_file_stream", watched)
    monkeypatch.setattr(Staging, "put", lambda self, name, data: (
        events.append(("put", name)), put(self, name, data))[1])
    monkeypatch.setattr(Staging, "put_parts", lambda self, name, parts: (
        events.append(("parts", name)), put_parts(self, name, parts))[1])
    builder = Builder(project)
    assert builder.build().ok
    made = [name for kind, name in events if kind == "made"]
    in_parts = {SEARCH_FILE, PAPERS_EXPORT, AUTHORS_EXPORT}
    expected = [event for name in made
                for event in (("made", name), ("parts" if name in in_parts else "put", name))]
    assert len(made) > 10 and [e for e in events if e[1] in made] == expected
    assert not builder.site_memo.search.docs and not builder.site_memo.citations.files


def test_a_catalog_delta_names_what_changed_what_went_and_what_shows_it() -> None:
    from site_gen.incremental.cache import intern_catalog
    from site_gen.outputs.pieces import CatalogDelta

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
    from site_gen.incremental.cache import intern_catalog
    from site_gen.outputs.pieces import Carried, CatalogDelta

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
        files: dict[str, bytes] = {}
        for item in search_files(catalog, memo, delta):
            if isinstance(item, Carried):
                files.update((name, before[name]) for name in item.names)
            else:
                files[item[0]] = item[1] if isinstance(item[1], bytes) else b"".join(item[1])
        assert files == search_outputs(catalog)
        previous, before = catalog, files
    assert memo.sorted_terms == sorted(memo.vocabulary, key=lambda t: t.encode("utf-16-be"))
    assert "aardvark" not in memo.vocabulary and "graph" in memo.vocabulary
