"""The files beside the pages for a Builder that rebuilds: ``outputs.files.site_file_stream``,
remembered.

``kept_site_file_stream`` yields the files ``site_file_stream`` yields (it is the
specification; tests/test_incremental_outputs.py holds this variant to it on random edit
sequences), each made by the same piece functions of ``outputs/`` (a feed's entries and head,
a paper's BibTeX entry and citation files, an export entry, a sitemap part). It keeps each
piece with the inputs it was made from (``pieces.Pieces``) and reuses it while they are the
same. Given a ``CatalogDelta`` (what changed since the catalog the site on disk was built
from), a generator visits only what the delta names and names the files it did not make again
in a ``Carried``, which the Builder stages from the output. The search index's variant is
``incremental.search``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from typing import NamedTuple

from site_gen.incremental.pieces import Carried, CatalogDelta, Pieces, in_step
from site_gen.incremental.search import SearchMemo, kept_search_files
from site_gen.model import Catalog, Paper, newest_first
from site_gen.outputs.citations import (
    author_bibtex,
    author_papers,
    base_key,
    citation_keys,
    paper_citation_files,
    unique_keys,
)
from site_gen.outputs.exports import author_entry, export_parts, paper_entry
from site_gen.outputs.feeds import (
    FeedSpec,
    entries_once,
    entry_fallback,
    entry_names,
    entry_text,
    feed_bytes,
    feed_head,
    feed_papers,
    feed_specs,
    newest_first_ranks,
)
from site_gen.outputs.files import SiteFile, pages_files
from site_gen.outputs.sitemap import render_sitemap, sitemap_outputs
from site_gen.plan.routes import Route
from site_gen.plan.urls import SITE_FEED, author_bibtex_url, author_feed_url, subject_feed_url
from site_gen.read.config import Config
from site_gen.render.citation import author_names, bibtex_entry
from site_gen.util.jsonenc import JsonParts


class SiteFilesMemo:
    """Every generator's pieces, kept by a Builder between builds (``Builder.forget`` drops
    them with the rest of its memory)."""

    def __init__(self) -> None:
        self.citations = CitationMemo()
        self.exports = ExportMemo()
        self.feeds = FeedMemo()
        self.search = SearchMemo()
        self.sitemap: Pieces[bytes] = Pieces()
        self.settings: tuple[Config, datetime | None] | None = None
        """The settings of the last run, whether or not its files reached the output."""


def kept_site_file_stream(catalog: Catalog, config: Config, routes: tuple[Route, ...],
                          entries: dict[str, str], build_time: datetime | None,
                          memo: SiteFilesMemo, delta: CatalogDelta | None = None
                          ) -> Iterator[SiteFile | Carried]:
    """``site_file_stream``, in the same order, from ``memo``'s pieces. ``delta`` (a rebuild
    whose settings are the last build's) lets a generator visit only what changed."""
    if memo.settings != (config, build_time):  # pieces made with other settings since
        delta, memo.settings = None, (config, build_time)
    yield from pages_files(config)
    yield from kept_sitemap(routes, config.site_url, memo.sitemap).items()
    yield from kept_search_files(catalog, memo.search, delta)
    yield from kept_feed_files(catalog, config, build_time, memo.feeds, delta)
    yield from kept_citation_files(catalog, config.site_url, entries, memo.citations, delta,
                                   config.citation_files)
    yield from kept_export_files(catalog, config, memo.exports, delta)


def kept_sitemap(routes: tuple[Route, ...], site_url: str, memo: Pieces[bytes]
                 ) -> dict[str, bytes]:
    """``sitemap_outputs``, reusing last build's sitemap files while they list the same pages."""
    files = sitemap_outputs(routes, site_url, part=lambda name, urls: memo.get(
        name, (urls, site_url), lambda: render_sitemap(urls, site_url)))
    memo.done()
    return files


# ---- citations ----------------------------------------------------------------------------

class CitationMemo:
    """Citation pieces kept between builds: base keys, BibTeX entries, files per paper and
    per author."""

    def __init__(self) -> None:
        self.keys: Pieces[str] = Pieces()
        self.keys_made: Catalog | None = None
        """The catalog ``keys`` were last completed for: a catalog's keys are worked out once
        (``citation_keys``), so a build may take them from the catalog and leave ``keys``
        behind it."""
        self.bibtex: Pieces[str] = Pieces()
        self.files: Pieces[tuple[tuple[str, bytes], ...]] = Pieces()
        self.authors: Pieces[bytes] = Pieces()
        self.entries_made: _Entries | None = None
        """The catalog and site URL ``kept_bibtex_entries`` last answered for, and its answer."""
        self.files_made: tuple[Catalog, dict[str, str]] | None = None
        """The catalog ``kept_citation_files`` last made every file for, and the entries it used."""


