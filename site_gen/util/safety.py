"""Guards around the file system: what a build may read, and where it may write.

A project's ``content/`` is read as data, so a symlink in it that points outside the folder
(``dumps/x.txt -> /etc/passwd``) is refused rather than published. The output folder is
replaced wholesale by every build, so it must never be, or contain, what the user keeps.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from site_gen.util.diagnostics import Diagnostic, error


def escaping_symlinks(content: Path, shown: str) -> tuple[list[Diagnostic], set[Path]]:
    """Symlinks under ``content`` whose targets lie outside it, or that lead back to
    themselves (a loop: reading one fails): diagnostics, and the paths."""
    root = content.resolve()
    problems: list[Diagnostic] = []
    refused: set[Path] = set()
    for path in _symlinks(content):
        relative = path.relative_to(content).as_posix()
        try:
            target = path.resolve()
        except (OSError, RuntimeError):  # ELOOP; Python before 3.13 raises RuntimeError
            problems.append(error(f"{shown}/{printable(relative)}", 0,
                                  "is a symlink loop (it leads back to itself); remove it"))
            refused.add(path)
            continue
        if target != root and root not in target.parents:
            problems.append(error(f"{shown}/{printable(relative)}", 0,
                                  "is a symlink to a file outside the content folder; refused"))
            refused.add(path)
    return problems, refused


UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
"""What a file name shown in a message must not hold as it is: control characters (a
newline), line and paragraph separators, and the stand-ins for bytes that are not UTF-8
(``os.fsdecode``'s surrogates). Any would break the ``path:line: message`` line."""


def printable(name: str) -> str:
    """A name as a message shows it: each character ``UNPRINTABLE`` matches escaped (a byte
    that is not UTF-8 as ``\\xff``, a newline as ``\\n``), the rest as it is."""
    return UNPRINTABLE.sub(_escaped, name)


def _escaped(found: re.Match[str]) -> str:
    char = found.group()
    if "\udc80" <= char <= "\udcff":
        return f"\\x{ord(char) - 0xdc00:02x}"
    return repr(char)[1:-1]


def _symlinks(folder: Path) -> Iterator[Path]:
    """Every symlink under ``folder``, by name, depth first; none is followed. The entries'
    types come with the listing, so this costs one call per folder (every build runs it).
    Not recursive: a thousand nested folders are no RecursionError."""
    stack = [iter(_entries(folder))]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
        elif entry.is_symlink():
            yield Path(entry.path)
        elif entry.is_dir(follow_symlinks=False):
            stack.append(iter(_entries(Path(entry.path))))


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """A folder's entries by name; none if it cannot be listed (its readers say so)."""
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return []


def check_output_folder(output: Path, project: Path, content: Path) -> list[Diagnostic]:
    """Refuse output folders a wholesale replace would destroy: /, ., the project, content."""
    target = output.resolve()
    forbidden = {Path("/").resolve(): "the file-system root", Path.cwd().resolve(): "the current folder",
                 Path.home().resolve(): "your home folder", project.resolve(): "the project folder"}
    if target in forbidden:
        return [error(str(output), 0, f"refusing to write the site into {forbidden[target]}; "
                                      "choose a folder of its own, e.g. --output _site")]
    content_root = content.resolve()
    if target == content_root or target in content_root.parents or content_root in target.parents:
        return [error(str(output), 0, "refusing to write the site into, or around, the content "
                                      "folder; choose a folder of its own, e.g. --output _site")]
    return []
