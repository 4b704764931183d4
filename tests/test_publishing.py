"""Publishing outputs: citations, feeds, sitemap, exports and head metadata, read back with
real parsers (bibtexparser, rispy, a CSL-JSON schema, feedparser, the sitemap XSD)."""

from __future__ import annotations

import json
import os
import re
import stat
import xml.etree.ElementTree as ET
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import bibtexparser
import feedparser
import jsonschema
import pytest
import rispy
import xmlschema
from conftest import abstract, build, coauthor_dump, listing_dump, read_tree
from hypothesis import given, settings
from hypothesis import strategies as st
from pylatexenc.latex2text import LatexNodes2Text

from site_gen.catalog.assemble import build_catalog
from site_gen.model import Catalog
from site_gen.read.curation import Curation
from site_gen.read.dumps import read_dump
from site_gen.util.text import plain_text

DATA = Path(__file__).parent / "data"
SITE_URL = "https://example.github.io/demo-repo/"
HOSTILE = ("</script><script>alert(1)</script> & {Open 100% $\\alpha$ #1 ~x ^y _z "
           "\\ \"q\" 'a' ]]> --> <!-- MoE")
CURATED = "Curated \x01 title\u2028with </SCRIPT> & \"quotes\""


def hostile_files(site_yaml: str = "") -> dict[str, str]:
    listing = listing_dump("Ann Lee", [
        (2024, HOSTILE, abstract("hostile titles"), ["cs.LG", "cs.CL"]),
        (2023, "Tail Batching for Synchronous RL Post-Training", abstract("tail batching"), ["cs.DC"]),
        (2022, "Untouched Paper About Scheduling", abstract("scheduling"), ["cs.DC"]),
    ])
    coauthors = coauthor_dump("Ann Lee", [
        ("Bo Wu, Ludwig van Beethoven, Zoë D'Arcy-Núñez et al.", abstract("tail batching")),
        ("Cy Tan, Ann Lee", abstract("shared prefixes") + " With {unbalanced braces and \\ a backslash."),
    ])
    curation = f"""papers:
  - match: {{title: "Untouched Paper About Scheduling"}}
    title: {json.dumps(CURATED)}
    links: {{arxiv: "https://arxiv.org/abs/2401.01234v2", doi: "https://doi.org/10.1234/ab_c%7Bd"}}
  - match: {{abstract: "We study shared prefixes"}}
    year: 2021
"""
    return {"content/site.yaml": f"title: Hostile <Lab> & Co\nsite_url: {SITE_URL}\ncname: pubs.example.org\n"
                                 + site_yaml,
            "content/dumps/a.txt": listing, "content/dumps/b.txt": coauthors,
            "content/curation.yaml": curation}


@pytest.fixture
def hostile_site(make_project) -> Path:
    project = make_project(hostile_files())
    result = build(project, strict=True)
    assert result.ok, [str(d) for d in result.diagnostics]
    return project / "_site"


@pytest.fixture
def hostile_site_with_files(make_project) -> Path:
    """The hostile site with ``citation_files: true``: each paper's three citation files."""
    project = make_project(hostile_files("citation_files: true\n"))
    result = build(project, strict=True)
    assert result.ok, [str(d) for d in result.diagnostics]
    return project / "_site"


def files_named(site: Path, suffix: str) -> list[Path]:
    return sorted(p for p in site.rglob("*") if p.name.endswith(suffix))


# ---- HTML head ------------------------------------------------------------------------------

