#!/usr/bin/env python3
"""Single-process page rendering time, per template, on a project folder.

    python3 benchmarks/render_bench.py [--project /tmp/c10k] [--templates paper.html,author.html]
                                       [--runs 3] [--compare OLD_SRC] [--profile FILE]

Plans the site once (``Builder.plan()``: dumps, catalog, routes), then renders every route
(or only the routes of ``--templates``) in this process with ``render_pages(..., workers=1)``,
the way ``Builder._render_and_write`` does on a first build: the same globals, one fragment
memo for the whole pass. Routes are rendered in groups by template, so each template gets its
own ms/page; list-item fragments are shared between groups as in a build.

One pass per process: the text memos (``functools.lru_cache``) are then exactly as warm as in
a real build, which renders each page once. Times are the process's CPU time by default
(``--clock cpu``): on a shared machine it varies much less than wall time, and rendering in
one process does no I/O, so the two agree on a quiet machine (``--clock wall`` to check).

``--compare OLD_SRC`` alternates this process's code with the site_gen checkout at OLD_SRC
(say, a ``git worktree`` of the commit before a change), ``--runs`` fresh processes each, and
prints the medians and the ratio per template. It also checks that both render the same bytes
(a SHA-256 of each template's pages). The machine is shared: only ratios measured in one run
mean anything.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import inspect
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=Path("/tmp/c10k"))
    parser.add_argument("--templates", default="",
                        help="comma-separated templates to render (default: every route)")
    parser.add_argument("--runs", type=int, default=3, help="processes per side with --compare")
    parser.add_argument("--src", type=Path, default=REPO,
                        help="site_gen checkout to import (default: this one)")
    parser.add_argument("--compare", type=Path, default=None, metavar="OLD_SRC",
                        help="alternate with the checkout at OLD_SRC and print the ratio")
    parser.add_argument("--profile", type=Path, default=None,
                        help="write a cProfile of the rendering (not the planning) here")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="process CPU time (default) or wall-clock time")
    parser.add_argument("--json", action="store_true", help="print one JSON object (internal)")
    args = parser.parse_args(argv)
    if args.compare is not None:
        return compare(args)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    timings, digests = measure(args.src, args.project, args.templates, args.profile, clock)
    if args.json:
        print(json.dumps({"timings": timings, "digests": digests}))
    else:
        report({"this": [timings]})
    return 0


def measure(src: Path, project: Path, templates: str, profile: Path | None,
            clock: Callable[[], float] = time.process_time
            ) -> tuple[dict[str, tuple[int, float]], dict[str, str]]:
    """Plan once, render every selected route once: {template: (pages, seconds)} and digests."""
    sys.path.insert(0, str(src.resolve()))
    from site_gen.incremental.builder import Builder
    from site_gen.outputs.citations import bibtex_entries
    from site_gen.render import engine
    from site_gen.render.engine import asset_versions, make_environment, render_pages

    plan, diagnostics, _, _ = Builder(project, output=project / "_bench_unused").plan()
    if plan is None:
        raise SystemExit("\n".join(str(d) for d in diagnostics))
    env = make_environment(plan.theme, plan.theme_templates)
    globals_ = {"asset_versions": asset_versions(plan.static),
                "bibtex": bibtex_entries(plan.catalog, plan.config.site_url),
                "nav_pages": tuple(p for p in plan.pages if p.nav)}
    wanted = set(filter(None, templates.split(",")))
    groups: dict[str, list[object]] = {}
    for route in plan.routes:
        if not wanted or route.template in wanted:
            groups.setdefault(route.template, []).append(route)
    memo = getattr(engine, "Fragments", None) or engine.FragmentMemo  # (older trees)
    memo = memo()
    profiler = cProfile.Profile() if profile else None
    timings: dict[str, tuple[int, float]] = {}
    digests: dict[str, str] = {}
    for template, routes in groups.items():
        if profiler:
            profiler.enable()
        start = clock()
        pages = render_into_memory(render_pages, env, tuple(routes), plan, globals_, memo)
        timings[template] = (len(routes), clock() - start)
        if profiler:
            profiler.disable()
        digest = hashlib.sha256()
        for name in sorted(pages):
            digest.update(name.encode() + b"\0" + pages[name] + b"\0")
        digests[template] = digest.hexdigest()
    if profiler and profile:
        profiler.dump_stats(str(profile))
    return timings, digests


def render_into_memory(render_pages: Callable[..., Any], env: Any, routes: tuple[Any, ...],
                       plan: Any, globals_: dict[str, Any], memo: Any) -> dict[str, bytes]:
    """Pages' bytes by name, from a render_pages that writes into a writer (now) or returns
    them (source trees older than the streaming output)."""
    if "writer" in inspect.signature(render_pages).parameters:
        from site_gen.render.engine import MemoryWriter
        writer = MemoryWriter()
        render_pages(env, routes, plan.config, plan.catalog, globals_, writer, workers=1,
                     fragments=memo)
        return writer.files
    rendered = render_pages(env, routes, plan.config, plan.catalog, globals_, workers=1,
                            fragments=memo)
    return {name: page.data for name, page in rendered.items()}


def compare(args: argparse.Namespace) -> int:
    """Alternate old and new in fresh processes; medians per template and their ratio."""
    sides = {"old": args.compare, "new": args.src}
    runs: dict[str, list[dict[str, tuple[int, float]]]] = {"old": [], "new": []}
    digests: dict[str, dict[str, str]] = {}
    for i in range(max(1, args.runs)):
        for side, src in sides.items():
            command = [sys.executable, __file__, "--json", "--src", str(src), "--clock", args.clock,
                       "--project", str(args.project), "--templates", args.templates]
            out = json.loads(subprocess.run(command, check=True, capture_output=True,
                                            text=True).stdout)
            runs[side].append({k: tuple(v) for k, v in out["timings"].items()})
            digests[side] = out["digests"]
            total = sum(s for _, s in runs[side][-1].values())
            print(f"run {i + 1} {side}: {total:.2f} s", flush=True)
    report(runs)
    print(f"clock: {args.clock}")
    differing = sorted(t for t in digests["new"] if digests["old"].get(t) != digests["new"][t])
    print("same bytes: " + ("yes, every template" if not differing
                            else "NO: " + ", ".join(differing)))
    return 1 if differing else 0


def report(runs: dict[str, list[dict[str, tuple[int, float]]]]) -> None:
    """A table of median ms/page per template per side (and new/old when there are two)."""
    sides = list(runs)
    templates = list(runs[sides[-1]][0])
    header = f"{'template':<14} {'pages':>6}" + "".join(f" {s + ' ms/page':>14}" for s in sides)
    print(header + (f" {'new/old':>8}" if len(sides) == 2 else ""))
    medians: dict[str, dict[str, float]] = {s: {} for s in sides}
    for template in templates + ["all"]:
        row = ""
        for side in sides:
            seconds = [_total(r, template) for r in runs[side]]
            medians[side][template] = statistics.median(seconds)
        pages = _pages(runs[sides[-1]][0], template)
        for side in sides:
            row += f" {medians[side][template] / pages * 1000:>14.3f}"
        if len(sides) == 2:
            row += f" {medians['new'][template] / medians['old'][template]:>8.2f}"
        print(f"{template:<14} {pages:>6}{row}")
    for side in sides:
        print(f"{side}: median total {medians[side]['all']:.2f} s over {len(runs[side])} run(s)")


def _total(run: dict[str, tuple[int, float]], template: str) -> float:
    return sum(s for t, (_, s) in run.items() if template in ("all", t))


def _pages(run: dict[str, tuple[int, float]], template: str) -> int:
    return sum(n for t, (n, _) in run.items() if template in ("all", t))


if __name__ == "__main__":
    sys.exit(main())
