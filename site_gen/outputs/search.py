"""Search data: Catalog -> ``search.json`` plus the sharded index the search page loads.

``search.json`` lists every paper and author (for tools and scripts). The search page never
downloads it: it reads the small manifest ``search/index/meta.json`` and then, per query, only
the term shards, vocabulary and result fragments that query needs. Everything is compact,
sorted and deterministic; ``<``, ``>`` and ``&`` are escaped as ``\\u`` sequences so the JSON
is safe even if someone inlines it into a ``<script>``. Every title, name and excerpt shown
closes the bidi controls it opens (``util.bidi``): results are plain text. Formats:
docs/search.md.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import itertools
import operator
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import filterfalse
from typing import TYPE_CHECKING

from site_gen.model import Author, Catalog, Paper
from site_gen.plan.urls import author_url, paper_url
from site_gen.util.bidi import balance_bidi
from site_gen.util.jsonenc import (
    JsonParts,
    encode_json,
    json_array,
    json_bytes,
    json_object_parts,
    json_text,
)
from site_gen.util.text import macro_words, plain_text

if TYPE_CHECKING:
    from snowballstemmer.english_stemmer import EnglishStemmer

SEARCH_FILE = "search.json"
INDEX_DIR = "search/index/"
PAPERS_FILE = "papers.json"
"""In ``INDEX_DIR``: the doc numbers of every paper, for a year filter with no query."""
SEARCH_VERSION = 4
"""Format version of the index files (``meta.json`` and the files it names)."""
LISTING_VERSION = 3
"""Format version of ``search.json`` (3: no abstracts; ``papers.json`` holds them)."""
SHARD_BYTES = 8_000
"""Term shards are cut at about this many bytes: small enough that a query loads little."""
PAPER_GROUP, AUTHOR_GROUP = 3, 16
"""Result fragments per file, for papers and for authors (whose fragments are small): a third
as many files as papers, yet a result list of ten downloads little besides the fragments it
shows (at 4 papers a file, three quarters of a first query's fragment bytes were others'; at
2, a site of 100,000 papers would pass GitLab Pages' 200,000 files)."""
NUMBER_RUNS = ((16, 4), (256, 32), (4096, 128))
"""How doc numbers leave room (``doc_numbers``): a run of level k starts at each document
whose key's hash is a multiple of ``NUMBER_RUNS[k][0]`` and takes the numbers of what it
holds (a chunk, of level 0: its documents and one more) rounded up to ``NUMBER_RUNS[k][1]``.
At 10,000 papers the numbers span 1.28 times as many as there are documents, and adding a
paper moves the numbers of 18 others (median; 77 on average, at most a few thousand)."""
EXCERPT_CHARS = 180
"""A paper's result shows at most this many characters of its abstract (``excerpt``)."""

TITLE, AUTHORS, SUBJECTS, ABSTRACT = range(4)
FIELDS = ("title", "authors", "subjects", "abstract")
LEVELS = 3
"""How strongly a field holds a term (``level``): 0 as usual, 1 strongly, 2 weakly."""
TYPICAL_LENGTH = (9, 8, 6, 110)
"""Words of each field in a typical paper, for the length normalisation of ``level``: fixed,
so that a paper's levels depend on nothing but the paper (an edit rewrites its own terms)."""
LENGTH_WEIGHT = (0.75, 0.5, 0.3, 0.75)
"""BM25's b per field: how much a longer field dilutes each of its words."""
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
_ASCII_SEPARATORS = bytes(c if chr(c).isalnum() and c < 128 else 32 for c in range(256))
"""bytes.translate table: ``_SEPARATORS`` as spaces in ASCII text."""


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
    if text.isascii():  # nothing to decompose, no combining marks: most abstracts
        return text.lower()
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text)).lower()


def words(text: str) -> list[str]:
    """The searchable words of a text, as search.js splits it."""
    return _split(fold(text))