class HeadReader(HTMLParser):
    """Collects meta tags, link tags and JSON-LD script bodies."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: list[tuple[str, str]] = []
        self.links: list[dict[str, str]] = []
        self.jsonld: list[str] = []
        self._in_jsonld = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and ("name" in a or "property" in a):
            self.meta.append((a.get("name") or a["property"], a.get("content", "")))
        elif tag == "link":
            self.links.append(a)
        elif tag == "script" and a.get("type") == "application/ld+json":
            self._in_jsonld = True
            self.jsonld.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_jsonld = False

    def handle_data(self, data: str) -> None:
        if self._in_jsonld:
            self.jsonld[-1] += data


def read_head(page: Path) -> HeadReader:
    reader = HeadReader()
    reader.feed(page.read_text(encoding="utf-8"))
    return reader


def paper_pages(site: Path) -> list[Path]:
    return sorted((site / "papers").glob("*/index.html"))


def test_every_demo_paper_page_has_highwire_tags(demo_site: Path) -> None:
    pages = paper_pages(demo_site)
    assert len(pages) == 28
    papers = {p["url"]: p for p in json.loads((demo_site / "papers.json").read_bytes())["papers"]}
    for page in pages:
        head = read_head(page)
        tags = [name for name, _ in head.meta]
        paper = papers[f"https://example.github.io/site-gen/{page.parent.relative_to(demo_site)}/"]
        assert tags.count("citation_title") == 1, page
        authors = [v for n, v in head.meta if n == "citation_author"]
        assert authors and authors == paper["author_names"], page
        assert dict(head.meta)["citation_publication_date"] == str(paper["year"]), page
        assert "citation_abstract" in tags and "og:title" in tags and "twitter:card" in tags
        assert [link["href"] for link in head.links if link.get("rel") == "canonical"] == [paper["url"]]
        data = json.loads(head.jsonld[0])
        assert data["@type"] == "ScholarlyArticle" and data["url"] == paper["url"]


def test_heads_give_scholar_and_reference_managers_what_they_need_and_one_abstract(
        demo_site: Path) -> None:
    """Google Scholar needs citation_title, citation_author and citation_publication_date;
    Zotero's page translators read the same tags, citation_abstract among them. The
    abstract's one machine-readable copy is that tag: JSON-LD and the BibTeX leave it out,
    and the page's descriptions are short excerpts."""
    papers = {p["url"]: p for p in json.loads((demo_site / "papers.json").read_bytes())["papers"]}
    for page in paper_pages(demo_site):
        head = read_head(page)
        meta = dict(head.meta)
        paper = papers[f"https://example.github.io/site-gen/{page.parent.relative_to(demo_site)}/"]
        assert meta["citation_title"] == paper["title_text"]
        assert [v for n, v in head.meta if n == "citation_author"] == paper["author_names"]
        assert meta["citation_publication_date"] == str(paper["year"])
        assert meta["citation_abstract_html_url"] == paper["url"]
        assert meta["citation_abstract"] == " ".join(paper["abstract_text"].split())
        data = json.loads(head.jsonld[0])
        assert data["name"] == paper["title_text"] and data["datePublished"] == str(paper["year"])
        assert [a["name"] for a in data["author"]] and "abstract" not in data and "encoding" not in data
        full = [n for n, v in head.meta if v == meta["citation_abstract"]]
        assert full == ["citation_abstract"] or len(meta["citation_abstract"]) <= 300, full
        assert len(meta["description"]) <= 210 and len(meta["og:description"]) <= 210
        # One copy per reader that needs it: X reads og:title and og:description, the
        # subjects are JSON-LD's about terms, the page's URL is its @id and url.
        assert meta["twitter:card"] == "summary" and not {"twitter:title", "twitter:description"} & meta.keys()
        assert not {"keywords", "mainEntityOfPage", "isPartOf"} & data.keys() and data["@id"] == paper["url"]
        html = page.read_text(encoding="utf-8")
        assert "abstract =" not in shown_bibtex(html)


def test_arxiv_fields_come_from_curated_links(demo_site: Path) -> None:
    head = read_head(next(p for p in paper_pages(demo_site) if "rollpacker" in str(p)))
    meta = dict(head.meta)
    assert meta["citation_arxiv_id"] == "2509.21009"
    assert meta["citation_pdf_url"] == "https://arxiv.org/pdf/2509.21009"
    others = [p for p in paper_pages(demo_site) if "rollpacker" not in str(p) and "combatvla" not in str(p)]
    assert not any(n == "citation_arxiv_id" for p in others for n, _ in read_head(p).meta)


