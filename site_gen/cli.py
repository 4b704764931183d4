"""Command line: ``site-gen new | pin | build [--watch] | serve | check``; prints diagnostics, sets the exit code.

Exit codes: 0 success, 1 the input or output has problems (diagnostics printed), 2 usage.
Output: one summary line per build on stdout (none with ``--quiet``, stage timings and counts
after it with ``--verbose``), diagnostics on stderr, and on a terminal a progress bar on
stderr while a large site renders (util/progress.py; never when piped, in CI or with ``--quiet``).
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from site_gen import __version__
from site_gen.check import CheckReport, check, infer_site_url
from site_gen.incremental.builder import Builder
from site_gen.incremental.store import CACHE_DIR
from site_gen.pipeline import CONTENT_DIR, DEFAULT_OUTPUT, BuildResult
from site_gen.read.config import CONFIG_FILE, checked_site_url, load_config
from site_gen.read.curation import CURATION_FILE
from site_gen.util.diagnostics import STRICT_ALL, Diagnostic, Severity, has_errors
from site_gen.util.progress import choose_progress

if TYPE_CHECKING:
    from site_gen.live.session import WatchSession


def program() -> int:
    """The ``site-gen`` console script and ``python -m site_gen``: ``main`` on ``sys.argv``.

    The process ends right after, and Python's last garbage collection would walk every
    object left, only for them all to be freed with the process (a quarter of a second
    after a 10,000-paper build): they are frozen out of it first.

    A reader that goes away (``site-gen build | head``) ends it quietly, as other command
    line tools end, not with a traceback.
    """
    try:
        code = main()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1
    gc.freeze()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line (``sys.argv`` when ``argv`` is None) and return its exit code."""
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
    new = commands.add_parser("new", help="start a project: settings, folders, an about page "
                                          "and a GitHub Pages workflow")
    new.add_argument("folder", type=Path, metavar="DIR", help="the project folder to make "
                                                             "(new, or empty)")
    new.add_argument("--title", default="Publications", help="the site's title")
    new.set_defaults(run=_run_new)
    pin = commands.add_parser("pin", help="make the project carry the running site-gen: "
                                          "replace the wheel its Pages workflow installs")
    pin.add_argument("--project", type=Path, default=Path("."), metavar="DIR",
                     help="the project folder (default: current folder)")
    pin.set_defaults(run=_run_pin)
    build = commands.add_parser("build", help="build the site in the project folder")
    _project_options(build)
    build.add_argument("--jobs", "-j", type=_positive, default=None, metavar="N",
                       help="parse dumps and render pages with N processes (default: one per core "
                            "for large sites)")
    build.add_argument("--strict", nargs="?", const=True, default=False, type=_strict_level,
                       metavar="all", help="fail on warnings too (for CI); --strict=all also "
                                           "on informational ones, such as a dump's claimed "
                                           "record count")
    _site_url_option(build, "use this site URL instead of site_url in site.yaml (e.g. the "
                            "GitHub Pages URL in CI)")
    build.add_argument("--no-cache", action="store_true",
                       help=f"neither read nor write {CACHE_DIR}/ (what each page was rendered "
                            "from, so that the next build renders only what changed)")
    _watch_options(build)
    build.set_defaults(run=_run_build)
    _add_serve(commands)
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
    chatter = command.add_mutually_exclusive_group()
    chatter.add_argument("--quiet", "-q", action="store_true",
                         help="print only problems (and no progress bar)")
    chatter.add_argument("--verbose", "-v", action="store_true",
                         help="after each build, print how long each stage took and what it did")


