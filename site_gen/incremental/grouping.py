"""The catalog's grouping kept up to date while dumps change a few at a time (watch mode).

``Regrouping.update`` gives what ``catalog.merge.group_records`` gives for the records of all
dumps in path order, groups and warnings alike (``group_records`` is the specification;
tests/test_incremental_catalog.py holds this to it on random edits). It keeps every record's
keys and group, and groups again only the records a changed dump's keys reach, so the groups
of untouched records stay the very same objects (the catalog memo finds its drafts by them).
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter, itemgetter, not_

from site_gen.catalog.merge import RecordKeys, UnionFind, record_keys, suspected, years_agree
from site_gen.model import Dump, Record
from site_gen.util.diagnostics import Diagnostic

Position = tuple[str, int]
"""A record's place in the merge order: its dump's path, then its index in that dump."""


@dataclass(frozen=True, slots=True)
class _Keyed:
    """A record with the keys it is grouped and compared by (``merge.RecordKeys``)."""

    record: Record
    abstract: bytes | None
    title: bytes | None
    opening: bytes | None
    shared: tuple[bytes, ...]


@dataclass(eq=False, slots=True)
class _Group:
    """One paper's records, in merge order, with their positions."""

    positions: tuple[Position, ...]
    records: list[Record]


@dataclass(slots=True)
class _Change:
    """What removing and adding dumps touched: keys, the groups that held them, new records."""

    abstracts: set[bytes] = field(default_factory=set)
    titles: set[bytes] = field(default_factory=set)
    openings: set[bytes] = field(default_factory=set)
    groups: dict[int, _Group] = field(default_factory=dict)
    added: list[Position] = field(default_factory=list)