def test_jsonld_round_trips_hostile_titles(hostile_site: Path) -> None:
    raw_pages = {p: p.read_text(encoding="utf-8") for p in hostile_site.rglob("*.html")}
    for page, html in raw_pages.items():
        assert "<script>alert" not in html and "</SCRIPT> &" not in html, page
        for script in read_head(page).jsonld:
            json.loads(script)
    titles = set()
    for page in paper_pages(hostile_site):
        data = json.loads(read_head(page).jsonld[0])
        titles.add(data["name"])
        assert dict(read_head(page).meta)["citation_title"] == data["name"]
    assert plain_text(HOSTILE) in titles
    assert "Curated title with </SCRIPT> & \"quotes\"" in titles  # control and U+2028 dropped


def test_author_and_index_pages_carry_person_and_catalog(hostile_site: Path) -> None:
    author = json.loads(read_head(hostile_site / "authors" / "ann-lee" / "index.html").jsonld[0])
    assert author["@type"] == "ProfilePage" and author["mainEntity"]["@type"] == "Person"
    assert author["mainEntity"]["name"] == "Ann Lee"
    graph = json.loads(read_head(hostile_site / "index.html").jsonld[0])["@graph"]
    assert [g["@type"] for g in graph] == ["WebSite", "DataCatalog"]
    assert graph[0]["name"] == "Hostile <Lab> & Co"
    urls = {d["distribution"]["contentUrl"] for d in graph[1]["dataset"]}
    assert urls == {SITE_URL + "papers.json", SITE_URL + "authors.json"}
    subject = json.loads(read_head(hostile_site / "subjects" / "cs.DC" / "index.html").jsonld[0])
    assert subject["@type"] == "CollectionPage" and len(subject["hasPart"]) == 2


@pytest.mark.parametrize("name", ["Papers", '"hasPart": [] <b>&</b>', HOSTILE])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_list_page_jsonld_is_the_whole_document_made_in_parts(name: str, count: int) -> None:
    """collection_jsonld_html joins memoised items into the text jsonld_html would give the
    whole document, whatever the titles and page name hold (quotes, markup, the splice key)."""
    from site_gen.read.config import Config
    from site_gen.render.metadata import collection_jsonld, collection_jsonld_html, jsonld_html

    titles = [HOSTILE, CURATED, '"hasPart": [] \\u003c & \'x\'']
    catalog = catalog_of(titles[:count])
    site = Config(title="T", site_url=SITE_URL)
    ids = tuple(p.id for p in catalog.papers)
    page = SITE_URL + "papers/"
    for subject in (None, catalog.subjects[0] if catalog.subjects else None):
        whole = jsonld_html(collection_jsonld(name, page, ids, catalog, subject, site))
        assert collection_jsonld_html(name, page, ids, catalog, subject, site) == whole
        assert len(json.loads(whole[len('<script type="application/ld+json">'):-len("</script>")])
                   ["hasPart"]) == count


def catalog_of(titles: list[str]) -> Catalog:
    """A catalog of papers with these titles, read and merged by the real stages."""
    text = listing_dump("Ann Lee", [(2020 + i, t, abstract(f"paper {i}"), ["cs.LG"])
                                    for i, t in enumerate(titles)])
    dump, _ = read_dump("a.txt", text.encode("utf-8"))
    assert dump is not None
    catalog, _ = build_catalog([dump], Curation())
    return catalog


def test_feed_links_in_heads(hostile_site: Path) -> None:
    head = read_head(hostile_site / "authors" / "ann-lee" / "index.html")
    feeds = [link["href"] for link in head.links if link.get("type") == "application/atom+xml"]
    assert feeds == ["../../feed.xml", "../../authors/ann-lee/feed.xml"]
    head = read_head(hostile_site / "404.html")
    assert [link["href"] for link in head.links if link.get("rel") == "alternate"] == ["/demo-repo/feed.xml"]


# ---- citations -------------------------------------------------------------------------------

def parse_bibtex(text: str) -> list:
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == [], [b.error for b in library.failed_blocks]
    return library.entries


def assert_braces_balance(text: str) -> None:
    """As classic BibTeX counts them: every brace, escaped or not."""
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, text
    assert depth == 0, text


def decode_latex(value: str) -> str:
    """BibTeX value -> text, with pylatexenc (which prints \\textasciicircum as U+02C6)."""
    return " ".join(LatexNodes2Text().latex_to_text(value).replace("\u02c6", "^").split())


def typeset(text: str) -> str:
    """What LaTeX prints for plain text: dashes ligate, as they do in the HTML title too."""
    return text.replace("---", "—").replace("--", "–")


