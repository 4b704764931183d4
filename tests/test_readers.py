"""Readers: every seed parses; edge cases of both grammars; broken input names its line."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
from conftest import SEEDS, abstract, coauthor_dump, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.read.dumps import read_dump
from site_gen.read.names import _may_end_in_et_al, split_author_list
from site_gen.read.source import _split_lines_normalising, split_lines
from site_gen.util.diagnostics import Severity

SEED_COUNTS = {"000": (18, "Jiamang Wang", "listing"), "001": (7, "Zhenxuan Pan", "listing"),
               "003": (7, "Jiamang Wang", "coauthor")}


def read(text: str | bytes, path: str = "d.txt"):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return read_dump(path, data)


def errors(diagnostics):
    return [d for d in diagnostics if d.severity is Severity.ERROR]


@pytest.mark.parametrize("seed", sorted(SEEDS.iterdir()), ids=lambda p: p.name[:3])
def test_every_seed_parses_without_diagnostics(seed: Path) -> None:
    dump, diagnostics = read_dump(seed.name, seed.read_bytes())
    count, owner, fmt = SEED_COUNTS[seed.name[:3]]
    assert diagnostics == []
    assert dump is not None
    assert (len(dump.records), dump.owner, dump.format) == (count, owner, fmt)


def test_listing_seed_fields() -> None:
    dump, _ = read_dump("000", (SEEDS / "000_e736ed7e47b46951.txt").read_bytes())
    first = dump.records[0]
    assert first.title.startswith("RoLA: Rotary-Positioned")
    assert (first.year, first.subjects, first.source.line) == (2026, ("cs.CV",), 9)
    assert first.abstract.startswith("Diffusion Transformers (DiTs)")
    assert (dump.claim.count, dump.claim.at_least) == (19, True)
    assert all(r.title and r.year and r.subjects for r in dump.records)


def test_coauthor_seed_fields() -> None:
    dump, _ = read_dump("003", (SEEDS / "003_f93c594022924f84.txt").read_bytes())
    first = dump.records[0]
    assert first.authors == ("Zihe Liu", "Jiashun Liu", "Yancheng He")
    assert first.et_al and first.title is None and first.year is None
    assert first.source.line == 3
    assert [r.source.line for r in dump.records] == [3, 7, 11, 15, 19, 23, 27]


def test_format_is_sniffed_from_content_not_name() -> None:
    text = (SEEDS / "003_f93c594022924f84.txt").read_bytes()
    dump, _ = read_dump("000_looks_like_a_listing.txt", text)
    assert dump.format == "coauthor"


SAMPLE = listing_dump("Ada Lovelace", [(2024, "A Study of Engines", abstract("engines"), ["cs.LG"]),
                                       (2023, "Notes on Looms", abstract("looms"), ["cs.AI", "cs.DC"])])


@pytest.mark.parametrize("variant", [
    pytest.param(lambda t: t.replace("\n", "\r\n"), id="crlf"),
    pytest.param(lambda t: t.replace("\n", "\r"), id="cr"),
    pytest.param(lambda t: "\ufeff" + t, id="bom"),
    pytest.param(lambda t: t.replace("\n", "   \n"), id="trailing-spaces"),
    pytest.param(lambda t: t.replace("\n\n", "\n\n\n\n"), id="extra-blank-lines"),
    pytest.param(lambda t: t.replace("\n\n", "\n"), id="no-blank-lines"),
    pytest.param(lambda t: t.replace("\n", "\t\n"), id="trailing-tabs"),
])
def test_whitespace_and_line_ending_variants_parse_the_same(variant) -> None:
    expected, _ = read(SAMPLE)
    dump, diagnostics = read(variant(SAMPLE))
    assert diagnostics == []
    strip = lambda d: [(r.title, r.year, r.subjects, r.abstract) for r in d.records]
    assert strip(dump) == strip(expected)


def test_utf16_with_bom_is_read() -> None:
    dump, diagnostics = read(codecs.BOM_UTF16_LE + SAMPLE.encode("utf-16-le"))
    assert diagnostics == [] and len(dump.records) == 2


def test_line_numbers_survive_crlf() -> None:
    dump, _ = read(SAMPLE.replace("\n", "\r\n"))
    assert [r.source.line for r in dump.records] == [9, 17]


def test_several_subject_lines_and_several_codes_on_one_line() -> None:
    text = listing_dump("A B", [(2024, "Title here now", abstract("x"), ["cs.LG", "stat.ML"])])
    text = text.replace("stat.ML↗", "stat.ML↗ math.OC↗, q-bio.NC↗")
    dump, diagnostics = read(text)
    assert diagnostics == []
    assert dump.records[0].subjects == ("cs.LG", "stat.ML", "math.OC", "q-bio.NC")


def test_subject_code_case_is_canonicalised() -> None:
    dump, _ = read(listing_dump("A B", [(2024, "Title", abstract("x"), ["cs.lg"])]))
    assert dump.records[0].subjects == ("cs.LG",)


def test_missing_year_subject_and_title_are_warnings_not_drops() -> None:
    text = listing_dump("A B", [(None, "Only A Title Here", abstract("x"), ["cs.LG"]),
                                (2020, "Title Without Subjects", abstract("y"), [])])
    text += "arXiv2019\n\n" + abstract("z") + "\n\ncs.CL↗\n"
    dump, diagnostics = read(text)
    assert errors(diagnostics) == []
    assert [r.year for r in dump.records] == [None, 2020, 2019]
    assert dump.records[1].subjects == ()
    assert dump.records[2].title is None and dump.records[2].abstract.startswith("We study z")
    messages = {(d.line, d.message) for d in diagnostics}
    assert not any("year" in m for _, m in messages)  # the catalog warns, after curation
    assert (17, "record has no subject line") in messages
    assert (23, "record has no title") in messages


def test_multi_paragraph_abstract() -> None:
    text = listing_dump("A B", [(2024, "Title", "First paragraph.\n\nSecond paragraph.", ["cs.LG"])])
    dump, _ = read(text)
    assert dump.records[0].abstract == "First paragraph.\n\nSecond paragraph."


@pytest.mark.parametrize("count, expected", [
    ("1 record", (1, False)), ("7 records", (7, False)), ("At least 19 records", (19, True)),
    ("at least 1,204 records", (1204, True)),
])
def test_count_lines(count: str, expected: tuple[int, bool]) -> None:
    dump, _ = read(listing_dump("A B", [(2024, "T", abstract("x"), ["cs.LG"])], count=count))
    assert (dump.claim.count, dump.claim.at_least) == expected


def test_wrong_exact_count_is_a_warning() -> None:
    _, diagnostics = read(listing_dump("A B", [(2024, "T", abstract("x"), ["cs.LG"])],
                                       count="3 records"))
    assert [(d.line, d.severity) for d in diagnostics] == [(7, Severity.WARNING)]  # the claim line
    assert "claims 3 records but holds 1" in diagnostics[0].message


def test_non_latin_names_and_titles() -> None:
    text = listing_dump("王小明", [(2024, "Über Transformatoren: ein Überblick", abstract("x"), ["cs.CL"])])
    dump, diagnostics = read(text)
    assert diagnostics == [] and dump.owner == "王小明"
    co = coauthor_dump("Дмитрий Иванов", [("José Núñez, 王小明, Zoë Müller et al.", abstract("y"))])
    dump, diagnostics = read(co)
    assert diagnostics == []
    assert dump.records[0].authors == ("José Núñez", "王小明", "Zoë Müller")


def test_coauthor_without_et_al_and_single_author() -> None:
    dump, diagnostics = read(coauthor_dump("A B", [("C D, E F", abstract("x")),
                                                   ("G H", abstract("y"))]))
    assert diagnostics == []
    assert [(r.authors, r.et_al) for r in dump.records] == [(("C D", "E F"), False), (("G H",), False)]


def test_control_characters_are_removed_with_a_warning() -> None:
    dump, diagnostics = read(SAMPLE.replace("Notes on Looms", "Notes\x00 on\x07 Looms"))
    assert dump.records[1].title == "Notes on Looms"
    assert [(d.line, d.severity) for d in diagnostics] == [(19, Severity.WARNING)]



_CLEAN_PIECES = ["a", "Z", " ", "\t", "\n", "\r", "\r\n", "\xa0", "\u2028", "é", "e\u0301",
                 "\u0301", "\u0327\u0301", "Å", "\u212b", "李", "\ufeff"]
"""Pieces of text: with none of _CONTROL_PIECES, most texts take split_lines' whole-text path
(those with a piece that is not NFC do not)."""
_CONTROL_PIECES = ["\x00", "\x0b", "\x0c", "\x1c", "\x7f", "\x85"]


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(st.sampled_from(_CLEAN_PIECES)),
                 st.lists(st.sampled_from(_CLEAN_PIECES + _CONTROL_PIECES))).map("".join))
def test_lines_of_a_clean_text_are_what_normalising_each_line_gives(text: str) -> None:
    """split_lines takes NFC text with no control characters whole; it must give what the
    line-by-line normalisation gives, numbers and warnings included."""
    assert split_lines("d.txt", text) == _split_lines_normalising("d.txt", text)


def test_every_character_an_et_al_can_end_in_passes_the_quick_test() -> None:
    """split_author_list tries its "et al." pattern only on lines ending in one of these
    characters, as the pattern's case-insensitive matching takes them."""
    ends = [chr(c) for c in range(0x110000) if re.fullmatch("[ls.]", chr(c), re.IGNORECASE)]
    assert len(ends) >= 5  # l L s S and the long s
    assert all(_may_end_in_et_al(f"A B, and other{end} ") for end in ends)
    assert split_author_list("A B, C D ET AL.") == (("A B", "C D"), True)
    assert split_author_list("A B, C D and otherſ") == (("A B", "C D"), True)

