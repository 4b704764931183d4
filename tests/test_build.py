"""Builds as a whole: determinism, atomic failure, stale files, output safety, CLI."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, abstract, build, coauthor_dump, listing_dump, read_tree

import site_gen.incremental.builder as build_module
from site_gen.cli import main
from site_gen.incremental.builder import Builder
from site_gen.model import Dump
from site_gen.render import engine
from site_gen.util.text import esc
from site_gen.write.tree import MARKER, Staging

GOOD = {"content/dumps/a.txt": listing_dump("Ann Lee", [
    (2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"]),
    (2023, "Phase Multiplexing for Rollouts", abstract("multiplexing"), ["cs.DC"])])}


def test_two_builds_are_byte_identical(demo_project: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    assert build(demo_project, first).ok and build(demo_project, second).ok
    assert read_tree(first) == read_tree(second)


def test_rebuild_into_same_output_changes_nothing(make_project) -> None:
    project = make_project(GOOD)
    assert build(project).ok
    again = build(project)
    assert again.written is not None
    assert again.written.changed == () and again.written.removed == ()


def test_malformed_dump_leaves_previous_output_untouched(make_project) -> None:
    project = make_project(GOOD)
    assert build(project).ok
    before = read_tree(project / "_site")
    (project / "content/dumps/b.txt").write_text("arXiv subjects\n\nBo Wu\n\n1 record\n\narXiv2024\n\n"
                                                 "Title\n\nAbstract text here.\n\ncs.LG↗\n\nStray text.\n")
    result = build(project)
    assert not result.ok
    assert [str(d) for d in result.diagnostics if d.severity.name == "ERROR"] == [
        "content/dumps/b.txt:15: text after the subject lines; is this record's 'arXiv<year>' line missing?"]
    assert read_tree(project / "_site") == before
    assert not any(p.name.startswith(".") and p.name != "content" for p in project.iterdir())


def test_stale_files_are_removed(make_project) -> None:
    project = make_project(GOOD)
    assert build(project).ok
    assert (project / "_site/papers/phase-multiplexing-for-rollouts/index.html").is_file()
    (project / "content/dumps/a.txt").write_text(listing_dump("Ann Lee", [
        (2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG"])]))
    result = build(project)
    assert "papers/phase-multiplexing-for-rollouts/index.html" in result.written.removed
    assert "subjects/cs.DC/index.html" in result.written.removed
    assert not (project / "_site/papers/phase-multiplexing-for-rollouts").exists()


def test_refuses_to_replace_a_folder_it_did_not_write(make_project) -> None:
    project = make_project(GOOD)
    precious = project / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not delete")
    result = build(project, precious)
    assert not result.ok
    assert "not written by site-gen" in str(result.diagnostics[-1])
    assert (precious / "thesis.tex").read_text() == "do not delete"


def test_output_has_marker_and_no_leftover_staging(make_project) -> None:
    project = make_project(GOOD)
    assert build(project).ok and build(project).ok
    assert (project / "_site" / MARKER).is_file()
    assert sorted(p.name for p in project.iterdir()) == ["_site", "content"]


REAL_OWNERS = ["Wei Wang 0001", "María de los Ángeles García López de Mendoza Ruiz", "Li Na (李娜)",
               "Dr. Hans-Peter Müller, PhD"]


def test_real_world_owner_names_build_checked_sites(make_project) -> None:
    """The four exports once refused for the shape of their owner's name (issue 20)."""
    files = {f"content/dumps/{i}.txt": listing_dump(name, [(2024, f"A Paper About Topic Number {i}",
                                                            abstract(f"topic{i}"), ["cs.LG"])])
             for i, name in enumerate(REAL_OWNERS)}
    files["content/dumps/co.txt"] = coauthor_dump("Wei Wang 0001", [
        ("Wei Wang 0001, Ann Lee et al.", abstract("topic0")),
        ("Bo Wu, Wei Wang 0002", abstract("another topic"))])
    files["content/curation.yaml"] = "papers:\n  - match: {abstract: We study another topic}\n    year: 2023\n"
    project = make_project(files)
    assert build(project, strict=True).ok
    assert main(["check", str(project / "_site"), "--site-url", "https://example.org/"]) == 0
    authors = {a["name"]: a for a in json.loads((project / "_site/authors.json").read_text())["authors"]}
    for i, name in enumerate(REAL_OWNERS):
        page = (project / "_site/authors" / authors[name]["id"] / "index.html").read_text()
        assert f"<h1>{esc(name)}</h1>" in page and f"A Paper About Topic Number {i}" in page
    wei = authors["Wei Wang 0001"]
    assert (wei["id"], len(wei["papers"]), len(wei["profiles"])) == ("wei-wang-0001", 2, 2)
    assert authors["Wei Wang 0002"]["id"] == "wei-wang-0002"
    assert (project / "_site/authors/wei-wang-0001/papers.bib").is_file()
    assert (project / "_site/authors/wei-wang-0001/feed.xml").is_file()


