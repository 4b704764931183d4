"""Watch mode: classify() table, debounce with a fake clock, the queue, the polling fallback,
and a real watchdog observer (atomic-rename saves, bursts of events)."""

from __future__ import annotations

import errno
import functools
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path, PurePath
from types import FrameType

import pytest
from conftest import abstract, listing_dump, read_tree
from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from site_gen.incremental.builder import Builder
from site_gen.live.session import WatchSession, rebuild_line
from site_gen.live.watch import (
    ChangeKind,
    ChangeQueue,
    Debouncer,
    Layout,
    Watcher,
    _Handler,
    classify,
    describe,
)
from site_gen.write.tree import MARKER, staging_paths

P = PurePath("/home/ann/site")
THEME = PurePath("/usr/lib/python3/site-packages/site_gen/themes/default")
LAYOUT = Layout(P, P / "_site", templates=(P / "templates", THEME / "templates"),
                static=(P / "static", THEME / "static"))
K = ChangeKind


@pytest.mark.parametrize("path, kind", [
    ("content/dumps/000_ann.txt", K.DUMP),
    ("content/dumps/new dump.txt", K.DUMP),
    ("content/dumps", K.DUMP),                       # the folder itself: created or removed
    ("content/site.yaml", K.CONFIG),
    ("content/curation.yaml", K.CURATION),
    ("content/pages/about.md", K.PAGE),
    ("content/pages/notes.txt", K.PAGE),  # a file a page may show
    ("content/pages", K.IGNORED),
    ("templates/paper.html", K.TEMPLATE),
    ("templates/partials/macros.html", K.TEMPLATE),
    (str(THEME / "templates/base.html"), K.TEMPLATE),
    ("static/site.css", K.STATIC),
    ("static/img/logo.svg", K.STATIC),
    (str(THEME / "static/site.js"), K.STATIC),
    # the output, its staging siblings: written by builds, never a reason to build
    ("_site/index.html", K.IGNORED),
    ("_site", K.IGNORED),
    ("._site.staging/papers/x/index.html", K.IGNORED),
    ("._site.old/index.html", K.IGNORED),
    # dotfiles, dot-folders and editor scratch files
    (".git/index", K.IGNORED),
    ("content/dumps/.000_ann.txt.swp", K.IGNORED),
    ("content/dumps/.#000_ann.txt", K.IGNORED),
    ("content/dumps/000_ann.txt~", K.IGNORED),
    ("content/dumps/000_ann.txt.swp", K.IGNORED),
    ("content/dumps/000_ann.txt.swx", K.IGNORED),
    ("content/dumps/4913", K.IGNORED),
    ("content/dumps/000_ann.txt.tmp", K.IGNORED),
    ("content/dumps/000_ann.txt___jb_tmp___", K.IGNORED),
    ("content/dumps/000_ann.txt___jb_old___", K.IGNORED),
    ("templates/.paper.html.swp", K.IGNORED),
    # other files in the project
    ("README.md", K.IGNORED),
    ("content/notes.txt", K.IGNORED),
    ("content/dumps/sub/x.txt", K.DUMP),  # dumps in subfolders are read
])
def test_classify(path: str, kind: ChangeKind) -> None:
    assert classify(P / path, LAYOUT) is kind


def test_classify_ignores_an_output_folder_inside_the_inputs() -> None:
    layout = Layout(P, P / "content/dumps/out", templates=(P / "templates",))
    assert classify(P / "content/dumps/out/index.html", layout) is K.IGNORED
    assert classify(P / "content/dumps/.out.staging/a/index.html", layout) is K.IGNORED
    assert classify(P / "content/dumps/a.txt", layout) is K.DUMP


def test_debounce_waits_for_quiet() -> None:
    d = Debouncer(quiet=0.15, max_wait=1.0)
    assert d.wait_time(0.0) is None
    d.add("a", K.DUMP, now=10.0)
    assert d.wait_time(10.0) == pytest.approx(0.15)
    d.add("b", K.DUMP, now=10.1)
    assert d.wait_time(10.2) == pytest.approx(0.05)
    assert d.wait_time(10.25) == 0
    assert d.take() == {"a": K.DUMP, "b": K.DUMP}
    assert d.wait_time(10.3) is None


