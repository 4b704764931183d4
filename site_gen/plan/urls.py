"""The only place that knows URL rules: page URLs, output paths and relative links.

URLs here are site-relative without a leading slash ("papers/rola/", "" for the home page);
directory URLs end in "/" and are written as ``<url>index.html``. A long list's later pages
are ``papers/page/<n>/``, ``authors/page/<n>/``, ``authors/<id>/page/<n>/`` and
``subjects/<code>/page/<n>/`` (``list_page_url``).

Files beside the pages (docs/deployment.md and docs/data-exports.md list them)::

    feed.xml  sitemap.xml (sitemap-<n>.xml beside it on sites of over 50,000 pages)  robots.txt
    papers.json  authors.json  search.json
    authors/<id>/papers.bib  authors/<id>/feed.xml  subjects/<code>/feed.xml
    papers/<id>/cite.bib  papers/<id>/cite.ris  papers/<id>/cite.csl.json  (citation_files)
"""

from __future__ import annotations

import re
from functools import lru_cache

from site_gen.util.text import MEMO

_SAFE_URL = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9._-]*/)*(?:[A-Za-z0-9][A-Za-z0-9._-]*)?")


def paper_url(paper_id: str) -> str:
    return f"papers/{paper_id}/"


def author_url(author_id: str) -> str:
    return f"authors/{author_id}/"


def subject_url(code: str) -> str:
    return f"subjects/{code}/"


def list_page_url(first: str, number: int) -> str:
    """Page ``number`` (from 1) of a list split into pages whose first page is at ``first``.

    The first page keeps the list's own URL, so links published before the list grew long
    still answer; later pages are ``<first>page/<n>/`` ("subjects/cs.LG/page/2/"). No paper,
    author or subject folder holds a ``page/<n>/`` folder of its own, so none can collide.
    """
    return first if number == 1 else f"{first}page/{number}/"


SITE_FEED = "feed.xml"
SITEMAP = "sitemap.xml"
ROBOTS = "robots.txt"
PAPERS_EXPORT = "papers.json"
AUTHORS_EXPORT = "authors.json"
NOT_FOUND = "404.html"
CITATION_FILES = {"bib": "cite.bib", "ris": "cite.ris", "csl": "cite.csl.json"}
"""Citation formats of a paper -> file name inside the paper's folder."""


def citation_url(paper_id: str, fmt: str) -> str:
    """A paper's citation file: ``fmt`` is "bib", "ris" or "csl"."""
    return paper_url(paper_id) + CITATION_FILES[fmt]


def author_bibtex_url(author_id: str) -> str:
    """One BibTeX file holding every paper of an author."""
    return author_url(author_id) + "papers.bib"


def author_feed_url(author_id: str) -> str:
    return author_url(author_id) + "feed.xml"


def subject_feed_url(code: str) -> str:
    return subject_url(code) + "feed.xml"


_REFRESH = re.compile(r"\s*\d+\s*[;,]\s*url\s*=\s*(\S+)", re.IGNORECASE)


def refresh_target(content: str) -> str:
    """The URL in a ``<meta http-equiv="refresh">`` ``content`` (``0; url=../x/``), or ""."""
    found = _REFRESH.match(content)
    return found.group(1).strip("'\" ") if found else ""


def sitemap_part_url(number: int) -> str:
    """Part ``number`` (from 1) of a sitemap too long for one file (``SITEMAP`` then indexes them)."""
    return f"sitemap-{number}.xml"


def check_url(url: str) -> str:
    """Reject any URL that could leave the output folder or is not plain ASCII path text."""
    if not _SAFE_URL.fullmatch(url) or any(part in (".", "..") for part in url.split("/")):
        raise ValueError(f"unsafe URL {url!r}")
    return url


@lru_cache(maxsize=MEMO)
def output_path(url: str) -> str:
    """Where a URL's file lives inside the output folder, relative to it ("/"-separated)."""
    check_url(url)
    return url + "index.html" if url == "" or url.endswith("/") else url


def relative_url(target: str, current: str) -> str:
    """A link from the page at ``current`` to ``target`` that works at any base path.

    Pages live in folders (``papers/x/`` is ``papers/x/index.html``) or at the root
    (``404.html``), so one ``../`` per folder of ``current`` reaches the site root. Links thus
    depend on the page's depth alone, which lets the renderer make a shared fragment's links
    for each page that shows it (``to_root``, ``link_from``).
    """
    return link_from(to_root(current), target)


def to_root(current: str) -> str:
    """The way from the page at ``current`` to the site root: one ``../`` per folder."""
    return "../" * current.count("/")


def link_from(base: str, target: str) -> str:
    """A link to ``target`` from a page whose links start with ``base`` (``to_root``, or a
    base path); ``./`` for the site root from the root itself."""
    return (base + target) or "./"


def absolute_url(target: str, site_url: str) -> str:
    """``site_url`` + target, for the places the web wants absolute URLs (canonical, feeds)."""
    return site_url + target
