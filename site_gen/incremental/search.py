"""The search index for a Builder that rebuilds: ``outputs.search.search_files``, remembered.

``kept_search_files`` yields the files ``search_files`` yields (it is the specification;
tests/test_incremental_outputs.py holds this variant to it on random edit sequences), made
of the same pieces (``outputs.search.make_piece`` per document, ``index_files``,
``manifest``). It keeps each document's piece while the document is the very object it was
made from, and the postings of the last index: given a ``CatalogDelta``, it visits only the
documents the delta names, moves the papers whose sort key changed in the kept order, updates
the postings of what changed in place, re-encodes only the lists an edit touched, and names
the fragment files that hold what they held in a ``Carried``.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import operator
from collections import defaultdict
from collections.abc import Iterator

from site_gen.incremental.pieces import Carried, CatalogDelta, Pieces, in_step
from site_gen.model import Author, Catalog, Paper
from site_gen.outputs.search import (
    DIGITS,
    INDEX_DIR,
    LEVELS,
    NO_TERMS,
    SEARCH_FILE,
    DocPiece,
    SearchFile,
    Terms,
    add_postings,
    author_made,
    bitmap_chars,
    bitmap_length,
    encode_gaps,
    encode_ids,
    fragment_groups,
    group_json,
    index_digest,
    index_files,
    joined_term,
    make_piece,
    manifest,
    no_lists,
    numbered,
    ordered_authors,
    paper_made,
    paper_order,
    search_json,
    shard_json,
    term_order,
)
from site_gen.util.jsonenc import encode_json

_ENTRY = operator.attrgetter("entry")
_ID = operator.attrgetter("id")


class SearchMemo:
    """Documents' pieces and the postings of the last index, kept between builds
    (incremental/pieces.py)."""

    def __init__(self) -> None:
        self.docs: Pieces[DocPiece] = Pieces()
        self.counted: int | None = None
        """How many documents the postings below number; None when there are none."""
        self.terms: list[Terms] = []
        self.index: dict[str, list[list[int]]] = {}
        self.encoded: dict[str, str] = {}
        self.parts: dict[str, list[str]] = {}
        """Each term's lists encoded (``encode_ids``), of which ``encoded`` is joined."""
        self.term_json: dict[str, str] = {}
        self.vocabulary: set[str] = set()
        self.sorted_terms: list[str] = []
        """The terms of ``vocabulary`` in ``term_order`` (``_sorted_terms``)."""
        self.shards: Pieces[bytes] = Pieces()
        self.digests: dict[str, tuple[bytes, bytes]] = {}
        """Each subject, term and vocabulary file's bytes object and their digest
        (``_file_digest``); the fragments' are ``fragment_digests``."""
        self.catalog: Catalog | None = None
        """The catalog the pieces below were last made for, once its index was complete."""
        self.pieces: list[DocPiece | None] = []
        """Every document's piece by doc number, None for a number that holds none."""
        self.paper_docs: list[DocPiece] = []
        """The papers' pieces in the order of ``papers``."""
        self.fragment_digests: list[bytes] = []
        """The digest of each of ``pieces``' fragments (``index_digest``), by doc number
        (empty for a number that holds no document)."""
        self.groups: dict[str, tuple[int, int]] = {}
        """The doc numbers of each fragment file last build wrote (``fragment_groups``)."""
        self.papers: list[Paper] = []
        """Papers in document order, and each one's sort key (``paper_order``)."""
        self.paper_order: list[tuple[bool, int, str, str]] = []


