"""Hostile text in a real browser: no script runs, no dialog opens, the text shows literally.

Every page of a site built from dumps full of script, event handlers, ``javascript:`` URLs,
Jinja syntax, JSON breakouts, bidi controls and very long words is loaded in Chromium,
the search page is driven with a query that matches them, and the feeds are opened too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from site_gen.build import Builder

CANARY = "window.__pwned = (window.__pwned || 0) + 1"
PAYLOADS = [
    f"<script>{CANARY}</script>",
    f"</script><script>{CANARY}</script>",
    f'<img src=x onerror="{CANARY}">',
    f'<svg onload="{CANARY}">',
    '"><a href="javascript:alert(1)">x</a>',
    "{{ 7*7 }} {% if true %}JINJA{% endif %} {# c #}",
    '{"a": "</script><script>alert(1)</script>"}',
    "\u202egnp.exe\u202c bidi \u2066isolate\u2069",
    "Supercalifragilistic" * 12,
]
HOSTILE_TITLE = "Evil " + " ".join(PAYLOADS[:4]) + " {{ 7*7 }}"
LITERALS = ["<script>", "{{ 7*7 }}", "{% if true %}JINJA{% endif %}", "onerror="]


def hostile_listing() -> str:
    records = []
    for i, payload in enumerate(PAYLOADS):
        title = HOSTILE_TITLE if i == 0 else f"Paper {i} {payload}"
        abstract = (f"Abstract {i} with {payload} and \\textbf{{{payload}}} and ${payload}$ "
                    f"and https://example.org/{payload} and \\url{{javascript:alert(1)}}. ") * 3
        records.append(f"arXiv2024\n\n{title}\n\n{abstract}\n\ncs.LG↗\n")
    header = ("arXiv subjects\n\nAnn Lee\n\nPublications and source records attributed to Ann Lee.\n\n"
              f"{len(records)} records\n\n")
    return header + "\n".join(records)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("hostile")
    (project / "content/dumps").mkdir(parents=True)
    (project / "content/site.yaml").write_text(
        'title: "Lab {{ 7*7 }} <script>alert(1)</script>"\nsite_url: https://example.org/lab/\n')
    (project / "content/dumps/a.txt").write_text(hostile_listing(), encoding="utf-8")
    (project / "content/dumps/b.txt").write_text(
        "Ann Lee\n\nBo Wu, Cy Do et al.\n\n" + f"Co-author abstract {PAYLOADS[0]} {PAYLOADS[5]} " * 20 + "\n")
    (project / "content/curation.yaml").write_text(
        "authors:\n  - name: Bo Wu\n    display_name: \"Bo <img src=x onerror='" + CANARY.replace("'", "") +
        "'> {{ 7*7 }}\"\n    affiliation: \"</script><script>alert(1)</script>\"\n")
    result = Builder(project).build()
    assert result.ok, [str(d) for d in result.diagnostics]
    return project / "_site"


def _guard(page) -> list[str]:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    return dialogs


def test_no_script_runs_and_text_is_literal_on_every_page(hostile_site, page, serve_directory) -> None:
    dialogs = _guard(page)
    pages = sorted(hostile_site.rglob("*.html"))
    assert len(pages) > 15
    with serve_directory(hostile_site, "/lab/") as base:
        for path in pages:
            url = base + str(path.relative_to(hostile_site)).removesuffix("index.html")
            page.goto(url)
            assert page.evaluate("window.__pwned") is None, url
            text = page.evaluate("document.body.innerText")
            assert not re.search(r"(?<![\w:.])49(?!\w)", text), url  # Jinja never evaluated
            assert "{{ 7*7 }}" in text, url
            if "papers/" in url and "evil" in url:
                for literal in LITERALS:
                    assert literal in text, (url, literal)
    assert dialogs == []
    assert page.console_errors == []


def test_search_results_show_hostile_titles_inertly(hostile_site, page, serve_directory) -> None:
    dialogs = _guard(page)
    with serve_directory(hostile_site, "/lab/") as base:
        page.goto(base + "search/")
        page.wait_for_function("document.querySelector('.search-form').dataset.state === 'done'")
        for query in ("evil", "script onerror", "pwned"):
            page.fill("#q", query)
            page.wait_for_function(
                "q => document.querySelector('.search-form').dataset.renderedQuery === q", arg=query)
        page.fill("#q", "evil")
        page.wait_for_function("document.querySelectorAll('#search-results li').length > 0")
        assert "<script>" in page.inner_text("#search-results")
        assert page.evaluate("window.__pwned") is None
    assert dialogs == []


def test_feeds_opened_as_pages_run_nothing(hostile_site, page, serve_directory) -> None:
    dialogs = _guard(page)
    feeds = sorted(hostile_site.rglob("*.xml"))
    assert feeds
    with serve_directory(hostile_site, "/lab/") as base:
        for feed in feeds:
            page.goto(base + str(feed.relative_to(hostile_site)))
            assert page.evaluate("window.__pwned") is None, feed
    assert dialogs == []


def test_long_words_do_not_widen_a_phone_screen(hostile_site, chromium, serve_directory) -> None:
    context = chromium.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    try:
        with serve_directory(hostile_site, "/lab/") as base:
            for path in sorted((hostile_site / "papers").glob("*/index.html"))[:4]:
                page.goto(base + str(path.relative_to(hostile_site)).removesuffix("index.html"))
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 360, (path, width)
    finally:
        context.close()
