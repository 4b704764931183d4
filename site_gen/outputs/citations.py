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

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from site_gen.model import Catalog, Paper, newest_first
from site_gen.outputs.pieces import Carried, CatalogDelta, Pieces, in_step
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


class CitationMemo:
    """Citation pieces kept between builds (outputs/pieces.py): keys, BibTeX entries, files per paper."""

    def __init__(self, keep: bool = True) -> None:
        self.keep = keep
        self.keys: Pieces[str] = Pieces(keep)
        self.bibtex: Pieces[str] = Pieces(keep)
        self.files: Pieces[tuple[tuple[str, bytes], ...]] = Pieces(keep)
        self.authors: Pieces[bytes] = Pieces(keep)
        self.entries_made: _Entries | None = None
        """The catalog and site URL ``bibtex_entries`` last answered for, and its answer."""
        self.files_made: tuple[Catalog, dict[str, str]] | None = None
        """The catalog ``citation_files`` last made every file for, and the entries it used."""


# ---- keys -------------------------------------------------------------------------------

def citation_keys(catalog: Catalog, memo: Pieces[str] | None = None,
                  delta: CatalogDelta | None = None) -> dict[str, str]:
    """A unique, stable BibTeX key per paper: family name, year, first title word.

    The keys of a catalog are worked out once: the BibTeX entries and the citation files
    of one build both need them. With a ``delta`` (``memo`` holding the base keys of its
    previous catalog), only the papers it shows changed get their base key looked at again.
    """
    if type(catalog) is not Catalog:
        return _citation_keys(catalog, memo, delta)
    kept: dict[str, dict[str, str]] = catalog.derived
    if "citation-keys" not in kept:
        kept["citation-keys"] = _citation_keys(catalog, memo, delta)
    return kept["citation-keys"]


def _citation_keys(catalog: Catalog, memo: Pieces[str] | None = None,
                   delta: CatalogDelta | None = None) -> dict[str, str]:
    memo = memo if memo is not None else Pieces()
    shown = delta.papers_shown if delta is not None else None
    keys: dict[str, str] = {}
    taken: set[str] = set()
    author = catalog.author
    for paper in catalog.papers:
        if shown is None or paper.id in shown:
            ids = paper.all_author_ids
            first = author(ids[0]).name if ids else ""
            base = memo.get(paper.id, (paper, first), lambda: _base_key(paper, catalog))  # noqa: B023
        else:
            base = memo.value(paper.id)
        key, n = base, 0
        while key in taken:
            n += 1
            key = base + _suffix(n)
        taken.add(key)
        keys[paper.id] = key
    if delta is None:
        memo.done()
    else:
        memo.settle(delta.papers_gone)
    return keys


def _base_key(paper: Paper, catalog: Catalog) -> str:
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


# ---- BibTeX -----------------------------------------------------------------------------


# ---- RIS --------------------------------------------------------------------------------


# ---- CSL-JSON ---------------------------------------------------------------------------


# ---- files ------------------------------------------------------------------------------

def bibtex_entries(catalog: Catalog, site_url: str, memo: CitationMemo | None = None,
                   delta: CatalogDelta | None = None) -> dict[str, str]:
    """Paper id -> its BibTeX entry: the text a paper page's cite box shows (and its
    ``cite.bib`` holds, where written).

    With a memo, an entry made last build from the same paper, names and key is reused. Given
    the ``delta`` from the catalog the memo last answered for (with the same site URL), only
    the papers it names, and those whose key moved, are looked at again.
    """
    memo = memo or CitationMemo()
    made = memo.entries_made
    after = (in_step(delta, made.catalog, memo.keep)
             if made is not None and made.site_url == site_url else None)
    if after is not None and made is not None:
        keys, entries = _entries_after(catalog, site_url, after, memo, made)
    else:
        keys = citation_keys(catalog, memo.keys)
        entries = {}
        for p in catalog.papers:
            names, key = author_names(p, catalog), keys[p.id]
            entries[p.id] = memo.bibtex.get(
                p.id, (p, names, key, site_url),
                lambda: bibtex_entry(p, catalog, key, site_url, names))  # noqa: B023 (called at once)
        memo.bibtex.done()
    memo.entries_made = _Entries(catalog, site_url, keys, entries) if memo.keep else None
    return entries


class _Entries(NamedTuple):
    """What ``bibtex_entries`` answered for a catalog and site URL, with the keys it used."""

    catalog: Catalog
    site_url: str
    keys: dict[str, str]
    entries: dict[str, str]


