#!/usr/bin/env python3
"""Time route planning after one edit, from scratch and with last build's RouteMemo.

    python3 benchmarks/routes_bench.py PROJECT [--runs 5] [--edits abstract,title,...]

For each kind of edit (an abstract word, a title, a year, an author added to a paper, a
subject, a deleted record, an added dump) the project's dumps are read into a catalog, one
dump is edited, and the edited catalog is read again and interned against the first, as the
Builder does. Then ``plan_routes`` on the edited catalog is timed without a memo and with a
memo filled by planning the first catalog (best of ``--runs``), and its routes and diagnostics
are checked equal to the fresh plan's. Every dump is put back afterwards, even on failure.
The garbage collector is paused while timing, as in a watch session (live/session.py).
"""

from __future__ import annotations

import argparse
import gc
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from site_gen.catalog.assemble import build_catalog
from site_gen.incremental.cache import intern_catalog
from site_gen.incremental.routes import RouteMemo
from site_gen.model import Catalog
from site_gen.pipeline import CONTENT_DIR, dump_files
from site_gen.plan.routes import plan_routes
from site_gen.read.curation import CURATION_FILE, load_curation
from site_gen.read.dumps import read_dump
from site_gen.read.pages import read_pages

_RECORD = re.compile(r"^arXiv\d*$")


def read_catalog(project: Path, previous: Catalog | None) -> Catalog:
    """The project's catalog as the Builder makes it: merged, then interned."""
    content = project / CONTENT_DIR
    dumps = [read_dump(shown, path.read_bytes())[0] for shown, path in dump_files(content)]
    curation, _ = load_curation(content, f"{CONTENT_DIR}/{CURATION_FILE}")
    catalog, _ = build_catalog([d for d in dumps if d is not None], curation)
    return intern_catalog(catalog, previous)[0]


def listing_dumps(project: Path) -> list[Path]:
    return sorted((project / CONTENT_DIR / "dumps").glob("000_*.txt"))


def records(lines: list[str]) -> list[int]:
    """Where each record of a listing dump starts (its ``arXiv<year>`` line)."""
    return [i for i, line in enumerate(lines) if _RECORD.match(line)]


def edit_lines(path: Path, change: Callable[[list[str]], None]) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    change(lines)
    path.write_text("\n".join(lines), encoding="utf-8")


def edit_abstract(project: Path) -> None:
    def change(lines: list[str]) -> None:
        at = records(lines)[0] + 4
        lines[at] = lines[at].replace(" ", "-edited ", 1)
    edit_lines(listing_dumps(project)[0], change)


def edit_title(project: Path) -> None:
    """A new title (so a new id), sorting the paper last in its year."""
    def change(lines: list[str]) -> None:
        lines[records(lines)[0] + 2] = "Zzz " + lines[records(lines)[0] + 2]
    edit_lines(listing_dumps(project)[0], change)


def edit_year(project: Path) -> None:
    def change(lines: list[str]) -> None:
        lines[records(lines)[0]] = "arXiv2016"
    edit_lines(listing_dumps(project)[0], change)


def edit_subjects(project: Path) -> None:
    def change(lines: list[str]) -> None:
        at = records(lines)[0] + 6
        lines[at] = "math.OC↗" if lines[at] != "math.OC↗" else "cs.SE↗"
    edit_lines(listing_dumps(project)[0], change)


def add_author(project: Path) -> None:
    """The first record of one listing dump copied into another: the paper gains an author."""
    first, second = listing_dumps(project)[:2]
    lines = first.read_text(encoding="utf-8").split("\n")
    starts = records(lines)
    block = lines[starts[0]:starts[1]]
    edit_lines(second, lambda target: target.extend(["", *block[:-1]]))


def delete_record(project: Path) -> None:
    def change(lines: list[str]) -> None:
        starts = records(lines)
        del lines[starts[0]:starts[1]]
    edit_lines(listing_dumps(project)[0], change)


def add_dump(project: Path) -> None:
    """A new profile: two new papers, and one paper of another dump (which gains an author)."""
    lines = listing_dumps(project)[0].read_text(encoding="utf-8").split("\n")
    starts = records(lines)
    known = "\n".join(lines[starts[0]:starts[1]]).rstrip("\n")
    new = "\n\n".join(f"arXiv2021\n\nA Brand New Paper Number {n}\n\nWe study brand new "
                      f"thing {n} in a setting nobody tried before.\n\ncs.LG↗" for n in (1, 2))
    text = ("arXiv subjects\n\nNew Person\n\nPublications and source records attributed to New "
            f"Person.\n\n3 recordsLinked to original sources\n\n{new}\n\n{known}")
    (project / CONTENT_DIR / "dumps" / "999_new.txt").write_text(text, encoding="utf-8")


EDITS: dict[str, Callable[[Path], None]] = {
    "abstract": edit_abstract, "title": edit_title, "year": edit_year, "authors": add_author,
    "subjects": edit_subjects, "delete": delete_record, "add-dump": add_dump,
}


def best(runs: int, timed: Callable[[], object], before: Callable[[], object] = lambda: None
         ) -> float:
    """The fastest of ``runs`` calls of ``timed``, each after an untimed ``before``.

    The collector is paused while timing, as a watch session pauses it while building.
    """
    times = []
    for _ in range(runs):
        before()
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        timed()
        times.append(time.perf_counter() - started)
        gc.enable()
    return min(times)


def measure(project: Path, edit: str, runs: int) -> str:
    """One edit's line: fresh and memoized planning times, and whether they agree."""
    dumps = project / CONTENT_DIR / "dumps"
    saved = {p: p.read_bytes() for p in dumps.iterdir()}
    try:
        before = read_catalog(project, None)
        EDITS[edit](project)
        after = read_catalog(project, before)
    finally:
        for path in set(dumps.iterdir()) - saved.keys():
            path.unlink()
        for path, data in saved.items():
            path.write_bytes(data)
    pages, _ = read_pages(project / CONTENT_DIR, CONTENT_DIR)
    memo = RouteMemo()
    fresh = best(runs, lambda: plan_routes(after, pages))
    memoized = best(runs, lambda: memo.plan(after, pages),
                    lambda: memo.plan(before, pages))
    again = best(runs, lambda: memo.plan(after, pages))
    memo.plan(before, pages)
    same = memo.plan(after, pages) == plan_routes(after, pages)
    return (f"{edit:>9}: fresh {fresh * 1000:6.1f} ms, with memo {memoized * 1000:6.1f} ms, "
            f"unchanged again {again * 1000:5.1f} ms; {'equal' if same else 'DIFFERENT'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--edits", default=",".join(EDITS))
    args = parser.parse_args()
    for edit in args.edits.split(","):
        print(measure(args.project, edit, args.runs), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