def test_debounce_is_bounded_by_max_wait() -> None:
    d = Debouncer(quiet=0.15, max_wait=1.0)
    t = 0.0
    while t < 0.95:  # an endless stream of events, 0.1 s apart
        d.add(f"f{t:.1f}", K.DUMP, now=t)
        assert d.wait_time(t) > 0
        t += 0.1
    assert d.wait_time(1.0) == 0  # due at first + max_wait, though events keep coming


def test_debounce_waits_less_once_every_changed_file_is_settled() -> None:
    d = Debouncer(quiet=0.15, max_wait=1.0, settled_quiet=0.05)
    d.add("a", K.DUMP, now=10.0)  # modified: more bytes may follow
    assert d.wait_time(10.0) == pytest.approx(0.15)
    d.add("a", K.DUMP, now=10.01, settled=True)  # closed after writing
    assert d.wait_time(10.01) == pytest.approx(0.05)
    d.add("b", K.DUMP, now=10.02)  # another file is being written
    assert d.wait_time(10.02) == pytest.approx(0.15)
    d.add("b", K.DUMP, now=10.03, settled=True)
    assert d.wait_time(10.08) == 0
    d.take()
    d.add("a", K.DUMP, now=11.0, settled=True)
    d.add("a", K.DUMP, now=11.01)  # written again after it was closed: not settled any more
    assert d.wait_time(11.01) == pytest.approx(0.15)


def test_only_closes_and_renames_into_place_settle_a_path() -> None:
    """An editor that moves the old file aside and then writes the new one must not get a
    build in between: a rename's source, a deletion or a creation settles nothing."""
    clock = FakeClock()
    queue = ChangeQueue(LAYOUT, clock=clock)
    handler = _Handler(queue)
    dump, aside = str(P / "content/dumps/a.txt"), str(P / "content/dumps/a.txt.bak")
    temp = str(P / "content/dumps/a.txt.tmp")  # an editor's temp file: ignored (SCRATCH_PATTERNS)
    for unsettling in (FileCreatedEvent(dump), FileModifiedEvent(dump), FileDeletedEvent(dump),
                       FileMovedEvent(dump, aside)):
        handler.dispatch(unsettling)
        clock.now += 0.06
        assert queue.get(timeout=0) is None, unsettling
        clock.now += 0.1
        assert queue.get(timeout=0)
    for settling in (FileClosedEvent(dump), FileMovedEvent(temp, dump)):
        handler.dispatch(FileModifiedEvent(dump))
        handler.dispatch(settling)
        clock.now += 0.06
        assert queue.get(timeout=0), settling


