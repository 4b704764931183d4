"""The demo site end to end: what README command 1 promises."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import REPO, SEEDS

SUBJECT_NAMES = {
    "cs.AI": "Artificial Intelligence", "cs.CL": "Computation and Language",
    "cs.CV": "Computer Vision and Pattern Recognition",
    "cs.DC": "Distributed, Parallel, and Cluster Computing", "cs.IR": "Information Retrieval",
    "cs.LG": "Machine Learning",
}


class _Page(HTMLParser):
    """Collects the h1 texts, link targets and visible text of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.h1: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self._in_h1 = False
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h1":
            self._in_h1 = True
            self.h1.append("")
        if tag in ("script", "style", "annotation"):
            self._skip += 1
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag == "h1":
            self._in_h1 = False
        if tag in ("script", "style", "annotation"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if self._in_h1:
            self.h1[-1] += data
        if not self._skip:
            self.text.append(data)


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def seed_titles() -> list[str]:
    titles = []
    for seed in SEEDS.iterdir():
        lines = [line.strip() for line in seed.read_text(encoding="utf-8").splitlines() if line.strip()]
        titles += [lines[i + 1] for i, line in enumerate(lines) if re.fullmatch(r"arXiv\d{4}", line)]
    return titles


def test_exactly_28_paper_pages(demo_site: Path) -> None:
    assert len(list(demo_site.glob("papers/*/index.html"))) == 28


def test_profiled_author_pages(demo_site: Path) -> None:
    for slug, name in (("jiamang-wang", "Jiamang Wang"), ("zhenxuan-pan", "Zhenxuan Pan")):
        page = parse(demo_site / "authors" / slug / "index.html")
        assert page.h1 == [name]
    wang = "".join(parse(demo_site / "authors/jiamang-wang/index.html").text)
    assert "21 papers on this site" in " ".join(wang.split())
    assert "at least 19 records" in wang


def test_six_subject_pages_with_full_names(demo_site: Path) -> None:
    pages = sorted(p.parent.name for p in demo_site.glob("subjects/*/index.html"))
    assert pages == sorted(SUBJECT_NAMES)
    for code, name in SUBJECT_NAMES.items():
        assert parse(demo_site / "subjects" / code / "index.html").h1[0].split() == [*name.split(), code]
    index = " ".join(parse(demo_site / "subjects/index.html").text)
    assert all(name in index for name in SUBJECT_NAMES.values())


def test_search_json_lists_28_papers_and_every_author(demo_site: Path) -> None:
    index = json.loads((demo_site / "search.json").read_text(encoding="utf-8"))
    assert index["version"] == 3
    assert len(index["papers"]) == 28
    assert {"Jiamang Wang", "Zhenxuan Pan", "Zihe Liu"} <= {a["name"] for a in index["authors"]}
    assert all((demo_site / p["url"] / "index.html").is_file() for p in index["papers"])


def test_every_seed_title_appears_on_exactly_one_paper_page(demo_site: Path) -> None:
    h1s = [parse(p).h1[0] for p in demo_site.glob("papers/*/index.html")]
    normalise = lambda t: t.replace("--", "–")
    for title in seed_titles():
        assert sum(h == normalise(title) for h in h1s) == 1, title


def test_merged_papers_show_their_coauthors(demo_site: Path) -> None:
    expected = {
        "part-i-tricks-or-traps-a-deep-dive-into-rl-for-llm-reasoning": ["Zihe Liu", "Jiashun Liu", "Yancheng He"],
        "reconstructing-kv-caches-with-cross-layer-fusion-for-enhanced-transformers": ["Hongzhan Lin", "Zhiqi Bai", "Xinmiao Zhang"],
        "recis-sparse-to-dense-a-unified-training-framework-for-recommendation-models": ["Hua Zong", "Qingtao Zeng", "Zhengxiong Zhou"],
    }
    attention = next(p for p in (demo_site / "papers").iterdir() if p.name.startswith("attention-illuminates"))
    expected[attention.name] = ["Yang Li", "Zhichen Dong", "Yuhan Sun"]
    for slug, names in expected.items():
        text = " ".join("".join(parse(demo_site / "papers" / slug / "index.html").text).split())
        assert ", ".join(names) + " et al. (including Jiamang Wang)" in text
        assert "content/dumps/003_f93c594022924f84.txt:" in text


def test_curated_titles_replace_derived_ones(demo_site: Path) -> None:
    h1s = {parse(p).h1[0] for p in demo_site.glob("papers/*/index.html")}
    assert {t for t in h1s if t.startswith(("CombatVLA", "RollPacker", "D-CPT Law"))} == {
        "CombatVLA: An Efficient Vision-Language-Action Model for Combat Tasks in 3D Action Role-Playing Games",
        "RollPacker: Mitigating Long-Tail Rollouts for Fast, Synchronous RL Post-Training",
        "D-CPT Law: Domain-specific Continual Pre-Training Scaling Law for Large Language Models",
    }


def test_each_page_has_one_h1(demo_site: Path) -> None:
    for path in demo_site.rglob("*.html"):
        assert len(parse(path).h1) == 1, path


def test_abstract_latex_and_urls_are_rendered(demo_site: Path) -> None:
    rola = (demo_site / "papers/rola-rotary-positioned-low-rank-linear-attention-for-efficient-diffusion/index.html").read_text()
    assert "<strong>RoLA</strong>" in rola and "<em>outside</em>" in rola
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in rola
    assert "90%" in rola and "\\%" not in rola.split("<annotation")[0]
    for slug, url in (("pcomoe", "https://github.com/gzyyy0/PCoMoE"),
                      ("badiff", "https://github.com/xzhang9308/BADiff"),
                      ("learning-grouped-lattice", "https://github.com/xzhang9308/GLVQ"),
                      ("tad-temporal", "https://github.com/BHmingyang/TAD")):
        page = next(p for p in (demo_site / "papers").iterdir() if p.name.startswith(slug))
        assert f'<a href="{url}" rel="nofollow noopener">' in (page / "index.html").read_text()


@pytest.mark.parametrize("page", ["index.html", "papers/index.html", "authors/index.html",
                                  "subjects/index.html", "search/index.html", "about/index.html",
                                  "authors/zihe-liu/index.html", "404.html"])
def test_other_pages_exist(demo_site: Path, page: str) -> None:
    assert (demo_site / page).is_file()


def test_internal_links_resolve_relative_to_each_page(demo_site: Path) -> None:
    for path in demo_site.rglob("*.html"):
        if path.name == "404.html":
            continue
        for link in parse(path).links:
            if link.startswith(("http://", "https://", "#", "mailto:")):
                continue
            bare = link.split("#")[0].split("?")[0]
            target = (path.parent / bare).resolve()
            if bare.endswith("/"):
                target = target / "index.html"
            assert target.is_file(), f"{path.relative_to(demo_site)} links to missing {link}"
            assert demo_site.resolve() in target.parents


def test_404_links_are_base_path_absolute(demo_site: Path) -> None:
    links = [link for link in parse(demo_site / "404.html").links if not link.startswith(("http", "#"))]
    assert links and all(link.startswith("/site-gen/") for link in links)


def test_files_are_world_readable(demo_site: Path) -> None:
    for path in demo_site.rglob("*"):
        mode = path.stat().st_mode
        assert mode & 0o004, path
        assert not path.is_symlink()
        if path.is_dir():
            assert mode & 0o001, path


def test_scripts_are_minified_and_search_js_keeps_its_compile_hint(demo_site: Path) -> None:
    """The site serves its JavaScript minified, licences kept; search.js's first line still
    asks V8 to compile every function as it loads (a comment anywhere else does nothing)."""
    source = (REPO / "themes/default/static/search.js").read_bytes()
    served = (demo_site / "assets/search.js").read_bytes()
    assert served.startswith(b"//# allFunctionsCalledOnLoad\n")
    assert b"/*! The stemmer is a port of Snowball" in served
    assert b"\n//" not in served  # no other line comment survives
    assert len(served) < 0.7 * len(source)
