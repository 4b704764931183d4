#!/usr/bin/env python3
"""What taking site-gen home costs a user's CI, measured as the CI runs it.

    .venv/bin/python benchmarks/take_home.py [--papers 10000] [--seed 1] [--runs 3] [--work DIR]
                                             [--shapes five-authors,many-authors] [--kinds a,c]

1. The carried wheel: ``site-gen new`` makes a project; its wheel's size is printed.
2. The install step, in a new virtual environment each run: the content-only layout's
   (``python -m pip install .site-gen/site_gen-*.whl``, read from the workflow
   ``site-gen new`` wrote) next to the fork layout's (``python -m pip install .`` in a copy of
   this checkout, site-gen built from source), alternated; pip's cache as the machine has it.
3. A CI rebuild at ``--papers`` papers (``benchmarks/gen_corpus.py``, each of ``--shapes``),
   next to a full build, alternated, ``--runs`` pairs, with the site-gen the carried wheel
   installed:
   - full build: a fresh checkout (the corpus copied into the same folder, new file times),
     no cache, no output folder: ``site-gen build``; its ``.site-gen-cache/`` is then kept,
     as ``actions/cache`` saves it;
   - CI rebuild: a fresh checkout in the same folder, one dump edited (rebuild.py's edit (a),
     a word of an abstract, or (c), a record appended), the kept cache restored, no output
     folder: ``site-gen build``.
   Each build is one process timed whole with ``/usr/bin/time``; the file system is synced
   before each, so one build's write-back is not timed in the next.

Prints each figure's median and the ratios. Timings are wall-clock on whatever else the
machine is doing: the ratios, measured in one run, are the figures to quote.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from rebuild import KINDS

EDITS = ("a", "c")
"""rebuild.py's kinds of edit a CI rebuild is timed after: one dump edited, or grown."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kinds", default=",".join(EDITS),
                        help="rebuild.py's kinds of edit to time, comma-separated")
    parser.add_argument("--shapes", default="five-authors,many-authors",
                        help="gen_corpus.py's corpus shapes to time, comma-separated")
    parser.add_argument("--work", type=Path, default=None,
                        help="keep the corpus here between runs (default: a temporary folder)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="take-home-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        project = new_project(work)
        wheel = next((project / ".site-gen").glob("site_gen-*.whl"))
        print(f"carried wheel: {wheel.name}, {wheel.stat().st_size / 1024:.0f} KiB")
        site_gen = time_installs(project, work, args.runs)
        for shape in args.shapes.split(","):
            corpus = make_corpus(work, args.papers, args.seed, shape)
            print(f"{shape}, {args.papers:,} papers:")
            for kind in args.kinds.split(","):
                time_ci_rebuilds(site_gen, corpus, work / "checkout", kind, args.runs)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


def new_project(work: Path) -> Path:
    """A project made by this checkout's ``site-gen new`` (its wheel is this checkout)."""
    project = work / "my-site"
    shutil.rmtree(project, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "site_gen", "new", str(project)], check=True,
                   stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(REPO)})
    return project


def install_step(workflow: Path) -> str:
    """The ``Install site-gen`` step's command of a Pages workflow."""
    steps = yaml.safe_load(workflow.read_text())["jobs"]["build"]["steps"]
    return next(s["run"] for s in steps if s.get("name") == "Install site-gen")


def time_installs(project: Path, work: Path, runs: int) -> Path:
    """Time both layouts' install steps, alternated; the site-gen command the carried wheel
    installed."""
    fork = work / "fork"
    shutil.rmtree(fork, ignore_errors=True)
    shutil.copytree(REPO, fork, ignore=shutil.ignore_patterns(
        ".git", ".venv", "_site", "._site*", ".site-gen-cache", "*.egg-info", "__pycache__",
        "build", "dist", "corpora", "out"))
    layouts = {"carried wheel": project, "fork (from source)": fork}
    times: dict[str, list[float]] = {name: [] for name in layouts}
    for run in range(runs):
        for name, folder in layouts.items():
            venv = work / f"venv-{run}-{len(times[name])}-{name.split()[0]}"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
                   "VIRTUAL_ENV": str(venv)}
            env.pop("PYTHONPATH", None)
            command = install_step(folder / ".github/workflows/pages.yml") + " --quiet"
            times[name].append(timed(["bash", "-e", "-c", command], folder, env))
            if name == "carried wheel" and run == runs - 1:
                installed = venv
            else:
                shutil.rmtree(venv)
    ours, peer = (statistics.median(times[n]) for n in layouts)
    print(f"install step, median of {runs}: carried wheel {ours:.2f} s, fork (from source) "
          f"{peer:.2f} s: {ours / peer:.2f}x")
    return installed / "bin" / "site-gen"


def make_corpus(work: Path, papers: int, seed: int, shape: str) -> Path:
    """The generated corpus' project folder (kept in ``work`` between runs)."""
    corpus = work / f"corpus-{shape}-{papers}-{seed}"
    if not (corpus / "content" / "dumps").is_dir():
        subprocess.run([sys.executable, str(HERE / "gen_corpus.py"), str(papers), "--seed",
                        str(seed), "--shape", shape, "--out", str(corpus), "--no-hugo"],
                       check=True, stdout=subprocess.DEVNULL)
    return corpus


def time_ci_rebuilds(site_gen: Path, corpus: Path, checkout: Path, kind: str,
                     runs: int) -> None:
    """Full builds and CI rebuilds after edit ``kind``, alternated, in one checkout folder."""
    full, again = [], []
    kept = checkout.parent / "kept-cache"
    for _ in range(runs):
        fresh_checkout(corpus, checkout)
        full.append(timed([str(site_gen), "build", "-q"], checkout))
        shutil.rmtree(kept, ignore_errors=True)
        (checkout / ".site-gen-cache").rename(kept)
        fresh_checkout(corpus, checkout)
        KINDS[kind].edit(checkout)
        kept.rename(checkout / ".site-gen-cache")
        again.append(timed([str(site_gen), "build", "-q"], checkout))
    ours, peer = statistics.median(again), statistics.median(full)
    print(f"  CI rebuild after edit ({kind}, {KINDS[kind].name}), median of {runs}: {ours:.2f} s against a full "
          f"build's {peer:.2f} s: {ours / peer:.0%}  (full {fmt(full)}; rebuild {fmt(again)})")


def fresh_checkout(corpus: Path, checkout: Path) -> None:
    """The corpus' content as a new clone has it: copied afresh, no cache, no output."""
    shutil.rmtree(checkout, ignore_errors=True)
    shutil.copytree(corpus / "content", checkout / "content", copy_function=shutil.copyfile)


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """The wall time of one process, as ``/usr/bin/time`` measures it."""
    os.sync()
    with tempfile.NamedTemporaryFile("r") as report:
        subprocess.run(["/usr/bin/time", "-o", report.name, "-f", "%e", *command], cwd=cwd,
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return float(report.read().split()[-1])


def fmt(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


if __name__ == "__main__":
    main()