def _split(folded: str) -> list[str]:
    """The words between runs of ``_SEPARATORS``; ASCII text (most abstracts) in one pass."""
    if folded.isascii():
        return folded.encode("ascii").translate(_ASCII_SEPARATORS).decode("ascii").split()
    return [w for w in _SEPARATORS.split(folded) if w]


@functools.cache
def _english() -> EnglishStemmer:
    """The Snowball English stemmer (one per process): snowballstemmer's own code, never
    PyStemmer's C library, which may bundle another Snowball version than search.js ports.
    Imported here: the package imports the stemmers of every language (10 ms of each start
    of site-gen), and only the process making the search index stems."""
    from snowballstemmer.english_stemmer import EnglishStemmer

    return EnglishStemmer()


_ASCII_WORD = re.compile("[a-z0-9]+")


@functools.lru_cache(maxsize=1 << 17)
def stem(word: str) -> str:
    """The Snowball English stem of a folded word, as search.js's ``stem`` makes it; words
    that are not plain ASCII letters and digits are their own stem. Cached: a corpus has a
    few tens of thousands of distinct words in millions of places."""
    return _english().stemWord(word) if _ASCII_WORD.fullmatch(word) else word


def level(count: int, length: int, field: int) -> int:
    """How strongly a field of ``length`` words that holds a term ``count`` times holds it:
    BM25's normalised term frequency, in three steps (search.js weighs them 1, 2, 0.5)."""
    b = LENGTH_WEIGHT[field]
    weight = count / (1 - b + b * length / TYPICAL_LENGTH[field])
    return 1 if weight >= 1.6 else 2 if weight < 0.7 else 0


def search_index(catalog: Catalog) -> dict[str, object]:
    """The ``search.json`` document: one entry per paper and per author."""
    papers = [
        {
            "url": paper_url(p.id),
            "title": balance_bidi(plain_text(p.title)),
            "authors": [balance_bidi(catalog.author(a).name) for a in p.all_author_ids],
            "year": p.year,
            "subjects": list(p.subjects),
        }
        for p in catalog.papers
    ]
    authors = [
        {"url": author_url(a.id), "name": balance_bidi(a.name), "papers": len(a.paper_ids),
         "profiled": a.profiled}
        for a in catalog.authors
    ]
    subjects = {s.code: s.name for s in catalog.subjects}
    return {"version": LISTING_VERSION, "index": INDEX_DIR + "meta.json", "papers": papers,
            "authors": authors, "subjects": subjects}


def search_outputs(catalog: Catalog) -> dict[str, bytes]:
    """Every search file by output path: ``search.json`` and the sharded index."""
    return {name: data if isinstance(data, bytes) else b"".join(data)
            for name, data in search_files(catalog)}


SearchFile = tuple[str, bytes | JsonParts]
"""A search file: its name, and its bytes (or the parts of ``search.json``)."""


def search_files(catalog: Catalog) -> Iterator[SearchFile]:
    """``search_outputs`` one file at a time; ``search.json`` as the parts it joins from.

    Result fragments come first, in document order, then ``search.json``, then the term
    files and ``meta.json``. No document's words are kept: the postings are counted as each
    document is made, each fragment is let go once it is written, and the ``search.json``
    entries once that is.
    """
    entries: list[bytes] = []
    papers, authors = ordered_papers(catalog), ordered_authors(catalog)
    numbers, papers_span, total = numbered(papers, authors)
    docs: list[DocPiece | None] = [None] * total
    index: dict[str, list[list[int]]] = {}
    made = _counted_docs(catalog, papers, authors, numbers, docs, entries, index)
    digests: list[bytes] = []
    held = [False] * total
    for number in numbers:
        held[number] = True
    for name, start, end in fragment_groups(held, papers_span):
        fragments = [next(made) if held[n] else None for n in range(start, end)]
        digests += [index_digest(f) for f in fragments if f is not None]
        yield INDEX_DIR + name, group_json(fragments)
    yield SEARCH_FILE, search_json(catalog, papers, authors, entries)
    del entries
    encoded = {term: encode_term(lists, total) for term, lists in index.items()}
    del index
    rest, starts, letters = index_files(docs, encoded, sorted(encoded, key=term_order))
    for name in sorted(rest):
        data = rest.pop(name)
        digests.append(index_digest(data))
        yield INDEX_DIR + name, data
    version = hashlib.sha256(b"".join(digests)).hexdigest()[:10]
    yield INDEX_DIR + "meta.json", encode_json(
        manifest(catalog, docs, papers_span, version, starts, letters))


