"""Command line: ``site-gen build [--watch] | serve``; prints diagnostics, sets the exit code.

Exit codes: 0 success, 1 the input or output has problems (diagnostics printed), 2 usage.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .build import CONTENT_DIR, DEFAULT_OUTPUT, Builder, BuildResult
from .config import CONFIG_FILE, load_config
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
    _watch_options(build)
    build.set_defaults(run=_run_build)
    _add_serve(commands)
    return parser


def _project_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--project", type=Path, default=Path("."), metavar="DIR",
                         help="the project folder, holding content/ (default: current folder)")
    command.add_argument("--output", "-o", type=Path, default=None, metavar="DIR",
                         help=f"where to write the site (default: PROJECT/{DEFAULT_OUTPUT})")
    command.add_argument("--quiet", "-q", action="store_true", help="print only problems")


def _run_build(args: argparse.Namespace) -> int:
    if args.watch:
        return _run_watch(args)
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


# ---- watch mode and the preview server ---------------------------------------------------------


def _watch_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--watch", "-w", action="store_true",
                         help="rebuild whenever an input changes (Ctrl-C to stop)")
    command.add_argument("--poll", action="store_true",
                         help="watch by polling instead of inotify (network drives, containers)")


def _add_serve(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = commands.add_parser(
        "serve", help="build, preview on a local web server, rebuild and reload on every change")
    _project_options(serve)
    serve.add_argument("--port", "-p", type=int, default=8000, metavar="N",
                       help="the port to listen on (default: 8000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", metavar="HOST",
                       help="the address to listen on (default: 127.0.0.1, this machine only)")
    serve.add_argument("--poll", action="store_true",
                       help="watch by polling instead of inotify (network drives, containers)")
    serve.set_defaults(run=_run_serve)


def _run_watch(args: argparse.Namespace) -> int:
    """``build --watch``: the watch loop without a server."""
    from .session import WatchSession  # watchdog is imported only when watching

    session = WatchSession(Builder(args.project, args.output, keep_spare=True), poll=args.poll,
                           strict=args.strict, say=_quiet if args.quiet else _say)
    _stop_on_sigterm()
    try:
        session.start()
        print("site-gen: watching for changes (Ctrl-C to stop)", file=sys.stderr, flush=True)
        session.run()
    except KeyboardInterrupt:
        pass
    finally:
        session.close()
    return 0


def _run_serve(args: argparse.Namespace) -> int:
    """``serve``: bind first (a busy port fails at once), build, then serve and watch."""
    from .serve import LiveState, PreviewServer
    from .session import WatchSession

    builder = Builder(args.project, args.output, keep_spare=True)
    live = LiveState(_base_path(args.project))
    try:
        server = PreviewServer((args.host, args.port), builder.output, live)
    except OSError as exc:
        print(f"site-gen: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; "
              "choose another --port", file=sys.stderr)
        return 1
    session = WatchSession(builder, live, poll=args.poll, say=_quiet if args.quiet else _say)
    _stop_on_sigterm()
    thread = threading.Thread(target=server.serve_forever, name="site-gen-preview", daemon=True)
    try:
        session.start()
        thread.start()
        _say_serving(server, args.host)
        session.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown() if thread.is_alive() else None
        server.server_close()
        session.close()
    return 0


def _stop_on_sigterm() -> None:
    """``kill`` (SIGTERM) ends a session like Ctrl-C: cleanly, leaving no spare folder."""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupt)


def _say(line: str) -> None:
    print(line, flush=True)


def _quiet(line: str) -> None:
    """--quiet: successful rebuilds print nothing; problems still do."""


def _say_serving(server: object, host: str) -> None:
    print(f"site-gen: serving {server.url} (Ctrl-C to stop)", file=sys.stderr,  # type: ignore[attr-defined]
          flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"site-gen: warning: listening on {host}, so other machines can reach this "
              "preview", file=sys.stderr, flush=True)


def _base_path(project: Path) -> str:
    """Where the site is mounted before the first build has told us (from site.yaml)."""
    config, _ = load_config(project / CONTENT_DIR, CONFIG_FILE)
    return config.base_path
