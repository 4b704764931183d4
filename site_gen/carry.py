"""The wheel a project carries: the running site-gen, packed as an installable wheel.

Not a pipeline stage. A content-only repository (``site-gen new``) keeps the exact site-gen
that made it in ``.site-gen/``, as Gradle's wrapper and Yarn's committed releases do, and its
Pages workflow installs that file, with the dependencies from the package index: no release
needs to be published anywhere for the site to deploy (docs/deployment.md).

The wheel is packed from the files Python imports site-gen from, so it is the same whether
site-gen was installed from a wheel, a clone or an editable checkout, and needs no build
tools. Its metadata (name, version, dependencies, the console script) is the installed
distribution's own, but for its long description (the README, which no installer reads and
an editable install does not refresh). The bytes depend only on those files: the same site-gen packs the same
wheel, so refreshing it in a repository changes nothing when nothing changed.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import site_gen
from site_gen.pipeline import builtin_theme_dir

DISTRIBUTION = "site-gen"
PACKAGE = "site_gen"
FOLDER = ".site-gen"
"""Where a project keeps its carried wheel, relative to the project folder."""
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Every member's date: the earliest a zip file can hold, so the bytes never depend on when
or from which files' modification times the wheel was packed."""
SKIPPED_SUFFIXES = (".pyc", ".pyo", "~", ".swp", ".orig", ".rej")


class CarryError(Exception):
    """site-gen cannot pack itself (not installed as a distribution, or installed metadata
    that does not match the code): the message says what to do."""


@dataclass(frozen=True, slots=True)
class Wheel:
    """A packed wheel: its file name (``site_gen-0.1.0-py3-none-any.whl``) and bytes."""

    name: str
    data: bytes


def wheel_name(version: str) -> str:
    """The file name a pure-Python wheel of this version has (the binary distribution format)."""
    return f"{PACKAGE}-{version}-py3-none-any.whl"


def running_wheel() -> Wheel:
    """The running site-gen as a wheel; raises CarryError when it cannot be packed."""
    metadata = _metadata_files()
    members = {**_package_files(), **metadata}
    version = site_gen.__version__
    dist_info = f"{PACKAGE}-{version}.dist-info"
    members[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: site-gen "
                                     + version.encode() + b"\nRoot-Is-Purelib: true\n"
                                     b"Tag: py3-none-any\n")
    members[f"{dist_info}/RECORD"] = _record(members, f"{dist_info}/RECORD")
    return Wheel(wheel_name(version), _zipped(members))


def _package_files() -> dict[str, bytes]:
    """Every file of the package and its theme, by its path inside the wheel. The themes are
    a package of their own: ``themes/`` beside ``site_gen/`` in a checkout, inside it once
    installed from a wheel."""
    files: dict[str, bytes] = {}
    package = Path(site_gen.__file__).resolve().parent
    default = builtin_theme_dir("default")
    if default is None:
        raise CarryError(f"site-gen's themes are not beside its code in {package}; install "
                         "it again")
    for root, inside in ((package, PurePosixPath(PACKAGE)),
                         (default.parent, PurePosixPath(PACKAGE, "themes"))):
        for path in sorted(root.rglob("*")):
            relative = path.relative_to(root)
            if path.is_file() and _belongs(relative):
                files[str(inside / relative.as_posix())] = path.read_bytes()
    return files


def _belongs(relative: Path) -> bool:
    """Whether a file under the package is part of it: not compiled, hidden or an editor's."""
    return not any(part.startswith(".") or part == "__pycache__" for part in relative.parts) \
        and not relative.name.endswith(SKIPPED_SUFFIXES)


def _metadata_files() -> dict[str, bytes]:
    """The installed distribution's METADATA and entry points, in the wheel's dist-info."""
    try:
        found = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise CarryError("site-gen is not installed as a package, so it cannot carry itself; "
                         "install it (in a clone: python3 -m pip install .)") from None
    if found.version != site_gen.__version__:
        raise CarryError(f"the installed metadata says site-gen {found.version} but the code is "
                         f"{site_gen.__version__}; install it again (in a clone: "
                         "python3 -m pip install -e .)")
    dist_info = f"{PACKAGE}-{found.version}.dist-info"
    # an editable install's metadata may be an .egg-info folder, whose METADATA is PKG-INFO
    metadata = found.read_text("METADATA") or found.read_text("PKG-INFO")
    entry_points = found.read_text("entry_points.txt")
    if metadata is None or entry_points is None:
        raise CarryError("site-gen's installed metadata is incomplete; install it again")
    headers = metadata.split("\n\n", 1)[0] + "\n"  # the body is the README: no installer reads it
    return {f"{dist_info}/METADATA": headers.encode("utf-8"),
            f"{dist_info}/entry_points.txt": entry_points.encode("utf-8")}


def _record(members: dict[str, bytes], record: str) -> bytes:
    """The wheel's RECORD: each member's path, sha256 and size; the RECORD itself unhashed."""
    lines = []
    for name, data in sorted(members.items()):
        hashed = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines.append(f"{name},sha256={hashed},{len(data)}")
    lines.append(f"{record},,")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _zipped(members: dict[str, bytes]) -> bytes:
    """The members as a zip: package files in name order, the dist-info last (as the format
    recommends, so an installer reads RECORD after what it lists)."""
    buffer = io.BytesIO()
    order = sorted(members, key=lambda name: (".dist-info/" in name, name))
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in order:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, members[name])
    return buffer.getvalue()
