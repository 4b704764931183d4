"""``site-gen check``: a built output folder -> Diagnostics naming the page, line and link.

Not a pipeline stage: it reads what the build wrote, as GitHub Pages serves it at ``site_url``
(possibly under ``/<repo>/``), and fetches nothing. It checks that

* every internal link, asset, form target, search index and fragment resolves, and so do the
  ``url`` and ``contentUrl`` values of JSON-LD blocks;
* resources (scripts, styles, icons, images, the search index) come from the site's origin,
  and links on the site's own origin stay under its base path;
* ``404.html`` works at any depth, since Pages serves it for every missing path;
* feeds, the sitemap and JSON files parse, and the site URLs in them resolve;
* no file is a symlink and everything is readable by all, as Pages requires.
"""

from __future__ import annotations

import json
import os
import re
import stat
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from site_gen.plan.urls import NOT_FOUND, ROBOTS, refresh_target
from site_gen.util.diagnostics import Diagnostic, error

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
DEEP_PROBE = "no/such/page/"
"""Where the checker pretends Pages served 404.html, to prove its links work at any depth."""
_RESOURCE_RELS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest",
                  "apple-touch-icon", "mask-icon"}
_RESOURCE_TAGS = {"script", "img", "iframe", "source", "video", "audio", "track", "embed", "object",
                  "input"}
_SITE_META = {"og:url", "citation_abstract_html_url", "citation_public_url"}
_JSONLD_URL_KEYS = ("url", "contentUrl")
_CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")


@dataclass(frozen=True, slots=True)
class Ref:
    """One URL a file points at, where it stands, and whether the browser loads it."""

    line: int
    url: str
    resource: bool


@dataclass(slots=True)
class _Scan:
    """What an HTML page holds: element ids and the URLs it points at."""

    ids: set[str] = field(default_factory=set)
    refs: list[Ref] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The outcome of a check: problems, and what was looked at."""

    diagnostics: tuple[Diagnostic, ...]
    files: int
    pages: int
    links: int
    external: int

    @property
    def ok(self) -> bool:
        return not self.diagnostics


class _PageParser(HTMLParser):
    """Collects ids and every URL-bearing attribute, with line numbers."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scan = _Scan()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        line = self.getpos()[0]
        if "id" in values:
            self.scan.ids.add(values["id"])
        if tag == "a" and "name" in values:
            self.scan.ids.add(values["name"])
        for url, resource in _urls_of(tag, values):
            self.scan.refs.append(Ref(line, url, resource))
        if tag == "script" and values.get("type") == "application/ld+json":
            self._jsonld = (line, [])

    handle_startendtag = handle_starttag
    _jsonld: tuple[int, list[str]] | None = None
    """The line and text so far of the JSON-LD block being read."""

    def handle_data(self, data: str) -> None:
        if self._jsonld is not None:
            self._jsonld[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._jsonld is not None:
            line, parts = self._jsonld
            self._jsonld = None
            self.scan.refs += [Ref(line, url, False) for url in _jsonld_urls("".join(parts))]


def _urls_of(tag: str, values: dict[str, str]) -> Iterator[tuple[str, bool]]:
    """(URL, loaded by the browser?) for each URL-bearing attribute of one element."""
    rels = set(values.get("rel", "").lower().split())
    for name in ("href", "src", "action", "poster", "data-index", "data-src"):
        if name in values:
            loaded = (tag in _RESOURCE_TAGS or name in ("poster", "data-index", "data-src")
                      or (tag == "link" and bool(rels & _RESOURCE_RELS)))
            yield values[name].strip(), loaded
    for candidate in values.get("srcset", "").split(","):
        if candidate.strip():
            yield candidate.split()[0], True
    if tag == "meta" and (values.get("property") or values.get("name")) in _SITE_META:
        yield values.get("content", "").strip(), False
    if tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
        yield refresh_target(values.get("content", "")), False



def _jsonld_urls(text: str) -> list[str]:
    """The ``url`` and ``contentUrl`` strings anywhere in a JSON-LD block (none if it does
    not parse: a page's scripts are the browser's business)."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    found: list[str] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found += [v.strip() for k, v in item.items() if k in _JSONLD_URL_KEYS and isinstance(v, str)]
            stack += item.values()
        elif isinstance(item, list):
            stack += item
    return found


def scan_html(text: str) -> _Scan:
    """Parse one HTML page."""
    parser = _PageParser()
    parser.feed(text)
    parser.close()
    return parser.scan


class _Site:
    """A built site on disk, served at ``site_url``: maps URLs to files."""

    def __init__(self, root: Path, site_url: str) -> None:
        self.root = root
        self.site_url = site_url if site_url.endswith("/") else site_url + "/"
        parts = urlsplit(self.site_url)
        self.origin = (parts.scheme, parts.netloc.lower())
        self.base = parts.path or "/"

    def url_of(self, rel: str) -> str:
        """The absolute URL a file is served at (``x/index.html`` -> ``x/``)."""
        if rel == "index.html" or rel.endswith("/index.html"):
            rel = rel[: -len("index.html")]
        return self.site_url + rel

    def resolve(self, url: str) -> tuple[str | None, str]:
        """(file path relative to the root, "") for a site URL; (None, problem) when broken;
        (None, "") when the URL is not on the site's origin."""
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc.lower()) != self.origin:
            return None, ""
        path = unquote(parts.path)
        if path == self.base.rstrip("/"):
            path = self.base
        if not path.startswith(self.base):
            return None, f"points outside the site's base path {self.base}"
        rel = path[len(self.base):]
        if rel == "" or rel.endswith("/"):
            rel += "index.html"
        target = self.root / rel
        if target.is_file():
            return rel, ""
        if target.is_dir() and (target / "index.html").is_file():
            return rel.rstrip("/") + "/index.html", ""  # Pages redirects to the slash URL
        return None, f"no such file {rel}"