def kept_search_files(catalog: Catalog, memo: SearchMemo, delta: CatalogDelta | None = None
                      ) -> Iterator[SearchFile | Carried]:
    """``outputs.search.search_files``, the same files, from the pieces ``memo`` kept.

    Each pass over the documents runs in C (``map``, ``compress``): a rebuild visits every
    document only to see that it is last build's very object, and makes the files of the
    few that are not. A fragment file (``fragment_groups``) is carried over when it holds the same
    numbers as last build's and each of them is the object whose fragment last build wrote
    there (only given ``delta``: after a failed build the output may not hold it); a
    fragment's digest is reused whenever its document is the same object.
    """
    delta = in_step(delta, memo.catalog)
    if delta is not None:
        papers, authors, paper_docs = _orders_after(catalog, delta, memo)
        docs = _docs_after(catalog, delta, papers, authors, paper_docs, memo)
    else:
        papers, authors = _ordered(catalog, memo)
        docs = [_paper_piece(catalog, p, memo.docs) for p in papers]
        docs += [_author_piece(a, memo.docs) for a in authors]
        memo.docs.done()
    memo.paper_docs = docs[:len(papers)]
    numbers, papers_span, total = numbered(papers, authors)
    slots: list[DocPiece | None] = [None] * total
    for number, doc in zip(numbers, docs):
        slots[number] = doc
    same = list(map(operator.is_, memo.pieces, slots))
    same += [False] * (total - len(same))
    fragment_digests = memo.fragment_digests[:total]
    fragment_digests += [b""] * (total - len(fragment_digests))
    for number in itertools.compress(range(total), map(operator.not_, same)):
        held = slots[number]
        fragment_digests[number] = b"" if held is None else index_digest(held.fragment)
    memo.catalog = None  # until the index is complete
    memo.pieces, memo.fragment_digests = slots, fragment_digests
    groups, last = fragment_groups(slots, papers_span), memo.groups
    carried = []
    for name, start, end in groups:
        if delta is not None and last.get(name) == (start, end) and all(same[start:end]):
            carried.append(INDEX_DIR + name)
        else:
            yield INDEX_DIR + name, group_json([None if d is None else d.fragment
                                                for d in slots[start:end]])
    memo.groups = {name: (start, end) for name, start, end in groups}
    if carried:
        yield Carried(tuple(carried))
    yield SEARCH_FILE, search_json(catalog, papers, authors, list(map(_ENTRY, docs)))
    rest, starts, letters = _index_files(slots, memo)
    rest_names = sorted(rest)
    kept = memo.digests
    rest_digests = [_file_digest(name, rest[name], kept) for name in rest_names]
    if len(kept) > len(rest):  # files gone since the last build
        memo.digests = {name: kept[name] for name in rest_names}
    for name in rest_names:
        yield INDEX_DIR + name, rest.pop(name)
    version = hashlib.sha256(b"".join([*fragment_digests, *rest_digests]))
    yield INDEX_DIR + "meta.json", encode_json(
        manifest(catalog, slots, papers_span, version.hexdigest()[:10], starts, letters))
    memo.catalog = catalog


def _ordered(catalog: Catalog, memo: SearchMemo) -> tuple[list[Paper], list[Author]]:
    """Papers and authors in document order, each paper's sort key noted in ``memo``."""
    ranked = sorted((paper_order(p), p) for p in catalog.papers)
    memo.paper_order = [key for key, _ in ranked]
    memo.papers = [p for _, p in ranked]
    return list(memo.papers), ordered_authors(catalog)


def _orders_after(catalog: Catalog, delta: CatalogDelta, memo: SearchMemo
                  ) -> tuple[list[Paper], list[Author], list[DocPiece]]:
    """``_ordered`` from the last order: the papers the delta names leave their places and
    the current ones among them are placed again (a list insert each; sorting 10,000 keys
    made of plain-text titles cost more than the rest of an edit's search files). Also the
    papers' pieces, last build's (``memo.paper_docs``) moved with them; a paper
    placed again has ``TO_MAKE`` there until ``_docs_after`` makes its piece."""
    paper_docs = list(memo.paper_docs)
    changed = delta.papers
    if changed:
        stays = list(map(operator.not_, map(changed.__contains__, map(_ID, memo.papers))))
        if not all(stays):
            memo.paper_order = list(itertools.compress(memo.paper_order, stays))
            memo.papers = list(itertools.compress(memo.papers, stays))
            paper_docs = list(itertools.compress(paper_docs, stays))
        for paper_id in sorted(changed - delta.papers_gone):
            paper = catalog.paper(paper_id)
            key = paper_order(paper)
            at = bisect.bisect_left(memo.paper_order, key)
            memo.paper_order.insert(at, key)
            memo.papers.insert(at, paper)
            paper_docs.insert(at, TO_MAKE)
    return list(memo.papers), ordered_authors(catalog), paper_docs


