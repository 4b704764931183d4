#!/usr/bin/env python3
"""site-gen against Hugo on the same generated corpus, alternated in one run.

    python3 benchmarks/run.py [--sizes 1000,10000] [--runs 3] [--seed 1] [--work DIR] [--no-hugo]

For each corpus size N it generates (once, cached in --work) a corpus with gen_corpus.py, then
alternates site-gen and Hugo full builds from an empty output folder, times the `cp -r` copy
floor of our own output (a full build starts without site-gen's build cache, which it then
writes), then alternates: edit one dump (site-gen: a new record appended to
the first listing dump, edit (c) of benchmarks/rebuild.py; Hugo: one new page) and time a
second build over the existing output. Outputs are moved aside into --work/graveyard, deleted
when the run ends, and the file system is synced before each timed command (see ``settle``).
site-gen runs with its modules compiled once, as an installed copy's are (``compiled_env``).
Wall time comes from wait4() on each child process, and so do its user and system CPU times
(the system time, mostly the file system's, is what swings from run to run on a noisy machine;
the user time follows the code); memory is the peak, over samples taken
every 20 ms, of the summed PSS of the child and every process it forked (its workers), read
from /proc/PID/smaps_rollup (``TreeMemory``): a worker's memory shared with its parent is
counted once. It prints medians and the ratios site-gen / Hugo, and our output's bytes and
files by kind (site_weight.py), and writes them as JSON to --work/results.json.
Hugo is installed from Debian when missing and root; otherwise it is skipped with a clear line.
The corpus's dumps are put back as generated when the run ends.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from site_weight import table, weigh

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


@dataclass
class Run:
    """One timed child process."""

    seconds: float
    peak_pss_mb: float
    """Peak of the summed PSS of the process and all its descendants (``TreeMemory``)."""
    user_seconds: float = 0.0
    sys_seconds: float = 0.0
    """CPU time of the process and the children it waited for (``wait4``): user time moves
    with the code, system time mostly with the file system, which on a noisy machine swings
    the wall time by seconds from run to run."""


class TreeMemory:
    """Samples the summed PSS of a process and its descendants in a thread; keeps the peak.

    PSS (proportional set size) splits each page shared by forked workers among them, so the
    sum is the memory the tree holds; max RSS (wait4) sees one process, and summed RSS would
    count the pages a fork shares with its parent once per process.
    """

    INTERVAL = 0.02

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def stop(self) -> float:
        """Stop sampling; the peak in MB."""
        self._stop.set()
        self._thread.join()
        return self.peak_kb / 1024

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, sum(map(pss_kb, descendants(self.root))))
            self._stop.wait(self.INTERVAL)


def descendants(root: int) -> list[int]:
    """``root`` and every live process below it (from /proc/PID/task/TID/children)."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children") as children:
                    todo += map(int, children.read().split())
            except OSError:
                pass
    return found


def pss_kb(pid: int) -> int:
    """A process's PSS in kB; 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def timed(command: list[str], cwd: Path | None = None, timeout: float = 3600,
          env: dict[str, str] | None = None) -> Run:
    """Run a command to completion; wall time and the peak PSS of its process tree."""
    env = env or {**os.environ, "PYTHONPATH": str(REPO)}
    errors = tempfile.TemporaryFile()  # noqa: SIM115 - read after the command ends, closed below
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                               stderr=errors)
    memory = TreeMemory(process.pid)
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            process.kill()
            memory.stop()
            raise TimeoutError(" ".join(command))
        time.sleep(0.005)
    seconds = time.perf_counter() - started
    peak = memory.stop()
    if os.waitstatus_to_exitcode(status) != 0:
        errors.seek(0)
        error = errors.read().decode(errors="replace")[-2000:]
        raise RuntimeError(f"{' '.join(command)} failed:\n{error}")
    errors.close()
    return Run(seconds, peak, usage.ru_utime, usage.ru_stime)


def ensure_hugo() -> str | None:
    """The hugo binary, installing Debian's package if we may; None when unavailable."""
    found = shutil.which("hugo")
    if found or os.geteuid() != 0:
        return found
    for step in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "hugo"]):
        if subprocess.run(step, check=False, capture_output=True).returncode != 0:
            return None
    return shutil.which("hugo")


def corpus(work: Path, n: int, seed: int, hugo: bool) -> Path:
    """Generate the corpus for N papers once; later runs reuse it."""
    target = work / f"corpus-{n}-{seed}"
    if not (target / "content" / "dumps").is_dir() or (hugo and not (target / "hugo").is_dir()):
        command = [sys.executable, str(HERE / "gen_corpus.py"), str(n), "--seed", str(seed),
                   "--out", str(target), "--force"] + ([] if hugo else ["--no-hugo"])
        subprocess.run(command, check=True, capture_output=True)
    return target


