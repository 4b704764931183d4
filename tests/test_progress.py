"""Progress and verbosity: the terminal bar's line (rate, ETA, width, throttling, clearing), when
a bar is chosen at all (TTY, --quiet, CI, TERM=dumb), stage timings in BuildResult and
``--verbose``, ``-q -v`` refused, and a piped build that prints no control characters."""

from __future__ import annotations

import argparse
import io
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import abstract, listing_dump, write_files

from site_gen.cli import _Reporter, main
from site_gen.incremental.builder import Builder
from site_gen.live.session import WatchSession
from site_gen.live.watch import ChangeKind
from site_gen.util.progress import (
    NoProgress,
    Progress,
    Stopwatch,
    TerminalProgress,
    bar_line,
    choose_progress,
    eta_text,
)

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""Any control character but tab and newline: ``\\r``, ``ESC`` (escape codes), backspace, ..."""
STAGES = ("read dumps", "catalog", "routes", "theme", "prepare", "site files", "render", "write")
CACHED_STAGES = ("cache read", *STAGES, "cache write")
"""``site-gen build``'s stages: with the build cache (docs/usage.md) read first, written last."""


class FakeTTY(io.StringIO):
    """A terminal stand-in: records what is written, says it is a TTY (raises once closed, as
    a real file does)."""

    def isatty(self) -> bool:
        if self.closed:
            raise ValueError("I/O operation on closed file")
        return True


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def bar(columns: int = 100, clock: FakeClock | None = None) -> tuple[TerminalProgress, FakeTTY]:
    stream = FakeTTY()
    return TerminalProgress(stream, clock=clock or FakeClock(), width=lambda: columns), stream


def frames(stream: io.StringIO) -> list[str]:
    """The lines drawn so far, in order (each redraw starts with ``\\r``)."""
    return [f for f in stream.getvalue().split("\r") if f.strip()]


# ---- the line --------------------------------------------------------------------------------


def test_line_shows_count_rate_eta_and_a_proportional_bar() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    progress.start(11_662, "rendering")
    clock.now += 2.0
    progress.advance(4_210)
    [line] = frames(stream)
    assert line.startswith("rendering [")
    assert "4,210/11,662 pages" in line
    assert "2,105/s" in line  # 4,210 pages in 2 s
    assert "ETA 4s" in line  # 7,452 pages left at 2,105/s: 3.5 s, rounded
    filled, empty = re.search(r"\[(#*)(\.*)\]", line).groups()  # type: ignore[union-attr]
    assert len(filled) == (len(filled) + len(empty)) * 4_210 // 11_662
    assert len(line.rstrip()) <= 99


def test_rate_and_eta_wait_until_the_first_second_has_passed() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    progress.start(1_000, "rendering")
    clock.now += 0.6
    progress.advance(3)  # first pages are slow: a rate now would promise a long wait
    assert "-/s" in frames(stream)[-1] and "ETA ?" in frames(stream)[-1]


def test_rate_follows_the_last_seconds_not_the_slow_start() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    progress.start(10_000, "rendering")
    clock.now += 2.0
    progress.advance(10)  # 2 s of warm-up
    for _ in range(40):  # then 100 pages per 0.1 s: 1,000/s
        clock.now += 0.1
        progress.advance(100)
    assert " 1,000/s" in frames(stream)[-1]
    assert "ETA 6s" in frames(stream)[-1]  # 5,990 left at 1,000/s


@pytest.mark.parametrize("columns", [20, 40, 60, 80, 120, 300])
def test_line_fits_the_terminal_and_keeps_the_last_column_free(columns: int) -> None:
    clock = FakeClock()
    progress, stream = bar(columns, clock)
    progress.start(11_662, "rendering")
    for _ in range(30):
        clock.now += 0.5
        progress.advance(300)
    drawn = frames(stream)
    assert drawn and all(len(f) <= columns - 1 for f in drawn)
    if columns >= 80:
        assert all("[" in f for f in drawn)
    if columns <= 60:
        assert all("[" not in f for f in drawn)  # too narrow for a useful bar: numbers only