_ID = operator.attrgetter("id")


def index_digest(data: bytes) -> bytes:
    """The digest of an index file that goes into the index version."""
    return hashlib.blake2b(data, digest_size=16).digest()


def fragment_groups(docs: Sequence[object], papers: int) -> list[tuple[str, int, int]]:
    """Each fragment file's name and the doc numbers it holds, ``[start, end)``: papers'
    fragments ``PAPER_GROUP`` numbers to a file ``d/<n>.json``, authors' (numbered from
    ``papers``) ``AUTHOR_GROUP`` to ``a/<n>.json``; a file whose numbers hold no document is
    not written (``docs``: by number, something true where a document is)."""
    total = len(docs)
    return ([(f"d/{k}.json", start, min(start + PAPER_GROUP, papers))
             for k, start in enumerate(range(0, papers, PAPER_GROUP))
             if any(docs[start:start + PAPER_GROUP])]
            + [(f"a/{k}.json", start, min(start + AUTHOR_GROUP, total))
               for k, start in enumerate(range(papers, total, AUTHOR_GROUP))
               if any(docs[start:start + AUTHOR_GROUP])])


def group_json(fragments: list[bytes | None]) -> bytes:
    """A fragment file: the JSON array of its numbers' fragments, ``null`` for a number that
    holds no document, trailing ones left out."""
    while fragments and fragments[-1] is None:
        fragments = fragments[:-1]
    return b"[" + b",".join([b"null" if f is None else f for f in fragments]) + b"]\n"


def doc_numbers(keys: list[str], starts: list[bool] | None = None) -> tuple[list[int], int]:
    """The doc numbers of documents in order, and how many numbers they span: ascending,
    with room left after each run (``NUMBER_RUNS``), where runs end at documents chosen by
    their keys alone. So the numbers depend on the documents, not on any build before (a
    clean build numbers as a rebuild does), yet an edit moves few of them: adding a paper
    moves the rest of its chunk (8 papers, on average), sometimes the rest of the run above
    it, seldom more. ``starts``: documents that start a chunk whatever their key (each
    year's first paper, so that a year is a range of numbers of its own)."""
    levels = len(NUMBER_RUNS)
    used = [0] * (levels + 1)
    """used[0]: documents in the open chunk; used[k]: numbers taken by the closed runs of
    level k - 1 in the open run of level k (used[levels]: by the closed top-level runs)."""
    numbers: list[int] = []
    for at, key in enumerate(keys):
        mark = _key_hash(key)
        if at:
            level = -1
            for k, (every, _) in enumerate(NUMBER_RUNS):
                if mark % every:
                    break
                level = k
            if level < 0 and starts is not None and starts[at]:
                level = 0
            _close_runs(used, level)
        numbers.append(sum(used))
        used[0] += 1
    if keys:
        _close_runs(used, levels - 1)
    return numbers, used[levels]


