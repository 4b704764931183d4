"""The one interface of the outputs stage: every file beside the pages, one at a time.

``site_file_stream`` yields (name, bytes or parts) for GitHub Pages' files, the sitemap, the
search index, feeds, citation files and data exports, each made when it is asked for, so the
writer can stage it and let it go before the next is made. ``SiteFilesMemo`` holds each
generator's pieces between the builds of one Builder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

from site_gen.model import Catalog
from site_gen.outputs.citations import CitationMemo, citation_files
from site_gen.outputs.exports import ExportMemo, export_files
from site_gen.outputs.feeds import FeedMemo, feed_files
from site_gen.outputs.pieces import Carried, CatalogDelta, Pieces, made_files
from site_gen.outputs.search import SearchMemo, search_files
from site_gen.outputs.sitemap import sitemap_outputs
from site_gen.plan.routes import Route
from site_gen.read.config import Config
from site_gen.util.jsonenc import JsonParts

NOJEKYLL, CNAME = ".nojekyll", "CNAME"
"""Files GitHub Pages reads: no Jekyll processing; the custom domain."""


class SiteFilesMemo:
    """Every generator's pieces, kept by a Builder between builds (``forget`` drops them).

    With ``keep=False`` (a one-shot build) the pieces are not kept at all: each generator
    then holds only what its files need at once, and lets each file go once it is written.
    """

    def __init__(self, keep: bool = True) -> None:
        self.keep = keep
        self.citations = CitationMemo(keep)
        self.exports = ExportMemo(keep)
        self.feeds = FeedMemo(keep)
        self.search = SearchMemo(keep)
        self.sitemap: Pieces[bytes] = Pieces(keep)

    def drop(self, part: str) -> None:
        """Forget one generator's pieces (``"search"``, ``"feeds"``, ...)."""
        memo = getattr(self, part)
        setattr(self, part, type(memo)(self.keep))


def site_files(catalog: Catalog, config: Config, routes: tuple[Route, ...],
               entries: dict[str, str], build_time: datetime | None,
               memo: SiteFilesMemo | None = None) -> dict[str, bytes]:
    """Everything beside the HTML pages: search, feeds, sitemap, citations, exports, Pages files.

    ``memo`` (kept by a Builder) lets each generator reuse the pieces of unchanged papers.
    """
    files: dict[str, bytes] = {}
    for name, data in made_files(site_file_stream(catalog, config, routes, entries, build_time,
                                                  memo)):
        assert name not in files, f"two generators write {name}"  # fixed names in plan/urls.py
        files[name] = data if isinstance(data, bytes) else b"".join(data)
    return files


SiteFile = tuple[str, bytes | JsonParts]
"""A file beside the pages: its name, and its bytes or the parts they join from (a big JSON
document, for ``Staging.put_parts``)."""


def site_file_stream(catalog: Catalog, config: Config, routes: tuple[Route, ...],
                     entries: dict[str, str], build_time: datetime | None,
                     memo: SiteFilesMemo | None = None, delta: CatalogDelta | None = None
                     ) -> Iterator[SiteFile | Carried]:
    """``site_files`` one file at a time, each made when it is asked for, so that it can be
    written and let go before the next is made.

    A memo that keeps nothing (``SiteFilesMemo(keep=False)``, a one-shot build) holds no
    generator's pieces beyond the file being made; each generator's leftovers go when it ends.
    ``delta`` (a rebuild whose settings are the last build's) lets a generator visit only what
    changed, and name the files it did not make again in a ``Carried``.
    """
    memo = memo or SiteFilesMemo()
    yield from route_file_stream(config, routes, memo)
    yield from catalog_file_stream(catalog, config, entries, build_time, memo, delta)


def route_file_stream(config: Config, routes: tuple[Route, ...], memo: SiteFilesMemo
                      ) -> Iterator[SiteFile]:
    """The files beside the pages that need the routes, or nothing: the sitemap and Pages'."""
    yield NOJEKYLL, b""
    if config.cname:
        yield CNAME, config.cname.encode("utf-8") + b"\n"
    yield from sitemap_outputs(routes, config.site_url, memo.sitemap).items()


def catalog_file_stream(catalog: Catalog, config: Config, entries: dict[str, str],
                        build_time: datetime | None, memo: SiteFilesMemo,
                        delta: CatalogDelta | None = None) -> Iterator[SiteFile | Carried]:
    """The files beside the pages made from the catalog alone (``site_file_stream``)."""
    generators: tuple[tuple[str, Callable[[], Iterator[SiteFile | Carried]]], ...] = (
        ("search", lambda: search_files(catalog, memo.search, delta)),
        ("feeds", lambda: feed_files(catalog, config, build_time, memo.feeds, delta)),
        ("citations", lambda: citation_files(catalog, config.site_url, entries, memo.citations,
                                             delta, config.citation_files)),
        ("exports", lambda: export_files(catalog, config, memo.exports, delta)),
    )
    for part, make in generators:
        yield from make()
        if not memo.keep:
            memo.drop(part)
