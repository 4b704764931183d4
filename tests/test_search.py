"""The search index files: encoding, sharding, fragments and the manifest (docs/search.md)."""

from __future__ import annotations

import json

import pytest
from conftest import abstract, build, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.outputs.search import (
    DIGITS,
    EXCERPT_CHARS,
    INDEX_DIR,
    STOPWORDS,
    doc_numbers,
    encode_ids,
    encode_number,
    excerpt,
    field_terms,
    shard_starts,
    term_order,
    typeset,
    words,
)

VALUE = {c: i for i, c in enumerate(DIGITS)}


def decode_ids(text: str) -> list[int]:
    """The decoder of search.js, in Python."""
    if not text:
        return []
    if text[0] == "~":
        return [(i - 1) * 6 + bit for i in range(1, len(text)) for bit in range(6)
                if VALUE[text[i]] >> bit & 1]
    out, last, n, shift = [], -1, 0, 0
    for char in text:
        v = VALUE[char]
        n += (v & 31) << shift
        if v & 32:
            shift += 5
            continue
        last += n + 1
        out.append(last)
        n, shift = 0, 0
    return out


def field_ids(text: str) -> list[int]:
    """The doc numbers of one field's lists, whatever their level."""
    return sorted(i for part in text.split(",") for i in decode_ids(part))


@given(st.sets(st.integers(0, 5000)))
def test_posting_lists_round_trip(ids: set[int]) -> None:
    ordered = sorted(ids)
    encoded = encode_ids(ordered, 5001)
    assert decode_ids(encoded) == ordered
    assert all(c in DIGITS or c == "~" for c in encoded)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=3000, unique=True),
       st.data())
def test_doc_numbers_ascend_and_an_edit_moves_few(keys: list[str], data) -> None:
    """Numbers are ascending and depend on the keys alone; adding a document moves the
    numbers of few others (the rest of its chunk, sometimes of its block), not of all after."""
    starts = [i % 700 == 0 for i in range(len(keys))]
    numbers, span = doc_numbers(keys, starts)
    assert numbers == sorted(set(numbers)) and numbers[-1] < span and span % 128 == 0
    assert all(numbers[i] % 4 == 0 for i in range(len(keys)) if starts[i])  # a chunk starts
    at = data.draw(st.integers(0, len(keys)))
    new = data.draw(st.text(min_size=9, max_size=12))  # not among the keys
    after, _ = doc_numbers([*keys[:at], new, *keys[at:]], [*starts[:at], False, *starts[at:]])
    moved = sum(a != b for a, b in zip(numbers, after[:at] + after[at + 1:]))
    assert moved <= len(keys) - at  # none before it


def test_doc_numbers_leave_most_documents_in_place() -> None:
    keys = [f"paper-{i}" for i in range(5000)]
    numbers, span = doc_numbers(keys)
    assert span < 1.4 * len(keys)
    moved = []
    for at in range(0, 5000, 50):  # 100 insertions
        after, _ = doc_numbers([*keys[:at], f"new-{at}", *keys[at:]])
        moved.append(sum(a != b for a, b in zip(numbers, after[:at] + after[at + 1:])))
    assert sorted(moved)[50] < 50  # the median insertion moves part of one block at most


@given(st.integers(1, 3000).flatmap(lambda total: st.tuples(
    st.just(total), st.sets(st.integers(0, total - 1)))))
