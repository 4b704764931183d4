"""The cite box in Chromium: each format is made by cite.js, copied and downloaded as a Blob,
and the downloads parse with bibtexparser, rispy and the CSL-JSON schema. Titles and names
carry the characters each format must escape; the files say exactly what the build's own
writers (outputs/citations.py) would have written."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy

from site_gen.incremental.builder import Builder
from site_gen.model import Catalog
from site_gen.outputs.citations import citation_keys
from site_gen.render.citation import csl_item, ris_record
from site_gen.util.text import plain_text

SITE_URL = "https://example.org/lab/"
SCHEMA = json.loads((Path(__file__).parent.parent / "data" / "csl-data.schema.json").read_text())
HOSTILE_TITLE = ('Braces {unbalanced and 100% "quoted" <script>window.__pwned=1</script> '
                 "\\ back $x$ #1 & ~ ^ _ RoLA")
LISTING = f"""arXiv subjects

Ann Lee

Publications and source records attributed to Ann Lee.

2 records

arXiv2024

{HOSTILE_TITLE}

An abstract with {{braces}}, 50% "quotes" and </script> in it, over
two lines.

cs.LG↗

arXiv2023

A Plain Paper

Plain words.

cs.DC↗
"""
COAUTHORS = """Ann Lee

Bo Wu, Ann Lee, Zoë D'Arcy-Núñez et al.

Another abstract, {with} 100% hostility <b>bold</b>.
"""
CURATION = """authors:
  - name: Bo Wu
    display_name: 'Bo "Q" {Wu}% <b>and</b>'
papers:
  - match: {title: "A Plain Paper"}
    links: {arxiv: "https://arxiv.org/abs/2401.01234v2", doi: "https://doi.org/10.1234/ab_c%7Bd"}
