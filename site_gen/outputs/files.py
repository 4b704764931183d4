"""The one interface of the outputs stage: every file beside the pages, one at a time.

``site_file_stream`` yields (name, bytes or parts) for GitHub Pages' files, the sitemap, the
search index, feeds, citation files and data exports, each made when it is asked for, so the
writer can stage it and let it go before the next is made. It is the specification of these
files: a Builder that rebuilds makes the same ones from kept pieces
(``incremental.outputs.kept_site_file_stream``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime

from site_gen.model import Catalog
from site_gen.outputs.citations import bibtex_entries, citation_files
from site_gen.outputs.exports import export_files
from site_gen.outputs.feeds import feed_files
from site_gen.outputs.search import search_files
from site_gen.outputs.sitemap import sitemap_outputs
from site_gen.plan.routes import Route
from site_gen.read.config import Config
from site_gen.util.jsonenc import JsonParts

NOJEKYLL, CNAME = ".nojekyll", "CNAME"
"""Files GitHub Pages reads: no Jekyll processing; the custom domain."""

SiteFile = tuple[str, bytes | JsonParts]
"""A file beside the pages: its name, and its bytes or the parts they join from (a big JSON
document, for ``Staging.put_parts``)."""


def site_files(catalog: Catalog, config: Config, routes: tuple[Route, ...],
               entries: dict[str, str], build_time: datetime | None) -> dict[str, bytes]:
    """Everything beside the HTML pages: search, feeds, sitemap, citations, exports, Pages files."""
    return joined(site_file_stream(catalog, config, routes, entries, build_time))


def joined(stream: Iterator[SiteFile]) -> dict[str, bytes]:
    """A stream of files as bytes by name; each name comes once (fixed in plan/urls.py)."""
    files: dict[str, bytes] = {}
    for name, data in stream:
        assert name not in files, f"two generators write {name}"
        files[name] = data if isinstance(data, bytes) else b"".join(data)
    return files


def site_file_stream(catalog: Catalog, config: Config, routes: tuple[Route, ...],
                     entries: dict[str, str], build_time: datetime | None
                     ) -> Iterator[SiteFile]:
    """``site_files`` one file at a time, each made when it is asked for, so that it can be
    written and let go before the next is made. ``entries``: ``bibtex_entries`` (the pages
    show them too)."""
    yield from route_file_stream(config, routes)
    yield from catalog_file_stream(catalog, config, entries, build_time)


def route_file_stream(config: Config, routes: tuple[Route, ...]) -> Iterator[SiteFile]:
    """The files beside the pages that need the routes, or nothing: the sitemap and Pages'."""
    yield from pages_files(config)
    yield from sitemap_outputs(routes, config.site_url).items()


def pages_files(config: Config) -> Iterator[SiteFile]:
    """GitHub Pages' own files: ``.nojekyll``, and ``CNAME`` for a custom domain."""
    yield NOJEKYLL, b""
    if config.cname:
        yield CNAME, config.cname.encode("utf-8") + b"\n"


def catalog_file_stream(catalog: Catalog, config: Config, entries: dict[str, str],
                        build_time: datetime | None) -> Iterator[SiteFile]:
    """The files beside the pages made from the catalog alone (``site_file_stream``)."""
    yield from search_files(catalog)
    yield from listing_file_stream(catalog, config, entries, build_time)
    yield from export_files(catalog, config)


def finding_file_stream(catalog: Catalog, config: Config, build_time: datetime | None,
                        listings: bool = True) -> Iterator[SiteFile]:
    """The search index and, with ``listings``, the feeds and citations (their BibTeX
    entries made here): what a one-shot build makes in a process of its own
    (``incremental.builder._Ahead``)."""
    yield from search_files(catalog)
    if listings:
        yield from listing_file_stream(catalog, config, bibtex_entries(catalog, config.site_url),
                                       build_time)


def listing_file_stream(catalog: Catalog, config: Config, entries: Mapping[str, str],
                        build_time: datetime | None) -> Iterator[SiteFile]:
    """The feeds and citations (a one-shot build makes these, and the search index, in a
    process of its own, or these in the build's: ``incremental.builder._Ahead``)."""
    yield from feed_files(catalog, config, build_time)
    yield from citation_files(catalog, config.site_url, entries, config.citation_files)
