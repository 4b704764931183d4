"""Scholarly metadata for page heads: Highwire tags, Open Graph, and schema.org JSON-LD.

Render-stage helpers, called from ``partials/meta.html``. The data functions return plain data
(name/value pairs or a JSON-ready dict). The ``*_html`` functions turn that data into the
markup the macros of ``partials/meta.html`` used to loop out, as one ``Markup`` string per
page: every page runs them, and one Python call costs a fraction of the Jinja macro calls,
escapes and ``Markup`` objects a loop makes per tag. Attribute values go through ``escape``
(what autoescape does), JSON-LD through Jinja's own ``|tojson`` function, which escapes
``<``, ``>``, ``&`` and ``'`` so no text can close the script. The data the cite box's
script makes RIS and CSL-JSON from (``cite_data_html``) is embedded the same way.
Google Scholar and reference managers read the ``citation_*`` tags; link previews read Open
Graph and Twitter tags. The abstract's one machine-readable copy is ``citation_abstract``
(docs/publishing.md says why); JSON-LD leaves it out.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from site_gen.model import Author, Catalog, Paper, Subject
from site_gen.plan.urls import (
    AUTHORS_EXPORT,
    PAPERS_EXPORT,
    absolute_url,
    author_url,
    citation_url,
    paper_url,
    subject_url,
)
from site_gen.read.config import Config
from site_gen.render.citation import author_roster, cite_data, clean_text, paper_links
from site_gen.util.bidi import balance_bidi
from site_gen.util.subjects import subject_name
from site_gen.util.text import MEMO, esc, plain_text

DESCRIPTION_LIMIT = 200
"""Characters of ``og:description``: what link previews show (X cuts near 200), as the
``description`` tag's excerpt."""
SCHEMA = "https://schema.org"
Tags = tuple[tuple[str, str], ...]


@lru_cache(maxsize=1024)
def clean_line(text: str) -> str:
    """``citations.clean_text``, memoised: a page's head cleans its abstract, title and
    description more than once, and names and site settings recur on every page. The cache
    holds a few pages' worth of values, not the whole site."""
    return clean_text(text)


def plain_line(text: str) -> str:
    """``text`` as clean plain text on one line."""
    return clean_line(plain_text(text))