def test_bibtex_files_parse_balance_and_round_trip(hostile_site_with_files: Path) -> None:
    bibs = files_named(hostile_site_with_files, ".bib")
    assert len(bibs) == 4 + 5  # four papers (two records merge), five authors
    titles = {}
    for bib in bibs:
        text = bib.read_text(encoding="utf-8")
        assert_braces_balance(text)
        for entry in parse_bibtex(text):
            titles[entry.key] = decode_latex(entry.fields_dict["title"].value)
    assert typeset(plain_text(HOSTILE)) in titles.values()
    assert "Curated title with </SCRIPT> & \"quotes\"" in titles.values()


def test_bibtex_authors_are_honest(hostile_site: Path) -> None:
    entries = {e.key: e for e in parse_bibtex((hostile_site / "authors/ann-lee/papers.bib").read_text())}
    assert len(entries) == 4
    authors = {k: e.fields_dict["author"].value for k, e in entries.items()}
    # Listed authors in order; Ann Lee is on the paper at an unknown position: a note, not a place.
    tail = next(k for k in authors if k.startswith("wu2023"))
    assert authors[tail] == "Bo Wu and Ludwig van Beethoven and Zoë D'Arcy-Núñez and others"
    assert "Ann Lee" in entries[tail].fields_dict["annote"].value
    assert authors[next(k for k in authors if k.startswith("tan2021"))] == "Cy Tan and Ann Lee"
    listing_only = next(k for k in authors if k.startswith("lee2024"))
    assert authors[listing_only] == "Ann Lee and others"
    curated = next(e for e in entries.values() if "eprint" in e.fields_dict)
    assert curated.fields_dict["eprint"].value == "2401.01234"
    assert curated.fields_dict["doi"].value == "10.1234/ab_c{d".replace("{", "%7B")


def test_ris_files_parse(hostile_site_with_files: Path) -> None:
    records = [rispy.loads(p.read_text(encoding="utf-8"))[0]
               for p in files_named(hostile_site_with_files, ".ris")]
    assert len(records) == 4
    by_title = {r["title"]: r for r in records}
    assert plain_text(HOSTILE) in by_title
    tail = next(r for r in records if r["title"].startswith("Tail Batching"))
    assert tail["authors"] == ["Wu, Bo", "van Beethoven, Ludwig", "D'Arcy-Núñez, Zoë"]
    assert "Ann Lee" in tail["notes"][0]


def test_csl_json_validates_against_the_schema(hostile_site_with_files: Path) -> None:
    schema = json.loads((DATA / "csl-data.schema.json").read_text())
    items = []
    for path in files_named(hostile_site_with_files, ".csl.json"):
        document = json.loads(path.read_bytes())
        jsonschema.validate(document, schema)
        items += document
    assert len(items) == 4
    titles = {i["title"] for i in items}
    assert plain_text(HOSTILE) in titles
    curated = next(i for i in items if i.get("number"))
    assert curated["number"] == "arXiv:2401.01234" and curated["DOI"] == "10.1234/ab_c{d"


def shown_bibtex(html: str) -> str:
    """The BibTeX text a paper page's cite box shows."""
    shown = re.search(r'<pre class="cite-text"[^>]*><code>(.*?)</code></pre>', html, re.DOTALL)
    assert shown
    return unescape(shown.group(1))


CITATION_FILES = ("cite.bib", "cite.ris", "cite.csl.json")


def test_paper_page_shows_the_bibtex_and_links_every_written_format(
        hostile_site_with_files: Path) -> None:
    page = next(p for p in paper_pages(hostile_site_with_files) if "tail-batching" in str(p))
    html = page.read_text(encoding="utf-8")
    assert shown_bibtex(html) == (page.parent / "cite.bib").read_text(encoding="utf-8")
    for name in CITATION_FILES:
        assert f'href="../../papers/{page.parent.name}/{name}" download' in html
    encoding = json.loads(read_head(page).jsonld[0])["encoding"]
    assert [e["contentUrl"] for e in encoding] == [
        f"{SITE_URL}papers/{page.parent.name}/{name}" for name in CITATION_FILES]
    assert "cite-actions" not in html and "data-format" not in html  # made by cite.js only