class _Entries(NamedTuple):
    """What ``kept_bibtex_entries`` answered for a catalog and site URL, with its keys."""

    catalog: Catalog
    site_url: str
    keys: dict[str, str]
    entries: dict[str, str]


def kept_citation_keys(catalog: Catalog, memo: CitationMemo, delta: CatalogDelta | None = None
                       ) -> dict[str, str]:
    """``citation_keys``, each base key kept while its paper and first author's name are the
    same; given a ``delta`` from the catalog the keys were last worked out for, only the
    papers it shows changed are looked at again."""
    def make(made_for: Catalog) -> dict[str, str]:
        keys = _kept_keys(made_for, memo.keys, in_step(delta, memo.keys_made))
        memo.keys_made = made_for
        return keys
    return citation_keys(catalog, make)


def _kept_keys(catalog: Catalog, memo: Pieces[str], delta: CatalogDelta | None
               ) -> dict[str, str]:
    """``fresh_keys`` from kept base keys (``kept_citation_keys``)."""
    shown = delta.papers_shown if delta is not None else None
    author = catalog.author

    def base(paper: Paper) -> str:
        if shown is not None and paper.id not in shown:
            return memo.value(paper.id)
        ids = paper.all_author_ids
        first = author(ids[0]).name if ids else ""
        return memo.get(paper.id, (paper, first), lambda: base_key(paper, catalog))

    keys = unique_keys(catalog, base)
    if delta is None:
        memo.done()
    else:
        memo.settle(delta.papers_gone)
    return keys


def kept_bibtex_entries(catalog: Catalog, site_url: str, memo: CitationMemo,
                        delta: CatalogDelta | None = None) -> dict[str, str]:
    """``bibtex_entries``: an entry made last build from the same paper, names and key is
    reused. Given the ``delta`` from the catalog the memo last answered for (with the same
    site URL), only the papers it names, and those whose key moved, are looked at again."""
    made = memo.entries_made
    after = (in_step(delta, made.catalog)
             if made is not None and made.site_url == site_url else None)
    if after is not None and made is not None:
        keys, entries = _entries_after(catalog, site_url, after, memo, made)
    else:
        keys = kept_citation_keys(catalog, memo)
        entries = {p.id: _kept_entry(p, catalog, keys[p.id], site_url, memo.bibtex)
                   for p in catalog.papers}
        memo.bibtex.done()
    memo.entries_made = _Entries(catalog, site_url, keys, entries)
    return entries


def _kept_entry(paper: Paper, catalog: Catalog, key: str, site_url: str, memo: Pieces[str]
                ) -> str:
    """A paper's BibTeX entry, kept while the paper, its names and its key are the same."""
    names = author_names(paper, catalog)
    return memo.get(paper.id, (paper, names, key, site_url),
                    lambda: bibtex_entry(paper, catalog, key, site_url, names))


def _entries_after(catalog: Catalog, site_url: str, delta: CatalogDelta, memo: CitationMemo,
                   before: _Entries) -> tuple[dict[str, str], dict[str, str]]:
    """``kept_bibtex_entries`` (and its keys) from the last build's: made again for the
    papers the delta shows changed, and for those whose key moved (a paper that shares their
    base key)."""
    shown = delta.papers_shown
    keys = kept_citation_keys(catalog, memo, delta)
    fresh = {p.id: _kept_entry(p, catalog, keys[p.id], site_url, memo.bibtex)
             for p in catalog.papers
             if p.id in shown or keys[p.id] != before.keys.get(p.id)}
    memo.bibtex.settle(delta.papers_gone)
    old = before.entries
    return keys, {p.id: fresh.get(p.id) or old[p.id] for p in catalog.papers}