def test_bar_width_does_not_jump_as_numbers_grow() -> None:
    lines = [bar_line("rendering", done, 11_662, rate, 100)
             for done, rate in [(7, 10.0), (4_210, 1_380.0), (11_000, 2_000.0)]]
    assert len({line.index("]") for line in lines}) == 1


def test_bar_is_full_at_the_end() -> None:
    line = bar_line("rendering", 500, 500, 100.0, 80)
    assert "[" + "#" * (line.index("]") - line.index("[") - 1) + "]" in line
    assert "ETA 0s" in line


def test_eta_formats() -> None:
    assert eta_text(0, 100, None) == "?"
    assert eta_text(0, 100, 0.0) == "?"
    assert eta_text(50, 100, 10.0) == "5s"
    assert eta_text(0, 1_250, 10.0) == "2m05s"
    assert eta_text(0, 37_300, 10.0) == "1h02m"
    assert eta_text(100, 100, 10.0) == "0s"


# ---- drawing: when and how often -------------------------------------------------------------


def test_redraws_at_most_ten_times_a_second() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    progress.start(100_000, "rendering")
    for _ in range(3_000):  # 3,000 calls over 3 s
        clock.now += 0.001
        progress.advance()
    # nothing in the first 0.5 s, then one draw per 0.1 s
    assert 20 <= len(frames(stream)) <= 26


def test_a_quick_stage_draws_nothing() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    progress.start(5_000, "rendering")
    clock.now += 0.3
    progress.advance(5_000)
    progress.finish()
    assert stream.getvalue() == ""


def test_a_small_stage_draws_nothing() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    progress.start(150, "rendering")
    for _ in range(150):
        clock.now += 0.1
        progress.advance()
    progress.finish()
    assert stream.getvalue() == ""


def test_finish_blanks_the_line_and_returns_to_its_start() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    progress.start(1_000, "rendering")
    clock.now += 1.0
    progress.advance(500)
    drawn = stream.getvalue()
    progress.finish()
    cleared = stream.getvalue()[len(drawn):]
    assert cleared == "\r" + " " * len(frames(stream)[-1]) + "\r"
    progress.finish()  # twice is harmless and writes nothing more
    assert stream.getvalue() == drawn + cleared
    print_after = "content/dumps/a.txt:3: warning: something"
    stream.write(print_after + "\n")
    # what the terminal shows: the last \r-separated segment of the last line
    assert stream.getvalue().split("\n")[-2].split("\r")[-1] == print_after


def test_a_shorter_line_overwrites_all_of_a_longer_one() -> None:
    clock = FakeClock()
    progress, stream = bar(60, clock)  # numbers only: the line's length follows the numbers
    progress.start(1_000_000, "rendering")
    clock.now += 1.0
    progress.advance(123_456)  # "123,456/s": wider than the room kept for the rate
    clock.now += 3.5
    progress.advance(1)  # then a stall: "0/s"
    first, second = stream.getvalue().split("\r")[1:]
    assert len(second.rstrip()) < len(first)
    assert len(second) >= len(first)  # padded with spaces over the old text


def test_start_again_reuses_the_bar() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    for label in ("rendering", "writing"):
        progress.start(1_000, label)
        clock.now += 1.0
        progress.advance(10)
        progress.finish()
    assert [f.split()[0] for f in frames(stream)] == ["rendering", "writing"]
    assert stream.getvalue().endswith("\r")


def test_a_closed_stream_never_breaks_the_build() -> None:
    clock = FakeClock()
    progress, stream = bar(100, clock)
    progress.start(1_000, "rendering")
    stream.close()
    clock.now += 1.0
    progress.advance(10)  # would raise ValueError: I/O operation on closed file
    progress.finish()
    progress.start(1_000, "rendering")
    progress.advance(10)
    assert progress.broken


