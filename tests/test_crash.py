"""Crash safety: a build killed at a random moment leaves the old site or the new one, whole.

The CI profile kills 25 builds; ``SITE_GEN_KILLS=200`` runs more (docs/security.md).
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, abstract, build, listing_dump, read_tree

KILLS = int(os.environ.get("SITE_GEN_KILLS", "25"))


def _content(version: int) -> dict[str, str]:
    papers = [(2020 + i % 6, f"Paper Number {i} On Systems Version {version}", abstract(f"t{i} v{version}"),
               ["cs.LG"]) for i in range(60)]
    return {"content/dumps/a.txt": listing_dump("Ann Lee", papers)}


def _tree(root: Path) -> dict[str, bytes]:
    return read_tree(root) if root.exists() else {}


@pytest.mark.slow
def test_sigkill_at_random_moments_leaves_a_whole_site(make_project, tmp_path: Path) -> None:
    project = make_project(_content(1))
    output = project / "_site"
    assert build(project).ok
    old = _tree(output)
    shutil.copytree(project / "content", tmp_path / "v1")
    for name, text in _content(2).items():
        (project / name).write_text(text, encoding="utf-8")
    shutil.copytree(project / "content", tmp_path / "v2")
    assert build(project, tmp_path / "expected").ok
    new = _tree(tmp_path / "expected")
    assert old != new
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "site_gen", "build", "-q", "--project", str(project)],
                   check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    duration = time.perf_counter() - started
    rng = random.Random(20261129)
    outcomes = {"old": 0, "new": 0}
    for _ in range(KILLS):
        _restore(project, tmp_path / "v1")
        assert build(project).ok and _tree(output) == old
        _restore(project, tmp_path / "v2")
        child = subprocess.Popen([sys.executable, "-m", "site_gen", "build", "-q", "--project", str(project)],
                                 env={**os.environ, "PYTHONPATH": str(REPO)})
        time.sleep(rng.uniform(0, duration * 1.2))
        child.send_signal(signal.SIGKILL)
        child.wait()
        seen = _tree(output)
        assert seen in (old, new), "output is a mix of two sites"
        outcomes["old" if seen == old else "new"] += 1
        assert build(project).ok and _tree(output) == new  # the next build recovers
    assert outcomes["old"] + outcomes["new"] == KILLS


@pytest.mark.slow
def test_no_process_of_a_build_outlives_a_sigkill(make_project) -> None:
    """A site large enough to fork helpers (the files made ahead, render workers), killed 25
    times at random moments: every process of each build is gone soon after."""
    papers = [(2020 + i % 6, f"Forked Paper {i} On Systems", abstract(f"f{i}"), ["cs.LG"])
              for i in range(450)]
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", papers)})
    command = [sys.executable, "-m", "site_gen", "build", "-q", "-j", "2", "--project", str(project)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env)
    duration = time.perf_counter() - started
    rng = random.Random(20261201)
    for _ in range(KILLS):
        (project / "content/dumps/a.txt").write_text(  # a build that changes files every time
            listing_dump("Ann Lee", papers[: rng.randrange(400, 450)]), encoding="utf-8")
        child = subprocess.Popen(command, env=env)
        time.sleep(rng.uniform(0, duration * 1.1))
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert _survivors(str(project), within=10.0) == []


HELPERS_ENDED = """
import multiprocessing, os, time
from site_gen.cli import _stop_on_signals
from site_gen.util.lifeline import die_with_parent
_stop_on_signals()  # as a watch session sets them
pool = multiprocessing.get_context("fork").Pool(2, initializer=die_with_parent,
                                                initargs=(os.getpid(),))
pool.map_async(time.sleep, [5, 5])
time.sleep(0.5)  # both helpers asleep in their task
pool.terminate()  # as Pool's with-block ends it (the dumps' readers), with SIGTERM
print("ended")
"""


def test_helpers_end_quietly_under_a_watch_session_s_signal_handlers() -> None:
    """A watch session turns SIGTERM into KeyboardInterrupt; forked helpers must not inherit
    that, or every pool ended after the first build printed a traceback per helper."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", HELPERS_ENDED], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "ended\n", "")


def _survivors(marker: str, within: float) -> list[int]:
    """Pids of processes whose command line names ``marker``, waiting up to ``within`` s
    for them to end (forked helpers keep their parent's command line)."""
    deadline = time.monotonic() + within
    while True:
        found = []
        for proc in Path("/proc").iterdir():
            try:
                cmdline = (proc / "cmdline").read_bytes()
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if proc.name.isdigit() and marker.encode() in cmdline and state != "Z":
                found.append(int(proc.name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def _restore(project: Path, content: Path) -> None:
    shutil.rmtree(project / "content")
    shutil.copytree(content, project / "content")


@pytest.mark.parametrize("code, message", [(errno.ENOSPC, "No space left on device"),
                                           (errno.EACCES, "Permission denied")])
def test_full_disk_or_unwritable_output_is_a_diagnostic_and_keeps_the_site(
        make_project, monkeypatch, code: int, message: str) -> None:
    project = make_project(_content(1))
    assert build(project).ok
    old = _tree(project / "_site")
    for name, text in _content(2).items():
        (project / name).write_text(text, encoding="utf-8")
    real_os_open, real_open = os.open, builtins.open
    written = [0]

    def enospc_after_a_few(path: object, *args: object, **kwargs: object):  # a disk filling up
        flags = args[0] if args else kwargs.get("flags", kwargs.get("mode", ""))
        creating = (isinstance(flags, int) and flags & os.O_CREAT) or (isinstance(flags, str) and "w" in flags)
        if creating and str(project) in str(path):
            written[0] += 1
            if written[0] > 20:
                raise OSError(code, message, str(path))
        opener = real_os_open if isinstance(flags, int) else real_open
        return opener(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", enospc_after_a_few)
    monkeypatch.setattr(builtins, "open", enospc_after_a_few)
    monkeypatch.setattr(io, "open", enospc_after_a_few)
    result = build(project)
    monkeypatch.undo()
    assert not result.ok
    assert message in str(result.diagnostics[-1])
    assert _tree(project / "_site") == old
    assert build(project).ok  # and the next build, with space again, succeeds
