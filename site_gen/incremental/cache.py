"""The Builder's memory between builds: which inputs, pages and files a rebuild may reuse.

Not a stage: the Builder consults it between stages. What it keeps is compared by value (or,
for an interned catalog, by identity, which interning makes equivalent); it never decides
what a page contains, only whether last build's page may stand.

* ``FileCache``: a file's parsed form, kept until its (size, mtime, inode) or, when those are
  not conclusive, its bytes change. Dumps and theme static files are read through it.
* ``intern_catalog``: the new catalog with every object equal to the previous build's replaced
  by that very object, and the set of lookups (``("paper", id)``, ...) whose answer changed.
  Equal objects then compare by identity, so comparing a route with last build's is cheap.
* ``RenderMemory``: for every page of the last site written, the Route it was rendered from,
  what it read beyond the route's context (catalog lookups, entries of tracked globals,
  templates: ``render.Rendered.lookups``) and its digest. A page is reused when its route
  (URL, template, context) is equal, none of what it read has changed, the site-wide inputs
  (config, navigation pages) are equal, and the output still holds its digest. Equality is by
  value, so unlike a hash fingerprint it cannot collide.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

from site_gen.incremental.store import ParsedFiles
from site_gen.model import Catalog, Lookup, Paper
from site_gen.plan.routes import Route
from site_gen.render.engine import Lookups, Rendered, stale_marks
from site_gen.util.lifeline import die_with_parent
from site_gen.util.pickling import pickled_by_fields
from site_gen.write.tree import digest

T = TypeVar("T")
RACY_NS = 2_000_000_000
"""A file modified this close to when it was read may change again within one mtime tick."""


@dataclass(frozen=True, slots=True)
class Cached(Generic[T]):
    """A file's parsed form, with what identified its bytes when it was read."""

    stat: tuple[int, int, int]
    racy: bool
    digest: bytes
    value: T