class BrokenPipe(FakeTTY):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_broken_pipe_never_breaks_the_build() -> None:
    clock = FakeClock()
    progress = TerminalProgress(BrokenPipe(), clock=clock, width=lambda: 80)
    progress.start(1_000, "rendering")
    clock.now += 1.0
    progress.advance(10)
    progress.finish()
    assert progress.broken


# ---- choosing a bar ----------------------------------------------------------------------------


TTY_ENV = {"TERM": "xterm-256color"}


def test_a_terminal_gets_a_bar() -> None:
    assert isinstance(choose_progress(stream=FakeTTY(), environ=TTY_ENV), TerminalProgress)


@pytest.mark.parametrize("value", ["", "0", "false", "False", "no", "off"])
def test_ci_set_to_false_still_gets_a_bar(value: str) -> None:
    chosen = choose_progress(stream=FakeTTY(), environ={**TTY_ENV, "CI": value})
    assert isinstance(chosen, TerminalProgress)


@pytest.mark.parametrize("quiet, stream, environ", [
    (True, FakeTTY(), TTY_ENV),                                # --quiet
    (False, FakeTTY(), {**TTY_ENV, "CI": "true"}),             # GitHub Actions, GitLab, ...
    (False, FakeTTY(), {**TTY_ENV, "CI": "1"}),
    (False, FakeTTY(), {"TERM": "dumb"}),                      # Emacs shell, some IDE consoles
    (False, io.StringIO(), TTY_ENV),                           # piped or redirected
], ids=["quiet", "ci-true", "ci-1", "dumb", "pipe"])
def test_no_bar_where_nobody_watches_a_terminal(quiet: bool, stream: io.StringIO,
                                                environ: dict[str, str]) -> None:
    assert isinstance(choose_progress(quiet=quiet, stream=stream, environ=environ), NoProgress)


def test_a_closed_stderr_gets_no_bar() -> None:
    stream = FakeTTY()
    stream.close()
    assert isinstance(choose_progress(stream=stream, environ=TTY_ENV), NoProgress)


# ---- the Builder -----------------------------------------------------------------------------


