"""Files that are not dumps are refused, never taken for papers.

A text file saved into ``content/dumps/`` by mistake (a note, a data file, a web page, a
bibliography) must fail the build at its path with why, leave the previous site as it was,
and never reach ``urls.lock``. Generated files of many shapes: JSON, HTML and XML, BibTeX,
RIS, CSV, YAML, and notes of short lines such as a shopping list.
"""

from __future__ import annotations

import json
import string
import tempfile
from pathlib import Path

import pytest
from conftest import SEEDS, read_tree, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_gen.cli import main
from site_gen.read.dumps import read_dump

WORD = st.text(string.ascii_letters, min_size=1, max_size=9)
WORDS = st.lists(WORD, min_size=1, max_size=4).map(" ".join)
SCALAR = st.one_of(st.integers(), st.booleans(), st.none(), WORDS,
                   st.lists(WORD, min_size=3, max_size=12).map(lambda w: " ".join(w) + "."))
JSON = st.recursive(SCALAR, lambda inner: st.one_of(
    st.lists(inner, min_size=1, max_size=4),
    st.dictionaries(WORD, inner, min_size=1, max_size=4)), max_leaves=12).filter(
    lambda v: isinstance(v, dict | list)).map(lambda v: json.dumps(v, indent=2))


@st.composite
def html(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(["<!DOCTYPE html>", "<!doctype html>", '<?xml version="1.0"?>',
                                 "<html>", '<html lang="en">', '<svg xmlns="x">']))
    body = draw(st.lists(WORDS.map(lambda w: f"<p>{w}. More text here.</p>"), max_size=6))
    return "\n".join([head, "<head><title>Ann Lee</title></head>", "Ann Lee, Bo Chen", *body,
                      "</html>"])


@st.composite
def bibtex(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["article", "inproceedings", "misc", "ARTICLE"]))
    fields = draw(st.lists(st.tuples(WORD, WORDS), min_size=1, max_size=5))
    body = [f"  {k} = {{{v}}}," for k, v in fields]
    return "\n".join([f"@{kind}{{{draw(WORD)}2024,", "  author = {Ann Lee and Bo Chen},",
                      *body, "}"])


@st.composite
def ris(draw: st.DrawFn) -> str:
    lines = [f"{tag}  - {draw(WORDS)}" for tag in draw(st.lists(
        st.sampled_from(["AU", "TI", "PY", "AB", "JO"]), min_size=2, max_size=6))]
    return "\n".join(["TY  - JOUR", *lines, "ER  - "])


@st.composite
def table(draw: st.DrawFn) -> str:
    width = draw(st.integers(2, 6))
    sep = draw(st.sampled_from([",", "\t", ";"]))
    rows = draw(st.lists(st.lists(WORDS, min_size=width, max_size=width), min_size=2,
                         max_size=8))
    return "\n".join(sep.join(row) for row in [["title", "authors", *["x"] * (width - 2)],
                                                 *rows])


@st.composite
def yaml_file(draw: st.DrawFn) -> str:
    keys = draw(st.lists(WORD.map(str.lower), min_size=3, max_size=8, unique=True))
    values = draw(st.lists(st.one_of(WORDS, WORDS.map(lambda w: w + ". It is a sentence.")),
                           min_size=len(keys), max_size=len(keys)))
    return "\n".join(f"{k}: {v}" for k, v in zip(keys, values, strict=True))


@st.composite
def note(draw: st.DrawFn) -> str:
    """A shopping list, a to-do list: short lines, some with commas, none ending a sentence."""
    item = st.lists(WORDS, min_size=1, max_size=4).map(", ".join)
    return "\n\n".join(draw(st.lists(item, min_size=1, max_size=10)))


NOT_DUMPS = st.one_of(JSON, html(), bibtex(), ris(), table(), yaml_file(), note())


@settings(max_examples=300, deadline=None)
@given(NOT_DUMPS)
def test_files_that_are_not_dumps_are_refused_at_their_first_line(text: str) -> None:
    dump, diagnostics = read_dump("content/dumps/x.txt", text.encode())
    assert dump is None
    assert any(str(d).startswith("content/dumps/x.txt:") and d.severity.name == "ERROR"
               for d in diagnostics), diagnostics


@pytest.mark.parametrize(("text", "why"), [
    ("Shopping list\n\nmilk, eggs, bread\n\nbutter\n", "its third line 'butter' is no abstract"),
    ("Ann Lee\n\nBo Chen\n", "the file has 2 non-blank lines"),
    (json.dumps({"title": "A study. Of kernels.", "abstract": "We study. It works."}, indent=2),
     "this is JSON"),
    ("<!DOCTYPE html>\n<html>\n<head>\n</head>\n</html>\n", "HTML or XML markup"),
    ("@article{lovelace1843,\n  author = {Ada Lovelace},\n  title = {Notes. On it.},\n}\n",
     "a BibTeX file"),
    ("title,authors,year\nA paper,Ann Lee,2024\nB paper,Bo Chen,2023\n", "like a table (CSV)"),
    ("title: Notes\nauthors: Ann Lee, Bo Chen\nabstract: We study it. It works.\n", "YAML"),
])
def test_the_refusal_says_why(text: str, why: str) -> None:
    _, diagnostics = read_dump("x.txt", text.encode())
    assert [d.line for d in diagnostics] == [1]
    assert why in diagnostics[0].message


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(NOT_DUMPS)
def test_a_build_with_one_refuses_it_keeps_the_site_and_records_no_url(
        capsys: pytest.CaptureFixture[str], text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        project = write_files(Path(folder), {
            "content/site.yaml": "title: T\nsite_url: https://example.org/\n",
            "content/dumps/ada.txt": min(SEEDS.glob("*.txt")).read_bytes()})
        assert main(["build", "-q", "--project", str(project)]) == 0
        site, lock = read_tree(project / "_site"), (project / "content/urls.lock").read_bytes()
        capsys.readouterr()
        (project / "content/dumps/mistake.txt").write_text(text)
        assert main(["build", "-q", "--project", str(project)]) == 1
        err = capsys.readouterr().err
        assert "content/dumps/mistake.txt:1: " in err and "Traceback" not in err
        assert read_tree(project / "_site") == site
        assert (project / "content/urls.lock").read_bytes() == lock