def kept_citation_files(catalog: Catalog, site_url: str, entries: dict[str, str],
                        memo: CitationMemo, delta: CatalogDelta | None = None,
                        paper_files: bool = False) -> Iterator[tuple[str, bytes] | Carried]:
    """``citation_files``, from kept files. Given the ``delta`` from the catalog the memo last
    made every file for (a rebuild with the same site URL), the files of papers whose BibTeX
    entry is the one they were made with, and of authors none of whose papers changed, come as
    one ``Carried``: an entry is made again exactly when what any of a paper's files is made
    from changed (``kept_bibtex_entries``)."""
    keys = kept_citation_keys(catalog, memo)
    made, memo.files_made = memo.files_made, None
    delta = in_step(delta, made[0] if made is not None else None)
    before = made[1] if made is not None and delta is not None else None
    carried: list[str] = []
    remade_papers: list[Paper] = []
    for paper in catalog.papers:
        entry, key = entries[paper.id], keys[paper.id]
        if before is not None and before.get(paper.id) is entry:
            if paper_files:
                carried += [name for name, _ in memo.files.value(paper.id)]
            continue
        remade_papers.append(paper)
        if not paper_files:
            continue
        names = author_names(paper, catalog)
        yield from memo.files.get(
            paper.id, (paper, names, key, entry, site_url),
            lambda: paper_citation_files(paper, catalog, key, entry, site_url, names))  # noqa: B023
    authors_remade = (delta.author_papers | {a for p in remade_papers for a in p.all_author_ids}
                      if delta is not None else frozenset())
    for author in catalog.authors:
        if before is not None and author.id not in authors_remade:
            carried.append(author_bibtex_url(author.id))
            continue
        mine = author_papers(author, catalog)
        texts = tuple([entries[pid] for pid in author.paper_ids])
        yield author_bibtex_url(author.id), memo.authors.get(
            author.id, (mine, texts), lambda: author_bibtex(mine, entries))  # noqa: B023
    if delta is not None:
        memo.files.settle(delta.papers_gone)
        memo.authors.settle(delta.authors_gone)
    else:
        memo.files.done()
        memo.authors.done()
    if carried:
        yield Carried(tuple(carried))
    memo.files_made = (catalog, entries)


# ---- feeds --------------------------------------------------------------------------------

class FeedMemo:
    """Entry texts by paper, feed heads and whole feeds by URL, kept between builds."""

    def __init__(self) -> None:
        self.entries: Pieces[str] = Pieces()
        self.heads: Pieces[str] = Pieces()
        self.feeds: Pieces[bytes] = Pieces()
        self.made: Catalog | None = None
        """The catalog every feed was last made (or carried) for."""


def kept_feed_files(catalog: Catalog, config: Config, build_time: datetime | None,
                    memo: FeedMemo, delta: CatalogDelta | None = None
                    ) -> Iterator[tuple[str, bytes] | Carried]:
    """``feed_files``, from kept entries, heads and feeds. Given the ``delta`` from the
    catalog the memo last made every feed for (a rebuild with the same settings), only the
    site feed and the feeds of authors and subjects the delta touches are made again; the
    others come as one ``Carried``."""
    delta, memo.made = in_step(delta, memo.made), None
    specs = feed_specs(catalog, config)
    carried: list[str] = []
    if delta is not None:
        touched = _feeds_touched(catalog, delta)
        carried = [spec.url for spec in specs if spec.url not in touched]
        specs = tuple(_newest(spec, catalog) for spec in specs if spec.url in touched)
        rank = newest_first_ranks(catalog, {i for spec in specs for i in spec.paper_ids})
    else:
        rank = newest_first_ranks(catalog)
    entry = entries_once(lambda paper, fallback: _kept_feed_entry(
        paper, catalog, config, fallback, memo.entries))
    for spec in specs:
        papers, updated = feed_papers(spec, catalog, build_time, rank)
        head = memo.heads.get(spec.url, (spec.title, spec.page_url, config, updated),
                              lambda: feed_head(spec, config, updated))  # noqa: B023
        body = (head, tuple([entry(p, entry_fallback(p, updated)) for p in papers]))
        yield spec.url, memo.feeds.get(spec.url, body, lambda: feed_bytes(*body))  # noqa: B023
    if delta is not None:
        if carried:
            yield Carried(tuple(carried))
        _settle_feeds(memo, delta)
    else:
        memo.entries.done()
        memo.heads.done()
        memo.feeds.done()
    memo.made = catalog


def _kept_feed_entry(paper: Paper, catalog: Catalog, config: Config, fallback: str,
                     memo: Pieces[str]) -> str:
    """A feed entry's text, kept while its paper and the names it shows are the same."""
    names, subjects = entry_names(paper, catalog)
    return memo.get((paper.id, fallback), (paper, names, subjects, config.site_url, fallback),
                    lambda: entry_text(paper, catalog, config, fallback))