class Recording:
    """A Progress that notes its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def start(self, total: int, label: str) -> None:
        self.calls.append(("start", total, label))

    def advance(self, n: int = 1) -> None:
        self.calls.append(("advance", n))

    def finish(self) -> None:
        self.calls.append(("finish",))


def test_stopwatch_laps_and_sums_a_repeated_stage() -> None:
    clock = FakeClock()
    watch = Stopwatch(clock)
    for name, seconds in [("read dumps", 0.5), ("render", 2.0), ("render", 1.0), ("write", 0.25)]:
        clock.now += seconds
        watch.lap(name)
    assert watch.timings() == (("read dumps", 0.5), ("render", 3.0), ("write", 0.25))


@pytest.mark.parametrize("jobs", [1, 2])  # in this process, and as batches come from workers
def test_builder_reports_rendering_and_times_every_stage(demo_project: Path, tmp_path: Path,
                                                         jobs: int) -> None:
    recording = Recording()
    progress: Progress = recording
    builder = Builder(demo_project, tmp_path / "site", jobs=jobs, keep_spare=True,
                      progress=progress)  # keep_spare: kept for a rebuild, like watch mode
    result = builder.build()
    assert result.ok
    assert recording.calls[0] == ("start", result.rendered, "rendering")
    assert recording.calls[-1] == ("finish",)
    advanced = [call[1] for call in recording.calls if call[0] == "advance"]
    assert sum(advanced) == result.rendered  # type: ignore[arg-type]
    assert [name for name, _ in result.timings] == list(STAGES)
    assert all(seconds >= 0 for _, seconds in result.timings)
    recording.calls.clear()
    again = builder.build()  # nothing changed: nothing to render, still started and finished
    assert again.rendered == 0 and recording.calls[0] == ("start", 0, "rendering")


def test_the_bar_is_cleared_when_a_build_fails(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2024, "A Paper", abstract("x"), ["cs.LG"])]),
        "templates/paper.html": "{{ no_such_thing.attribute }}"})
    recording = Recording()
    result = Builder(project, tmp_path / "site", progress=recording).build()
    assert not result.ok
    assert recording.calls[-1] == ("finish",)


def test_builder_without_progress_is_silent(demo_project: Path, tmp_path: Path,
                                            capfd: pytest.CaptureFixture[str]) -> None:
    assert Builder(demo_project, tmp_path / "site").build().ok
    assert capfd.readouterr() == ("", "")


# ---- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["build", "-q", "-v"], ["build", "--quiet", "--verbose"],
                                  ["build", "--watch", "-q", "-v"], ["serve", "-v", "-q"]])
def test_quiet_and_verbose_together_is_a_usage_error(argv: list[str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_default_output_is_one_summary_line(demo_project: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "--project", str(demo_project), "-o", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"built \d+ pages into \S+; \d+ changed, \d+ removed; \d+ ms\n", out)


def test_verbose_prints_each_stage_with_its_time_and_counts(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project, site = tmp_path / "p", tmp_path / "s"
    shutil.copytree(demo_project / "content", project / "content")
    assert main(["build", "-v", "--project", str(project), "-o", str(site)]) == 0
    summary, *stages = capsys.readouterr().out.splitlines()
    assert summary.startswith("built 64 pages into")
    assert [re.split(r"\s{2,}", s.strip())[0] for s in stages] == list(CACHED_STAGES)
    assert all(re.search(r"\s\d[\d,.]* ms(\s|$)", s) for s in stages)
    by_stage = {re.split(r"\s{2,}", s.strip())[0]: s for s in stages}
    assert by_stage["read dumps"].endswith("3 dumps parsed")
    assert re.search(r"\d+ papers, \d+ authors, \d+ subjects$", by_stage["catalog"])
    assert by_stage["routes"].endswith("64 pages")
    assert by_stage["render"].endswith("64 pages rendered, 0 reused")
    files = sum(1 for p in site.rglob("*") if p.is_file() and p.name != ".site-gen")
    assert by_stage["write"].endswith(f"{files} files in {site}: {files} changed, 0 removed")
    assert main(["build", "-v", "--project", str(project), "-o", str(site)]) == 0
    again = capsys.readouterr().out  # a build again: the dumps' parses are in the cache
    assert re.search(r"read dumps .* 0 dumps parsed, 3 from the build cache\n", again)
    assert re.search(r"render .* 0 pages rendered, 64 reused\n", again)


def test_quiet_prints_nothing_on_success(demo_project: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "-q", "--project", str(demo_project), "-o", str(tmp_path / "s")]) == 0
    assert capsys.readouterr() == ("", "")


def big_project(root: Path, papers: int = 240) -> Path:
    """A project with enough pages (papers + authors + lists) for a bar to be worth drawing."""
    records = [(2000 + i % 25, f"Paper Number {i} On Topic {i}", abstract(f"topic {i}"), ["cs.LG"])
               for i in range(papers)]
    return write_files(root, {
        "content/site.yaml": "title: Big\nsite_url: https://example.org/\n",
        "content/dumps/a.txt": listing_dump("Ann Lee", records)})


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "COLUMNS")}
    return {**env, "TERM": "xterm-256color"}


def test_a_piped_build_prints_no_bar_and_no_control_characters(tmp_path: Path) -> None:
    project = big_project(tmp_path / "big")
    done = subprocess.run([sys.executable, "-m", "site_gen", "build", "-j", "1"], check=False,
                          cwd=project, env=clean_env(), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"built \d+ pages into _site; \d+ changed, 0 removed; \d+ ms\n",
                        done.stdout)
    assert int(done.stdout.split()[1]) >= 200  # large enough that a terminal would get a bar
    assert not CONTROL.search(done.stdout) and not CONTROL.search(done.stderr)
    notes = [line for line in done.stderr.splitlines() if line.startswith("content/urls.lock: ")]
    assert done.stderr.splitlines() == notes == [notes[0]]  # a first build says to commit it


def test_piped_stdout_with_stderr_on_a_terminal(tmp_path: Path) -> None:
    """``site-gen build | cat``: the bar may use the terminal, never the pipe."""
    project = big_project(tmp_path / "big")
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "site_gen", "build", "-j", "1"],
                                   cwd=project, env=clean_env(), stdout=subprocess.PIPE,
                                   stderr=follower, text=True)
        os.close(follower)
        terminal = _read_all(leader)
        out, _ = process.communicate(timeout=120)
    finally:
        os.close(leader)
    assert process.returncode == 0
    assert re.fullmatch(r"built \d+ pages into _site; \d+ changed, 0 removed; \d+ ms\n", out)
    # whatever was drawn on the terminal ends blanked, with the cursor at the line's start,
    # before the one line a first build adds (that content/urls.lock was made: commit it)
    terminal, note = terminal.rsplit("content/urls.lock: created;", 1)
    assert note.endswith("\r\n") and "\r" not in note[:-2]
    assert terminal.replace("\r", "").strip() == "" or terminal.endswith("\r")


def _read_all(fd: int) -> str:
    """Everything written to a pty until its last writer closes it."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other side is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