# ---- broken input: an error at the right line ------------------------------------------

@pytest.mark.parametrize("data, line, fragment", [
    pytest.param(b"", 1, "empty dump", id="empty"),
    pytest.param(b"\n\n  \n", 1, "empty dump", id="blank"),
    pytest.param("arXiv subjects\n\nA B\n\n1 record\n\narXiv2024\n\nT\n\nabc caf\xe9".encode("latin-1"),
                 11, "not valid UTF-8", id="latin-1"),
    pytest.param(b"Hello world, this is a letter.\n\nIt is not a dump at all, is it? No.\n", 1,
                 "not a known dump format", id="unknown-format"),
    pytest.param(SAMPLE.replace("arXiv2023\n\n", "").encode(), 17,
                 "text after the subject lines", id="missing-source-line"),
    pytest.param(b"arXiv subjects\n\nA B\n\nWhat is this line doing here? It breaks.\n\narXiv2020\n\nT\n\nx\n",
                 5, "unexpected line in the header", id="header-garbage"),
    pytest.param(SAMPLE.replace("Notes on Looms\n\n" + abstract("looms") + "\n\n", "").encode(), 17,
                 "no title and no abstract", id="empty-record"),
    pytest.param(coauthor_dump("A B", [("C D, E F et al.", abstract("x"))]).encode() + b"G H, I J\n", 7,
                 "author list has no abstract", id="dangling-author-list"),
])
def test_broken_input_gives_an_error_at_its_line(data: bytes, line: int, fragment: str) -> None:
    _dump, diagnostics = read(data, "content/dumps/bad.txt")
    found = errors(diagnostics)
    assert found, diagnostics
    assert (found[0].path, found[0].line) == ("content/dumps/bad.txt", line)
    assert fragment in found[0].message
    assert str(found[0]).startswith(f"content/dumps/bad.txt:{line}: ")