def test_citation_files_are_made_in_the_browser_by_default(hostile_site: Path) -> None:
    """No file per paper; nothing (links, JSON-LD, papers.json) names one; the cite box holds
    the BibTeX entry, without abstract, and the data cite.js makes RIS and CSL-JSON from."""
    assert not [p for name in CITATION_FILES for p in files_named(hostile_site, "/" + name)]
    assert not files_named(hostile_site, ".ris") and not files_named(hostile_site, ".csl.json")
    for page in hostile_site.rglob("*.html"):
        assert "cite.bib" not in page.read_text(encoding="utf-8"), page
    assert all(p["citation"] == {} for p in json.loads((hostile_site / "papers.json").read_bytes())["papers"])
    for page in paper_pages(hostile_site):
        html = page.read_text(encoding="utf-8")
        (entry,) = parse_bibtex(shown_bibtex(html))
        assert "abstract" not in entry.fields_dict and "title" in entry.fields_dict
        data = json.loads(unescape(re.search(
            r'<script type="application/json" class="cite-data">(.*?)</script>', html).group(1)))
        assert data["csl"]["title"] == dict(read_head(page).meta)["citation_title"]
        assert "abstract" not in data["csl"] and "id" not in data["csl"]
    for bib in files_named(hostile_site, "papers.bib"):
        assert all("abstract" not in e.fields_dict for e in parse_bibtex(bib.read_text(encoding="utf-8")))


def test_citation_files_setting_must_be_true_or_false(make_project) -> None:
    result = build(make_project(hostile_files("citation_files: yes please\n")))
    assert [str(d) for d in result.diagnostics if d.severity.name == "ERROR"] == [
        "content/site.yaml:4: citation_files must be true or false, not 'yes please'"]


# ---- feeds, sitemap, robots, exports ------------------------------------------------------------

def test_every_feed_parses_without_errors(hostile_site: Path) -> None:
    feeds = files_named(hostile_site, "feed.xml")
    assert len(feeds) == 1 + 5 + 3  # site, authors, subjects
    for path in feeds:
        parsed = feedparser.parse(path.read_bytes())
        assert parsed.bozo == 0, (path, parsed.get("bozo_exception"))
        assert parsed.version == "atom10" and parsed.entries, path
    site = feedparser.parse((hostile_site / "feed.xml").read_bytes())
    assert plain_text(HOSTILE) in {e.title for e in site.entries}
    assert site.feed.title == "Hostile <Lab> & Co"
    assert all(e.link.startswith(SITE_URL + "papers/") for e in site.entries)


def test_feeds_hold_the_newest_papers_with_their_abstracts(make_project) -> None:
    """20 entries per author and subject feed, 50 in the site feed, newest first; each
    entry's summary is its paper's abstract."""
    papers = [(1960 + i, f"Paper number {i}", abstract(f"topic {i}"), ["cs.LG"]) for i in range(60)]
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", papers)})
    assert build(project).ok
    site = project / "_site"
    for path, count in (("feed.xml", 50), ("authors/ann-lee/feed.xml", 20),
                        ("subjects/cs.LG/feed.xml", 20)):
        feed = feedparser.parse((site / path).read_bytes())
        assert feed.bozo == 0, (path, feed.get("bozo_exception"))
        assert [e.title for e in feed.entries] == [f"Paper number {i}" for i in range(59, 59 - count, -1)]
        assert all(e.summary == " ".join(abstract(e.title.replace("Paper number", "topic")).split())
                   for e in feed.entries)


def test_feed_dates_come_from_years_or_source_date_epoch(make_project, monkeypatch) -> None:
    project = make_project(hostile_files())
    assert build(project).ok
    feed = feedparser.parse((project / "_site" / "feed.xml").read_bytes())
    assert feed.feed.updated == "2024-01-01T00:00:00Z"
    assert [e.updated[:4] for e in feed.entries] == ["2024", "2023", "2022", "2021"]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert build(project).ok
    feed = feedparser.parse((project / "_site" / "feed.xml").read_bytes())
    assert feed.feed.updated == "2023-11-14T22:13:20Z"


