"""Command line: ``site-gen build | check``; prints diagnostics, sets the exit code.

Exit codes: 0 success, 1 the input or output has problems (diagnostics printed), 2 usage.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .build import CONTENT_DIR, DEFAULT_OUTPUT, Builder, BuildResult
from .check import CheckReport, check, infer_site_url
from .config import CONFIG_FILE, checked_site_url, load_config
from .diagnostics import Severity


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``site-gen`` console script."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    return int(args.run(args))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="site-gen", description="Build a static publication site from author dumps.")
    parser.add_argument("--version", action="version", version=f"site-gen {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    build = commands.add_parser("build", help="build the site in the project folder")
    _project_options(build)
    build.add_argument("--jobs", "-j", type=_positive, default=None, metavar="N",
                       help="render with N processes (default: one per core for large sites)")
    build.add_argument("--strict", action="store_true",
                       help="fail on warnings too (for CI)")
    _site_url_option(build, "use this site URL instead of site_url in site.yaml (e.g. the "
                            "GitHub Pages URL in CI)")
    build.set_defaults(run=_run_build)
    checker = commands.add_parser(
        "check", help="check a built site offline: links, assets, fragments, feeds, sitemap")
    checker.add_argument("site", nargs="?", type=Path, default=None, metavar="SITE_DIR",
                         help=f"the built site (default: PROJECT/{DEFAULT_OUTPUT})")
    checker.add_argument("--project", type=Path, default=Path("."), metavar="DIR",
                         help="the project folder (default: current folder)")
    checker.add_argument("--quiet", "-q", action="store_true", help="print only problems")
    _site_url_option(checker, "the URL the site is served at (default: the home page's "
                              "canonical link, else site_url in site.yaml)")
    checker.set_defaults(run=_run_check)
    return parser


def _site_url_option(command: argparse.ArgumentParser, text: str) -> None:
    command.add_argument("--site-url", default=None, metavar="URL", help=text)


def _project_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--project", type=Path, default=Path("."), metavar="DIR",
                         help="the project folder, holding content/ (default: current folder)")
    command.add_argument("--output", "-o", type=Path, default=None, metavar="DIR",
                         help=f"where to write the site (default: PROJECT/{DEFAULT_OUTPUT})")
    command.add_argument("--quiet", "-q", action="store_true", help="print only problems")


def _positive(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _run_build(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    builder = Builder(args.project, args.output, site_url=args.site_url, jobs=args.jobs)
    result = builder.build(strict=args.strict)
    print_diagnostics(result)
    if not result.ok:
        print(f"site-gen: build failed; {builder.output} was left as it was", file=sys.stderr)
        return 1
    if not args.quiet:
        print(summary_line(result, builder.output, time.perf_counter() - started))
    return 0


def _run_check(args: argparse.Namespace) -> int:
    site = args.site or args.project / DEFAULT_OUTPUT
    if not (site / "index.html").is_file() and not (site / "404.html").is_file():
        print(f"site-gen: {site} holds no built site; run site-gen build first", file=sys.stderr)
        return 1
    site_url = _site_url_for_check(args, site)
    if site_url is None:
        print("site-gen: cannot tell the site's URL; pass --site-url", file=sys.stderr)
        return 2
    report = check(site, site_url)
    for diagnostic in report.diagnostics:
        print(diagnostic, file=sys.stderr)
    if not args.quiet or not report.ok:
        print(check_summary(report, site, site_url))
    return 0 if report.ok else 1


def _site_url_for_check(args: argparse.Namespace, site: Path) -> str | None:
    """--site-url, else what the built site says, else the project's site.yaml."""
    if args.site_url:
        url, problem = checked_site_url(args.site_url)
        return None if problem else url
    inferred = infer_site_url(site)
    if inferred:
        return inferred
    content = args.project / CONTENT_DIR
    if (content / CONFIG_FILE).is_file():
        return load_config(content, CONFIG_FILE)[0].site_url
    return None


def check_summary(report: CheckReport, site: Path, site_url: str) -> str:
    """One line: what was checked and the verdict."""
    verdict = "no problems" if report.ok else f"{len(report.diagnostics)} problem" + (
        "s" if len(report.diagnostics) != 1 else "")
    return (f"checked {site} as {site_url}: {report.files} files, {report.pages} pages, "
            f"{report.links} links ({report.external} external, not fetched); {verdict}")


def print_diagnostics(result: BuildResult) -> None:
    """Every diagnostic as ``path:line: message`` on stderr."""
    for diagnostic in result.diagnostics:
        print(diagnostic, file=sys.stderr)


def summary_line(result: BuildResult, output: Path, seconds: float) -> str:
    """One line: pages, what changed on disk, time, warnings."""
    assert result.written is not None
    warnings = sum(d.severity is Severity.WARNING for d in result.diagnostics)
    parts = [f"built {result.pages} pages into {output}",
             f"{len(result.written.changed)} changed, {len(result.written.removed)} removed",
             f"{seconds * 1000:.0f} ms"]
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return "; ".join(parts)
