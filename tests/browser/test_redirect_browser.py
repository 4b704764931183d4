"""A URL, once published, keeps answering: after a curated title change, Chromium opening the
old URL lands on the paper's new page, from ``site-gen serve`` and from a plain static server
(conftest's ``serve_directory``), which knows nothing of redirects."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OLD, NEW = "papers/tail-batching-for-synchronous-rl/", "papers/tail-batching-revisited/"


@pytest.fixture(scope="module")
def renamed(tmp_path_factory) -> Path:
    """A project built once, then with the paper's title changed through curation."""
    from conftest import abstract, build, listing_dump, write_files

    project = tmp_path_factory.mktemp("renamed") / "project"
    write_files(project, {
        "content/site.yaml": "title: Lab\nsite_url: https://example.org/lab/\n",
        "content/dumps/a.txt": listing_dump("Ann Lee", [
            (2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"])]),
    })
    assert build(project).ok
    write_files(project, {"content/curation.yaml": (
        "papers:\n  - match: {title: Tail Batching for Synchronous RL}\n"
        "    title: Tail Batching Revisited\n")})
    assert build(project).ok
    return project


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


@pytest.fixture
def static_server(renamed: Path, serve_directory) -> Iterator[str]:
    with serve_directory(renamed / "_site") as base:
        yield base


@pytest.fixture
def preview_server(renamed: Path) -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "site_gen", "serve", "--port", str(port),
                                "--project", str(renamed)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        _wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/lab/"
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)


@pytest.mark.parametrize("server", ["static_server", "preview_server"])
def test_the_old_url_of_a_renamed_paper_lands_on_its_new_page(page, request, server: str) -> None:
    base = request.getfixturevalue(server)
    page.goto(base + OLD)
    page.wait_for_url(base + NEW)
    assert page.locator("h1").inner_text() == "Tail Batching Revisited"
    assert page.console_errors == [] and page.failed_requests == []