def _docs_after(catalog: Catalog, delta: CatalogDelta, papers: list[Paper],
                authors: list[Author], paper_docs: list[DocPiece], memo: SearchMemo
                ) -> list[DocPiece]:
    """Every document's piece: made again for what the delta names (and for papers that show
    a changed author's or subject's name), the others' kept ones. ``paper_docs`` holds the
    papers' pieces in step with ``papers`` (``_orders_after``): only the places of the papers
    named are visited."""
    pieces, value = memo.docs, memo.docs.value
    shown = delta.papers_shown
    for at in itertools.compress(range(len(papers)), map(shown.__contains__, map(_ID, papers))):
        paper_docs[at] = _paper_piece(catalog, papers[at], pieces)
    authors_made = delta.authors | delta.author_papers | delta.author_profiles
    docs = paper_docs + [_author_piece(a, pieces) if a.id in authors_made
                         else value(("a", a.id)) for a in authors]
    pieces.settle([("p", i) for i in delta.papers_gone] + [("a", i) for i in delta.authors_gone])
    return docs


def _file_digest(name: str, data: bytes, kept: dict[str, tuple[bytes, bytes]]) -> bytes:
    """``index_digest`` of a file's bytes, kept with the bytes object it was taken of, so a
    rebuild digests only the files it made again."""
    hit = kept.get(name)
    if hit is None or hit[0] is not data:
        hit = kept[name] = (data, index_digest(data))
    return hit[1]


def _paper_piece(catalog: Catalog, paper: Paper, memo: Pieces[DocPiece]) -> DocPiece:
    """A paper's piece, kept while the paper and the names it shows are the same."""
    names = tuple([catalog.author(a).name for a in paper.all_author_ids])
    subjects = tuple([catalog.subject(code).name for code in paper.subjects])
    return memo.get(("p", paper.id), (paper, names, subjects),
                    lambda: make_piece(*paper_made(catalog, paper, names)))


def _author_piece(author: Author, memo: Pieces[DocPiece]) -> DocPiece:
    """An author's piece, kept while what its result shows is the same."""
    return memo.get(("a", author.id), (author, author.members, author.profiled),  # shown
                    lambda: make_piece(*author_made(author)))


TO_MAKE = DocPiece(NO_TERMS, b"", b"", None, (), True)
"""The place of a paper whose piece is yet to be made (``_orders_after``)."""


def _postings(terms: list[Terms]) -> dict[str, list[list[int]]]:
    """Every document's postings (``add_postings``), from the documents' kept terms."""
    index: dict[str, list[list[int]]] = {}
    for number, fields in enumerate(terms):
        add_postings(index, number, fields)
    return index


