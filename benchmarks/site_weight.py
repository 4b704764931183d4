#!/usr/bin/env python3
"""What a built site weighs: bytes and files by kind, per paper, and the largest HTML file.

    python3 benchmarks/site_weight.py SITE [--papers N] [--json]

SITE is an output folder (``_site``). N, the papers the site was built from, gives the
per-paper figures (default: the number of paper pages). GitHub Pages refuses a site over
1 GB and GitLab Pages one over 200,000 files; issue 19 budgets 25 KB and 2.5 files per paper,
and no HTML file over 256 KB. ``benchmarks/run.py`` prints this table for every size it
builds. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern)) for kind, pattern in (
        ("search index", r"search/index/.+"),
        ("json exports", r"[^/]+\.json"),
        ("feeds", r"(.+/)?feed\.xml"),
        ("per-author .bib", r"authors/[^/]+/papers\.bib"),
        ("citation files", r"papers/[^/]+/cite\.[a-z.]+"),
        ("list pages", r"(papers/|authors/|subjects/|subjects/[^/]+/)?(page/\d+/)?index\.html"),
        ("author pages", r"authors/[^/]+/(page/\d+/)?index\.html"),
        ("paper pages", r"papers/[^/]+/index\.html"),
        ("other", r".*"),
    ))
"""Kinds of output file, by the first pattern their site-relative path matches in full. List
pages: the home page, the papers, authors and subjects indexes and each subject's pages."""

PAGE_LIMIT = 256 * 1024


def kind_of(name: str) -> str:
    """The kind of the output file at this site-relative path."""
    return next(kind for kind, pattern in KINDS if pattern.fullmatch(name))


def weigh(site: Path) -> dict[str, object]:
    """Bytes and files of each kind, in ``KINDS`` order, with totals and the largest HTML file."""
    kinds = {kind: {"bytes": 0, "files": 0} for kind, _ in KINDS}
    largest = ("", 0)
    over = 0
    for path in site.rglob("*"):
        if not path.is_file():
            continue
        name, size = path.relative_to(site).as_posix(), path.stat().st_size
        entry = kinds[kind_of(name)]
        entry["bytes"] += size
        entry["files"] += 1
        if name.endswith(".html"):
            largest = max(largest, (name, size), key=lambda pair: pair[1])
            over += size > PAGE_LIMIT
    return {"kinds": kinds, "bytes": sum(k["bytes"] for k in kinds.values()),
            "files": sum(k["files"] for k in kinds.values()),
            "largest_html": {"name": largest[0], "bytes": largest[1]},
            "html_over_256_kb": over, "paper_pages": kinds["paper pages"]["files"]}


def table(weight: dict[str, object], papers: int | None = None) -> str:
    """The weights as a text table (the rows docs/performance.md shows)."""
    n = papers or int(weight["paper_pages"]) or 1  # type: ignore[call-overload]
    kinds: dict[str, dict[str, int]] = weight["kinds"]  # type: ignore[assignment]
    lines = [f"  {'kind':<18}{'MB':>10}{'files':>10}{'KB/paper':>10}{'files/paper':>13}"]
    rows = [*kinds.items(), ("total", {"bytes": weight["bytes"], "files": weight["files"]})]
    for kind, entry in rows:
        lines.append(f"  {kind:<18}{entry['bytes'] / 1e6:>10.1f}{entry['files']:>10,}"
                     f"{entry['bytes'] / n / 1e3:>10.1f}{entry['files'] / n:>13.2f}")
    largest: dict[str, object] = weight["largest_html"]  # type: ignore[assignment]
    lines.append(f"  largest HTML file: {largest['name']} ({int(largest['bytes']) / 1024:.0f} KiB);"  # type: ignore[call-overload]
                 f" {weight['html_over_256_kb']} over 256 KiB; per paper: {n:,} papers")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--papers", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args()
    if not args.site.is_dir():
        print(f"{args.site}: not a folder", file=sys.stderr)
        return 2
    weight = weigh(args.site)
    print(json.dumps(weight, indent=2) if args.json else table(weight, args.papers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
