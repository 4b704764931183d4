"""Markup built in Python (render/snippets.py, render/metadata.py's ``*_html``), read back as
a browser's parser reads it, for hostile text, at every page depth and on the 404 page: each
shows what it must (names, links, counts, the metadata render/metadata.py gives as data) and
notes the catalog lookups incremental builds depend on.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import replace
from html.parser import HTMLParser

import markupsafe
import pytest
from hypothesis import given
from hypothesis import strategies as st

from site_gen.model import Author, Catalog, Link, Paper, Profile, SourceRef, Subject
from site_gen.pipeline import builtin_theme_dir
from site_gen.plan.urls import absolute_url, author_url, paper_url
from site_gen.read.config import Config
from site_gen.render import metadata
from site_gen.render.engine import Theme, TrackedCatalog, make_environment
from site_gen.util.text import esc, plain_text

NASTY = "</script><b x='1' y=\"2\">&amp; {{ 1 }} {% raw %} \u2028 \x01 é 中 `'\""

def hostile_catalog() -> Catalog:
    """Authors, subjects and papers whose every text field is hostile, in each author-list shape."""
    authors = (Author("ann", f"Ann {NASTY}", ("p1", "p2", "p3"), (Profile("content/dumps/a.txt", None, 3),),
                      affiliation=NASTY, homepage="https://example.org/?a=1&b='2'", variants=(NASTY,)),
               Author("bo", "Bo \"Quote\" O'Neil", ("p1", "p3")),
               Author("cy", "<Cy>", ("p2",)))
    subjects = (Subject("cs.LG", f"Machine <Learning> {NASTY}", "Computer Science", True, ("p1", "p2")),
                Subject("x&y", NASTY, "Other", False, ("p3",)))
    links = (Link("code", "https://example.org/x?a=1&b=\"2\"", NASTY), Link("pdf", "https://arxiv.org/pdf/2401.00001", "PDF"))
    base = Paper("p1", f"A $x<y$ title {NASTY}", "dump", 2024, ("cs.LG", "x&y"),
                 f"An abstract with \\textbf{{bold}} and {NASTY} " * 20, ("ann", "bo"), (), False, True,
                 (SourceRef("content/dumps/a<b>.txt", 12), SourceRef("content/dumps/'q'/x.txt", 3)), links)
    papers = (base,
              replace(base, id="p2", author_ids=("cy",), extra_author_ids=("ann",), et_al=True, links=(),
                      year=None, subjects=("cs.LG",), title_origin="derived"),
              replace(base, id="p3", author_ids=(), extra_author_ids=("ann", "bo"), authors_listed=False,
                      subjects=("x&y",), abstract_text=""),
              replace(base, id="p4", author_ids=("ann", "bo"), extra_author_ids=("cy",), subjects=()))
    return Catalog(papers, authors, subjects)


SITE = Config(title=f"Lab {NASTY}", description=f"About {NASTY}", site_url="https://example.org/sub/",
              language="en-GB")


@pytest.fixture(scope="module")
def env():
    theme = builtin_theme_dir("default")
    assert theme is not None
    environment = make_environment(Theme((theme / "templates",), ()), theme / "templates")
    environment.globals.update(site=SITE)
    return environment


def render(env, source: str, catalog: TrackedCatalog, page_url: str, **values: object
           ) -> tuple[str, set[tuple[str, str]]]:
    """``source`` rendered on the page at ``page_url``, and the lookups it made."""
    catalog.lookups = set()
    html = env.from_string(source).render(
        values, catalog=catalog, page_url=page_url, absolute_links=page_url == "404.html")
    return html, catalog.lookups


class Parsed(HTMLParser):
    """Markup read back as a browser's parser reads it: elements with their attributes and
    text (references resolved), in document order."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None], list[str]]] = []
        self.open: list[list[str]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs), []))
        if tag not in ("meta", "wbr"):
            self.open.append(self.elements[-1][2])

    def handle_endtag(self, tag: str) -> None:
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        for texts in self.open:
            texts.append(data)

    def all(self, tag: str) -> list[tuple[dict[str, str | None], str]]:
        """Each ``tag`` element's attributes and text."""
        return [(attrs, "".join(texts)) for name, attrs, texts in self.elements if name == tag]


def filtered(env, value: object, name: str, page_url: str) -> str:
    """``value|name`` (``href``, ``absolute``) on the page at ``page_url``."""
    return env.from_string(f"{{{{ value|{name} }}}}").render(
        value=value, page_url=page_url, absolute_links=page_url == "404.html")


PAGES = ["", "papers/", "papers/p1/", "404.html"]