def _update_postings(memo: SearchMemo, terms: list[Terms],
                     before: dict[tuple[str, int], list[int]] | None = None,
                     changed: tuple[list[int], list[int]] | None = None
                     ) -> dict[str, set[int]]:
    """Change ``memo.index`` from the old documents' terms to ``terms`` (any number of
    numbers); the terms whose lists changed, each with the lists (``field * LEVELS + level``).
    ``before`` gets a copy of each list as it was before its first change; ``changed`` is
    ``_changed_numbers`` of the two, when the caller made it already.

    A document that only moved (the very terms, now at another number) is not read term by
    term: every list that held a changed number is mapped through the new numbers over the
    stretches of numbers that changed, and sorted once. An added paper moves a few hundred
    documents, a deleted dump thousands; taking each out of its lists and putting it back, or
    making the postings again, cost several times more. Only documents new at their numbers
    are read term by term."""
    old_terms = memo.terms
    old_changed, new_changed = changed or _changed_numbers(old_terms, terms)
    arrived: dict[int, list[int]] = defaultdict(list)
    for number in reversed(new_changed):  # so that pop() pairs them in order
        if terms[number] is not NO_TERMS:
            arrived[id(terms[number])].append(number)
    renumber = list(range(len(old_terms)))  # -1: the document is gone, or has other terms
    for number in old_changed:
        waiting = arrived.get(id(old_terms[number]))
        renumber[number] = waiting.pop() if waiting else -1
    stretches = _stretches(old_changed)
    index = memo.index
    touched: dict[str, set[int]] = defaultdict(set)
    for term, slot in _lists_holding(index, old_terms, old_changed):
        ids = index[term][slot]
        places = [(bisect.bisect_left(ids, low), bisect.bisect_right(ids, high))
                  for low, high in stretches]  # all found before any number changes
        moved = False
        for start, end in places:
            numbers = [renumber[n] for n in ids[start:end]]
            if numbers != ids[start:end]:
                if not moved and before is not None:
                    before.setdefault((term, slot), ids[:])
                ids[start:end] = numbers
                moved = True
        if moved:
            ids.sort()
            del ids[:bisect.bisect_right(ids, -1)]
            touched[term].add(slot)
    for number in sorted(itertools.chain.from_iterable(arrived.values())):  # new here
        for field, found in enumerate(terms[number]):
            for term, strength in found:
                lists = index.get(term)
                if lists is None:
                    lists = index[term] = no_lists()
                ids = lists[field * LEVELS + strength]
                if before is not None:
                    before.setdefault((term, field * LEVELS + strength), ids[:])
                bisect.insort(ids, number)
                touched[term].add(field * LEVELS + strength)
    for term in touched:
        if not any(index[term]):
            del index[term]
    return touched


def _changed_numbers(old_terms: list[Terms], terms: list[Terms]) -> tuple[list[int], list[int]]:
    """The numbers whose document is not the very one it was, among the old numbers and
    among the new (the same numbers but for those only one count of numbers has)."""
    common = min(len(old_terms), len(terms))
    differ = list(itertools.compress(range(common), map(operator.is_not, old_terms[:common],
                                                         terms[:common])))
    return [*differ, *range(common, len(old_terms))], [*differ, *range(common, len(terms))]


def _lists_holding(index: dict[str, list[list[int]]], terms: list[Terms], numbers: list[int],
                   many: int = 8) -> Iterator[tuple[str, int]]:
    """(term, list) of every list that may hold one of ``numbers`` (numbers of ``terms``):
    those their documents' terms name or, when they are more than one in ``many``, every
    list (gathering the terms of thousands of documents cost more than looking at every
    list)."""
    if len(numbers) * many > len(terms):
        return ((term, slot) for term, lists in index.items()
                for slot, ids in enumerate(lists) if ids)
    return ((term, field * LEVELS + strength) for field in range(4)
            for term, strength in set().union(*[terms[n][field] for n in numbers]))


def _stretches(numbers: list[int], apart: int = 64, most: int = 8) -> list[tuple[int, int]]:
    """Ascending ``numbers`` as (first, last) stretches, those less than ``apart`` apart
    joined; one stretch from the first to the last when that would make more than ``most``
    (many edits spread over the numbers: a pass over the lists beats a search per stretch)."""
    found: list[tuple[int, int]] = []
    for number in numbers:
        if found and number - found[-1][1] < apart:
            found[-1] = (found[-1][0], number)
        else:
            found.append((number, number))
    return found if len(found) <= most else [(numbers[0], numbers[-1])]