class FileCache(Generic[T]):
    """Parsed files by display path; a file is read again only when it may have changed.

    Files to read are read and parsed by up to ``processes`` forked processes when they hold
    at least ``PARALLEL_BYTES`` in all (a first build of a large site); the parsed forms come
    back in the files' order, and must pickle.
    """

    def __init__(self, parse: Callable[[str, bytes], T], processes: int = 1,
                 stored: ParsedFiles | None = None) -> None:
        self._parse = parse
        self._processes = processes
        self._stored = stored
        """Parses kept on disk (a one-shot build's cache folder): a file whose parse is there
        is not parsed again, and each parse made is put there."""
        self._entries: dict[str, Cached[T]] = {}
        self.taken = 0
        """How many files the last ``load`` took the parse of from ``stored``."""

    def load(self, files: Iterable[tuple[str, Path]], hinted: Collection[str] = ()
             ) -> tuple[dict[str, Cached[T]], list[str]]:
        """Entries for the files that exist, and the display paths that were parsed again
        (not those whose parse was taken from the store)."""
        entries: dict[str, Cached[T] | None] = {}
        wanted: list[tuple[str, Path, int]] = []
        for shown, path in files:
            try:
                info = path.stat()
            except FileNotFoundError:  # gone since the folder was listed: the watcher saw it go
                continue
            key = (info.st_size, info.st_mtime_ns, info.st_ino)
            old = self._entries.get(shown)
            if old is not None and old.stat == key and not old.racy \
                    and os.path.abspath(path) not in hinted:
                entries[shown] = old
            else:
                entries[shown] = None  # read below; the place keeps the files' order
                wanted.append((shown, path, info.st_size))
        parsed: list[str] = []
        self.taken = 0
        for (shown, _, _), read in zip(wanted, self._read_all(wanted)):
            if read is None:  # gone since it was listed
                del entries[shown]
                continue
            if read.stored:
                self.taken += 1
            elif read.parsed is not None:
                parsed.append(shown)
            entries[shown] = self._entry(shown, read)
        self._entries = {shown: entry for shown, entry in entries.items() if entry is not None}
        if self._stored is not None:  # the parses of files as they were before go
            self._stored.keep_only([(shown, entry.digest) for shown, entry in self._entries.items()])
        return self._entries, parsed

    def _read_all(self, wanted: list[tuple[str, Path, int]]) -> Iterable[_Read[T] | None]:
        """``_read`` for each wanted file, in order: in worker processes when it pays."""
        items = [(shown, path, getattr(self._entries.get(shown), "digest", None))
                 for shown, path, _ in wanted]
        read = partial(_read, self._parse, self._stored)
        workers = min(self._processes, len(items))
        if workers < 2 or sum(size for _, _, size in wanted) < PARALLEL_BYTES \
                or "fork" not in multiprocessing.get_all_start_methods():
            return [_unpickled(self._parse, self._stored, item, read(item)) for item in items]
        with multiprocessing.get_context("fork").Pool(
                workers, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
            # unpickled as they come, while the workers parse on: not all at the end
            found = pool.imap(read, items, chunksize=max(1, len(items) // (workers * 8)))
            return [_unpickled(self._parse, self._stored, item, one)
                    for item, one in zip(items, found, strict=True)]

    def _entry(self, shown: str, read: _Read[T]) -> Cached[T]:
        """The cache entry for a file read again."""
        racy = read.stat[1] >= read.read_at - RACY_NS
        if read.parsed is None:  # touched, not changed (the digest last read): keep its parse
            return replace(self._entries[shown], stat=read.stat, racy=racy)
        assert isinstance(read.parsed, tuple)  # unpickled by _read_all
        return Cached(read.stat, racy, read.digest, read.parsed[0])


PARALLEL_BYTES = 4 << 20
"""Files to read that hold less than this in all are read in this process (``FileCache``)."""

class _Read(NamedTuple, Generic[T]):
    """What ``_read`` found of a file (a tuple: it comes back from a worker process)."""

    stat: tuple[int, int, int]
    """(size, mtime, inode)."""
    read_at: int
    digest: bytes
    parsed: tuple[T] | bytes | None
    """Its parsed form in a 1-tuple, or pickled (with a ``ParsedFiles``: the pickle stored or
    to be stored, which is what a worker process would send anyway); None when its digest
    was the last one read (not parsed)."""
    stored: bool = False
    """Its parse was taken from the store, not made."""


def _read(parse: Callable[[str, bytes], T], stored: ParsedFiles | None,
          item: tuple[str, Path, bytes | None], take_stored: bool = True) -> _Read[T] | None:
    """What a file holds (``_Read``; it is not parsed again when its digest is ``item``'s last
    one, or when ``stored`` has its parse, unless not ``take_stored``); None if the file is
    gone."""
    shown, path, last_digest = item
    try:
        info = os.stat(path)
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    read_at = time.time_ns()
    found = digest(data)
    stat = (info.st_size, info.st_mtime_ns, info.st_ino)
    if found == last_digest:
        return _Read(stat, read_at, found, None)
    if stored is None:
        return _Read(stat, read_at, found, (parse(shown, data),))
    kept = stored.read(shown, found) if take_stored else None
    if kept is not None:
        return _Read(stat, read_at, found, kept, stored=True)
    made = pickle.dumps(parse(shown, data), protocol=pickle.HIGHEST_PROTOCOL)
    stored.write(shown, found, made)
    return _Read(stat, read_at, found, made)


def _unpickled(parse: Callable[[str, bytes], T], stored: ParsedFiles | None,
               item: tuple[str, Path, bytes | None], read: _Read[T] | None) -> _Read[T] | None:
    """``read`` with its parse unpickled. A stored parse that does not unpickle (whole, yet
    not a pickle of this code's: not expected) is made and stored again."""
    if read is None or not isinstance(read.parsed, bytes):
        return read
    try:
        value: T = pickle.loads(read.parsed)
    except Exception:  # a stored parse that fails in any way is made again
        if not read.stored:
            raise
        return _unpickled(parse, stored, item, _read(parse, stored, item, take_stored=False))
    return _Read(read.stat, read.read_at, read.digest, (value,), read.stored)


def intern_catalog(new: Catalog, old: Catalog | None) -> tuple[Catalog, frozenset[Lookup] | None]:
    """``new`` sharing the previous build's equal objects; None for "all changed" on a first build.

    An author or subject whose paper list alone changed is a new object, but changes only
    ``("author-papers", id)`` or ``("subject-papers", code)``: a page that showed it without
    reading that list (model.py) stays as it is; likewise an author whose dumps alone changed
    (a record count: ``("author-profiles", id)``). So does a page that showed a paper whose
    abstract alone changed (``("paper-abstract", id)``) without reading the abstract.
    """
    if old is None:
        return new, None
    changes: set[Lookup] = set()
    papers = _intern("paper", new.papers, old._papers_by_id, attrgetter("id"), changes)
    authors = _intern("author", new.authors, old._authors_by_id, attrgetter("id"), changes)
    subjects = _intern("subject", new.subjects, old._subjects_by_code, attrgetter("code"),
                       changes)
    for kinds, before, after in ((("paper", "paper-abstract"), old._papers_by_id,
                                  new._papers_by_id),
                                 (("author", "author-papers", "author-profiles"),
                                  old._authors_by_id,
                                  new._authors_by_id),
                                 (("subject", "subject-papers"), old._subjects_by_code,
                                  new._subjects_by_code)):
        changes.update((kind, key) for key in before.keys() - after.keys() for kind in kinds)
    profiled = (tuple(a for a in old.authors if a.profiled), tuple(a for a in authors if a.profiled))
    for name, before_all, after_all in (("papers", old.papers, papers),
                                        ("authors", old.authors, authors),
                                        ("profiled_authors", *profiled),
                                        ("subjects", old.subjects, subjects)):
        if len(before_all) != len(after_all) or \
                any(b is not a for b, a in zip(before_all, after_all)):  # as interned
            changes.add((name, ""))
        if len(before_all) != len(after_all):
            changes.add(("count", name))
    if not changes:  # the very catalog again: what was made from it holds (memo.CatalogDelta)
        return old, frozenset()
    interned = replace(new, papers=papers, authors=authors, subjects=subjects,
                       _papers_by_id={}, _authors_by_id={}, _subjects_by_code={})
    return interned, frozenset(changes)


def _intern(kind: str, items: tuple[T, ...], before: Mapping[str, T], key: Callable[[T], str],
            changes: set[Lookup]) -> tuple[T, ...]:
    """Each item, or the previous build's equal one (with an equal paper list and equal
    profiles, if it has them)."""
    result = []
    for item, previous in zip(items, map(before.get, map(key, items))):
        if previous is item:
            result.append(item)
            continue
        shown = previous is not None and previous == item
        listed = getattr(previous, "members", None) == getattr(item, "members", None)
        profiled = getattr(previous, "own_profiles", None) == getattr(item, "own_profiles", None)
        if previous is not None and shown and listed and profiled:
            result.append(previous)
            continue
        result.append(item)
        if not shown:
            changes.update(_paper_changes(previous, item) if isinstance(item, Paper)
                           else ((kind, key(item)),))
        if not listed:
            changes.add((f"{kind}-papers", key(item)))
        if not profiled:
            changes.add((f"{kind}-profiles", key(item)))
    return tuple(result)


def _paper_changes(previous: object, paper: Paper) -> list[Lookup]:
    """``("paper", id)`` if anything but the abstract changed, ``("paper-abstract", id)`` if
    the abstract did: a page that read the abstract noted that it did (model.py)."""
    if not isinstance(previous, Paper):
        return [("paper", paper.id), ("paper-abstract", paper.id)]
    found = []
    if not _equal_but_abstract(previous, paper):
        found.append(("paper", paper.id))
    if previous.abstract_text != paper.abstract_text:
        found.append(("paper-abstract", paper.id))
    return found


def _equal_but_abstract(a: Paper, b: Paper) -> bool:
    """Would the two papers be equal if ``a`` had ``b``'s abstract?"""
    return replace(a, abstract_text=b.abstract_text) == b


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class PageMemo:
    """How a page of the site on disk was made."""

    route: Route
    lookups: Lookups
    """What it read: a set in watch mode, where every rebuild asks ``stale``; a tuple where
    it is only stored (``render.engine.PageRendering``'s ``listed``)."""
    digest: bytes


@dataclass(frozen=True, slots=True)
class RenderMemory:
    """What the last site written was made from; empty until a build writes."""

    catalog: Catalog | None = None
    site: object = None
    """The site-wide inputs every page may read (config, navigation pages)."""
    templates: Mapping[str, str] = field(default_factory=dict)
    """The source of every template, by name."""
    tracked: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    """Globals read per entry (asset versions, BibTeX), by lookup kind."""
    pages: Mapping[str, PageMemo] = field(default_factory=dict)
    site_files: tuple[object, Collection[str]] = (None, ())
    """What the files beside the pages were made from (besides the catalog), and their names."""

    def changes(self, catalog_changes: frozenset[Lookup] | None,
                tracked: Mapping[str, Mapping[str, object]], templates: Mapping[str, str]
                ) -> frozenset[Lookup] | None:
        """Every lookup whose answer differs from the last build's (None: treat all as changed)."""
        if catalog_changes is None:
            return None
        changed = set(catalog_changes)
        for kind, now in tracked.items():
            before = self.tracked.get(kind, {})
            changed.update((kind, key) for key in now.keys() | before.keys()
                           if now.get(key) != before.get(key))
        changed.update(("template", name) for name in templates.keys() | self.templates.keys()
                       if templates.get(name) != self.templates.get(name))
        return frozenset(changed)

    def stale(self, routes: Iterable[Route], changes: frozenset[Lookup],
              live: Mapping[str, bytes | None]) -> tuple[Route, ...]:
        """The routes whose pages are to be rendered again: all but those whose rendering
        would give the bytes the output already has (the page the route was last rendered
        from, as ``stale_marks`` tells it, with the route unchanged or changed only where the
        page did not read). One loop, no call per route: a rebuild asks this of every page."""
        pages, marks = self.pages, stale_marks(changes)
        stale = []
        for route in routes:
            name = route.output
            memo = pages.get(name)
            if (memo is None or live.get(name) != memo.digest
                    or not marks.isdisjoint(memo.lookups)
                    or not (memo.route is route or memo.route == route
                            or _same_as_read(memo.route, route, memo.lookups))):
                stale.append(route)
        return tuple(stale)

    def after(self, catalog: Catalog, site: object, templates: Mapping[str, str],
              tracked: Mapping[str, Mapping[str, object]], routes: Iterable[Route],
              rendered: Mapping[str, Rendered], site_files: tuple[object, Collection[str]]
              ) -> RenderMemory:
        """The memory of the build that just wrote: rendered pages new, the others kept."""
        pages = {}
        for route in routes:
            name = route.output
            page = rendered.get(name)
            if page is not None:
                pages[name] = PageMemo(route, page.lookups, page.digest)
            else:  # reused, so this route renders to the bytes on disk (_same_as_read): the
                kept = self.pages[name]  # next build compares with it, not with an older one
                pages[name] = kept if kept.route is route else replace(kept, route=route)
        return RenderMemory(catalog, site, templates, tracked, pages, site_files)


def _same_as_read(old: Route, new: Route, lookups: Lookups) -> bool:
    """Routes that differ only in abstracts the page did not read (model.py): rendering
    either gives the same bytes. An abstract edit changes the routes of every page that lists
    the paper (related papers, subject pages, the papers index), and most do not show it."""
    if (old.url, old.output, old.template, old.source) != \
            (new.url, new.output, new.template, new.source):
        return False
    pairs: list[tuple[Any, Any]] = [(old.context, new.context)]
    while pairs:
        a, b = pairs.pop()
        if a is b:
            continue
        kind = type(a)
        if kind is not type(b):
            return False
        if kind is Paper:
            if a != b and (("paper-abstract", a.id) in lookups
                           or not _equal_but_abstract(a, b)):
                return False
        elif kind is tuple or kind is list:
            if len(a) != len(b):
                return False
            pairs.extend(zip(a, b))
        elif kind is dict:
            if list(a) != list(b):
                return False
            pairs.extend((a[k], b[k]) for k in a)
        elif a != b:
            return False
    return True
