"""The file system around the input, made hostile: what no dump's text can do, its folder can.

Each class of trouble (docs/development.md, "Rules of the house"): an unreadable folder or
file, a symlink loop, a name that is not UTF-8 or holds a line break, a thousand nested
folders, Ctrl-C during a build, a pipe or a dangling symlink posing as a dump, an overlong URL
segment asked of the preview server, a wrong ``check --site-url``. Each gives a
``path[:line]: message`` line and its exit code, never a traceback, and a build that fails
leaves the last site byte for byte as it was.
"""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO, abstract, listing_dump, read_tree, write_files
from hypothesis import given
from hypothesis import strategies as st

from site_gen.cli import main
from site_gen.live.serve import LiveState, PreviewServer
from site_gen.pipeline import MAX_DEPTH
from site_gen.plan.redirects import LOCK_FILE, lock_text, parse_lock

SITE_YAML = "title: Lab\nsite_url: https://example.org/\n"
ADA = listing_dump("Ada Lovelace", [(2024, "Scheduling Rollouts", abstract("rollouts"), ["cs.LG"]),
                                    (2023, "Serving Models", abstract("serving"), ["cs.DC"])])
BOB = listing_dump("Bob Byte", [(2022, "Packing Experts", abstract("experts"), ["cs.DC"])])
GOOD = {"content/site.yaml": SITE_YAML, "content/dumps/ada.txt": ADA,
        "content/dumps/group/bob.txt": BOB,
        "content/pages/about.md": "---\ntitle: About\n---\nHello.\n",
        "static/extra/note.css": "p { margin: 0 }\n"}

_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _PR_CAPBSET_DROP = 1, 2, 24
_NOBODY = 65534


def _built(root: Path, files: dict[str, str | bytes] | None = None,
           run: Callable[[Path], tuple[int, str]] | None = None) -> tuple[Path, dict[str, bytes]]:
    """A project built once (by ``run``, else in this process), and its site's files."""
    project = write_files(root, files or GOOD)
    code, err = run(project) if run else (main(["build", "-q", "--project", str(project)]), "")
    assert code == 0, err
    return project, read_tree(project / "_site")


def _assert_named(code: int, err: str, expected: int, path: str) -> None:
    """The exit code, a ``path[:line]: message`` line for ``path``, and no traceback."""
    assert code == expected, err
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert any(re.match(re.escape(path) + r"(:\d+)?: \S", line) for line in lines), err