def _entries_after(catalog: Catalog, site_url: str, delta: CatalogDelta, memo: CitationMemo,
                   before: _Entries) -> tuple[dict[str, str], dict[str, str]]:
    """``bibtex_entries`` (and its keys) from the last build's: made again for the papers the
    delta shows changed, and for those whose key moved (a paper that shares their base key)."""
    shown = delta.papers_shown
    keys = citation_keys(catalog, memo.keys, delta)
    fresh: dict[str, str] = {}
    for p in catalog.papers:
        key = keys[p.id]
        if p.id in shown or key != before.keys.get(p.id):
            names = author_names(p, catalog)
            fresh[p.id] = memo.bibtex.get(
                p.id, (p, names, key, site_url),
                lambda: bibtex_entry(p, catalog, key, site_url, names))  # noqa: B023 (called at once)
    memo.bibtex.settle(delta.papers_gone)
    old = before.entries
    return keys, {p.id: fresh.get(p.id) or old[p.id] for p in catalog.papers}


def citation_files(catalog: Catalog, site_url: str, entries: dict[str, str] | None = None,
                   memo: CitationMemo | None = None, delta: CatalogDelta | None = None,
                   paper_files: bool = False) -> Iterator[tuple[str, bytes] | Carried]:
    """Every citation file of the site (each author's ``papers.bib``; with ``paper_files``,
    ``citation_files`` in site.yaml, each paper's three files), one at a time, each made when
    it is asked for.

    Given the ``delta`` from the catalog the memo last made every file for (a rebuild with the
    same site URL), the files of papers whose BibTeX entry is the one they were made with, and
    of authors none of whose papers changed, come as one ``Carried``: an entry is made again
    exactly when what any of a paper's files is made from changed (``bibtex_entries``).
    """
    memo = memo or CitationMemo()
    keys = citation_keys(catalog, memo.keys)
    entries = entries if entries is not None else bibtex_entries(catalog, site_url, memo)
    made, memo.files_made = memo.files_made, None
    delta = in_step(delta, made[0] if made is not None else None, memo.keep)
    before = made[1] if made is not None and delta is not None else None
    carried: list[str] = []
    remade_papers: list[Paper] = []
    for paper in catalog.papers:
        entry, key = entries[paper.id], keys[paper.id]
        if before is not None and before.get(paper.id) is entry:
            if paper_files:
                carried += [name for name, _ in memo.files.value(paper.id)]
            continue
        remade_papers.append(paper)
        if not paper_files:
            continue
        names = author_names(paper, catalog)
        yield from memo.files.get(
            paper.id, (paper, names, key, entry, site_url),
            lambda: _paper_files(paper, catalog, key, entry, site_url, names))  # noqa: B023
    authors_remade = (delta.author_papers | {a for p in remade_papers for a in p.all_author_ids}
                      if delta is not None else frozenset())
    paper_of = catalog.paper
    for author in catalog.authors:
        if before is not None and author.id not in authors_remade:
            carried.append(author_bibtex_url(author.id))
            continue
        mine = tuple([paper_of(pid) for pid in author.paper_ids])
        texts = tuple([entries[pid] for pid in author.paper_ids])
        yield author_bibtex_url(author.id), memo.authors.get(
            author.id, (mine, texts), lambda: _author_bibtex(mine, entries))  # noqa: B023
    if delta is not None:
        memo.files.settle(delta.papers_gone)
        memo.authors.settle(delta.authors_gone)
    else:
        memo.files.done()
        memo.authors.done()
    if carried:
        yield Carried(tuple(carried))
    memo.files_made = (catalog, entries) if memo.keep else None


def _paper_files(paper: Paper, catalog: Catalog, key: str, entry: str, site_url: str,
                 names: Names) -> tuple[tuple[str, bytes], ...]:
    """A paper's cite.bib, cite.ris and cite.csl.json, with their names."""
    return ((citation_url(paper.id, "bib"), entry.encode("utf-8")),
            (citation_url(paper.id, "ris"),
             ris_record(paper, catalog, site_url, names).encode("utf-8")),
            (citation_url(paper.id, "csl"),
             encode_json([csl_item(paper, catalog, key, site_url, names)])))


def _author_bibtex(papers: tuple[Paper, ...], entries: dict[str, str]) -> bytes:
    """An author's papers.bib: their papers' entries, newest first."""
    return _join(entries[p.id] for p in sorted(papers, key=newest_first))


def _join(entries: Iterable[str]) -> bytes:
    return "\n".join(entries).encode("utf-8")