"""


@pytest.fixture(scope="module")
def cite_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Catalog]:
    project = tmp_path_factory.mktemp("cite")
    (project / "content/dumps").mkdir(parents=True)
    (project / "content/site.yaml").write_text(f"title: Lab\nsite_url: {SITE_URL}\n")
    (project / "content/dumps/a.txt").write_text(LISTING, encoding="utf-8")
    (project / "content/dumps/b.txt").write_text(COAUTHORS, encoding="utf-8")
    (project / "content/curation.yaml").write_text(CURATION, encoding="utf-8")
    result = Builder(project).build()
    assert result.ok and result.catalog is not None, [str(d) for d in result.diagnostics]
    return project / "_site", result.catalog


def download(page, fmt: str) -> tuple[str, str]:
    """Pick a format, press Download: (the suggested file name, the file's text)."""
    page.locator(f'.cite-formats button[data-format="{fmt}"]').click()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download").click()
    return info.value.suggested_filename, Path(info.value.path()).read_bytes().decode("utf-8")


def download_every_format(page, serve_directory, site: Path, paper_id: str) -> tuple[str, str, str]:
    """The BibTeX, RIS and CSL-JSON a paper page's cite box downloads; no script ran."""
    with serve_directory(site, "/lab/") as base:
        page.goto(f"{base}papers/{paper_id}/")
        texts = tuple(download(page, fmt)[1] for fmt in ("bibtex", "ris", "csl"))
    assert page.evaluate("window.__pwned") is None
    return texts


def test_each_format_downloads_parses_and_is_what_the_build_would_write(
        cite_site, page, serve_directory) -> None:
    site, catalog = cite_site
    keys = citation_keys(catalog)
    assert len(catalog.papers) == 3
    with serve_directory(site, "/lab/") as base:
        for paper in catalog.papers:
            page.goto(f"{base}papers/{paper.id}/")
            key = keys[paper.id]
            name, bib = download(page, "bibtex")
            assert name == f"{key}.bib"
            library = bibtexparser.parse_string(bib)
            assert not library.failed_blocks and [e.key for e in library.entries] == [key]
            assert "abstract" not in library.entries[0].fields_dict
            assert bib == page.locator(".cite-text code").text_content()  # what the page shows
            name, ris = download(page, "ris")
            assert name == f"{key}.ris"
            assert ris == ris_record(paper, catalog, SITE_URL)
            (record,) = rispy.loads(ris)
            assert record["title"] == plain_text(paper.title)
            name, csl = download(page, "csl")
            assert name == f"{key}.json"
            items = json.loads(csl)
            jsonschema.validate(items, SCHEMA)
            assert items == [csl_item(paper, catalog, key, SITE_URL)]
            assert page.locator(".cite-text").inner_text().strip() == csl.strip()
    assert page.evaluate("window.__pwned") is None
    assert page.console_errors == [] and page.failed_requests == []


def test_the_hostile_title_survives_every_format(cite_site, page, serve_directory) -> None:
    site, catalog = cite_site
    (paper,) = [p for p in catalog.papers if p.title.startswith("Braces")]
    bib, ris, csl = download_every_format(page, serve_directory, site, paper.id)
    title = bibtexparser.parse_string(bib).entries[0].fields_dict["title"].value
    assert title.count("{") == title.count("}") and "100\\%" in title and "\\_\\_pwned" in title
    record, (item,) = rispy.loads(ris)[0], json.loads(csl)
    assert record["title"] == item["title"] == plain_text(HOSTILE_TITLE)
    assert '100% "quoted" <script>window.__pwned=1</script>' in item["title"]
    abstract = " ".join(plain_text(paper.abstract).split())
    assert record["abstract"] == item["abstract"] == abstract
    assert '50% "quotes" and </script> in it, over two lines.' in abstract


def test_a_hostile_name_survives_every_format(cite_site, page, serve_directory) -> None:
    site, catalog = cite_site
    (paper,) = [p for p in catalog.papers if "bo-q-wu-b-and-b" in p.author_ids]
    bib, ris, csl = download_every_format(page, serve_directory, site, paper.id)
    authors = bibtexparser.parse_string(bib).entries[0].fields_dict["author"].value
    assert authors.startswith('{Bo "Q" \\textbraceleft{}Wu\\textbraceright{}\\% <b>and</b>} and ')
    assert rispy.loads(ris)[0]["authors"][0] == '<b>and</b>, Bo "Q" {Wu}%'
    assert json.loads(csl)[0]["author"][0] == {"family": "<b>and</b>", "given": 'Bo "Q" {Wu}%'}


def test_copy_says_so_and_the_controls_are_buttons(cite_site, chromium, serve_directory) -> None:
    site, catalog = cite_site
    context = chromium.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        with serve_directory(site, "/lab/") as base:
            page.goto(f"{base}papers/{catalog.papers[0].id}/")
            formats = page.get_by_role("group", name="Citation format")
            assert formats.get_by_role("button", name="BibTeX").get_attribute("aria-pressed") == "true"
            formats.get_by_role("button", name="RIS").click()
            assert formats.get_by_role("button", name="RIS").get_attribute("aria-pressed") == "true"
            assert formats.get_by_role("button", name="BibTeX").get_attribute("aria-pressed") == "false"
            page.get_by_role("button", name="Copy").click()
            status = page.get_by_role("status")
            page.wait_for_function("document.querySelector('.copy-status').textContent !== ''")
            assert status.inner_text() == "Copied RIS."
            copied = page.evaluate("navigator.clipboard.readText()")
            assert copied == page.locator(".cite-text code").text_content()
            assert copied.startswith("TY  - GEN")
    finally:
        context.close()


def test_without_javascript_the_bibtex_is_there_and_the_controls_are_not(
        cite_site, chromium, serve_directory) -> None:
    site, catalog = cite_site
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        with serve_directory(site, "/lab/") as base:
            page.goto(f"{base}papers/{catalog.papers[0].id}/")
            text = page.locator(".cite-text")
            assert text.is_visible() and text.inner_text().startswith("@misc{")
            assert page.locator(".cite-formats").count() == 0  # made by cite.js
            assert page.locator(".cite-actions").count() == 0
            text.click(click_count=3)
            assert page.evaluate("getSelection().toString()").strip()
    finally:
        context.close()
