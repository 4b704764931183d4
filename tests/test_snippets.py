"""Markup built in Python (render/snippets.py, render/metadata.py's ``*_html``) is byte for byte what the
theme's Jinja macros made before, for hostile text, at every page depth and on the 404 page.

The former macros are kept here as the reference: each case renders the reference and the
new helper in the same environment, with the same tracked catalog, and compares the strings
and the lookups each made (incremental builds depend on those).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import markupsafe
import pytest
from hypothesis import given
from hypothesis import strategies as st

from site_gen.model import Author, Catalog, Link, Paper, Profile, SourceRef, Subject
from site_gen.pipeline import builtin_theme_dir
from site_gen.read.config import Config
from site_gen.render import metadata
from site_gen.render.engine import Theme, TrackedCatalog, make_environment
from site_gen.util.text import esc

NASTY = "</script><b x='1' y=\"2\">&amp; {{ 1 }} {% raw %} \u2028 \x01 é 中 `'\""

REFERENCE_MACROS = """
{% macro author_list(paper, link=true) -%}
{%- set listed = paper.author_ids -%}
{%- for id in listed -%}
{%- set a = catalog.author(id) -%}
{%- if link %}<a href="{{ a|href }}">{{ a.name }}</a>{% else %}{{ a.name }}{% endif %}{% if not loop.last %}, {% endif -%}
{%- endfor -%}
{%- if paper.et_al %} <span class="et-al">et al.</span>{% endif -%}
{%- if paper.extra_author_ids -%}
{%- if listed %}{% if paper.et_al %} <span class="incl">(including {% else %}, {% endif %}{% endif -%}
{%- for id in paper.extra_author_ids -%}
{%- set a = catalog.author(id) -%}
{%- if link %}<a href="{{ a|href }}">{{ a.name }}</a>{% else %}{{ a.name }}{% endif %}{% if not loop.last %}, {% endif -%}
{%- endfor -%}
{%- if listed and paper.et_al %})</span>{% endif -%}
{%- endif -%}
{%- endmacro %}
{% macro subject_chip(subject) -%}
<a class="chip" href="{{ subject|href }}" title="{{ subject.name }}">{{ subject.code }}</a>
{%- endmacro %}
{% macro paper_links(paper, class='button') -%}
{%- for link in paper.links %}<a class="{{ class }}" href="{{ link.url }}" rel="noopener">{{ link.label }}</a>{% if not loop.last %} {% endif %}{% endfor -%}
{%- endmacro %}
{% macro meta_tags(tags, attribute='name') -%}
{% for name, value in tags %}
<meta {{ attribute }}="{{ name }}" content="{{ value }}">
{% endfor %}
{%- endmacro %}
{% macro jsonld(data) -%}
<script type="application/ld+json">{{ data|tojson }}</script>
{%- endmacro %}
{% macro social(kind, title, description, url) -%}
{{ meta_tags(open_graph_tags(kind, title, description, url, site), 'property') }}
{{ meta_tags(twitter_tags(title, description)) }}
{%- endmacro %}
"""

REFERENCE = {
    "author_list": "{{ author_list(paper, link=link) }}",
    "chips": "{%- for code in paper.subjects %} {{ subject_chip(catalog.subject(code)) }}{% endfor %}",
    "links": "{{ paper_links(paper, cls) }}",
    "sources": "{% for s in paper.sources %}<li><code>{% for part in (s|string).split('/') %}"
               "{{ part }}{% if not loop.last %}/<wbr>{% endif %}{% endfor %}</code></li>{% endfor %}",
    "coauthors": "    <ul class=\"name-list\">\n    {% for a, n in pairs %}\n      <li><a href=\"{{ a|href }}\">"
                 "{{ a.name }}</a> <span class=\"count\">{{ n }}<span class=\"visually-hidden\"> joint paper"
                 "{{ 's' if n != 1 }}</span></span></li>\n    {% endfor %}\n    </ul>\n",
    "paper_meta": "{{ meta_tags(highwire_tags(paper, catalog, site)) }}\n"
                  "{{ social('article', paper.title|plain, summary(paper.abstract), paper|absolute) }}\n"
                  "{{ jsonld(paper_jsonld(paper, catalog, site)) }}",
    "author_meta": "{{ social('profile', author.name, 'Publications of ' ~ author.name ~ ' (' ~ "
                   "paper_count ~ ' papers)', author|absolute) }}\n{{ jsonld(author_jsonld(author, site)) }}",
    "site_meta": "{{ social('website', site.title, summary(site.description), ''|absolute) }}\n"
                 "{{ jsonld(site_jsonld(site)) }}",
    "collection_meta": "{{ social('website', name, summary(site.description), subject|absolute) }}\n"
                       "{{ jsonld(collection_jsonld(name, subject|absolute, subject.paper_ids, "
                       "catalog, subject, site)) }}",
}

NEW = {
    "author_list": "{{ paper|author_links(link) }}",
    "chips": "{%- if paper.subjects %} {{ paper.subjects|subject_chips }}{% endif %}",
    "links": "{{ paper|link_buttons(cls) }}",
    "sources": "{% for s in paper.sources %}<li><code>{{ s|path_breaks }}</code></li>{% endfor %}",
    "coauthors": "    <ul class=\"name-list\">\n{{ pairs|counted_names('joint paper', indent=6) }}\n    </ul>\n",
    "paper_meta": "{{ paper|paper_meta_html(catalog, site) }}",
    "author_meta": "{{ author|author_meta_html(paper_count, site) }}",
    "site_meta": "{{ site|site_meta_html }}",
    "collection_meta": "{{ name|collection_meta_html(subject|absolute, subject.paper_ids, catalog, "
                       "subject, site) }}",
}


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
    # The reference macros' |tojson, compact as metadata.jsonld_html writes JSON-LD.
    environment.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":"),
                                                  "ensure_ascii": False}
    return environment


def render(env, source: str, catalog: TrackedCatalog, page_url: str, **values: object
           ) -> tuple[str, set[tuple[str, str]]]:
    """``source`` rendered with the reference macros defined, and the lookups it made."""
    catalog.lookups = set()
    html = env.from_string(REFERENCE_MACROS + source).render(
        values, catalog=catalog, page_url=page_url, absolute_links=page_url == "404.html")
    return html, catalog.lookups


PAGES = ["", "papers/", "papers/p1/", "404.html"]


@pytest.mark.parametrize("page_url", PAGES)
@pytest.mark.parametrize("case", ["author_list", "chips", "links", "sources", "paper_meta"])
def test_paper_snippets_match_the_former_macros(env, case: str, page_url: str) -> None:
    catalog = TrackedCatalog(hostile_catalog())
    for paper in catalog._catalog.papers:
        for link, cls in ((True, "button"), (False, f"pill {NASTY}")):
            values = {"paper": paper, "link": link, "cls": cls}
            old = render(env, REFERENCE[case], catalog, page_url, **values)
            new = render(env, NEW[case], catalog, page_url, **values)
            assert new == old, (case, paper.id, page_url)


@pytest.mark.parametrize("page_url", PAGES)
def test_author_and_list_snippets_match_the_former_macros(env, page_url: str) -> None:
    catalog = TrackedCatalog(hostile_catalog())
    authors = catalog._catalog.authors
    values = {"pairs": [(authors[0], 1), (authors[1], 2), (authors[2], 10)], "author": authors[0],
              "paper_count": 3, "name": f"{NASTY} (x&y)", "subject": catalog._catalog.subjects[1]}
    for case in ("coauthors", "author_meta", "site_meta", "collection_meta"):
        old = render(env, REFERENCE[case], catalog, page_url, **values)
        new = render(env, NEW[case], catalog, page_url, **values)
        assert new == old, (case, page_url)


def test_the_theme_uses_the_helpers() -> None:
    """The default theme's macros are the helpers' callers (so the cases above cover it)."""
    theme = builtin_theme_dir("default")
    assert theme is not None
    macros = (theme / "templates/partials/macros.html").read_text(encoding="utf-8")
    item = (theme / "templates/partials/paper_item.html").read_text(encoding="utf-8")
    assert "paper|author_links(link)" in macros and "paper|link_buttons(class)" in macros
    assert "paper.subjects|subject_chips" in item and "paper|author_links(false)" in item


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