def _cli(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``site-gen ARGS`` in this process: exit code and stderr."""
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().err


def _subprocess_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}


# ---- 1. unreadable folders and files -------------------------------------------------------


@dataclass(frozen=True)
class Unprivileged:
    """Runs ``site-gen build`` where file modes bind: as this user when it is not root, else
    as root without the capabilities that read past them (CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH dropped from the bounding set before exec, so the kernel denies what
    ``chmod`` denies), else as ``nobody``, the project then owned by it."""

    preexec: Callable[[], None] | None
    owner: int | None

    def run(self, project: Path, *extra: str) -> tuple[int, str]:
        done = subprocess.run([sys.executable, "-m", "site_gen", "build", "-q", *extra,
                               "--project", str(project)], capture_output=True, text=True,
                              env=_subprocess_env(), preexec_fn=self.preexec, timeout=120,
                              check=False)
        return done.returncode, done.stderr

    def prepare(self, folder: Path) -> None:
        if self.owner is not None:
            for path in [folder, *folder.rglob("*")]:
                os.chown(path, self.owner, self.owner, follow_symlinks=False)


def _without_dac_capabilities() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _as_nobody() -> None:
    os.setgroups([])
    os.setgid(_NOBODY)
    os.setuid(_NOBODY)


def _binds(runner: Unprivileged, folder: Path) -> bool:
    """Whether a file of mode 000 is unreadable to what ``runner`` runs."""
    secret = folder / "secret"
    secret.write_text("x")
    runner.prepare(folder)
    secret.chmod(0)
    try:
        done = subprocess.run([sys.executable, "-c", f"open({str(secret)!r}).read()"],
                              capture_output=True, text=True, preexec_fn=runner.preexec,
                              timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):  # could not even start
        return False
    finally:
        secret.unlink()
    return done.returncode != 0 and "PermissionError" in done.stderr


@pytest.fixture(scope="module")
def unprivileged() -> Iterator[Unprivileged]:
    folder = Path(tempfile.mkdtemp(prefix="site-gen-hostile-"))
    folder.chmod(0o755)
    try:
        candidates = ([Unprivileged(None, None)] if os.geteuid() != 0 else
                      [Unprivileged(_without_dac_capabilities, None),
                       Unprivileged(_as_nobody, _NOBODY)])
        for runner in candidates:
            if _binds(runner, folder):
                yield runner
                return
        pytest.skip("no way to run a build that file modes bind (neither a non-root user nor "
                    "root able to drop its capabilities)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A temporary folder every user can reach (pytest's own is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="site-gen-hostile-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:  # modes taken away are given back, to delete
        with contextlib.suppress(OSError):
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(folder, ignore_errors=True)


# (case, paths made unreadable with their new mode, the path the message names)
UNREADABLE = [
    ("dumps folder", {"content/dumps": 0o000}, "content/dumps"),
    ("dumps folder listable only", {"content/dumps": 0o100}, "content/dumps"),
    ("subfolder", {"content/dumps/group": 0o000}, "content/dumps/group"),
    ("subfolder readable, not searchable", {"content/dumps/group": 0o400},
     "content/dumps/group/bob.txt"),
    ("dump", {"content/dumps/ada.txt": 0o000}, "content/dumps/ada.txt"),
    ("dump write-only", {"content/dumps/group/bob.txt": 0o200}, "content/dumps/group/bob.txt"),
    ("content folder", {"content": 0o000}, "content"),
    ("content folder readable, not searchable", {"content": 0o400}, "content"),
    ("pages folder", {"content/pages": 0o000}, "content/pages"),
    ("urls.lock", {"content/urls.lock": 0o000}, "content/urls.lock"),
    ("static subfolder", {"static/extra": 0o000}, "static/extra"),
    ("static file", {"static/extra/note.css": 0o000}, "static/extra/note.css"),
]


@pytest.mark.parametrize("case, modes, named", UNREADABLE, ids=[c[0] for c in UNREADABLE])
def test_an_unreadable_input_is_an_error_and_the_site_stays(
        unprivileged: Unprivileged, open_folder: Path, case: str, modes: dict[str, int],
        named: str) -> None:
    """A folder or file the build may not read would drop papers, pages or assets from the
    site without a word (``no dump files found`` and every page gone, with exit code 0)."""
    root = open_folder / "project"
    root.mkdir()
    unprivileged.prepare(open_folder)
    project, before = _built(root, run=lambda p: unprivileged.run(p))
    unprivileged.prepare(open_folder)
    for name, mode in modes.items():
        (project / name).chmod(mode)
    code, err = unprivileged.run(project)
    for name in reversed(list(modes)):
        (project / name).chmod(0o755 if (project / name).is_dir() else 0o644)
    _assert_named(code, err, 1, named)
    assert "no dump files found" not in err
    assert read_tree(project / "_site") == before


# ---- 2. what raised instead of naming a path -------------------------------------------------


def _symlink_loop(folder: Path) -> str:
    (folder / "a.txt").symlink_to("b.txt")
    (folder / "b.txt").symlink_to("a.txt")
    return "content/dumps/a.txt"


def _self_loop(folder: Path) -> str:
    (folder / "group" / "me.txt").symlink_to("me.txt")
    return "content/dumps/group/me.txt"


def _folder_loop(folder: Path) -> str:
    (folder / "up").symlink_to("down")
    (folder / "down").symlink_to("up")
    return "content/dumps/down"


def _named(raw: bytes, inside: bytes = b"") -> Callable[[Path], str]:
    """A dump (in the folder ``inside``, if given) whose name is ``raw``'s bytes; the message
    names the first of the two, each byte that is not UTF-8 shown as ``\\xff``."""
    def make(folder: Path) -> str:
        where = os.fsencode(folder) + (b"/" + inside if inside else b"")
        os.makedirs(where, exist_ok=True)
        with open(where + b"/" + raw, "wb") as file:
            file.write(BOB.replace("Bob Byte", "Carl Named").encode())
        return "content/dumps/" + (inside or raw).decode("ascii", "backslashreplace")
    return make


def _nested(depth: int) -> Callable[[Path], str]:
    """``depth`` folders, one in the next, a dump at the bottom (made without recursion)."""
    def make(folder: Path) -> str:
        here = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for _ in range(depth):
                os.mkdir("d", dir_fd=here)
                inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=here)
                os.close(here)
                here = inner
            fd = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
            os.write(fd, BOB.replace("Bob Byte", "Dee Deep").encode())
            os.close(fd)
        finally:
            os.close(here)
        return "content/dumps/" + "d/" * MAX_DEPTH + "d"
    return make


def _remove_nested(folder: Path) -> None:
    """Delete ``folder/d/d/...`` a level at a time (shutil.rmtree recurses, and would not
    get to the bottom of a thousand): each level's inner folder is lifted into its place."""
    top, lifted = folder / "d", folder / "lifted"
    while top.exists():
        for entry in os.scandir(top):
            if entry.name != "d":
                os.unlink(entry.path)
        if (top / "d").exists():
            os.rename(top / "d", lifted)
            os.rmdir(top)
            os.rename(lifted, top)
        else:
            os.rmdir(top)


HOSTILE_PATHS: list[tuple[str, Callable[[Path], str]]] = [
    ("symlink loop of two dumps", _symlink_loop),
    ("symlink to itself, in a subfolder", _self_loop),
    ("symlink loop of folders", _folder_loop),
    ("name not UTF-8", _named(b"\xff.txt")),
    ("name in Latin-1", _named(b"caf\xe9.txt")),
    ("name with a cut UTF-8 sequence", _named(b"a\xc3.txt")),
    ("folder name not UTF-8", _named(b"ok.txt", inside=b"\xfe\xfd")),
    (f"{MAX_DEPTH + 1} nested folders", _nested(MAX_DEPTH + 1)),
    ("1,100 nested folders", _nested(1100)),
]


@pytest.mark.parametrize("case, make", HOSTILE_PATHS, ids=[c[0] for c in HOSTILE_PATHS])
def test_hostile_paths_are_named_not_raised(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str,
        make: Callable[[Path], str]) -> None:
    """Each raised before (RuntimeError, UnicodeEncodeError, RecursionError): now a message
    at the path, shown with its bad bytes escaped, and the site as it was."""
    project, before = _built(tmp_path / "p")
    dumps = project / "content" / "dumps"
    try:
        shown = make(dumps)
        code, err = _cli("build", "--project", str(project), capsys=capsys)
    finally:
        _remove_nested(dumps)
    _assert_named(code, err, 1, shown)
    assert read_tree(project / "_site") == before


def _title(project: Path, title: str) -> None:
    (project / "content" / "site.yaml").write_text(
        f"title: {title}\nsite_url: https://example.org/\n")


def _wait_for_the_build(child: subprocess.Popen[str], project: Path) -> None:
    """Until the build has opened a file in ``project`` (start-up is over: Python's imports
    are not the build, and Ctrl-C there is Python's to report), or has ended."""
    deadline, inside = time.monotonic() + 60, str(project) + "/"
    while time.monotonic() < deadline and child.poll() is None:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{child.pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{child.pid}/fd/{fd}").startswith(inside):
                        return
        time.sleep(0.002)


def _long_build_project(folder: Path) -> Path:
    """A project of 720 papers in 120 dumps: a build long enough for a signal to land in."""
    files: dict[str, str | bytes] = {"content/site.yaml": SITE_YAML}
    for n in range(120):
        files[f"content/dumps/d{n:03}.txt"] = listing_dump(f"Author{n} Person", [
            (2020 + p % 5, f"Paper {n} {p} on topic {n * 7 + p}", abstract(f"topic {n} {p}"),
             ["cs.LG"]) for p in range(6)])
    return write_files(folder, files)


@pytest.mark.slow
def test_ctrl_c_during_a_build_ends_it_with_130_and_a_whole_site(tmp_path: Path) -> None:
    """Ctrl-C reaches every process of the terminal's group; the build says so in one line
    and exits with 130 (not a KeyboardInterrupt traceback), and the output folder holds one
    whole site: the previous one, or the new one if it was already swapped in. The site's
    title changes between builds, so every page tells the two apart."""
    project = _long_build_project(tmp_path / "p")
    command = [sys.executable, "-m", "site_gen", "build", "-q", "--project", str(project)]
    trees = {}
    for title in ("Lab A", "Lab B"):
        _title(project, title)
        started = time.monotonic()
        subprocess.run(command, env=_subprocess_env(), check=True, capture_output=True)
        took = time.monotonic() - started
        trees[title] = read_tree(project / "_site")
    interrupted, shown = 0, "Lab B"
    # from just after start-up to past the end of a build; on a busy machine the signal may
    # land before the build or after it, so more tries in mid-build follow until one is cut
    delays = [took * trial / 6 for trial in range(8)] + [took * 0.3] * 12
    for trial, delay in enumerate(delays):
        if trial >= 8 and interrupted:
            break
        title = "Lab A" if shown == "Lab B" else "Lab B"  # a build with all pages to render
        _title(project, title)
        child = subprocess.Popen(command, env=_subprocess_env(), stderr=subprocess.PIPE,
                                 text=True, process_group=0)
        _wait_for_the_build(child, project)
        time.sleep(delay)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=120)
        assert "Traceback" not in err, err
        assert child.returncode in (0, 130, -signal.SIGINT), err  # -2: as it exited
        if child.returncode == 130:
            interrupted += 1
            assert re.search(r"^site-gen: build interrupted; \S.*is whole", err, re.MULTILINE), err
        site = read_tree(project / "_site")
        assert site in trees.values(), f"trial {trial}: not one whole site"
        shown = next(name for name, tree in trees.items() if tree == site)
    assert interrupted >= 1


@pytest.mark.slow
def test_a_build_started_with_sigint_ignored_still_stops_on_it(tmp_path: Path) -> None:
    """A process started in the background of a shell script (``&``) inherits SIGINT
    ignored; a build must still end on it (a script's ``kill -INT``, a CI job cancelled)."""
    project = _long_build_project(tmp_path / "p")
    command = [sys.executable, "-m", "site_gen", "build", "-q", "--no-cache", "--project",
               str(project)]
    started = time.monotonic()
    subprocess.run(command, env=_subprocess_env(), check=True, capture_output=True)
    took = time.monotonic() - started
    codes = []
    for _ in range(10):
        shutil.rmtree(project / "_site")
        child = subprocess.Popen(["bash", "-c", 'trap "" INT; exec "$@"', "bash", *command],
                                 env=_subprocess_env(), stderr=subprocess.PIPE, text=True)
        _wait_for_the_build(child, project)
        time.sleep(took * 0.3)
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=120)
        codes.append(child.returncode)
        assert "Traceback" not in err, err
        if child.returncode == 130:
            break
    assert 130 in codes, codes