def test_sitemap_validates_and_holds_absolute_urls(hostile_site: Path) -> None:
    schema = xmlschema.XMLSchema(str(DATA / "sitemap-0.9.xsd"))
    schema.validate(str(hostile_site / "sitemap.xml"))
    root = ET.parse(hostile_site / "sitemap.xml").getroot()
    locs = [e.text or "" for e in root.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    pages = {str(p.relative_to(hostile_site)) for p in hostile_site.rglob("*.html")} - {"404.html"}
    assert len(locs) == len(pages)
    for loc in locs:
        assert loc.startswith(SITE_URL)
        assert loc[len(SITE_URL):] + "index.html" in pages
    robots = (hostile_site / "robots.txt").read_text()
    assert f"Sitemap: {SITE_URL}sitemap.xml" in robots.splitlines()


def test_data_exports(hostile_site_with_files: Path) -> None:
    hostile_site = hostile_site_with_files
    papers = json.loads((hostile_site / "papers.json").read_bytes())
    authors = json.loads((hostile_site / "authors.json").read_bytes())
    assert papers["version"] == authors["version"] == 1
    assert papers["site"]["url"] == SITE_URL
    assert len(papers["papers"]) == 4 and len(authors["authors"]) == 5
    ids = {a["id"] for a in authors["authors"]}
    for paper in papers["papers"]:
        assert set(paper["authors"] + paper["extra_authors"]) <= ids
        assert set(paper["subjects"]) <= set(papers["subjects"])
        assert len(paper["citation"]) == 3
        for url in paper["citation"].values():
            assert (hostile_site / url[len(SITE_URL):]).is_file()
    assert b"</script" not in (hostile_site / "papers.json").read_bytes().lower()
    assert plain_text(HOSTILE) in {p["title_text"] for p in papers["papers"]}


def test_pages_files_and_permissions(hostile_site: Path) -> None:
    assert (hostile_site / ".nojekyll").read_bytes() == b""
    assert (hostile_site / "CNAME").read_text() == "pubs.example.org\n"
    for path in hostile_site.rglob("*"):
        info = os.lstat(path)
        assert not stat.S_ISLNK(info.st_mode), path
        needed = 0o755 if stat.S_ISDIR(info.st_mode) else 0o644
        assert info.st_mode & needed == needed, path


def test_no_cname_without_setting_and_no_hard_links_after_rebuild(make_project) -> None:
    files = hostile_files()
    files["content/site.yaml"] = f"title: T\nsite_url: {SITE_URL}\n"
    project = make_project(files)
    assert build(project).ok and build(project).ok  # the second build hard-links unchanged files
    site = project / "_site"
    assert not (site / "CNAME").exists()
    assert all(os.lstat(p).st_nlink == 1 for p in site.rglob("*") if p.is_file())


def test_builds_are_byte_identical(make_project, tmp_path: Path) -> None:
    project = make_project(hostile_files())
    assert build(project, tmp_path / "one").ok and build(project, tmp_path / "two").ok
    assert read_tree(tmp_path / "one") == read_tree(tmp_path / "two")


def test_lone_surrogate_in_yaml_is_a_diagnostic_not_a_crash(make_project) -> None:
    files = hostile_files()
    files["content/curation.yaml"] = 'papers:\n  - match: {title: "Tail"}\n    title: "half \\ud800 pair"\n'
    result = build(make_project(files))
    assert not result.ok
    errors = [str(d) for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [e[:30] for e in errors] == ["content/curation.yaml:3: inval"]


@settings(max_examples=200)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)))),
       st.sampled_from([("urlset", "url"), ("sitemapindex", "sitemap")]))
def test_sitemap_text_is_what_elementtree_writes(urls: list[str], kind: tuple[str, str]) -> None:
    """The sitemap is written as text (fast); it must be ElementTree's indented tree."""
    from site_gen.outputs.sitemap import SITEMAP_NS, _xml
    root, item = kind
    tree = ET.Element(root, {"xmlns": SITEMAP_NS})
    for url in urls:
        ET.SubElement(ET.SubElement(tree, item), "loc").text = "https://x.org/" + url
    ET.indent(tree, space=" ")
    expected = b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(tree, "utf-8") + b"\n"
    assert _xml(root, item, urls, "https://x.org/") == expected
