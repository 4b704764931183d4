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

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, NamedTuple, TypeVar
from urllib.parse import unquote, urlsplit

from .memo import Carried, CatalogDelta, Pieces, in_step, made_files
from .model import Catalog, Paper, newest_first
from .search import encode_json
from .subjects import subject_name
from .text import MEMO, plain_text, slugify
from .urls import absolute_url, author_bibtex_url, citation_url, paper_url

_PARTICLES = frozenset(["da", "de", "del", "della", "der", "di", "du", "dos", "la", "le", "van", "von", "den", "ter", "ten", "zu"])
_STOP_WORDS = frozenset(["a", "an", "the", "on", "of", "for", "in", "to", "and", "with", "towards", "toward", "via"])
_ARXIV_PATH = re.compile(
    r"/(?:abs|pdf)/((?:\d{4}\.\d{4,5}|[a-z][a-z.\-]*/\d{7}))(v\d+)?(?:\.pdf)?/?")
_DOI = re.compile(r"10\.\d{4,9}/\S+")
# Characters XML 1.0 and most parsers refuse, and C0/C1 controls that mean nothing in text.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True, slots=True)
class Roster:
    """A paper's authors as an export can state them honestly."""

    names: tuple[str, ...]
    """Authors in order: the listed ones; or, when no list is known, the profiled ones."""
    truncated: bool
    """More authors exist than are named ("et al." in the source, or no list at all)."""
    note: str
    """An explanation for readers when the list is incomplete; "" when it is complete."""


@dataclass(frozen=True, slots=True)
class PaperLinks:
    """Identifiers and files a paper's curated links reveal."""

    arxiv_id: str | None
    doi: str | None
    pdf_url: str | None
    arxiv_url: str | None


Names = tuple[tuple[str, ...], tuple[str, ...]]
"""A paper's listed and extra authors' names: with the paper, all its exports are made from."""


class CitationMemo:
    """Citation pieces kept between builds (memo.py): keys, BibTeX entries, files per paper."""

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


def author_names(paper: Paper, catalog: Catalog) -> Names:
    """The names of a paper's listed and extra authors (what its exports say of people).

    Every generator asks this of every paper, so a build's answers are kept with its catalog
    (one catalog at a time). A catalog that notes lookups (render.TrackedCatalog, which
    templates get) is asked every time, so each page notes what it read.
    """
    if type(catalog) is not Catalog:
        return _author_names(paper, catalog)
    table = _NAMES.of(catalog)
    names = table.get(paper.id)  # by id: a Paper hashes in Python, a str's hash is kept
    if names is None:
        names = table[paper.id] = _author_names(paper, catalog)
    return names


K = TypeVar("K")
V = TypeVar("V")


class _LastCatalog(Generic[K, V]):
    """Answers about one catalog, dropped when another is asked about (a build's catalog)."""

    def __init__(self) -> None:
        self._catalog: Catalog | None = None
        self._answers: dict[K, V] = {}

    def of(self, catalog: Catalog) -> dict[K, V]:
        """The answers kept for ``catalog`` (empty for a catalog not seen last)."""
        if self._catalog is not catalog:
            self._catalog, self._answers = catalog, {}
        return self._answers


_NAMES: _LastCatalog[str, Names] = _LastCatalog()
"""``author_names``' answers, by paper id."""


def _author_names(paper: Paper, catalog: Catalog) -> Names:
    author = catalog.author  # the public lookup: templates pass a catalog that records lookups
    return (tuple([author(a).name for a in paper.author_ids]),
            tuple([author(a).name for a in paper.extra_author_ids]))


def author_roster(paper: Paper, catalog: Catalog, names: Names | None = None) -> Roster:
    """Authors whose position is known, whether more exist, and a note naming the others.

    A profiled author at an unknown position is never placed in the ordered list (that would
    state a position): the note names them instead. With no list at all, they are all we know.
    """
    listed, extra = names or author_names(paper, catalog)
    names_ = listed or extra
    truncated = paper.et_al or not paper.authors_listed or (bool(extra) and bool(listed))
    joined = " and ".join(extra)
    if not paper.authors_listed:
        note = f"The sources name only {joined}; the full author list and its order are unknown."
    elif extra:
        note = (f"The author list is incomplete; {joined} "
                f"{'is an author' if len(extra) == 1 else 'are authors'} at an unknown position.")
    elif paper.et_al:
        note = "The author list is truncated in the sources."
    else:
        note = ""
    return Roster(names_, truncated, note)


