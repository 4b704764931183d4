"""Citation exports: Catalog -> BibTeX, RIS and CSL-JSON, {output path: bytes}.

One BibTeX file per author (``authors/<id>/papers.bib``). A paper page's cite box shows the
paper's BibTeX entry and makes RIS and CSL-JSON in the browser from ``cite_data``
(static/cite.js); a site with ``citation_files: true`` also gets one file of each format per
paper (``papers/<id>/cite.bib``, ``cite.ris``, ``cite.csl.json``). Entries carry no abstract:
it is on the paper's page, and an author's file of every abstract grew with the catalog
(RIS and CSL-JSON, one paper each, keep theirs). Every value is plain text taken
from untrusted dumps, so each format escapes it by its own rules: BibTeX special characters
become commands (braces always balance), RIS values stay on one line, CSL-JSON goes through
the JSON encoder. Author lists say honestly what is known (see ``author_roster``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from site_gen.model import Author, Catalog, Paper, newest_first
from site_gen.plan.urls import author_bibtex_url, citation_url
from site_gen.render.citation import (
    Names,
    author_names,
    bibtex_entry,
    csl_item,
    ris_record,
    split_name,
)
from site_gen.util.jsonenc import encode_json
from site_gen.util.text import plain_text, slugify

_STOP_WORDS = frozenset(["a", "an", "the", "on", "of", "for", "in", "to", "and", "with", "towards", "toward", "via"])


# ---- keys -------------------------------------------------------------------------------

def citation_keys(catalog: Catalog, make: Callable[[Catalog], dict[str, str]] | None = None
                  ) -> dict[str, str]:
    """A unique, stable BibTeX key per paper: family name, year, first title word.

    The keys of a catalog are worked out once: the BibTeX entries and the citation files
    of one build both need them. ``make`` works them out (``fresh_keys``; a rebuild passes
    one that reuses the base keys of unchanged papers).
    """
    derived: dict[str, dict[str, str]] = catalog.derived if type(catalog) is Catalog else {}
    if "citation-keys" not in derived:
        derived["citation-keys"] = (make or fresh_keys)(catalog)
    return derived["citation-keys"]


def fresh_keys(catalog: Catalog) -> dict[str, str]:
    """Every paper's key, each worked out from the paper (``base_key``)."""
    return unique_keys(catalog, lambda paper: base_key(paper, catalog))


def unique_keys(catalog: Catalog, base: Callable[[Paper], str]) -> dict[str, str]:
    """Each paper's base key, with a letter suffix where an earlier paper took it."""
    keys: dict[str, str] = {}
    taken: set[str] = set()
    for paper in catalog.papers:
        key = first = base(paper)
        n = 0
        while key in taken:
            n += 1
            key = first + _suffix(n)
        taken.add(key)
        keys[paper.id] = key
    return keys


def base_key(paper: Paper, catalog: Catalog) -> str:
    """A paper's key before it is made unique: it reads the paper and its first author's name."""
    ids = paper.all_author_ids
    first = catalog.author(ids[0]).name if ids else ""
    family = (split_name(first) or (first, ""))[0]
    words = [w for w in slugify(plain_text(paper.title)).split("-") if w not in _STOP_WORDS]
    parts = (slugify(family).replace("-", ""), str(paper.year or ""), words[0] if words else "")
    return "".join(parts) or "paper"


def _suffix(n: int) -> str:
    """1 -> "b", 25 -> "z", 26 -> "ba": letters, so keys stay readable."""
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


# ---- files ------------------------------------------------------------------------------

def bibtex_entries(catalog: Catalog, site_url: str) -> dict[str, str]:
    """Paper id -> its BibTeX entry: the text a paper page's cite box shows (and its
    ``cite.bib`` holds, where written)."""
    keys = citation_keys(catalog)
    return {p.id: bibtex_entry(p, catalog, keys[p.id], site_url, author_names(p, catalog))
            for p in catalog.papers}


def citation_files(catalog: Catalog, site_url: str, entries: Mapping[str, str] | None = None,
                   paper_files: bool = False) -> Iterator[tuple[str, bytes]]:
    """Every citation file of the site (with ``paper_files``, ``citation_files`` in
    site.yaml, each paper's three files; then each author's ``papers.bib``), one at a time,
    each made when it is asked for."""
    keys = citation_keys(catalog)
    entries = entries if entries is not None else bibtex_entries(catalog, site_url)
    if paper_files:
        for paper in catalog.papers:
            yield from paper_citation_files(paper, catalog, keys[paper.id], entries[paper.id],
                                            site_url, author_names(paper, catalog))
    for author in catalog.authors:
        yield author_bibtex_url(author.id), author_bibtex(author_papers(author, catalog),
                                                          entries)


def author_papers(author: Author, catalog: Catalog) -> tuple[Paper, ...]:
    """The papers of an author's ``papers.bib``."""
    paper_of = catalog.paper
    return tuple([paper_of(pid) for pid in author.paper_ids])


def paper_citation_files(paper: Paper, catalog: Catalog, key: str, entry: str,
                         site_url: str, names: Names) -> tuple[tuple[str, bytes], ...]:
    """A paper's cite.bib, cite.ris and cite.csl.json, with their names."""
    return ((citation_url(paper.id, "bib"), entry.encode("utf-8")),
            (citation_url(paper.id, "ris"),
             ris_record(paper, catalog, site_url, names).encode("utf-8")),
            (citation_url(paper.id, "csl"),
             encode_json([csl_item(paper, catalog, key, site_url, names)])))


def author_bibtex(papers: tuple[Paper, ...], entries: Mapping[str, str]) -> bytes:
    """An author's papers.bib: their papers' entries, newest first."""
    return _join(entries[p.id] for p in sorted(papers, key=newest_first))


def _join(entries: Iterable[str]) -> bytes:
    return "\n".join(entries).encode("utf-8")