class NoWatcher:
    """Stands in for the file watcher: the test triggers rebuilds itself."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def refresh(self) -> None: ...


@pytest.mark.parametrize("flag", ["-v", "-q", None])
def test_watch_rebuild_lines_follow_quiet_and_verbose(
        flag: str | None, make_project, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2024, f"Paper Number {i} On Scheduling", abstract(f"topic {i}"), ["cs.LG"])
        for i in range(3)])})
    builder = Builder(project, keep_spare=True)
    reporter = _Reporter(argparse.Namespace(quiet=flag == "-q", verbose=flag == "-v"), builder)
    session = WatchSession(builder, say=reporter, watcher_factory=lambda queue: NoWatcher())
    reporter.session = session
    try:
        session.start()
        dump = project / "content/dumps/a.txt"
        dump.write_text(dump.read_text().replace("Paper Number 0", "Paper Number Zero"))
        session.rebuild({str(dump.resolve()): ChangeKind.DUMP})
    finally:
        session.close()
    out = capsys.readouterr().out.splitlines()
    if flag == "-q":
        assert out == []
        return
    rebuilt = [i for i, line in enumerate(out) if line.startswith(("built in", "rebuilt in"))]
    assert len(rebuilt) == 2
    if flag is None:
        assert len(out) == 2
        return
    second = out[rebuilt[1] + 1:]
    assert [re.split(r"\s{2,}", s.strip())[0] for s in second] == list(STAGES)
    by_stage = {re.split(r"\s{2,}", s.strip())[0]: s for s in second}
    assert by_stage["read dumps"].endswith("1 dump parsed")
    rendered, reused = map(int, re.findall(r"(\d+) pages rendered, (\d+) reused",
                                           by_stage["render"])[0])
    assert rendered >= 1 and reused >= 1  # a title edit leaves other papers' pages alone


def test_a_failing_width_query_turns_the_bar_off() -> None:
    def width() -> int:
        raise RuntimeError("no terminal after all")

    clock = FakeClock()
    stream = FakeTTY()
    progress = TerminalProgress(stream, clock=clock, width=width)
    progress.start(1_000, "rendering")
    clock.now += 1.0
    progress.advance(10)
    progress.finish()
    assert progress.broken and stream.getvalue() == ""


def test_padding_never_runs_past_a_narrowed_terminal() -> None:
    clock = FakeClock()
    widths = iter([200, 50, 50])
    stream = FakeTTY()
    progress = TerminalProgress(stream, clock=clock, width=lambda: next(widths))
    progress.start(1_000, "rendering")
    for _ in range(3):
        clock.now += 1.0
        progress.advance(100)
    progress.finish()
    wide, narrow, again, blank = stream.getvalue().split("\r")[1:5]
    assert len(wide) > 100 and len(narrow) <= 49 and len(again) <= 49 and len(blank) <= 49
