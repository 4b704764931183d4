"""One paper, one page; one person, one page, whatever the abstract's length or the name's
characters.

* The same abstract and a shared person (an owner or a listed author) make one paper,
  however short the abstract; a short identical abstract without a shared person stays two
  papers, with the suspected-duplicate warning (a short abstract alone may be boilerplate).
* People are told apart by their names' letters and digits; a name with none (``😀``) is
  told apart by its own characters, never folded into one empty name with others.
"""

from __future__ import annotations

import json
import unicodedata

from conftest import coauthor_dump, listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.catalog.merge import MIN_ABSTRACT_KEY, folded_abstract, group_records
from site_gen.cli import main
from site_gen.model import Record, SourceRef
from site_gen.read.names import person_key
from site_gen.util.text import fold

PEOPLE = ["Ann Lee", "ANN LEE", "Bo Wu", "José Núñez", "Jose Nunez", "Wei Wang 0001", "😀", "🚀"]
SHORT = st.lists(st.sampled_from(["we", "study", "kernels", "fast", "graphs", "a", "note",
                                  "on", "It", "works", "!", ",", "."]),
                 min_size=1, max_size=20).map(" ".join).filter(
    lambda text: fold(text) and len(fold(text)) < MIN_ABSTRACT_KEY)


def record(path: str, owner: str, authors: tuple[str, ...], text: str,
           title: str | None = None) -> Record:
    return Record(SourceRef(path, 3), owner, title, authors, False, 2024, ("cs.LG",), text)


@settings(max_examples=200, deadline=None)
@given(SHORT, st.sampled_from(PEOPLE), st.sampled_from(PEOPLE),
       st.lists(st.sampled_from(PEOPLE), max_size=3).map(tuple), st.booleans())
def test_a_short_abstract_is_one_paper_exactly_when_the_records_share_a_person(
        text: str, owner: str, other_owner: str, authors: tuple[str, ...], shout: bool) -> None:
    listed = record("a.txt", owner, (), text, title="A Title Of Four Words")
    coauthored = record("b.txt", other_owner, authors, text.upper() if shout else text)
    groups, warnings = group_records([listed, coauthored])
    shared = {person_key(owner)} & {person_key(n) for n in (other_owner, *authors)}
    if shared:
        assert groups == [[listed, coauthored]] and warnings == []
    else:
        assert len(groups) == 2
        assert [(w.code, w.path) for w in warnings] == [("duplicate", "b.txt")]


def test_a_long_abstract_is_one_paper_without_a_shared_person() -> None:
    text = "We study kernels. " * 20
    assert len(folded_abstract(record("a", "x", (), text))) >= MIN_ABSTRACT_KEY
    groups, _ = group_records([record("a.txt", "Ann Lee", (), text),
                               record("b.txt", "Bo Wu", ("Cy Do",), text)])
    assert len(groups) == 1


def test_a_coauthor_entry_and_a_listing_record_of_one_short_abstract_are_one_page(
        make_project) -> None:
    short = "We study tail batching for RL. It works well."  # 60 characters or so
    project = make_project({
        "content/dumps/a.txt": listing_dump("Ann Lee", [(2024, "Tail Batching For RL", short,
                                                         ["cs.LG"])]),
        "content/dumps/b.txt": coauthor_dump("Ann Lee", [("Bo Wu, Ann Lee", short)]),
    })
    assert main(["build", "-q", "--project", str(project)]) == 0
    papers = json.loads((project / "_site/papers.json").read_text())["papers"]
    assert len(papers) == 1 and len(papers[0]["sources"]) == 2


NO_LETTERS = st.text(st.sampled_from("😀🚀🎉★☂♫—–·•…!?#%&*+=~^|"), min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(NO_LETTERS, NO_LETTERS)
def test_names_without_letters_or_digits_are_told_apart_by_their_characters(
        a: str, b: str) -> None:
    same = " ".join(unicodedata.normalize("NFC", a).casefold().split()) == \
        " ".join(unicodedata.normalize("NFC", b).casefold().split())
    assert (person_key(a) == person_key(b)) == same
    assert person_key(a) and person_key(a) != person_key("Ann Lee")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(PEOPLE), st.sampled_from(PEOPLE))
def test_names_with_letters_are_matched_as_folded(a: str, b: str) -> None:
    if fold(a) and fold(b):
        assert (person_key(a) == person_key(b)) == (fold(a) == fold(b))


def test_two_people_named_by_symbols_get_two_pages(make_project) -> None:
    project = make_project({"content/dumps/a.txt": coauthor_dump(
        "Ann Lee", [("😀, 🚀, Ann Lee", "We study emoji. It is a fine study of them.")])})
    assert main(["build", "-q", "--project", str(project)]) == 0
    authors = json.loads((project / "_site/authors.json").read_text())["authors"]
    assert sorted(a["name"] for a in authors) == sorted(["😀", "🚀", "Ann Lee"])
    assert len({a["url"] for a in authors}) == 3
