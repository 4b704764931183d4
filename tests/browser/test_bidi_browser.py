"""Bidi controls in Chromium: a co-author whose name leaves a RIGHT-TO-LEFT OVERRIDE open
reverses nothing but that name. The names after it in the byline, and the cite box's text
(the BibTeX the page shows, the RIS cite.js makes), stay in left-to-right order, measured
from where Chromium lays out their characters; the same measurement, made on markup that
does not isolate the name, finds the reversal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from site_gen.incremental.builder import Builder

RLO = "\u202e"
HOSTILE = f"Cy{RLO} Do"
AFTER = ["Di Ma", "Ed Fu", "Gu Ho"]
"""The co-authors listed after the hostile name."""
SUBJECT = "We study caching in large language model systems and how to schedule it. " * 3
LISTING = f"""arXiv subjects

Ann Lee

Publications and source records attributed to Ann Lee.

1 record

arXiv2024

Caching at Scale

{SUBJECT}

cs.LG↗
"""
COAUTHORS = f"""Ann Lee

Ann Lee, {HOSTILE}, {", ".join(AFTER)}

{SUBJECT}
"""

# For each text, where Chromium draws its first and last characters, and the line's top.
LAYOUT = """([selector, needles]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  const box = (node, at) => {
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + 1);
    return range.getBoundingClientRect();
  };
  return needles.map((needle) => {
    const node = nodes.find((n) => n.data.includes(needle));
    if (!node) return null;
    const at = node.data.indexOf(needle);
    const first = box(node, at), last = box(node, at + needle.length - 1);
    return {first: first.left, last: last.left, top: Math.round(first.top)};
  });
}"""


def reads_left_to_right(page, selector: str, needles: list[str]) -> list[str]:
    """What is out of left-to-right order among ``needles`` (texts in the element at
    ``selector``, in their order there): a text drawn right to left, or one drawn left of
    a text before it on the same line."""
    boxes = page.evaluate(LAYOUT, [selector, needles])
    assert None not in boxes, (needles, boxes)
    wrong = [f"{n!r} drawn right to left" for n, b in zip(needles, boxes, strict=True)
             if b["first"] >= b["last"]]
    for (a, box_a), (b, box_b) in zip(zip(needles, boxes, strict=True),
                                      zip(needles[1:], boxes[1:], strict=False), strict=False):
        if box_a["top"] == box_b["top"] and box_a["first"] >= box_b["first"]:
            wrong.append(f"{b!r} drawn left of {a!r}")
    return wrong


@pytest.fixture(scope="module")
def bidi_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("bidi-browser")
    (project / "content/dumps").mkdir(parents=True)
    (project / "content/site.yaml").write_text("title: Lab\nsite_url: https://example.org/lab/\n")
    (project / "content/dumps/a.txt").write_text(LISTING, encoding="utf-8")
    (project / "content/dumps/b.txt").write_text(COAUTHORS, encoding="utf-8")
    result = Builder(project).build()
    assert result.ok, [str(d) for d in result.diagnostics]
    assert [d.code for d in result.diagnostics] == ["bidi-controls"]
    return project / "_site"


@pytest.fixture
def wide(chromium):
    context = chromium.new_context(viewport={"width": 1600, "height": 900}, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


def test_the_measure_sees_a_name_that_is_not_isolated(wide) -> None:
    """The markup the theme had: an override left open in one link reverses the names after
    it, in a byline and in a plain-text block alike."""
    links = ", ".join(f'<a href="#">{name}</a>' for name in ["Ann Lee", HOSTILE, *AFTER])
    wide.set_content(f'<p class="byline">{links}</p><pre>author = {{Ann Lee and {HOSTILE} and '
                     f'{" and ".join(AFTER)}}}\ntitle = {{Caching}}</pre>')
    assert reads_left_to_right(wide, ".byline", ["Ann Lee", *AFTER])
    assert reads_left_to_right(wide, "pre", ["author", *AFTER])


def test_the_names_after_a_hostile_one_stay_left_to_right(bidi_site, wide,
                                                           serve_directory) -> None:
    with serve_directory(bidi_site, "/lab/") as base:
        wide.goto(base + "papers/caching-at-scale/")
        names = wide.locator(".byline a").all_inner_texts()
        assert names == ["Ann Lee", HOSTILE, *AFTER]
        assert reads_left_to_right(wide, ".byline", ["Ann Lee", *AFTER]) == []
        lefts = [box["x"] for box in (link.bounding_box() for link in
                                      wide.locator(".byline a").all())]
        assert lefts == sorted(lefts), lefts  # every link, the hostile one too, in order
        # it is the <bdi> that holds the override in: without it, the names are reversed
        wide.evaluate("document.querySelectorAll('.byline bdi').forEach(b => b.replaceWith("
                      "b.textContent))")
        assert reads_left_to_right(wide, ".byline", ["Ann Lee", *AFTER])
        # the page's <title> and the list item on the home page
        assert wide.title().endswith(" · Lab")
        wide.goto(base)
        assert reads_left_to_right(wide, ".paper-list", ["Caching at Scale", "Ann Lee",
                                                         *AFTER]) == []


def test_the_cite_box_stays_left_to_right(bidi_site, wide, serve_directory) -> None:
    with serve_directory(bidi_site, "/lab/") as base:
        wide.goto(base + "papers/caching-at-scale/")
        bibtex = wide.locator(".cite-text").inner_text()
        assert "Cy\u202e Do\u202c and Di Ma" in bibtex
        assert reads_left_to_right(wide, ".cite-text", ["author", "Ann Lee", *AFTER]) == []
        assert reads_left_to_right(wide, ".cite-text", ["title", "Caching", "at", "Scale"]) == []
        pre = wide.locator(".cite-text").bounding_box()
        title = wide.evaluate(LAYOUT, [".cite-text", ["title = "]])[0]
        assert title["first"] - pre["x"] < 40  # the line after the names starts at the left
        # it is the closing U+202C that holds the override in: without it, reversed
        wide.evaluate("(t) => { const c = document.querySelector('.cite-text code'); "
                      "const was = c.textContent; c.textContent = t; return was; }",
                      bibtex.replace("\u202c", ""))
        assert reads_left_to_right(wide, ".cite-text", ["author", "Ann Lee", *AFTER])
        wide.goto(base + "papers/caching-at-scale/")
        wide.locator('.cite-formats button[data-format="ris"]').click()
        wide.wait_for_function("document.querySelector('.cite-text').textContent.startsWith('TY')")
        assert reads_left_to_right(wide, ".cite-text", ["Ma, Di", "Fu, Ed", "Ho, Gu"]) == []
        assert reads_left_to_right(wide, ".cite-text", ["AU  - Fu", "Ed"]) == []