def check_site(root: Path, site_url: str) -> CheckReport:
    """Check every file under ``root`` as if served at ``site_url``."""
    site = _Site(root, site_url)
    problems: list[Diagnostic] = []
    files = _walk(root, problems)
    scans = {rel: scan_html(_read(root / rel)) for rel in files if rel.endswith(".html")}
    links = external = 0
    for rel in files:
        refs = _refs_of(root, rel, scans)
        for ref in refs:
            links += 1
            external += _check_ref(site, scans, rel, site.url_of(rel), ref, problems)
        if rel == NOT_FOUND:
            _check_deep_404(site, scans, refs, problems)
    return CheckReport(tuple(dict.fromkeys(problems)), len(files), len(scans), links, external)


def _walk(root: Path, problems: list[Diagnostic]) -> list[str]:
    """Every regular file, sorted; symlinks and unreadable entries are problems."""
    found = []
    for folder, dirs, names in os.walk(root):
        for name in sorted(dirs + names):
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                problems.append(error(rel, 0, "is a symlink; GitHub Pages rejects artifacts with links"))
            elif stat.S_ISDIR(info.st_mode) and info.st_mode & 0o555 != 0o555:
                problems.append(error(rel, 0, "folder is not readable and searchable by everyone"))
            elif stat.S_ISREG(info.st_mode):
                if info.st_mode & 0o444 != 0o444:
                    problems.append(error(rel, 0, "file is not readable by everyone"))
                found.append(rel)
        dirs[:] = [d for d in dirs if not (Path(folder) / d).is_symlink()]
    return sorted(found)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _refs_of(root: Path, rel: str, scans: dict[str, _Scan]) -> list[Ref]:
    """The URLs one file points at, by its kind; unparseable files become problems later."""
    if rel in scans:
        return scans[rel].refs
    if rel.endswith(".css"):
        text = _read(root / rel)
        return [Ref(text.count("\n", 0, m.start()) + 1, m.group(2).strip(), True)
                for m in _CSS_URL.finditer(text)]
    return []


def _check_ref(site: _Site, scans: dict[str, _Scan], rel: str, base_url: str, ref: Ref,
               problems: list[Diagnostic]) -> int:
    """Check one reference; returns 1 when it leaves the site (not fetched), else 0."""
    value = ref.url
    scheme = urlsplit(value).scheme.lower()
    if value.startswith("#"):  # the document itself, wherever it is served
        fragment = unquote(value[1:])
        if fragment and fragment != "top" and rel in scans and fragment not in scans[rel].ids:
            problems.append(error(rel, ref.line, f"broken fragment {value!r}: no element with "
                                                 f"id {fragment!r} on this page"))
        return 0
    if not value:
        return 0
    if scheme == "javascript":
        problems.append(error(rel, ref.line, f"javascript: URL {value[:60]!r}"))
        return 0
    if scheme in ("mailto", "tel", "data"):
        return 0
    url = urljoin(base_url, value)
    target, problem = site.resolve(url)
    if problem:
        problems.append(error(rel, ref.line, f"broken {'asset' if ref.resource else 'link'} "
                                             f"{value!r}: {problem}"))
        return 0
    if target is None:
        if ref.resource:
            problems.append(error(rel, ref.line, f"loads {value!r} from another origin; "
                                                 "ship every asset with the site"))
        return 1
    fragment = unquote(urlsplit(url).fragment)
    if fragment and fragment != "top" and target in scans and fragment not in scans[target].ids:
        problems.append(error(rel, ref.line, f"broken fragment {value!r}: {target} has no "
                                             f"element with id {fragment!r}"))
    return 0