def _encoded_terms(docs: list[DocPiece | None], memo: SearchMemo) -> dict[str, str]:
    """Every term's encoded postings, the kept postings updated (``_update_postings``);
    only the lists that changed are encoded again, and when the number of numbers changed,
    those whose encoding depends on it (``_counted_again``)."""
    total = len(docs)
    terms = [NO_TERMS if d is None else d.terms for d in docs]
    counted, memo.counted = memo.counted, None  # until the postings below are complete
    touched = None
    before: dict[tuple[str, int], list[int]] = {}
    changed: list[tuple[int, int]] = []
    if counted is None:
        memo.index = _postings(terms)
    else:
        numbers = _changed_numbers(memo.terms, terms)
        changed = _stretches(sorted({*numbers[0], *numbers[1]}))
        if sum(high + 1 - low for low, high in changed) * 2 > total:  # most numbers moved
            changed = []  # (a deleted dump): splicing would encode all of each list anyway
        touched = _update_postings(memo, terms, before if changed else None, numbers)
    if touched is None:
        memo.parts = {t: [encode_ids(ids, total) for ids in lists]
                      for t, lists in memo.index.items()}
        memo.encoded = {t: joined_term(parts) for t, parts in memo.parts.items()}
    else:
        if counted != total:
            _counted_again(memo.parts, total, touched)
        for term, slots in touched.items():
            if term in memo.index:
                lists = memo.index[term]
                parts = memo.parts.setdefault(term, [""] * (4 * LEVELS))  # a new term's
                for slot in slots:
                    old = (before.get((term, slot)) if counted == total and changed
                           and len(lists[slot]) > SPLICED_FROM else None)
                    text = None if old is None else _spliced(parts[slot], old, lists[slot],
                                                             changed, total)
                    parts[slot] = encode_ids(lists[slot], total) if text is None else text
                memo.encoded[term] = joined_term(parts)
            else:
                memo.encoded.pop(term, None)
                memo.parts.pop(term, None)
    memo.terms, memo.counted = terms, total
    return memo.encoded


def _spliced(text: str, old: list[int], new: list[int], changed: list[tuple[int, int]],
             total: int) -> str | None:
    """``encode_ids(new, total)``, made from ``text``, ``encode_ids(old, total)``, when the
    two lists differ only within the stretches of numbers ``changed``: the codes of the
    numbers outside them are kept, and those within encoded again, with the first one after
    each (a bitmap: ``_bitmap_spliced``). None when one is a bitmap and the other may not be.

    An added paper moves the numbers of a few dozen documents, so a rebuild encodes again
    thousands of lists, common words' among them, thousands of numbers long; each changed
    only within a stretch or two. The stretches are done from the last: the text before
    each is still the old one, ``old`` counts its codes, and the text after it the new.
    """
    if not new:
        return ""
    if not text:
        return None
    if text[0] == "~":
        return _bitmap_spliced(text, new, changed, total)
    data = text.encode("ascii")
    for low, high in reversed(changed):
        first_old, first_new = bisect.bisect_left(old, low), bisect.bisect_left(new, low)
        past_old, past_new = bisect.bisect_right(old, high), bisect.bisect_right(new, high)
        if first_old == past_old and first_new == past_new:  # none of this list's numbers
            continue
        start = _code_start(data, first_old)
        end = _codes_from(data, len(new) - past_new - 1) if past_new < len(new) else len(data)
        middle = encode_gaps(new[first_new:past_new + 1], new[first_new - 1] if first_new else -1)
        data = b"".join((data[:start], middle.encode("ascii"), data[end:]))
    if len(data) > bitmap_length(total):  # encode_ids would make it a bitmap
        return None
    return data.decode("ascii")


def _bitmap_spliced(text: str, new: list[int], changed: list[tuple[int, int]], total: int
                    ) -> str | None:
    """``_spliced`` of a bitmap, whose characters hold six numbers each, in place: those that
    hold the stretches ``changed`` are made again. None when the new list may be a list of
    gaps (``encode_ids``: it is no longer than the bitmap)."""
    size = bitmap_length(total) - 1
    if len(new) <= size + 1:
        return None
    for low, high in changed:
        first, last = low // 6, min(high // 6, size - 1)
        held = new[bisect.bisect_left(new, first * 6):bisect.bisect_left(new, (last + 1) * 6)]
        text = "".join((text[:first + 1], bitmap_chars(held, first, last - first + 1),
                        text[last + 2:]))
    return text


