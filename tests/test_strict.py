"""CI mode: ``site-gen build --strict`` fails on every kind of warning, each printed as
``path:line: warning: message``; without --strict the same warnings print and the build succeeds."""

from __future__ import annotations

import re

import pytest
from conftest import abstract, coauthor_dump, listing_dump

from site_gen.cli import main

DUMP = "content/dumps/a.txt"
LONG_ABSTRACT = ("Reinforcement learning post-training of large language models alternates rollout "
                 "generation and training. We observe that long-tail responses leave accelerators "
                 "idle for most of each step, and propose tail batching, which gathers long responses "
                 "into a few dedicated rounds. On 128 GPUs our system cuts training time by 2.1x.")


def project_files(records: list, curation: str = "", extra: dict[str, str] | None = None) -> dict[str, str]:
    files = {DUMP: listing_dump("Ann Lee", records)}
    if curation:
        files["content/curation.yaml"] = curation
    return files | (extra or {})


CLEAN = [(2024, "A Clean Paper About Rollouts", abstract("rollouts"), ["cs.LG"])]
CASES = {
    "missing-year": (project_files([(None, "A Paper Without Any Year", abstract("years"), ["cs.LG"])]),
                     rf"{DUMP}:9: warning: no year for 'A Paper Without Any Year'"),
    "unknown-subject": (project_files([(2024, "A Paper In A Made Up Field", abstract("x"), ["cs.ZZ"])]),
                        rf"{DUMP}:9: warning: unknown arXiv subject 'cs.ZZ'"),
    "unmatched-curation": (project_files(CLEAN, 'papers:\n  - match: {title: "Nothing Like This"}\n'
                                                "    year: 2020\n"),
                           (r"content/curation.yaml:2: warning: curation entry \(title: 'Nothing Like "
                           r"This'\) matches no paper")),
    "suspected-duplicate": (project_files(CLEAN, extra={"content/dumps/b.txt": coauthor_dump("Ann Lee", [
        ("Bo Wu, Ann Lee", LONG_ABSTRACT), ("Bo Wu, Ann Lee", LONG_ABSTRACT.replace("2.1x", "2.4x"))])}),
                            (r"content/dumps/b.txt:\d+: warning: suspected duplicate of "
                            r"content/dumps/b.txt:3")),
}


@pytest.mark.parametrize("case", CASES)
def test_strict_fails_on_each_warning(make_project, capsys: pytest.CaptureFixture[str], case: str) -> None:
    files, expected = CASES[case]
    project = make_project(files)
    assert main(["build", "--strict", "--project", str(project)]) == 1
    err = capsys.readouterr().err
    assert re.search(expected, err), err
    assert not (project / "_site").exists()
    diagnostics = err.split("site-gen: ")[0].splitlines()
    for line in diagnostics:  # every diagnostic line is path:line: message [code]
        assert re.fullmatch(r"[^:\s]+:\d+: (warning: )?.+ \[[a-z-]+\]", line), line
    assert err.splitlines()[-1].startswith("site-gen: build failed (--strict makes warnings "
                                           "errors)")


@pytest.mark.parametrize("case", CASES)
def test_pasting_the_suggested_acknowledgements_lets_strict_pass(make_project, capsys,
                                                                 case: str) -> None:
    files, _ = CASES[case]
    project = make_project(files)
    assert main(["build", "--strict", "--project", str(project)]) == 1
    err = capsys.readouterr().err
    block = err.split("(the entries only, if it has an acknowledge: list already):\n")[1]
    block = block.rsplit("site-gen: build failed", 1)[0]
    assert block.startswith("acknowledge:\n  - {code: ")
    curation = project / "content/curation.yaml"
    before = curation.read_text() if curation.exists() else ""
    curation.write_text(before + block)
    assert main(["build", "--strict", "--project", str(project)]) == 0, capsys.readouterr().err
    # an acknowledgement is tied to its place: when the dump changes there, it warns again
    named = project / re.search(r'at: "([^":]+)', block)[1]
    named.write_text("\n\n" + named.read_text())
    assert main(["build", "--strict", "--project", str(project)]) == 1
    assert "warning: acknowledge entry settles no warning" in capsys.readouterr().err


@pytest.mark.parametrize("case", CASES)
def test_warnings_print_without_strict(make_project, capsys: pytest.CaptureFixture[str], case: str) -> None:
    files, expected = CASES[case]
    project = make_project(files)
    assert main(["build", "--quiet", "--project", str(project)]) == 0
    assert re.search(expected, capsys.readouterr().err)
    assert (project / "_site" / "index.html").is_file()


def test_curation_year_satisfies_strict(make_project) -> None:
    records = [(None, "A Paper Without Any Year", abstract("years"), ["cs.LG"])]
    curation = 'papers:\n  - match: {title: "A Paper Without Any Year"}\n    year: 2019\n'
    project = make_project(project_files(records, curation))
    assert main(["build", "--strict", "--quiet", "--project", str(project)]) == 0


def test_demo_content_builds_strictly(demo_project, tmp_path) -> None:
    assert main(["build", "--strict", "--quiet", "--project", str(demo_project),
                 "--output", str(tmp_path / "out")]) == 0


