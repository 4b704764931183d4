"""Data exports: Catalog -> ``papers.json`` and ``authors.json``, the merged catalog for reuse.

Output stage, {output path: bytes}. The format is versioned (``EXPORT_VERSION``) and documented
field by field in docs/data-exports.md; add fields freely, but rename or remove one only with
a new version. URLs are absolute (under ``site_url``) so the files are useful anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from site_gen.model import Author, Catalog, Paper
from site_gen.plan.urls import (
    AUTHORS_EXPORT,
    PAPERS_EXPORT,
    absolute_url,
    author_bibtex_url,
    author_feed_url,
    author_url,
    citation_url,
    paper_url,
    subject_feed_url,
    subject_url,
)
from site_gen.read.config import Config
from site_gen.render.citation import Names, author_names, author_roster, paper_links
from site_gen.util.jsonenc import JsonParts, json_array, json_bytes, json_object_parts
from site_gen.util.text import plain_text

EXPORT_VERSION = 1


def export_outputs(catalog: Catalog, config: Config) -> dict[str, bytes]:
    """Both export files, the bytes ``encode_json`` gives the documents below."""
    return {name: b"".join(parts) for name, parts in export_files(catalog, config)}


def export_files(catalog: Catalog, config: Config) -> Iterator[tuple[str, JsonParts]]:
    """``export_outputs``, each file as the parts it joins from (``Staging.put_parts``),
    each entry made as its part is taken, so that no file is ever whole in memory."""
    site_url, files = config.site_url, config.citation_files
    papers = (paper_entry(p, catalog, site_url, files, author_names(p, catalog))
              for p in catalog.papers)
    authors = (author_entry(a, site_url) for a in catalog.authors)
    return export_parts(catalog, config, papers, authors)


def export_parts(catalog: Catalog, config: Config, papers: Iterable[bytes],
                 authors: Iterable[bytes]) -> Iterator[tuple[str, JsonParts]]:
    """Both files joined from their entries' JSON texts (``paper_entry``, ``author_entry``,
    in catalog order): what the one-shot and the rebuilding generator share."""
    site, version = json_bytes(_site(config)), json_bytes(EXPORT_VERSION)
    yield PAPERS_EXPORT, json_object_parts(
        {"version": version, "site": site, "papers": json_array(papers),
         "subjects": json_bytes(_subjects(catalog, config))}, b"\n")
    yield AUTHORS_EXPORT, json_object_parts(
        {"version": version, "site": site, "authors": json_array(authors)}, b"\n")


def paper_entry(paper: Paper, catalog: Catalog, site_url: str, citation_files: bool,
                names: Names | None = None) -> bytes:
    """A paper's entry in ``papers.json``, as JSON text: the piece a rebuild may keep."""
    return json_bytes(_paper(paper, catalog, site_url, citation_files, names))


def author_entry(author: Author, site_url: str) -> bytes:
    """An author's entry in ``authors.json``, as JSON text: the piece a rebuild may keep."""
    return json_bytes(_author(author, site_url))


def _site(config: Config) -> dict[str, object]:
    return {"title": config.title, "url": config.site_url, "language": config.language}


def papers_document(catalog: Catalog, config: Config) -> dict[str, object]:
    """Every paper, plus the subjects they use."""
    return {"version": EXPORT_VERSION, "site": _site(config),
            "papers": [_paper(p, catalog, config.site_url, config.citation_files)
                       for p in catalog.papers],
            "subjects": _subjects(catalog, config)}


def _subjects(catalog: Catalog, config: Config) -> dict[str, object]:
    return {s.code: {"name": s.name, "group": s.group, "known": s.known,
                     "url": absolute_url(subject_url(s.code), config.site_url),
                     "feed": absolute_url(subject_feed_url(s.code), config.site_url)}
            for s in catalog.subjects}


def _paper(paper: Paper, catalog: Catalog, site_url: str, citation_files: bool,
           names: Names | None = None) -> dict[str, object]:
    """A paper's entry; ``citation`` names its citation files where the site writes them."""
    roster = author_roster(paper, catalog, names)
    links = paper_links(paper)
    return {
        "id": paper.id,
        "url": absolute_url(paper_url(paper.id), site_url),
        "title": paper.title,
        "title_text": plain_text(paper.title),
        "title_origin": paper.title_origin,
        "year": paper.year,
        "authors": list(paper.author_ids),
        "extra_authors": list(paper.extra_author_ids),
        "author_names": list(roster.names),
        "authors_listed": paper.authors_listed,
        "et_al": paper.et_al,
        "authors_note": roster.note,
        "subjects": list(paper.subjects),
        "abstract": paper.abstract,
        "abstract_text": plain_text(paper.abstract),
        "links": [{"kind": k.kind, "url": k.url, "label": k.label} for k in paper.links],
        "arxiv_id": links.arxiv_id,
        "doi": links.doi,
        "pdf_url": links.pdf_url,
        "citation": {fmt: absolute_url(citation_url(paper.id, fmt), site_url)
                     for fmt in ("bib", "ris", "csl")} if citation_files else {},
        "sources": [{"path": s.path, "line": s.line} for s in paper.sources],
    }


def authors_document(catalog: Catalog, config: Config) -> dict[str, object]:
    """Every author, profiled or co-author."""
    return {"version": EXPORT_VERSION, "site": _site(config),
            "authors": [_author(a, config.site_url) for a in catalog.authors]}


def _author(author: Author, site_url: str) -> dict[str, object]:
    return {
        "id": author.id,
        "name": author.name,
        "url": absolute_url(author_url(author.id), site_url),
        "profiled": author.profiled,
        "affiliation": author.affiliation,
        "homepage": author.homepage,
        "variants": list(author.variants),
        "papers": list(author.paper_ids),
        "profiles": [{"path": p.path, "records": p.records,
                      "claim": {"count": p.claim.count, "at_least": p.claim.at_least}
                      if p.claim else None} for p in author.profiles],
        "bibtex": absolute_url(author_bibtex_url(author.id), site_url),
        "feed": absolute_url(author_feed_url(author.id), site_url),
    }
