"""What each page was rendered from, on disk, so that ``site-gen build`` run again renders
only the pages an edit changed.

Not a stage. A one-shot build is a new process: without this it renders the whole site again
however little changed. A Builder given a cache folder remembers, as a watch session does,
what each page was rendered from and read (cache.RenderMemory: the catalog, the routes, the
lookups and digest of each page), stores it with the output's manifest after every build that
wrote, and takes it back at its first build; a page is then reused exactly when watch mode
would reuse it, so the output is byte-identical to a clean build's. The other memos of a watch
session (catalog, routes, pieces of the files beside the pages) are not stored: at 10,000
papers they pickle to over 150 MB and took longer to load than to make again. Parsed dumps
are (``ParsedFiles``): each in a file of its own, named by the dump's path and bytes, written
by the process that parsed it, so that a build again parses only the dumps that changed.

The store is one file, ``<project>/.site-gen-cache/build.pickle``: a header, then pickles
one after the other: the output's manifest (made once the output is in place), the spare's
(the previous site, kept beside the output: write/tree.py), then the
memory (which the Builder pickles while a one-shot build waits for the files beside the
pages), taken back in that order, the memory only once the build has forked the process
that makes those files.
It is taken back only when everything it could depend on beyond the inputs the memory checks
itself is the same: site-gen's code (a digest of its modules, not only its version number),
Python's version, ``content/site.yaml``, the theme's and the project's template and static
files (names and bytes), the output folder and ``--site-url``; and only when
its bytes are whole (length and digest in the header). Anything else (a missing, truncated,
corrupted or foreign file) is a store not found: the build starts afresh. Deleting the folder
is always safe. An output file is trusted while its size, modification time and inode are
what the last build left, or its bytes still have the digest the manifest holds
(``live_files``); any other is made again. So is a spare's file, and the whole spare unless
it still holds the site the last swap left there (``write.tree.spare_untouched``).

A pickle runs code when loaded: the folder is the project's own, like its templates (which
run in a plain Jinja environment); it is not to be committed (``site-gen new`` writes a
``.gitignore`` that leaves it out).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import os
import pickle
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO, NamedTuple

import jinja2

import site_gen
from site_gen.write.tree import digest

CACHE_DIR = ".site-gen-cache"
STORE_FILE = "build.pickle"
FORMAT = b"site-gen build cache 4\n"
DIGEST_SIZE = 32

Stat = tuple[int, int, int]
"""A file's (size, mtime in ns, inode)."""
StoredKey = bytes
"""What a store was made for (``stamp``)."""


@functools.cache
def code_digest() -> bytes:
    """A digest of site-gen's own modules: a changed module may change what a memory means."""
    package = Path(site_gen.__file__).resolve().parent
    made = hashlib.blake2b(digest_size=DIGEST_SIZE)
    for path in sorted(package.rglob("*.py")):
        made.update(path.relative_to(package).as_posix().encode() + b"\0")
        made.update(path.read_bytes() + b"\0")
    return made.digest()


def files_digest(folders: Iterable[Path]) -> bytes:
    """A digest of the names and bytes of every file in ``folders``. Bytes, not modification
    times: a CI runner checks the theme out (or installs site-gen) afresh on every run, with
    new times, and its restored cache must still fit."""
    made = hashlib.blake2b(digest_size=DIGEST_SIZE)
    for folder in folders:
        made.update(str(folder).encode() + b"\0")
        for top, dirs, names in sorted(os.walk(folder)):
            dirs.sort()
            for name in sorted(names):
                try:  # never waiting on a named pipe
                    with open(os.open(os.path.join(top, name), os.O_RDONLY | os.O_NONBLOCK),
                              "rb") as file:
                        found = hashlib.file_digest(file, "blake2b").digest()
                except OSError:  # gone since listed, or a broken link: the build will say
                    continue
                made.update(f"{top}/{name}\0".encode("utf-8", "surrogateescape") + found)
    return made.digest()


def stamp(parts: Iterable[bytes | str]) -> StoredKey:
    """The store's key: code, Python, and ``parts`` (what else the memory depends on)."""
    made = hashlib.blake2b(code_digest(), digest_size=DIGEST_SIZE)
    made.update(sys.version.encode() + b"\0")
    for part in parts:
        made.update((part.encode() if isinstance(part, str) else part) + b"\0")
    return made.digest()


