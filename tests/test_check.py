"""``site-gen check``: a clean site passes; each kind of breakage is named with page and line."""

from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import abstract, build, listing_dump

from site_gen.check import check
from site_gen.cli import main
from site_gen.outputs import sitemap

SITE_URL = "https://example.github.io/site-gen/"  # the demo's site.yaml


@pytest.fixture
def site_copy(demo_site: Path, tmp_path: Path) -> Path:
    """A private copy of the demo site to break."""
    copy = tmp_path / "site"
    shutil.copytree(demo_site, copy)
    return copy


def problems(site: Path, url: str = SITE_URL) -> list[str]:
    return [str(d) for d in check(site, url).diagnostics]


def test_demo_site_is_clean(demo_site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert problems(demo_site) == []
    assert main(["check", str(demo_site)]) == 0
    out = capsys.readouterr().out
    assert f"as {SITE_URL}" in out and "no problems" in out


def insert_into(page: Path, html: str) -> int:
    """Add markup just after <main ...>; returns the line it lands on."""
    text = page.read_text(encoding="utf-8")
    at = text.index('<main id="main" class="wrap">\n') + len('<main id="main" class="wrap">\n')
    page.write_text(text[:at] + html + "\n" + text[at:], encoding="utf-8")
    return text[:at].count("\n") + 1


@pytest.mark.parametrize("html, fragment", [
    pytest.param('<a href="../no-such-page/">x</a>', "broken link '../no-such-page/': no such file "
                 "papers/no-such-page/index.html", id="missing-page"),
    pytest.param('<a href="../../authors/#nowhere">x</a>', "broken fragment '../../authors/#nowhere': "
                 "authors/index.html has no element with id 'nowhere'", id="fragment-elsewhere"),
    pytest.param('<a href="#nowhere">x</a>', "broken fragment '#nowhere'", id="fragment-here"),
    pytest.param('<img src="../../assets/missing.png" alt="">', "broken asset", id="missing-asset"),
    pytest.param('<script src="https://cdn.example.com/x.js"></script>',
                 "loads 'https://cdn.example.com/x.js' from another origin", id="cdn"),
    pytest.param('<a href="/papers/">x</a>', "points outside the site's base path /site-gen/",
                 id="root-absolute"),
    pytest.param('<a href="../../../../">x</a>', "points outside the site's base path", id="climbs-out"),
    pytest.param('<a href="javascript:alert(1)">x</a>', "javascript: URL", id="javascript"),
    pytest.param('<script type="application/ld+json">{"encoding": [{"contentUrl": '
                 f'"{SITE_URL}papers/x/cite.bib"}}]}}</script>',
                 f"broken link '{SITE_URL}papers/x/cite.bib': no such file papers/x/cite.bib",
                 id="jsonld-file"),
])
def test_broken_references_are_named_with_page_and_line(site_copy: Path, html: str, fragment: str) -> None:
    page = next((site_copy / "papers").glob("*/index.html"))
    line = insert_into(page, html)
    found = problems(site_copy)
    rel = page.relative_to(site_copy).as_posix()
    assert len(found) == 1, found
    assert found[0].startswith(f"{rel}:{line}: ") and fragment in found[0], found


def test_external_links_are_fine_but_counted(site_copy: Path) -> None:
    insert_into(site_copy / "index.html", '<a href="https://arxiv.org/abs/2509.21009">paper</a>')
    before = check(site_copy, SITE_URL).external
    assert problems(site_copy) == [] and before >= 1


def test_relative_links_in_404_break_at_depth(site_copy: Path) -> None:
    insert_into(site_copy / "404.html", '<a href="papers/">papers</a>')
    found = problems(site_copy)
    assert len(found) == 1 and found[0].startswith("404.html:")
    assert "when GitHub Pages serves 404.html" in found[0]


def test_feeds_sitemap_json_and_robots_are_checked(site_copy: Path) -> None:
    (site_copy / "feed.xml").write_text("<feed><title>unclosed</feed>")
    sitemap = site_copy / "sitemap.xml"
    sitemap.write_text(sitemap.read_text().replace(f"<loc>{SITE_URL}papers/</loc>", "<loc>papers/</loc>"))
    (site_copy / "papers.json").write_text("{not json")
    (site_copy / "robots.txt").write_text(f"Sitemap: {SITE_URL}missing.xml\n")
    found = "\n".join(problems(site_copy))
    assert "feed.xml:1: not well-formed XML" in found
    assert "sitemap.xml: sitemap URL 'papers/' is not an absolute URL" in found
    assert "papers.json: not valid JSON" in found
    assert "robots.txt:1: broken sitemap URL" in found


def test_symlinks_and_unreadable_files_are_problems(site_copy: Path) -> None:
    os.symlink(site_copy / "index.html", site_copy / "link.html")
    (site_copy / "search.json").chmod(0o600)
    found = problems(site_copy)
    assert any(p.startswith("link.html: is a symlink") for p in found)
    assert any(p.startswith("search.json: file is not readable by everyone") for p in found)


def test_cli_exit_codes_and_format(site_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    insert_into(site_copy / "index.html", '<a href="nowhere/">x</a>')
    assert main(["check", str(site_copy)]) == 1
    captured = capsys.readouterr()
    assert re.fullmatch(r"index\.html:\d+: broken link 'nowhere/': no such file nowhere/index\.html\n",
                        captured.err)
    assert "1 problem" in captured.out
    assert main(["check", str(site_copy / "nothing")]) == 1


def test_site_url_comes_from_the_flag_first(demo_site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(demo_site), "--site-url", "https://example.org/other/"]) == 1
    assert "points outside the site's base path /other/" in capsys.readouterr().err


def test_a_site_at_the_domain_root_is_clean(make_project) -> None:
    project = make_project({"content/dumps/a.txt": listing_dump(
        "Ann Lee", [(2024, "A Paper At The Root", abstract("roots"), ["cs.LG"])])})
    assert build(project, strict=True).ok
    assert problems(project / "_site", "https://example.org/") == []


def test_a_sitemap_past_its_limit_is_split_and_indexed(make_project, monkeypatch) -> None:
    """sitemaps.org allows 50,000 URLs a file: more pages go into sitemap-<n>.xml files that
    sitemap.xml indexes, and check follows the index."""
    monkeypatch.setattr(sitemap, "SITEMAP_LIMIT", 4)
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2020 + i, f"Paper Number {i} On Systems", abstract(f"topic {i}"), ["cs.LG"])
        for i in range(4)])})
    assert build(project).ok
    site = project / "_site"
    pages = sorted(p.relative_to(site).as_posix().removesuffix("index.html")
                   for p in site.rglob("*.html") if p.name != "404.html")
    index = ET.parse(site / "sitemap.xml").getroot()
    ns = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
    assert index.tag == f"{ns}sitemapindex"
    url = "https://example.org/"  # make_project's site_url
    parts = [loc.text.removeprefix(url) for loc in index.iter(f"{ns}loc")]
    assert parts == [f"sitemap-{n}.xml" for n in range(1, -(-len(pages) // 4) + 1)]
    listed = [loc.text.removeprefix(url) for part in parts
              for loc in ET.parse(site / part).getroot().iter(f"{ns}loc")]
    assert sorted(listed) == pages and len(listed) > 8
    assert problems(site, url) == []
