"""Command line: ``site-gen build | serve | check``; prints diagnostics, sets the exit code.

Exit codes: 0 success, 1 the input or output has problems (diagnostics printed), 2 usage.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .build import DEFAULT_OUTPUT, Builder, BuildResult
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
    build.add_argument("--strict", action="store_true",
                       help="fail on warnings too (for CI)")
    build.set_defaults(run=_run_build)
    return parser


def _project_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--project", type=Path, default=Path("."), metavar="DIR",
                         help="the project folder, holding content/ (default: current folder)")
    command.add_argument("--output", "-o", type=Path, default=None, metavar="DIR",
                         help=f"where to write the site (default: PROJECT/{DEFAULT_OUTPUT})")
    command.add_argument("--quiet", "-q", action="store_true", help="print only problems")


def _run_build(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    builder = Builder(args.project, args.output)
    result = builder.build(strict=args.strict)
    print_diagnostics(result)
    if not result.ok:
        print(f"site-gen: build failed; {builder.output} was left as it was", file=sys.stderr)
        return 1
    if not args.quiet:
        print(summary_line(result, builder.output, time.perf_counter() - started))
    return 0


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
