"""Search data: Catalog -> ``search.json``, the index the search page's script loads.

Compact, sorted and deterministic; ``<``, ``>`` and ``&`` are escaped as ``\\u`` sequences so
the JSON is safe even if someone inlines it into a ``<script>``. Fields: docs/search.md.
"""

from __future__ import annotations

import json

from .model import Catalog
from .text import plain_text
from .urls import author_url, paper_url

SEARCH_FILE = "search.json"
SEARCH_VERSION = 1


def search_index(catalog: Catalog) -> dict[str, object]:
    """The search document: one entry per paper and per author."""
    papers = [
        {
            "url": paper_url(p.id),
            "title": plain_text(p.title),
            "authors": [catalog.author(a).name for a in p.all_author_ids],
            "year": p.year,
            "subjects": list(p.subjects),
            "abstract": plain_text(p.abstract),
        }
        for p in catalog.papers
    ]
    authors = [
        {"url": author_url(a.id), "name": a.name, "papers": len(a.paper_ids),
         "profiled": a.profiled}
        for a in catalog.authors
    ]
    subjects = {s.code: s.name for s in catalog.subjects}
    return {"version": SEARCH_VERSION, "papers": papers, "authors": authors, "subjects": subjects}


def encode_json(document: object) -> bytes:
    """Compact, key-sorted UTF-8 JSON with HTML-significant characters escaped."""
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n").encode("utf-8")
