"""Incremental rebuilds: after every kind of edit, a Builder kept alive writes exactly the bytes
a clean build writes, reports exactly the files whose bytes changed, and re-renders little."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import abstract, build, coauthor_dump, listing_dump, read_tree

from site_gen.incremental.builder import Builder
from site_gen.pipeline import BuildResult
from site_gen.write.tree import MARKER

ANN = [(2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"]),
       (2023, "Phase Multiplexing for Rollouts", abstract("multiplexing"), ["cs.DC"]),
       (2022, "Elastic Caches for Long Contexts", abstract("caches"), ["cs.LG", "cs.DC"])]
BO = [("Bo Wu, Ann Lee, Cy Tan", abstract("multiplexing")),
      ("Bo Wu, Dee Park", abstract("a new topic of Bo's") + " It is about graphs.")]


def write(project: Path, name: str, text: str) -> None:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / name
    text = path.read_text(encoding="utf-8")
    assert old in text, (name, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


Step = tuple[str, Callable[[Path], None]]
STEPS: list[Step] = [
    ("add a paper", lambda p: write(p, "content/dumps/a.txt", listing_dump("Ann Lee", ANN + [
        (2025, "Speculative Rollouts at Scale", abstract("speculation"), ["cs.LG"])]))),
    ("write citation files", lambda p: write(p, "content/site.yaml",
                                             "title: Test site\nsite_url: https://example.org/\n"
                                             "citation_files: true\n")),
    ("split the lists into pages of two", lambda p: write(p, "content/site.yaml", "page_size: 2\n")),
    ("add a paper to a paged list", lambda p: write(p, "content/dumps/a.txt", listing_dump(
        "Ann Lee", ANN + [(2025, "Speculative Rollouts at Scale", abstract("speculation"), ["cs.LG"]),
                          (2021, "Older Rollouts", abstract("rollouts"), ["cs.LG", "cs.DC"])]))),
    ("edit an abstract", lambda p: edit(p, "content/dumps/a.txt", "We present a scheduler for caches",
                                        "We present a new scheduler for caches")),
    ("edit a title", lambda p: edit(p, "content/dumps/a.txt", "Elastic Caches", "Elastic KV Caches")),
    ("change a dump's count line alone", lambda p: edit(p, "content/dumps/a.txt", "5 records",
                                                        "At least 6 records")),
    ("change a year", lambda p: edit(p, "content/dumps/a.txt", "arXiv2023", "arXiv2021")),
    ("add a co-author dump", lambda p: write(p, "content/dumps/b.txt", coauthor_dump("Bo Wu", BO))),
    ("add a subject", lambda p: edit(p, "content/dumps/a.txt", "cs.DC↗", "cs.DC↗\n\ncs.AI↗")),
    ("curate a title", lambda p: write(p, "content/curation.yaml",
                                       "papers:\n  - match: {title: Speculative Rollouts at Scale}\n"
                                       "    title: Speculative Rollouts, at Scale\n")),
    ("alias an old slug", lambda p: write(p, "content/curation.yaml",
                                          "papers:\n  - match: {title: Speculative Rollouts at Scale}\n"
                                          "    title: Speculative Rollouts, at Scale\n"
                                          "    aliases: [spec-rollouts]\n")),
    ("forget the published URLs", lambda p: (p / "content/urls.lock").unlink()),
    ("hide a paper", lambda p: write(p, "content/curation.yaml",
                                     "papers:\n  - match: {title: Speculative Rollouts at Scale}\n"
                                     "    hide: true\n")),
    ("add a page", lambda p: write(p, "content/pages/about.md", "---\ntitle: About\n---\nHello.\n")),
    ("edit the page", lambda p: edit(p, "content/pages/about.md", "Hello.", "Hello, world.")),
    ("add a hidden page", lambda p: write(p, "content/pages/notes.md",
                                          "---\ntitle: Notes\nnav: false\n---\nSome notes.\n")),
    ("show a file beside a page", lambda p: [write(p, "content/pages/img/plot.png", "PNG 1\n"),
                                            edit(p, "content/pages/notes.md", "Some notes.",
                                                 "Some notes, $x^2$. ![A plot](img/plot.png)")]),
    ("edit the file beside the page", lambda p: write(p, "content/pages/img/plot.png",
                                                      "PNG 2\n")),
    ("add a dump in a subfolder", lambda p: write(p, "content/dumps/2024/b2.txt",
                                                  coauthor_dump("Cy Xu", BO))),
    ("acknowledge a warning", lambda p: write(p, "content/curation.yaml",
                                              "acknowledge:\n  - {code: no-year, at: \"b2.txt:3\"}\n")),
    ("override a template", lambda p: write(p, "templates/page.html",
                                            '{% extends "!theme/page.html" %}'
                                            "{% block title %}Page: {{ page.title }}{% endblock %}")),
    ("override a partial", lambda p: write(p, "templates/partials/macros.html",
                                           '{% extends "!theme/partials/macros.html" %}')),
    ("add a static file", lambda p: write(p, "static/notes.txt", "static notes\n")),
    ("shadow a theme static file", lambda p: write(p, "static/site.css", "body { color: red }\n")),
    ("remove the overrides", lambda p: [shutil.rmtree(p / d) for d in ("templates", "static")]),
    ("change the config", lambda p: write(p, "content/site.yaml",
                                          "title: Renamed\nsite_url: https://example.org/x/\n"
                                          "page_size: 1\n")),
    ("delete a dump", lambda p: (p / "content/dumps/b.txt").unlink()),
    ("delete a page", lambda p: (p / "content/pages/notes.md").unlink()),
    ("rename a dump", lambda p: (p / "content/dumps/a.txt").rename(p / "content/dumps/c.txt")),
]


def diff(before: dict[str, bytes], after: dict[str, bytes]) -> tuple[set[str], set[str]]:
    """(files whose bytes are new or different, files that went)."""
    return ({n for n, data in after.items() if before.get(n) != data}, before.keys() - after.keys())


def test_every_edit_rebuilds_to_the_clean_build_bytes(make_project, tmp_path: Path) -> None:
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    builder = Builder(project, keep_spare=True)
    assert builder.build().ok
    for n, (what, change) in enumerate(STEPS):
        before = read_tree(project / "_site")
        change(project)
        result = builder.build()
        assert result.ok, (what, [str(d) for d in result.diagnostics])
        clean = tmp_path / f"clean{n}"
        assert build(project, clean).ok
        after = read_tree(project / "_site")
        assert after == read_tree(clean), what
        changed, removed = diff(before, after)
        assert set(result.written.changed) == changed - {MARKER}, what
        assert set(result.written.removed) == removed, what


def rebuild(builder: Builder, change: Callable[[], None]) -> BuildResult:
    change()
    result = builder.build()
    assert result.ok, [str(d) for d in result.diagnostics]
    return result


@pytest.fixture
def site(make_project) -> Builder:
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN),
                            "content/dumps/b.txt": coauthor_dump("Bo Wu", BO),
                            "content/pages/about.md": "---\ntitle: About\nnav: false\n---\nHi.\n"})
    builder = Builder(project, keep_spare=True)
    first = builder.build()
    assert first.ok and first.rendered == first.pages
    return builder


def test_nothing_changed_renders_nothing(site: Builder) -> None:
    result = site.build()
    assert result.rendered == 0 and result.reread == ()
    assert result.written.changed == () and result.written.removed == ()


def test_a_dump_edit_rereads_only_that_dump(site: Builder) -> None:
    result = rebuild(site, lambda: edit(site.project, "content/dumps/b.txt", "about graphs",
                                        "about trees"))
    assert result.reread == ("content/dumps/b.txt",)
    assert 0 < result.rendered < result.pages // 2


def test_a_template_change_renders_the_pages_that_use_it(site: Builder) -> None:
    result = rebuild(site, lambda: write(site.project, "templates/page.html",
                                         '{% extends "!theme/page.html" %}'
                                         "{% block title %}P {{ page.title }}{% endblock %}"))
    assert result.rendered == 1 and result.written.changed == ("about/index.html",)


def test_files_beside_the_pages_are_kept_when_the_catalog_did_not_change(site: Builder,
                                                                          monkeypatch) -> None:
    import site_gen.incremental.builder as build_module

    def unexpected(*args: object) -> None:
        raise AssertionError("search index, feeds, citations and exports made again")

    monkeypatch.setattr(build_module, "kept_site_file_stream", unexpected)
    monkeypatch.setattr(build_module, "kept_bibtex_entries", unexpected)
    result = rebuild(site, lambda: write(site.project, "templates/page.html",
                                         '{% extends "!theme/page.html" %}'))
    assert result.ok and "search.json" in read_tree(site.output)


def made_and_carried(monkeypatch) -> tuple[list[str], list[str]]:
    """The names of the files beside the pages the next builds make, and of those they carry
    over from the output (``incremental.pieces.Carried``)."""
    import site_gen.incremental.builder as build_module
    from site_gen.incremental.pieces import Carried

    made: list[str] = []
    carried: list[str] = []
    stream = build_module.kept_site_file_stream

    def watched(*args, **kwargs):
        for item in stream(*args, **kwargs):
            if isinstance(item, Carried):
                carried.extend(item.names)
            else:
                made.append(item[0])
            yield item

    monkeypatch.setattr(build_module, "kept_site_file_stream", watched)
    return made, carried


def test_an_edit_makes_again_only_the_search_results_citations_and_feeds_it_changed(
        site: Builder, monkeypatch, tmp_path: Path) -> None:
    rebuild(site, lambda: write(site.project, "content/site.yaml", "title: Test site\n"
                                "site_url: https://example.org/\ncitation_files: true\n"))
    made, carried = made_and_carried(monkeypatch)
    rebuild(site, lambda: edit(site.project, "content/dumps/a.txt",
                               "We present a scheduler for caches", "We present a new scheduler for caches"))
    is_fragments = re.compile("search/index/[da]/").match
    index = site.output / "search/index"
    files = len([*(index / "d").iterdir(), *(index / "a").iterdir()])  # numbers leave gaps
    made_fragments = list(filter(is_fragments, made))  # the file that holds the paper
    assert len(made_fragments) == 1 and len(list(filter(is_fragments, carried))) == files - 1
    citations = [n for n in made if n.endswith(("/cite.bib", "/cite.ris", "/cite.csl.json"))]
    assert sorted(citations) == [f"papers/elastic-caches-for-long-contexts/{name}"
                                 for name in ("cite.bib", "cite.csl.json", "cite.ris")]
    assert sorted(n for n in made if n.endswith("/papers.bib")) == ["authors/ann-lee/papers.bib"]
    assert len([n for n in carried if n.endswith("/cite.ris")]) == len(site.memory.catalog.papers) - 1
    assert "authors/bo-wu/papers.bib" in carried
    assert sorted(n for n in made if n.endswith("feed.xml")) == [
        "authors/ann-lee/feed.xml", "feed.xml", "subjects/cs.DC/feed.xml", "subjects/cs.LG/feed.xml"]
    assert "authors/bo-wu/feed.xml" in carried
    assert not set(made) & set(carried)
    assert build(site.project, tmp_path / "clean").ok
    assert read_tree(site.output) == read_tree(tmp_path / "clean")


@pytest.mark.parametrize("undo_the_edit", [False, True])
def test_a_build_that_failed_after_making_the_files_does_not_mislead_the_next(
        site: Builder, monkeypatch, tmp_path: Path, undo_the_edit: bool) -> None:
    """The pieces a failed build made describe no site on disk: the next build carries over
    nothing on their word."""
    made, _ = made_and_carried(monkeypatch)
    edit(site.project, "content/dumps/a.txt", "arXiv2023", "arXiv2021")  # moves a paper down
    write(site.project, "templates/paper.html", "{{ no_such_variable.attribute }}")
    failed = site.build()
    assert not failed.ok and any("search/index/" in name for name in made)
    (site.project / "templates/paper.html").unlink()
    if undo_the_edit:
        edit(site.project, "content/dumps/a.txt", "arXiv2021", "arXiv2023")
    assert rebuild(site, lambda: None).ok
    assert build(site.project, tmp_path / "clean").ok
    assert read_tree(site.output) == read_tree(tmp_path / "clean")


def test_a_static_change_copies_only_that_file(site: Builder) -> None:
    result = rebuild(site, lambda: write(site.project, "static/extra.txt", "hello\n"))
    assert result.rendered == 0 and result.written.changed == ("assets/extra.txt",)
    result = rebuild(site, lambda: write(site.project, "static/extra.txt", "hello again\n"))
    assert result.rendered == 0 and result.written.changed == ("assets/extra.txt",)


def test_a_changed_stylesheet_renders_the_pages_that_link_it(site: Builder) -> None:
    result = rebuild(site, lambda: write(site.project, "static/site.css", "body{}\n"))
    assert result.rendered == result.pages  # every page links site.css?v=<its hash>
    assert "assets/site.css" in result.written.changed


def test_output_replaced_behind_its_back_is_rebuilt_whole(site: Builder, tmp_path: Path) -> None:
    other = Builder(site.project)  # say, `site-gen build` in another terminal
    edit(site.project, "content/dumps/b.txt", "about graphs", "about lattices")
    assert other.build().ok
    edit(site.project, "content/dumps/b.txt", "about lattices", "about rings")
    result = site.build()
    assert result.ok and result.rendered == result.pages
    assert build(site.project, tmp_path / "clean").ok
    assert read_tree(site.output) == read_tree(tmp_path / "clean")


def test_a_failed_build_keeps_the_site_and_the_next_one_recovers(site: Builder, tmp_path) -> None:
    good = read_tree(site.output)
    write(site.project, "content/dumps/b.txt", "Dear editor,\n\nthis is a letter.\n")
    failed = site.build()
    assert not failed.ok and read_tree(site.output) == good
    result = rebuild(site, lambda: write(site.project, "content/dumps/b.txt",
                                         coauthor_dump("Bo Wu", BO[:1])))
    assert build(site.project, tmp_path / "clean").ok
    assert read_tree(site.output) == read_tree(tmp_path / "clean")
    assert result.written.removed  # Bo's second paper is gone


def test_watch_session_leaves_no_spare_behind(site: Builder) -> None:
    rebuild(site, lambda: edit(site.project, "content/dumps/b.txt", "about graphs", "about sets"))
    assert (site.project / "._site.staging").is_dir()  # the spare, kept while watching
    site.close()
    assert sorted(p.name for p in site.project.iterdir()) == ["_site", "content"]



def test_a_page_that_iterated_a_collection_is_stale_on_any_change() -> None:
    from site_gen.render.engine import frozen_lookups, stale_marks

    def is_stale(lookups: frozenset[tuple[str, str]], changes: frozenset[tuple[str, str]] | None
                 ) -> bool:
        return changes is None or not stale_marks(changes).isdisjoint(lookups)

    listed = frozen_lookups({("paper", "a"), ("*", "bibtex")})
    plain = frozen_lookups({("paper", "a"), ("author", "b")})
    assert is_stale(listed, frozenset({("author", "zzz")}))
    assert not is_stale(plain, frozenset({("author", "zzz")}))
    assert is_stale(plain, frozenset({("author", "b")}))
    assert not is_stale(listed, frozenset()) and is_stale(plain, None)
    assert frozen_lookups(set(listed)) == listed  # marking twice changes nothing


def test_list_items_outlive_other_edits_and_the_least_recently_used_go_first() -> None:
    """A site of 10 pages and 40 items, then many edits that each use a few items and make
    new ones (a paper's item as it was before the edit stays, for an undo): the site's items
    are all still there while the memo holds fewer than ``ITEMS_PER_PAGE`` a page; past that,
    the items used least recently go first, and the memo stays at its bound."""
    from markupsafe import Markup

    from site_gen.incremental.fragments import ITEMS_PER_PAGE, FragmentMemo

    def item(n: int) -> tuple[object, ...]:
        return ("item", 1, (("n", n),))

    def use(memo: FragmentMemo, n: int) -> None:
        if memo.get(item(n)) is None:
            memo.current[item(n)] = (Markup(f"<li>{n}</li>"), frozenset())

    pages, bound = 10, ITEMS_PER_PAGE * 10
    memo = FragmentMemo()
    memo.trim(pages)  # the full build renders the site
    for n in range(40):
        use(memo, n)
    for n in range(1000, 1000 + bound - 40):  # edits: item 0 used again, a new one made
        memo.trim(pages)
        use(memo, 0)
        use(memo, n)
    memo.trim(pages)
    assert len(memo.current) == bound and all(memo.get(item(n)) for n in range(40))
    for n in range(2000, 2010):  # ten more new items: the ten used least recently go
        memo.trim(pages)
        use(memo, n)
    memo.trim(pages)
    assert len(memo.current) == bound
    assert memo.get(item(1000)) is None and memo.get(item(1009)) is None
    assert memo.get(item(1010)) is not None and all(memo.get(item(n)) for n in range(40))


def test_a_list_of_papers_read_on_a_page_is_noted_and_its_changes_reported() -> None:
    """An author whose paper list alone changed changes ("author-papers", id), not what pages
    that show the author read; a page that reads a list notes it (model.py)."""
    from site_gen.incremental.cache import intern_catalog
    from site_gen.model import Author, Catalog, Subject, noting_reads
    from site_gen.render.engine import TrackedCatalog

    ann = Author("ann", "Ann", ("p1",))
    lab = Subject("cs.LG", "Machine Learning", "Computer Science", True, ("p1",))
    old = Catalog((), (ann,), (lab,))
    new = Catalog((), (Author("ann", "Ann", ("p1", "p2")),), (lab,))
    interned, changes = intern_catalog(new, old)
    assert changes == {("author-papers", "ann"), ("authors", "")}
    assert interned.authors[0].members == ("p1", "p2") and interned.subjects[0] is lab
    tracked = TrackedCatalog(interned)
    with noting_reads(tracked.note):
        assert interned.author("ann").name == "Ann" and not tracked.lookups
        assert len(lab.paper_ids) == 1
    assert tracked.lookups == {("subject-papers", "cs.LG")}
    assert lab.paper_ids == ("p1",) and tracked.lookups == {("subject-papers", "cs.LG")}  # off


def test_an_abstract_edit_renders_only_the_pages_that_show_the_abstract(site: Builder,
                                                                           tmp_path: Path) -> None:
    """The papers index, the subject pages, its authors' pages and the related lists hold the
    edited paper, but the default theme shows its abstract only on its own page."""
    result = rebuild(site, lambda: edit(site.project, "content/dumps/a.txt",
                                        "We present a scheduler for caches",
                                        "We present a new scheduler for caches"))
    pages = sorted(name for name in result.written.changed if name.endswith(".html"))
    assert result.rendered == 1 and pages == ["papers/elastic-caches-for-long-contexts/index.html"]
    assert not [name for name in result.written.changed if name.endswith(".bib")]
    assert build(site.project, tmp_path / "clean").ok
    assert read_tree(site.output) == read_tree(tmp_path / "clean")


def test_a_record_count_change_renders_only_the_pages_that_show_the_profile(
        site: Builder, tmp_path: Path) -> None:
    """A dump's count line is shown on its owner's page (and in the authors export), not on
    the pages that merely name the owner (model.Author.profiles)."""
    result = rebuild(site, lambda: edit(site.project, "content/dumps/a.txt", "3 records",
                                        "At least 4 records"))
    pages = sorted(name for name in result.written.changed if name.endswith(".html"))
    assert result.rendered == 1 and pages == ["authors/ann-lee/index.html"]
    assert "authors.json" in result.written.changed
    assert build(site.project, tmp_path / "clean").ok
    assert read_tree(site.output) == read_tree(tmp_path / "clean")


def test_a_navigation_page_edit_renders_that_page_and_those_that_show_its_text(
        make_project, tmp_path: Path) -> None:
    """Every page links a navigation page by its title; only the page itself shows its text,
    unless a theme shows it elsewhere (its reads are noted, render/engine.py's TrackedPage)."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN),
                            "content/pages/about.md": "---\ntitle: About\n---\nHi.\n"})
    builder = Builder(project, keep_spare=True)
    assert builder.build().ok
    result = rebuild(builder, lambda: edit(project, "content/pages/about.md", "Hi.", "Hello."))
    assert result.rendered == 1 and result.written.changed == ("about/index.html",)
    write(project, "templates/base.html", '{% extends "!theme/base.html" %}{% block scripts %}'
          "{% for p in nav_pages %}{{ p.body }}{% endfor %}{% endblock %}")
    assert builder.build().ok
    result = rebuild(builder, lambda: edit(project, "content/pages/about.md", "Hello.", "Hey."))
    assert result.rendered > 1 and "index.html" in result.written.changed
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")


