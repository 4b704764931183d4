"""Progress of a long build: one redrawn line on a terminal, nothing anywhere else.

Not a pipeline stage. The Builder holds a ``Progress`` and calls ``start(total, label)``
before a long stage, ``advance(n)`` as items finish (results may arrive from worker processes
in chunks), and ``finish()`` afterwards, even when the stage fails. ``choose_progress`` picks
the terminal bar only where someone is watching: stderr is a terminal, no ``--quiet``, not CI,
not a dumb terminal; and the bar itself stays silent for stages too small to be worth it.
Nothing here may break a build: a closed or broken stream turns the bar off.

``Stopwatch`` times the build's stages for ``--verbose`` (``BuildResult.timings``).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Protocol, TextIO

MIN_TOTAL = 200
"""Stages with fewer items finish too fast for a bar to be worth drawing."""
INTERVAL = 0.1
"""Seconds between redraws: smooth enough, and cheap on a slow terminal."""
DELAY = 0.5
"""Seconds before the first draw: a stage done by then never flickers a bar."""
WINDOW = 3.0
"""Seconds of recent progress the rate is measured over: the first pages (templates compiling)
are slow, and a rate since the start would overstate the time left for long after."""
SETTLE = 1.0
"""Seconds of progress before a rate and an ETA are shown at all, for the same reason."""
MIN_BAR = 10
"""Narrower than this, the bar is dropped and only the numbers are shown."""
FALSE_VALUES = frozenset({"", "0", "false", "no", "off"})


class Progress(Protocol):
    """What the Builder (and the renderer) report progress to."""

    def start(self, total: int, label: str) -> None:
        """A stage of ``total`` items begins (``label`` says what, e.g. ``"rendering"``)."""

    def advance(self, n: int = 1) -> None:
        """``n`` more items are done; called often, so it must be cheap."""

    def finish(self) -> None:
        """The stage ended (or failed): leave the terminal as it was before ``start``."""


class NoProgress:
    """Progress that shows nothing: pipes, CI, ``--quiet``, tests, library use."""

    def start(self, total: int, label: str) -> None:
        """Nothing to show."""

    def advance(self, n: int = 1) -> None:
        """Nothing to show."""

    def finish(self) -> None:
        """Nothing to clear."""


class TerminalProgress:
    """One line on a terminal, redrawn with ``\\r`` at most every ``interval`` seconds.

    ``finish`` blanks the line and returns the cursor to its start, so whatever is printed
    next (the summary, diagnostics) starts on a clean line.
    """

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic,
                 width: Callable[[], int] | None = None, interval: float = INTERVAL,
                 delay: float = DELAY, min_total: int = MIN_TOTAL) -> None:
        self.stream = stream
        self.clock = clock
        self.width = width or (lambda: terminal_width(stream))
        self.interval = interval
        self.delay = delay
        self.min_total = min_total
        self._samples: deque[tuple[float, int]] = deque()
        self.total = self.done = 0
        self.label = ""
        self.active = False
        self.broken = False
        self._started = self._next = 0.0
        self._shown = 0  # characters on the line now, to blank them on finish

    def start(self, total: int, label: str) -> None:
        """Begin a stage; a small one (under ``min_total`` items) shows nothing."""
        self.finish()
        self.total, self.done, self.label = max(total, 0), 0, label
        self.active = not self.broken and self.total >= self.min_total
        if self.active:
            self._started = self.clock()
            self._next = self._started + self.delay
            self._samples = deque([(self._started, 0)])

    def advance(self, n: int = 1) -> None:
        """Count ``n`` items; redraw only when the interval has passed."""
        self.done += n
        if self.active and self.clock() >= self._next:
            self._draw()

    def finish(self) -> None:
        """Blank the line if anything was drawn; safe to call twice or without ``start``."""
        self.active = False
        if self._shown:
            self._write("\r" + " " * self._shown + "\r")
            self._shown = 0

    def _draw(self) -> None:
        """Redraw the line, padded over the previous one (but never past a narrowed terminal)."""
        try:
            now = self.clock()
            self._next = now + self.interval
            done = min(self.done, self.total)
            columns = self.width()
            line = bar_line(self.label, done, self.total, self._rate(now, done), columns)
        except Exception:  # noqa: BLE001 - a cosmetic line must never fail a build
            self.broken, self.active = True, False
            return
        self._shown = min(self._shown, max(columns - 1, 0))
        self._write("\r" + line.ljust(self._shown))
        self._shown = max(len(line), self._shown) if not self.broken else 0

    def _rate(self, now: float, done: int) -> float | None:
        """Items per second over the last ``WINDOW`` seconds; None in the first ``SETTLE``."""
        samples = self._samples
        samples.append((now, done))
        while len(samples) > 2 and samples[1][0] <= now - WINDOW:
            samples.popleft()
        then, before = samples[0]
        if now - self._started < SETTLE or now <= then:
            return None
        return (done - before) / (now - then)

    def _write(self, text: str) -> None:
        """Write and flush; any failure turns the bar off for good instead of failing the build."""
        if self.broken:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError, AttributeError):  # closed, broken pipe, not a stream
            self.broken, self.active, self._shown = True, False, 0


def bar_line(label: str, done: int, total: int, rate: float | None, columns: int) -> str:
    """``rendering [####....]  4,210/11,662 pages  1,380/s  ETA 5s``, fitted to ``columns``.

    Numbers are padded so the bar keeps its width as they grow. One column is left free:
    writing the last one makes some terminals wrap the line.
    """
    room = max(columns - 1, 0)
    count = f"{done:,}".rjust(len(f"{total:,}"))
    speed = "-" if rate is None else f"{rate:,.0f}"
    numbers = (f"{count}/{total:,} pages  {speed:>5}/s  "
               f"ETA {eta_text(done, total, rate):<6}")
    bar_width = room - len(label) - len(numbers) - 6  # "label [bar]  numbers"
    if bar_width >= MIN_BAR:
        filled = bar_width * done // total if total else bar_width
        bar = "#" * filled + "." * (bar_width - filled)
        return f"{label} [{bar}]  {numbers}"
    return f"{label}  {numbers}"[:room]


def eta_text(done: int, total: int, rate: float | None) -> str:
    """Time left at the current rate: ``5s``, ``2m05s``, ``1h02m``; ``?`` before any rate."""
    if done >= total:
        return "0s"
    if not rate or rate <= 0:
        return "?"
    seconds = round((total - done) / rate)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def terminal_width(stream: TextIO) -> int:
    """Columns of the terminal ``stream`` writes to (``COLUMNS`` wins, as with ``shutil``)."""
    fallback = shutil.get_terminal_size((80, 24)).columns
    if os.environ.get("COLUMNS", "").strip().isdigit():
        return fallback
    try:
        return os.get_terminal_size(stream.fileno()).columns or fallback
    except (OSError, ValueError, AttributeError):
        return fallback


def in_ci(environ: Mapping[str, str]) -> bool:
    """CI services set ``CI`` (to ``true``, ``1``, ...); ``CI=false`` or ``CI=0`` means not CI."""
    return environ.get("CI", "").strip().lower() not in FALSE_VALUES


def wants_bar(stream: TextIO, quiet: bool, environ: Mapping[str, str]) -> bool:
    """A bar is for a person at a terminal: never with ``--quiet``, in CI, piped or on ``dumb``."""
    if quiet or in_ci(environ) or environ.get("TERM", "") == "dumb":
        return False
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False


def choose_progress(quiet: bool = False, stream: TextIO | None = None,
                    environ: Mapping[str, str] | None = None) -> Progress:
    """The terminal bar on stderr where someone watches it, else ``NoProgress``."""
    stream = sys.stderr if stream is None else stream
    environ = os.environ if environ is None else environ
    if stream is None or not wants_bar(stream, quiet, environ):  # stderr is None under pythonw
        return NoProgress()
    return TerminalProgress(stream)


class Stopwatch:
    """Times consecutive stages: ``lap(name)`` closes the stage that ran since the last lap."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.laps: list[tuple[str, float]] = []
        self._last = clock()

    def lap(self, name: str) -> None:
        """Record the seconds since the previous lap (or since creation) as stage ``name``."""
        now = self.clock()
        self.laps.append((name, now - self._last))
        self._last = now

    def timings(self) -> tuple[tuple[str, float], ...]:
        """The stages so far, in order; a stage timed twice (a retried render) is summed."""
        merged: dict[str, float] = {}
        for name, seconds in self.laps:
            merged[name] = merged.get(name, 0.0) + seconds
        return tuple(merged.items())