def test_posting_lists_are_the_shorter_of_gaps_and_bitmap(case) -> None:
    total, ids = case
    ordered = sorted(ids)
    gaps = "".join(encode_number(b - a - 1) for a, b in zip([-1, *ordered], ordered))
    bits = [0] * ((total + 5) // 6)
    for i in ordered:
        bits[i // 6] |= 1 << (i % 6)
    bitmap = "~" + "".join(DIGITS[b] for b in bits)
    assert encode_ids(ordered, total) == (gaps if len(gaps) <= len(bitmap) else bitmap)


def test_posting_lists_round_trip_over_long_gaps() -> None:
    """Gaps too long for the table of short codes (a site of over 32,768 documents)."""
    ordered = [0, 5, 40_000, 40_001, 140_000]
    assert decode_ids(encode_ids(ordered, 150_000)) == ordered
    assert encode_ids(ordered, 150_000) == "".join(
        encode_number(b - a - 1) for a, b in zip([-1, *ordered], ordered))


def test_the_table_of_short_codes_is_encode_number() -> None:
    """Gaps are encoded through a table made apart from ``encode_number``; they must agree."""
    from site_gen.outputs.search import _SHORT
    assert list(_SHORT) == [encode_number(n) for n in range(1 << 15)]


def test_dense_lists_become_bitmaps_and_numbers_are_short() -> None:
    assert encode_ids(list(range(0, 600, 2)), 600).startswith("~")
    assert not encode_ids([3, 900], 1000).startswith("~")
    assert [len(encode_number(n)) for n in (0, 31, 32, 1023, 1024)] == [1, 1, 2, 2, 3]


def term_set(text: str, names: bool = False) -> set[str]:
    """The terms a title (or, with ``names``, an author's name) gives the index."""
    return {term for term, _ in field_terms(text, 0, names)}


def test_words_fold_case_and_accents_and_skip_function_words() -> None:
    assert words("Crème Brûlée: RollMux-2 (ÉTÉ)") == ["creme", "brulee", "rollmux", "2", "ete"]
    assert term_set("the x 王 caches") == {"王", "cach"}  # no stopword, lone ASCII letter
    assert term_set("The X 王 An", names=True) == {"the", "王", "an"}  # Dakai An is findable
    assert "an" in STOPWORDS
    assert typeset("Part II: ROLL Flash -- Accelerating --- fast") == "Part II: ROLL Flash – Accelerating — fast"


def test_term_order_is_javascripts() -> None:
    terms = ["b", "a", "\U0001d400", "\uff21", "ab"]
    assert sorted(terms, key=term_order) == ["a", "ab", "b", "\U0001d400", "\uff21"]


@pytest.fixture
def small_index(make_project):
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"]),
        (2023, "Phase Multiplexing for Rollouts", abstract("multiplexing"), ["cs.DC", "cs.LG"]),
        (None, "Undated Note on Schedulers", abstract("schedulers"), ["cs.DC"])])})
    assert build(project).ok
    root = project / "_site"
    read = lambda name: json.loads((root / INDEX_DIR / name).read_text(encoding="utf-8"))
    return root, read


def test_manifest_years_subjects_and_shards(small_index) -> None:
    root, read = small_index
    meta = read("meta.json")
    assert meta["version"] == 4 and meta["docs"] == 4  # + Ann Lee
    assert meta["papers"] == 128 and meta["numbers"] == 256  # room left (doc_numbers)
    assert meta["groups"] == [3, 16]
    assert meta["years"] == [[2024, 0, 1], [2023, 4, 1], [None, 8, 1]]  # a chunk each
    assert meta["subjects"] == [["cs.DC", "Distributed, Parallel, and Cluster Computing", 2],
                                ["cs.LG", "Machine Learning", 2]]
    assert meta["shards"] == sorted(meta["shards"], key=term_order)
    terms, last = {}, None
    for number, start in enumerate(meta["shards"]):  # each shard's range starts past the last
        shard = read(f"t/{number}.json")
        first = min(shard, key=term_order)
        assert first.startswith(start) and (last is None or term_order(start) > term_order(last))
        assert number == 0 or term_order(start[:-1]) <= term_order(last)  # as short as can be
        last = max(shard, key=term_order)
        terms.update(shard)
    title, _, _, text = (terms["batch"].split(".") + ["", "", ""])[:4]  # stemmed
    assert title.split(",")[1] == "0"  # doc 0, strongly: a short title
    assert field_ids(title) == [0] and field_ids(text) == [0]
    assert "batching" not in terms and "rollout" in terms and "rollouts" not in terms
    assert field_ids(terms["ann"].split(".")[1]) == [0, 4, 8]
    assert decode_ids(terms["ann"].split(".")[0].split(",")[1]) == [128]  # her own entry, strongly
    assert "the" not in terms and "for" not in terms
    assert set(read("v/74.json").split()) == {t for t in terms if t.startswith("t")}
    sizes = [len((root / INDEX_DIR / f"v/{key}.json").read_bytes()) for key in meta["letters"]]
    assert meta["vocabularies"] == sizes  # what search.js weighs before it fetches one
    assert decode_ids(read("s/cs.DC.json")) == [4, 8]
    assert decode_ids(read("papers.json")) == [0, 4, 8]


