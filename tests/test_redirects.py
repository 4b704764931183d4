"""URLs that last: content/urls.lock records every published paper and author URL, and a page
that moves (a curated title or name) leaves a redirect page behind; curation aliases add more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import abstract, build, listing_dump

from site_gen.catalog.assemble import build_catalog
from site_gen.catalog.merge import abstract_identities
from site_gen.check import check_site
from site_gen.cli import main
from site_gen.incremental.builder import Builder
from site_gen.pipeline import parse_dump
from site_gen.plan.redirects import LOCK_FILE, parse_lock, published
from site_gen.read.curation import load_curation
from site_gen.util.diagnostics import Severity

OLD, NEW = "papers/tail-batching-for-synchronous-rl/", "papers/tail-batching-revisited/"
DUMP = listing_dump("M. Kowalska", [
    (2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"]),
    (2023, "Phase Multiplexing for Rollouts", abstract("multiplexing"), ["cs.DC"])])
RENAME = ("papers:\n  - match: {title: Tail Batching for Synchronous RL}\n"
          "    title: Tail Batching Revisited\n")
SITE = "title: Pubs\nsite_url: https://example.org/pubs/\n"


@pytest.fixture
def project(make_project) -> Path:
    project = make_project({"content/dumps/a.txt": DUMP, "content/site.yaml": SITE})
    assert build(project).ok
    return project


def redirect_of(page: Path) -> str:
    html = page.read_text(encoding="utf-8")
    assert '<meta name="robots" content="noindex">' in html
    start = html.index('http-equiv="refresh" content="0; url=') + len('http-equiv="refresh" content="0; url=')
    return html[start : html.index('"', start)]


def test_a_curated_title_leaves_a_redirect_at_the_old_url(project: Path) -> None:
    lock, _ = parse_lock(LOCK_FILE, (project / "content" / LOCK_FILE).read_bytes())
    assert lock is not None and OLD in lock and "authors/m-kowalska/" in lock
    (project / "content/curation.yaml").write_text(RENAME, encoding="utf-8")
    assert build(project).ok
    site = project / "_site"
    assert redirect_of(site / OLD / "index.html") == "../../" + NEW
    html = (site / OLD / "index.html").read_text(encoding="utf-8")
    assert f'<link rel="canonical" href="https://example.org/pubs/{NEW}">' in html
    assert "Tail Batching Revisited" in (site / NEW / "index.html").read_text(encoding="utf-8")
    assert OLD not in (site / "sitemap.xml").read_text(encoding="utf-8")
    assert NEW in (site / "sitemap.xml").read_text(encoding="utf-8")
    search = json.loads((site / "search.json").read_text(encoding="utf-8"))
    assert [p["url"] for p in search["papers"]].count(OLD) == 0
    assert not list((site / OLD).glob("cite.*"))  # only the page is left behind
    assert check_site(site, "https://example.org/pubs/").ok
    lock, _ = parse_lock(LOCK_FILE, (project / "content" / LOCK_FILE).read_bytes())
    assert lock is not None and OLD in lock and NEW in lock and lock[OLD] == lock[NEW]


def test_renaming_twice_sends_every_old_url_to_the_newest_page(project: Path) -> None:
    curation = project / "content/curation.yaml"
    curation.write_text(RENAME, encoding="utf-8")
    assert build(project).ok
    curation.write_text(RENAME.replace("Revisited", "Once More"), encoding="utf-8")
    assert build(project).ok
    newest = "papers/tail-batching-once-more/"
    assert redirect_of(project / "_site" / OLD / "index.html") == "../../" + newest
    assert redirect_of(project / "_site" / NEW / "index.html") == "../../" + newest


def test_a_curated_name_leaves_a_redirect_at_the_old_author_url(project: Path) -> None:
    (project / "content/curation.yaml").write_text(
        "authors:\n  - name: Maria Kowalska\n    variants: [M. Kowalska]\n", encoding="utf-8")
    assert build(project).ok
    site = project / "_site"
    assert (site / "authors/maria-kowalska/index.html").is_file()
    assert redirect_of(site / "authors/m-kowalska/index.html") == "../../authors/maria-kowalska/"


def test_curation_aliases_answer_old_slugs(project: Path) -> None:
    (project / "content/curation.yaml").write_text(
        "papers:\n  - match: {title: Phase Multiplexing for Rollouts}\n"
        "    aliases: [phase-mux, tail-batching-for-synchronous-rl]\n"
        "authors:\n  - name: M. Kowalska\n    aliases: [kowalska]\n", encoding="utf-8")
    result = build(project)
    assert result.ok
    site = project / "_site"
    assert redirect_of(site / "papers/phase-mux/index.html") == "../../papers/phase-multiplexing-for-rollouts/"
    assert redirect_of(site / "authors/kowalska/index.html") == "../../authors/m-kowalska/"
    assert "Tail Batching for Synchronous RL" in (site / OLD / "index.html").read_text(encoding="utf-8")
    [taken] = [d for d in result.diagnostics if "alias" in d.message]
    assert taken.severity is Severity.WARNING and f"alias {OLD!r}" in taken.message


@pytest.mark.parametrize("aliases", ["[Old Title]", "[../../etc]", "old-slug"])
def test_malformed_aliases_are_located_errors(project: Path, aliases: str) -> None:
    (project / "content/curation.yaml").write_text(
        f"papers:\n  - match: {{title: Phase Multiplexing for Rollouts}}\n    aliases: {aliases}\n",
        encoding="utf-8")
    result = build(project)
    assert not result.ok
    assert [str(d) for d in result.diagnostics] == [
        "content/curation.yaml:3: 'aliases' must be a list of old slugs such as old-title-2024"]


def test_a_malformed_lock_line_is_a_located_error(project: Path) -> None:
    lock = project / "content" / LOCK_FILE
    lock.write_text(lock.read_text(encoding="utf-8") + "../escape/ paper:1\n", encoding="utf-8")
    result = build(project)
    assert not result.ok
    assert any(str(d).startswith(f"content/urls.lock:{len(lock.read_text().splitlines())}: expected")
               for d in result.diagnostics)


def test_builds_record_new_urls_and_say_so(make_project, capsys) -> None:
    project = make_project({"content/dumps/a.txt": DUMP})
    assert main(["build", "--quiet", "--project", str(project)]) == 0
    assert "content/urls.lock: created; commit it" in capsys.readouterr().err
    assert main(["build", "--quiet", "--project", str(project)]) == 0
    assert capsys.readouterr().err == ""  # nothing new: the lock stays as it is
    (project / "content/curation.yaml").write_text(RENAME, encoding="utf-8")
    assert main(["build", "--quiet", "--project", str(project)]) == 0
    assert "content/urls.lock: 1 new URL recorded; commit it" in capsys.readouterr().err


def test_strict_fails_on_urls_the_committed_lock_lacks_and_never_writes_it(make_project) -> None:
    project = make_project({"content/dumps/a.txt": DUMP})
    assert build(project, strict=True).ok  # no lock committed: nothing to keep in step
    assert not (project / "content" / LOCK_FILE).exists()
    assert build(project).ok
    lock = (project / "content" / LOCK_FILE).read_bytes()
    assert build(project, strict=True).ok
    (project / "content/curation.yaml").write_text(RENAME, encoding="utf-8")
    result = build(project, strict=True)
    assert not result.ok and (project / "content" / LOCK_FILE).read_bytes() == lock
    assert [str(d) for d in result.diagnostics] == [
        (f"content/urls.lock: warning: does not record {NEW}: run 'site-gen build' and commit "
        "content/urls.lock, so that they keep answering after a rename [urls-lock]")]
    assert build(project).ok and build(project, strict=True).ok


def test_the_preview_server_answers_a_redirect_page_with_a_redirect(project: Path) -> None:
    from test_serve import Preview
    (project / "content/curation.yaml").write_text(RENAME, encoding="utf-8")
    preview = Preview(project)
    try:
        status, headers, _ = preview.get("/pubs/" + OLD)
        assert status == 302 and headers["Location"] == "/pubs/" + NEW
        status, _, body = preview.get("/pubs/" + NEW)
        assert status == 200 and b"Tail Batching Revisited" in body
    finally:
        preview.close()


def test_check_names_a_redirect_whose_page_is_gone(project: Path) -> None:
    (project / "content/curation.yaml").write_text(RENAME, encoding="utf-8")
    assert build(project).ok
    site = project / "_site"
    for name in (site / NEW).iterdir():
        name.unlink()
    (site / NEW).rmdir()
    problems = [str(d) for d in check_site(site, "https://example.org/pubs/").diagnostics]
    assert (f"{OLD}index.html:6: broken link '../../{NEW}': no such file {NEW}index.html"
            in problems), problems


def test_a_watch_session_keeps_redirects_as_a_clean_build_makes_them(project: Path, tmp_path: Path) -> None:
    builder = Builder(project, keep_spare=True)
    assert builder.build().ok
    (project / "content/curation.yaml").write_text(RENAME, encoding="utf-8")
    result = builder.build()
    assert result.ok and f"{OLD}index.html" in result.written.changed
    assert build(project, tmp_path / "clean").ok
    assert (project / "_site" / OLD / "index.html").read_bytes() == \
        (tmp_path / "clean" / OLD / "index.html").read_bytes()


def test_a_builder_that_lives_on_reads_the_lock_again_once_edited(project: Path) -> None:
    """Watch mode keeps the parsed lock between rebuilds; a hand edit (a malformed line, then
    a URL taken out) is seen by the next rebuild, told of the change or not."""
    builder = Builder(project, keep_spare=True)
    try:
        assert builder.build().ok
        path = project / "content" / LOCK_FILE
        recorded = path.read_text(encoding="utf-8")
        path.write_text(recorded + "not a line of a lock\n", encoding="utf-8")
        failed = builder.build(changed={str(path)})
        assert not failed.ok and any("urls.lock" in str(d) and "expected" in str(d)
                                     for d in failed.diagnostics)
        path.write_text(recorded.replace(f"{OLD} ", f"# {OLD} "), encoding="utf-8")
        assert builder.build().ok  # not told: its size and time differ
        lock, _ = parse_lock(LOCK_FILE, path.read_bytes())
        assert lock is not None and OLD in lock  # recorded again, as it is still published
    finally:
        builder.close()


def test_identities_made_where_dumps_are_parsed_are_the_ones_the_lock_records() -> None:
    """The parse workers make each abstract's identity beside its merge keys; the lock must
    get what it has always recorded (the demo's committed lock), with them or without."""
    content = Path(__file__).resolve().parents[1] / "content"
    parsed = [parse_dump(f"content/dumps/{p.name}", p.read_bytes())
              for p in sorted((content / "dumps").glob("*.txt"))]
    dumps = [dump for dump, _, _ in parsed if dump is not None]
    keys = {dump.path: keyed for dump, _, keyed in parsed if dump is not None}
    curation, _ = load_curation(content, "content/curation.yaml")
    catalog, _ = build_catalog(dumps, curation, keys)
    lock, problems = parse_lock("urls.lock", (content / LOCK_FILE).read_bytes())
    known = abstract_identities(dumps, keys)
    assert not problems and len(known) > 10
    papers = {url: identity for url, identity in lock.items() if url.startswith("papers/")}
    assert {url: published(catalog, known)[url] for url in papers} == papers
    assert {url: published(catalog)[url] for url in papers} == papers