def _check_deep_404(site: _Site, scans: dict[str, _Scan], refs: list[Ref],
                    problems: list[Diagnostic]) -> None:
    """404.html is served at any missing URL: its links must work from a deep one too."""
    deep = site.site_url + DEEP_PROBE
    for ref in refs:
        found: list[Diagnostic] = []
        _check_ref(site, scans, NOT_FOUND, deep, ref, found)
        for problem in found:
            problems.append(error(problem.path, problem.line,
                                  f"{problem.message} (when GitHub Pages serves 404.html at "
                                  f"/{DEEP_PROBE}; use base-path-absolute links there)"))


def check_data_files(root: Path, site_url: str) -> list[Diagnostic]:
    """Feeds, sitemap, JSON and robots.txt parse, and the site URLs they name resolve."""
    site = _Site(root, site_url)
    problems: list[Diagnostic] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink() or not path.is_file():
            continue
        if rel.endswith(".xml"):
            problems += _check_xml(site, rel)
        elif rel.endswith(".json"):
            try:
                json.loads(path.read_bytes())
            except ValueError as exc:
                problems.append(error(rel, 0, f"not valid JSON: {exc}"))
        elif rel == ROBOTS:
            problems += _check_robots(site, rel)
    return problems


def _check_xml(site: _Site, rel: str) -> list[Diagnostic]:
    try:
        root = ET.parse(site.root / rel).getroot()
    except ET.ParseError as exc:
        return [error(rel, exc.position[0], f"not well-formed XML: {exc}")]
    if root.tag == f"{ATOM}feed":
        return _check_feed(site, rel, root)
    if root.tag in (f"{SITEMAP}urlset", f"{SITEMAP}sitemapindex"):
        return _check_sitemap(site, rel, root)
    return []


def _check_feed(site: _Site, rel: str, feed: ET.Element) -> list[Diagnostic]:
    problems = []
    for element in [feed, *feed.findall(f"{ATOM}entry")]:
        for required in ("id", "title", "updated"):
            if element.find(f"{ATOM}{required}") is None:
                what = "feed" if element is feed else "entry"
                problems.append(error(rel, 0, f"Atom {what} without <{required}>"))
    for link in feed.iter(f"{ATOM}link"):
        href = link.get("href", "")
        problems += _site_url_problems(site, rel, href, "feed link")
    return problems


def _check_sitemap(site: _Site, rel: str, urlset: ET.Element) -> list[Diagnostic]:
    problems = []
    for loc in urlset.iter(f"{SITEMAP}loc"):
        url = (loc.text or "").strip()
        if not url.startswith(site.site_url):
            problems.append(error(rel, 0, f"sitemap URL {url!r} is not an absolute URL "
                                          f"under {site.site_url}"))
        else:
            problems += _site_url_problems(site, rel, url, "sitemap URL")
    return problems


def _check_robots(site: _Site, rel: str) -> list[Diagnostic]:
    problems = []
    for number, line in enumerate(_read(site.root / rel).splitlines(), start=1):
        name, _, value = line.partition(":")
        if name.strip().lower() == "sitemap":
            problems += [error(rel, number, d.message)
                         for d in _site_url_problems(site, rel, value.strip(), "sitemap URL")]
    return problems


def _site_url_problems(site: _Site, rel: str, url: str, what: str) -> list[Diagnostic]:
    _, problem = site.resolve(url)
    return [error(rel, 0, f"broken {what} {url!r}: {problem}")] if problem else []


def infer_site_url(root: Path) -> str | None:
    """The site URL a built site states: its home page's canonical link."""
    index = root / "index.html"
    if not index.is_file():
        return None
    finder = _CanonicalFinder()
    finder.feed(_read(index))
    return finder.url


class _CanonicalFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.url: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link" and values.get("rel") == "canonical" and self.url is None:
            self.url = values.get("href")


def check(root: Path, site_url: str) -> CheckReport:
    """Everything: pages and assets, then feeds, sitemap and data files."""
    report = check_site(root, site_url)
    more = check_data_files(root, site_url)
    return CheckReport(report.diagnostics + tuple(more), report.files, report.pages,
                       report.links, report.external)
