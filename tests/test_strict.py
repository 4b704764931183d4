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
    for line in err.splitlines()[:-1]:  # every diagnostic line is path:line: message
        assert re.fullmatch(r"[^:\s]+:\d+: (warning: )?.+", line), line
    assert err.splitlines()[-1].startswith("site-gen: build failed")


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