@pytest.mark.parametrize("page_url", PAGES)
def test_an_author_list_reads_as_the_paper_lists_its_authors(env, page_url: str) -> None:
    """Listed authors in order, "et al.", then the profiled authors at unknown positions
    ("(including ...)" after "et al.", else after a comma); linked to their pages unless
    ``link`` is false; each author noted as read."""
    catalog = TrackedCatalog(hostile_catalog())
    for paper in catalog._catalog.papers:
        listed = [catalog._catalog.author(i) for i in paper.author_ids]
        extra = [catalog._catalog.author(i) for i in paper.extra_author_ids]
        text = ", ".join(a.name for a in listed) + (" et al." if paper.et_al else "")
        if extra:
            text += ((" (including " if paper.et_al else ", ") if listed else "") + \
                ", ".join(a.name for a in extra) + (")" if listed and paper.et_al else "")
        for link in (True, False):
            html, lookups = render(env, "{{ paper|author_links(link) }}", catalog, page_url,
                                   paper=paper, link=link)
            parsed = Parsed(html)
            assert "".join(parsed.text) == text, (paper.id, link)
            assert parsed.all("a") == ([({"href": filtered(env, a, "href", page_url)}, a.name)
                                        for a in listed + extra] if link else [])
            assert lookups == {("author", a.id) for a in listed + extra}


@pytest.mark.parametrize("page_url", PAGES)
def test_links_and_sources_read_back(env, page_url: str) -> None:
    catalog = TrackedCatalog(hostile_catalog())
    for paper in catalog._catalog.papers:
        for cls in ("button", f"pill {NASTY}"):
            html, _ = render(env, "{{ paper|link_buttons(cls) }}", catalog, page_url,
                             paper=paper, cls=cls)
            assert Parsed(html).all("a") == [({"class": cls, "href": link.url, "rel": "noopener"},
                                              link.label) for link in paper.links]
        html, _ = render(env, "{% for s in paper.sources %}<li><code>{{ s|path_breaks }}</code>"
                              "</li>{% endfor %}", catalog, page_url, paper=paper)
        parsed = Parsed(html)
        assert [text for _, text in parsed.all("code")] == [str(s) for s in paper.sources]
        assert len(parsed.all("wbr")) == sum(str(s).count("/") for s in paper.sources)


@pytest.mark.parametrize("page_url", PAGES)
def test_counted_names_read_back(env, page_url: str) -> None:
    catalog = TrackedCatalog(hostile_catalog())
    authors = catalog._catalog.authors
    pairs = [(authors[0], 1), (authors[1], 2), (authors[2], 10)]
    html, _ = render(env, "{{ pairs|counted_names('joint paper', indent=6) }}", catalog,
                     page_url, pairs=pairs)
    assert html.split("\n") == [line for line in html.split("\n") if line.startswith(" " * 6 + "<li>")]
    parsed = Parsed(html)
    assert parsed.all("a") == [({"href": filtered(env, a, "href", page_url)}, a.name)
                               for a, _ in pairs]
    assert [text for _, text in parsed.all("li")] == [
        f"{a.name} {n} joint paper{'s' if n != 1 else ''}" for a, n in pairs]


def json_ready(data: object) -> object:
    """Data as JSON reads it back (tuples as lists)."""
    return json.loads(json.dumps(data))


def head(html: str) -> tuple[list[tuple[str, str, str | None]], list[object]]:
    """The ``<meta>`` tags of head markup, as (attribute, its value, content), and its
    JSON-LD scripts, decoded."""
    parsed = Parsed(html)
    metas = [(attribute, name, attrs["content"]) for attrs, _ in parsed.all("meta")
             for attribute, name in attrs.items() if attribute != "content"]
    scripts = parsed.all("script")
    assert all(attrs == {"type": "application/ld+json"} for attrs, _ in scripts)
    return metas, [json.loads(text) for _, text in scripts]


def tags(attribute: str, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str, str]]:
    return [(attribute, name, value) for name, value in pairs]


def social(kind: str, title: str, description: str, url: str) -> list[tuple[str, str, str]]:
    return (tags("property", metadata.open_graph_tags(kind, title, description, url, SITE))
            + tags("name", metadata.twitter_tags(title, description)))


