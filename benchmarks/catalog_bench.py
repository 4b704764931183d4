#!/usr/bin/env python3
"""Time the catalog stage of a watch rebuild (build_catalog + intern_catalog), with and without
the Builder's CatalogMemo, after small edits to the dumps of a generated corpus.

    python3 benchmarks/catalog_bench.py PROJECT [--runs 5]

PROJECT is a corpus made by ``gen_corpus.py``; the dumps are edited during the run and put back
at the end, so use a copy you do not mind. Each kind of edit (a word of an abstract, a title,
a deleted record, a dump removed, a dump added) is made and undone ``--runs`` times; each step
re-reads the dumps through a Builder (unchanged files come back as the same objects) and times
the catalog stage with the memo (warm from the step before) and without it, with the garbage
collector off as in a watch session. Every memoized
result is checked against a fresh build. Prints the best of the runs, in milliseconds.
"""

from __future__ import annotations

import argparse
import gc
import re
import shutil
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from rebuild import EDIT_MARK, edit_one_dump, first_dump

from site_gen.catalog.assemble import build_catalog
from site_gen.incremental.builder import Builder
from site_gen.incremental.cache import intern_catalog
from site_gen.incremental.catalog import CatalogMemo
from site_gen.model import Catalog, Dump
from site_gen.pipeline import CONTENT_DIR
from site_gen.read.curation import CURATION_FILE, load_curation

ADDED = "zzz_added.txt"


def edits(project: Path) -> dict[str, Callable[[], None]]:
    """Each kind of edit, as a function that makes it (the run undoes it by restoring bytes)."""
    dump = first_dump(project)
    text = dump.read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"^arXiv\d{4}$", text, flags=re.MULTILINE)]
    title_at = text.index("\n\n", starts[0] + 1) + 2
    return {
        "abstract word": lambda: edit_one_dump(project),
        "title": lambda: dump.write_text(text[:title_at] + "Revisited: " + text[title_at:],
                                         encoding="utf-8"),
        "delete record": lambda: dump.write_text(text[:starts[0]] + text[starts[1]:],
                                                 encoding="utf-8"),
        "remove dump": lambda: dump.unlink(),
        "add dump": lambda: shutil.copy(dump, dump.with_name(ADDED)),
    }


def restore(dump: Path, original: bytes) -> None:
    """Put the edited dump back as it was, and take the added one away."""
    dump.write_bytes(original)
    dump.with_name(ADDED).unlink(missing_ok=True)


def read(builder: Builder) -> list[Dump]:
    dumps, _ = builder._read_dumps(builder.project / CONTENT_DIR, set(), (), [])
    return dumps


def timed(make: Callable[[], tuple[Catalog, list]], previous: Catalog) -> tuple[Catalog, list, float]:
    """The catalog (interned against ``previous``), its diagnostics and the seconds taken.

    As in a watch session (live/session.py), what is alive is frozen and collection is off."""
    gc.freeze()
    gc.disable()
    try:
        started = time.perf_counter()
        catalog, diagnostics = make()
        catalog, _ = intern_catalog(catalog, previous)
        return catalog, diagnostics, time.perf_counter() - started
    finally:
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    project = args.project.resolve()
    if EDIT_MARK in first_dump(project).read_text(encoding="utf-8"):
        edit_one_dump(project, undo=True)  # an interrupted run left its edit behind
    dump = first_dump(project)
    original = dump.read_bytes()
    restore(dump, original)  # an interrupted run may have left an added dump behind
    builder = Builder(project, keep_spare=True)
    curation, _ = load_curation(project / CONTENT_DIR, f"{CONTENT_DIR}/{CURATION_FILE}")
    memo = CatalogMemo()
    dumps = read(builder)
    papers = len({p for p in build_catalog(dumps, curation)[0].papers})
    print(f"{len(dumps)} dumps, {sum(len(d.records) for d in dumps)} records, {papers} papers")
    started = time.perf_counter()
    previous, _, _ = timed(lambda: memo.build(dumps, curation), None)  # type: ignore[arg-type]
    print(f"first build with the memo: {(time.perf_counter() - started) * 1000:.0f} ms")
    print(f"\n{'edit':15} {'memo (ms)':>10} {'no memo (ms)':>13}   best of {args.runs}")
    try:
        for name, edit in edits(project).items():
            with_memo, without = [], []
            for _ in range(args.runs):
                for step in (edit, lambda: restore(dump, original)):
                    step()
                    dumps = read(builder)
                    catalog, diagnostics, seconds = timed(
                        partial(memo.build, dumps, curation), previous)
                    with_memo.append(seconds)
                    fresh, fresh_diagnostics, seconds = timed(
                        partial(build_catalog, dumps, curation), previous)
                    without.append(seconds)
                    assert catalog == fresh and diagnostics == fresh_diagnostics, name
                    previous = catalog
            print(f"{name:15} {min(with_memo) * 1000:10.1f} {min(without) * 1000:13.1f}", flush=True)
    finally:
        restore(dump, original)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
