"""Search data: Catalog -> ``search.json`` plus the sharded index the search page loads.

``search.json`` lists every paper and author (for tools and scripts). The search page never
downloads it: it reads the small manifest ``search/index/meta.json`` and then, per query, only
the term shards, vocabulary and result fragments that query needs. Everything is compact,
sorted and deterministic; ``<``, ``>`` and ``&`` are escaped as ``\\u`` sequences so the JSON
is safe even if someone inlines it into a ``<script>``. Formats: docs/search.md.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .model import Author, Catalog, Paper
from .text import plain_text
from .urls import author_url, paper_url

SEARCH_FILE = "search.json"
INDEX_DIR = "search/index/"
SEARCH_VERSION = 2
SHARD_BYTES = 12_000
"""Term shards are cut at about this many bytes: small enough that a query loads little."""

TITLE, AUTHORS, SUBJECTS, ABSTRACT = range(4)
FIELDS = ("title", "authors", "subjects", "abstract")
STOPWORDS = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "in",
    "into", "is", "it", "its", "of", "on", "or", "our", "that", "the", "their", "this", "to",
    "was", "we", "were", "which", "with",
])
"""Function words left out of titles, subject names and abstracts (never out of names)."""

DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
"""Number alphabet of the posting lists: 5 value bits per character, the 6th says 'more'."""

_COMBINING = re.compile("[\u0300-\u036f]")
_SEPARATORS = re.compile(r"[\W_]+")


@dataclass(frozen=True, slots=True)
class SearchDoc:
    """One search result: a paper or an author, with its words by field."""

    fragment: dict[str, object]
    fields: tuple[str, ...]
    year: int | None = None
    subjects: tuple[str, ...] = ()
    is_paper: bool = True


def fold(text: str) -> str:
    """Lower case without accents, exactly as search.js folds queries."""
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text)).lower()


def words(text: str) -> list[str]:
    """The searchable words of a text, as search.js splits it."""
    return [w for w in _SEPARATORS.split(fold(text)) if w]


def indexable(word: str, field: int) -> bool:
    """Single ASCII characters and (outside names) stopwords are not worth a posting."""
    if len(word) == 1 and word.isascii():
        return False
    return field == AUTHORS or word not in STOPWORDS


def search_index(catalog: Catalog) -> dict[str, object]:
    """The ``search.json`` document: one entry per paper and per author."""
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
    return {"version": SEARCH_VERSION, "index": INDEX_DIR + "meta.json", "papers": papers,
            "authors": authors, "subjects": subjects}


def search_outputs(catalog: Catalog, memo: object = None) -> dict[str, bytes]:
    """Every search file by output path: ``search.json`` and the sharded index."""
    docs = search_docs(catalog)
    files = dict(_index_files(catalog, docs))
    version = hashlib.sha256(b"".join(files[k] for k in sorted(files))).hexdigest()[:10]
    manifest = _manifest(catalog, docs, files, version)
    out = {INDEX_DIR + name: data for name, data in files.items()}
    out[INDEX_DIR + "meta.json"] = encode_json(manifest)
    out[SEARCH_FILE] = encode_json(search_index(catalog))
    return out


# ---- documents ----------------------------------------------------------------------------

def ordered_papers(catalog: Catalog) -> list[Paper]:
    """Papers newest first (no year last), then by title: doc numbers follow this order."""
    return sorted(catalog.papers, key=lambda p: (p.year is None, -(p.year or 0),
                                                 plain_text(p.title).casefold(), p.id))


def ordered_authors(catalog: Catalog) -> list[Author]:
    """Authors with the most papers first, then by name."""
    return sorted(catalog.authors, key=lambda a: (-len(a.paper_ids), fold(a.name), a.id))


def search_docs(catalog: Catalog) -> list[SearchDoc]:
    """Papers, then authors, in doc-number order."""
    docs = [_paper_doc(catalog, p) for p in ordered_papers(catalog)]
    return docs + [_author_doc(a) for a in ordered_authors(catalog)]


def typeset(text: str) -> str:
    """TeX dashes as Unicode, for titles shown in results."""
    return text.replace("---", "\u2014").replace("--", "\u2013")


def _paper_doc(catalog: Catalog, paper: Paper) -> SearchDoc:
    title = typeset(plain_text(paper.title))
    names = [catalog.author(a).name for a in paper.all_author_ids]
    subjects = " ".join(f"{code} {catalog.subject(code).name}" for code in paper.subjects)
    abstract = plain_text(paper.abstract)
    fragment: dict[str, object] = {"u": paper_url(paper.id), "t": title, "a": names,
                                   "y": paper.year, "s": list(paper.subjects), "b": abstract}
    if paper.et_al:
        fragment["e"] = len(paper.author_ids)
    return SearchDoc(fragment, (title, " ".join(names), subjects, abstract), paper.year,
                     paper.subjects)


def _author_doc(author: Author) -> SearchDoc:
    fragment = {"u": author_url(author.id), "n": author.name, "c": len(author.paper_ids),
                "p": author.profiled}
    return SearchDoc(fragment, (author.name, "", "", ""), is_paper=False)


# ---- postings -----------------------------------------------------------------------------

def postings(docs: list[SearchDoc]) -> dict[str, list[list[int]]]:
    """term -> one ascending list of doc numbers per field."""
    index: dict[str, list[list[int]]] = defaultdict(lambda: [[], [], [], []])
    for number, doc in enumerate(docs):
        for field, text in enumerate(doc.fields):
            for word in dict.fromkeys(words(text)):
                if indexable(word, field):
                    index[word][field].append(number)
    return index


def encode_number(n: int) -> str:
    """A non-negative integer in the posting alphabet, least significant 5 bits first."""
    out = []
    while True:
        low, n = n & 31, n >> 5
        out.append(DIGITS[low | (32 if n else 0)])
        if not n:
            return "".join(out)


def encode_ids(ids: list[int], total: int) -> str:
    """Ascending doc numbers: gaps as numbers, or ``~`` and a bitmap when that is shorter."""
    deltas, last = [], -1
    for i in ids:
        deltas.append(encode_number(i - last - 1))
        last = i
    gaps = "".join(deltas)
    if len(gaps) <= (total + 5) // 6 + 1:
        return gaps
    bits = bytearray((total + 5) // 6)
    for i in ids:
        bits[i // 6] |= 1 << (i % 6)
    return "~" + "".join(DIGITS[b] for b in bits)


def encode_term(lists: list[list[int]], total: int) -> str:
    """A term's four field lists, separated by dots, trailing empty lists dropped."""
    return ".".join(encode_ids(ids, total) for ids in lists).rstrip(".")


