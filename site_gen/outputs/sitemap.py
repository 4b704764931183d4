"""Discovery files: Routes -> ``sitemap.xml`` (absolute URLs) and ``robots.txt``.

Output stage, {output path: bytes}. Every HTML page but the 404 page and redirects is listed, in
route order, as an absolute URL under ``site_url``. No ``lastmod``: the build knows no honest date.
A sitemap file may list at most 50,000 URLs (sitemaps.org): a site with more pages gets
``sitemap-1.xml``, ``sitemap-2.xml``, ... and a ``sitemap.xml`` that indexes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from site_gen.plan.redirects import is_redirect
from site_gen.plan.routes import Route
from site_gen.plan.urls import NOT_FOUND, ROBOTS, SITEMAP, absolute_url, sitemap_part_url

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP_LIMIT = 50_000
"""URLs one sitemap file may list (sitemaps.org)."""


SitemapPart = Callable[[str, tuple[str, ...]], bytes]
"""A sitemap file's bytes given its name and the page URLs it lists."""


def sitemap_outputs(routes: Iterable[Route], site_url: str, limit: int | None = None,
                    part: SitemapPart | None = None) -> dict[str, bytes]:
    """``sitemap.xml`` (with its parts, past ``limit`` pages: ``SITEMAP_LIMIT`` unless given)
    and ``robots.txt`` pointing at it. ``part`` makes each file that lists pages
    (``render_sitemap``; a rebuild passes one that reuses last build's while they list the
    same pages)."""
    urls = tuple([route.url for route in routes
                  if route.url != NOT_FOUND and route.output.endswith(".html")
                  and not is_redirect(route)])
    part = part or (lambda name, listed: render_sitemap(listed, site_url))
    limit = limit or SITEMAP_LIMIT
    parts = [urls[start:start + limit] for start in range(0, len(urls), limit)]
    files: dict[str, bytes] = {}
    if len(parts) <= 1:
        files[SITEMAP] = part(SITEMAP, urls)
    else:
        names = [sitemap_part_url(n) for n in range(1, len(parts) + 1)]
        for name, listed in zip(names, parts):
            files[name] = part(name, listed)
        files[SITEMAP] = render_sitemap_index(names, site_url)
    return {**files, ROBOTS: render_robots(site_url)}


def render_sitemap(urls: Iterable[str], site_url: str) -> bytes:
    """A sitemaps.org 0.9 ``urlset`` with one ``loc`` per page URL."""
    return _xml("urlset", "url", urls, site_url)


def render_sitemap_index(names: Iterable[str], site_url: str) -> bytes:
    """A sitemaps.org 0.9 ``sitemapindex`` naming the sitemap files."""
    return _xml("sitemapindex", "sitemap", names, site_url)


def _xml(root: str, item: str, urls: Iterable[str], site_url: str) -> bytes:
    """What ElementTree writes for the tree of ``loc`` items, indented by one space: as
    text, since building and serializing 12,000 elements cost a tenth of a rebuild."""
    head = f'<?xml version="1.0" encoding="utf-8"?>\n<{root} xmlns="{SITEMAP_NS}"'
    entries = [f" <{item}>\n  <loc>{_escaped(absolute_url(url, site_url))}</loc>\n </{item}>\n"
               for url in urls]
    if not entries:
        return (head + " />\n").encode("utf-8")
    return (head + ">\n" + "".join(entries) + f"</{root}>\n").encode("utf-8")


def _escaped(text: str) -> str:
    """Element text as ElementTree escapes it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_robots(site_url: str) -> bytes:
    """Allow everything and name the sitemap (crawlers read robots.txt only at a host's root)."""
    return (f"User-agent: *\nAllow: /\n\nSitemap: {absolute_url(SITEMAP, site_url)}\n").encode()
