"""Watch mode: file events -> debounced batches of input changes -> one rebuild per batch.

Not a pipeline stage; it drives the Builder. Three parts, each testable alone:

* ``classify(path, layout)`` -> ChangeKind: pure, no filesystem. The output folder, its
  staging siblings, dotfiles and editor scratch files are IGNORED, so writing the site never
  triggers a build and an editor's swap files never do either.
* ``Debouncer``: collects changes until the tree is quiet for ``quiet`` seconds, but never
  holds a batch longer than ``max_wait`` after its first event (a long ``git checkout`` still
  rebuilds). When every changed file's last event says its new bytes are complete (closed
  after writing, or renamed into place), it waits only ``settled_quiet``: that is how
  editors save, and waiting the full quiet time for more of a file that is complete is
  latency a user feels on every save. Pure: time is passed in. ``ChangeQueue`` wraps it for
  threads; changes that arrive while a build runs make up the next batch.
* ``Watcher``: a watchdog observer on the project's input folders, falling back to polling
  (with one clear line) when inotify's limits are reached.
"""

from __future__ import annotations

import enum
import errno
import os
import queue
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from site_gen.pipeline import CONTENT_DIR, DUMPS_DIR, is_scratch_file
from site_gen.read.config import CONFIG_FILE
from site_gen.read.curation import CURATION_FILE
from site_gen.read.pages import PAGES_DIR
from site_gen.write.tree import staging_paths

QUIET_SECONDS = 0.15
SETTLED_QUIET_SECONDS = 0.05
MAX_WAIT_SECONDS = 1.0
POLL_SECONDS = 0.5
_EVENTS = frozenset({"created", "modified", "deleted", "moved", "closed", "attrib"})


class ChangeKind(enum.Enum):
    """What a changed path is to the build."""

    DUMP = "dump"
    CONFIG = "config"
    CURATION = "curation"
    PAGE = "page"
    TEMPLATE = "template"
    STATIC = "static"
    IGNORED = "ignored"


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a project's inputs and output are (absolute paths, not touched by ``classify``)."""

    project: PurePath
    output: PurePath
    templates: tuple[PurePath, ...] = ()
    static: tuple[PurePath, ...] = ()

    @property
    def ignored_folders(self) -> tuple[PurePath, ...]:
        """The output and its staging siblings: written by builds, never input."""
        staging, old = staging_paths(Path(self.output))
        return (self.output, PurePath(staging), PurePath(old))

    @property
    def roots(self) -> tuple[PurePath, ...]:
        """The folders to watch, outermost first."""
        return (self.project / CONTENT_DIR, *self.templates, *self.static)


def classify(path: str | PurePath, layout: Layout) -> ChangeKind:
    """What a change at ``path`` means for the build; IGNORED for anything a build never reads."""
    path = PurePath(path)
    if any(_within(path, folder) for folder in layout.ignored_folders):
        return ChangeKind.IGNORED
    if is_scratch_file(path.name) or _has_hidden_part(path, layout.project):
        return ChangeKind.IGNORED
    content = layout.project / CONTENT_DIR
    if path == content / CONFIG_FILE:
        return ChangeKind.CONFIG
    if path == content / CURATION_FILE:
        return ChangeKind.CURATION
    if _within(path, content / DUMPS_DIR):
        return ChangeKind.DUMP
    if _within(path, content / PAGES_DIR) and path != content / PAGES_DIR:  # or a file it shows
        return ChangeKind.PAGE
    if any(_within(path, folder) for folder in layout.templates):
        return ChangeKind.TEMPLATE
    if any(_within(path, folder) for folder in layout.static):
        return ChangeKind.STATIC
    return ChangeKind.IGNORED


def _within(path: PurePath, folder: PurePath) -> bool:
    return path == folder or folder in path.parents


