"""Live reload in a real browser: a page reloads when a rebuild changed it, and only then; the
error overlay appears when a build fails and goes when it is fixed."""

from __future__ import annotations

import time

import pytest
from conftest import abstract, listing_dump
from test_serve import SITE_YAML, Preview
from test_watch import save, wait_for

ANN = "Ann Lee"
PAPER = "Paper About Reloading Pages"


def ann_dump(text: str) -> str:
    return listing_dump(ANN, [(2024, PAPER, abstract("reloading") + " " + text, ["cs.LG"])])


@pytest.fixture
def preview(make_project):
    project = make_project({
        "content/site.yaml": SITE_YAML,
        "content/dumps/a.txt": ann_dump("First version."),
        "content/dumps/b.txt": listing_dump("Bo Wu", [(2019, "Unrelated Paper On Graphs",
                                                       abstract("graphs"), ["math.OC"])]),
    })
    running = Preview(project)
    yield running
    running.close()


def url(preview: Preview, path: str) -> str:
    host, port = preview.server.server_address[:2]
    return f"http://{host}:{port}/pubs/{path}"


def mark(page) -> None:
    """Leave a marker in the page's JavaScript state; a reload clears it."""
    page.evaluate("() => { window.__notReloaded = true; }")


def reloaded(page) -> bool:
    return page.evaluate("() => window.__notReloaded !== true")


def settle(preview: Preview, generation: int) -> None:
    """Wait for the build after ``generation`` to be announced, and for pages to react."""
    assert wait_for(lambda: preview.live.current.generation > generation, seconds=5)
    time.sleep(0.5)


def test_a_page_reloads_when_its_file_changed_and_only_then(preview: Preview, page) -> None:
    page.goto(url(preview, "papers/paper-about-reloading-pages/"))
    page.wait_for_function("() => document.readyState === 'complete'")
    time.sleep(0.3)  # the event stream connects
    mark(page)
    dumps = preview.project / "content/dumps"
    # Bo's paper shares no author or subject with Ann's: her page's bytes do not change.
    generation = preview.live.current.generation
    save(dumps / "b.txt", listing_dump("Bo Wu", [(2019, "Unrelated Paper On Graphs",
                                                         abstract("trees"), ["math.OC"])]))
    settle(preview, generation)
    assert not reloaded(page)
    # Her own abstract changes: the page reloads and shows it.
    save(dumps / "a.txt", ann_dump("Second version."))
    page.wait_for_function("() => window.__notReloaded !== true", timeout=5000)
    page.wait_for_selector("text=Second version.")
    assert page.console_errors == []


def test_the_overlay_comes_with_a_failed_build_and_goes_with_the_fix(preview: Preview, page) -> None:
    page.goto(url(preview, ""))
    page.wait_for_function("() => document.readyState === 'complete'")
    time.sleep(0.3)
    dump = preview.project / "content/dumps/a.txt"
    save(dump, ann_dump("Fine.") + "\nStray <b>text</b> after the subjects.\n")
    overlay = page.wait_for_selector("#site-gen-overlay", timeout=5000)
    assert "content/dumps/a.txt:" in overlay.inner_text()
    assert "<b>text</b>" not in page.inner_html("#site-gen-overlay pre")  # shown, not parsed
    assert page.is_visible(f"text={PAPER}")  # the last good site is still there
    save(dump, ann_dump("Fixed."))
    page.wait_for_selector("#site-gen-overlay", state="detached", timeout=5000)
    assert page.console_errors == []
