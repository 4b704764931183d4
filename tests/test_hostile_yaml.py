"""Hostile YAML and years: the files a user writes in YAML (site.yaml, curation.yaml, page front
matter), and every year, generated to break the build.

The promise (docs/development.md, "Rules of the house"): one ``path:line: message``, exit 1, no
traceback, the last good site byte-identical; and never a hang or an out-of-memory kill: a few
lines of nested aliases stand for billions of values, so each file must be read, or refused,
within a second (``util.yamlfile``: ``MAX_ALIASED``, ``MAX_DEPTH``, ``MAX_NUMBER``). Years run
from ``read.listing.MIN_YEAR`` to ``MAX_YEAR`` in curation and dumps alike.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import tempfile
import time
from pathlib import Path

import pytest
from conftest import abstract, listing_dump, read_tree, write_files
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.cli import main
from site_gen.read.config import load_config
from site_gen.read.curation import load_curation
from site_gen.read.dumps import read_dump
from site_gen.read.listing import MAX_YEAR, MIN_YEAR
from site_gen.util.diagnostics import Diagnostic, Severity
from site_gen.util.yamlfile import MAX_ALIASED, MAX_DEPTH, MAX_NUMBER, load_yaml

SECOND = 1.0
"""How long reading one hostile file may take (it takes milliseconds)."""
PROFILE = settings(max_examples=60, deadline=None, derandomize=True)
TITLE = "Scheduling Rollouts for Fast Training"
OTHER = "Serving Models Across Many Machines"
GOOD = {
    "content/site.yaml": "title: Lab\nsite_url: https://example.org/\n",
    "content/dumps/ada.txt": listing_dump("Ada Lovelace", [
        (2024, TITLE, abstract("rollouts"), ["cs.LG"]),
        (2023, OTHER, abstract("serving"), ["cs.DC"])]),
    "content/curation.yaml": "papers: []\n",
    "content/pages/about.md": "---\ntitle: About\n---\nHello.\n",
}
_DIAGNOSTIC_LINE = re.compile(r"^(content/\S+?):(\d+): ", re.MULTILINE)


def _timed_load(text: str, path: str = "x.yaml") -> tuple[object, list[Diagnostic], float]:
    start = time.perf_counter()
    data, problems = load_yaml(path, text)
    return data, problems, time.perf_counter() - start


def _one_line(problem: Diagnostic) -> None:
    assert "\n" not in problem.message and "Traceback" not in problem.message, problem


# --- alias bombs ---------------------------------------------------------------------------

SHAPES = ("flow-list", "block-list", "mapping", "merge")


def alias_bomb(shape: str, depth: int, width: int) -> tuple[str, int | None]:
    """Anchors ``a0`` .. ``a<depth-1>``, each standing for ``width`` of the one before, and the
    line where the aliases first repeat more than ``MAX_ALIASED`` values (None if never): the
    loader counts every value an alias stands for, keys included, as this does."""
    lines: list[tuple[str, list[int]]] = []  # (text, what each alias on it stands for)
    size = 0  # values a[i-1] stands for, aliases expanded
    for i in range(depth):
        first = i == 0
        if shape == "flow-list":
            items = ["lol"] * width if first else [f"*a{i - 1}"] * width
            lines.append((f"a{i}: &a{i} [{', '.join(items)}]", [] if first else [size] * width))
            size = 1 + width * (1 if first else size)
        elif shape == "block-list":
            lines.append((f"a{i}: &a{i}", []))
            lines += [("  - lol", []) if first else (f"  - *a{i - 1}", [size])] * width
            size = 1 + width * (1 if first else size)
        elif first:  # mapping and merge: a0 maps k0..k<width-1> to text
            lines.append(("a0: &a0 {" + ", ".join(f"k{j}: lol" for j in range(width)) + "}", []))
            size = 1 + 2 * width
        elif shape == "mapping":
            lines.append((f"a{i}: &a{i}", []))
            lines += [(f"  k{j}: *a{i - 1}", [size]) for j in range(width)]
            size = 1 + width * (1 + size)
        else:  # merge: "<<" repeats a mapping into another
            lines += [(f"a{i}: &a{i}", []), ("  <<:", [])]
            lines += [(f"    - *a{i - 1}", [size])] * width
            size = 2 + (1 + width * size)
    aliased, failing = 0, None
    for number, (_, costs) in enumerate(lines, 1):
        for cost in costs:
            aliased += cost
            if failing is None and aliased > MAX_ALIASED:
                failing = number
    return "\n".join(text for text, _ in lines) + "\n", failing


@PROFILE
@given(shape=st.sampled_from(SHAPES), depth=st.integers(2, 12), width=st.integers(2, 12))
def test_an_alias_bomb_of_any_shape_is_refused_within_a_second(shape: str, depth: int,
                                                                width: int) -> None:
    text, failing = alias_bomb(shape, depth, width)
    data, problems, elapsed = _timed_load(text)
    assert elapsed < SECOND, (shape, depth, width, elapsed)
    if failing is None:  # a small use of aliases is read as it always was
        assert problems == [] and isinstance(data, dict) and len(data) == depth
        return
    assert data is None and len(problems) == 1, problems
    problem = problems[0]
    _one_line(problem)
    assert problem.severity is Severity.ERROR
    assert problem.line == failing and "*a" in text.splitlines()[failing - 1]
    assert f"repeat more than {MAX_ALIASED:,} values" in problem.message


@pytest.mark.parametrize("shape", SHAPES)
def test_the_classic_billion_laughs_fails_at_once(shape: str) -> None:
    text, failing = alias_bomb(shape, 10, 10)
    _, problems, elapsed = _timed_load(text)
    assert elapsed < SECOND and failing and [p.line for p in problems] == [failing]


def test_a_file_without_aliases_is_never_near_the_budget() -> None:
    """The budget counts what aliases repeat, not what a file holds: a big curation file is
    as long as what it says."""
    text = "papers:\n" + "".join(f"  - match: {{title: Paper {i}}}\n    year: 2024\n"
                                 "    subjects: [cs.LG, cs.DC]\n" for i in range(5000))
    data, problems, elapsed = _timed_load(text)
    assert problems == [] and len(data["papers"]) == 5000  # type: ignore[index]
    assert elapsed < 10 * SECOND


@PROFILE
@given(levels=st.integers(1, 3000), flow=st.booleans())
def test_nesting_is_bounded_not_a_recursion_error(levels: int, flow: bool) -> None:
    if flow:
        text = "a: " + "[" * levels + "]" * levels + "\n"
    else:  # block lists, each one level further in
        text = "a:\n" + "".join(" " * (2 * i + 1) + "-\n" for i in range(levels))
    data, problems, elapsed = _timed_load(text)
    assert elapsed < SECOND
    # the mapping holding "a" is a level, and so is the empty value inside the last "-"
    if levels + (1 if flow else 2) <= MAX_DEPTH:
        assert problems == [], problems
        return
    assert data is None and len(problems) == 1
    _one_line(problems[0])
    assert f"nested more than {MAX_DEPTH} levels deep" in problems[0].message
    assert problems[0].line == (1 if flow else min(levels, MAX_DEPTH) + 1)


def test_aliases_cannot_nest_values_deeper_than_the_bound() -> None:
    """Each anchor nests a little, each alias adds its anchor's depth: the limit holds for
    the values the aliases stand for."""
    step = MAX_DEPTH // 3
    lines = ["a0: &a0 " + "[" * step + "]" * step]
    lines += [f"a{i}: &a{i} " + "[" * step + f"*a{i - 1}" + "]" * step for i in range(1, 6)]
    data, problems, _ = _timed_load("\n".join(lines) + "\n")
    assert data is None and len(problems) == 1
    assert problems[0].line == 4 and "*a2 nests values more than" in problems[0].message


@pytest.mark.parametrize("text, line", [
    ("a: &a [*a]\n", 1),
    ("title: Lab\nb: &b\n  c: *b\n", 3),
    ("x: &x\n  - 1\n  - [2, *x]\n", 3),
])
def test_an_alias_inside_its_own_value_is_refused_at_the_alias(text: str, line: int) -> None:
    _, problems, _ = _timed_load(text)
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [(line, "invalid YAML")]
    assert "stands inside the value it names" in problems[0].message


YAML_ALPHABET = st.sampled_from(list("ab19:-,[]{}&*!<>?|'\"#%@`.~ \t\n\r\\") + [
    "&a ", "*a", "<<: ", "!!int ", "!!timestamp ", "!!binary ", "!!set ", "!!omap ",
    "!!python/", "---", "\x01", "\x85", "\u2028", "\ufeff", "9" * 120, "2024-13-45", "0x",
    ": ", "- ", "\n  "])
"""YAML's indicators, and the pieces that found a way past the reader: tags whose constructor
raised (``!!int `` empty raised IndexError), anchors, long numbers, control characters."""


@settings(max_examples=400, deadline=None, derandomize=True)
@given(pieces=st.lists(YAML_ALPHABET, max_size=60))
def test_any_text_is_read_or_refused_at_a_line_of_it(pieces: list[str]) -> None:
    """Whatever the text, the reader returns: data, or one diagnostic on one line, at a line
    the text has (the line after a final line break, for "the end of the file")."""
    text = "".join(pieces)
    _, problems, elapsed = _timed_load(text)
    assert elapsed < SECOND and len(problems) <= 1
    for problem in problems:
        _one_line(problem)
        assert 1 <= problem.line <= len(re.findall(r"\r\n|\r|\n", text)) + 1, problem


# --- values a constructor cannot read ------------------------------------------------------

@pytest.mark.parametrize("value, says", [
    ("!!int lots", "'lots' cannot be read as a whole number"),
    ("!!int 0x", "'0x' cannot be read as a whole number"),
    ("!!float many", "'many' cannot be read as a number"),
    ("!!bool perhaps", "'perhaps' cannot be read as true or false"),
    ("!!timestamp soon", "'soon' cannot be read as a date"),
    ("2024-13-45", "'2024-13-45' cannot be read as a date"),
    ("9" * (MAX_NUMBER + 1), f"a number {MAX_NUMBER + 1} characters long"),
    ("9" * 5000, "a number 5,000 characters long"),
    ("1" + ":59" * 100_000, "a number 300,001 characters long"),
])
def test_a_value_no_constructor_reads_is_an_error_at_its_line(value: str, says: str) -> None:
    _, problems, elapsed = _timed_load(f"title: Lab\n\nfooter: {value}\n")
    assert elapsed < SECOND
    assert [p.line for p in problems] == [3] and says in problems[0].message, problems
    _one_line(problems[0])


def test_numbers_of_every_form_yaml_reads_still_read() -> None:
    data, problems, _ = _timed_load("a: 2024\nb: 0x7e8\nc: 33:44\nd: 2_024\ne: 03750\n"
                                    "f: 2024.5\ng: 2024-05-06\n")
    assert problems == [] and data == {"a": 2024, "b": 2024, "c": 2024, "d": 2024, "e": 2024,
                                       "f": 2024.5, "g": datetime.date(2024, 5, 6)}


# --- control characters --------------------------------------------------------------------

REFUSED = [chr(c) for c in (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F,
                            *range(0x80, 0x85), *range(0x86, 0xA0), 0xFFFE, 0xFFFF)]


@PROFILE
@given(char=st.sampled_from(REFUSED), before=st.integers(0, 6), newline=st.sampled_from(
    ["\n", "\r\n"]), separator=st.sampled_from(["", "\u2028", "\u2029"]))
def test_a_raw_control_character_is_one_error_at_its_own_line(
        char: str, before: int, newline: str, separator: str) -> None:
    """One diagnostic, on one line, at the character's line as an editor counts lines
    (PyYAML would count U+2028 as a line break, and said line 1 and a position)."""
    lines = ["title: Lab", f'description: "one{separator}two"']
    lines += [f"footer: line {i}" for i in range(before)]
    lines += [f"language: e{char}n", "page_size: 3"]
    data, problems, elapsed = _timed_load(newline.join(lines) + newline)
    assert elapsed < SECOND and data is None
    assert [p.line for p in problems] == [len(lines) - 1], problems
    _one_line(problems[0])
    assert f"U+{ord(char):04X} is not allowed in YAML" in problems[0].message


def test_lines_are_counted_as_an_editor_counts_them() -> None:
    _, problems, _ = _timed_load('title: "a\u2028b\u2029c\x85d"\ndescription: [\n')
    assert [p.line for p in problems] == [3]  # the end of the file, after line 2


# --- years ---------------------------------------------------------------------------------

def _curate_year(rendered: str) -> tuple[list[Diagnostic], object]:
    """Curation with one paper entry whose year (line 3) is ``rendered``, read."""
    with tempfile.TemporaryDirectory() as folder:
        content = Path(folder)
        (content / "curation.yaml").write_text(
            f"papers:\n  - match: {{title: {TITLE}}}\n    year: {rendered}\n", encoding="utf-8")
        start = time.perf_counter()
        curation, problems = load_curation(content, "content/curation.yaml")
        assert time.perf_counter() - start < SECOND
    return problems, curation.papers[0].year if curation.papers else None


def _yaml_float(x: float) -> str:
    if math.isnan(x):
        return ".nan"
    return ("-.inf" if x < 0 else ".inf") if math.isinf(x) else repr(x)


OUT_OF_RANGE = st.one_of(
    st.integers(max_value=MIN_YEAR - 1).map(str),
    st.integers(min_value=MAX_YEAR + 1).map(str),
    st.integers(min_value=10**19, max_value=10**99).map(str),
    st.integers(-(10**40), -1).map(str),
    st.integers(MAX_YEAR + 1, 10**6).map(hex),
    st.floats().map(_yaml_float),
    st.integers(MIN_YEAR, MAX_YEAR).map(lambda y: f"{y}.5"),
    st.integers(MIN_YEAR, MAX_YEAR).map(lambda y: f'"{y}"'),
    st.integers(MIN_YEAR, MAX_YEAR).map(lambda y: f"[{y}]"),
    st.integers(MIN_YEAR, MAX_YEAR).map(lambda y: f"{y}-01-01"),
    st.sampled_from(["true", "no", "twenty", "{y: 2024}", "9" * 4300, "9" * 4301, "-" + "9" * 200,
                     "99999999999999999999", "20225", "-5", "0", "1899", "2101"]),
)


@PROFILE
@given(rendered=OUT_OF_RANGE)
def test_a_curated_year_outside_the_range_is_one_error_at_its_line(rendered: str) -> None:
    problems, _ = _curate_year(rendered)
    assert [(p.line, p.severity) for p in problems] == [(3, Severity.ERROR)], (rendered, problems)
    _one_line(problems[0])
    message = problems[0].message
    assert (f"'year' must be a whole number from {MIN_YEAR} to {MAX_YEAR}, not " in message
            or message.startswith("invalid YAML: a number ")), message
    assert len(message) < 200


@PROFILE
@given(year=st.integers(MIN_YEAR, MAX_YEAR), form=st.sampled_from(["dec", "hex", "base60", "_"]))
def test_a_curated_year_in_the_range_is_taken_in_any_form_yaml_reads(year: int,
                                                                      form: str) -> None:
    rendered = {"dec": str(year), "hex": hex(year), "_": f"{year // 1000}_{year % 1000:03d}",
                "base60": f"{year // 60}:{year % 60:02d}"}[form]
    problems, taken = _curate_year(rendered)
    assert problems == [] and taken == year


def _dump_with_year(digits: str) -> bytes:
    return listing_dump("Ada Lovelace", [(2024, TITLE, abstract("rollouts"), ["cs.LG"])]).replace(
        "arXiv2024", f"arXiv{digits}").encode()


@PROFILE
@given(digits=st.text("0123456789", min_size=1, max_size=40))
def test_a_dump_year_outside_the_range_is_one_warning_at_its_source_line(digits: str) -> None:
    """An ``arXiv<digits>`` line is a source line whatever its digits; a year outside the
    range is dropped with an ``implausible-year`` warning (curation can date the paper)."""
    data = _dump_with_year(digits)
    line = data.decode().splitlines().index(f"arXiv{digits}") + 1
    dump, problems = read_dump("content/dumps/ada.txt", data)
    assert dump is not None and len(dump.records) == 1
    year = dump.records[0].year
    if len(digits) <= 4 and MIN_YEAR <= int(digits) <= MAX_YEAR:
        assert year == int(digits) and problems == []
        return
    assert year is None
    assert [(p.line, p.code) for p in problems] == [(line, "implausible-year")], problems
    assert f"(years run from {MIN_YEAR} to {MAX_YEAR})" in problems[0].message
    _one_line(problems[0])


def test_a_dump_year_of_thousands_of_digits_is_a_warning_not_a_crash() -> None:
    start = time.perf_counter()
    dump, problems = read_dump("content/dumps/ada.txt", _dump_with_year("9" * 6000))
    assert time.perf_counter() - start < SECOND
    assert dump is not None and dump.records[0].year is None
    assert [p.code for p in problems] == ["implausible-year"] and len(problems[0].message) < 100


def test_site_yaml_numbers_are_bounded_too(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("title: Lab\npage_size: -1" + ":59" * 5000 + "\n")
    start = time.perf_counter()
    _, problems = load_config(tmp_path, "content/site.yaml")
    assert time.perf_counter() - start < SECOND
    assert [p.line for p in problems] == [2] and "a number 15,002 characters" in problems[0].message


# --- through the command line: exit 1, one message, the last good site untouched ----------

BOMB = alias_bomb("flow-list", 9, 9)[0]
BOMB_LINE = alias_bomb("flow-list", 9, 9)[1]
CLI_CASES: list[tuple[str, dict[str, str | bytes], str]] = [
    ("curation alias bomb", {"content/curation.yaml": BOMB},
     (f"content/curation.yaml:{BOMB_LINE}: invalid YAML: aliases (*a3 and others) repeat more "
      f"than {MAX_ALIASED:,} values")),
    ("curation bomb in an entry", {"content/curation.yaml": "papers:\n  - match: {title: x}\n"
                                   "    extra:\n      " + BOMB.replace("\n", "\n      ")},
     f"content/curation.yaml:{BOMB_LINE + 3}: invalid YAML: aliases"),
    ("site.yaml alias bomb", {"content/site.yaml": GOOD["content/site.yaml"] + BOMB},
     f"content/site.yaml:{BOMB_LINE + 2}: invalid YAML: aliases"),
    ("front matter alias bomb", {"content/pages/about.md": f"---\n{BOMB}---\nHello.\n"},
     f"content/pages/about.md:{BOMB_LINE + 1}: invalid YAML: aliases"),
    ("curation nested too deep", {"content/curation.yaml": "papers: " + "[" * 5000 + "\n"},
     f"content/curation.yaml:1: invalid YAML: values nested more than {MAX_DEPTH} levels deep"),
    ("site.yaml recursive alias", {"content/site.yaml": "title: &t [*t]\n"},
     "content/site.yaml:1: invalid YAML: alias *t stands inside the value it names"),
    ("curation control character", {"content/curation.yaml": f"papers:\n  - match: {{title: "
                                                             f"{TITLE}}}\n    title: A\x01B\n"},
     "content/curation.yaml:3: invalid YAML: control character U+0001 is not allowed in YAML"),
    ("front matter control character", {"content/pages/about.md":
                                        "---\ntitle: About\r\nnav: \x1b[31m\n---\nHello.\n"},
     "content/pages/about.md:3: invalid YAML: control character U+001B is not allowed in YAML"),
    ("curation impossible date", {"content/curation.yaml": f"papers:\n  - match: {{title: "
                                                           f"{TITLE}}}\n    year: 2024-13-45\n"},
     "content/curation.yaml:3: invalid YAML: '2024-13-45' cannot be read as a date"),
    *[(f"curation year {shown}", {"content/curation.yaml":
                                  f"papers:\n  - match: {{title: {TITLE}}}\n    year: {year}\n"},
       f"content/curation.yaml:3: {says}")
      for shown, year, says in [
          ("huge", "99999999999999999999", ("'year' must be a whole number from 1900 to 2100, "
                                            "not 99999999999999999999")),
          ("five digits", "20225", "'year' must be a whole number from 1900 to 2100, not 20225"),
          ("negative", "-5", "'year' must be a whole number from 1900 to 2100, not -5"),
          ("fraction", "2024.5", "'year' must be a whole number from 1900 to 2100, not 2024.5"),
          ("text", "'2024'", "'year' must be a whole number from 1900 to 2100, not '2024'"),
          ("thousands of digits", "9" * 5000, "invalid YAML: a number 5,000 characters long")]],
]


def _only_diagnostic(err: str) -> tuple[str, int]:
    """The one ``path:line:`` line a failed build printed (and no traceback)."""
    assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), err
    found = _DIAGNOSTIC_LINE.findall(err)
    assert len(found) == 1, err
    return found[0][0], int(found[0][1])


@pytest.mark.parametrize("files, expected", [c[1:] for c in CLI_CASES],
                         ids=[c[0] for c in CLI_CASES])
def test_hostile_yaml_fails_the_build_and_leaves_the_site(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str | bytes],
        expected: str) -> None:
    project = write_files(tmp_path / "project", GOOD)
    assert main(["build", "-q", "--project", str(project)]) == 0
    before = read_tree(project / "_site")
    capsys.readouterr()
    write_files(project, files)
    start = time.perf_counter()
    assert main(["build", "--project", str(project)]) == 1
    elapsed = time.perf_counter() - start
    err = capsys.readouterr().err
    _only_diagnostic(err)
    assert expected in err, err
    assert err.rstrip().endswith(f"{project / '_site'} was left as it was")
    assert read_tree(project / "_site") == before
    assert elapsed < 20 * SECOND  # a whole build; the YAML itself is read in milliseconds


def test_an_implausible_dump_year_warns_and_strict_fails_leaving_the_site(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = write_files(tmp_path / "project", GOOD)
    assert main(["build", "-q", "--project", str(project)]) == 0
    before = read_tree(project / "_site")
    write_files(project, {"content/dumps/ada.txt": GOOD["content/dumps/ada.txt"].replace(
        "arXiv2023", "arXiv20225")})
    line = GOOD["content/dumps/ada.txt"].splitlines().index("arXiv2023") + 1
    capsys.readouterr()
    assert main(["build", "--strict", "--project", str(project)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    # the year is refused at its line, and the paper has none (curation can give it one)
    assert re.findall(r"^content/dumps/ada\.txt:(\d+): warning: .*\[([a-z-]+)\]$", err,
                      re.MULTILINE) == [(str(line), "implausible-year"), (str(line), "no-year")]
    assert (f"content/dumps/ada.txt:{line}: warning: implausible year 20225 ignored (years run "
            f"from {MIN_YEAR} to {MAX_YEAR})") in err
    assert read_tree(project / "_site") == before
    write_files(project, {"content/curation.yaml": f"papers:\n  - match: {{title: {OTHER}}}\n"
                                                   f"    year: {MAX_YEAR}\n"})
    assert main(["build", "-q", "--strict", "--project", str(project)]) == 1  # still warns
    assert main(["build", "-q", "--project", str(project)]) == 0
    papers = json.loads((project / "_site/papers.json").read_text(encoding="utf-8"))["papers"]
    assert {p["title"]: p["year"] for p in papers} == {TITLE: 2024, OTHER: MAX_YEAR}


def test_the_whole_range_makes_sane_pages_and_feeds(tmp_path: Path) -> None:
    """A paper at each end of the range: Atom dates keep four digits, and the author page's
    chart has a column per year (201) with a handful of labels."""
    project = write_files(tmp_path / "project", {**GOOD, "content/curation.yaml": (
        f"papers:\n  - match: {{title: {TITLE}}}\n    year: {MIN_YEAR}\n"
        f"  - match: {{title: {OTHER}}}\n    year: {MAX_YEAR}\n")})
    assert main(["build", "-q", "--project", str(project)]) == 0
    site = project / "_site"
    feed = (site / "feed.xml").read_text(encoding="utf-8")
    dates = re.findall(r"<updated>([^<]*)</updated>", feed)
    assert f"{MIN_YEAR}-01-01T00:00:00Z" in dates and f"{MAX_YEAR}-01-01T00:00:00Z" in dates
    assert all(re.fullmatch(r"\d{4}-01-01T00:00:00Z", d) for d in dates), dates
    page = (site / "authors/ada-lovelace/index.html").read_text(encoding="utf-8")
    chart = page[page.index('<figure class="chart year-chart"'):]
    chart = chart[:chart.index("</figure>")]
    assert chart.count("<tr><th scope=\"row\">") == MAX_YEAR - MIN_YEAR + 1
    assert chart.count('class="label"') == 5  # 1900, 1950, 2000, 2050, 2100
    assert len(page) < 60_000


def test_small_aliases_keep_working_end_to_end(tmp_path: Path) -> None:
    """Anchors shared between entries, and merge keys, as they worked before the budget."""
    project = write_files(tmp_path / "project", {
        **GOOD,
        "content/site.yaml": "title: &t Lab\ndescription: *t\nsite_url: https://example.org/\n",
        "content/curation.yaml": (f"papers:\n  - &base\n    match: {{title: {TITLE}}}\n"
                                  "    subjects: &s [cs.LG, cs.DC]\n    year: 2020\n"
                                  f"  - <<: *base\n    match: {{title: {OTHER}}}\n"
                                  "  - match: {id: nothing-here}\n    subjects: *s\n")})
    assert main(["build", "-q", "--project", str(project)]) == 0
    papers = json.loads((project / "_site/papers.json").read_text(encoding="utf-8"))
    assert {p["title"]: (p["year"], p["subjects"]) for p in papers["papers"]} == {
        TITLE: (2020, ["cs.LG", "cs.DC"]), OTHER: (2020, ["cs.LG", "cs.DC"])}
    assert papers["site"]["title"] == "Lab"
