"""Search data: Catalog -> ``search.json``, the index the search page's script loads.

Compact, sorted and deterministic; ``<``, ``>`` and ``&`` are escaped as ``\\u`` sequences so
the JSON is safe even if someone inlines it into a ``<script>``. Fields: docs/search.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .model import Author, Catalog, Paper
from .text import plain_text
from .urls import author_url, paper_url

SEARCH_FILE = "search.json"
SEARCH_VERSION = 1


def search_index(catalog: Catalog) -> dict[str, object]:
    """The search document: one entry per paper and per author."""
    papers = [_paper_entry(p, _names(catalog, p)) for p in catalog.papers]
    authors = [_author_entry(a) for a in catalog.authors]
    subjects = {s.code: s.name for s in catalog.subjects}
    return {"version": SEARCH_VERSION, "papers": papers, "authors": authors, "subjects": subjects}


def _names(catalog: Catalog, paper: Paper) -> tuple[str, ...]:
    return tuple(catalog.author(a).name for a in paper.all_author_ids)


def _paper_entry(paper: Paper, names: tuple[str, ...]) -> dict[str, object]:
    return {"url": paper_url(paper.id), "title": plain_text(paper.title), "authors": list(names),
            "year": paper.year, "subjects": list(paper.subjects),
            "abstract": plain_text(paper.abstract)}


def _author_entry(author: Author) -> dict[str, object]:
    return {"url": author_url(author.id), "name": author.name, "papers": len(author.paper_ids),
            "profiled": author.profiled}


@dataclass(slots=True)
class SearchMemo:
    """Encoded entries of the last search index, by the object (and names) they came from."""

    papers: dict[str, tuple[Paper, tuple[str, ...], str]] = field(default_factory=dict)
    authors: dict[str, tuple[Author, str]] = field(default_factory=dict)


def encode_search_index(catalog: Catalog, memo: SearchMemo) -> bytes:
    """``encode_json(search_index(catalog))``, re-encoding only entries whose data changed.

    The document is assembled from per-entry JSON in the order ``json.dumps(sort_keys=True)``
    gives (authors, papers, subjects, version), so the bytes are the same.
    """
    papers, authors = {}, {}
    for paper in catalog.papers:
        names = _names(catalog, paper)
        known = memo.papers.get(paper.id)
        if known is None or known[0] is not paper or known[1] != names:
            known = (paper, names, _encode(_paper_entry(paper, names)))
        papers[paper.id] = known
    for author in catalog.authors:
        seen = memo.authors.get(author.id)
        authors[author.id] = seen if seen is not None and seen[0] is author else (
            author, _encode(_author_entry(author)))
    memo.papers, memo.authors = papers, authors
    subjects = _encode({s.code: s.name for s in catalog.subjects})
    text = (f'{{"authors":[{",".join(e[1] for e in authors.values())}],'
            f'"papers":[{",".join(e[2] for e in papers.values())}],'
            f'"subjects":{subjects},"version":{SEARCH_VERSION}}}\n')
    return text.encode("utf-8")


def encode_json(document: object) -> bytes:
    """Compact, key-sorted UTF-8 JSON with HTML-significant characters escaped."""
    return (_encode(document) + "\n").encode("utf-8")


def _encode(document: object) -> str:
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