def _serve(folder: Path) -> tuple[PreviewServer, threading.Thread]:
    server = PreviewServer(("127.0.0.1", 0), folder, LiveState("/"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


def _get(server: PreviewServer, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


LONG_SEGMENTS = ["a" * 256, "a" * 300 + "/", "b" * 255 + "c/index.html", "%C3%A9" * 130,
                 "x/" + "y" * 1000, "/".join(["z" * 250] * 20), "q" * 5000 + ".html"]


def test_the_preview_answers_an_overlong_path_segment_with_404(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A name longer than the file system allows (255 bytes, or a whole path past 4,096) made
    ``is_dir`` raise: an empty reply, and an OSError in the terminal. Now a 404 page."""
    write_files(tmp_path, {"index.html": "<html><body>home</body></html>",
                           "404.html": "<html><body>not here</body></html>"})
    server, thread = _serve(tmp_path)
    try:
        for segment in LONG_SEGMENTS:
            status, body = _get(server, "/" + segment)
            assert status in (404, 414), segment
            assert status == 414 or b"not here" in body
        assert _get(server, "/")[0] == 200  # and it still serves
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "OSError" not in err, err


# ---- 3. a line break in a dump's name, and the lock -----------------------------------------


BREAKS = ["a\nb.txt", "a\rb.txt", "a\r\nb.txt", "tab\there.txt", "bell\x07.txt", "nel\x85.txt",
          "line\u2028sep.txt", "para\u2029sep.txt", "\x1b[31mred.txt", "trailing\n.txt"]


@pytest.mark.parametrize("name", BREAKS, ids=[ascii(n) for n in BREAKS])
@pytest.mark.parametrize("in_folder", [False, True], ids=["dump", "folder"])
def test_a_line_break_in_a_dump_s_name_is_refused_and_the_lock_stays_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, in_folder: bool) -> None:
    """A newline in a dump's name went into content/urls.lock as is, and every later build
    failed on the lock, even after the file was renamed. Such a name is refused (it is the
    profile's identity in the lock, and the place of every message about the dump)."""
    project, before = _built(tmp_path / "p")
    lock = (project / "content" / LOCK_FILE).read_bytes()
    dumps = project / "content" / "dumps"
    target = dumps / name / "x.txt" if in_folder else dumps / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(BOB.replace("Bob Byte", "Nell Newline"))
    shown = "content/dumps/" + name.encode("unicode_escape").decode()
    code, err = _cli("build", "--project", str(project), capsys=capsys)
    _assert_named(code, err, 1, shown)
    assert "line break" in err or "control character" in err
    assert read_tree(project / "_site") == before
    assert (project / "content" / LOCK_FILE).read_bytes() == lock
    shutil.rmtree(target.parent) if in_folder else target.unlink()
    assert _cli("build", "-q", "--project", str(project), capsys=capsys)[0] == 0


OLD_NAMES = ["a\nb.txt", "a\n\nb.txt", "trailing\n.txt", "a\rb.txt", "nel\x85.txt",
             "sep\u2028.txt", "ff\x0c.txt", "\npapers-like.txt"]


@pytest.mark.parametrize("name", OLD_NAMES, ids=[ascii(n) for n in OLD_NAMES])
def test_a_lock_an_older_build_broke_with_a_name_no_longer_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    """The lock as an older site-gen wrote it, the name's line break and all: builds succeed,
    and the next lock written is one a build reads without a word."""
    project, before = _built(tmp_path / "p")
    lock_path = project / "content" / LOCK_FILE
    old = f"authors/nell-newline/ profile:content/dumps/{name}\nauthors/zed/ name:zed\n"
    lock_path.write_text(lock_path.read_text() + old, encoding="utf-8")
    assert _cli("build", "-q", "--project", str(project), capsys=capsys) == (0, "")
    assert read_tree(project / "_site") == before
    nell = BOB.replace("Bob Byte", "Nell Newline")
    (project / "content" / "dumps" / "nell.txt").write_text(nell)
    code, err = _cli("build", "-q", "--project", str(project), capsys=capsys)
    assert code == 0 and "Traceback" not in err, err
    text = lock_path.read_bytes()
    assert parse_lock("lock", text)[1] == []
    assert b"authors/nell-newline/ profile:content/dumps/nell.txt\n" in text
    assert b"authors/zed/ name:zed\n" in text
    assert _cli("build", "-q", "--project", str(project), capsys=capsys) == (0, "")


URLS = st.builds(lambda kind, slug: f"{kind}/{slug}/", st.sampled_from(["papers", "authors"]),
                 st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True))


@given(st.dictionaries(URLS, st.text(min_size=1, max_size=30), max_size=8))
def test_any_lock_written_reads_back_without_error(lock: dict[str, str]) -> None:
    """Whatever an identity holds (any line break, control character, space), the lock
    written is read back without an error, and every entry it kept is as it was."""
    text = lock_text(lock)
    read, problems = parse_lock("lock", text.encode())
    assert problems == []
    assert read.items() <= lock.items()
    kept = {url for url, identity in lock.items()
            if "\n" not in identity and identity == identity.strip()}
    assert set(read) == kept
    assert text.startswith(lock_text({}))


# ---- 4. a pipe or a dangling symlink posing as a dump ----------------------------------------


def _fifo(folder: Path) -> tuple[str, str]:
    os.mkfifo(folder / "pipe.txt")
    return "content/dumps/pipe.txt", "a named pipe"


def _fifo_behind_a_symlink(folder: Path) -> tuple[str, str]:
    os.mkfifo(folder / "group" / "pipe.bin")
    (folder / "linked.txt").symlink_to("group/pipe.bin")
    return "content/dumps/linked.txt", "a named pipe"


def _dangling(folder: Path) -> tuple[str, str]:
    (folder / "gone.txt").symlink_to("moved-away.txt")
    return "content/dumps/gone.txt", "a symlink to nothing (moved-away.txt)"


def _dangling_chain(folder: Path) -> tuple[str, str]:
    (folder / "group" / "first.txt").symlink_to("second.txt")
    (folder / "group" / "second.txt").symlink_to("nowhere.txt")
    return "content/dumps/group/first.txt", "a symlink to nothing (second.txt)"


def _socket(folder: Path) -> tuple[str, str]:
    with contextlib.chdir(folder), socket.socket(socket.AF_UNIX) as sock:
        sock.bind("sock.txt")  # relative: a socket's path may hold 107 bytes at most
    return "content/dumps/sock.txt", "a socket"


NOT_FILES = [("named pipe", _fifo), ("symlink to a named pipe", _fifo_behind_a_symlink),
             ("dangling symlink", _dangling), ("chain of symlinks to nothing", _dangling_chain),
             ("socket", _socket)]


@pytest.mark.parametrize("case, make", NOT_FILES, ids=[c[0] for c in NOT_FILES])
def test_a_txt_that_is_not_a_regular_file_is_named_and_never_opened(
        tmp_path: Path, case: str, make: Callable[[Path], tuple[str, str]]) -> None:
    """It was skipped without a word (and a pipe, if opened, would hang the build): a
    ``not-a-dump`` warning names it; ``--strict`` fails on it and keeps the site."""
    project, before = _built(tmp_path / "p")
    shown, what = make(project / "content" / "dumps")
    command = [sys.executable, "-m", "site_gen", "build", "-q", "--project", str(project)]
    done = subprocess.run(command, env=_subprocess_env(), capture_output=True, text=True,
                          timeout=120, check=False)  # a build that waits on the pipe times out
    _assert_named(done.returncode, done.stderr, 0, shown)
    assert f"{shown}: warning: not read: {what}" in done.stderr
    assert "[not-a-dump]" in done.stderr
    assert read_tree(project / "_site") == before  # nothing of it was read
    done = subprocess.run([*command, "--strict"], env=_subprocess_env(), capture_output=True,
                          text=True, timeout=120, check=False)
    _assert_named(done.returncode, done.stderr, 1, shown)
    assert read_tree(project / "_site") == before


# ---- 5. check --site-url with a URL that is wrong -------------------------------------------


BAD_URLS = [("ftp://x/", "ftp: is not http: or https:"),
            ("example.org/pubs/", "does not start with http:// or https://"),
            ("https:///pubs/", "no host"), ("https://example.org/?page=1", "query"),
            ("https://example.org/#top", "fragment"), ("http://[::1/", "Invalid IPv6 URL"),
            ("", "does not start with http:// or https://")]


@pytest.mark.parametrize("url, why", BAD_URLS, ids=[u or "empty" for u, _ in BAD_URLS])
def test_check_says_what_is_wrong_with_the_site_url_given(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, why: str) -> None:
    """``check --site-url ftp://x/`` said to pass ``--site-url``: it now says what is wrong
    with the one given, as ``build --site-url`` does, and exits 2 (a usage error)."""
    project, _ = _built(tmp_path / "p")
    code, err = _cli("check", "--project", str(project), "--site-url", url, capsys=capsys)
    _assert_named(code, err, 2, "--site-url")
    assert repr(url) in err and why in err
    assert "pass --site-url" not in err
    code, err = _cli("build", "--project", str(project), "--site-url", url, capsys=capsys)
    _assert_named(code, err, 1, "--site-url")
    assert why in err