def _settle_feeds(memo: FeedMemo, delta: CatalogDelta) -> None:
    """End a rebuild that visited only what changed: forget the pieces of what went."""
    gone = ([author_feed_url(a) for a in delta.authors_gone]
            + [subject_feed_url(c) for c in delta.subjects_gone])
    memo.heads.settle(gone)
    memo.feeds.settle(gone)
    memo.entries.settle([key for key in memo.entries.kept_keys() if isinstance(key, tuple)
                         and key[0] in delta.papers_gone] if delta.papers_gone else ())


def _newest(spec: FeedSpec, catalog: Catalog) -> FeedSpec:
    """The feed with only the papers it shows (the newest ``spec.limit``): the same bytes,
    and the site feed's papers need not all be ranked."""
    if len(spec.paper_ids) <= spec.limit:
        return spec
    paper = catalog.paper
    newest = heapq.nsmallest(spec.limit, spec.paper_ids, key=lambda i: newest_first(paper(i)))
    return replace(spec, paper_ids=tuple(newest))


def _feeds_touched(catalog: Catalog, delta: CatalogDelta) -> set[str]:
    """The URLs of the feeds a change may have changed: the site feed, and the feeds of the
    authors and subjects named, or of papers shown changed."""
    shown = [catalog.paper(i) for i in delta.papers_shown - delta.papers_gone]
    authors = delta.authors | delta.author_papers | {a for p in shown for a in p.all_author_ids}
    subjects = delta.subjects | delta.subject_papers | {c for p in shown for c in p.subjects}
    return ({SITE_FEED} | {author_feed_url(a) for a in authors}
            | {subject_feed_url(c) for c in subjects})


# ---- exports ------------------------------------------------------------------------------

class ExportMemo:
    """The JSON text of each paper's and author's export entry, kept between builds."""

    def __init__(self) -> None:
        self.papers: Pieces[bytes] = Pieces()
        self.authors: Pieces[bytes] = Pieces()
        self.made: Catalog | None = None
        """The catalog every entry was last made (or reused) for."""


def kept_export_files(catalog: Catalog, config: Config, memo: ExportMemo,
                      delta: CatalogDelta | None = None) -> Iterator[tuple[str, JsonParts]]:
    """``export_files``, from kept entries. Given the ``delta`` from the catalog the memo last
    made every entry for (a rebuild with the same settings), only the entries of what it
    names (or of papers shown changed) are looked at again."""
    after, memo.made = in_step(delta, memo.made), None
    return export_parts(catalog, config, _kept_paper_entries(catalog, config, memo, after),
                        _kept_author_entries(catalog, config, memo, after))


def _kept_paper_entries(catalog: Catalog, config: Config, memo: ExportMemo,
                        after: CatalogDelta | None) -> Iterator[bytes]:
    """Each paper's entry, in catalog order, as ``papers.json`` takes it."""
    site_url, files = config.site_url, config.citation_files
    shown = after.papers_shown if after is not None else frozenset()
    value = memo.papers.value
    for p in catalog.papers:
        if after is not None and p.id not in shown:
            yield value(p.id)
            continue
        names = author_names(p, catalog)
        yield memo.papers.get(p.id, (p, names, site_url, files),
                              lambda: paper_entry(p, catalog, site_url, files, names))  # noqa: B023
    if after is not None:
        memo.papers.settle(after.papers_gone)
    else:
        memo.papers.done()


def _kept_author_entries(catalog: Catalog, config: Config, memo: ExportMemo,
                         after: CatalogDelta | None) -> Iterator[bytes]:
    """Each author's entry, in catalog order, as ``authors.json`` takes it; the memo is
    complete once the last is taken."""
    remade = (after.authors | after.author_papers | after.author_profiles
              if after is not None else frozenset())
    value = memo.authors.value
    for a in catalog.authors:
        if after is not None and a.id not in remade:
            yield value(a.id)
            continue
        yield memo.authors.get(a.id, (a, a.members, a.own_profiles, config.site_url),
                               lambda: author_entry(a, config.site_url))  # noqa: B023
    if after is not None:
        memo.authors.settle(after.authors_gone)
    else:
        memo.authors.done()
    memo.made = catalog  # both files made: the last part taken