def _whole(text: str) -> int:
    """An argument as a whole number, or argparse's usage error saying it is not one."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _positive(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _strict_level(text: str) -> str:
    """argparse type of ``--strict=all``."""
    if text != STRICT_ALL:
        raise argparse.ArgumentTypeError(f"--strict takes no value, or {STRICT_ALL!r}")
    return text


def _port(text: str) -> int:
    """argparse type: a TCP port, 0 (any free one) to 65535."""
    value = _whole(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: use 1 to 65535, or 0 for "
                                         "any free one")
    return value


def _run_new(args: argparse.Namespace) -> int:
    """``new``: write the project, then say what to do next."""
    from site_gen.carry import CarryError
    from site_gen.scaffold import new_project

    try:
        written, problem = new_project(args.folder, args.title)
    except OSError as exc:
        written, problem = [], f"cannot write {exc.filename or args.folder}: {exc.strerror}"
    except CarryError as exc:
        written, problem = [], f"cannot make the project: {exc}"
    if problem:
        print(f"site-gen: {problem}", file=sys.stderr)
        return 1
    print(f"site-gen: made a project in {args.folder}: {', '.join(written)}\n"
          f"next: copy your profile exports into {args.folder / 'content' / 'dumps'}/ as .txt "
          f"files, then\n  cd {args.folder} && site-gen serve\n"
          "to preview the site; commit the folder (.site-gen/ too: the workflow installs "
          "site-gen from it) and push it to GitHub to deploy it (docs/deployment.md)")
    return 0


def _run_pin(args: argparse.Namespace) -> int:
    """``pin``: carry the running site-gen; say what was replaced and what installs it."""
    from site_gen.carry import CarryError
    from site_gen.scaffold import INSTALL, pin_project, workflows_installing

    if not (args.project / CONTENT_DIR).is_dir():
        print(f"site-gen: {args.project} has no {CONTENT_DIR}/ folder: not a site-gen project "
              "(pass --project DIR, or make one with site-gen new)", file=sys.stderr)
        return 1
    try:
        wheel, replaced = pin_project(args.project)
    except CarryError as exc:
        print(f"site-gen: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"site-gen: cannot write {exc.filename or args.project}: {exc.strerror}",
              file=sys.stderr)
        return 1
    was = f" (replacing {', '.join(replaced)})" if replaced else ""
    print(f"site-gen: the project carries site-gen {__version__}: {wheel}{was}; commit it")
    if not workflows_installing(args.project):
        print("site-gen: no workflow in .github/workflows installs it; the install step of "
              f"a Pages workflow is:\n  run: {INSTALL}\n(docs/deployment.md)", file=sys.stderr)
    return 0


INTERRUPTED = 130
"""The exit code of a build ended by Ctrl-C: 128 + SIGINT, as a shell reports a process the
signal ended, so that a script running site-gen stops too."""


def _run_build(args: argparse.Namespace) -> int:
    if args.watch:
        return _run_watch(args)
    _interrupt_on_sigint()
    try:
        return _build_once(args)
    except KeyboardInterrupt:  # the output is swapped whole or not at all (write/tree.py)
        output = args.output or args.project / DEFAULT_OUTPUT
        print(f"site-gen: build interrupted; {output} is whole: the previous site, or this "
              "build's if it was already written", file=sys.stderr)
        return INTERRUPTED


def _build_once(args: argparse.Namespace) -> int:
    """``build``: one build, its diagnostics, then its summary line (unless ``--quiet``)."""
    started = time.perf_counter()
    builder = Builder(args.project, args.output, site_url=args.site_url, jobs=args.jobs,
                      progress=choose_progress(quiet=args.quiet),
                      cache=None if args.no_cache else args.project / CACHE_DIR)
    existed = builder.output.exists()
    result = builder.build(strict=args.strict)
    print_diagnostics(result)
    if not result.ok:
        print(*acknowledgements(result.diagnostics), failure_line(
            result, builder.output, existed, args.strict), sep="\n", file=sys.stderr)
        return 1
    if not args.quiet:
        print(summary_line(result, builder.output, time.perf_counter() - started))
    if args.verbose:
        print("\n".join(stage_lines(result, builder)))
    return 0


def failure_line(result: BuildResult, output: Path, existed: bool, strict: bool) -> str:
    """Why nothing was written, and what became of the output folder."""
    why = "" if has_errors(result.diagnostics) or not strict else " (--strict makes warnings errors)"
    kept = f"{output} was left as it was" if existed else f"nothing was written to {output}"
    return f"site-gen: build failed{why}; {kept}"


def acknowledgements(diagnostics: Sequence[Diagnostic]) -> list[str]:
    """When only warnings failed a build: the curation entries that accept them as they are,
    ready to paste (a warning that names a better remedy, such as a year, says so itself)."""
    if has_errors(diagnostics):
        return []
    entries = [f'  - {{code: {d.code}, at: "{d.path}{f":{d.line}" if d.line else ""}"}}'
               for d in diagnostics if d.code]
    if not entries:
        return []
    advice = (f"site-gen: to accept these warnings as they are, paste into content/"
              f"{CURATION_FILE} (the entries only, if it has an acknowledge: list already):")
    return [advice, "acknowledge:", *entries]


def _run_check(args: argparse.Namespace) -> int:
    site = args.site or args.project / DEFAULT_OUTPUT
    if not (site / "index.html").is_file() and not (site / "404.html").is_file():
        print(f"site-gen: {site} holds no built site; run site-gen build first", file=sys.stderr)
        return 1
    site_url: str | None
    if args.site_url is not None:
        site_url, problem = checked_site_url(args.site_url.strip())
        if problem:  # the URL given is wrong: say how, as build does
            print(f"--site-url: {problem}", file=sys.stderr)
            return 2
    else:
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
    """Without --site-url: what the built site says, else the project's site.yaml."""
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
    for note in result.notes:
        print(note, file=sys.stderr)


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


def stage_lines(result: BuildResult, builder: Builder) -> list[str]:
    """``--verbose``: a line per stage, ``  render   180 ms  64 pages rendered, 0 reused``.

    Says where a slow build spends its time, and how much an incremental one could reuse.
    """
    notes = stage_notes(result, len(builder.tree.digests()), builder.output)
    width = max((len(name) for name, _ in result.timings), default=0)
    return [f"  {name:<{width}}  {_milliseconds(seconds):>9}  {notes.get(name, '')}".rstrip()
            for name, seconds in result.timings]