def term_order(term: str) -> bytes:
    """Sort key matching JavaScript's string comparison (UTF-16 code units)."""
    return term.encode("utf-16-be")


# ---- files --------------------------------------------------------------------------------

def _index_files(catalog: Catalog, docs: list[SearchDoc]) -> Iterator[tuple[str, bytes]]:
    """Term shards, vocabularies, subject lists and result fragments by relative name."""
    total = len(docs)
    index = postings(docs)
    terms = sorted(index, key=term_order)
    encoded = {t: encode_term(index[t], total) for t in terms}
    for number, shard in enumerate(_shards(terms, encoded)):
        yield f"t/{number}.json", encode_json({t: encoded[t] for t in shard})
    for key, group in _by_first_letter(terms):
        yield f"v/{key}.json", encode_json(" ".join(group))
    for code, ids in sorted(_subject_ids(docs).items()):
        yield f"s/{code}.json", encode_json(encode_ids(ids, total))
    for number, doc in enumerate(docs):
        yield f"d/{number}.json", encode_json(doc.fragment)


def _shards(terms: list[str], encoded: dict[str, str]) -> list[list[str]]:
    """Consecutive runs of terms of about SHARD_BYTES each."""
    shards: list[list[str]] = [[]]
    size = 0
    for term in terms:
        cost = len(term) + len(encoded[term]) + 6
        if size + cost > SHARD_BYTES and shards[-1]:
            shards.append([])
            size = 0
        shards[-1].append(term)
        size += cost
    return shards


def letter_key(term: str) -> str:
    """The vocabulary file of a term: its first character's code point in hex."""
    return format(ord(term[0]), "x")


def _by_first_letter(terms: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for term in terms:
        groups[letter_key(term)].append(term)
    return iter(sorted(groups.items()))


def _subject_ids(docs: list[SearchDoc]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = defaultdict(list)
    for number, doc in enumerate(docs):
        for code in doc.subjects:
            found[code].append(number)
    return found


def _manifest(catalog: Catalog, docs: list[SearchDoc], files: dict[str, bytes],
              version: str) -> dict[str, object]:
    """What the search page loads first: sizes, shard ranges, years and subjects."""
    shards = sorted((int(name[2:-5]), json.loads(data)) for name, data in files.items()
                    if name.startswith("t/"))
    papers = sum(d.is_paper for d in docs)
    years: dict[int | None, list[int]] = {}
    for number, doc in enumerate(docs[:papers]):
        years.setdefault(doc.year, [number, 0])[1] += 1
    return {
        "version": SEARCH_VERSION, "hash": version, "docs": len(docs), "papers": papers,
        "shards": [min(terms, key=term_order) for _, terms in shards],
        "letters": sorted(name[2:-5] for name in files if name.startswith("v/")),
        "stopwords": sorted(STOPWORDS),
        "years": [[y, start, n] for y, (start, n) in years.items()],
        "subjects": [[s.code, s.name, len(s.paper_ids)] for s in
                     sorted(catalog.subjects, key=lambda s: s.code)],
    }


def encode_json(document: object) -> bytes:
    """Compact, key-sorted UTF-8 JSON with HTML-significant characters escaped."""
    return (json_text(document) + "\n").encode("utf-8")


def json_text(value: object) -> str:
    """``value`` as ``encode_json`` writes it, without the final newline.

    The text of a value inside a document is the same wherever the value sits, so a
    document can be joined from the texts of its parts (``json_object``, ``json_array``),
    which lets a rebuild reuse the parts that did not change.
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def json_object(members: dict[str, str]) -> str:
    """A JSON object from its members' encoded texts, keys sorted as ``json.dumps`` sorts them."""
    return "{" + ",".join(json_text(k) + ":" + v for k, v in sorted(members.items())) + "}"


def json_array(texts: Iterable[str]) -> str:
    """A JSON array from its items' encoded texts."""
    return "[" + ",".join(texts) + "]"


class SearchMemo:
    """Placeholder."""
