"""The only place that knows URL rules: page URLs, output paths and relative links.

URLs here are site-relative without a leading slash ("papers/rola/", "" for the home page);
directory URLs end in "/" and are written as ``<url>index.html``.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_SAFE_URL = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9._-]*/)*(?:[A-Za-z0-9][A-Za-z0-9._-]*)?")


def paper_url(paper_id: str) -> str:
    return f"papers/{paper_id}/"


def author_url(author_id: str) -> str:
    return f"authors/{author_id}/"


def subject_url(code: str) -> str:
    return f"subjects/{code}/"


def check_url(url: str) -> str:
    """Reject any URL that could leave the output folder or is not plain ASCII path text."""
    if not _SAFE_URL.fullmatch(url) or any(part in (".", "..") for part in url.split("/")):
        raise ValueError(f"unsafe URL {url!r}")
    return url


def output_path(url: str) -> PurePosixPath:
    """Where a URL's file lives inside the output folder."""
    check_url(url)
    return PurePosixPath(url + "index.html" if url == "" or url.endswith("/") else url)


def relative_url(target: str, current: str) -> str:
    """A link from the page at ``current`` to ``target`` that works at any base path.

    Every page lives in a folder (``papers/x/`` -> ``papers/x/index.html``) or at the root
    (``404.html``), so climbing one ``../`` per folder of ``current`` reaches the site root.
    """
    if target == current and current.endswith("/"):
        return "./"
    depth = current.count("/")
    return ("../" * depth + target) or "./"


def absolute_url(target: str, site_url: str) -> str:
    """``site_url`` + target, for the places the web wants absolute URLs (canonical, feeds)."""
    return site_url + target
