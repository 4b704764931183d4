"""Bidi controls in untrusted text: closed in every plain-text output, isolated on the pages,
and warned about where the dumps are read.

An unterminated U+202E RIGHT-TO-LEFT OVERRIDE in one co-author's name reverses everything
after it on its line. ``util.bidi.balance_bidi`` is held here to the Unicode Bidirectional
Algorithm's explicit rules (X1-X8) as a small independent model of them; the build is held
to it on a site whose dumps carry such names and titles.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import bibtexparser
import pytest
import rispy
from conftest import abstract, build, coauthor_dump, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.read.source import split_lines
from site_gen.render.citation import _csl_name, _ris_name
from site_gen.util.bidi import balance_bidi, first_unbalanced, is_balanced

LRE, RLE, PDF, LRO, RLO = "\u202a\u202b\u202c\u202d\u202e"
LRI, RLI, FSI, PDI = "\u2066\u2067\u2068\u2069"
INITIATORS = LRE + RLE + LRO + RLO + LRI + RLI + FSI
SEPARATORS = "\n\r\x1c\x1d\x1e\x85\u2029"
"""Bidi class B: each ends a paragraph, and with it every embedding and isolate."""
MAX_DEPTH = 125


def uba_problems(text: str) -> tuple[int, int]:
    """(terminators that match nothing, initiators still open at a paragraph's end), by rules
    X1-X8 of the Unicode Bidirectional Algorithm (UAX #9): the directional status stack and
    its overflow counters, without the levels themselves."""
    stack: list[bool] = [False]  # True: an isolate's entry; the base entry is stack[0]
    overflow_isolates = overflow_embeddings = valid_isolates = 0
    ignored = left_open = 0
    for char in text + "\n":
        fits = len(stack) <= MAX_DEPTH and not overflow_isolates and not overflow_embeddings
        if char in (LRE, RLE, LRO, RLO):  # X2-X5
            if fits:
                stack.append(False)
            elif not overflow_isolates:
                overflow_embeddings += 1
        elif char in (LRI, RLI, FSI):  # X5a-X5c
            if fits:
                valid_isolates += 1
                stack.append(True)
            else:
                overflow_isolates += 1
        elif char == PDI:  # X6a
            if overflow_isolates:
                overflow_isolates -= 1
            elif not valid_isolates:
                ignored += 1
            else:
                overflow_embeddings = 0
                while not stack.pop():
                    pass
                valid_isolates -= 1
        elif char == PDF:  # X7
            if overflow_isolates:
                ignored += 1
            elif overflow_embeddings:
                overflow_embeddings -= 1
            elif not stack[-1] and len(stack) >= 2:
                stack.pop()
            else:
                ignored += 1
        elif char in SEPARATORS:  # X8
            left_open += len(stack) - 1 + overflow_isolates + overflow_embeddings
            stack, overflow_isolates, overflow_embeddings, valid_isolates = [False], 0, 0, 0
    return ignored, left_open


def stripped(text: str) -> str:
    return re.sub("[\u202a-\u202e\u2066-\u2069]", "", text)


BIDI_TEXT = st.text(alphabet=st.sampled_from(INITIATORS + PDF + PDI + SEPARATORS + "ab ,א"),
                    max_size=60)
ANY_TEXT = st.one_of(st.text(max_size=60), BIDI_TEXT)


def balanced_texts() -> st.SearchStrategy[str]:
    """Texts balanced by construction: plain runs, and embeddings and isolates that each
    close what they open (a PDI may also close embeddings opened inside its isolate)."""
    plain = st.text(alphabet="ab ,א\u200f\n", max_size=4)
    return st.recursive(plain, lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(st.sampled_from(LRE + RLE + LRO + RLO),
                  inner.filter(lambda t: not re.search(f"[{SEPARATORS}]", t))).map(
            lambda p: p[0] + p[1] + PDF),
        st.tuples(st.sampled_from(LRI + RLI + FSI),
                  inner.filter(lambda t: not re.search(f"[{SEPARATORS}]", t)),
                  st.sampled_from(["", RLE, LRO + "b"])).map(
            lambda p: p[0] + p[1] + p[2] + PDI)), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(ANY_TEXT)
def test_after_balancing_nothing_is_left_open_and_nothing_closes_what_it_did_not_open(
        text: str) -> None:
    balanced = balance_bidi(text)
    assert uba_problems(balanced) == (0, 0)
    assert is_balanced(balanced) and balance_bidi(balanced) == balanced
    assert stripped(balanced) == stripped(text)  # only bidi controls added or removed
    assert is_balanced(text) == (uba_problems(text) == (0, 0)) == (first_unbalanced(text) is None)


@settings(max_examples=300, deadline=None)
@given(balanced_texts())
def test_balanced_texts_are_unchanged(text: str) -> None:
    assert uba_problems(text) == (0, 0)
    assert balance_bidi(text) == text
    assert first_unbalanced(text) is None


def test_what_is_closed_and_dropped() -> None:
    assert balance_bidi("Cy\u202e Do") == "Cy\u202e Do\u202c"
    assert balance_bidi("x\u2067y\u202bz") == "x\u2067y\u202bz\u202c\u2069"
    assert balance_bidi("\u202ea\n\nb\u202c") == "\u202ea\u202c\n\nb"  # a paragraph ends it
    assert balance_bidi("a\u2069b\u202c") == "ab"  # they would close what the text is in
    assert balance_bidi("\u2067a\u202bb\u2069c\u202c") == "\u2067a\u202bb\u2069c"  # X6a, X7
    assert first_unbalanced("a\u202eb") == ("\u202e", True)
    assert first_unbalanced("a\u2069b") == ("\u2069", False)
    plain = "Ada Lovelace \u200f"
    assert balance_bidi(plain) is plain  # marks open nothing


def test_a_line_that_leaves_a_control_open_is_warned_about_at_its_line() -> None:
    text = ("Ann Lee\n\nBo Wu, Cy\u202e Do, Di Ma\n\nAn abstract \u2067with an isolate\u2069.\n\n"
            "\u202eAl Bo, Cy Do\u202c\n\nEd \u2067Ali\u2069, Fa Ge\n\na\u202cb\n")
    lines, diagnostics = split_lines("d.txt", text)
    assert [line.text for line in lines][1] == "Bo Wu, Cy\u202e Do, Di Ma"  # kept as it is
    assert [(d.line, d.code) for d in diagnostics] == [
        (3, "bidi-controls"), (7, "bidi-controls"), (11, "bidi-controls")]
    assert ("U+202E RIGHT-TO-LEFT OVERRIDE left open: isolated on the pages; feeds, citations, "
            "search and page titles close it (U+202C added)") in diagnostics[0].message
    assert "U+202C POP DIRECTIONAL FORMATTING closes nothing" in diagnostics[2].message
    # the same through the path that removes control characters
    _, again = split_lines("d.txt", text + "\x07\n")
    assert sorted((d.line, d.code) for d in again) == [
        (3, "bidi-controls"), (7, "bidi-controls"), (11, "bidi-controls"),
        (12, "control-characters")]


# ---- a site whose dumps carry bidi controls ------------------------------------------------

OPEN_NAME = "Cy\u202e Do"
"""A co-author whose name leaves an override open."""
ISOLATED_NAME = "Ed \u2067Ali\u2069"
"""A co-author whose name is balanced: it must reach every output as it is."""
OPEN_TITLE = "Title \u202bleft open"
NAMES = ("Ann Lee", "Bo Wu", OPEN_NAME, "Di Ma", ISOLATED_NAME)
TITLES = ("Plain Words", OPEN_TITLE, "Third Paper")


@pytest.fixture(scope="module")
def bidi_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    project = tmp_path_factory.mktemp("bidi")
    files = {
        "content/site.yaml": "title: Lab\nsite_url: https://example.org/lab/\n",
        "content/dumps/a.txt": listing_dump("Ann Lee", [
            (2024, "Plain Words", abstract("caching"), ["cs.LG"]),
            (2023, OPEN_TITLE, abstract("routing") + " An \u202eopen override.", ["cs.LG"]),
            (2022, "Third Paper", abstract("sharding"), ["cs.DC"])]),
        "content/dumps/b.txt": coauthor_dump("Ann Lee", [
            (f"Bo Wu, {OPEN_NAME}, Di Ma, {ISOLATED_NAME}, Ann Lee", abstract("caching")),
            (f"Ann Lee, {OPEN_NAME}, Bo Wu", abstract("sharding"))]),
    }
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    result = build(project)
    assert result.ok, [str(d) for d in result.diagnostics]
    warned = sorted(f"{d.path}:{d.line}" for d in result.diagnostics if d.code == "bidi-controls")
    return project / "_site", warned


def test_the_build_warns_at_each_line_it_will_change(bidi_site) -> None:
    _, warned = bidi_site
    assert warned == ["content/dumps/a.txt:19", "content/dumps/a.txt:21",
                      "content/dumps/b.txt:3", "content/dumps/b.txt:7"]


EXPORTS = ("papers.json", "authors.json")
"""The data exports, which hold the text as the dumps have it (docs/security.md)."""


def test_every_plain_text_output_closes_what_each_value_opens(bidi_site) -> None:
    """Feeds (each element's text and attribute), BibTeX (each name), search files (each
    string) and the pages' <title>, meta tags and JSON data (the cite box's, whose CSL-JSON
    item cite.js makes RIS from): every value balanced; a balanced name is kept exactly. The
    data exports keep the text as read."""
    site, _ = bidi_site
    values: list[str] = []
    for feed in site.rglob("*.xml"):
        for element in ET.parse(feed).iter():
            values += [element.text or "", *element.attrib.values()]
    for bib in site.rglob("*.bib"):
        for entry in bibtexparser.parse_string(bib.read_text(encoding="utf-8")).entries:
            values += [field.value for field in entry.fields]
            values += entry.fields_dict["author"].value.split(" and ")
    for path in site.rglob("*.json"):  # search.json and the index, fragments too
        if path.relative_to(site).as_posix() not in EXPORTS:
            values += strings(json.loads(path.read_bytes()))
    for page in site.rglob("index.html"):
        head = Head()
        head.feed(page.read_text(encoding="utf-8"))
        values += head.values
    assert not [v for v in values if not is_balanced(v)]
    text = "\n".join(values)
    assert OPEN_NAME + PDF in text and ISOLATED_NAME in text and OPEN_TITLE + PDF in text
    assert f"{OPEN_NAME}{PDF} \u00b7 Lab" in values  # the name's feed, closed before " · Lab"
    assert f"{OPEN_TITLE}{PDF} \u00b7 Lab" in values  # the paper page's <title>
    exported = strings(json.loads((site / "authors.json").read_bytes()))
    assert OPEN_NAME in exported and OPEN_NAME + PDF not in exported


def test_ris_and_csl_close_each_name_part() -> None:
    """Each part of a CSL name is a value alone; RIS joins the parts as cite.js does."""
    assert _csl_name(OPEN_NAME) == {"family": "Do", "given": "Cy\u202e\u202c"}
    assert _ris_name(OPEN_NAME) == "Do, Cy\u202e\u202c"
    assert _csl_name(ISOLATED_NAME) == {"family": "\u2067Ali\u2069", "given": "Ed"}
    record = "TY  - GEN\r\nAU  - " + _ris_name(OPEN_NAME) + "\r\nER  - \r\n"
    assert rispy.loads(record)[0]["authors"] == ["Do, Cy\u202e\u202c"]
    assert _csl_name("Ann \u202c") == {"literal": "Ann "}  # no part is only a stray control


def strings(value: object) -> list[str]:
    """Every string in a parsed JSON value, keys too."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value.keys(), *(s for v in value.values() for s in strings(v))]
    return [s for v in value for s in strings(v)] if isinstance(value, list) else []


class Head(HTMLParser):
    """The plain-text values of a page: <title>, every attribute, the JSON blocks' strings."""

    def __init__(self) -> None:
        super().__init__()
        self.values: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.values += [value or "" for _, value in attrs]
        self._in = tag if tag in ("title", "script") else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "title":
            self.values.append(data)
        elif self._in == "script" and data.lstrip().startswith(("{", "[")):
            self.values += strings(json.loads(data))


BLOCKS = frozenset({"h1", "h2", "h3", "h4", "p", "li", "dd", "dt", "td", "th", "div",
                    "figcaption", "caption", "summary"})
"""Elements the default style sheet and the browser's own lay out as blocks (or list items,
table cells): each is a bidi paragraph of its own, which nothing inside it leaks out of."""
OPAQUE = frozenset({"script", "style", "title", "pre", "template"})
"""Plain text in an HTML page, checked as plain text above (the cite box's ``pre`` too)."""
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                  "source", "track", "wbr"})


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: Element | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Element | str] = []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def isolates(self) -> bool:
        return self.tag == "bdi" or "dir" in self.attrs or self.tag in BLOCKS


class Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.root = self.open = Element("#document", {}, None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs), self.open)
        self.open.children.append(element)
        if tag not in VOID:
            self.open = element

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self.open
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.open = node.parent

    def handle_data(self, data: str) -> None:
        self.open.children.append(data)


def unisolated(html: str, items: tuple[str, ...]) -> list[str]:
    """Each text of the page's body holding one of ``items`` that is not the whole text of
    an isolating element (``<bdi>``, one with ``dir``, or a block holding nothing else)."""
    tree = Tree()
    tree.feed(html)
    found: list[str] = []

    def walk(element: Element) -> None:
        if element.tag in OPAQUE:
            return
        for child in element.children:
            if isinstance(child, Element):
                walk(child)
                continue
            for item in items:
                if item not in child:
                    continue
                node: Element | None = element
                while node is not None and node.text().strip() == item and not node.isolates():
                    node = node.parent
                if node is None or node.text().strip() != item:
                    found.append(f"{item!r} in <{element.tag}>: {element.text().strip()!r}")
    walk(tree.root)
    return found


@pytest.mark.parametrize("page", [
    "papers/plain-words/", "papers/title-left-open/", "authors/ann-lee/", "authors/cy-do/",
    "authors/", "papers/", "", "subjects/cs.LG/"])
def test_every_name_and_title_on_a_page_is_isolated(bidi_site, page: str) -> None:
    site, _ = bidi_site
    html = (site / page / "index.html").read_text(encoding="utf-8")
    assert OPEN_NAME in html or OPEN_TITLE in html
    assert unisolated(html, NAMES + TITLES) == []


def test_the_check_finds_a_name_that_is_not_isolated() -> None:
    html = ('<p class="byline"><a href="a/"><bdi>Bo Wu</bdi></a>, <a href="b/">Cy\u202e Do</a>'
            '</p><h1>Plain Words</h1><p>Appears with <bdi>Di Ma</bdi> and Ann Lee.</p>')
    assert unisolated(html, NAMES + TITLES) == [
        "'Cy\\u202e Do' in <a>: 'Cy\\u202e Do'",
        "'Ann Lee' in <p>: 'Appears with Di Ma and Ann Lee.'"]
