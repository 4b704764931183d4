#!/usr/bin/env python3
"""Screenshots of every page kind of the demo site in headless Chromium.

    python3 scripts/screenshots.py [--out docs/screenshots] [--site DIR] [--pages home,paper]
    python3 scripts/screenshots.py --site CORPUS/_site --pages subject-pager=subjects/cs.LG/page/2/ --at .pager

Builds the demo project (content/) into a temporary folder unless --site names a built
site, serves it under /site-gen/ on 127.0.0.1, and writes
``<out>/<page>-<width>-<scheme>.png`` for widths 390 and 1280, light and dark. ``--pages``
takes page names, or ``name=url`` for a page the demo site lacks (a later page of a long list,
on a generated corpus); ``--at SELECTOR`` starts each shot a little above that element (say,
the pager at the foot of a list) instead of at the top. Uses Debian's
Chromium (/usr/bin/chromium, or $SITE_GEN_CHROMIUM) through Playwright; nothing is fetched.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "browser"))

from conftest import CHROMIUM_ARGS, CHROMIUM_PATH, serve_directory

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


def shots(pages: dict[str, str]) -> Iterator[tuple[str, str, int, str]]:
    """(name, url, width, scheme) for every screenshot to take."""
    for name, url in pages.items():
        for width in WIDTHS:
            for scheme in SCHEMES:
                yield name, url, width, scheme


def take(site: Path, out: Path, pages: dict[str, str], at: str | None = None) -> list[Path]:
    """Take every screenshot (from the element ``at`` selects, if given); returns the files
    written."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as pw, serve_directory(site, "/site-gen/") as base:
        browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, headless=True,
                                     chromium_sandbox=False, args=CHROMIUM_ARGS)
        for name, url, width, scheme in shots(pages):
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
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument("--site", type=Path, help="an already built site (default: build the demo)")
    parser.add_argument("--pages", help="comma-separated page names (" + ", ".join(PAGES)
                        + ") or name=url")
    parser.add_argument("--at", help="a CSS selector: start each shot just above it")
    args = parser.parse_args(argv)
    pages = PAGES if not args.pages else dict(
        entry.split("=", 1) if "=" in entry else (entry, PAGES[entry])
        for entry in args.pages.split(","))
    if not os.access(CHROMIUM_PATH, os.X_OK):
        sys.exit(f"{CHROMIUM_PATH} not found: run scripts/install-test-deps.sh")
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_demo(Path(tmp) / "site")
        for path in take(site, args.out, pages, args.at):
            print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