def summary(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """Plain text cut at a word boundary, for descriptions and previews (the cut may leave
    a bidi control open that the text closed later: it is closed again)."""
    flat = plain_line(text)
    if len(flat) <= limit:
        return flat
    return balance_bidi(flat[:limit].rsplit(" ", 1)[0].rstrip(",;:")) + "…"


def highwire_tags(paper: Paper, catalog: Catalog, site: Config) -> Tags:
    """Google Scholar's ``citation_*`` meta tags, authors one per tag in order."""
    links = paper_links(paper)
    tags: list[tuple[str, str]] = [("citation_title", plain_text(paper.title))]
    tags += [("citation_author", name) for name in author_roster(paper, catalog).names]
    optional = [
        ("citation_publication_date", str(paper.year) if paper.year else ""),
        ("citation_abstract", plain_text(paper.abstract)),
        ("citation_pdf_url", links.pdf_url or ""),
        ("citation_arxiv_id", links.arxiv_id or ""),
        ("citation_doi", links.doi or ""),
        ("citation_technical_report_institution", "arXiv" if links.arxiv_id else ""),
        ("citation_abstract_html_url", absolute_url(paper_url(paper.id), site.site_url)),
        ("citation_language", site.language),
    ]
    tags += [(name, value) for name, value in optional if value]
    tags += [("citation_keywords", subject_name(code) or code) for code in paper.subjects]
    return tuple((name, clean_line(value)) for name, value in tags)


def open_graph_tags(kind: str, title: str, description: str, url: str, site: Config) -> Tags:
    """Open Graph ``og:*`` (as ``property``) for link previews."""
    tags = [("og:type", kind), ("og:title", title), ("og:url", url),
            ("og:site_name", site.title), ("og:locale", site.language.replace("-", "_"))]
    if description:
        tags.append(("og:description", description))
    return tuple((name, clean_line(value)) for name, value in tags)


def twitter_tags(title: str, description: str) -> Tags:
    """Twitter/X card tags (as ``name``): only the card type. X reads a card's title and
    description from ``og:title`` and ``og:description`` when its own tags are missing, so
    repeating them would only add bytes to every page (the arguments stay for themes)."""
    del title, description
    return (("twitter:card", "summary"),)


def paper_jsonld(paper: Paper, catalog: Catalog, site: Config) -> dict[str, object]:
    """schema.org ``ScholarlyArticle`` for a paper page: what search engines read that the
    Highwire tags do not say (the authors' and subjects' pages, identifiers), without
    copies of the same URL (``mainEntityOfPage``), the subjects' names as ``keywords``, the
    site (``og:site_name`` says it) or the abstract (``citation_abstract``)."""
    url = absolute_url(paper_url(paper.id), site.site_url)
    links = paper_links(paper)
    ids = paper.author_ids + paper.extra_author_ids
    authors = [_person_ref(catalog.author(a), site) for a in ids]
    data: dict[str, object] = {
        "@context": SCHEMA, "@type": "ScholarlyArticle", "@id": url, "url": url,
        "name": plain_line(paper.title),
        "headline": summary(paper.title, 110), "author": authors,
        "inLanguage": site.language,
    }
    if site.citation_files:
        data["encoding"] = [{"@type": "MediaObject", "encodingFormat": mime,
                             "contentUrl": absolute_url(citation_url(paper.id, fmt), site.site_url)}
                            for fmt, mime in _CITATION_TYPES]
    same_as = [u for u in (links.arxiv_url, f"https://doi.org/{links.doi}" if links.doi else None) if u]
    optional: dict[str, object] = {
        "datePublished": str(paper.year) if paper.year else None,
        "about": [_subject_term(catalog.subject(c), site) for c in paper.subjects],
        "sameAs": same_as,
        "identifier": _identifiers(links.arxiv_id, links.doi),
    }
    data.update((k, v) for k, v in optional.items() if v)
    return data


_CITATION_TYPES = (("bib", "application/x-bibtex"), ("ris", "application/x-research-info-systems"),
                   ("csl", "application/vnd.citationstyles.csl+json"))


def _identifiers(arxiv_id: str | None, doi: str | None) -> list[dict[str, str]]:
    found = [("arXiv", arxiv_id), ("DOI", doi)]
    return [{"@type": "PropertyValue", "propertyID": kind, "value": value}
            for kind, value in found if value]


def _person_ref(author: Author, site: Config) -> dict[str, object]:
    return {"@type": "Person", "name": clean_line(author.name),
            "url": absolute_url(author_url(author.id), site.site_url)}


def _subject_term(subject: Subject, site: Config) -> dict[str, object]:
    return {"@type": "DefinedTerm", "termCode": subject.code, "name": subject.name,
            "url": absolute_url(subject_url(subject.code), site.site_url)}


def author_jsonld(author: Author, site: Config) -> dict[str, object]:
    """schema.org ``ProfilePage`` whose main entity is the ``Person``."""
    url = absolute_url(author_url(author.id), site.site_url)
    person: dict[str, object] = {"@type": "Person", "@id": url + "#person",
                                 "name": clean_text(author.name), "url": url}
    if author.affiliation:
        person["affiliation"] = {"@type": "Organization", "name": clean_text(author.affiliation)}
    if author.homepage:
        person["sameAs"] = [author.homepage]
    if author.variants:
        person["alternateName"] = [clean_text(v) for v in author.variants]
    return {"@context": SCHEMA, "@type": "ProfilePage", "@id": url, "url": url,
            "name": clean_text(author.name), "mainEntity": person}


def collection_jsonld(name: str, page: str, paper_ids: tuple[str, ...], catalog: Catalog,
                      subject: Subject | None, site: Config) -> dict[str, object]:
    """schema.org ``CollectionPage`` (at absolute URL ``page``) for a list of papers."""
    papers = [catalog.paper(pid) for pid in paper_ids]
    data: dict[str, object] = {
        "@context": SCHEMA, "@type": "CollectionPage", "@id": page, "url": page,
        "name": clean_text(name),
        "hasPart": [_collection_item(p.id, p.title, site.site_url) for p in papers],
    }
    if subject is not None:
        data["about"] = _subject_term(subject, site)
    return data


def _collection_item(paper_id: str, title: str, site_url: str) -> dict[str, object]:
    """One paper of a ``CollectionPage``."""
    return {"@type": "ScholarlyArticle", "@id": absolute_url(paper_url(paper_id), site_url),
            "name": plain_line(title)}


def site_jsonld(site: Config) -> dict[str, object]:
    """schema.org ``WebSite`` plus a ``DataCatalog`` describing papers.json and authors.json."""
    datasets = [_dataset(PAPERS_EXPORT, "Papers", "Every paper on the site, merged and curated.", site),
                _dataset(AUTHORS_EXPORT, "Authors", "Every author on the site, with their papers.", site)]
    return {"@context": SCHEMA, "@graph": [
        {"@type": "WebSite", "@id": site.site_url, "url": site.site_url,
         "name": clean_text(site.title), "description": clean_text(site.description),
         "inLanguage": site.language},
        {"@type": "DataCatalog", "@id": site.site_url + "#data", "url": site.site_url,
         "name": clean_text(f"{site.title}: data"), "dataset": datasets},
    ]}


def _dataset(file: str, name: str, description: str, site: Config) -> dict[str, object]:
    return {"@type": "Dataset", "name": name, "description": description,
            "url": site.site_url,
            "distribution": {"@type": "DataDownload", "encodingFormat": "application/json",
                             "contentUrl": absolute_url(file, site.site_url)}}


# ---- Markup for partials/meta.html ----------------------------------------------------------


def meta_tags_html(tags: Iterable[tuple[str, str]], attribute: str = "name") -> Markup:
    """``<meta {attribute}="..." content="...">`` lines, every name and value escaped."""
    attr = esc(attribute)
    return Markup("".join(f'<meta {attr}="{esc(name)}" content="{esc(value)}">\n'
                          for name, value in tags))


def jsonld_html(data: object) -> Markup:
    """A JSON-LD ``<script>``: compact JSON (sorted keys), HTML-safe as ``|tojson`` makes it."""
    return Markup(f'<script type="application/ld+json">{compact_json(data)}</script>')


def compact_json(data: object) -> str:
    """``|tojson``'s HTML-safe JSON without the spaces after ``,`` and ``:`` (a few hundred
    bytes of every page), and with letters as UTF-8 rather than ``\\u`` escapes: a script
    data block is not JavaScript, so only ``<``, ``>``, ``&`` and ``'`` need escaping (they
    still are), and a name like Ångström costs its letters, not six bytes each."""
    return str(htmlsafe_json_dumps(data, sort_keys=True, separators=(",", ":"),
                                   ensure_ascii=False))


def social_html(kind: str, title: str, description: str, url: str, site: Config) -> Markup:
    """Open Graph then Twitter tags, a blank line between them."""
    return Markup(f"{meta_tags_html(open_graph_tags(kind, title, description, url, site), 'property')}"
                  f"\n{meta_tags_html(twitter_tags(title, description))}")


def paper_meta_html(paper: Paper, catalog: Catalog, site: Config) -> Markup:
    """A paper page's head metadata: Highwire, Open Graph and Twitter tags, then JSON-LD."""
    url = absolute_url(paper_url(paper.id), site.site_url)
    social = social_html("article", plain_text(paper.title), summary(paper.abstract), url, site)
    return Markup(f"{meta_tags_html(highwire_tags(paper, catalog, site))}\n{social}\n"
                  f"{jsonld_html(paper_jsonld(paper, catalog, site))}")


def cite_data_html(paper: Paper, catalog: Catalog, site: Config) -> Markup:
    """The cite box's data (``citations.cite_data``) as a JSON ``<script>`` for cite.js."""
    data = compact_json(cite_data(paper, catalog, site.site_url))
    return Markup(f'<script type="application/json" class="cite-data">{data}</script>')


def author_meta_html(author: Author, paper_count: int, site: Config) -> Markup:
    """An author page's head metadata: Open Graph and Twitter tags, then JSON-LD."""
    description = f"Publications of {balance_bidi(author.name)} ({paper_count} papers)"
    url = absolute_url(author_url(author.id), site.site_url)
    return Markup(f"{social_html('profile', author.name, description, url, site)}\n"
                  f"{jsonld_html(author_jsonld(author, site))}")


def site_meta_html(site: Config) -> Markup:
    """The home page's head metadata."""
    social = social_html("website", site.title, summary(site.description),
                         absolute_url("", site.site_url), site)
    return Markup(f"{social}\n{jsonld_html(site_jsonld(site))}")


def collection_meta_html(name: str, url: str, paper_ids: tuple[str, ...], catalog: Catalog,
                         subject: Subject | None, site: Config) -> Markup:
    """A list page's head metadata (``url`` is its absolute URL)."""
    social = social_html("website", name, summary(site.description), url, site)
    return Markup(f"{social}\n{collection_jsonld_html(name, url, paper_ids, catalog, subject, site)}")


_NO_PARTS = '"hasPart":[]'


def collection_jsonld_html(name: str, page: str, paper_ids: tuple[str, ...], catalog: Catalog,
                           subject: Subject | None, site: Config) -> Markup:
    """``jsonld_html(collection_jsonld(...))``, made from one memoised JSON text per paper.

    A subject page lists thousands of papers on a large site: re-rendered after an edit, it
    made every item and its JSON again (about a quarter of a watch rebuild's rendering at
    10,000 papers, where two subject pages are rendered again). JSON joins a
    list's items with ",", and ``jsonld_html``'s escaping replaces single characters, so the
    joined texts are the bytes the whole document would give. ``_NO_PARTS`` can only be the
    key itself: inside a JSON string, a quote is escaped.
    """
    whole = compact_json(collection_jsonld(name, page, (), catalog, subject, site))
    parts = ",".join([_collection_part(p.id, p.title, site.site_url)
                       for p in map(catalog.paper, paper_ids)])  # noted as read, as before
    spliced = whole.replace(_NO_PARTS, '"hasPart":[' + parts + "]", 1)
    return Markup(f'<script type="application/ld+json">{spliced}</script>')


@lru_cache(maxsize=MEMO)
def _collection_part(paper_id: str, title: str, site_url: str) -> str:
    """One ``hasPart`` item of ``collection_jsonld`` as ``jsonld_html`` writes it."""
    return compact_json(_collection_item(paper_id, title, site_url))


FILTERS = {"meta_tags_html": meta_tags_html, "jsonld_html": jsonld_html, "social_html": social_html,
           "paper_meta_html": paper_meta_html, "author_meta_html": author_meta_html,
           "cite_data_html": cite_data_html,
           "site_meta_html": site_meta_html, "collection_meta_html": collection_meta_html}
"""The filters render.make_environment adds for these: ``paper|paper_meta_html(catalog, site)``,
``tags|meta_tags_html('property')``, ``data|jsonld_html``, ... (the first argument is the value
filtered)."""
