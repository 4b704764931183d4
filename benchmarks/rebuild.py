#!/usr/bin/env python3
"""Rebuild latency after a one-dump edit, next to the full build, on a generated corpus.

    python3 benchmarks/rebuild.py [--papers 10000] [--seed 1] [--runs 3] [--work DIR]
                                  [--edit abstract|title]

1. Generates the corpus with ``benchmarks/gen_corpus.py`` (kept in DIR between runs).
2. Full build: ``site-gen build`` in a fresh process into an empty output folder.
3. Watch mode: a WatchSession (the loop behind ``site-gen serve`` and ``build --watch``) with
   a real watchdog observer. Each run edits one word of one abstract in one dump (the next
   run puts it back; ``--edit title`` puts a word before that paper's title instead, which
   renames the paper: a new id, in its authors' and subjects' lists) and measures (a) from the write of the dump to the moment the rebuilt
   site is on disk (the swap of the output folder, which makes every changed file visible at
   once), debounce included, and the build alone as the rebuild line reports it. The file
   system is synced before the first edit: the gigabytes the full builds and the session's
   first build wrote would otherwise still be written back while the edits are timed.
4. (b) ``site-gen build`` run again in a fresh process after the same kind of edit.
5. (c) The first edit of a new watch session, ten seconds after its first build (someone
   looking at the preview), from the write to the site on disk. (a) leaves out what a first
   build leaves the spare output folder to catch up on, (c) counts what of it the session did
   not do while idle.

Prints the median of ``--runs`` runs of each and the ratio to the full build. Timings are
wall-clock on whatever else the machine is doing; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from site_gen.incremental.builder import Builder
from site_gen.live.session import WatchSession, rebuild_line
from site_gen.write.tree import Staging

sys.path.insert(0, str(HERE))
from run import GRAVEYARD, bury

EDIT_MARK = "-edited"
TITLE_MARK = "Edited: "
EDIT = "abstract"
"""What ``edit_one_dump`` changes: ``"abstract"`` or ``"title"`` (``--edit``)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement (>= 3)")
    parser.add_argument("--work", type=Path, default=None,
                        help="where the corpus and outputs go (default: benchmarks/out/rebuild-N)")
    parser.add_argument("--edit", choices=("abstract", "title"), default="abstract",
                        help="what the one-dump edit changes (default: a word of an abstract)")
    args = parser.parse_args(argv)
    global EDIT
    EDIT = args.edit
    work = args.work or HERE / "out" / f"rebuild-{args.papers}-{args.seed}"
    project = make_corpus(work, args.papers, args.seed)
    if edited(project):
        edit_one_dump(project, undo=True)  # an interrupted run left its edit behind
    runs = max(3, args.runs)
    full = [time_full_build(project, work / f"clean{i}") for i in range(runs)]
    print(f"full build (site-gen build, empty output): {fmt(full)}", flush=True)
    latency, build_only = time_watch_rebuilds(project, runs)
    first = time_first_edit(project, runs)
    again = [time_build_again(project) for _ in range(runs)]
    if edited(project):
        edit_one_dump(project, undo=True)  # leave the corpus as generated
    report(args.papers, full, latency, build_only, first, again)
    shutil.rmtree(work / GRAVEYARD, ignore_errors=True)
    return 0


def make_corpus(work: Path, papers: int, seed: int) -> Path:
    """The generated project folder (made once, reused while its dumps are there)."""
    if not (work / "content" / "dumps").is_dir():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "gen_corpus.py"), str(papers), "--seed",
                        str(seed), "--out", str(work), "--no-hugo", "--force"], check=True)
    return work


def site_gen(*args: str) -> float:
    """Run the site-gen command in a fresh process; its wall time in seconds."""
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "site_gen", *args], cwd=REPO, text=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, check=False)
    if run.returncode != 0:  # the corpus's warnings are not shown, a failure's messages are
        sys.exit(f"site-gen {' '.join(args)} failed:\n{run.stderr}")
    return time.perf_counter() - started


def time_full_build(project: Path, output: Path) -> float:
    """A clean build into an empty folder (the folder is moved aside outside the timing, and
    the file system synced after it, so the removal's pending work does not slow the build)."""
    discard(output)
    os.sync()
    time.sleep(1)
    seconds = site_gen("build", "--project", str(project), "--output", str(output))
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


def time_watch_rebuilds(project: Path, runs: int) -> tuple[list[float], list[float]]:
    """(write-to-disk latency, build time) of watch-mode rebuilds after one-dump edits."""
    session, swapped = watched(project, project / "_watch")
    builder = session.builder
    session.start()
    session.rebuild({})  # the first rebuild also fills the spare folder; not a one-dump edit
    os.sync()  # the full builds' and this session's gigabytes written back: not the edit's cost
    thread = threading.Thread(target=session.run, daemon=True)
    thread.start()
    latency, build_only = [], []
    try:
        for run in range(runs):
            time.sleep(0.5)  # let the tree settle: nothing pending before the edit
            started = edit_one_dump(project, undo=run % 2 == 1)
            number = wait_for_rebuild(session, str(first_dump(project)), len(session.history))
            latency.append(swapped[number] - started)
            build_only.append(session.history[number].seconds)
            print("  watch " + rebuild_line(session.history[number], project)
                  + f"; on disk {latency[-1] * 1000:.0f} ms after the write", flush=True)
    finally:
        session.close()
        thread.join(timeout=10)
        if edited(project):
            edit_one_dump(project, undo=True)
        discard(builder.output)
    return latency, build_only