# ---- names are placed by the grammar, whatever they spell ------------------------------

REAL_NAMES = ["Wei Wang 0001", "María de los Ángeles García López de Mendoza Ruiz", "Li Na (李娜)",
              "Dr. Hans-Peter Müller, PhD", "J.R.R. Tolkien", "Bob", "<b>x</b>", "{{ 7*7 }}",
              "O'Brien & \"Sons\"", "محمد بن سلمان", "Nguyễn Thị Minh Khai", "a b c d e f g h i j k l m n o p"]


@pytest.mark.parametrize("name", REAL_NAMES)
@pytest.mark.parametrize("variant", [lambda t: t, lambda t: "\ufeff" + t.replace("\n", "\r\n")],
                         ids=["lf", "bom-crlf"])
def test_any_name_in_the_owners_place_is_the_owner(name: str, variant) -> None:
    text = listing_dump(name, [(2024, "A Study of Engines", abstract("engines"), ["cs.LG", "stat.ML"]),
                               (2023, "Notes on Looms", abstract("looms"), ["cs.AI"])])
    dump, diagnostics = read(variant(text))
    assert diagnostics == []
    assert (dump.format, dump.owner, len(dump.records)) == ("listing", name, 2)
    assert dump.records[0].subjects == ("cs.LG", "stat.ML")


