"""Hostile text in a real browser: no script runs, no dialog opens, the text shows literally.

Every page of a site built from dumps full of script, event handlers, ``javascript:`` URLs,
Jinja syntax, JSON breakouts, bidi controls and very long words is loaded in Chromium,
the search page is driven with a query that matches them, and the feeds are opened too.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from site_gen.incremental.builder import Builder

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
HOSTILE_OWNER = f'<b>x</b> <img src=x onerror="{CANARY}"> {{{{ 7*7 }}}} & "q"'
"""A name the grammar places as a profile's owner, markup and all."""
HOSTILE_AUTHORS = ["<b>x</b>", "{{ 7*7 }}", "<script>alert(1)</script>"]
"""Names in a co-author dump's author list."""


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
    named = ("Names abstract: we study what a name may hold in large language model systems "
             "and whether it is shown as written on every page, feed and export. ") * 3
    (project / "content/dumps/c.txt").write_text(
        f"arXiv subjects\n\n{HOSTILE_OWNER}\n\nPublications and source records attributed to "
        f"{HOSTILE_OWNER}.\n\n1 record\n\narXiv2024\n\nWhat Names May Hold\n\n{named}\n\ncs.LG↗\n",
        encoding="utf-8")
    (project / "content/dumps/d.txt").write_text(
        f"Cy Do\n\n{', '.join(HOSTILE_AUTHORS)}, Cy Do et al.\n\n{named}\n", encoding="utf-8")
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


def test_hostile_names_show_literally_on_their_pages(hostile_site, page, serve_directory) -> None:
    dialogs = _guard(page)
    paper = hostile_site / "papers/what-names-may-hold/index.html"
    authors = json.loads((hostile_site / "authors.json").read_text())["authors"]
    people = [hostile_site / "authors" / a["id"] / "index.html" for a in authors
              if a["name"] in (HOSTILE_OWNER, *HOSTILE_AUTHORS)]
    assert paper.is_file() and len(people) == 4
    with serve_directory(hostile_site, "/lab/") as base:
        page.goto(base + "papers/what-names-may-hold/")
        text = page.evaluate("document.body.innerText")
        for name in [HOSTILE_OWNER, *HOSTILE_AUTHORS]:
            assert name in text, name
        for path in people:
            page.goto(base + str(path.relative_to(hostile_site)).removesuffix("index.html"))
            heading = page.inner_text("h1")
            assert heading in [HOSTILE_OWNER, *HOSTILE_AUTHORS], heading
            assert "What Names May Hold" in page.evaluate("document.body.innerText")
            assert page.evaluate("document.querySelectorAll('main b, main img').length") == 0
            assert page.evaluate("window.__pwned") is None
    assert dialogs == []


def test_hostile_names_are_literal_in_feeds_and_exports(hostile_site) -> None:
    """Every feed parses as XML holding the names as text (no element made of them), every
    JSON export holds them as strings, BibTeX holds them with its specials escaped."""
    for feed in sorted(hostile_site.rglob("*.xml")):
        tree = ET.parse(feed)
        assert not [e for e in tree.iter() if e.tag.rsplit("}", 1)[-1] in ("b", "img", "script")]
    owner_feeds = [f for f in hostile_site.glob("authors/*/feed.xml")
                   if HOSTILE_OWNER in "".join(ET.parse(f).getroot().itertext())]
    ids = {a["name"]: a["id"] for a in json.loads((hostile_site / "authors.json").read_text())["authors"]}
    assert {HOSTILE_OWNER, *HOSTILE_AUTHORS} <= ids.keys()
    assert hostile_site / "authors" / ids[HOSTILE_OWNER] / "feed.xml" in owner_feeds
    ld = [json.loads(m) for m in re.findall(
        r'<script type="application/ld\+json">(.*?)</script>',
        (hostile_site / "papers/what-names-may-hold/index.html").read_text(encoding="utf-8"), re.DOTALL)]
    assert HOSTILE_OWNER in _strings(ld)
    bib = "\n".join(p.read_text(encoding="utf-8") for p in hostile_site.rglob("*.bib"))
    assert "<b>x</b>" in bib and "\\textbraceleft{}\\textbraceleft{} 7*7" in bib


def _strings(value: object) -> set[str]:
    """Every string in a parsed JSON value."""
    if isinstance(value, str):
        return {value}
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return set().union(*map(_strings, items))


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