def test_fragments_and_search_json(small_index) -> None:
    root, read = small_index
    first = read("d/0.json")[0]
    assert first["t"] == "Tail Batching for Synchronous RL" and first["y"] == 2024
    assert first["u"] == "papers/tail-batching-for-synchronous-rl/" and first["a"] == ["Ann Lee"]
    assert first["x"] == excerpt(abstract("tail batching"))  # the abstract's opening
    assert first["x"].startswith("We study tail batching in") and first["x"].endswith("\u2026")
    assert len(read("d/0.json")) == 1 and [f and f["y"] for f in read("d/1.json")] == [None, 2023]
    assert read("d/2.json")[:2] == [None, None] and read("d/2.json")[2]["y"] is None  # number 8
    assert read("a/0.json") == [{"c": 3, "n": "Ann Lee", "p": True, "u": "authors/ann-lee/"}]
    listing = json.loads((root / "search.json").read_text(encoding="utf-8"))
    assert listing["version"] == 3 and listing["index"] == "search/index/meta.json"
    assert len(listing["papers"]) == 3 and listing["authors"][0]["name"] == "Ann Lee"
    assert "abstract" not in listing["papers"][0]  # papers.json holds the abstracts


@given(st.text(st.sampled_from("ab \n,.—é"), max_size=400))
def test_an_excerpt_is_the_abstract_s_opening_cut_at_a_word_end(text: str) -> None:
    flat = " ".join(text.split())
    shown = excerpt(text)
    if len(flat) <= EXCERPT_CHARS:
        assert shown == flat
        return
    assert shown.endswith("\u2026") and len(shown) <= EXCERPT_CHARS + 1
    head = shown[:-1]
    assert flat.startswith(head)
    if " " in flat[1:EXCERPT_CHARS + 1]:  # a word end in reach: no word is cut
        assert flat[len(head)] in " ,.—" or head.endswith(tuple(",.—"))
    assert not head.endswith((".", ","))  # the ellipsis ends it, not "prefixes.…"


def test_hostile_text_is_escaped_in_every_index_file(make_project) -> None:
    hostile = "<script>alert(1)</script> & more"
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2024, hostile, abstract("escaping") + " " + hostile, ["cs.CR"])])})
    assert build(project).ok
    for path in (project / "_site").rglob("*.json"):
        data = path.read_bytes()
        assert b"<" not in data and b">" not in data and b"&" not in data, path


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7f), max_size=30) | st.text(max_size=30))
def test_words_split_as_the_separator_regex_does(text: str) -> None:
    """ASCII text is split by a bytes table; any text must split as search.js's regex does."""
    from site_gen.outputs.search import _SEPARATORS, fold, words
    assert words(text) == [w for w in _SEPARATORS.split(fold(text)) if w]


