"""Stage 5, writing: {path: bytes} -> the output folder, all at once or not at all.

The new site is staged in a sibling folder (unchanged files hard-linked from the current
output, changed ones written), then swapped in with one ``renameat2(RENAME_EXCHANGE)``; where
that is unavailable, two renames, with a leftover recovered on the next build. A reader of the
output folder therefore sees the whole old site or the whole new one, even after SIGKILL.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MARKER = ".site-gen"
MARKER_TEXT = b"This folder is written by site-gen and replaced as a whole on every build.\n"
FILE_MODE, DIR_MODE = 0o644, 0o755


class OutputError(Exception):
    """The output folder cannot be written; the message is for the user."""


@dataclass(frozen=True, slots=True)
class WriteResult:
    """Which files changed bytes, and which disappeared, relative to the previous output."""

    changed: tuple[str, ...]
    removed: tuple[str, ...]


def staging_paths(output: Path) -> tuple[Path, Path]:
    """The sibling folders a build uses: the new tree while staged, the old one while swapping."""
    return (output.with_name(f".{output.name}.staging"), output.with_name(f".{output.name}.old"))


def recover(output: Path) -> None:
    """Finish or undo a build that was killed: restore the old site, drop a stale staging tree."""
    staging, old = staging_paths(output)
    if old.exists() and not output.exists():
        os.rename(old, output)
    for leftover in (staging, old):
        if leftover.exists():
            shutil.rmtree(leftover)


def write_outputs(output: Path, files: Mapping[str, bytes]) -> WriteResult:
    """Replace ``output`` with exactly ``files`` (plus the marker), atomically."""
    _check_replaceable(output)
    try:
        recover(output)
        staging, _ = staging_paths(output)
        result = _stage(output, staging, files)
        _swap(staging, output)
    except OSError as exc:
        raise OutputError(f"cannot write {exc.filename or output}: {exc.strerror}") from exc
    return result


def _check_replaceable(output: Path) -> None:
    if output.is_symlink() or (output.exists() and not output.is_dir()):
        raise OutputError(f"{output} exists and is not a folder")
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).is_file():
        raise OutputError(f"{output} is not empty and was not written by site-gen; "
                          "refusing to replace it (choose another --output or empty it)")


def _stage(output: Path, staging: Path, files: Mapping[str, bytes]) -> WriteResult:
    staging.mkdir(mode=DIR_MODE)
    os.chmod(staging, DIR_MODE)
    made: set[Path] = {staging}
    changed = []
    for name in sorted(files):
        data = files[name]
        target = staging / name
        _make_dirs(target.parent, made)
        if not _link_if_same(output / name, target, data):
            _write_file(target, data)
            changed.append(name)
    _write_file(staging / MARKER, MARKER_TEXT)
    removed = sorted(set(_list_files(output)) - set(files) - {MARKER})
    return WriteResult(tuple(changed), tuple(removed))


def _make_dirs(folder: Path, made: set[Path]) -> None:
    if folder in made:
        return
    _make_dirs(folder.parent, made)
    folder.mkdir(mode=DIR_MODE, exist_ok=True)
    os.chmod(folder, DIR_MODE)
    made.add(folder)


def _link_if_same(current: Path, target: Path, data: bytes) -> bool:
    """Hard-link the current file into the new tree when its bytes are already right."""
    try:
        if current.is_symlink() or current.stat().st_size != len(data):
            return False
        if current.read_bytes() != data:
            return False
        os.link(current, target)
    except OSError:
        return False
    os.chmod(target, FILE_MODE)
    return True


def _write_file(target: Path, data: bytes) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(target, FILE_MODE)


def _list_files(root: Path) -> list[str]:
    if not root.is_dir():
        return []
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()]


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2); False where the system cannot."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap(staging: Path, output: Path) -> None:
    _, old = staging_paths(output)
    if not output.exists():
        os.rename(staging, output)
    elif _exchange(staging, output):
        shutil.rmtree(staging)
    else:
        os.rename(output, old)
        os.rename(staging, output)
        shutil.rmtree(old)