def paper_links(paper: Paper) -> PaperLinks:
    """The arXiv id, DOI and PDF URL from a paper's links, where curation gave them."""
    arxiv_id = arxiv_url = doi = pdf = None
    for link in paper.links:
        parts = urlsplit(link.url)
        host = parts.netloc.lower().removeprefix("www.")
        match = _ARXIV_PATH.fullmatch(parts.path) if host in ("arxiv.org", "export.arxiv.org") else None
        if match and arxiv_id is None:
            arxiv_id, arxiv_url = match.group(1), link.url
        if link.kind == "doi" or host in ("doi.org", "dx.doi.org"):
            found = _DOI.search(unquote(parts.path))
            doi = doi or (found.group(0) if found else None)
        if link.kind == "pdf" and pdf is None:
            pdf = link.url
    if pdf is None and arxiv_id is not None:
        pdf = f"https://arxiv.org/pdf/{arxiv_id}"
    return PaperLinks(arxiv_id, doi, pdf, arxiv_url)


def clean_text(text: str) -> str:
    """Plain text on one line without characters that formats or parsers refuse.

    Most text is already clean: printable (so no control or separator but the space) and
    without leading, trailing or double spaces. That is checked in C, and returned as is.
    """
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return _clean_text(text)


@lru_cache(maxsize=MEMO)
def _clean_text(text: str) -> str:
    return " ".join(_UNPRINTABLE.sub("", text).split())


def split_name(name: str) -> tuple[str, str] | None:
    """(family, given) for a "Given Family" name; None when it cannot be split safely."""
    words = name.split()
    if len(words) < 2:
        return None
    start = len(words) - 1
    while start > 1 and words[start - 1].casefold() in _PARTICLES:
        start -= 1
    return " ".join(words[start:]), " ".join(words[:start])


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
    kept = _KEYS.of(catalog)
    if "keys" not in kept:
        kept["keys"] = _citation_keys(catalog, memo, delta)
    return kept["keys"]


_KEYS: _LastCatalog[str, dict[str, str]] = _LastCatalog()
"""``citation_keys``' answer, under ``"keys"``."""


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

# Braces become text commands, not \{ and \}: classic BibTeX counts escaped braces too.
_BIBTEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
                   "%": r"\%", "&": r"\&",
                   "$": r"\$", "#": r"\#", "_": r"\_", "^": r"\textasciicircum{}",
                   "~": r"\textasciitilde{}"}
_BIBTEX_RE = re.compile("|".join(re.escape(c) for c in _BIBTEX_SPECIAL))


def bibtex_escape(text: str) -> str:
    """Plain text -> a BibTeX value body: specials as commands, so braces always balance."""
    return _BIBTEX_RE.sub(_bibtex_special, clean_text(text))


def _bibtex_special(match: re.Match[str]) -> str:
    return _BIBTEX_SPECIAL[match.group(0)]


def bibtex_url(url: str) -> str:
    """A URL for BibTeX's verbatim ``url``/``doi`` fields: only brace-breaking characters encoded."""
    return re.sub(r"[{}\\\s\"]", lambda m: f"%{ord(m.group(0)):02X}", clean_text(url))


def _bibtex_title(title: str) -> str:
    """Escape, then brace words with inner capitals ("RoLA", "LLMs") so styles keep their case."""
    words = bibtex_escape(title).split(" ")
    return " ".join("{" + w + "}" if _INNER_CAPITAL.search(w) else w for w in words)


# A capital after a letter or digit inside one hyphen-separated part: "MoE", "GPT4V", not "Safe".
_INNER_CAPITAL = re.compile(r"[A-Za-z0-9][A-Z]")


def _bibtex_name(name: str) -> str:
    """A name as BibTeX reads it; a name holding the word "and" is braced so it stays one."""
    escaped = bibtex_escape(name)
    return "{" + escaped + "}" if re.search(r"\band\b", escaped, re.IGNORECASE) else escaped


def bibtex_entry(paper: Paper, catalog: Catalog, key: str, site_url: str,
                 names: Names | None = None) -> str:
    """One ``@misc`` entry; arXiv fields where curation gave an arXiv link; no abstract (as
    Google Scholar's BibTeX)."""
    roster = author_roster(paper, catalog, names)
    links = paper_links(paper)
    authors = [_bibtex_name(n) for n in roster.names] + (["others"] if roster.truncated else [])
    fields = [
        ("author", " and ".join(authors)),
        ("title", _bibtex_title(plain_text(paper.title))),
        ("year", str(paper.year) if paper.year else ""),
        ("eprint", links.arxiv_id or ""),
        ("archiveprefix", "arXiv" if links.arxiv_id else ""),
        ("primaryclass", paper.subjects[0] if links.arxiv_id and paper.subjects else ""),
        ("doi", bibtex_url(links.doi or "")),
        ("url", bibtex_url(_best_url(paper, links, site_url))),
        ("keywords", bibtex_escape(", ".join(paper.subjects))),
        ("annote", bibtex_escape(roster.note)),
    ]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@misc{{{key},\n{body}\n}}\n"


