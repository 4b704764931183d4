"""A paper as BibTeX, RIS and CSL-JSON: the formats, and who its authors are as they say it.

Used by the paper page's cite box (``cite_data``, ``metadata``) and by the citation files in
``outputs.citations``. Every value is plain text taken from untrusted dumps, so each format
escapes it by its own rules: BibTeX special characters become commands (braces always
balance), RIS values stay on one line, CSL-JSON goes through the JSON encoder. Each value, and
each name within one, closes the bidi controls it opens (``util.bidi``): a plain-text format
has no element to stop an override left open in one name from reversing the next. Author
lists say honestly what is known (``author_roster``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from site_gen.model import Catalog, Paper
from site_gen.plan.urls import absolute_url, paper_url
from site_gen.util.bidi import balance_bidi
from site_gen.util.subjects import subject_name
from site_gen.util.text import MEMO, plain_text

_PARTICLES = frozenset(["da", "de", "del", "della", "der", "di", "du", "dos", "la", "le", "van", "von", "den", "ter", "ten", "zu"])


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


def author_names(paper: Paper, catalog: Catalog) -> Names:
    """The names of a paper's listed and extra authors (what its exports say of people).

    Every generator asks this of every paper, so a build's answers are kept with its catalog
    (``Catalog.derived``). A catalog that notes lookups (render.TrackedCatalog, which
    templates get) is asked every time, so each page notes what it read.
    """
    if type(catalog) is not Catalog:
        return _author_names(paper, catalog)
    table: dict[str, Names] = catalog.derived.setdefault("author-names", {})
    names = table.get(paper.id)  # by id: a Paper hashes in Python, a str's hash is kept
    if names is None:
        names = table[paper.id] = _author_names(paper, catalog)
    return names










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
    joined = " and ".join(map(balance_bidi, extra))
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
    """Plain text on one line without characters that formats or parsers refuse, closing the
    bidi controls it opens (``util.bidi.balance_bidi``).

    Most text is already clean: printable (so no control, bidi control or separator but the
    space) and without leading, trailing or double spaces. That is checked in C, and
    returned as is.
    """
    if _is_clean(text):
        return text
    return _clean_text(text)


def _is_clean(text: str) -> bool:
    return text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " "


@lru_cache(maxsize=MEMO)
def _clean_text(text: str) -> str:
    return balance_bidi(_one_line(text))


def _one_line(text: str) -> str:
    """``clean_text`` but the bidi controls, for text cut into parts before they are closed."""
    return text if _is_clean(text) else " ".join(_UNPRINTABLE.sub("", text).split())


def split_name(name: str) -> tuple[str, str] | None:
    """(family, given) for a "Given Family" name; None when it cannot be split safely."""
    words = name.split()
    if len(words) < 2:
        return None
    start = len(words) - 1
    while start > 1 and words[start - 1].casefold() in _PARTICLES:
        start -= 1
    return " ".join(words[start:]), " ".join(words[:start])


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
    """"Family, Given" from the parts ``_csl_name`` gives, as cite.js makes it from them."""
    parts = _csl_name(name)
    return parts["literal"] if "literal" in parts else f"{parts['family']}, {parts['given']}"


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
    """A name's parts, each closing the bidi controls it opens (a part is a value alone)."""
    flat = _one_line(name)
    split = split_name(flat)
    family, given = (balance_bidi(split[0]), balance_bidi(split[1])) if split else ("", "")
    if not family or not given:  # no split, or a part that was a stray bidi terminator
        return {"literal": balance_bidi(flat)}
    return {"family": family, "given": given}


def cite_data(paper: Paper, catalog: Catalog, site_url: str) -> dict[str, object]:
    """What a paper page's script makes RIS and CSL-JSON from (static/cite.js): the CSL-JSON
    item without its ``id`` (the key of the BibTeX entry shown beside it) and ``abstract``
    (the page's ``citation_abstract`` tag), plus the PDF link RIS gives. RIS's keywords are
    the subject names of the page's ``citation_keywords`` tags."""
    item = csl_item(paper, catalog, "", site_url)
    del item["id"]
    item.pop("abstract", None)
    return {"csl": item, "pdf": paper_links(paper).pdf_url or ""}
