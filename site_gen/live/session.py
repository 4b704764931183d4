"""Watch mode's loop: batches of changes -> ``Builder.build`` -> one terminal line (+ preview).

Not a pipeline stage. ``WatchSession`` owns one Builder (kept alive, so rebuilds are
incremental), the Watcher and its ChangeQueue, and optionally the preview's LiveState. A
failed build never ends the session: the last good site stays on disk and is still served,
the errors go to the terminal and to the preview's overlay, and the next change tries again.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath

from site_gen.incremental.builder import Builder
from site_gen.live.serve import LiveState
from site_gen.live.watch import ChangeKind, ChangeQueue, Layout, Watcher, describe
from site_gen.pipeline import BuildResult, resolve_theme
from site_gen.read.config import Config
from site_gen.util.diagnostics import Diagnostic, Severity, error

Say = Callable[[str], None]
FULL_COLLECTION_EVERY = 10


def _print(line: str) -> None:
    print(line, flush=True)


def _print_err(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class Rebuild:
    """One build of the session: what triggered it, what it did, how long it took."""

    changes: dict[str, ChangeKind]
    result: BuildResult
    seconds: float


def layout_for(builder: Builder, config: Config | None) -> Layout:
    """The folders a build reads, for the watcher (the project's own ones even if missing)."""
    project = Path(builder.project).resolve()
    output = Path(builder.output).resolve()
    templates: list[PurePath] = [project / "templates"]
    static: list[PurePath] = [project / "static"]
    themed = resolve_theme(project, config or Config())
    if themed is not None:
        theme, theme_templates = themed
        templates += [PurePath(Path(d).resolve()) for d in theme.template_dirs]
        templates.append(PurePath(theme_templates.resolve()))
        static += [PurePath(Path(d).resolve()) for d in theme.static_dirs]
    return Layout(project, output, tuple(dict.fromkeys(templates)), tuple(dict.fromkeys(static)))


class WatchSession:
    """Build, then rebuild on every batch of input changes until stopped."""

    def __init__(self, builder: Builder, live: LiveState | None = None, poll: bool = False,
                 strict: bool | str = False, say: Say = _print, warn: Say = _print_err,
                 watcher_factory: Callable[[ChangeQueue], Watcher] | None = None) -> None:
        self.builder = builder
        self.live = live
        self.strict = strict
        self.say, self.warn = say, warn
        self.queue = ChangeQueue(layout_for(builder, None))
        factory = watcher_factory or (lambda q: Watcher(q, poll=poll, say=warn))
        self.watcher = factory(self.queue)
        self.history: list[Rebuild] = []
        self._stop = threading.Event()
        self._last: BuildResult | None = None

    def start(self) -> Rebuild:
        """Start watching, then build once (changes made during this build trigger the next)."""
        self.watcher.start()
        return self.rebuild({})

    def run(self) -> None:
        """Rebuild on each batch until ``stop()``; while no edit comes, bring the spare output
        folder up to date, so the next rebuild stages only what it changes. Filling starts as
        soon as a build is done and no edit waits (after a template edit, the spare lacks
        every page: waiting half a second first left an edit made a second later to stage
        12,000 files at 10,000 papers)."""
        filled = False
        while not self._stop.is_set():
            batch = self.queue.get(timeout=0.5 if filled or self.queue.pending() else 0.0)
            if batch:
                self.rebuild(batch)
                filled = False
            elif not filled:
                filled = self.builder.fill_spare(lambda: not self.queue.pending())

    def stop(self) -> None:
        """End ``run`` (from any thread)."""
        self._stop.set()
        self.queue.close()

    def close(self) -> None:
        """Stop watching and drop the spare output folder."""
        self.stop()
        self.watcher.stop()
        self.builder.close()

    def rebuild(self, changes: dict[str, ChangeKind]) -> Rebuild:
        """One build from a batch; reports it and tells the preview."""
        started = time.perf_counter()
        result = self._build(changes)
        done = Rebuild(changes, result, time.perf_counter() - started)
        self.history.append(done)
        self._report(done)
        self._announce(result)
        if result.config is not None and (not changes or ChangeKind.CONFIG in changes.values()):
            self.queue.layout = layout_for(self.builder, result.config)
            self.watcher.refresh()
        elif any(kind in (ChangeKind.TEMPLATE, ChangeKind.STATIC) for kind in changes.values()):
            self.watcher.refresh()
        self._last = result
        self._settle_memory()
        return done

    def _settle_memory(self) -> None:
        """Freeze what this build left alive, so the next build's collections skip it.

        A session holds the whole site in memory between builds, and Python's cyclic garbage
        collector would otherwise scan all of it several times per rebuild (over half a second
        on a 10,000-paper site). Frozen objects are still freed when unreferenced; only
        reference cycles among them wait for the full collection done every few builds.
        """
        if len(self.history) % FULL_COLLECTION_EVERY == 0:
            gc.unfreeze()
            gc.collect()
        gc.freeze()

    def _build(self, changes: dict[str, ChangeKind]) -> BuildResult:
        """A build; a bug in site-gen is reported like a problem, and the session goes on."""
        gc.disable()  # see _settle_memory; a build makes little cyclic garbage
        try:
            return self.builder.build(strict=self.strict, changed=set(changes))
        except Exception as exc:  # noqa: BLE001 - the preview must outlive any one build
            self.builder.forget()
            message = (f"internal error, please report it: {type(exc).__name__}: {exc} "
                       "(the next change will build from scratch)")
            return BuildResult((error("site-gen", 0, message),))
        finally:
            gc.enable()

    def _announce(self, result: BuildResult) -> None:
        if self.live is None:
            return
        if result.ok:
            assert result.written is not None
            changed = result.written.changed + result.written.removed
            base = result.config.base_path if result.config else None
            self.live.publish(changed, (), base)
        else:
            self.live.publish((), errors_of(result))

    def _report(self, done: Rebuild) -> None:
        """One line per build (after its notes), then any problem not already shown by the
        previous build."""
        line = rebuild_line(done, self.builder.project)
        for note in done.result.notes:  # on stderr, as build prints it; before the line
            self.warn(note)
        self.say(line) if done.result.ok else self.warn(line)
        before = set(self._last.diagnostics) if self._last is not None else set()
        for diagnostic in done.result.diagnostics:
            if diagnostic not in before or not done.result.ok:
                self.warn(str(diagnostic))


def rebuild_line(done: Rebuild, project: Path) -> str:
    """``rebuilt in 84 ms: content/dumps/a.txt changed; 3 pages re-rendered, 4 files changed``."""
    result = done.result
    ms = f"{done.seconds * 1000:.0f} ms"
    what = describe(done.changes, Path(project).resolve()) if done.changes else "first build"
    if not result.ok:
        errors = sum(d.severity is Severity.ERROR for d in result.diagnostics)
        return (f"build failed in {ms}: {what}; {_count(errors, 'error')}, "
                "keeping the last good site")
    assert result.written is not None
    parts = [f"{_count(result.rendered, 'page')} re-rendered",
             f"{_count(len(result.written.changed), 'file')} changed"]
    if result.written.removed:
        parts.append(f"{len(result.written.removed)} removed")
    warnings = sum(d.severity is Severity.WARNING for d in result.diagnostics)
    if warnings:
        parts.append(_count(warnings, "warning"))
    verb = "built" if not done.changes else "rebuilt"
    return f"{verb} in {ms}: {what}; {', '.join(parts)}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def errors_of(result: BuildResult) -> list[Diagnostic]:
    """The diagnostics that stopped a build (all of them if only warnings did, under --strict)."""
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    return errors or list(result.diagnostics)
