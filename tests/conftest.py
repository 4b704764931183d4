"""Shared fixtures: projects built from inline files, the demo site built once, and
``serve_directory``, the one static HTTP server the tests serve a built site with."""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import pytest

from site_gen.incremental.builder import Builder
from site_gen.pipeline import BuildResult

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "content" / "dumps"


def pytest_configure(config: pytest.Config) -> None:
    """With ``SITE_GEN_WHEEL`` set (scripts/test), the tests must run against that wheel,
    installed, not against this checkout."""
    import site_gen

    if os.environ.get("SITE_GEN_WHEEL") and REPO in Path(site_gen.__file__).resolve().parents:
        raise pytest.UsageError(f"SITE_GEN_WHEEL is set but site_gen is imported from "
                                f"{site_gen.__file__}, this checkout")

LISTING = """arXiv subjects

{owner}

Publications and source records attributed to {owner}.

{count}Linked to original sources

{records}"""


def listing_dump(owner: str, records: list[tuple[int | None, str, str, list[str]]],
                 count: str | None = None) -> str:
    """A listing-format dump from (year, title, abstract, subjects) tuples."""
    body = []
    for year, title, abstract, subjects in records:
        body.append(f"arXiv{year or ''}\n\n{title}\n\n{abstract}\n\n"
                    + "".join(f"{s}↗\n\n" for s in subjects))
    n = len(records)
    count = count or f"{n} record{'s' if n != 1 else ''}"
    return LISTING.format(owner=owner, count=count, records="".join(body))


def coauthor_dump(owner: str, entries: list[tuple[str, str]]) -> str:
    """A co-author dump from (author list, abstract) pairs."""
    return owner + "\n\n" + "".join(f"{authors}\n\n{abstract}\n\n" for authors, abstract in entries)


def abstract(topic: str, n: int = 6) -> str:
    """A realistic-length abstract that differs by topic."""
    sentences = [f"We study {topic} in large language model systems.",
                 f"Existing approaches to {topic} waste accelerator time and memory.",
                 f"We present a scheduler for {topic} that overlaps phases.",
                 f"It adapts to {topic} workloads without manual tuning.",
                 f"Experiments on {topic} benchmarks show a 1.5x speedup.",
                 f"The code for {topic} is open source."]
    return " ".join(sentences[:n])


def write_files(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``{relative path: text or bytes}`` under ``root``."""
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[Mapping[str, str | bytes]], Path]:
    """A project folder holding the given files (paths relative to the project)."""
    def make(files: Mapping[str, str | bytes]) -> Path:
        project = tmp_path / "project"
        project.mkdir(exist_ok=True)
        defaults = {"content/site.yaml": "title: Test site\nsite_url: https://example.org/\n"}
        return write_files(project, {**defaults, **files})
    return make


def build(project: Path, output: Path | None = None, strict: bool = False) -> BuildResult:
    """Build a project, returning the BuildResult."""
    return Builder(project, output).build(strict=strict)


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's demo project (content/ only)."""
    project = tmp_path_factory.mktemp("demo")
    shutil.copytree(REPO / "content", project / "content")
    return project


@pytest.fixture(scope="session")
def demo_site(demo_project: Path) -> Path:
    """The demo site, built once per session."""
    result = build(demo_project)
    assert result.ok, [str(d) for d in result.diagnostics]
    return demo_project / "_site"


# ---------------------------------------------------------------- http server

# Fixed types, independent of the machine's /etc/mime.types.
_MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".wasm": "application/wasm",
    ".pdf": "application/pdf",
}


def _normalize_prefix(url_prefix: str) -> str:
    stripped = url_prefix.strip("/")
    return f"/{stripped}/" if stripped else "/"


@contextlib.contextmanager
def serve_directory(path: str | os.PathLike[str], url_prefix: str = "/") -> Iterator[str]:
    """Serve ``path`` over HTTP on 127.0.0.1 (free port) from a background
    thread, mounted under ``url_prefix`` like a project site on a static host
    such as GitHub Pages (e.g. "/demo-repo/"). Yields the base URL, e.g.
    "http://127.0.0.1:41234/demo-repo/".

    Like such a host, and unlike ``site-gen serve`` (tested on its own in
    test_serve.py): requests outside the prefix get a bare 404; the bare prefix
    and any directory without its slash redirect to the slash URL; a directory
    serves its index.html (no listings); anything missing inside the prefix
    gets status 404 with the site's own 404.html, when it has one. Request
    logging is silent.
    """
    root = Path(path).resolve()
    if not root.is_dir():
        raise NotADirectoryError(root)
    prefix = _normalize_prefix(url_prefix)

    class Handler(SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as static hosts serve
        extensions_map: ClassVar[dict[str, str]] = {
            **SimpleHTTPRequestHandler.extensions_map,
            **_MIME_TYPES,
        }

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def send_head(self):
            url = urlsplit(self.path)
            if prefix != "/" and url.path == prefix[:-1]:
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", prefix + (f"?{url.query}" if url.query else ""))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            if not url.path.startswith(prefix):
                self.send_error(HTTPStatus.NOT_FOUND, f"outside of {prefix}")
                return None
            return super().send_head()

        def translate_path(self, request_path):
            url_path = urlsplit(request_path).path
            if url_path.startswith(prefix):
                url_path = "/" + url_path[len(prefix) :]
            # The base class unquotes, normalizes and drops any ".." escape.
            return super().translate_path(url_path)

        def list_directory(self, directory):
            self.send_error(HTTPStatus.NOT_FOUND, "no index.html")

        def send_error(self, code, message=None, explain=None):
            page = root / "404.html"
            inside = urlsplit(self.path).path.startswith(prefix)
            if code != HTTPStatus.NOT_FOUND or not inside or not page.is_file():
                return super().send_error(code, message, explain)
            body = page.read_bytes()
            self.send_response(code, message)
            self.send_header("Content-Type", _MIME_TYPES[".html"])
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def log_message(self, format, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(name="serve_directory", scope="session")
def serve_directory_fixture():
    """The serve_directory context manager (usable from any fixture scope)."""
    return serve_directory
