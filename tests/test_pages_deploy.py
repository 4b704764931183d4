"""GitHub Pages end to end: the demo built for ``https://example.github.io/demo-repo/``, served
under ``/demo-repo/`` on 127.0.0.1 the way Pages serves it (conftest's ``serve_directory``), and
crawled over HTTP from the root: no broken link, asset, fragment or search request, 404 page (at
any depth) included.
Also: the workflow in .github/workflows/pages.yml parses and is the one docs/deployment.md shows."""

from __future__ import annotations

import re
import shutil
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
import yaml
from conftest import REPO, serve_directory

from site_gen.check import scan_html
from site_gen.cli import main

SITE_URL = "https://example.github.io/demo-repo/"
PREFIX = "/demo-repo/"
MAX_REQUESTS = 3000
TIME_LIMIT = 120.0


@pytest.fixture(scope="module")
def pages_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo content built strictly for a project Pages site, with --site-url as CI does."""
    project = tmp_path_factory.mktemp("pages")
    shutil.copytree(REPO / "content", project / "content")
    assert main(["build", "--strict", "--quiet", "--project", str(project),
                 "--site-url", SITE_URL]) == 0
    return project / "_site"


@pytest.fixture(scope="module")
def server(pages_site: Path) -> Iterator[str]:
    """The origin (``http://127.0.0.1:PORT``) of a Pages-like server for the built site."""
    with serve_directory(pages_site, PREFIX) as base:
        yield base.removesuffix(PREFIX)


def fetch(url: str) -> tuple[int, str, bytes]:
    """(status, final URL, body); redirects are followed, errors returned, not raised."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.url, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, url, exc.read()


def refs_of(url: str, body: bytes, content_type: str) -> list[str]:
    """Every URL a fetched file points at (HTML attributes, CSS url())."""
    if content_type == "html":
        return [ref.url for ref in scan_html(body.decode("utf-8")).refs]
    if content_type == "css":
        return [m.group(2) for m in re.finditer(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""", body.decode())]
    return []


def kind_of(url: str) -> str:
    path = urlsplit(url).path
    return "html" if path.endswith((".html", "/")) else "css" if path.endswith(".css") else "other"


def to_local(url: str, origin: str) -> str | None:
    """Where a URL is on the test server: site URLs are mapped, other origins are skipped."""
    if url.startswith(SITE_URL):
        return origin + PREFIX + url[len(SITE_URL):]
    return url if url.startswith(origin + "/") else None


def test_site_gen_check_finds_nothing_broken(pages_site: Path) -> None:
    assert main(["check", str(pages_site), "--site-url", SITE_URL]) == 0


def test_http_crawl_from_the_root_finds_nothing_broken(server: str) -> None:
    started = time.monotonic()
    pages: dict[str, bytes] = {}
    broken: list[str] = []
    fragments: list[tuple[str, str, str]] = []
    queue = deque([server + PREFIX])
    seen = set(queue)
    while queue:
        assert len(seen) <= MAX_REQUESTS and time.monotonic() - started < TIME_LIMIT, "crawl bound hit"
        url = queue.popleft()
        status, final, body = fetch(url)
        if status != 200:
            broken.append(f"{url}: HTTP {status}")
            continue
        if kind_of(final) == "html":
            pages[final] = body
        for ref in refs_of(final, body, kind_of(final)):
            if ref.startswith(("mailto:", "data:")):
                continue
            target, fragment = urldefrag(urljoin(final, ref))
            local = to_local(target, server)
            if local is None:
                continue
            if fragment:
                fragments.append((final, local, fragment))
            if local not in seen:
                seen.add(local)
                queue.append(local)
    assert broken == []
    assert len(pages) >= 60
    for page, target, fragment in fragments:
        body = pages.get(target) or pages.get(target + ("" if target.endswith("/") else "/"))
        assert body is not None, (page, target)
        assert fragment in scan_html(body.decode()).ids, (page, target, fragment)
    fetched = {urlsplit(u).path for u in seen}
    for needed in ("search/index/meta.json", "feed.xml", "assets/site.css", "assets/search.js",
                   "assets/cite.js"):
        assert PREFIX + needed in {p.split("?")[0] for p in fetched}, needed


@pytest.mark.parametrize("missing", ["a/b/c/", "a/b/c/missing.html", "papers/no-such-paper/"])
def test_404_page_works_at_any_depth(server: str, missing: str) -> None:
    status, url, body = fetch(server + PREFIX + missing)
    assert status == 404 and b"Page not found" in body
    refs = scan_html(body.decode()).refs
    assert any(ref.resource for ref in refs)
    for ref in refs:
        target = to_local(urldefrag(urljoin(url, ref.url))[0], server)
        if target is not None and not ref.url.startswith("#"):
            assert fetch(target)[0] == 200, (ref, target)


def test_requests_outside_the_prefix_are_404(server: str) -> None:
    assert fetch(server + "/papers/")[0] == 404
    assert fetch(server + "/demo-repo")[0] == 200  # redirected to the slash URL


# ---- the workflow ------------------------------------------------------------------------------

WORKFLOW = REPO / ".github" / "workflows" / "pages.yml"
DEPLOYMENT_DOC = REPO / "docs" / "deployment.md"


def test_workflow_is_valid_yaml_with_what_pages_needs() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers and "workflow_dispatch" in triggers
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert workflow["concurrency"]["group"] == "pages"
    assert workflow["concurrency"]["cancel-in-progress"] is False
    steps = workflow["jobs"]["build"]["steps"]
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    for action in ("actions/checkout", "actions/setup-python", "actions/configure-pages",
                   "actions/upload-pages-artifact"):
        assert action in uses, action
    runs = " ".join(s.get("run", "") for s in steps)
    assert "site-gen build --strict" in runs and "site-gen check" in runs
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]


def test_deployment_doc_shows_the_workflow_verbatim() -> None:
    doc = DEPLOYMENT_DOC.read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", doc, re.DOTALL)
    assert WORKFLOW.read_text() in blocks
