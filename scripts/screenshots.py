#!/usr/bin/env python3
"""Screenshots of the demo site in headless Chromium.

    python3 scripts/screenshots.py                      # the README's four, into docs/screenshots/
    python3 scripts/screenshots.py --all --out DIR      # every page kind, to look at
    python3 scripts/screenshots.py --out DIR --site CORPUS/_site --pages subject-pager=subjects/cs.LG/page/2/ --at .pager

docs/screenshots/ holds only the shots README.md shows (``SHOWN``): the rest of the set (every
page kind at widths 390 and 1280, light and dark, some 40 files) is for looking at after a theme
change, and would only add megabytes to every clone, so ``--all`` and ``--pages`` write to the
folder ``--out`` names and never to docs/screenshots/. Files are ``<page>-<width>-<scheme>.png``.

Builds the demo project (content/) into a temporary folder unless --site names a built site,
serves it under /site-gen/ on 127.0.0.1. ``--pages`` takes page names, or ``name=url`` for a
page the demo site lacks (a later page of a long list, on a generated corpus); ``--at
SELECTOR`` starts each shot a little above that element (say, the pager at the foot of a list)
instead of at the top. Uses Debian's Chromium (/usr/bin/chromium, or $SITE_GEN_CHROMIUM)
through Playwright; nothing is fetched.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from browser.conftest import CHROMIUM_ARGS, CHROMIUM_PATH
from conftest import serve_directory

WIDTHS = (390, 1280)
SCHEMES = ("light", "dark")
MAX_HEIGHT = 1800
"""Long pages are cut at this many CSS pixels: the top of a page is what a reader judges."""

PAGES = {
    "home": "",
    "papers": "papers/",
    "paper": "papers/rola-rotary-positioned-low-rank-linear-attention-for-efficient-diffusion/",
    "paper-coauthors": "papers/part-i-tricks-or-traps-a-deep-dive-into-rl-for-llm-reasoning/",
    "paper-links": "papers/rollpacker-mitigating-long-tail-rollouts-for-fast-synchronous-rl-post-training/",
    "author": "authors/jiamang-wang/",
    "coauthor": "authors/zihe-liu/",
    "subjects": "subjects/",
    "subject": "subjects/cs.LG/",
    "search": "search/?q=rollout+sched",
    "page": "about/",
    "404": "404.html",
}


def build_demo(output: Path) -> Path:
    """Build the repository's demo project into ``output``."""
    from site_gen.incremental.builder import Builder

    result = Builder(REPO, output).build()
    if not result.ok:
        sys.exit("\n".join(str(d) for d in result.diagnostics))
    return output


SHOWN = (("author", 1280, "light"), ("search", 1280, "dark"),
         ("paper", 390, "light"), ("paper-links", 390, "dark"))
"""The shots README.md shows, and all that docs/screenshots/ keeps: (page, width, scheme)."""
DOCS = REPO / "docs" / "screenshots"


def every_shot(pages: dict[str, str]) -> Iterator[tuple[str, str, int, str]]:
    """(name, url, width, scheme) for each page at every width, in both schemes."""
    for name, url in pages.items():
        for width in WIDTHS:
            for scheme in SCHEMES:
                yield name, url, width, scheme


def shown_shots() -> list[tuple[str, str, int, str]]:
    """(name, url, width, scheme) for the shots README.md shows."""
    return [(name, PAGES[name], width, scheme) for name, width, scheme in SHOWN]


def take(site: Path, out: Path, shots: Iterable[tuple[str, str, int, str]],
         at: str | None = None) -> list[Path]:
    """Take the given screenshots (from the element ``at`` selects, if given); returns the files
    written."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as pw, serve_directory(site, "/site-gen/") as base:
        browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, headless=True,
                                     chromium_sandbox=False, args=CHROMIUM_ARGS)
        for name, url, width, scheme in shots:
            context = browser.new_context(viewport={"width": width, "height": 900},
                                          color_scheme=scheme, locale="en-US",
                                          reduced_motion="reduce")
            page = context.new_page()
            page.goto(base + url, wait_until="networkidle")
            if name == "search":
                page.wait_for_selector("#search-results li")
            total = page.evaluate("document.documentElement.scrollHeight")
            top = 0 if at is None else max(0, int(page.locator(at).first.bounding_box()["y"]) - 300)
            height = min(total - top, MAX_HEIGHT)
            path = out / f"{name}-{width}-{scheme}.png"
            page.screenshot(path=path, clip={"x": 0, "y": top, "width": width, "height": height},
                            full_page=True)
            written.append(path)
            context.close()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, build if needed, take the screenshots."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path,
                        help="where to write (required with --all or --pages; default: docs/screenshots/)")
    parser.add_argument("--site", type=Path, help="an already built site (default: build the demo)")
    parser.add_argument("--all", action="store_true", help="every page kind, width and scheme")
    parser.add_argument("--pages", help="comma-separated page names (" + ", ".join(PAGES)
                        + ") or name=url, at every width and scheme")
    parser.add_argument("--at", help="a CSS selector: start each shot just above it")
    args = parser.parse_args(argv)
    if args.all or args.pages:
        if args.out is None or args.out.resolve() == DOCS:
            parser.error("--all and --pages need --out, a folder other than docs/screenshots/ "
                         "(which keeps only the shots README.md shows)")
        pages = PAGES if not args.pages else dict(
            entry.split("=", 1) if "=" in entry else (entry, PAGES[entry])
            for entry in args.pages.split(","))
        shots = list(every_shot(pages))
    else:
        shots = shown_shots()
    out = args.out or DOCS
    if not os.access(CHROMIUM_PATH, os.X_OK):
        sys.exit(f"{CHROMIUM_PATH} not found: run scripts/install-test-deps.sh")
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_demo(Path(tmp) / "site")
        for path in take(site, out, shots, args.at):
            print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return 0

if __name__ == "__main__":
    sys.exit(main())