FIRST_EDIT_IDLE = 10.0
"""Seconds a new session is left alone after its first build before ``time_first_edit`` edits
(someone looking at the preview)."""


def time_first_edit(project: Path, runs: int) -> list[float]:
    """Write-to-disk latency of the first edit of a session: a new session over an empty
    output, left idle ``FIRST_EDIT_IDLE`` seconds after its first build, then one edit. What
    the first build left for the spare folder to catch up on counts here, unless the session
    did it while idle (output.OutputTree.fill_spare)."""
    latency = []
    for _ in range(runs):
        session, swapped = watched(project, project / "_first")
        session.start()
        thread = threading.Thread(target=session.run, daemon=True)
        thread.start()
        try:
            time.sleep(FIRST_EDIT_IDLE)
            started = edit_one_dump(project, undo=edited(project))
            number = wait_for_rebuild(session, str(first_dump(project)), 1)
            latency.append(swapped[number] - started)
            print(f"  first edit of a session: on disk {latency[-1] * 1000:.0f} ms after the "
                  f"write ({session.history[number].seconds * 1000:.0f} ms of build)", flush=True)
        finally:
            session.close()
            thread.join(timeout=10)
            discard(session.builder.output)
    return latency


def print_problem(line: str) -> None:
    """Errors and failed builds, not the corpus's warnings (generated papers lack years)."""
    if ": warning: " not in line:
        print(line, flush=True)


def wait_for_rebuild(session: WatchSession, path: str, start: int, seconds: float = 120) -> int:
    """The number of the first build from ``start`` on that saw ``path`` change."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for number in range(start, len(session.history)):
            if any(os.path.samefile(p, path) for p in session.history[number].changes
                   if os.path.exists(p)):
                return number
        time.sleep(0.005)
    raise TimeoutError("no rebuild after the edit")


def time_build_again(project: Path) -> float:
    """``site-gen build`` after a one-dump edit, into the output of the previous build."""
    output = project / "_again"
    if not output.exists():
        site_gen("build", "--project", str(project), "--output", str(output))
    edit_one_dump(project, undo=edited(project))
    seconds = site_gen("build", "--project", str(project), "--output", str(output))
    print(f"  site-gen build again: {seconds:.2f} s", flush=True)
    return seconds


def first_dump(project: Path) -> Path:
    return min((project / "content" / "dumps").glob("000_*.txt"))


def edited(project: Path) -> bool:
    """Does the first dump hold an edit of ours (left, maybe, by an interrupted run)?"""
    text = first_dump(project).read_text(encoding="utf-8")
    return EDIT_MARK in text or TITLE_MARK in text


def edit_one_dump(project: Path, undo: bool = False) -> float:
    """Change (or change back) the first word of the first abstract of the first dump, or
    (``EDIT == "title"``) put a word before that paper's title; ``time.perf_counter()`` when
    the write began (the edited text is made first: an editor has it before it saves)."""
    path = first_dump(project)
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if len(line) > 300)
    title = max(i for i in range(at) if lines[i].strip())  # the line before the abstract
    first, _, rest = lines[at].partition(" ")
    if undo:
        first = first.removesuffix(EDIT_MARK)
        lines[title] = lines[title].removeprefix(TITLE_MARK)
    elif EDIT == "title":
        if not lines[title].startswith(TITLE_MARK):
            lines[title] = TITLE_MARK + lines[title]
    elif not first.endswith(EDIT_MARK):
        first += EDIT_MARK
    lines[at] = f"{first} {rest}"
    data = "\n".join(lines).encode("utf-8")
    started = time.perf_counter()
    path.write_bytes(data)
    return started


def fmt(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (runs: {', '.join(f'{v:.2f}' for v in values)})"


def report(papers: int, full: list[float], latency: list[float], build_only: list[float],
           first: list[float], again: list[float]) -> None:
    base = statistics.median(full)
    rows = [("full build, empty output (site-gen build)", full),
            ("(a) watch rebuild, dump write -> site on disk", latency),
            ("    of which the build itself", build_only),
            ("(b) site-gen build again, after the edit", again),
            (f"(c) first edit, {FIRST_EDIT_IDLE:.0f} s after a session's start", first)]
    print(f"\nRebuild after a one-dump edit ({EDIT}), {papers:,} papers "
          f"(median of {len(full)} runs)\n")
    print(f"| {'measurement':<46} | {'median':>9} | {'of full build':>13} |")
    print(f"| {'-' * 46} | {'-' * 8}: | {'-' * 12}: |")
    for name, values in rows:
        median = statistics.median(values)
        print(f"| {name:<46} | {median * 1000:>6.0f} ms | {median / base * 100:>12.1f}% |")


if __name__ == "__main__":
    sys.exit(main())
