"""Discovery files: Routes -> ``sitemap.xml`` (absolute URLs) and ``robots.txt``.

Output stage, {output path: bytes}. Every HTML page but the 404 page and redirects is listed, in route
order, as an absolute URL under ``site_url``. No ``lastmod``: the build knows no honest date.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

from .memo import Pieces
from .redirects import is_redirect
from .routes import Route
from .urls import NOT_FOUND, ROBOTS, SITEMAP, absolute_url

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def sitemap_outputs(routes: Iterable[Route], site_url: str,
                    memo: Pieces[bytes] | None = None) -> dict[str, bytes]:
    """``sitemap.xml`` and ``robots.txt`` pointing at it.

    With a memo, last build's sitemap is reused while the site has the same pages.
    """
    routes = tuple(routes)
    urls = tuple([route.url for route in routes])
    memo = memo if memo is not None else Pieces()
    sitemap = memo.get(SITEMAP, (urls, site_url), lambda: render_sitemap(routes, site_url))
    memo.done()
    return {SITEMAP: sitemap, ROBOTS: render_robots(site_url)}


def render_sitemap(routes: Iterable[Route], site_url: str) -> bytes:
    """A sitemaps.org 0.9 ``urlset`` with one ``loc`` per page."""
    urlset = ET.Element("urlset", {"xmlns": SITEMAP_NS})
    for route in routes:
        if route.url != NOT_FOUND and route.output.endswith(".html") and not is_redirect(route):
            ET.SubElement(ET.SubElement(urlset, "url"), "loc").text = absolute_url(route.url, site_url)
    ET.indent(urlset, space=" ")
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(urlset, "utf-8") + b"\n"


def render_robots(site_url: str) -> bytes:
    """Allow everything and name the sitemap (crawlers read robots.txt only at a host's root)."""
    return (f"User-agent: *\nAllow: /\n\nSitemap: {absolute_url(SITEMAP, site_url)}\n").encode()