def first_dump(root: Path) -> Path:
    return min((root / "content" / "dumps").glob("0*.txt"))


def append_record(root: Path, number: int) -> Path:
    """Edit (c): append a new record (a new paper) to the first listing dump."""
    dump = first_dump(root)
    with dump.open("a", encoding="utf-8") as out:
        out.write(f"\n\narXiv2026\n\nBenchmark Appended Paper Number {number}\n\n"
                  f"An appended abstract number {number} about caching site builds.\n\ncs.LG↗\n")
    return dump


def add_hugo_page(root: Path, number: int) -> Path:
    """The same kind of edit for Hugo: one new content page."""
    page = root / "hugo" / "content" / "papers" / f"zz-benchmark-appended-{number}.md"
    page.write_text(f'+++\ntitle = "Benchmark Appended Paper Number {number}"\ndate = 2026-01-01\n'
                    f'authors = ["Benchmark Author"]\nsubjects = ["cs.LG"]\n+++\n'
                    f"An appended abstract number {number} about caching site builds.\n",
                    encoding="utf-8")
    return page


GRAVEYARD = "graveyard"
"""Folder of --work where outputs are moved instead of deleted until the run ends."""


def settle(removed: Path | None = None) -> None:
    """Move a folder (if given) out of the way into the graveyard, then sync.

    Not deleted: on ext4 without a journal (this machine's disk), a file created within a
    minute (six, while its inode table block is dirty) of the deletion of another is given
    an inode only after every recently freed one has been looked at and skipped (the
    kernel's ``recently_deleted``), so deleting one 57,000-file output made the next build's
    kernel time five times as long, and that for whichever tool came next.
    """
    if removed is not None and removed.exists():
        bury(removed)
    os.sync()
    time.sleep(1)


def bury(folder: Path) -> None:
    """Move ``folder`` into the graveyard beside it (``GRAVEYARD``), under a new name."""
    graveyard = folder.parent / GRAVEYARD
    graveyard.mkdir(exist_ok=True)
    folder.rename(graveyard / f"{folder.name}-{time.monotonic_ns()}")


CACHE = ".site-gen-cache"
"""site-gen's build cache in the project (docs/usage.md): a full build starts without it."""


