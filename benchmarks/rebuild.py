#!/usr/bin/env python3
"""Rebuild latency after each kind of edit, next to the full build, on a generated corpus.

    python3 benchmarks/rebuild.py [--papers 10000] [--seed 1] [--runs 5] [--work DIR]
                                  [--kinds a,b,c,d,e,f,g,h,i] [--full-runs 3] [--hugo-runs N]
                                  [--no-hugo] [--no-extras]

1. Generates the corpus with ``benchmarks/gen_corpus.py`` (kept in DIR between runs), with
   its Hugo form unless ``--no-hugo``, and adds what some edits change: a ``curation.yaml``
   title fix, a ``content/pages/about.md`` and a theme override ``templates/base.html``
   (the Hugo site gets an ``about.md``).
2. Full build: ``site-gen build`` in a fresh process into an empty output folder.
3. Watch mode, the kinds of edit in turn, ``--runs`` rounds: a WatchSession (the loop behind
   ``site-gen serve`` and ``build --watch``) with a real watchdog observer. Each turn makes
   one edit of the kind (timed) and then undoes it (untimed, waited for), so that every run
   starts from the same project, once the session has brought its spare output folder up to
   date (``caught_up``); it measures from the write (the edited text is made first: an editor has it
   before it saves) to the moment the rebuilt site is on disk (the swap of the output folder,
   which makes every changed file visible at once), debounce included. The kinds (``KINDS``):
   (a) a word of an abstract; (b) a word before a title (the slug changes); (c) a new record
   appended to a dump; (d) a dump's last record removed; (e) a new dump of 5 papers by a new
   profiled author; (f) a listing dump deleted; (g) a ``curation.yaml`` title fix; (h) a
   ``content/pages/*.md`` edit; (i) the theme's ``base.html`` overridden in the project's
   ``templates/`` edited (every page shows it: a full render). The file system is synced
   before the first edit: the gigabytes the full builds and the session's first build wrote
   would otherwise still be written back while the edits are timed.
4. Hugo (``hugo --watch`` writing to disk, after the same kind of edit to its content and
   layouts): from the write to the line Hugo prints when its rebuild is written
   (``Total in N ms``). (g) has no Hugo counterpart (Hugo has no curation layer).
5. Unless ``--no-extras``: ``site-gen build`` run again in a fresh process after edit (a),
   and the first edit (a) of a new watch session, ten seconds after its first build (someone
   looking at the preview), from the write to the site on disk (what a first build leaves
   the spare output folder to catch up on counts here, unless the session did it while idle).

Prints one line per kind (median, share of the full build, files changed, pages re-rendered,
Hugo's median), each kind's stages (the medians of the timers ``site-gen build -v`` prints:
where its time goes) and a table of the extras. Timings are wall-clock on whatever else the machine
is doing; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from site_gen.incremental.builder import Builder
from site_gen.live.session import Rebuild, WatchSession, rebuild_line
from site_gen.pipeline import LOCK_SHOWN, builtin_theme_dir
from site_gen.write.tree import Staging

sys.path.insert(0, str(HERE))
from run import GRAVEYARD, bury, compiled_env, ensure_hugo

EDIT_MARK = "-edited"
TITLE_MARK = "Edited: "
NEW_AUTHOR = "Benchmark Newcomer"
NEW_DUMP = "000_benchnew.txt"
CURATION_TITLE = " (revised)"
PAGE_EDIT = "\n\nThis paragraph was added by the rebuild benchmark.\n"
TEMPLATE_EDIT = "<!-- edited by the rebuild benchmark -->\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5, help="runs of each kind of edit")
    parser.add_argument("--full-runs", type=int, default=3,
                        help="full builds timed, the base of every percentage (default 3)")
    parser.add_argument("--hugo-runs", type=int, default=None,
                        help="runs of each Hugo measurement (default: --runs; 0: do not time Hugo)")
    parser.add_argument("--work", type=Path, default=None,
                        help="where the corpus and outputs go (default: benchmarks/out/rebuild-N-SEED)")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="the kinds of edit to time, of " + ",".join(KINDS))
    parser.add_argument("--no-hugo", action="store_true", help="do not time Hugo")
    parser.add_argument("--no-extras", action="store_true",
                        help="skip 'site-gen build' again and a session's first edit")
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kinds {unknown}: choose among {','.join(KINDS)}")
    hugo = None if args.no_hugo or args.hugo_runs == 0 else ensure_hugo()
    work = args.work or HERE / "out" / f"rebuild-{args.papers}-{args.seed}"
    project = make_corpus(work, args.papers, args.seed, hugo is not None)
    prepare(project)
    runs = max(1, args.runs)
    full = [time_full_build(project, work / f"clean{i}") for i in range(max(1, args.full_runs))]
    print(f"full build (site-gen build, empty output): {fmt(full)}", flush=True)
    timed = time_kinds(project, kinds, runs)
    theirs: dict[str, list[float]] = {}
    if hugo is not None:
        theirs = time_hugo(hugo, project, [k for k in kinds if KINDS[k].hugo is not None],
                           args.hugo_runs or runs)
    report_kinds(args.papers, full, kinds, timed, theirs, hugo is not None)
    report_stages(kinds, timed)
    if not args.no_extras:
        first = time_first_edit(project, runs)
        again = [time_build_again(project) for _ in range(runs)]
        report_extras(full, first, again)
    shutil.rmtree(work / GRAVEYARD, ignore_errors=True)
    return 0


def make_corpus(work: Path, papers: int, seed: int, hugo: bool = False) -> Path:
    """The generated project folder (made once, reused while its dumps are there)."""
    if not (work / "content" / "dumps").is_dir() or (hugo and not (work / "hugo").is_dir()):
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "gen_corpus.py"), str(papers), "--seed",
                        str(seed), "--out", str(work), "--force"] + ([] if hugo else ["--no-hugo"]),
                       check=True)
    return work


# ---- the edits ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """One kind of edit: ``edit`` makes it and ``undo`` takes it back, each returning the
    path it wrote (or removed) and ``time.perf_counter()`` when the write began; ``hugo`` is
    the same kind of edit to the Hugo site (or its undo, given ``undo=True``), if it has one."""

    name: str
    edit: Callable[[Path], tuple[Path, float]]
    undo: Callable[[Path], tuple[Path, float]]
    hugo: Callable[[Path, bool], tuple[Path, float]] | None


def first_dump(project: Path) -> Path:
    return min((project / "content" / "dumps").glob("000_*.txt"))


def last_listing_dump(project: Path) -> Path:
    return max(p for p in (project / "content" / "dumps").glob("00[0-2]_*.txt")
               if p.name != NEW_DUMP)


def write(path: Path, text: str) -> tuple[Path, float]:
    """Write ``text`` (made before the clock starts); when the write began."""
    data = text.encode("utf-8")
    started = time.perf_counter()
    path.write_bytes(data)
    return path, started


def remove(path: Path) -> tuple[Path, float]:
    started = time.perf_counter()
    path.unlink()
    return path, started


def dump_lines(project: Path) -> tuple[Path, list[str], int, int]:
    """The first dump's lines, and the lines of its first record's title and abstract."""
    path = first_dump(project)
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if len(line) > 300)
    title = max(i for i in range(at) if lines[i].strip())  # the line before the abstract
    return path, lines, title, at


def edit_abstract(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(a) The first word of the first abstract of the first dump gets (or loses) a mark."""
    path, lines, _, at = dump_lines(project)
    first, _, rest = lines[at].partition(" ")
    first = first.removesuffix(EDIT_MARK) if undo else first.removesuffix(EDIT_MARK) + EDIT_MARK
    lines[at] = f"{first} {rest}"
    return write(path, "\n".join(lines))