def _has_hidden_part(path: PurePath, project: PurePath) -> bool:
    """Dotfiles and anything in a dot-folder (.git, .venv, ...) below the project."""
    parts = path.relative_to(project).parts if _within(path, project) else path.parts[-1:]
    return any(part.startswith(".") for part in parts)


@dataclass(slots=True)
class Debouncer:
    """Changes collected into batches: due when quiet, or when the first has waited too long."""

    quiet: float = QUIET_SECONDS
    max_wait: float = MAX_WAIT_SECONDS
    settled_quiet: float = SETTLED_QUIET_SECONDS
    changes: dict[str, ChangeKind] = field(default_factory=dict)
    unsettled: set[str] = field(default_factory=set)
    first: float | None = None
    last: float | None = None

    def add(self, path: str, kind: ChangeKind, now: float, settled: bool = False) -> None:
        """Note a change (ignored kinds are dropped); ``settled``: this event says the path's
        bytes are complete (a later event about it may say otherwise)."""
        if kind is ChangeKind.IGNORED:
            return
        self.changes[path] = kind
        if settled:
            self.unsettled.discard(path)
        else:
            self.unsettled.add(path)
        self.first = now if self.first is None else self.first
        self.last = now

    def wait_time(self, now: float) -> float | None:
        """Seconds until the batch is due (0: now); None when there is nothing to build."""
        if self.first is None or self.last is None:
            return None
        quiet = self.quiet if self.unsettled else self.settled_quiet
        due = min(self.last + quiet, self.first + self.max_wait)
        return max(0.0, due - now)

    def take(self) -> dict[str, ChangeKind]:
        """The batch, leaving the debouncer empty."""
        batch, self.changes = self.changes, {}
        self.unsettled = set()
        self.first = self.last = None
        return batch