def test_output_whose_parents_are_missing_is_made_with_them(make_project) -> None:
    project = make_project(GOOD)
    assert main(["build", "-q", "--project", str(project), "--output",
                 str(project / "www" / "deep" / "site")]) == 0
    assert (project / "www/deep/site" / MARKER).is_file()
    assert read_tree(project / "www/deep/site") == read_tree(_built(project, "_site"))


def _built(project: Path, name: str) -> Path:
    assert build(project, project / name).ok
    return project / name


def test_leftover_from_killed_build_is_recovered(make_project) -> None:
    project = make_project(GOOD)
    assert build(project).ok
    good = read_tree(project / "_site")
    # A build killed between its two fallback renames leaves only ".<name>.old".
    os.rename(project / "_site", project / "._site.old")
    (project / "._site.staging").mkdir()
    (project / "._site.staging" / "half.html").write_text("half")
    assert build(project).ok
    assert read_tree(project / "_site") == good
    assert sorted(p.name for p in project.iterdir()) == ["_site", "content"]


def test_pages_from_markdown_with_front_matter(make_project) -> None:
    project = make_project({**GOOD, "content/pages/about.md": "---\ntitle: About us\n---\n# Hi\n\n"
                                                              "Some *text* <script>x</script>\n"})
    assert build(project).ok
    html = (project / "_site/about/index.html").read_text()
    assert "<em>text</em>" in html and "<script>x</script>" not in html
    assert "About us" in (project / "_site/index.html").read_text()


def test_template_override_from_project(make_project) -> None:
    project = make_project({**GOOD, "templates/404.html":
                            '{% extends "!theme/404.html" %}{% block title %}Lost!{% endblock %}'})
    assert build(project).ok
    assert "<title>Lost!</title>" in (project / "_site/404.html").read_text()


def test_broken_template_is_a_diagnostic_with_a_line(make_project) -> None:
    project = make_project({**GOOD, "templates/404.html": "line one\n{{ nope.missing }}\n"})
    result = build(project)
    assert not result.ok
    problem = str(result.diagnostics[-1])
    assert problem.startswith("templates/404.html:2: template error on 404.html: 'nope' is undefined")


@pytest.mark.parametrize("files, message", [
    ({"content/dumps/x.txt": b"Ann Lee\n\nBo Wu\n\ncaf\xe9"}, "content/dumps/x.txt:5: not valid UTF-8"),
    ({**GOOD, "content/site.yaml": "title: [unclosed\n"}, "content/site.yaml:2: invalid YAML"),
    ({**GOOD, "content/site.yaml": "site_url: ftp://x\n"}, "content/site.yaml:1: site_url must be"),
    ({**GOOD, "content/curation.yaml": "papers:\n  - match: {colour: red}\n"},
     "content/curation.yaml:2: 'match' needs exactly one of"),
    ({**GOOD, "content/curation.yaml": "papers:\n  - match: {source: 'a.txt:1', id: x}\n"},
     ("content/curation.yaml:2: 'match' needs exactly one of id, title, abstract, source, or "
     "'source' with 'title' or 'abstract'")),
    ({**GOOD, "content/curation.yaml": "papers:\n  - match: {source: 'a.txt:7'}\n    hide: true\n"},
     "content/curation.yaml:2: curation entry for 'a.txt:7' names no title or abstract"),
])
def test_bad_input_is_a_located_error(make_project, files, message) -> None:
    result = build(make_project(files))
    assert not result.ok
    assert any(str(d).startswith(message) for d in result.diagnostics), [str(d) for d in result.diagnostics]