@pytest.mark.parametrize("page_url", PAGES)
def test_head_markup_shows_the_metadata_data(env, page_url: str) -> None:
    """The ``*_meta_html`` filters lay out exactly the data render/metadata.py gives, over
    hostile text; a paper's head notes its authors as read."""
    catalog = TrackedCatalog(hostile_catalog())
    plain = catalog._catalog
    for paper in plain.papers:
        html, lookups = render(env, "{{ paper|paper_meta_html(catalog, site) }}", catalog,
                               page_url, paper=paper)
        url = absolute_url(paper_url(paper.id), SITE.site_url)
        assert head(html) == (
            tags("name", metadata.highwire_tags(paper, plain, SITE))
            + social("article", plain_text(paper.title), metadata.summary(paper.abstract), url),
            [json_ready(metadata.paper_jsonld(paper, plain, SITE))])
        assert {("author", i) for i in paper.all_author_ids} <= lookups
    author = plain.authors[0]
    html, _ = render(env, "{{ author|author_meta_html(3, site) }}", catalog, page_url,
                     author=author)
    assert head(html) == (
        social("profile", author.name, f"Publications of {author.name} (3 papers)",
               absolute_url(author_url(author.id), SITE.site_url)),
        [json_ready(metadata.author_jsonld(author, SITE))])
    html, _ = render(env, "{{ site|site_meta_html }}", catalog, page_url)
    assert head(html) == (social("website", SITE.title, metadata.summary(SITE.description),
                                 absolute_url("", SITE.site_url)),
                          [json_ready(metadata.site_jsonld(SITE))])
    subject, name = plain.subjects[1], f"{NASTY} (x&y)"
    url = filtered(env, subject, "absolute", page_url)
    html, _ = render(env, "{{ name|collection_meta_html(url, subject.paper_ids, catalog, subject, "
                          "site) }}", catalog, page_url, name=name, url=url, subject=subject)
    assert head(html) == (social("website", name, metadata.summary(SITE.description), url), [
        json_ready(metadata.collection_jsonld(name, url, subject.paper_ids, plain, subject, SITE))])


BEHIND_MACROS = ("author_links", "link_buttons", *(name for name in metadata.FILTERS
                                                 if name != "cite_data_html"))
"""Filters that a macro of macros.html or meta.html stands in front of (cite.html's data has
no macro)."""


def test_the_theme_uses_the_helpers_only_inside_its_macros() -> None:
    """The default theme's macros are the helpers' callers (so the cases above cover them), and
    no other template calls a helper that stands behind a macro: a theme that overrides the
    macro changes every page (tests/test_theming.py)."""
    theme = builtin_theme_dir("default")
    assert theme is not None
    templates = theme / "templates"
    macros = (templates / "partials/macros.html").read_text(encoding="utf-8")
    meta = (templates / "partials/meta.html").read_text(encoding="utf-8")
    assert "paper|author_links(link)" in macros and "paper|link_buttons(class)" in macros
    assert "paper|paper_meta_html(catalog, site)" in meta
    for path in templates.rglob("*.html"):
        if path.name not in ("macros.html", "meta.html"):
            text = path.read_text(encoding="utf-8")
            assert not any(f"|{name}" in text for name in BEHIND_MACROS), path


@given(st.one_of(st.text(), st.text(alphabet="<>&'\"ab \x00é")))
def test_esc_is_markupsafe_escape(text: str) -> None:
    assert esc(text) == str(markupsafe.escape(text))


def test_esc_leaves_markup_and_other_values_to_markupsafe() -> None:
    assert esc(markupsafe.Markup("<b>x</b>")) == "<b>x</b>"
    assert esc(12) == "12"
    assert esc(None) == "None"


def test_jsonld_cannot_close_its_script() -> None:
    html = metadata.jsonld_html({"name": "</script><script>alert(1)</script>", "x": "'&"})
    assert html.count("</script>") == 1 and "<script>" not in html.replace(
        '<script type="application/ld+json">', "")


# ---- tidying a rendered page --------------------------------------------------------------

def _whole_page_tidy(html: str) -> bytes:
    """The tidy rule stated on the whole page at once (what render._tidy makes in segments)."""
    lines = [line.rstrip() for line in html.splitlines()]
    kept = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]
    return ("\n".join(kept).strip() + "\n").encode("utf-8")


_PAGE_TEXT = st.text(st.sampled_from(list("ab \t\n\r\x0b\x0c\x85\u2028\u00a0é<>")), max_size=400)


@given(_PAGE_TEXT, st.integers(1, 8), st.integers(1, 4), st.lists(st.integers(0, 400)))
def test_tidy_in_segments_matches_the_whole_page_rule(html: str, segment: int, batch: int,
                                                      cuts: list[int]) -> None:
    """Tidied from chunks cut anywhere (a template's stream), taken a few at a time, in
    segments of any size."""
    from site_gen.render import engine as render

    bounds = sorted({0, len(html), *(c for c in cuts if c < len(html))})
    chunks = [markupsafe.Markup(html[a:b]) if i % 2 else html[a:b]
              for i, (a, b) in enumerate(itertools.pairwise(bounds))]
    old = render._SEGMENT, render._BATCH
    render._SEGMENT, render._BATCH = segment, batch
    try:
        assert render._tidy(chunks) == _whole_page_tidy(html)
    finally:
        render._SEGMENT, render._BATCH = old


def test_tidy_drops_trailing_spaces_and_runs_of_blank_lines() -> None:
    from site_gen.render.engine import _tidy

    assert _tidy(["\n  <p>a</p>   \n\n", "\n\n<p>b</p>\n\n"]) == b"<p>a</p>\n\n<p>b</p>\n"
    assert _tidy([]) == b"\n"