SPLICED_FROM = 256
"""A list of more numbers than this is spliced (``_spliced``) rather than encoded again: for
a shorter one, finding its codes in each stretch an edit changed cost more than encoding it."""
_MORE = DIGITS[32:].encode("ascii")
"""The characters of a number's code but its last (``encode_number``)."""


def _code_start(data: bytes, count: int) -> int:
    """Where the code after the first ``count`` codes of a list of gaps starts. The codes'
    last characters are counted in C (``translate`` drops the others), a stretch at a time:
    as many characters as codes are still to count, so the stretch that completes the count
    is all last characters, and ends where a code does."""
    at = ends = 0
    while ends < count:
        if at >= len(data):
            raise ValueError("fewer codes than counted")
        step = count - ends
        ends += len(data[at:at + step].translate(None, _MORE))
        at += step
    return at


def _codes_from(data: bytes, count: int) -> int:
    """Where the last ``count`` codes of a list of gaps start: ``_code_start`` from the end,
    up to the last character of the code before them."""
    at, ends = len(data), 0
    while ends <= count:
        if not at:  # no code before them
            return 0
        step = min(count + 1 - ends, at)
        ends += len(data[at - step:at].translate(None, _MORE))
        at -= step
    return at + 1


def _counted_again(parts: dict[str, list[str]], total: int, touched: dict[str, set[int]]
                   ) -> None:
    """Add to ``touched`` the kept lists whose encoding a new count of numbers changes: a
    bitmap has a character per 6 numbers, and a list of gaps is a bitmap instead once it is
    longer than one (``encode_ids``). Any other list encodes as it did, and a deleted dump
    leaves most of a 10,000-paper index's 15,000 lists as they were."""
    longest = bitmap_length(total)
    for term, texts in parts.items():
        for slot, text in enumerate(texts):
            if text and (text[0] == "~" or len(text) > longest):
                touched.setdefault(term, set()).add(slot)


def _sorted_terms(encoded: dict[str, str], memo: SearchMemo) -> list[str]:
    """Every term in ``term_order``: the last build's list, with the terms an edit added put
    in their places and those it removed taken out (sorting 30,000 terms by their UTF-16
    form cost 10 ms of a 10,000-paper rebuild)."""
    if memo.vocabulary == encoded.keys():
        return memo.sorted_terms
    added, gone = encoded.keys() - memo.vocabulary, memo.vocabulary - encoded.keys()
    if len(added) + len(gone) > 64:
        memo.sorted_terms, memo.vocabulary = sorted(encoded, key=term_order), set(encoded)
        return memo.sorted_terms
    terms = memo.sorted_terms
    for term in gone:
        del terms[bisect.bisect_left(terms, term_order(term), key=term_order)]
    for term in added:
        bisect.insort(terms, term, key=term_order)
    memo.vocabulary -= gone
    memo.vocabulary |= added
    return terms


def _index_files(docs: list[DocPiece | None], memo: SearchMemo
                 ) -> tuple[dict[str, bytes], list[str], list[tuple[str, int]]]:
    """``outputs.search.index_files`` from the kept postings, sorted terms and shards: a
    shard is made again only when its terms or their postings changed."""
    encoded = _encoded_terms(docs, memo)

    def shard(number: int, members: list[str]) -> bytes:
        inputs = (tuple(members), tuple([encoded[t] for t in members]))
        return memo.shards.get(number, inputs,
                               lambda: shard_json(members, encoded, memo.term_json))

    made = index_files(docs, encoded, _sorted_terms(encoded, memo), shard)
    memo.shards.done()
    if len(memo.term_json) > 2 * len(encoded) + 1000:  # words edited away: forget them
        memo.term_json = {t: j for t, j in memo.term_json.items() if t in encoded}
    return made