def test_strict_fails_on_warnings(make_project) -> None:
    files = {**GOOD, "content/curation.yaml": "papers:\n  - match: {title: Nothing Like This}\n"
                                              "    title: X\n"}
    project = make_project(files)
    assert build(project).ok
    result = build(project, strict=True)
    assert not result.ok
    assert [str(d) for d in result.diagnostics] == [
        ("content/curation.yaml:2: warning: curation entry (title: 'Nothing Like This') matches no "
         "paper [curation-match]")]


def test_cli_build_exit_codes_and_messages(make_project, capsys) -> None:
    project = make_project(GOOD)
    assert main(["build", "--project", str(project)]) == 0
    assert "built" in capsys.readouterr().out
    (project / "content/dumps/bad.txt").write_text("Dear editor,\n\nthis is a letter. Not a dump.\n")
    assert main(["build", "--project", str(project)]) == 1
    err = capsys.readouterr().err
    assert "content/dumps/bad.txt:1: not a known dump format" in err
    assert "Traceback" not in err


def test_cli_in_a_subprocess_prints_no_traceback(make_project) -> None:
    project = make_project({"content/dumps/x.txt": coauthor_dump("A B", [("C D", "")])[:-2] + "\n"})
    run = subprocess.run([sys.executable, "-m", "site_gen", "build"], check=False, cwd=project,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert run.returncode == 1
    assert "content/dumps/x.txt:" in run.stderr and "Traceback" not in run.stderr
    assert not (project / "_site").exists()


def _cli_build(project: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "site_gen", "build", "-q", "--project",
                             str(project)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(REPO)})


def _many_papers() -> dict[str, str]:
    papers = [(2020 + i % 6, f"Paper Number {i} On Concurrent Writers", abstract(f"w{i}"),
               ["cs.DC"]) for i in range(120)]
    return {"content/dumps/a.txt": listing_dump("Ann Lee", papers)}


def test_two_builds_at_once_leave_one_whole_site(make_project, tmp_path: Path) -> None:
    """``serve`` and ``build`` in another terminal write one output: neither may see the
    other's half-staged spare (output.writing_lock)."""
    project = make_project(_many_papers())
    assert build(project, tmp_path / "expected").ok
    expected = read_tree(tmp_path / "expected")
    for _ in range(3):
        runs = [_cli_build(project) for _ in range(2)]
        for run in runs:
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0, err
            assert "Traceback" not in err
        assert read_tree(project / "_site") == expected


