"""Every record of a co-author dump reaches the site or is reported at its line.

Generated dumps of many shapes: author lists plain, with ``et al.``, ending in a full stop,
of one person or of hundreds, names with digits, brackets, other scripts and symbols;
abstracts of one to three paragraphs; and a listing record pasted at the end. The property:
no record is invented (every record starts at an author list's line), and every author list
is a record or has a diagnostic at its line (a build with an error writes nothing at all).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.read.dumps import read_dump
from site_gen.util.diagnostics import has_errors

FIRST = ["Ada", "Jiamang", "Wei", "Li", "José", "Zoë", "Hans-Peter", "O'Neil", "王", "Анна"]
LAST = ["Lovelace", "Wang", "Na (李娜)", "Müller", "Wang 0001", "Núñez", "小明", "Иванова"]
NAME = st.one_of(st.tuples(st.sampled_from(FIRST), st.sampled_from(LAST)).map(" ".join),
                 st.sampled_from(["😀", "🚀", "Dr. Ann B. Lee", "Martin Luther King, Jr."]))
WORD = st.sampled_from(["model", "training", "kernels", "attention", "rollout", "systems",
                        "latency", "memory", "graphs", "agents", "we", "the", "our"])
SENTENCE = st.lists(WORD, min_size=5, max_size=14).map(
    lambda w: " ".join(w).capitalize() + " improves results.")
PARAGRAPH = st.lists(SENTENCE, min_size=2, max_size=5).map(" ".join)


@st.composite
def author_line(draw: st.DrawFn) -> tuple[str, tuple[str, ...], bool]:
    """(line, names, et al.) in one of the shapes exports use."""
    names = tuple(draw(st.lists(NAME, min_size=1, max_size=6)))
    shape = draw(st.sampled_from(["plain", "et al.", "stop", "many"]))
    if shape == "many":
        names = tuple(f"{FIRST[i % len(FIRST)]} {LAST[i % len(LAST)]} {i}" for i in
                      range(draw(st.integers(100, 320))))
    line = ", ".join(names)
    if shape == "et al.":
        return line + " et al.", names, True
    if shape == "stop":
        return line + ".", names, False
    return line, names, False


@st.composite
def coauthor_dump(draw: st.DrawFn) -> tuple[str, dict[int, tuple[tuple[str, ...], bool]], bool]:
    """(text, author lists by line number, whether a listing record is pasted at the end)."""
    lines = [draw(NAME)]
    lists: dict[int, tuple[tuple[str, ...], bool]] = {}
    for _ in range(draw(st.integers(1, 6))):
        line, names, et_al = draw(author_line())
        lines.append(line)
        lists[len(lines)] = (names, et_al)
        lines += draw(st.lists(PARAGRAPH, min_size=1, max_size=3))
    pasted = draw(st.booleans())
    if pasted:
        lines += ["arXiv2025", "A Title: Pasted From a Listing", draw(PARAGRAPH), "cs.LG↗"]
    # one element a line, a blank line between elements, as the exports have them
    return "\n\n".join(lines) + "\n", {2 * n - 1: v for n, v in lists.items()}, pasted


@settings(max_examples=300, deadline=None)
@given(coauthor_dump())
def test_every_record_reaches_the_site_or_is_reported_at_its_line(case) -> None:
    text, lists, pasted = case
    dump, diagnostics = read_dump("c.txt", text.encode())
    reported = {d.line for d in diagnostics}
    if has_errors(diagnostics):  # the build stops: nothing is written, every line reported
        assert dump is None
        assert pasted or reported, diagnostics
        return
    assert dump is not None and not pasted
    read = {r.source.line: r for r in dump.records}
    assert set(read) <= set(lists)  # no record invented
    assert set(lists) <= set(read) | reported  # none lost without a word
    for line, record in read.items():
        names, et_al = lists[line]
        # the list's final stop is dropped, or kept where the last name may end in it
        assert record.authors in (names, (*names[:-1], names[-1] + "."))
        assert record.et_al == et_al


def test_an_author_list_ending_in_a_full_stop_starts_an_entry() -> None:
    text = ("Jiamang Wang\n\nAda Lovelace, Jiamang Wang.\n\nWe study engines. They compute.\n\n"
            "Ada Lovelace, Jiamang Wang.\n\nWe study looms. They weave.\n")
    dump, diagnostics = read_dump("c.txt", text.encode())
    assert diagnostics == [] and dump is not None
    assert [(r.source.line, r.authors) for r in dump.records] == [
        (3, ("Ada Lovelace", "Jiamang Wang")), (7, ("Ada Lovelace", "Jiamang Wang"))]


def test_one_name_with_a_full_stop_after_an_abstract_is_reported() -> None:
    text = ("Jiamang Wang\n\nAda Lovelace\n\nWe study engines. They compute.\n\n"
            "Jiamang Wang.\n\nWe study looms. They weave.\n")
    dump, diagnostics = read_dump("c.txt", text.encode())
    assert dump is not None and len(dump.records) == 1
    [warning] = diagnostics
    assert (warning.line, warning.code) == (7, "ambiguous-entry")
    assert "is read as a further paragraph of the abstract of the entry at line 3" in \
        warning.message


def test_a_list_of_three_hundred_authors_is_one() -> None:
    names = [f"Author Number{i} Person" for i in range(300)]
    text = f"Ann Lee\n\n{', '.join(names)}\n\nWe study it. It works.\n"
    assert len(text) > 6000
    dump, diagnostics = read_dump("c.txt", text.encode())
    assert diagnostics == [] and dump is not None
    assert dump.records[0].authors == tuple(names)


@pytest.mark.parametrize("pasted", [["arXiv2025", "A Title", "We study it. It works.",
                                     "cs.LG↗"], ["cs.LG↗ stat.ML↗"]])
def test_a_listing_record_pasted_into_a_coauthor_dump_is_an_error_at_its_line(pasted) -> None:
    text = "\n\n".join(["Ann Lee", "Bo Chen, Ann Lee", "We study it. It works.", *pasted])
    dump, diagnostics = read_dump("c.txt", text.encode())
    assert dump is None
    first = 7
    assert diagnostics[0].line == first and "listing record's" in diagnostics[0].message