class Regrouping:
    """``group_records`` kept up to date while dumps change a few at a time (watch mode).

    Only the groups holding a record with a key of a removed or added record can change: a
    record joins the records sharing its abstract and the first record with its title, and
    for keys no change touched, those are the same records as before, and the same first
    record. Those groups are grouped again from their own records and the added ones.
    """

    def __init__(self) -> None:
        self._dumps: dict[str, Dump] = {}
        self._keyed: dict[Position, _Keyed] = {}
        self._by_abstract: dict[bytes, list[Position]] = {}
        self._by_title: dict[bytes, list[Position]] = {}
        self._by_opening: dict[bytes, list[Position]] = {}
        self._group_of: dict[Position, _Group] = {}
        self._groups: list[_Group] = []
        """Ordered by their first record, as ``group_records`` orders them."""
        self._records: list[list[Record]] = []
        """Each group's records, in the same order (what ``update`` returns, copied)."""
        self._suspects: dict[bytes, tuple[Position, list[Diagnostic]]] = {}
        """Suspected-duplicate warnings by abstract opening, with the opening's first record."""

    def update(self, dumps: Sequence[Dump], keys: Mapping[str, Sequence[RecordKeys]] | None = None
               ) -> tuple[list[list[Record]], list[Diagnostic]]:
        """``group_records`` of the dumps' records in path order (paths must be unique);
        ``keys``: the ``merge.dump_keys`` of dumps by path, where made already.

        A dump read again after an edit is a new object with new records, but most of them
        equal the ones they replace: only the records that differ from the one at the same
        place before are taken out and put in, so the groups of the rest stay the same
        objects (and the catalog's drafts and papers made from them are reused)."""
        current = {d.path: d for d in dumps}
        given = keys or {}
        change = _Change()
        for path, dump in self._dumps.items():
            now = current.get(path)
            if now is None:
                self._drop(dump, range(len(dump.records)), change)
            elif now is not dump:
                self._replace(dump, now, change, given.get(path))
        for path, dump in current.items():
            if path not in self._dumps:
                self._add(dump, range(len(dump.records)), change, given.get(path))
        self._dumps = current
        if change.added or change.groups:
            regrouped = self._regroup(change)
            self._recheck(change.openings.union(
                o for p in regrouped if (o := self._keyed[p].opening) is not None))
        suspects = sorted(self._suspects.values(), key=itemgetter(0))
        return list(self._records), [d for _, found in suspects for d in found]

    def _replace(self, old: Dump, new: Dump, change: _Change,
                 keys: Sequence[RecordKeys] | None) -> None:
        """Take out and put in the records of a dump read again that differ from the record
        at their place before (a record's place includes its line, so one put in or taken
        out moves the records after it, and those are put in again too)."""
        records = old.records
        differ = [i for i, record in enumerate(new.records)
                  if i >= len(records) or records[i] != record]
        self._drop(old, [i for i in differ if i < len(records)], change)
        self._drop(old, range(len(new.records), len(records)), change)
        self._add(new, differ, change, keys)

    def _drop(self, dump: Dump, places: Iterable[int], change: _Change) -> None:
        """Take these records of a dump out; the groups that held them are to be made again."""
        for i in places:
            position = (dump.path, i)
            keyed = self._keyed.pop(position)
            for index, key, touched in self._indexes(keyed, change):
                if key is not None:
                    members = index[key]
                    members.remove(position)
                    if not members:
                        del index[key]
                    touched.add(key)
            group = self._group_of.pop(position)
            change.groups[id(group)] = group

    def _add(self, dump: Dump, places: Iterable[int], change: _Change,
             keys: Sequence[RecordKeys] | None) -> None:
        """Key these records of a dump (folding their text, unless ``keys`` holds the dump's
        ``merge.dump_keys``) and index them by each key."""
        for i in places:
            record = dump.records[i]
            position = (dump.path, i)
            made = record_keys(record) if keys is None else keys[i]
            keyed = self._keyed[position] = _Keyed(record, made.abstract, made.title, made.opening,
                                                   made.shared)
            for index, key, touched in self._indexes(keyed, change):
                if key is not None:
                    insort(index.setdefault(key, []), position)
                    touched.add(key)
            change.added.append(position)

    def _indexes(self, keyed: _Keyed, change: _Change
                 ) -> Iterable[tuple[dict[bytes, list[Position]], bytes | None, set[bytes]]]:
        """Each index a record is in, with its key there and the keys ``change`` touched (a
        short abstract's keys with each person are abstract keys too)."""
        return ((self._by_abstract, keyed.abstract, change.abstracts),
                *((self._by_abstract, shared, change.abstracts) for shared in keyed.shared),
                (self._by_title, keyed.title, change.titles),
                (self._by_opening, keyed.opening, change.openings))

    def _regroup(self, change: _Change) -> list[Position]:
        """Group again the records of every group a touched key reaches, and the added ones."""
        for index, keys in ((self._by_abstract, change.abstracts), (self._by_title, change.titles)):
            for key in keys:
                for position in index.get(key, ()):
                    if (group := self._group_of.get(position)) is not None:
                        change.groups[id(group)] = group
        region = sorted({p for g in change.groups.values() for p in g.positions
                         if p in self._group_of}.union(change.added))
        groups = self._components(region)
        for group in groups:
            for position in group.positions:
                self._group_of[position] = group
        self._place(groups, change.groups)
        return region

    def _place(self, groups: list[_Group], replaced: Collection[int]) -> None:
        """Put ``groups`` in order in place of the groups whose ids are ``replaced``: one by
        one when they are few, else by sorting (every pass over all groups is at C speed)."""
        kept = list(map(not_, map(replaced.__contains__, map(id, self._groups))))
        self._groups = list(compress(self._groups, kept))
        if len(groups) > 16 + len(self._groups) // 10:
            self._groups = sorted(self._groups + groups, key=attrgetter("positions"))
            self._records = list(map(attrgetter("records"), self._groups))
            return
        self._records = list(compress(self._records, kept))
        for group in groups:
            at = bisect_right(self._groups, group.positions, key=attrgetter("positions"))
            self._groups.insert(at, group)
            self._records.insert(at, group.records)

    def _components(self, region: list[Position]) -> list[_Group]:
        """``region`` (sorted) in groups. Every record sharing an abstract key with one of its
        records is in it; a title's first record outside it disagreed on the year before."""
        index = {p: i for i, p in enumerate(region)}
        sets = UnionFind(len(region))
        for i, position in enumerate(region):
            keyed = self._keyed[position]
            for key in (keyed.abstract, *keyed.shared) if keyed.abstract else keyed.shared:
                sets.union(index[self._by_abstract[key][0]], i)
            if keyed.title is not None:
                first = self._by_title[keyed.title][0]
                if first in index and years_agree(self._keyed[first].record, keyed.record):
                    sets.union(index[first], i)
        members: dict[int, list[Position]] = defaultdict(list)
        for i, position in enumerate(region):
            members[sets.find(i)].append(position)
        return [_Group(tuple(m), [self._keyed[p].record for p in m]) for m in members.values()]

    def _recheck(self, openings: Iterable[bytes]) -> None:
        """Warn again about the openings whose records or groups changed."""
        for opening in openings:
            members = self._by_opening.get(opening, [])
            found = [suspected(self._keyed[p].record, self._keyed[members[0]].record)
                     for p in members[1:] if self._group_of[p] is not self._group_of[members[0]]]
            if found:
                self._suspects[opening] = (members[0], found)
            else:
                self._suspects.pop(opening, None)