def test_the_observer_reports_a_plain_write_closed(tmp_path: Path) -> None:
    """What the short wait stands on: watchdog's inotify observer reports IN_CLOSE_WRITE, so
    a file written and closed (``write_text``, an editor's save) ends with a settling event."""
    seen: list[str] = []

    class Collect(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            seen.append(event.event_type)

    observer = Observer()
    observer.schedule(Collect(), str(tmp_path), recursive=True)
    observer.start()
    try:
        (tmp_path / "a.txt").write_text("Ann Lee\n")
        assert wait_for(lambda: "closed" in seen, seconds=5), seen
    finally:
        observer.stop()
        observer.join(timeout=5)


def test_debounce_drops_ignored_changes() -> None:
    d = Debouncer()
    d.add("x", K.IGNORED, now=0.0)
    assert d.wait_time(5.0) is None and d.take() == {}


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_queue_groups_a_burst_into_one_batch() -> None:
    clock = FakeClock()
    queue = ChangeQueue(LAYOUT, clock=clock)
    for i in range(200):
        queue.put(str(P / f"content/dumps/{i:03}.txt"))
        queue.put(str(P / f"_site/papers/{i}/index.html"))  # our own output: ignored
    assert queue.get(timeout=0) is None  # not quiet yet
    clock.now += 0.2
    batch = queue.get(timeout=0)
    assert batch is not None and len(batch) == 200 and set(batch.values()) == {K.DUMP}
    assert queue.get(timeout=0) is None


def test_queue_tells_housekeeping_when_changes_wait() -> None:
    clock = FakeClock()
    queue = ChangeQueue(LAYOUT, clock=clock)
    assert not queue.pending()
    queue.put(str(P / "_site/index.html"))  # ignored: nothing to build
    assert not queue.pending()
    queue.put(str(P / "content/dumps/a.txt"))
    assert queue.pending()  # not due yet, but an edit came
    clock.now += 0.2
    assert queue.get(timeout=0) and not queue.pending()
    queue.close()
    assert queue.pending()


def test_queue_get_returns_when_closed() -> None:
    queue = ChangeQueue(LAYOUT)
    threading.Timer(0.05, queue.close).start()
    started = time.monotonic()
    assert queue.get(timeout=5) is None
    assert time.monotonic() - started < 2


def _interrupted_at_line(step: int, call: Callable[[], object]) -> bool:
    """Run ``call`` with KeyboardInterrupt raised at its ``step``-th line (counting the lines
    of every function it calls), as Ctrl-C's handler raises it; False if it ran to the end."""
    lines = 0

    def trace(frame: FrameType, event: str, arg: object) -> Callable[..., object]:
        nonlocal lines
        if event == "line":
            lines += 1
            if lines == step:
                raise KeyboardInterrupt
        return trace

    sys.settrace(trace)
    try:
        call()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def test_ctrl_c_anywhere_in_the_build_loops_wait_leaves_the_queue_usable() -> None:
    """``serve`` stops on Ctrl-C by KeyboardInterrupt, raised wherever its loop is waiting
    for edits; what the session does then (close the queue, ask it once more) must work. A
    ``Condition`` waited on there was left released mid-``wait`` by an interrupt at the
    wrong line, and the session ended in "cannot release un-acquired lock"."""
    for step in itertools.count(1):
        queue = ChangeQueue(LAYOUT)
        queue.put(str(P / "content/dumps/a.txt"))  # due in 0.15 s: get waits
        interrupted = _interrupted_at_line(step, functools.partial(queue.get, timeout=0.05))
        queue.close()
        assert queue.pending() and queue.get(timeout=5) is None
        if not interrupted:
            break
    assert step > 5


def test_describe_lists_a_few_paths_relative_to_the_project() -> None:
    paths = [str(P / f"content/dumps/{n}.txt") for n in "edcba"]
    assert describe(paths[:1], Path(P)) == "content/dumps/e.txt changed"
    assert describe(paths, Path(P)) == ("content/dumps/a.txt, content/dumps/b.txt, "
                                        "content/dumps/c.txt and 2 more changed")


def test_inotify_limit_falls_back_to_polling(tmp_path: Path) -> None:
    class Full:  # an observer whose inotify watches are exhausted
        def __init__(self) -> None:
            pass

        def schedule(self, *args: object, **kwargs: object) -> None:
            raise OSError(errno.ENOSPC, "inotify watch limit reached")

        def unschedule_all(self) -> None:
            pass

    said: list[str] = []
    (tmp_path / "content").mkdir()
    queue = ChangeQueue(Layout(PurePath(tmp_path), PurePath(tmp_path / "_site")))
    watcher = Watcher(queue, observer_class=Full, say=said.append)  # type: ignore[arg-type]
    watcher.start()
    try:
        assert watcher.polling
        assert len(said) == 1 and "inotify limit" in said[0] and "polling" in said[0]
        (tmp_path / "content" / "site.yaml").write_text("title: x\n")
        assert wait_for(lambda: queue.get(timeout=0.2), seconds=5) is not None
    finally:
        watcher.stop()


def save(path: Path, text: str) -> None:
    """Save as most editors do (a temp file renamed over the target), so a watcher never sees
    a half-written file, however slow a loaded machine makes the writer."""
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def wait_for(probe, seconds: float = 5.0, every: float = 0.02):
    """Poll ``probe`` until it returns something truthy, at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := probe():
            return value
        time.sleep(every)
    return None


# ---- a real observer ----------------------------------------------------------------------------

def small_site(make_project, papers: int = 2) -> Path:
    return make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2024, f"Paper Number {i} On Scheduling", abstract(f"topic {i}"), ["cs.LG"])
        for i in range(papers)])})


@pytest.fixture
def session(make_project):
    project = small_site(make_project)
    lines: list[str] = []
    session = WatchSession(Builder(project, keep_spare=True), say=lines.append, warn=lines.append)
    session.lines = lines  # type: ignore[attr-defined]
    first = session.start()
    assert first.result.ok
    thread = threading.Thread(target=session.run, daemon=True)
    thread.start()
    yield session
    session.close()
    thread.join(timeout=5)


def test_atomic_rename_save_is_seen(session: WatchSession) -> None:
    dump = session.builder.project / "content/dumps/a.txt"
    temp = dump.with_name("a.txt.tmp")  # how many editors save: write a temp file, rename it
    temp.write_text(listing_dump("Ann Lee", [(2025, "Saved Through A Rename Works",
                                              abstract("rename"), ["cs.LG"])]))
    os.replace(temp, dump)
    page = session.builder.output / "papers/saved-through-a-rename-works/index.html"
    assert wait_for(lambda: len(session.history) == 2, seconds=5)  # reported after the write
    assert page.is_file()
    assert "content/dumps/a.txt changed" in session.lines[-1]


def test_while_no_edit_comes_the_spare_is_filled(session: WatchSession) -> None:
    """After the first build the spare is empty; the session links the site into it while it
    waits, so the first edit stages only what it changes (output.OutputTree.fill_spare)."""
    output = session.builder.output
    spare = staging_paths(output)[0]
    files = {name for name in read_tree(output) if name != MARKER}
    assert wait_for(lambda: spare.is_dir() and files <= set(read_tree(spare)), seconds=5)
    for name in files:
        assert (spare / name).stat().st_ino == (output / name).stat().st_ino
    save(session.builder.project / "content/dumps/a.txt", listing_dump("Ann Lee", [
        (2024, "Paper Number 0 On Scheduling", abstract("topic 0"), ["cs.LG"]),
        (2025, "A Third Paper After Filling", abstract("third"), ["cs.LG"])]))
    assert wait_for(lambda: len(session.history) == 2, seconds=5)
    assert (output / "papers/a-third-paper-after-filling/index.html").is_file()
    assert not (output / "papers/paper-number-1-on-scheduling").exists()


def test_the_spare_is_filled_as_soon_as_a_rebuild_is_done(make_project,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Filling does not wait for the queue's idle timeout first: after a template edit the
    spare lacks every page, and an edit a second later staged them all."""
    session = WatchSession(Builder(small_site(make_project), keep_spare=True),
                           say=lambda line: None, warn=lambda line: None)
    assert session.start().result.ok
    calls: list[object] = []
    batches = [{"content/dumps/a.txt": K.DUMP}]

    def get(timeout: float | None = None) -> dict[str, ChangeKind] | None:
        calls.append(("get", timeout))
        if len(calls) > 3:
            session.stop()
        return batches.pop() if batches else None

    def fill_spare(go_on: object) -> bool:
        calls.append("fill")
        return True

    monkeypatch.setattr(session.queue, "get", get)
    monkeypatch.setattr(session.builder, "fill_spare", fill_spare)
    session.run()
    session.close()
    assert calls[:3] == [("get", 0.0), ("get", 0.0), "fill"]  # the rebuild, then no wait
    assert calls[3] == ("get", 0.5)  # filled: now the queue may wait


def test_a_burst_of_200_events_gives_at_most_two_rebuilds(session: WatchSession) -> None:
    dumps = session.builder.project / "content/dumps"
    for i in range(100):  # like a git checkout: 200 events within a fraction of a second
        name = f"Author {chr(65 + i // 26)}{chr(97 + i % 26)}"
        (dumps / f"b{i:03}.txt").write_text(listing_dump(name, [
            (2020, f"Burst Paper {i} About Systems", abstract(f"burst {i}"), ["cs.DC"])]))
    for i in range(100):
        (dumps / f"b{i:03}.txt").touch()
    last = session.builder.output / "papers/burst-paper-99-about-systems/index.html"
    assert wait_for(last.is_file, seconds=10), session.lines
    time.sleep(0.5)  # let any straggling batch through
    assert 2 <= len(session.history) <= 3  # the first build, then at most two rebuilds


def test_deleting_a_dump_removes_its_pages(session: WatchSession) -> None:
    project = session.builder.project
    save(project / "content/dumps/b.txt", listing_dump("Bo Wu", [
        (2023, "A Paper That Will Go Away", abstract("going"), ["cs.DC"])]))
    page = session.builder.output / "papers/a-paper-that-will-go-away/index.html"
    assert wait_for(page.is_file)
    (project / "content/dumps/b.txt").unlink()
    assert wait_for(lambda: not page.exists())
    assert not (session.builder.output / "subjects/cs.DC/index.html").exists()


def test_rebuild_line_says_what_changed_and_how_much_was_done(session: WatchSession) -> None:
    page = session.builder.project / "content/pages/about.md"
    page.parent.mkdir(exist_ok=True)
    save(page, "---\ntitle: About\nnav: false\n---\nHello.\n")
    assert wait_for(lambda: len(session.history) == 2)
    assert (session.builder.output / "about/index.html").is_file()
    line = rebuild_line(session.history[-1], session.builder.project)
    assert line.startswith("rebuilt in ") and " ms: content/pages/about.md changed; " in line
    assert "1 page re-rendered" in line and "file" in line


def test_a_bug_in_a_build_does_not_end_the_session(session: WatchSession, monkeypatch) -> None:
    memo = session.builder.catalog_memo  # a session's Builder merges through its memo
    assert memo is not None
    real = memo.build
    monkeypatch.setattr(memo, "build", lambda *a: 1 / 0)
    dump = session.builder.project / "content/dumps/a.txt"
    save(dump, listing_dump("Ann Lee", [(2022, "After The Crash We Rebuild", abstract("x"),
                                        ["cs.LG"])]))
    assert wait_for(lambda: len(session.history) == 2)
    assert not session.history[-1].result.ok
    # a build enters the history before its lines are said (the --verbose reporter reads it)
    assert wait_for(lambda: "internal error, please report it: ZeroDivisionError"
                    in session.lines[-1])
    monkeypatch.setattr(memo, "build", real)
    dump.touch()
    page = session.builder.output / "papers/after-the-crash-we-rebuild/index.html"
    assert wait_for(page.is_file)


def test_changes_during_a_build_make_up_the_next_build(session: WatchSession, monkeypatch) -> None:
    project = session.builder.project
    real_build = session.builder.build
    started = threading.Event()

    def slow_build(*args, **kwargs):
        started.set()
        time.sleep(0.6)  # a long build, during which the user saves another file
        return real_build(*args, **kwargs)

    monkeypatch.setattr(session.builder, "build", slow_build)
    save(project / "content/dumps/b.txt", listing_dump("Bo Wu", [
        (2023, "Saved Before The Build Began", abstract("before"), ["cs.DC"])]))
    assert started.wait(timeout=5)
    save(project / "content/dumps/c.txt", listing_dump("Cy Tan", [
        (2023, "Saved While The Build Ran", abstract("during"), ["cs.DC"])]))
    assert wait_for(lambda: len(session.history) == 3, seconds=10)
    assert [sorted(Path(p).name for p in r.changes) for r in session.history[1:]] == [
        ["b.txt"], ["c.txt"]]
    assert (session.builder.output / "papers/saved-while-the-build-ran/index.html").is_file()