def test_bad_site_url_override_is_an_error(make_project, capsys: pytest.CaptureFixture[str]) -> None:
    project = make_project(project_files(CLEAN))
    assert main(["build", "--project", str(project), "--site-url", "ftp://x/"]) == 1
    assert "--site-url: site_url must be an absolute http(s) URL" in capsys.readouterr().err


def test_bad_source_date_epoch_is_a_warning(make_project, monkeypatch, capsys) -> None:
    project = make_project(project_files(CLEAN))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    assert main(["build", "--quiet", "--project", str(project)]) == 0
    assert "SOURCE_DATE_EPOCH: warning: not a whole number" in capsys.readouterr().err


DUPLICATES = CASES["suspected-duplicate"][0]


def _dated(*places: str) -> str:
    """The coauthor dump's records carry no year: curation dates them."""
    return "papers:\n" + "".join(f'  - {{match: {{source: "{p}", abstract: "{_OPENING}"}}, year: 2024}}\n'
                                  for p in places)


_OPENING = "Reinforcement learning post-training"
"""How both suspected duplicates' abstracts open: the anchor of a match by place."""


def _duplicate_places(project, capsys) -> tuple[str, str]:
    assert main(["build", "--project", str(project)]) == 0
    found = re.search(r"(content/dumps/b.txt:\d+): warning: suspected duplicate of "
                      r"(content/dumps/b.txt:\d+): .*list \[\"\2\", \"\1\"\] under merge: if they "
                      r"are one paper, under distinct: if they are two \[duplicate\]",
                      capsys.readouterr().err)
    assert found, "the warning names both records and both remedies"
    return found[2], found[1]


def test_distinct_settles_a_suspected_duplicate(make_project, capsys) -> None:
    project = make_project(DUPLICATES)
    first, second = _duplicate_places(project, capsys)
    (project / "content/curation.yaml").write_text(
        f'distinct:\n  - ["{first}", "{second}"]\n' + _dated(first, second))
    # dated, the two papers' URLs change: a plain build records them in urls.lock first
    assert main(["build", "--quiet", "--project", str(project)]) == 0
    assert main(["build", "--strict", "--project", str(project)]) == 0, capsys.readouterr().err
    papers = (project / "_site/papers.json").read_text()
    assert papers.count('"path":"content/dumps/b.txt"') == 2  # still two papers


def test_merge_makes_two_records_one_paper(make_project, capsys) -> None:
    project = make_project(DUPLICATES)
    first, second = _duplicate_places(project, capsys)
    before = len(list((project / "_site/papers").iterdir()))
    (project / "content/curation.yaml").write_text(
        f'merge:\n  - ["{first}", "{second}"]\n' + _dated(first))
    assert main(["build", "--strict", "--project", str(project)]) == 0, capsys.readouterr().err
    assert len(list((project / "_site/papers").iterdir())) == before - 1
    (project / "content/curation.yaml").write_text('merge:\n  - ["b.txt:3", "b.txt:999"]\n')
    assert main(["build", "--project", str(project)]) == 0
    assert ("content/curation.yaml:2: warning: merge entry names 'b.txt:999', where no record "
            "starts [curation-match]") in capsys.readouterr().err


def test_hiding_one_of_two_suspected_duplicates_settles_the_warning(make_project, capsys) -> None:
    project = make_project(DUPLICATES)
    first, second = _duplicate_places(project, capsys)
    (project / "content/curation.yaml").write_text(
        _dated(first) + f'  - match: {{source: "{second}", abstract: "{_OPENING}"}}\n'
                        '    hide: true\n')
    assert main(["build", "--strict", "--project", str(project)]) == 0, capsys.readouterr().err


def test_a_claimed_count_fails_only_strict_all(make_project, capsys) -> None:
    files = {DUMP: listing_dump("Ann Lee", CLEAN, count="3 records")}
    project = make_project(files)
    assert main(["build", "--strict", "--project", str(project)]) == 0
    assert (f"{DUMP}:7: warning: the dump claims 3 records but holds 1 (shown on the author "
            "page) [claim-count]") in capsys.readouterr().err
    author = (project / "_site/authors/ann-lee/index.html").read_text()
    assert "3 records" in author
    assert main(["build", "--strict=all", "--project", str(project)]) == 1
    with pytest.raises(SystemExit):
        main(["build", "--strict=some"])


def test_an_ambiguous_match_names_the_papers_and_how_to_pick_one(make_project, capsys) -> None:
    long_title = "Scheduling Rollouts For Reinforcement Learning Post-Training Of Language Models"
    records = [(2024, long_title, abstract("rollouts"), ["cs.LG"]),
               (2023, long_title, abstract("schedules"), ["cs.LG"])]
    project = make_project(project_files(records, f'papers:\n  - match: {{title: "{long_title}"}}\n'
                                                  "    year: 2020\n"))
    assert main(["build", "--project", str(project)]) == 0
    err = capsys.readouterr().err
    assert ("matches 2 papers: 'Scheduling Rollouts For Reinforcement Learning Post-Training…' "
            f"({DUMP}:9); 'Scheduling Rollouts For Reinforcement Learning Post-Training…' "
            f"({DUMP}:") in err
    assert 'match one by its record instead: match: {source: "FILE:LINE", title: "..."} [curation-match]' in err