@pytest.mark.parametrize("name", [n for n in REAL_NAMES if "&" not in n])
def test_any_name_owns_a_coauthor_dump_and_stands_in_author_lists(name: str) -> None:
    text = coauthor_dump(name, [(f"{name}, Ann Lee et al.", abstract("engines")),
                                (f"Bo Wu; {name}", abstract("looms"))])
    dump, diagnostics = read(text)
    assert diagnostics == []
    assert (dump.format, dump.owner) == ("coauthor", name)
    assert [r.authors for r in dump.records] == [(name, "Ann Lee"), ("Bo Wu", name)]


def test_a_name_longer_than_sixteen_words_is_refused_where_the_owner_stands() -> None:
    long = " ".join(["Name"] * 17)
    dump, diagnostics = read(listing_dump(long, [(2024, "A Study of Engines", abstract("x"), ["cs.LG"])]))
    assert dump is None
    assert "expected the profile owner's name (up to 16 words)" in errors(diagnostics)[0].message


@pytest.mark.parametrize("line, authors, et_al", [
    ("Martin Luther King, Jr., Ann Lee and Bo Wu", ("Martin Luther King, Jr.", "Ann Lee", "Bo Wu"), False),
    ("Ann Lee, PhD, Bo Wu, M.D., Carl Gauss III et al.", ("Ann Lee, PhD", "Bo Wu, M.D.", "Carl Gauss III"),
     True),
    ("Li Na (李娜, Nina); Wei Wang 0001 & Wei Wang 0002", ("Li Na (李娜, Nina)", "Wei Wang 0001",
                                                        "Wei Wang 0002"), False),
    ("Dr. Hans-Peter Müller, PhD, 王小明 et al", ("Dr. Hans-Peter Müller, PhD", "王小明"), True),
])
def test_author_lists_split_on_separators_and_keep_suffixes(line: str, authors, et_al: bool) -> None:
    dump, diagnostics = read(coauthor_dump("Ann Lee", [(line, abstract("x"))]))
    assert diagnostics == []
    assert (dump.records[0].authors, dump.records[0].et_al) == (authors, et_al)


def test_short_abstract_paragraphs_stay_with_their_abstract() -> None:
    """A short line is an author list only when an abstract follows it."""
    text = ("Ann Lee\n\nBo Wu, Carl Gauss et al.\n\n" + abstract("x") + "\n\nAccepted at ICML 2024\n\n"
            "Dan Ek\n\n" + abstract("y") + "\n\nCode at github dot com\n")
    dump, diagnostics = read(text)
    assert diagnostics == []
    assert [r.authors for r in dump.records] == [("Bo Wu", "Carl Gauss"), ("Dan Ek",)]
    assert dump.records[0].abstract.endswith("\n\nAccepted at ICML 2024")
    assert dump.records[1].abstract.endswith("\n\nCode at github dot com")


@pytest.mark.parametrize("header_line, fragment", [
    ("arXiv 2025 preprint", "not a record's source line: expected 'arXiv' and a year"),
    ("Somebody Else", "expected 'Publications and source records attributed to NAME.', a record count"),
])
def test_a_misplaced_header_line_says_what_was_expected(header_line: str, fragment: str) -> None:
    text = listing_dump("Ann Lee", [(2024, "A Study of Engines", abstract("x"), ["cs.LG"])])
    text = text.replace("1 recordLinked", header_line + "\n\n1 recordLinked")
    dump, diagnostics = read(text, "content/dumps/bad.txt")
    assert dump is None
    assert str(errors(diagnostics)[0]).startswith("content/dumps/bad.txt:7: ")
    assert fragment in errors(diagnostics)[0].message


def test_a_one_entry_coauthor_dump_whose_short_abstract_has_a_comma() -> None:
    """The line after the first author list is an abstract's, even where it splits like names."""
    data = "Ann Lee\n\nBo Wu, Ann Lee et al.\n\nShort, {with} 100% hostility <b>bold</b>.\n"
    dump, diagnostics = read_dump("b.txt", data.encode())
    assert diagnostics == [] and dump is not None and dump.format == "coauthor"
    [record] = dump.records
    assert record.authors == ("Bo Wu", "Ann Lee") and record.et_al
    assert record.abstract == "Short, {with} 100% hostility <b>bold</b>."