def stage_notes(result: BuildResult, files: int, output: Path) -> dict[str, str]:
    """What each stage did, by stage name (stages with nothing worth counting have no note)."""
    stored = f", {result.stored_dumps:,} from the build cache" if result.stored_dumps else ""
    notes = {"read dumps": f"{_count(len(result.reread), 'dump')} parsed{stored}",
             "routes": _count(result.pages, "page"),
             "render": f"{result.rendered:,} pages rendered, "
                       f"{result.pages - result.rendered:,} reused"}
    if result.catalog is not None:
        catalog = result.catalog
        notes["catalog"] = (f"{_count(len(catalog.papers), 'paper')}, "
                            f"{_count(len(catalog.authors), 'author')}, "
                            f"{_count(len(catalog.subjects), 'subject')}")
    if result.written is not None:
        notes["write"] = (f"{_count(files, 'file')} in {output}: "
                          f"{len(result.written.changed):,} changed, "
                          f"{len(result.written.removed):,} removed")
    return notes


def _milliseconds(seconds: float) -> str:
    """``0.4 ms`` below 10 ms, where a tenth still tells something; ``1,234 ms`` above."""
    ms = seconds * 1000
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:,.0f} ms"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' if n != 1 else ''}"


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
    serve.add_argument("--port", "-p", type=_port, default=8000, metavar="N",
                       help="the port to listen on (default: 8000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", metavar="HOST",
                       help="the address to listen on (default: 127.0.0.1, this machine only)")
    serve.add_argument("--poll", action="store_true",
                       help="watch by polling instead of inotify (network drives, containers)")
    serve.add_argument("--open", action="store_true",
                       help="open the site in the web browser once it is served")
    serve.set_defaults(run=_run_serve)


def _run_watch(args: argparse.Namespace) -> int:
    """``build --watch``: the watch loop without a server."""
    from site_gen.live.session import WatchSession

    builder = Builder(args.project, args.output, site_url=args.site_url, jobs=args.jobs,
                      keep_spare=True, progress=choose_progress(quiet=args.quiet))
    reporter = _Reporter(args, builder)
    session = WatchSession(builder, poll=args.poll, strict=args.strict, say=reporter)
    reporter.session = session
    _stop_on_signals()
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
    from site_gen.live.serve import LiveState, PreviewServer
    from site_gen.live.session import WatchSession

    builder = Builder(args.project, args.output, keep_spare=True,
                      progress=choose_progress(quiet=args.quiet))
    live = LiveState(_base_path(args.project))
    try:
        server = PreviewServer((args.host, args.port), builder.output, live)
    except OSError as exc:
        print(f"site-gen: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; "
              "choose another --port, or --port 0 for any free one", file=sys.stderr)
        return 1
    reporter = _Reporter(args, builder)
    session = WatchSession(builder, live, poll=args.poll, say=reporter)
    reporter.session = session
    _stop_on_signals()
    thread = threading.Thread(target=server.serve_forever, name="site-gen-preview", daemon=True)
    try:
        session.start()
        thread.start()
        _say_serving(server, args.host)
        if args.open:
            _open_browser(server.url)
        session.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown() if thread.is_alive() else None
        server.server_close()
        session.close()
    return 0


def _interrupt_on_sigint() -> None:
    """Ctrl-C (SIGINT) interrupts a build even where it was inherited ignored (a process
    started in the background of a shell script, or by a CI runner that started it so): the
    build then ends as ``_run_build`` says, not at the next swap."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _stop_on_signals() -> None:
    """Ctrl-C (SIGINT) and ``kill`` (SIGTERM) end a session cleanly, leaving no spare folder.

    SIGINT is set here too: a process started in the background of a shell script (``&``)
    inherits SIGINT ignored, and Python then never raises KeyboardInterrupt for it, so
    ``kill -INT`` from the script (or a CI job's cancellation) would not stop the session.
    """
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)


class _Reporter:
    """What a watch session says after a successful build: its line (none with --quiet),
    then with --verbose the stage lines of that build (the session's latest)."""

    def __init__(self, args: argparse.Namespace, builder: Builder) -> None:
        self.quiet, self.verbose = bool(args.quiet), bool(args.verbose)
        self.builder = builder
        self.session: WatchSession | None = None

    def __call__(self, line: str) -> None:
        if self.quiet:
            return  # problems still reach stderr through the session's warn
        lines = [line]
        if self.verbose and self.session is not None and self.session.history:
            lines += stage_lines(self.session.history[-1].result, self.builder)
        print("\n".join(lines), flush=True)


def _say_serving(server: object, host: str) -> None:
    print(f"site-gen: serving {server.url} (Ctrl-C to stop)", file=sys.stderr,  # type: ignore[attr-defined]
          flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"site-gen: warning: listening on {host}, so other machines can reach this "
              "preview", file=sys.stderr, flush=True)


def _open_browser(url: str) -> None:
    """``serve --open``: the user's browser ($BROWSER, else the system's), or say why not."""
    import webbrowser

    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        print(f"site-gen: could not open a browser; open {url} yourself", file=sys.stderr,
              flush=True)


def _base_path(project: Path) -> str:
    """Where the site is mounted before the first build has told us (from site.yaml)."""
    config, _ = load_config(project / CONTENT_DIR, CONFIG_FILE)
    return config.base_path
