"""Tests for site_gen.subjects and the shipped arXiv category table."""

from importlib.resources import files

import pytest

from site_gen.util.subjects import Category, categories, category, looks_like_category, subject_name

GROUPS = {
    "Computer Science",
    "Economics",
    "Electrical Engineering and Systems Science",
    "Mathematics",
    "Physics",
    "Quantitative Biology",
    "Quantitative Finance",
    "Statistics",
}


def _raw_rows() -> list[list[str]]:
    text = (files("site_gen") / "data" / "arxiv_categories.tsv").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "code\tname\tgroup"
    return [line.split("\t") for line in lines[1:]]


def test_table_shape() -> None:
    rows = _raw_rows()
    assert len(rows) > 150
    assert all(len(row) == 3 and all(field.strip() == field and field for field in row) for row in rows)
    codes = [row[0] for row in rows]
    assert len(codes) == len(set(codes))
    assert len({c.casefold() for c in codes}) == len(codes)
    assert codes == sorted(codes)
    assert {row[2] for row in rows} == GROUPS
    assert len(categories()) == len(rows)
    assert all(looks_like_category(code) for code in codes)


@pytest.mark.parametrize(
    ("code", "name"),
    [
        ("cs.AI", "Artificial Intelligence"),
        ("cs.CL", "Computation and Language"),
        ("cs.CV", "Computer Vision and Pattern Recognition"),
        ("cs.DC", "Distributed, Parallel, and Cluster Computing"),
        ("cs.IR", "Information Retrieval"),
        ("cs.LG", "Machine Learning"),
    ],
)
def test_known_names(code: str, name: str) -> None:
    assert category(code) == Category(code, name, "Computer Science")
    assert subject_name(code) == name


@pytest.mark.parametrize(
    "code",
    ["hep-th", "gr-qc", "math-ph", "math.MP", "stat.TH", "eess.SY", "cs.SY", "math.IT",
     "q-fin.EC", "econ.GN", "cmp-lg", "solv-int", "alg-geom", "bayes-an", "acc-phys"],
)
def test_archives_and_aliases_present(code: str) -> None:
    assert code in categories()
    assert looks_like_category(code)


def test_case_insensitive_lookup() -> None:
    assert category("cs.lg") == category("cs.LG")
    assert subject_name("CS.cv") == "Computer Vision and Pattern Recognition"
    assert subject_name("HEP-TH") == "High Energy Physics - Theory"
    assert category("cs.XX") is None
    assert subject_name("nope") is None


@pytest.mark.parametrize(
    "code", ["cs.LG", "hep-th", "q-bio.NC", "cond-mat.stat-mech", "math-ph", "cs.ZZ", "physics.optics"]
)
def test_looks_like_category_accepts(code: str) -> None:
    assert looks_like_category(code)


@pytest.mark.parametrize(
    "code", ["../etc", "cs.LG<script>", "", "Machine Learning", "cs.LG\n", "cs.", ".LG", "cs.LG.x"]
)
def test_looks_like_category_rejects(code: str) -> None:
    assert not looks_like_category(code)
