#!/usr/bin/env python3
"""Watch rebuilds of two checkouts of site-gen, one edit each in turn, on copies of one corpus.

    python3 benchmarks/rebuild_ab.py OLD_SRC [--papers 10000] [--seed 1] [--edits 20]
                                     [--kinds abcdefgh] [--work DIR]

OLD_SRC is another checkout of site-gen (say a ``git worktree`` of the commit before a
change); this checkout is "new". Each side runs one long-lived ``WatchSession`` in a process
of its own, over its own copy of the generated corpus, as ``rebuild.py`` does (a real
watchdog observer, the spare folder filled before the first edit). The script then makes
each kind of edit of ``rebuild.py`` (``--kinds``; the edit, then its undo) to each side in
turn, half a second apart, alternating which side goes first, and prints for each kind and
each stage of ``BuildResult.timings`` each side's minimum, first quartile and median, and the
ratio of the medians (the undos are not timed).

Why edit by edit: on this machine, slow phases last minutes and make the same rebuild two or
three times slower. Sides run one after the other (a process each, alternated) land on
different phases, and their medians differ by more than most changes do; sides that take
turns edit by edit share every phase.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SIDES = ("old", "new")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="the other checkout of site-gen")
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--edits", type=int, default=20, help="edits of each kind, each side")
    parser.add_argument("--kinds", default="abcdefgh",
                        help="the kinds of edit (rebuild.py's letters: abc or a,b,c), taking turns")
    parser.add_argument("--work", type=Path, default=None,
                        help="where the corpora go (default: benchmarks/out/ab-N)")
    args = parser.parse_args(argv)
    if not (args.old / "site_gen" / "incremental/builder.py").is_file():
        sys.exit(f"{args.old} is not a checkout of site-gen")
    sys.path.insert(0, str(HERE))
    from rebuild import KINDS, make_corpus  # here: the child must import site_gen first

    kinds = args.kinds.replace(",", "")  # "abc", or "a,b,c" as rebuild.py takes them
    if unknown := sorted(set(kinds) - KINDS.keys()):
        parser.error(f"no such kind of edit: {', '.join(unknown)} (kinds: {''.join(KINDS)})")
    work = args.work or HERE / "out" / f"ab-{args.papers}-{args.seed}"
    corpus = make_corpus(work / "corpus", args.papers, args.seed)
    sources = {"old": args.old.resolve(), "new": REPO}
    children = {side: _start(side, sources[side], _copy(corpus, work / side)) for side in SIDES}
    lines: list[str] = []
    try:
        for number in range(args.edits):
            for kind in kinds:
                order = SIDES if number % 2 == 0 else SIDES[::-1]
                for side in order:
                    time.sleep(0.5)  # as rebuild.py: nothing pending before the edit
                    lines.append(_ask(children[side], f"edit {kind}"))
                for side in order:
                    time.sleep(0.5)
                    _ask(children[side], f"undo {kind}")
    finally:
        for child in children.values():
            _ask(child, "stop", answer=False)
            child.wait(timeout=120)
    report(lines, args.edits, {letter: KINDS[letter].name for letter in kinds})
    return 0


def _copy(corpus: Path, project: Path) -> Path:
    """A copy of the corpus's content folder: each side watches and edits its own."""
    shutil.rmtree(project, ignore_errors=True)
    shutil.copytree(corpus / "content", project / "content")
    return project


def _start(side: str, source: Path, project: Path) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, __file__, "--child", side, str(source), str(project)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    if _ask(child, None) != "ready":
        sys.exit(f"the {side} side did not start (its first build failed?)")
    return child


def _ask(child: subprocess.Popen[str], command: str | None, answer: bool = True) -> str:
    assert child.stdin is not None and child.stdout is not None
    if command is not None:
        child.stdin.write(command + "\n")
        child.stdin.flush()
    return child.stdout.readline().strip() if answer else ""


def child(side: str, source: Path, project: Path) -> None:
    """One side: a watch session over ``project`` with site_gen from ``source``; one rebuild
    per ``edit K`` or ``undo K`` read from stdin (K: a kind of ``rebuild.KINDS``), its timings
    printed as one line."""
    sys.path.insert(0, str(source))
    importlib.import_module("site_gen")  # from there, before rebuild.py puts this checkout first

    sys.path.insert(1, str(HERE))
    import rebuild

    rebuild.prepare(project)  # the files the edits change, in their unedited state
    rebuild.print_problem = lambda line: print(line, file=sys.stderr)  # stdout: the answers
    session, swapped = rebuild.watched(project, project / "_watch")
    session.start()
    session.builder.fill_spare(lambda: True)
    thread = threading.Thread(target=session.run, daemon=True)
    thread.start()
    print("ready", flush=True)
    try:
        for line in sys.stdin:
            command, _, letter = line.strip().partition(" ")
            if command not in ("edit", "undo"):
                break
            at, started = rebuild.edited(session, project, letter, undo=command == "undo")
            done = session.history[at]
            stages = " ".join(f"{name.replace(' ', '_')}={seconds * 1000:.1f}"
                              for name, seconds in done.result.timings)
            print(f"{side} {letter} on_disk={(swapped[at] - started) * 1000:.1f} "
                  f"build={done.seconds * 1000:.1f} pages={done.result.rendered} {stages}",
                  flush=True)
    finally:
        rebuild.closed(session, thread)
        shutil.rmtree(project, ignore_errors=True)


def report(lines: list[str], edits: int, kinds: dict[str, str]) -> None:
    """Per kind (``kinds``: each letter's name) and stage: each side's minimum, first
    quartile and median (ms; ``pages``: pages rendered), and new/old medians."""
    times: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    for line in lines:
        side, letter, *pairs = line.split()
        for name, value in re.findall(r"(\w+)=([\d.]+)", " ".join(pairs)):
            times[letter][name][side].append(float(value))
    for letter, name in kinds.items():
        print(f"\n({letter}) {name}: watch rebuilds, {edits} edits of each side "
              "in turn (ms: min / q1 / median)\n")
        print(f"| {'stage':<12} | {'old':>22} | {'new':>22} | new/old |")
        print(f"| {'-' * 12} | {'-' * 22:>22} | {'-' * 22:>22} | ------: |")
        for stage, sides in times[letter].items():
            cells = [_summary(sides[side]) for side in SIDES]
            ratio = statistics.median(sides["new"]) / max(statistics.median(sides["old"]), 1e-9)
            print(f"| {stage.replace('_', ' '):<12} | {cells[0]:>22} | {cells[1]:>22} "
                  f"| {ratio:7.2f} |")


def _summary(values: list[float]) -> str:
    ordered = sorted(values)
    return (f"{ordered[0]:.0f} / {ordered[len(ordered) // 4]:.0f} / "
            f"{statistics.median(ordered):.0f}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        sys.exit(main())