def load(folder: Path, key: StoredKey) -> Stored | None:
    """The objects stored under ``key``, to take back in order (``Stored.take``); None when
    there is none, or not whole, or another's."""
    found = _read_sealed(folder / STORE_FILE, FORMAT + key)
    return None if found is None else Stored(*found)


class Stored:
    """A whole store's objects, taken back one at a time: a build takes the output's manifest
    at once, and the memory of the pages once its forked process is started (1/3 s at
    10,000 papers that process no longer waits for)."""

    def __init__(self, data: bytes, start: int) -> None:
        self._stream = io.BytesIO(data)  # shares ``data``'s buffer: no copy of the 33 MB
        self._stream.seek(start)
        self._end = len(data)

    def take(self) -> object | None:
        """The next object stored; None when there is none left, or it does not unpickle
        (a whole file pickled by other code: the build then starts afresh)."""
        if self._stream.tell() >= self._end:
            return None
        try:
            return pickle.load(self._stream)
        except Exception:  # noqa: BLE001 - any failure means: nothing stored
            self._stream.seek(self._end)
            return None


def pickled(value: object) -> bytes:
    """``value`` as ``save`` stores it."""
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


class ToPickle(NamedTuple):
    """A part ``save`` pickles straight into the file, never holding the whole pickle: the
    build's memory is 33 MB of it at 10,000 papers, at the end of the build, on top of the
    site held in memory."""

    value: object


def save(folder: Path, key: StoredKey, parts: Sequence[bytes | ToPickle]) -> str | None:
    """Store the objects ``parts`` hold (each ``pickled``, or to pickle) under ``key``,
    replacing the last store at once; why not, if it failed."""
    try:
        folder.mkdir(exist_ok=True)
        _write_sealed(folder / STORE_FILE, FORMAT + key, parts)
    except OSError as exc:
        return f"{exc.filename or folder}: {exc.strerror}"
    return None


def _write_sealed(path: Path, head: bytes, parts: Sequence[bytes | ToPickle]) -> None:
    """Write ``head``, a digest of ``parts``, then ``parts`` to a side file and put it in
    place in one step (a reader never sees part of it); raises OSError, leaving no side file."""
    made = hashlib.blake2b(digest_size=DIGEST_SIZE)
    side = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        with open(side, "wb") as out:
            out.write(head + bytes(DIGEST_SIZE))  # the digest, once the parts are written
            sink = _Digested(out, made)
            for part in parts:
                if isinstance(part, ToPickle):
                    pickle.dump(part.value, sink, protocol=pickle.HIGHEST_PROTOCOL)
                else:
                    sink.write(part)
            out.seek(len(head))
            out.write(made.digest())
        os.replace(side, path)
    except OSError:
        with contextlib.suppress(OSError):
            side.unlink()
        raise


class _Digested:
    """A file that adds what is written to it to a digest as well."""

    def __init__(self, out: BinaryIO, made: hashlib.blake2b) -> None:
        self.out, self.made = out, made

    def write(self, data: bytes) -> int:
        self.made.update(data)
        return self.out.write(data)