@functools.cache
def compiled_env(work: Path) -> dict[str, str]:
    """The environment site-gen runs in, its modules compiled once as an installed package's
    are (pip compiles them): into ``work/pycache``, so that nothing is written into the
    checkout. A machine that sets PYTHONDONTWRITEBYTECODE (this one does) otherwise has each
    run compile every module of site-gen first, 0.2 s that no installed copy spends. Once
    per folder: the caller does not change what it returns."""
    env = {name: value for name, value in os.environ.items()
           if name != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPATH": str(REPO), "PYTHONPYCACHEPREFIX": str(work / "pycache")}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "site_gen")],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return env


def site_gen(root: Path, out: Path, fresh: bool, jobs: int | None) -> Run:
    if fresh:  # nothing of an earlier build: no cache, and no previous site kept beside
        shutil.rmtree(root / CACHE, ignore_errors=True)  # the output (docs/usage.md)
        spare = out.with_name(f".{out.name}.staging")
        if spare.exists():
            bury(spare)
    settle(out if fresh else None)
    command = [sys.executable, "-m", "site_gen", "build", "--quiet", "--project", str(root),
               "--output", str(out)] + (["--jobs", str(jobs)] if jobs else [])
    run = timed(command, env=compiled_env(root.parent))
    wait_for_trash(out)
    return run


def wait_for_trash(out: Path, limit: float = 120.0) -> None:
    """Let the background deletion of the previous site (write/tree.py) finish before the next
    measurement, so its disk work is not counted against whatever runs next."""
    deadline = time.monotonic() + limit
    while any(out.parent.glob(f".{out.name}.trash-*")) and time.monotonic() < deadline:
        time.sleep(0.1)


def hugo_build(hugo: str, root: Path, out: Path, fresh: bool) -> Run:
    settle(out if fresh else None)
    return timed([hugo, "--quiet", "--source", str(root / "hugo"), "--destination", str(out)])


def copy_floor(out: Path, work: Path) -> Run:
    target = work / "copy-floor"
    settle(target)
    return timed(["cp", "-r", str(out), str(target)])


def median(runs: list[Run]) -> Run:
    """Each figure's median over the runs (not one run's figures)."""
    return Run(*(statistics.median(getattr(r, f.name) for r in runs) for f in fields(Run)))


def cpu(run: dict[str, float]) -> str:
    return f"CPU {run['user_seconds']:.1f} s user, {run['sys_seconds']:.1f} s system"


def bench_size(n: int, args: argparse.Namespace, hugo: str | None) -> dict[str, object]:
    root = corpus(args.work, n, args.seed, hugo is not None)
    ours_out, hugo_out = args.work / f"site-gen-{n}", args.work / f"hugo-{n}"
    full: dict[str, list[Run]] = {"site-gen": [], "hugo": []}
    again: dict[str, list[Run]] = {"site-gen": [], "hugo": []}
    floor: list[Run] = []
    # Full builds and copies first: they make every file anew, and a build again deletes the
    # old output (see settle); then the builds again.
    for _ in range(args.runs):
        full["site-gen"].append(site_gen(root, ours_out, True, args.jobs))
        if hugo:
            full["hugo"].append(hugo_build(hugo, root, hugo_out, True))
    for _ in range(args.runs):
        floor.append(copy_floor(ours_out, args.work))
    dump = first_dump(root)
    original = dump.read_bytes()
    added: list[Path] = []
    try:
        # The output of a first build again (the cache, if any, is made by a first build)
        site_gen(root, ours_out, False, args.jobs)
        for number in range(args.runs):
            append_record(root, number)
            again["site-gen"].append(site_gen(root, ours_out, False, args.jobs))
            if hugo:
                added.append(add_hugo_page(root, number))
                again["hugo"].append(hugo_build(hugo, root, hugo_out, False))
    finally:
        dump.write_bytes(original)
        for page in added:
            page.unlink()
    pages = sum(1 for _ in ours_out.rglob("*.html"))
    result: dict[str, object] = {"papers": n, "html_pages": pages, "runs": args.runs,
                                 "copy_floor": asdict(median(floor)), "weight": weigh(ours_out)}
    for name in ("site-gen", "hugo"):
        if full[name]:
            result[name] = {"full": asdict(median(full[name])), "rebuild": asdict(median(again[name]))}
    return result


def report(result: dict[str, object]) -> str:
    ours = result["site-gen"]
    lines = [(f"N={result['papers']:,} papers, {result['html_pages']:,} HTML pages, "
              f"medians of {result['runs']}")]
    floor = result["copy_floor"]["seconds"]
    full = ours["full"]["seconds"]
    lines.append(f"  site-gen full build   {full:7.2f} s  {ours['full']['peak_pss_mb']:7.0f} MB  "
                 f"{result['html_pages'] / full:8.0f} pages/s  ({full / floor:.1f}x the cp -r floor of {floor:.2f} s)"
                 f"  {cpu(ours['full'])}")
    again = ours["rebuild"]["seconds"]
    lines.append(f"  site-gen build again  {again:7.2f} s  after a record appended to a dump "
                 f"({100 * again / full:.0f}% of a full build)  {cpu(ours['rebuild'])}")
    if "hugo" in result:
        theirs = result["hugo"]
        hfull = theirs["full"]["seconds"]
        lines.append(f"  hugo full build       {hfull:7.2f} s  {theirs['full']['peak_pss_mb']:7.0f} MB  "
                     f"{result['html_pages'] / hfull:8.0f} pages/s  {cpu(theirs['full'])}")
        lines.append(f"  hugo build again      {theirs['rebuild']['seconds']:7.2f} s  after a page added"
                     f"  {cpu(theirs['rebuild'])}")
        lines.append(f"  ratio site-gen/hugo   time {full / hfull:.2f}x   peak PSS (tree) "
                     f"{ours['full']['peak_pss_mb'] / theirs['full']['peak_pss_mb']:.2f}x   "
                     f"rebuild {ours['rebuild']['seconds'] / theirs['rebuild']['seconds']:.2f}x")
    else:
        lines.append("  hugo: skipped (not installed and could not be installed)")
    lines.append("  site-gen output by kind (benchmarks/site_weight.py):")
    lines.append(table(result["weight"], result["papers"]))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None, help="site-gen --jobs (default: auto)")
    parser.add_argument("--work", type=Path, default=HERE / "out")
    parser.add_argument("--no-hugo", action="store_true")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    hugo = None if args.no_hugo else ensure_hugo()
    results = []
    for n in (int(s) for s in args.sizes.split(",")):
        result = bench_size(n, args, hugo)
        results.append(result)
        print(report(result), flush=True)
    (args.work / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    shutil.rmtree(args.work / GRAVEYARD, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
