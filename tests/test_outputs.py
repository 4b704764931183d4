"""The files beside the pages (outputs/), made the plain way a one-shot build makes them.

Feeds are joined from strings; here they are parsed back with ElementTree, over hostile text,
and checked to show what an Atom reader must find, laid out as ElementTree writes. Exports and
search.json are joined from entries' JSON texts; the reference is ``encode_json`` of the whole
document. A one-shot build stages each file before the next is made. (The rebuilding variants
are held to these generators in tests/test_incremental_outputs.py.)
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import UTC, datetime

from conftest import abstract, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen import __version__
from site_gen.incremental.builder import Builder
from site_gen.model import Author, Catalog, Link, Paper, Subject, newest_first
from site_gen.outputs.exports import (
    authors_document,
    export_outputs,
    papers_document,
)
from site_gen.outputs.feeds import ATOM, FeedSpec, _newest_date, _timestamp, render_feed
from site_gen.outputs.search import (
    SEARCH_FILE,
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


# ---- a one-shot build ---------------------------------------------------------------

ANN = [(2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"]),
       (2023, "Phase Multiplexing for Rollouts", abstract("multiplexing"), ["cs.DC"]),
       (2022, "Elastic Caches for Long Contexts", abstract("caches"), ["cs.LG", "cs.DC"])]


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
    assert builder.site_memo is None  # it keeps no pieces: the plain generators made them