class ChangeQueue:
    """Changes noted by the watcher's threads, batched for the build loop.

    The watcher's threads only put into a ``SimpleQueue``; the build loop alone moves them
    into its Debouncer, so no lock is held while it waits. Ctrl-C raises KeyboardInterrupt
    in that loop wherever it is: a ``Condition`` waited on there could be left released
    mid-``wait``, and leaving its ``with`` then failed with "cannot release un-acquired
    lock" instead of ending the session.
    """

    def __init__(self, layout: Layout, debouncer: Debouncer | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.layout = layout
        self._debouncer = debouncer or Debouncer()
        self._clock = clock
        self._inbox: queue.SimpleQueue[tuple[str, ChangeKind, float, bool] | None] = \
            queue.SimpleQueue()
        self._closed = False

    def put(self, path: str, settled: bool = False) -> None:
        """Classify and note one changed path (any thread); ``settled`` as in Debouncer.add."""
        kind = classify(path, self.layout)
        if kind is not ChangeKind.IGNORED:
            self._inbox.put((path, kind, self._clock(), settled))

    def get(self, timeout: float | None = None) -> dict[str, ChangeKind] | None:
        """Block until a batch is due and return it; None on timeout or when closed.
        The build loop's side: one thread only."""
        deadline = None if timeout is None else self._clock() + timeout
        self._take_inbox(block=0.0)
        while not self._closed:
            now = self._clock()
            wait = self._debouncer.wait_time(now)
            if wait == 0:
                return self._debouncer.take()
            left = None if deadline is None else deadline - now
            if left is not None and left <= 0:
                return None
            self._take_inbox(block=min((w for w in (wait, left) if w is not None), default=None))
        return None

    def pending(self) -> bool:
        """True when changes wait to be built (or the queue is closed): a build loop's
        housekeeping should give way. The build loop's side, as ``get``."""
        self._take_inbox(block=0.0)
        return self._closed or bool(self._debouncer.changes)

    def close(self) -> None:
        """Wake and end any ``get`` (any thread)."""
        self._closed = True
        self._inbox.put(None)

    def _take_inbox(self, block: float | None) -> None:
        """Move every noted change into the debouncer, first waiting up to ``block`` seconds
        (None: until one comes) for one."""
        try:
            noted = self._inbox.get(timeout=block) if block != 0 else self._inbox.get_nowait()
            while True:
                if noted is None:
                    self._closed = True
                else:
                    self._debouncer.add(*noted)
                noted = self._inbox.get_nowait()
        except queue.Empty:
            pass


class _Handler(FileSystemEventHandler):
    """Feeds watchdog events to a ChangeQueue (both ends of a rename).

    A file closed after writing (inotify's IN_CLOSE_WRITE) or renamed into place is settled.
    Nothing else is: a file created, modified, deleted or renamed away may be written again
    at once (an editor that moves the old file aside, then writes the new one), and the
    polling observer never reports closes, so it keeps the full quiet time.
    """

    def __init__(self, queue: ChangeQueue) -> None:
        self.queue = queue

    def on_any_event(self, event: FileSystemEvent) -> None:
        kind = event.event_type
        if kind not in _EVENTS or (event.is_directory and kind == "modified"):
            return
        self.queue.put(os.fsdecode(event.src_path), settled=kind == "closed")
        destination = getattr(event, "dest_path", "")
        if destination:
            self.queue.put(os.fsdecode(destination), settled=True)


class Watcher:
    """Watches a project's inputs; events go to ``queue``. Polls if asked or if inotify is full."""

    def __init__(self, queue: ChangeQueue, poll: bool = False,
                 observer_class: Callable[[], BaseObserver] = Observer,
                 say: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> None:
        self.queue = queue
        self.polling = poll
        self._observer_class = observer_class
        self._say = say
        self._observer: BaseObserver | None = None
        self._watched: set[PurePath] = set()

    def start(self) -> None:
        """Start watching every input folder that exists (the project folder itself, shallowly)."""
        try:
            self._observer = self._start_observer(PollingObserver if self.polling else self._observer_class)
        except OSError as exc:
            if self.polling or exc.errno not in (errno.ENOSPC, errno.EMFILE):
                raise
            self._say(f"site-gen: the system's inotify limit is reached ({exc.strerror or exc}); "
                      f"watching by polling every {POLL_SECONDS:g} s instead (raise "
                      "fs.inotify.max_user_watches / max_user_instances to avoid this)")
            self.polling = True
            self._observer = self._start_observer(PollingObserver)

    def _start_observer(self, kind: Callable[..., BaseObserver]) -> BaseObserver:
        observer = kind(timeout=POLL_SECONDS) if kind is PollingObserver else kind()
        self._watched = set()
        try:
            self._schedule(observer)
            observer.start()
        except BaseException:
            observer.unschedule_all()
            raise
        return observer

    def _schedule(self, observer: BaseObserver) -> None:
        handler = _Handler(self.queue)
        layout = self.queue.layout
        observer.schedule(handler, str(layout.project), recursive=False)
        for root in layout.roots:
            if root not in self._watched and Path(root).is_dir():
                observer.schedule(handler, str(root), recursive=True)
                self._watched.add(root)

    def refresh(self) -> None:
        """Watch input folders created since the start (say, a new templates/ folder)."""
        missing = [r for r in self.queue.layout.roots if r not in self._watched and Path(r).is_dir()]
        if missing and self._observer is not None:
            handler = _Handler(self.queue)
            for root in missing:
                self._observer.schedule(handler, str(root), recursive=True)
                self._watched.add(root)

    def stop(self) -> None:
        """Stop the observer and wake the build loop."""
        self.queue.close()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)


def describe(batch: Iterable[str], project: Path, limit: int = 3) -> str:
    """``content/dumps/a.txt changed`` / ``a, b and 3 more changed``, paths relative to the project."""
    shown = sorted(_relative(path, project) for path in batch)
    if not shown:
        return "nothing changed"
    head = ", ".join(shown[:limit])
    more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
    return f"{head}{more} changed"


def _relative(path: str, project: Path) -> str:
    try:
        return Path(path).relative_to(project).as_posix()
    except ValueError:
        return path