def _read_sealed(path: Path, head: bytes) -> tuple[bytes, int] | None:
    """A file ``_write_sealed`` wrote with ``head``: its bytes and where the parts start;
    None when there is none, or it is not whole, or its head is another."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    start = len(head) + DIGEST_SIZE
    if len(data) < start or not data.startswith(head) or hashlib.blake2b(
            memoryview(data)[start:], digest_size=DIGEST_SIZE).digest() != data[len(head):start]:
        return None
    return data, start


def file_stats(root: Path, names: Iterable[str]) -> dict[str, Stat]:
    """(size, mtime, inode) of each of ``root``'s files named, as found now (paths joined as
    strings: a ``Path`` per file cost as much as the ``lstat``, 19,000 files twice a build)."""
    found = {}
    lstat, prefix = os.lstat, f"{root}/"
    for name in names:
        try:
            info = lstat(prefix + name)
        except OSError:
            continue
        found[name] = (info.st_size, info.st_mtime_ns, info.st_ino)
    return found


def stated(root: Path, digests: Mapping[str, bytes | None]
           ) -> dict[str, tuple[bytes | None, Stat]]:
    """A manifest as stored: each of ``root``'s files with its digest and its stat now (the
    files gone are left out)."""
    return {name: (digests[name], stat) for name, stat in file_stats(root, digests).items()}


def live_files(root: Path, stored: Mapping[str, tuple[bytes | None, Stat]]
               ) -> dict[str, bytes | None]:
    """The output's files as far as the last build's manifest still holds: its digest where
    the file's stat is what it was then, or where the file's bytes still give that digest (an
    output folder restored from a CI cache has new inodes and times); None (bytes unknown: the
    page is rendered again) where the file changed. Gone files are left out."""
    now = file_stats(root, stored)
    live: dict[str, bytes | None] = {}
    for name, (want, stat) in stored.items():
        found = now.get(name)
        if found is not None:
            live[name] = want if found == stat or (found[0] == stat[0]
                                                   and _digest_of(root / name) == want) else None
    return live


def _digest_of(path: Path) -> bytes | None:
    """A file's digest as a manifest holds it (``write.tree.digest``); None if unreadable."""
    try:
        return digest(path.read_bytes())
    except OSError:
        return None


PARSED_DIR = "parsed"
PARSED_FORMAT = b"site-gen parsed file 1\n"


class ParsedFiles:
    """Parsed input files, one pickle a file in ``<cache>/parsed/``, named by a digest of
    site-gen's code, Python's version, the file's path as shown and its bytes' digest: a name
    holds one parse for good, so a file is never rewritten in place, and a dump changed back
    finds its parse again. Read and written by the processes that parse dumps
    (``cache.FileCache``), which pickle what they parse anyway to hand it over. A file that is
    missing, not whole or unreadable is no parse: the dump is parsed again. ``keep_only``
    deletes the parses no dump of the last build has."""

    def __init__(self, cache: Path) -> None:
        self.folder = cache / PARSED_DIR

    @staticmethod
    def name(shown: str, found: bytes) -> str:
        """The file name of the parse of the file shown as ``shown`` whose digest is ``found``."""
        made = hashlib.blake2b(code_digest(), digest_size=20)
        made.update(sys.version.encode() + b"\0" + shown.encode() + b"\0" + found)
        return made.hexdigest()

    def read(self, shown: str, found: bytes) -> bytes | None:
        """The pickled parse stored for these bytes under that name, if whole."""
        sealed = _read_sealed(self.folder / self.name(shown, found), PARSED_FORMAT)
        return None if sealed is None else sealed[0][sealed[1]:]

    def write(self, shown: str, found: bytes, pickled_parse: bytes) -> None:
        """Store a pickled parse (in one step: a reader never sees part of it); a failure
        only means the next build parses the file again."""
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            _write_sealed(self.folder / self.name(shown, found), PARSED_FORMAT, [pickled_parse])

    def keep_only(self, files: Iterable[tuple[str, bytes]]) -> None:
        """Delete every stored parse but those of ``files`` ((shown, digest) pairs)."""
        kept = {self.name(shown, found) for shown, found in files}
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if name not in kept:
                with contextlib.suppress(OSError):
                    os.unlink(self.folder / name)


TEMPLATES_DIR = "templates"


class TemplateCode(jinja2.FileSystemBytecodeCache):
    """The theme's templates compiled, one file a template in ``<cache>/templates/``, so that
    a new process loads them instead of compiling them (0.27 s for the default theme; 0.06 s
    loaded). Jinja2 checks a file against the template's source and Python's version; its
    name holds a digest of site-gen's code as well, which sets the environment the code
    was compiled for, and the files of another code are deleted when the folder is opened.
    Writing one goes through a side file (Jinja2 renames it into place); a file missing,
    damaged or unwritable only means the template is compiled."""

    def __init__(self, cache: Path) -> None:
        folder = cache / TEMPLATES_DIR
        prefix = f"__jinja2_{code_digest().hex()[:20]}_"
        with contextlib.suppress(OSError):
            folder.mkdir(parents=True, exist_ok=True)
            for name in os.listdir(folder):
                if not name.startswith(prefix):
                    os.unlink(folder / name)
        super().__init__(str(folder), prefix + "%s.cache")

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - a damaged file (its checksum is a pickle): compile
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)