def _close_runs(used: list[int], level: int) -> None:
    """Close the open runs of levels 0 to ``level``: each takes its numbers (the chunk one
    more than its documents) rounded up to its level's step, in the run above it."""
    for k in range(level + 1):
        taken = used[k] + (k == 0)
        step = NUMBER_RUNS[k][1]
        used[k + 1] += -(-taken // step) * step
        used[k] = 0


@functools.lru_cache(maxsize=1 << 17)
def _key_hash(key: str) -> int:
    """A number from a document's key alone (the same in every process and build)."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=4).digest(), "big")


def numbered(papers: list[Paper], authors: list[Author]) -> tuple[list[int], int, int]:
    """The doc numbers of ``papers`` then ``authors`` (``doc_numbers``), the first author's
    number (the authors' numbers start after every paper's) and how many numbers in all."""
    starts = [True] + [a.year != b.year for a, b in itertools.pairwise(papers)]
    numbers, papers_span = doc_numbers(list(map(_ID, papers)), starts)
    author_numbers, authors_span = doc_numbers(list(map(_ID, authors)))
    return (numbers + [papers_span + n for n in author_numbers], papers_span,
            papers_span + authors_span)


def paper_order(paper: Paper) -> tuple[bool, int, str, str]:
    """Sort key of papers in document order (see ``ordered_papers``)."""
    return (paper.year is None, -(paper.year or 0), plain_text(paper.title).casefold(), paper.id)


def search_json(catalog: Catalog, papers: list[Paper], authors: list[Author],
                 entries: list[bytes]) -> JsonParts:
    """``search.json``: the bytes of ``encode_json(search_index(catalog))``, from each
    document's entry (``entries``: the papers' in the order of ``papers``, then the authors')."""
    by_paper = dict(zip(map(_ID, papers), entries))
    by_author = dict(zip(map(_ID, authors), entries[len(papers):]))
    subjects = json_bytes({s.code: s.name for s in catalog.subjects})
    return json_object_parts(
        {"version": json_bytes(LISTING_VERSION), "index": json_bytes(INDEX_DIR + "meta.json"),
         "papers": json_array(map(by_paper.__getitem__, map(_ID, catalog.papers))),
         "authors": json_array(map(by_author.__getitem__, map(_ID, catalog.authors))),
         "subjects": subjects}, b"\n")


# ---- documents ----------------------------------------------------------------------------

def ordered_papers(catalog: Catalog) -> list[Paper]:
    """Papers newest first (no year last), then by title: doc numbers follow this order."""
    return sorted(catalog.papers, key=paper_order)


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


_LAST_SPACE = re.compile(r"\s+\S*$")


def excerpt(abstract: str) -> str:
    """The opening of a plain-text abstract that a result shows: whole when short, else cut
    at the end of a word within ``EXCERPT_CHARS`` characters and followed by an ellipsis
    (which takes the place of a sentence's full stop: "prefixes…", not "prefixes.…")."""
    text = " ".join(abstract.split())
    if len(text) <= EXCERPT_CHARS:
        return balance_bidi(text)
    head = text[:EXCERPT_CHARS + 1]
    cut = _LAST_SPACE.search(head)
    head = head[:cut.start()] if cut and cut.start() else text[:EXCERPT_CHARS]
    return balance_bidi(head.rstrip(" ,.;:\u2013\u2014-")) + "\u2026"


def _paper_doc(catalog: Catalog, paper: Paper) -> SearchDoc:
    title = typeset(plain_text(paper.title))
    names = [catalog.author(a).name for a in paper.all_author_ids]
    subjects = " ".join(f"{code} {catalog.subject(code).name}" for code in paper.subjects)
    abstract = plain_text(paper.abstract)
    fragment: dict[str, object] = {"u": paper_url(paper.id), "t": balance_bidi(title),
                                   "a": [balance_bidi(name) for name in names],
                                   "y": paper.year, "s": list(paper.subjects)}
    if abstract.strip():
        fragment["x"] = excerpt(abstract)
    if paper.et_al:
        fragment["e"] = len(paper.author_ids)
    named = macro_words(paper.abstract)  # Θ is found as theta, √ as sqrt
    words = f"{abstract} {named}" if named else abstract  # kept per paper: no copy when none
    return SearchDoc(fragment, (title, " ".join(names), subjects, words), paper.year,
                     paper.subjects)


def _author_doc(author: Author) -> SearchDoc:
    fragment = {"u": author_url(author.id), "n": balance_bidi(author.name),
                "c": len(author.paper_ids),
                "p": author.profiled}
    return SearchDoc(fragment, (author.name, "", "", ""), is_paper=False)


# ---- pieces: what one document contributes --------------------------------------------

Terms = tuple[frozenset[tuple[str, int]], frozenset[tuple[str, int]],
              frozenset[tuple[str, int]], frozenset[tuple[str, int]]]
"""A document's terms by field, each with its ``level`` (``field_terms``)."""


@dataclass(frozen=True, slots=True)
class DocPiece:
    """What one document contributes to the search files (``make_piece``): a rebuild keeps it
    while the document's inputs are equal (incremental/search.py)."""

    terms: Terms
    fragment: bytes
    """The document's result fragment (JSON text, UTF-8), one item of its
    ``fragment_groups`` file."""
    entry: bytes
    """Its entry in ``search.json`` (JSON text, UTF-8)."""
    year: int | None
    subjects: tuple[str, ...]
    is_paper: bool


def paper_made(catalog: Catalog, paper: Paper, names: tuple[str, ...] | None = None
                ) -> tuple[SearchDoc, dict[str, object]]:
    """A paper's document and its ``search.json`` entry."""
    if names is None:
        names = tuple([catalog.author(a).name for a in paper.all_author_ids])
    return _paper_doc(catalog, paper), _paper_entry(paper, names)


def author_made(author: Author) -> tuple[SearchDoc, dict[str, object]]:
    """An author's document and its ``search.json`` entry."""
    return _author_doc(author), _author_entry(author)


def make_piece(doc: SearchDoc, entry: dict[str, object]) -> DocPiece:
    """A document's piece: its terms and texts, made once and encoded once."""
    return DocPiece(doc_terms(doc), json_bytes(doc.fragment), json_bytes(entry),
                    doc.year, doc.subjects, doc.is_paper)


def doc_terms(doc: SearchDoc) -> Terms:
    """A document's terms by field; names (its authors, an author's own) are not stemmed."""
    return tuple([field_terms(text, field, field == AUTHORS or not doc.is_paper)  # type: ignore[return-value]
                  for field, text in enumerate(doc.fields)])


NO_TERMS: Terms = (frozenset(), frozenset(), frozenset(), frozenset())


def _counted_docs(catalog: Catalog, papers: list[Paper], authors: list[Author],
                  numbers: list[int], docs: list[DocPiece | None], entries: list[bytes],
                  index: dict[str, list[list[int]]]) -> Iterator[bytes]:
    """Each document's fragment, as it is made; meanwhile, its piece without words
    (``NO_TERMS``) or fragment goes to ``docs`` at its number, its entry to ``entries``, and
    its postings to ``index`` (``post_doc``), but no document's words outlive it (at
    100,000 papers they took 1.7 GB), nor its fragment once it is written."""
    made = itertools.chain((paper_made(catalog, p) for p in papers),
                           (author_made(a) for a in authors))
    for number, (doc, entry) in zip(numbers, made):
        post_doc(index, number, doc)
        docs[number] = DocPiece(NO_TERMS, b"", b"", doc.year, doc.subjects, doc.is_paper)
        entries.append(json_bytes(entry))
        yield json_bytes(doc.fragment)


_SINGLE_ASCII = frozenset(map(chr, range(128)))
"""A single ASCII letter or digit is worth no posting."""
_UNPOSTED = STOPWORDS | _SINGLE_ASCII
"""Nor is a stopword, outside names."""


def _field_counts(text: str, names: bool) -> Counter[str]:
    """How many times a field holds each of its terms: the stems of its words that are
    worth a posting or, in names, the words themselves (see ``field_terms``). Filtered,
    stemmed and counted in C: a site's fields hold millions of words."""
    kept = filterfalse((_SINGLE_ASCII if names else _UNPOSTED).__contains__, _split(fold(text)))
    return Counter(kept if names else map(stem, kept))


def _levels(counts: Counter[str], field: int) -> dict[int, int]:
    """The ``level`` of each count a field's terms have (a few distinct ones per field)."""
    length = counts.total()
    return {count: level(count, length, field) for count in set(counts.values())}


def field_terms(text: str, field: int, names: bool = False) -> frozenset[tuple[str, int]]:
    """The terms of one field worth a posting, each with its ``level``: the stems of the
    words that are not stopwords or, in names (the authors, an author's own entry), the
    words themselves, stopwords too. A single ASCII letter or digit is worth none.
    Names are not stemmed."""
    counts = _field_counts(text, names)
    levels = _levels(counts, field)
    return frozenset([(term, levels[count]) for term, count in counts.items()])


def no_lists() -> list[list[int]]:
    """A term's doc-number lists before any: one per field and ``level``."""
    return [[] for _ in range(4 * LEVELS)]


def _paper_entry(paper: Paper, names: tuple[str, ...]) -> dict[str, object]:
    """A paper's entry in ``search.json`` (see ``search_index``): no abstract, which
    ``papers.json`` holds (a second copy was a sixth of the whole site's bytes)."""
    return {"url": paper_url(paper.id), "title": balance_bidi(plain_text(paper.title)),
            "authors": [balance_bidi(name) for name in names],
            "year": paper.year, "subjects": list(paper.subjects)}


def _author_entry(author: Author) -> dict[str, object]:
    return {"url": author_url(author.id), "name": balance_bidi(author.name),
            "papers": len(author.paper_ids), "profiled": author.profiled}


# ---- postings -----------------------------------------------------------------------------

def add_postings(index: dict[str, list[list[int]]], number: int, terms: Terms) -> None:
    """Post document ``number``'s terms in ``index``: term -> one list of doc numbers per
    field and ``level`` (``field * LEVELS + level``), ascending when numbers come so."""
    for field, found in enumerate(terms):
        for term, strength in found:
            lists = index.get(term)
            if lists is None:
                lists = index[term] = no_lists()
            lists[field * LEVELS + strength].append(number)


def post_doc(index: dict[str, list[list[int]]], number: int, doc: SearchDoc) -> None:
    """``add_postings(index, number, doc_terms(doc))`` without making the terms: a build that
    keeps no document's terms (``search_index``) posts each one as it is counted (a fifth
    less time than making the pairs and sets first)."""
    for field, text in enumerate(doc.fields):
        counts = _field_counts(text, field == AUTHORS or not doc.is_paper)
        levels = _levels(counts, field)
        base = field * LEVELS
        for term, count in counts.items():
            lists = index.get(term)
            if lists is None:
                lists = index[term] = no_lists()
            lists[base + levels[count]].append(number)


def encode_number(n: int) -> str:
    """A non-negative integer in the posting alphabet, least significant 5 bits first."""
    out = []
    while True:
        low, n = n & 31, n >> 5
        out.append(DIGITS[low | (32 if n else 0)])
        if not n:
            return "".join(out)


def _short_codes() -> tuple[str, ...]:
    """``encode_number(n)`` for each ``n`` below 2**15 (up to three characters), in order, made
    from the alphabet's halves (a last character, then those with more to follow): calling
    ``encode_number`` 32,768 times cost every start of site-gen 20 ms."""
    last, more = DIGITS[:32], DIGITS[32:]
    return (*last, *[a + b for b in last[1:] for a in more],
            *[a + b + c for c in last[1:] for b in more for a in more])


_SHORT = _short_codes()
"""Numbers of up to three characters, encoded once."""


_GAP = ("", *_SHORT)
"""``_GAP[g]``: the code of a gap ``g`` between doc numbers (``encode_number(g - 1)``)."""
_SIXES = DIGITS.encode("ascii") + bytes(192)
"""bytes.translate table: a bitmap's 6-bit values as posting characters."""


def bitmap_length(total: int) -> int:
    """Characters of ``encode_ids``' bitmap over ``total`` doc numbers, with its ``~``: a
    list of gaps is encoded as one only when that is shorter."""
    return (total + 5) // 6 + 1


def _gaps(ids: list[int], previous: int) -> Iterator[int]:
    """Each ascending doc number's gap from the one before (the first's from ``previous``)."""
    return map(operator.sub, ids, itertools.chain((previous,), ids))


def encode_gaps(ids: list[int], previous: int = -1) -> str:
    """Ascending doc numbers as ``encode_ids``' list of gaps, the first one's from
    ``previous`` (a list's number before them; -1 at its start)."""
    try:  # one pass, no list of the gaps: a gap over ``len(_SHORT)`` is rare
        return "".join(map(_GAP.__getitem__, _gaps(ids, previous)))
    except IndexError:
        return "".join([encode_number(gap - 1) for gap in _gaps(ids, previous)])


def encode_ids(ids: list[int], total: int) -> str:
    """Ascending doc numbers: gaps as numbers, or ``~`` and a bitmap when that is shorter.
    Each pass runs in C (``map``, ``int`` and ``bytes`` operations): a rebuild encodes the
    thousands of lists whose numbers an edit moved."""
    if not ids:  # most of a term's twelve lists: a 10,000-paper index has 68,000 empty ones
        return ""
    size = bitmap_length(total) - 1
    if len(ids) <= size + 1:  # each number takes a character at least
        text = encode_gaps(ids)
        if len(text) <= size + 1:
            return text
    return "~" + bitmap_chars(ids, 0, size)


def bitmap_chars(ids: list[int], first: int, count: int) -> str:
    """Characters ``first`` to ``first + count - 1`` of a bitmap (``encode_ids``, after its
    ``~``), which hold numbers ``6 * first`` to ``6 * (first + count) - 1``: ``ids``, those
    of a list's numbers that lie there, ascending."""
    flags = bytearray(count * 6)  # one byte per number, 1 where a number is listed
    collections.deque(map(flags.__setitem__, map(operator.sub, ids, itertools.repeat(first * 6)),
                          itertools.repeat(1)), 0)
    bits = 0
    for bit in range(6):  # byte k of each slice is number 6k + bit's flag
        bits |= int.from_bytes(flags[bit::6], "big") << bit
    return bits.to_bytes(count, "big").translate(_SIXES).decode("ascii")


def encode_term(lists: list[list[int]], total: int) -> str:
    """A term's field lists, separated by dots, each its ``LEVELS`` lists separated by
    commas; trailing empty lists dropped."""
    return joined_term([encode_ids(ids, total) for ids in lists])


def joined_term(parts: list[str]) -> str:
    """``encode_term`` from each list's ``encode_ids`` (kept: a rebuild encodes the lists an
    edit changed, not the term's other lists)."""
    return ".".join([",".join(parts[field * LEVELS:(field + 1) * LEVELS]).rstrip(",")
                     for field in range(4)]).rstrip(".")


def term_order(term: str) -> bytes:
    """Sort key matching JavaScript's string comparison (UTF-16 code units)."""
    return term.encode("utf-16-be")


# ---- files --------------------------------------------------------------------------------


def index_files(docs: list[DocPiece | None], encoded: dict[str, str], terms: list[str],
                shard: Callable[[int, list[str]], bytes] | None = None
                ) -> tuple[dict[str, bytes], list[str], list[tuple[str, int]]]:
    """The index files beside the fragments, by name in ``INDEX_DIR`` (subject lists, the
    list of papers, term shards, vocabularies), with what ``manifest`` lists of them: where
    each shard starts, and each vocabulary's key and size. ``encoded`` holds each term's
    postings (``encode_term``), ``terms`` the same terms in ``term_order``; ``shard`` makes a
    shard's bytes from its number and terms (``shard_json``; a rebuild reuses last build's)."""
    total = len(docs)
    rest: dict[str, bytes] = {}
    rest[PAPERS_FILE] = encode_json(encode_ids(
        [n for n, d in enumerate(docs) if d is not None and d.is_paper], total))
    for code, ids in sorted(subject_ids(docs).items()):
        rest[f"s/{code}.json"] = encode_json(encode_ids(ids, total))
    shards = term_shards(terms, encoded)
    shard = shard or (lambda number, members: shard_json(members, encoded, {}))
    for number, members in enumerate(shards):
        rest[f"t/{number}.json"] = shard(number, members)
    letters = []
    for key, group in _by_first_letter(terms):
        data = rest[f"v/{key}.json"] = encode_json(" ".join(group))
        letters.append((key, len(data)))
    return rest, shard_starts(shards), letters


def shard_json(shard: list[str], encoded: dict[str, str], texts: dict[str, str]) -> bytes:
    """``encode_json({term: encoded})`` of one shard, from each term's kept JSON text."""
    members = []
    for term in sorted(shard):
        text = texts.get(term)
        if text is None:
            text = texts[term] = json_text(term)
        members.append(f'{text}:"{encoded[term]}"')  # the posting alphabet needs no escaping
    return ("{" + ",".join(members) + "}\n").encode("utf-8")


def term_shards(terms: list[str], encoded: dict[str, str]) -> list[list[str]]:
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


def shard_starts(shards: list[list[str]]) -> list[str]:
    """Where each shard's range of terms starts: the shortest beginning of its first term
    that comes after the previous shard's last (``labori`` may be ``lab``). The ranges still
    part every string between the shards, and the manifest that lists them is shorter."""
    starts: list[str] = []
    last = ""
    for shard in filter(None, shards):
        first = shard[0]
        if starts:
            after = term_order(last)
            first = next(first[:n] for n in range(1, len(first) + 1)
                         if term_order(first[:n]) > after)
        starts.append(first)
        last = shard[-1]
    return starts


def letter_key(term: str) -> str:
    """The vocabulary file of a term: its first character's code point in hex, or ``x`` for
    every term that does not start with an ASCII character (few, in many scripts)."""
    return format(ord(term[0]), "x") if term[0] < "\x80" else "x"


def _by_first_letter(terms: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for term in terms:
        groups[letter_key(term)].append(term)
    return iter(sorted(groups.items()))


def subject_ids(docs: list[DocPiece | None]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = defaultdict(list)
    for number, doc in enumerate(docs):
        for code in () if doc is None else doc.subjects:
            found[code].append(number)
    return found


def manifest(catalog: Catalog, docs: list[DocPiece | None], papers: int, version: str,
             starts: list[str], letters: list[tuple[str, int]]) -> dict[str, object]:
    """What the search page loads first: sizes, shard ranges (``starts``), vocabularies,
    years and subjects. The vocabularies' sizes (``letters``: each one's key and size) let
    the page fetch the small ones before it knows that it needs them (search.js
    ``SPECULATE``)."""
    years: dict[int | None, list[int]] = {}
    for number, doc in enumerate(docs[:papers]):
        if doc is not None:
            years.setdefault(doc.year, [number, 0])[1] = number + 1
    return {
        "version": SEARCH_VERSION, "hash": version, "numbers": len(docs),
        "docs": sum(d is not None for d in docs), "papers": papers,
        "groups": [PAPER_GROUP, AUTHOR_GROUP], "shards": starts,
        "letters": [key for key, _ in letters],
        "vocabularies": [size for _, size in letters],
        "stopwords": sorted(STOPWORDS),
        "years": [[y, start, end - start] for y, (start, end) in years.items()],
        "subjects": [[s.code, s.name, len(s.paper_ids)] for s in
                     sorted(catalog.subjects, key=lambda s: s.code)],
    }