def watched_with_templates(make_project, templates: dict[str, str]) -> tuple[Path, Builder]:
    """Ann Lee's dump with these template overrides, built by a Builder that rebuilds."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN),
                            **{f"templates/{name}": text for name, text in templates.items()}})
    builder = Builder(project, keep_spare=True)
    assert builder.build().ok
    return project, builder


def test_a_theme_that_lists_abstracts_renders_its_lists_again(make_project, tmp_path: Path) -> None:
    """A template override reading the abstracts in every list: each page it reads them on is
    rendered again after an abstract edit (the reads are noted, model.py), and its fragments
    too, as a clean build renders them."""
    project, builder = watched_with_templates(make_project, {
        "partials/paper_item.html": '<li>{{ paper.title }}: {{ paper.abstract }}</li>',
        "subject.html": '{% extends "!theme/subject.html" %}{% block title %}'
                        '{% for id in subject.paper_ids %}'
                        '{{ catalog.paper(id).abstract|length }} {% endfor %}'
                        '{% endblock %}',
    })
    result = rebuild(builder, lambda: edit(project, "content/dumps/a.txt",
                                           "We present a scheduler for caches",
                                           "We present a new scheduler for caches"))
    pages = {name for name in result.written.changed if name.endswith(".html")}
    assert {"papers/index.html", "subjects/cs.LG/index.html", "subjects/cs.DC/index.html",
            "authors/ann-lee/index.html"} <= pages
    assert len(pages) == result.rendered
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")


def test_an_abstract_read_on_a_page_is_noted_and_its_edit_reported_apart() -> None:
    """An abstract edit changes ("paper-abstract", id), not ("paper", id); reading
    ``paper.abstract`` notes it while watched, and ``repr`` does not read it (model.py)."""
    from dataclasses import replace

    from site_gen.incremental.cache import intern_catalog
    from site_gen.model import Catalog, Paper, noting_reads

    old = Paper("p1", "Title", "dump", 2024, ("cs.LG",), "An abstract.", ("ann",), (), False,
                True, ())
    interned, changes = intern_catalog(Catalog((replace(old, abstract_text="Edited."),), (), ()),
                                       Catalog((old,), (), ()))
    assert changes == {("paper-abstract", "p1"), ("papers", "")}
    assert interned.papers[0].abstract == "Edited."
    _, changes = intern_catalog(Catalog((replace(old, title="New", abstract_text="E."),), (), ()),
                                Catalog((old,), (), ()))
    assert changes == {("paper", "p1"), ("paper-abstract", "p1"), ("papers", "")}
    noted: list[tuple[str, str]] = []
    with noting_reads(lambda kind, key: noted.append((kind, key))):
        assert "An abstract" not in repr(old) and old.title == "Title" and not noted
        assert old.abstract == "An abstract." and noted == [("paper-abstract", "p1")]
    assert old.abstract and len(noted) == 1


def test_an_abstract_edit_writes_one_fragment_file_of_many(make_project, monkeypatch,
                                                           tmp_path: Path) -> None:
    """Fragments come several papers to a file: an edit writes the file of its paper and
    carries the others over, and the term shards it writes are those of the words it changed."""
    topics = [f"topic{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(40)]
    records = [(2020 + i % 5, f"Paper on {t}", abstract(t), ["cs.LG"]) for i, t in enumerate(topics)]
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", records)})
    builder = Builder(project, keep_spare=True)
    assert builder.build().ok
    made, carried = made_and_carried(monkeypatch)
    rebuild(builder, lambda: edit(project, "content/dumps/a.txt", "We present a scheduler for topicab",
                                  "We present a quantizer for topicab"))
    is_fragments = re.compile("search/index/[da]/").match
    assert len(list(filter(is_fragments, made))) == 1
    index = builder.output / "search/index"
    files = len([*(index / "d").iterdir(), *(index / "a").iterdir()])  # 40 papers, 1 author
    assert files > 2 and len(list(filter(is_fragments, carried))) == files - 1
    shards = [n for n in made if n.startswith("search/index/t/")]
    assert 1 <= len(shards) <= 2  # "quantiz" in, "schedul" out
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")


def test_a_theme_that_shows_record_counts_in_a_list_shows_the_new_count(make_project,
                                                                         tmp_path: Path) -> None:
    """A dump gains a record of a paper it already lists: its owner's papers stay the same,
    its record count does not. A list page reused whole (its route equal to the last one)
    would hold the owner as it was, and an override that shows the count showed the old
    one (model.py: equality leaves an author's profiles out)."""
    project, builder = watched_with_templates(make_project, {
        "authors.html": '{% extends "!theme/authors.html" %}{% block title %}'
                        '{% for a in profiled %}{{ a.name }} '
                        '{{ a.profiles|map(attribute="records")|sum }} {% endfor %}'
                        '{% endblock %}',
    })
    again = listing_dump("Ann Lee", ANN + ANN[:1])
    result = rebuild(builder, lambda: write(project, "content/dumps/a.txt", again))
    assert result.ok and "authors/index.html" in result.written.changed
    assert f"Ann Lee {len(ANN) + 1} " in (project / "_site/authors/index.html").read_text()
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")
