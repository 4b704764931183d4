#!/usr/bin/env python3
"""Time the files beside the pages (search, feeds, sitemap, citations, exports, BibTeX global).

    python3 benchmarks/site_files.py PROJECT [--runs 3] [--digests OUT.json]

Plans the project once, then measures (cold) ``Builder._bibtex`` + ``Builder._site_files`` with
empty memory, and (incremental) the same after a one-word abstract edit in one dump, on a
Builder that remembers the previous catalog. ``--digests`` writes every file's SHA-256, so two
versions of site-gen can be compared byte for byte. Run it with ``PYTHONPATH`` pointing at the
version to measure; alternate versions on a shared machine.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from site_gen.incremental.builder import Builder
from site_gen.incremental.pieces import Carried, CatalogDelta
from site_gen.pipeline import site_files_key

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rebuild import EDIT_MARK, edit_one_dump, first_dump


def files_of(builder: Builder, plan: object, previous: dict[str, bytes] | None = None
             ) -> tuple[dict[str, bytes], float]:
    """The BibTeX global and the site files of ``plan``, and the seconds they took. Files the
    generators carry over (a rebuild given the catalog delta) are taken from ``previous``,
    the last call's files, as a build takes them from its output."""
    started = time.perf_counter()
    catalog, changes = plan.catalog, plan.changes  # type: ignore[attr-defined]
    delta = CatalogDelta.of(builder.memory.catalog, catalog, changes)
    entries = builder._bibtex(plan, False, delta)  # type: ignore[arg-type]
    now = site_files_key(plan)  # type: ignore[arg-type]
    stream, _ = builder._site_files(plan, now, entries, False, delta)  # type: ignore[arg-type]
    files: dict[str, bytes] = {}
    for item in stream:
        if isinstance(item, Carried):
            files.update((name, (previous or {})[name]) for name in item.names)
        else:
            name, data = item
            files[name] = data if isinstance(data, bytes) else b"".join(data)
    return files, time.perf_counter() - started


def remember(builder: Builder, plan: object, files: dict[str, bytes]) -> None:
    """What a build that wrote would remember: the catalog, and what the files beside the
    pages were made from (the site-file memos are the builder's)."""
    key = site_files_key(plan)  # type: ignore[arg-type]
    builder.memory = replace(builder.memory, catalog=plan.catalog,  # type: ignore[attr-defined]
                             site_files=(key, tuple(files)))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("project", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--digests", type=Path)
    parser.add_argument("--verify", action="store_true",
                        help="check each rebuild's files against a fresh Builder's (untimed)")
    args = parser.parse_args()
    if EDIT_MARK in first_dump(args.project).read_text(encoding="utf-8"):
        edit_one_dump(args.project, undo=True)
    gc.disable()
    cold, incremental = [], []
    for _ in range(args.runs):
        builder = Builder(args.project, args.project / "_unused", keep_spare=True)  # keeps memos
        plan = builder.plan()[0]
        files, seconds = files_of(builder, plan)
        cold.append(seconds)
        remember(builder, plan, files)
        for undo in (False, True):
            edit_one_dump(args.project, undo=undo)
            plan = builder.plan([str(first_dump(args.project).resolve())])[0]
            edited, seconds = files_of(builder, plan, files)
            incremental.append(seconds)
            if args.verify:
                fresh = Builder(args.project, args.project / "_unused")
                assert files_of(fresh, plan)[0] == edited, "a rebuild's files differ from fresh"
                print("  verified: the rebuild's files are a fresh build's", flush=True)
            remember(builder, plan, edited)
            files = edited
        gc.collect()
    if args.digests:
        args.digests.write_text(json.dumps({n: hashlib.sha256(d).hexdigest()
                                            for n, d in sorted(files.items())}, indent=0))
    print(f"cold {statistics.median(cold):.2f} s {[round(x, 2) for x in cold]}; "
          f"after a one-paper edit {statistics.median(incremental):.2f} s "
          f"{[round(x, 2) for x in incremental]}; {len(files)} files", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