def test_a_build_says_it_waits_for_another_writing_the_output(make_project) -> None:
    import fcntl

    project = make_project(GOOD)
    fd = os.open(project, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a site-gen process writing project/_site holds it
    try:
        run = _cli_build(project)
        line = run.stderr.readline() if run.stderr else ""
        assert line == f"waiting for another site-gen process to finish writing {project / '_site'}\n"
        assert run.poll() is None and not (project / "_site").exists()
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    run.communicate(timeout=60)
    assert run.returncode == 0
    assert (project / "_site/index.html").is_file()


def test_symlink_out_of_content_is_refused(make_project, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(listing_dump("Eve", [(2024, "Secret Paper Title", abstract("secret"), ["cs.CR"])]))
    project = make_project(GOOD)
    (project / "content/dumps/leak.txt").symlink_to(secret)
    result = build(project)
    assert not result.ok
    assert [str(d) for d in result.diagnostics] == [
        "content/dumps/leak.txt: is a symlink to a file outside the content folder; refused"]


def test_symlinks_to_folders_outside_and_deeper_down_are_refused(make_project,
                                                                 tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = make_project(GOOD)
    (project / "content/notes").mkdir()
    (project / "content/notes/deeper").mkdir()
    (project / "content/notes/deeper/z.txt").symlink_to(outside / "missing.txt")
    (project / "content/linked").symlink_to(outside)  # not followed: only itself is refused
    (project / "content/notes/a.txt").symlink_to(project / "content/dumps/a.txt")  # inside
    result = build(project)
    assert [str(d) for d in result.diagnostics] == [
        "content/linked: is a symlink to a file outside the content folder; refused",
        "content/notes/deeper/z.txt: is a symlink to a file outside the content folder; refused"]


def test_symlink_inside_content_is_fine(make_project) -> None:
    project = make_project(GOOD)
    (project / "content/dumps/alias.txt").symlink_to(project / "content/dumps/a.txt")
    assert build(project).ok


@pytest.mark.parametrize("where", ["/", ".", "project", "content", "content/dumps", "parent"])
def test_dangerous_output_folders_are_refused(make_project, where: str, monkeypatch) -> None:
    project = make_project(GOOD)
    monkeypatch.chdir(project)
    output = {"/": Path("/"), ".": Path("."), "project": project, "content": project / "content",
              "content/dumps": project / "content/dumps", "parent": project.parent}[where]
    before = read_tree(project / "content")
    result = build(project, output)
    assert not result.ok and "refusing to write the site" in str(result.diagnostics[0])
    assert read_tree(project / "content") == before


# ---- the files beside the pages made ahead, in a process of their own (build._Ahead) --------

@pytest.fixture
def ahead(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Any site is large enough to go ahead; the list collects each started ``_Ahead``."""
    monkeypatch.setattr(build_module, "PARALLEL_THRESHOLD", 0)
    started: list[object] = []
    start = build_module._Ahead.start

    def noted(self, *args: object) -> None:
        start(self, *args)
        if self.started:
            started.append(self)

    monkeypatch.setattr(build_module._Ahead, "start", noted)
    return started


def test_files_made_ahead_are_the_files_made_here(demo_project: Path, tmp_path: Path,
                                                  ahead: list[object]) -> None:
    here = Builder(demo_project, tmp_path / "here", jobs=1).build()
    assert not ahead
    there = Builder(demo_project, tmp_path / "there", jobs=2).build()
    assert len(ahead) == 1 and here.ok and there.ok
    stages = [name for name, _ in there.timings]  # this process renders until ahead's is
    assert stages.index("site files") < stages.index("render")  # done, then workers fork
    assert read_tree(tmp_path / "there") == read_tree(tmp_path / "here")
    assert there.written == here.written  # every file reported as new, in the same order
    again = Builder(demo_project, tmp_path / "there", jobs=2).build()  # over its own output
    assert len(ahead) == 2 and again.written is not None
    assert again.written.changed == () and again.written.removed == ()


def test_a_build_that_went_ahead_stores_its_memory_while_it_waits(
        make_project, tmp_path: Path, ahead: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    """With few pages to render (no render workers), a build renders them and pickles what
    the cache stores while the process ahead finishes; that cache holds the build's memory:
    the next build, after an edit, renders only the pages the edit changed, the one after
    none, and the site is a clean build's."""
    monkeypatch.setattr(build_module.os, "cpu_count", lambda: 2)  # goes ahead on any machine
    project = make_project(GOOD)
    cache = project / ".site-gen-cache"
    first = Builder(project, cache=cache).build()
    stages = [name for name, _ in first.timings]
    assert first.ok and len(ahead) == 1
    assert stages.index("render") < stages.index("cache write") < stages.index("site files")
    (project / "content/dumps/a.txt").write_text(listing_dump("Ann Lee", [
        (2024, "Tail Batching for Synchronous RL", abstract("tail batching, revised"), ["cs.LG"]),
        (2023, "Phase Multiplexing for Rollouts", abstract("multiplexing"), ["cs.DC"])]))
    edited = Builder(project, cache=cache).build()
    assert edited.ok and len(ahead) == 2 and 0 < edited.rendered < edited.pages
    again = Builder(project, cache=cache).build()
    assert again.ok and again.rendered == 0
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")


def test_a_build_again_forks_ahead_before_it_takes_back_the_memory(
        make_project, ahead: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    """The process ahead needs only the catalog and the output's manifest: a build again
    takes back the manifest first, forks, and only then unpickles the pages' memory (which
    the process ahead would otherwise wait for), and still reuses every page."""
    monkeypatch.setattr(build_module.os, "cpu_count", lambda: 2)
    project = make_project(GOOD)
    cache = project / ".site-gen-cache"
    assert Builder(project, cache=cache).build().ok
    events: list[str] = []
    take = build_module.store.Stored.take

    def noted_take(self: object) -> object:
        found = take(self)  # type: ignore[arg-type]
        events.append(type(found).__name__)
        return found

    monkeypatch.setattr(build_module.store.Stored, "take", noted_take)
    start = build_module._Ahead.start
    monkeypatch.setattr(build_module._Ahead, "start",
                        lambda self, *args: (events.append("fork"), start(self, *args))[1])
    again = Builder(project, cache=cache).build()
    assert again.ok and again.rendered == 0
    assert events == ["dict", "dict", "fork", "RenderMemory"]  # the output's manifest, the spare's


def test_a_build_keeps_its_pages_while_the_process_ahead_works_and_stops_it_to_start_again(
        make_project, tmp_path: Path, ahead: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    """A build again links the pages it reuses into the staging while the process ahead
    still makes the files beside the pages (not after: that process is what the build
    waits for). If the output turns out to have changed behind the build's back
    (StaleOutput), the build renders afresh into a new staging, and only once that process
    is stopped: it must not go on writing into a staging folder made again."""
    monkeypatch.setattr(build_module.os, "cpu_count", lambda: 2)
    project = make_project(GOOD)
    cache = project / ".site-gen-cache"
    assert Builder(project, cache=cache).build().ok
    parent, stream = os.getpid(), build_module.finding_file_stream

    def slow_in_the_child(*args: object, **kwargs: object) -> object:
        if os.getpid() != parent:
            time.sleep(60)  # stopped long before: the test waits for none of it
        return stream(*args, **kwargs)

    monkeypatch.setattr(build_module, "finding_file_stream", slow_in_the_child)
    keep, take, seen = build_module.Staging.keep, build_module.Builder._take_ahead, []

    def stale_once(self: Staging, names: object) -> None:
        seen.append(("keep", [a._process is not None and a._process.is_alive()  # type: ignore[attr-defined]
                              for a in ahead]))
        if len(seen) == 1:
            raise build_module.StaleOutput("changed outside this build")
        keep(self, names)  # type: ignore[arg-type]

    monkeypatch.setattr(build_module.Staging, "keep", stale_once)
    monkeypatch.setattr(build_module.Builder, "_take_ahead",
                        lambda *args: (seen.append(("take", [])), take(*args))[1])
    again = Builder(project, cache=cache).build()
    assert again.ok and len(ahead) == 2
    # kept while it worked (its files not yet taken); stopped before the build started again
    assert seen == [("keep", [False, True]), ("keep", [False, False])]
    monkeypatch.undo()  # a clean build, whose process ahead does not sleep
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")


def test_a_build_failing_after_it_went_ahead_leaves_the_output(make_project,
                                                               ahead: list[object]) -> None:
    project = make_project(GOOD)
    assert Builder(project, jobs=2).build().ok
    before = read_tree(project / "_site")
    (project / "content/site.yaml").write_text("title: Lab\ntheme: nowhere\n")  # found after routes
    failed = Builder(project, jobs=2).build()
    assert len(ahead) == 2 and not failed.ok
    assert any("theme 'nowhere' not found" in str(d) for d in failed.diagnostics)
    assert read_tree(project / "_site") == before
    assert all(not a._process for a in ahead)  # type: ignore[attr-defined]


def test_if_the_process_ahead_fails_the_files_are_made_here(make_project, tmp_path: Path,
                                                            ahead: list[object],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    project = make_project(GOOD)
    here = Builder(project, tmp_path / "here", jobs=1).build()
    parent, stream = os.getpid(), build_module.finding_file_stream

    def failing_in_the_child(*args: object, **kwargs: object) -> object:
        if os.getpid() != parent:
            raise RuntimeError("a failure in the forked process only")
        return stream(*args, **kwargs)

    monkeypatch.setattr(build_module, "finding_file_stream", failing_in_the_child)
    there = Builder(project, tmp_path / "there", jobs=2).build()
    assert len(ahead) == 1 and here.ok and there.ok
    assert read_tree(tmp_path / "there") == read_tree(tmp_path / "here")


def test_a_build_frees_the_parsed_dumps_once_merged(make_project,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Builder.plan's one collection: each abstract pylatexenc parses leaves a reference cycle
    with the frames of the call stack, merging's included, which hold every parsed dump; with
    the collector off for the build, the dumps would stay until it ends."""
    live: list[int] = []
    intern = build_module.intern_catalog

    def counting(*args: object) -> object:
        live.append(sum(type(o) is Dump for o in gc.get_objects()))
        return intern(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(build_module, "intern_catalog", counting)
    latex = abstract("fractions") + r" We bound it by $\frac{a}{b}$ and \textbf{b \emph{c}}."
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2024, "Fractions in Practice", latex, ["cs.LG"])])})
    assert build(project).ok and live == [0]


def test_a_build_and_the_processes_it_forks_run_without_the_collector(
        make_project, tmp_path: Path, ahead: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    """build._collector_paused: off while the catalog and routes are made, while pages render
    (here and in a worker) and while the process ahead makes its files; then as it was."""
    notes = tmp_path / "notes"

    def noting(where: str, function: Callable[..., object]) -> Callable[..., object]:
        def noted(*args: object, **kwargs: object) -> object:
            with notes.open("a") as out:  # a forked process's note too
                out.write(f"{where} {os.getpid()} {gc.isenabled()}\n")
            return function(*args, **kwargs)
        return noted

    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 0)
    monkeypatch.setattr(build_module.Builder, "plan", noting("plan", build_module.Builder.plan))
    monkeypatch.setattr(engine, "_render_one", noting("render", engine._render_one))
    monkeypatch.setattr(build_module, "finding_file_stream",
                        noting("ahead", build_module.finding_file_stream))
    project = make_project(GOOD)
    assert gc.isenabled() and Builder(project, jobs=2).build().ok and gc.isenabled()
    seen = [line.split() for line in notes.read_text().splitlines()]
    assert len(ahead) == 1 and {where for where, _, _ in seen} == {"plan", "render", "ahead"}
    assert {pid for where, pid, _ in seen if where == "ahead"} != {str(os.getpid())}
    assert {pid for where, pid, _ in seen if where == "render"} - {str(os.getpid())}  # a worker
    assert all(enabled == "False" for _, _, enabled in seen)
    gc.disable()  # as a watch session builds
    try:
        assert build(project).ok and not gc.isenabled()
    finally:
        gc.enable()


def test_a_build_again_makes_the_feeds_here_and_a_full_build_ahead(
        make_project, tmp_path: Path, ahead: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    """The process ahead makes the feeds and citations in a build without a stored memory
    (it renders every page); a build that took one back (a build again) makes them itself,
    and its site is the one a clean build makes."""
    import site_gen.outputs.files as files_module
    from site_gen.incremental.store import CACHE_DIR

    notes = tmp_path / "notes"
    feeds = files_module.feed_files

    def noted(*args: object, **kwargs: object) -> object:
        with notes.open("a") as out:  # a forked process's note too
            out.write(f"{os.getpid()}\n")
        return feeds(*args, **kwargs)

    monkeypatch.setattr(files_module, "feed_files", noted)
    project = make_project(GOOD)
    cache = project / CACHE_DIR
    assert Builder(project, jobs=2, cache=cache).build().ok
    assert len(ahead) == 1 and notes.read_text().split() != [str(os.getpid())]
    notes.unlink()
    dump = project / "content/dumps/a.txt"
    dump.write_text(dump.read_text(encoding="utf-8").replace("Tail Batching", "Head Batching"),
                    encoding="utf-8")
    assert Builder(project, jobs=2, cache=cache).build().ok
    assert len(ahead) == 2 and notes.read_text().split() == [str(os.getpid())]
    assert read_tree(project / "_site") == read_tree(_built(project, "clean"))