def edit_one_dump(project: Path, undo: bool = False) -> float:
    """Edit (a) as the other benchmarks use it: when the write began."""
    return edit_abstract(project, undo)[1]


def edit_title(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(b) A word before that paper's title (a new slug, in its authors' and subjects' lists)."""
    path, lines, title, _ = dump_lines(project)
    lines[title] = lines[title].removeprefix(TITLE_MARK)
    if not undo:
        lines[title] = TITLE_MARK + lines[title]
    return write(path, "\n".join(lines))


COUNT = re.compile(r"^(\d+) records?", re.MULTILINE)

APPENDED = ("arXiv2026\n\nRebuild Latency of Appended Records in Incremental Site Generators\n\n"
            "We measure how long a static site generator kept alive in watch mode takes to put "
            "a rebuilt site on disk after one record is appended to a profile export, and find "
            "that the cost is dominated by passes over the whole catalog rather than by the "
            "pages the new record touches. Counting the papers, authors and subjects an edit "
            "reaches bounds the work, and rendering only the pages that read them keeps a "
            "rebuild within a few percent of a full build on ten thousand papers.\n\ncs.DC↗")


def recount(text: str, by: int) -> str:
    """The dump's ``N records`` line after adding ``by`` records (an ``At least`` one stays)."""
    def new(match: re.Match[str]) -> str:
        n = int(match.group(1)) + by
        return f"{n} record{'s' if n != 1 else ''}"
    if re.search(r"^At least", text, re.MULTILINE | re.IGNORECASE):
        return text
    return COUNT.sub(new, text, count=1)


def append_record(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(c) A new paper's record at the end of the first dump, its count line raised by one."""
    path = first_dump(project)
    text = path.read_text(encoding="utf-8")
    tail = "\n\n" + APPENDED
    if undo:
        return write(path, recount(text.removesuffix(tail), -1) if text.endswith(tail) else text)
    return write(path, text if text.endswith(tail) else recount(text, 1) + tail)


REMOVED: dict[Path, str] = {}
"""Texts of dumps as they were before an edit took something out (for its undo)."""


def remove_record(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(d) The last record of the last listing dump taken out, its count line lowered by one."""
    path = last_listing_dump(project)
    if undo:
        return write(path, REMOVED.pop(path, path.read_text(encoding="utf-8")))
    text = REMOVED.setdefault(path, path.read_text(encoding="utf-8"))
    cut = text.rindex("\n\narXiv")
    return write(path, recount(text[:cut], -1))


def new_dump(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(e) A new profiled author's dump of 5 new papers (undo: deleted)."""
    path = project / "content" / "dumps" / NEW_DUMP
    if undo:
        return remove(path)
    records = "\n\n".join(
        f"arXiv{2026 - i}\n\nNewcomer Study {i + 1} of Incremental Watch Rebuilds\n\n"
        + f"Study {i + 1}: " + APPENDED.split("\n\n")[2] + f"\n\n{('cs.DC', 'cs.LG')[i % 2]}↗"
        for i in range(5))
    return write(path, f"arXiv subjects\n\n{NEW_AUTHOR}\n\nPublications and source records "
                       f"attributed to {NEW_AUTHOR}.\n\n5 recordsLinked to original sources\n\n"
                 + records)


def delete_dump(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(f) The last listing dump deleted (undo: written back)."""
    if undo:
        path, text = DELETED.popitem()
        return write(path, text)
    path = last_listing_dump(project)
    DELETED[path] = path.read_text(encoding="utf-8")
    return remove(path)


DELETED: dict[Path, str] = {}
"""The dump (f) deleted, with its text."""


def curation_file(project: Path) -> Path:
    return project / "content" / "curation.yaml"


def curation_text(project: Path, revised: bool) -> str:
    """A ``curation.yaml`` whose one entry fixes the title of the first dump's second paper
    (matched by its title: an abstract's start may be shared at 10,000 papers): its own
    title, or a revised one."""
    _, lines, _, _ = dump_lines(project)
    at = [i for i, line in enumerate(lines) if len(line) > 300][1]
    title = lines[max(i for i in range(at) if lines[i].strip())]
    fixed = title + (CURATION_TITLE if revised else "")
    return (f"# Made by benchmarks/rebuild.py: one title fix, edited by its (g) runs\n"
            f"papers:\n  - match: {{title: {yaml_quoted(title)}}}\n"
            f"    title: {yaml_quoted(fixed)}\n")


def yaml_quoted(text: str) -> str:
    """``text`` as a single-quoted YAML scalar (no escapes but a doubled quote)."""
    return "'" + text.replace("'", "''") + "'"


def edit_curation(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(g) The curation entry's title changed (a new slug), or changed back."""
    return write(curation_file(project), curation_text(project, revised=not undo))


def page_file(project: Path) -> Path:
    return project / "content" / "pages" / "about.md"


PAGE = "---\ntitle: About\norder: 1\n---\nThis synthetic site is made by benchmarks/gen_corpus.py.\n"


def edit_page(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(h) A paragraph added to (or taken from) ``content/pages/about.md``."""
    return write(page_file(project), PAGE if undo else PAGE + PAGE_EDIT)


def template_file(project: Path) -> Path:
    return project / "templates" / "base.html"


def theme_base() -> str:
    theme = builtin_theme_dir("default")
    assert theme is not None
    return (theme / "templates" / "base.html").read_text(encoding="utf-8")


def edit_template(project: Path, undo: bool = False) -> tuple[Path, float]:
    """(i) A comment added to (or taken from) the project's override of ``base.html``."""
    return write(template_file(project), theme_base() + ("" if undo else TEMPLATE_EDIT))


# -- Hugo's counterparts: the same kind of edit to hugo/content and hugo/layouts

def hugo_paper(project: Path) -> Path:
    return min(p for p in (project / "hugo" / "content" / "papers").glob("*.md")
               if p.name != "_index.md")


def hugo_toggle(path: Path, old: str, new: str, undo: bool) -> tuple[Path, float]:
    text = path.read_text(encoding="utf-8")
    text = text.replace(new, old, 1) if undo else text.replace(old, new, 1)
    return write(path, text)


def hugo_abstract(project: Path, undo: bool) -> tuple[Path, float]:
    path = hugo_paper(project)
    body = path.read_text(encoding="utf-8").split("+++\n", 2)[2]
    word = body.split(" ", 1)[0]
    return hugo_toggle(path, f"+++\n{word.removesuffix(EDIT_MARK)} ",
                       f"+++\n{word.removesuffix(EDIT_MARK)}{EDIT_MARK} ", undo)


def hugo_title(project: Path, undo: bool) -> tuple[Path, float]:
    return hugo_toggle(hugo_paper(project), 'title = "', f'title = "{TITLE_MARK}', undo)


def hugo_new_page(project: Path, number: int, undo: bool) -> tuple[Path, float]:
    path = project / "hugo" / "content" / "papers" / f"zz-benchmark-new-{number}.md"
    if undo:
        return remove(path)
    return write(path, f'+++\ntitle = "Newcomer Study {number} of Incremental Watch Rebuilds"\n'
                       f'date = 2026-01-01\nauthors = ["{NEW_AUTHOR}"]\nsubjects = ["cs.DC"]\n'
                       f"+++\n{APPENDED.split(chr(10) * 2)[2]}\n")


def hugo_new_paper(project: Path, undo: bool) -> tuple[Path, float]:
    return hugo_new_page(project, 0, undo)


def hugo_new_papers(project: Path, undo: bool) -> tuple[Path, float]:
    """Five new pages (the clock starts at the first write; the last path is waited for)."""
    started = None
    for number in range(1, 6):
        path, at = hugo_new_page(project, number, undo)
        started = at if started is None else started
    assert started is not None
    return path, started


HUGO_REMOVED: dict[Path, str] = {}


def hugo_remove_papers(project: Path, undo: bool, count: int = 1) -> tuple[Path, float]:
    """The last ``count`` paper pages deleted (undo: written back)."""
    pages = sorted((project / "hugo" / "content" / "papers").glob("*.md"))
    if undo:
        started = None
        for path, text in sorted(HUGO_REMOVED.items()):
            path, at = write(path, text)
            started = at if started is None else started
        HUGO_REMOVED.clear()
        assert started is not None
        return path, started
    targets = [p for p in pages if not p.name.startswith("zz-")][-count:]
    HUGO_REMOVED.update((p, p.read_text(encoding="utf-8")) for p in targets)
    started = time.perf_counter()
    for path in targets:
        path.unlink()
    return path, started


def hugo_about(project: Path, undo: bool) -> tuple[Path, float]:
    return write(project / "hugo" / "content" / "about.md",
                 HUGO_PAGE if undo else HUGO_PAGE + PAGE_EDIT)


HUGO_PAGE = '+++\ntitle = "About"\n+++\nThis synthetic site is made by benchmarks/gen_corpus.py.\n'


def hugo_layout(project: Path, undo: bool) -> tuple[Path, float]:
    path = project / "hugo" / "layouts" / "_default" / "baseof.html"
    text = path.read_text(encoding="utf-8").removesuffix(TEMPLATE_EDIT)
    return write(path, text if undo else text + TEMPLATE_EDIT)


KINDS: dict[str, Kind] = {
    "a": Kind("abstract edited", edit_abstract, lambda p: edit_abstract(p, True), hugo_abstract),
    "b": Kind("title edited (new slug)", edit_title, lambda p: edit_title(p, True), hugo_title),
    "c": Kind("record appended to a dump", append_record, lambda p: append_record(p, True),
              hugo_new_paper),
    "d": Kind("record removed from a dump", remove_record, lambda p: remove_record(p, True),
              hugo_remove_papers),
    "e": Kind("new dump, 5 papers, new author", new_dump, lambda p: new_dump(p, True),
              hugo_new_papers),
    "f": Kind("dump deleted", delete_dump, lambda p: delete_dump(p, True),
              lambda p, undo: hugo_remove_papers(p, undo, count=DELETED_PAPERS)),
    "g": Kind("curation.yaml title fix", edit_curation, lambda p: edit_curation(p, True), None),
    "h": Kind("content/pages/about.md edited", edit_page, lambda p: edit_page(p, True),
              hugo_about),
    "i": Kind("template edited (base.html)", edit_template, lambda p: edit_template(p, True),
              hugo_layout),
}
DELETED_PAPERS = 60
"""Hugo pages deleted for (f): about the records of a listing dump (Hugo has no dumps)."""


def prepare(project: Path) -> None:
    """Put every file the edits change in its unedited state (an interrupted run may have
    left an edit behind; the first run makes the curation entry, page and override)."""
    edit_abstract(project, undo=True)
    edit_title(project, undo=True)
    append_record(project, undo=True)
    for path, text in [*REMOVED.items(), *DELETED.items()]:
        path.write_text(text, encoding="utf-8")
    REMOVED.clear()
    DELETED.clear()
    (project / "content" / "dumps" / NEW_DUMP).unlink(missing_ok=True)
    curation_file(project).write_text(curation_text(project, revised=False), encoding="utf-8")
    page_file(project).parent.mkdir(exist_ok=True)
    page_file(project).write_text(PAGE, encoding="utf-8")
    template_file(project).parent.mkdir(exist_ok=True)
    template_file(project).write_text(theme_base(), encoding="utf-8")
    if (project / "hugo").is_dir():
        for path, text in HUGO_REMOVED.items():
            path.write_text(text, encoding="utf-8")
        HUGO_REMOVED.clear()
        hugo_abstract(project, True)
        hugo_title(project, True)
        hugo_layout(project, True)
        for number in range(6):
            (project / "hugo" / "content" / "papers" / f"zz-benchmark-new-{number}.md").unlink(
                missing_ok=True)
        (project / "hugo" / "content" / "about.md").write_text(HUGO_PAGE, encoding="utf-8")


# ---- site-gen ----------------------------------------------------------------------------------


def site_gen(project: Path, *args: str) -> float:
    """Run the site-gen command in a fresh process, its modules compiled as an installed
    copy's are (``run.compiled_env``, into the project, which is the work folder: not beside
    it, where they outlived the run); its wall time in seconds."""
    env = compiled_env(project)
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "site_gen", *args], cwd=REPO, text=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False)
    if run.returncode != 0:  # the corpus's warnings are not shown, a failure's messages are
        sys.exit(f"site-gen {' '.join(args)} failed:\n{run.stderr}")
    return time.perf_counter() - started


def time_full_build(project: Path, output: Path) -> float:
    """A clean build into an empty folder (the folder is moved aside outside the timing, and
    the file system synced after it, so the removal's pending work does not slow the build)."""
    discard(output)
    os.sync()
    time.sleep(1)
    seconds = site_gen(project, "build", "--project", str(project), "--output", str(output))
    discard(output)
    return seconds


def discard(folder: Path) -> None:
    """Move an output (and its spare) aside into the graveyard, deleted when the run ends.

    Not deleted now: on ext4 without a journal (this machine's disk), files created within
    minutes of a large deletion are slow to create (see run.py's ``settle``), which would
    inflate the next full build, and with it the rebuild's share of it.
    """
    for path in (folder, folder.with_name(f".{folder.name}.staging")):
        if path.exists():
            bury(path)


def watched(project: Path, output: Path) -> tuple[WatchSession, dict[int, float]]:
    """A watch session over a new output, and when each of its builds' sites was on disk
    (build number -> ``time.perf_counter()`` at the swap)."""
    builder = Builder(project, output, keep_spare=True)
    discard(builder.output)
    swapped: dict[int, float] = {}
    session = WatchSession(builder, say=lambda line: None, warn=print_problem)
    finish = builder.tree._finish  # the swap that puts a staged site in place (write/tree.py)

    def timed_finish(staging: Staging) -> None:
        finish(staging)
        swapped[len(session.history)] = time.perf_counter()

    builder.tree._finish = timed_finish  # type: ignore[method-assign]
    return session, swapped


@dataclass
class Timed:
    """The runs of one kind of edit: write-to-disk latency and what each rebuild did."""

    latency: list[float]
    rebuilds: list[Rebuild]


def time_kinds(project: Path, kinds: list[str], runs: int) -> dict[str, Timed]:
    """Each kind's edit (timed), then its undo, in one watch session, kind after kind,
    ``runs`` rounds: a user's edits come mixed, and what one kind leaves in memory (or drops)
    is what the next one finds."""
    session, swapped = watched(project, project / "_watch")
    builder = session.builder
    session.start()
    session.rebuild({})  # the first rebuild also fills the spare folder; not an edit
    os.sync()  # the full builds' and this session's gigabytes written back: not the edit's cost
    thread = threading.Thread(target=session.run, daemon=True)
    thread.start()
    timed = {letter: Timed([], []) for letter in kinds}
    try:
        for _ in range(runs):
            for letter in kinds:
                done = timed[letter]
                time.sleep(0.5)  # let the tree settle: nothing pending before the edit
                number, started = edited(session, project, letter)
                done.latency.append(swapped[number] - started)
                done.rebuilds.append(session.history[number])
                print(f"  ({letter}) " + rebuild_line(session.history[number], project)
                      + f"; on disk {done.latency[-1] * 1000:.0f} ms after the write", flush=True)
                time.sleep(0.5)
                edited(session, project, letter, undo=True)
    finally:
        closed(session, thread)
        prepare(project)
        discard(builder.output)
    return timed


def edited(session: WatchSession, project: Path, letter: str, undo: bool = False
           ) -> tuple[int, float]:
    """One kind's edit, made once the session has caught up its spare folder (or its undo,
    made at once), and the rebuild it caused: its number in the session's history, and
    ``time.perf_counter()`` when the write began."""
    kind = KINDS[letter]
    if not undo:
        caught_up(session.builder)
    path, started = (kind.undo if undo else kind.edit)(project)
    return wait_for_rebuild(session, path, len(session.history)), started


def caught_up(builder: Builder, seconds: float = 30) -> None:
    """Wait until the session has brought its spare output folder up to date after the last
    rebuild (``OutputTree.fill_spare``), as it does while someone looks at the result: an
    undone template edit leaves it behind on every page, and an edit half a second later
    would stage them all (``first edit`` below times the other case, a new session)."""
    deadline = time.perf_counter() + seconds
    while builder.tree.behind and time.perf_counter() < deadline:
        time.sleep(0.05)


FIRST_EDIT_IDLE = 10.0
"""Seconds a new session is left alone after its first build before ``time_first_edit`` edits
(someone looking at the preview)."""


def time_first_edit(project: Path, runs: int) -> list[float]:
    """Write-to-disk latency of the first edit (a) of a session: a new session over an empty
    output, left idle ``FIRST_EDIT_IDLE`` seconds after its first build, then one edit. What
    the first build left for the spare folder to catch up on counts here, unless the session
    did it while idle (output.OutputTree.fill_spare)."""
    latency = []
    for run in range(runs):
        session, swapped = watched(project, project / "_first")
        session.start()
        thread = threading.Thread(target=session.run, daemon=True)
        thread.start()
        try:
            time.sleep(FIRST_EDIT_IDLE)
            path, started = edit_abstract(project, undo=run % 2 == 1)
            number = wait_for_rebuild(session, path, 1)
            latency.append(swapped[number] - started)
            print(f"  first edit of a session: on disk {latency[-1] * 1000:.0f} ms after the "
                  f"write ({session.history[number].seconds * 1000:.0f} ms of build)", flush=True)
        finally:
            closed(session, thread)
            discard(session.builder.output)
    edit_abstract(project, undo=True)
    return latency


def closed(session: WatchSession, thread: threading.Thread) -> None:
    """End a session whose ``run`` works in ``thread``: stopped, and its thread joined, before
    ``close`` removes the spare folder, which a fill still running holds (``close`` would wait
    for it, saying it waits for another site-gen process)."""
    session.stop()
    thread.join(timeout=10)
    session.close()


def print_problem(line: str) -> None:
    """Errors and failed builds, not the corpus's warnings (generated papers lack years) nor
    the note that new URLs were recorded (the edits add papers)."""
    if ": warning: " not in line and not line.startswith(f"{LOCK_SHOWN}: "):
        print(line, flush=True)


def wait_for_rebuild(session: WatchSession, path: Path | str, start: int, seconds: float = 180) -> int:
    """The number of the first build from ``start`` on that saw ``path`` change (or go)."""
    wanted = os.path.realpath(path)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for number in range(start, len(session.history)):
            if any(os.path.realpath(p) == wanted for p in session.history[number].changes):
                return number
        time.sleep(0.005)
    raise TimeoutError(f"no rebuild after the edit of {path}")


def time_build_again(project: Path) -> float:
    """``site-gen build`` after edit (a), into the output of the previous build."""
    output = project / "_again"
    if not output.exists():
        site_gen(project, "build", "--project", str(project), "--output", str(output))
    edited = EDIT_MARK in first_dump(project).read_text(encoding="utf-8")
    edit_abstract(project, undo=edited)
    seconds = site_gen(project, "build", "--project", str(project), "--output", str(output))
    print(f"  site-gen build again: {seconds:.2f} s", flush=True)
    edit_abstract(project, undo=True)
    return seconds


# ---- Hugo --------------------------------------------------------------------------------------


HUGO_DONE = re.compile(r"Total in (\d+) ms")
"""What ``hugo --watch`` prints once a rebuild is written."""
HUGO_WATCHING = re.compile(r"Watching for changes in")
"""What it prints once its first build is written."""


def time_hugo(hugo: str, project: Path, kinds: list[str], runs: int) -> dict[str, list[float]]:
    """Hugo's rebuild after each kind's edit: ``hugo --watch`` writing into an output folder,
    from the write to the ``Total in N ms`` line it prints when the rebuilt site is written."""
    output = project / "_hugo"
    discard(output)
    lines: queue.Queue[tuple[float, str]] = queue.Queue()
    process = subprocess.Popen([hugo, "--watch", "--source", str(project / "hugo"),
                                "--destination", str(output)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put((time.perf_counter(), line))

    threading.Thread(target=pump, daemon=True).start()
    found: dict[str, list[float]] = {}
    try:
        hugo_done(lines, 600, HUGO_WATCHING)  # the first build
        os.sync()
        for letter in kinds:
            edit = KINDS[letter].hugo
            assert edit is not None
            found[letter] = []
            try:
                for _ in range(runs):
                    time.sleep(1)
                    drain(lines)
                    _, started = edit(project, False)
                    found[letter].append(hugo_done(lines, 300) - started)
                    print(f"  ({letter}) hugo --watch: {found[letter][-1] * 1000:.0f} ms",
                          flush=True)
                    time.sleep(1)
                    drain(lines)
                    edit(project, True)
                    hugo_done(lines, 300)
            except TimeoutError:  # no rebuild line: this kind gets no Hugo figure
                print(f"  ({letter}) hugo --watch: no rebuild seen in 300 s", flush=True)
                del found[letter]
                prepare(project)  # every kind's edit undone
                time.sleep(5)
                drain(lines)
    finally:
        process.terminate()
        process.wait()
        prepare(project)
        discard(output)
    return found


def drain(lines: queue.Queue[tuple[float, str]]) -> None:
    while not lines.empty():
        lines.get_nowait()


def hugo_done(lines: queue.Queue[tuple[float, str]], seconds: float,
              done: re.Pattern[str] = HUGO_DONE) -> float:
    """When Hugo printed that its next build was written (the line ``done`` finds)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            at, line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if done.search(line):
            return at
        if "ERROR" in line:
            print("  hugo: " + line.rstrip(), flush=True)
    raise TimeoutError("hugo did not rebuild")


# ---- report ------------------------------------------------------------------------------------


def fmt(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (runs: {', '.join(f'{v:.2f}' for v in values)})"


def report_kinds(papers: int, full: list[float], kinds: list[str], timed: dict[str, Timed],
                 theirs: dict[str, list[float]], hugo: bool) -> None:
    """One line per kind: median latency, its share of the full build, the median files
    changed (and removed) and pages re-rendered, and Hugo's median."""
    base = statistics.median(full)
    print(f"\nWatch-mode rebuilds, {papers:,} papers, write -> site on disk, median of "
          f"{len(timed[kinds[0]].latency) if kinds else 0} runs; full build "
          f"{base * 1000:.0f} ms (median of {len(full)})\n")
    print(f"| {'kind':<36} | {'median':>9} | {'of full':>7} | {'files changed':>13} | "
          f"{'pages re-rendered':>17} |" + (f" {'hugo --watch':>12} |" if hugo else ""))
    print(f"| {'-' * 36} | {'-' * 8}: | {'-' * 6}: | {'-' * 12}: | {'-' * 16}: |"
          + (f" {'-' * 11}: |" if hugo else ""))
    for letter in kinds:
        done = timed[letter]
        median = statistics.median(done.latency)
        results = [r.result for r in done.rebuilds]
        changed = statistics.median(len(r.written.changed) if r.written else 0 for r in results)
        removed = statistics.median(len(r.written.removed) if r.written else 0 for r in results)
        rendered = statistics.median(r.rendered for r in results)
        files = f"{changed:,.0f}" + (f" (-{removed:,.0f})" if removed else "")
        line = (f"| ({letter}) {KINDS[letter].name:<32} | {median * 1000:>6.0f} ms | "
                f"{median / base * 100:>6.1f}% | {files:>13} | {rendered:>17,.0f} |")
        if hugo:
            line += (f" {statistics.median(theirs[letter]) * 1000:>9.0f} ms |" if letter in theirs
                     else f" {'-':>12} |")
        print(line, flush=True)


def report_stages(kinds: list[str], timed: dict[str, Timed]) -> None:
    """One line per kind: the median of each stage of its rebuilds (``BuildResult.timings``,
    the timers ``site-gen build -v`` prints), to see where a kind's time goes; the latency
    above is what counts."""
    stages = list(dict.fromkeys(name for letter in kinds for rebuild in timed[letter].rebuilds
                                for name, _ in rebuild.result.timings))
    if not stages:
        return
    widths = [max(len(name), 5) for name in stages]
    print(f"\nStages of the rebuilds (median ms; in-process timers)\n\n| {'kind':<4} | "
          + " | ".join(f"{name:>{width}}" for name, width in zip(stages, widths)) + " |")
    print(f"| {'-' * 4} | " + " | ".join("-" * (width - 1) + ":" for width in widths) + " |")
    for letter in kinds:
        runs = [dict(rebuild.result.timings) for rebuild in timed[letter].rebuilds]
        cells = [f"{statistics.median(run.get(name, 0.0) for run in runs) * 1000:>{width}.0f}"
                 for name, width in zip(stages, widths)]
        print(f"| {'(' + letter + ')':<4} | " + " | ".join(cells) + " |", flush=True)


def report_extras(full: list[float], first: list[float], again: list[float]) -> None:
    base = statistics.median(full)
    rows = [("site-gen build again, after edit (a)", again),
            (f"first edit (a), {FIRST_EDIT_IDLE:.0f} s after a session's start", first)]
    print(f"\n| {'measurement':<46} | {'median':>9} | {'of full build':>13} |")
    print(f"| {'-' * 46} | {'-' * 8}: | {'-' * 12}: |")
    for name, values in rows:
        median = statistics.median(values)
        print(f"| {name:<46} | {median * 1000:>6.0f} ms | {median / base * 100:>12.1f}% |")


if __name__ == "__main__":
    sys.exit(main())