def test_titles_are_stemmed_names_are_not_and_levels_weigh_length() -> None:
    from site_gen.outputs.search import ABSTRACT, AUTHORS, TITLE, field_terms
    assert {t for t, _ in field_terms("Elastic Caches for the Rollouts", TITLE)} == {
        "elast", "cach", "rollout"}  # stems, no stopwords
    assert {t for t, _ in field_terms("Ann Rollings and Bo Caches", AUTHORS, names=True)} == {
        "ann", "rollings", "and", "bo", "caches"}  # names as written, stopwords too
    short = dict(field_terms("Caches", TITLE))
    long = dict(field_terms("Caches " + " ".join(f"w{i}x" for i in range(20)), TITLE))
    assert short["cach"] == 1 and long["cach"] == 2  # strongly in a short title, weakly in a long one
    repeated = dict(field_terms("cache " * 5 + abstract("memory"), ABSTRACT))
    assert repeated["cach"] == 1 and dict(field_terms(abstract("memory"), ABSTRACT))["memori"] == 1


_FIELD_TEXT = st.lists(st.sampled_from(["the", "a", "x", "7", "Caches", "caching", "and", "王",
                                         "é", "Ann", "RollMux-2", "of", "ÉTÉ", "b."]),
                       max_size=25).map(" ".join) | st.text(max_size=40)


@given(_FIELD_TEXT, st.integers(0, 3), st.booleans())
def test_field_terms_are_the_counted_stems_of_the_words_worth_a_posting(
        text: str, field: int, names: bool) -> None:
    """``field_terms`` filters, stems and counts in C; this is what it must equal."""
    from collections import Counter

    from site_gen.outputs.search import field_terms, level, stem
    found = [w for w in words(text) if len(w) > 1 or not w.isascii()]
    if not names:
        found = [stem(w) for w in found if w not in STOPWORDS]
    counts = Counter(found)
    assert field_terms(text, field, names) == {
        (term, level(count, len(found), field)) for term, count in counts.items()}


@given(st.lists(st.tuples(st.tuples(_FIELD_TEXT, _FIELD_TEXT, _FIELD_TEXT, _FIELD_TEXT),
                          st.booleans()), max_size=6))
def test_a_build_posts_each_document_as_its_terms_would(docs) -> None:
    """``post_doc`` (a one-shot build) and ``add_postings`` of ``doc_terms`` (a rebuild's
    kept terms) give one index."""
    from site_gen.outputs.search import SearchDoc, add_postings, doc_terms, post_doc
    direct: dict[str, list[list[int]]] = {}
    termed: dict[str, list[list[int]]] = {}
    for number, (fields, is_paper) in enumerate(docs):
        doc = SearchDoc({}, fields, is_paper=is_paper)
        post_doc(direct, number, doc)
        add_postings(termed, number, doc_terms(doc))
    assert direct == termed


def _all_terms(read) -> dict[str, str]:
    terms: dict[str, str] = {}
    for number in range(len(read("meta.json")["shards"])):
        terms.update(read(f"t/{number}.json"))
    return terms


def test_math_is_found_by_its_words_and_its_symbols(make_project) -> None:
    """``\\log`` is the word log, ``\\Theta`` and ``\\sqrt`` are found as theta and sqrt too."""
    math = (r"The warmup length is $T_w=\Theta(\sqrt{d}/(1-\beta_2))$ and sorting costs"
            r" $O(n \log n)$ under an $\ell_1$ norm.")
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2024, "Warmup Lengths for Adaptive Optimisers", math, ["cs.LG"])])})
    assert build(project).ok
    root = project / "_site"
    terms = _all_terms(lambda name: json.loads((root / INDEX_DIR / name).read_text(encoding="utf-8")))
    for word in ("log", "theta", "sqrt", "θ", "ell"):
        assert field_ids(terms[word].split(".")[3]) == [0], word  # the abstract's field
    shown = json.loads((root / INDEX_DIR / "d/0.json").read_text(encoding="utf-8"))[0]["x"]
    assert "T_w=Θ(√d/(1-β_2))" in shown and "O(n log n)" in shown


def test_shard_starts_are_the_shortest_that_part_the_terms() -> None:
    assert shard_starts([["apple", "arc"], ["labor", "lazy"], ["lb"], ["zebra"]]) == \
        ["apple", "l", "lb", "z"]