def _best_url(paper: Paper, links: PaperLinks, site_url: str) -> str:
    """Where a reader finds the paper: DOI, then arXiv, then its page on this site."""
    if links.doi:
        return f"https://doi.org/{links.doi}"
    return links.arxiv_url or absolute_url(paper_url(paper.id), site_url)


# ---- RIS --------------------------------------------------------------------------------

def ris_record(paper: Paper, catalog: Catalog, site_url: str, names: Names | None = None) -> str:
    """One RIS record (``TY`` .. ``ER``), CRLF line ends as the format specifies."""
    roster = author_roster(paper, catalog, names)
    links = paper_links(paper)
    lines = [("TY", "GEN"), ("TI", plain_text(paper.title))]
    lines += [("AU", _ris_name(n)) for n in roster.names]
    lines += [("PY", str(paper.year) if paper.year else ""),
              ("AB", plain_text(paper.abstract)),
              ("DO", links.doi or ""),
              ("UR", _best_url(paper, links, site_url)),
              ("L1", links.pdf_url or "")]
    lines += [("KW", subject_name(code) or code) for code in paper.subjects]
    lines += [("N1", roster.note), ("ER", "")]
    return "".join(f"{tag}  - {clean_text(value)}\r\n" for tag, value in lines
                   if value or tag == "ER")


def _ris_name(name: str) -> str:
    split = split_name(name)
    return f"{split[0]}, {split[1]}" if split else name


# ---- CSL-JSON ---------------------------------------------------------------------------

def csl_item(paper: Paper, catalog: Catalog, key: str, site_url: str,
             names: Names | None = None) -> dict[str, object]:
    """One CSL-JSON item (type "article": a preprint or working paper)."""
    roster = author_roster(paper, catalog, names)
    links = paper_links(paper)
    item: dict[str, object] = {
        "id": key, "type": "article", "title": clean_text(plain_text(paper.title)),
        "author": [_csl_name(n) for n in roster.names],
        "URL": _best_url(paper, links, site_url),
    }
    optional: dict[str, object] = {
        "issued": {"date-parts": [[paper.year]]} if paper.year else None,
        "abstract": clean_text(plain_text(paper.abstract)),
        "DOI": links.doi,
        "number": f"arXiv:{links.arxiv_id}" if links.arxiv_id else None,
        "publisher": "arXiv" if links.arxiv_id else None,
        "keyword": ", ".join(paper.subjects),
        "annote": roster.note,
    }
    item.update((k, v) for k, v in optional.items() if v)
    return item


def _csl_name(name: str) -> dict[str, str]:
    split = split_name(clean_text(name))
    return {"family": split[0], "given": split[1]} if split else {"literal": clean_text(name)}


def cite_data(paper: Paper, catalog: Catalog, site_url: str) -> dict[str, object]:
    """What a paper page's script makes RIS and CSL-JSON from (static/cite.js): the CSL-JSON
    item without its ``id`` (the key of the BibTeX entry shown beside it) and ``abstract``
    (the page's ``citation_abstract`` tag), plus the PDF link RIS gives. RIS's keywords are
    the subject names of the page's ``citation_keywords`` tags."""
    item = csl_item(paper, catalog, "", site_url)
    del item["id"]
    item.pop("abstract", None)
    return {"csl": item, "pdf": paper_links(paper).pdf_url or ""}


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


def citation_outputs(catalog: Catalog, site_url: str, entries: dict[str, str] | None = None,
                     memo: CitationMemo | None = None, paper_files: bool = False
                     ) -> dict[str, bytes]:
    """Every citation file of the site, by output path: each author's ``papers.bib``, and
    with ``paper_files`` (``citation_files`` in site.yaml) each paper's three files."""
    return dict(made_files(citation_files(catalog, site_url, entries, memo,
                                          paper_files=paper_files)))


def citation_files(catalog: Catalog, site_url: str, entries: dict[str, str] | None = None,
                   memo: CitationMemo | None = None, delta: CatalogDelta | None = None,
                   paper_files: bool = False) -> Iterator[tuple[str, bytes] | Carried]:
    """``citation_outputs`` one file at a time, each made when it is asked for.

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
