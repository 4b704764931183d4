"""Guards around the file system: what a build may read, and where it may write.

A project's ``content/`` is read as data, so a symlink in it that points outside the folder
(``dumps/x.txt -> /etc/passwd``) is refused rather than published. The output folder is
replaced wholesale by every build, so it must never be, or contain, what the user keeps.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from site_gen.util.diagnostics import Diagnostic, error


def escaping_symlinks(content: Path, shown: str) -> tuple[list[Diagnostic], set[Path]]:
    """Symlinks under ``content`` whose targets lie outside it: diagnostics, and the paths."""
    root = content.resolve()
    problems: list[Diagnostic] = []
    refused: set[Path] = set()
    for path in _symlinks(content):
        target = path.resolve()
        if target != root and root not in target.parents:
            relative = path.relative_to(content).as_posix()
            problems.append(error(f"{shown}/{relative}", 0,
                                  "is a symlink to a file outside the content folder; refused"))
            refused.add(path)
    return problems, refused


def _symlinks(folder: Path) -> Iterator[Path]:
    """Every symlink under ``folder``, by name, depth first; none is followed. The entries'
    types come with the listing, so this costs one call per folder (every build runs it)."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink():
            yield Path(entry.path)
        elif entry.is_dir(follow_symlinks=False):
            yield from _symlinks(Path(entry.path))


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
