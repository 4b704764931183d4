"""Stage 2, merging: Dumps + Curation -> Catalog(papers, authors, subjects) + Diagnostics.

One Paper per paper (see catalog/merge.py for the rule), one Author per person (names matched after
Unicode folding and curation's variants), one Subject per arXiv code in use.

A Builder that rebuilds passes a ``CatalogMemo``: what the last call made from unchanged dumps
(the very same objects, handed back by the Builder's file cache) is reused, so a one-dump edit
groups, drafts and finishes again only the papers that dump touches. Slugs, author ids,
authors and subjects still come from the whole catalog each time, as they depend on all of it.
The result equals a fresh build's, object order and diagnostics included.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from itertools import chain, compress
from operator import itemgetter
from typing import TypeVar

from site_gen.catalog.merge import Regrouping, group_records
from site_gen.model import (
    Author,
    Catalog,
    Dump,
    Paper,
    Profile,
    Record,
    SourceRef,
    Subject,
    TitleOrigin,
)
from site_gen.read.curation import AuthorEdit, Curation, PaperEdit, at_place
from site_gen.util.diagnostics import Diagnostic, Severity, error, excerpt, warning
from site_gen.util.subjects import category
from site_gen.util.text import derive_title, fold, plain_text, slugify

T = TypeVar("T")


def build_catalog(dumps: Sequence[Dump], curation: Curation, memo: CatalogMemo | None = None
                  ) -> tuple[Catalog, list[Diagnostic]]:
    """Merge every dump's records into the site's papers, authors and subjects.

    With a ``memo`` (kept between calls) only what changed dumps touch is made again; the
    result is the same.
    """
    if memo is not None and len({d.path for d in dumps}) == len(dumps):
        return memo.build(dumps, curation)
    records = [r for dump in sorted(dumps, key=lambda d: d.path) for r in dump.records]
    groups, diagnostics = group_records(records)
    names = _NameIndex(curation, dumps)
    drafts = [_draft_paper(group, names, diagnostics) for group in groups]
    drafts = _merged(groups, drafts, names, curation, diagnostics)
    drafts, curation_diagnostics = _apply_curation(drafts, curation)
    diagnostics = _hidden_dropped(diagnostics, drafts, groups, curation) + curation_diagnostics
    diagnostics += _missing_years(drafts)
    papers = _assign_paper_ids(drafts)
    authors = _build_authors(papers, dumps, names, curation)
    subjects = _build_subjects(papers, diagnostics, curation)
    return Catalog(tuple(papers), authors, subjects), diagnostics


class CatalogMemo:
    """What ``build_catalog`` made last time, for a Builder that rebuilds (watch mode).

    A Builder's FileCache hands back the very same Dump, and so the same Records, for every
    unchanged file. What was made from them is found again by identity: groups of records
    (merge.Regrouping), each group's draft paper, each draft's finished paper. The memo holds
    those objects, so their ids are not reused, and keeps only what the last call used.
    """

    def __init__(self) -> None:
        self._clear()

    def _clear(self) -> None:
        self.groups = Regrouping()
        self.names: _NameIndex | None = None
        self.drafts: dict[int, tuple[list[Record], Paper, list[Diagnostic]]] = {}
        """By group: the group, its draft and the draft's warnings."""
        self.papers: dict[int, tuple[Paper, str, Paper]] = {}
        """By draft: the draft, its slug and the finished paper."""
        self.ordered: list[Paper] = []
        """The drafts in the order they picked slugs."""
        self.author_ids: dict[str, str] = {}
        self.authors: AuthorMemo = {}

    def build(self, dumps: Sequence[Dump], curation: Curation) -> tuple[Catalog, list[Diagnostic]]:
        """``build_catalog`` of dumps with unique paths; after an error the memo starts afresh."""
        try:
            return self._build(dumps, curation)
        except BaseException:
            self._clear()
            raise

    def _build(self, dumps: Sequence[Dump], curation: Curation) -> tuple[Catalog, list[Diagnostic]]:
        groups, diagnostics = self.groups.update(dumps)
        names = self._names(curation, dumps)
        drafts = self._drafts(groups, names, diagnostics)
        drafts = _merged(groups, drafts, names, curation, diagnostics)
        drafts, curation_diagnostics = _apply_curation(drafts, curation)
        diagnostics = _hidden_dropped(diagnostics, drafts, groups, curation) + curation_diagnostics
        diagnostics += _missing_years(drafts)
        papers = self._papers(drafts, dumps, names)
        authors = _authors(papers, self.author_ids, dumps, names, curation, self.authors)
        subjects = _build_subjects(papers, diagnostics, curation)
        return Catalog(tuple(papers), authors, subjects), diagnostics

    def _names(self, curation: Curation, dumps: Sequence[Dump]) -> _NameIndex:
        """The name index, counted again for changed dumps; anew when author curation changed
        (and then drafts, which hold name keys, are made again too)."""
        if self.names is None or self.names.edits != curation.authors:
            self.names, self.drafts = _NameIndex(curation), {}
        self.names.recount(dumps)
        return self.names

    def _drafts(self, groups: list[list[Record]], names: _NameIndex,
                diagnostics: list[Diagnostic]) -> list[Paper]:
        """A draft per group (and its warnings): last call's for the very same group."""
        made = [hit if hit is not None and hit[0] is group else _drafted(group, names)
                for hit, group in zip(map(self.drafts.get, map(id, groups)), groups)]
        self.drafts = dict(zip(map(id, groups), made))
        diagnostics.extend(chain.from_iterable(map(itemgetter(2), made)))
        return list(map(itemgetter(1), made))

    def _papers(self, drafts: list[Paper], dumps: Sequence[Dump], names: _NameIndex) -> list[Paper]:
        """Drafts with their slugs and author ids: last call's paper where all three are equal."""
        ordered = self._order(drafts)
        slugs = _unique_slugs(ordered)
        ids = _author_ids(_author_keys(drafts, dumps, names), names)
        moved = {key for key, author_id in ids.items() if self.author_ids.get(key) != author_id}
        made = [hit if (hit is not None and hit[0] is draft and hit[1] == slug
                        and (not moved or moved.isdisjoint(draft.all_author_ids)))
                else (draft, slug, _with_author_ids(replace(draft, id=slug), ids))
                for hit, draft, slug in zip(map(self.papers.get, map(id, ordered)), ordered, slugs)]
        self.papers = dict(zip(map(id, ordered), made))
        self.ordered, self.author_ids = ordered, ids
        return list(map(itemgetter(2), made))

    def _order(self, drafts: list[Paper]) -> list[Paper]:
        """``sorted(drafts, key=_id_order)``: last call's order, new drafts put in their place.
        Sorted afresh when many are new (over a tenth: sorting is then faster), or a new one's
        key ties (sorting keeps ties in ``drafts`` order)."""
        now = set(map(id, drafts))
        new = _those(drafts, now - self.papers.keys())
        if len(new) > 16 + len(drafts) // 10:
            return sorted(drafts, key=_id_order)
        ordered = _those(self.ordered, now)
        for draft in new:
            at = bisect_right(ordered, _id_order(draft), key=_id_order)
            if at and _id_order(ordered[at - 1]) == _id_order(draft):
                return sorted(drafts, key=_id_order)
            ordered.insert(at, draft)
        return ordered


def _drafted(group: list[Record], names: _NameIndex) -> tuple[list[Record], Paper, list[Diagnostic]]:
    """A group with its draft and the draft's warnings."""
    found: list[Diagnostic] = []
    return group, _draft_paper(group, names, found), found


def _those(items: Sequence[T], ids: Collection[int]) -> list[T]:
    """The items whose ``id()`` is in ``ids``, in order; without a Python loop, as this runs
    over every paper on every rebuild."""
    return list(compress(items, map(ids.__contains__, map(id, items))))


class _NameIndex:
    """Maps every spelling of a person's name to one key and one display name."""

    def __init__(self, curation: Curation, dumps: Sequence[Dump] = ()):
        self.edits = curation.authors
        """The curation entries for authors this index was made with."""
        self.alias: dict[str, str] = {}
        self.fixed: dict[str, str] = {}
        for edit in curation.authors:
            key = fold(edit.name)
            for variant in edit.variants:
                self.alias[fold(variant)] = key
            if fixed := _curated_name(edit):
                self.fixed[key] = fixed
        self.spellings: dict[str, Counter[str]] = defaultdict(Counter)
        self.display: dict[str, str] = {}
        self.counted: dict[str, Dump] = {}
        """The dumps counted, by path, when counted with ``recount``."""
        touched: set[str] = set()
        for dump in dumps:
            self._count(dump, 1, touched)
        self._show(touched)

    def key(self, name: str) -> str:
        """The identity of a name: folded, then mapped through curation variants."""
        folded = fold(name)
        return self.alias.get(folded, folded)

    def tied_key(self, name: str, owners: Iterable[str]) -> str:
        """The key of a name in a paper's author list, where a paper ties an alias: when the
        name is an owner's name of the same paper with, or without, a bracketed form
        (``Li Na`` and ``Li Na (李娜)``), it is that owner. Names curation maps are its."""
        folded = fold(name)
        if folded not in self.alias:
            bare = _bare(name)
            for owner in owners:
                if folded != fold(owner) and fold(owner) not in self.alias and \
                        (_bare(owner) == folded or bare == fold(owner)):
                    return self.key(owner)
        return self.key(name)

    def recount(self, dumps: Sequence[Dump]) -> None:
        """Count spellings in ``dumps`` (unique paths) by taking back and adding only the dumps
        that differ from the ones counted last time."""
        now = {d.path: d for d in dumps}
        touched: set[str] = set()
        for path, dump in self.counted.items():
            if now.get(path) is not dump:
                self._count(dump, -1, touched)
        for path, dump in now.items():
            if self.counted.get(path) is not dump:
                self._count(dump, 1, touched)
        self.counted = now
        self._show(touched)

    def _count(self, dump: Dump, sign: int, touched: set[str]) -> None:
        """Add (or with ``sign`` -1 take back) the spellings a dump uses."""
        owner = (dump.owner,)
        self._add(self.key(dump.owner), dump.owner, 1000 * sign, touched)  # its own spelling wins
        for record in dump.records:
            for name in record.authors:
                self._add(self.tied_key(name, owner), name, sign, touched)

    def _add(self, key: str, name: str, count: int, touched: set[str]) -> None:
        counts = self.spellings[key]
        counts[name] += count
        if not counts[name]:
            del counts[name]
        touched.add(key)

    def _show(self, keys: Iterable[str]) -> None:
        """Choose the display names of these keys again; forget keys no dump uses any more."""
        for key in keys:
            if self.spellings[key]:
                self.display[key] = self.fixed.get(key) or _best_spelling(self.spellings[key])
            else:
                del self.spellings[key]
                self.display.pop(key, None)


_BRACKETED = re.compile(r"\s*[(（][^)）]*[)）]")


def _bare(name: str) -> str:
    """The folded name without its bracketed parts (``Li Na (李娜)`` -> ``li na``)."""
    return fold(_BRACKETED.sub("", name))


def _curated_name(edit: AuthorEdit) -> str | None:
    """The name curation fixes: ``display_name``, else ``name`` when ``variants`` merges other
    spellings into it (the owner named the person; which profile's spelling sorts first by
    file name must not)."""
    return edit.display_name or (edit.name if edit.variants else None)


def _best_spelling(counts: Counter[str]) -> str:
    """Most used spelling; ties go to the one with more non-ASCII letters (accents kept). A
    spelling that adds a bracketed form to it (``Li Na (李娜)``) is shown instead."""
    def order(spelling: str) -> tuple[int, int, str]:
        return -counts[spelling], -sum(ord(c) > 127 for c in spelling), spelling
    best = min(counts, key=order)
    longer = [s for s in counts if _bare(s) == fold(best) != fold(s)]
    return min(longer, key=order) if longer else best


def _draft_paper(group: list[Record], names: _NameIndex, diagnostics: list[Diagnostic]) -> Paper:
    """A paper from its records: the best title and abstract lead; author lists come from any
    record."""
    lead = _best_titled(group)
    text = _best_abstract(group)
    years = sorted({r.year for r in group if r.year is not None})
    if len(years) > 1:
        entry = paste_entry(_placed(str(lead.source), _anchor(lead.title, text)), "year: YYYY")
        diagnostics.append(warning(lead.source.path, lead.source.line,
                                   f"records of this paper disagree on the year {years}; using {years[0]}; "
                                   f"to choose, {entry}", "year-conflict"))
    listed = max((r for r in group if r.authors), key=lambda r: len(r.authors), default=None)
    owners = _unique(r.owner for r in group)
    author_keys = _unique(names.tied_key(n, owners) for n in (listed.authors if listed else ()))
    extra = _unique(k for k in map(names.key, owners) if k not in author_keys)
    subjects = _unique(s for r in sorted(group, key=lambda r: r.source) for s in r.subjects)
    origin: TitleOrigin = "dump" if lead.title else "derived"
    title = lead.title or derive_title(text)
    return Paper(
        id="", title=title, title_origin=origin, year=years[0] if years else None,
        subjects=subjects, abstract_text=text, author_ids=author_keys,
        extra_author_ids=extra, et_al=bool(listed and listed.et_al),
        authors_listed=listed is not None, sources=tuple(sorted(r.source for r in group)),
    )


def _merged(groups: list[list[Record]], drafts: list[Paper], names: _NameIndex,
            curation: Curation, diagnostics: list[Diagnostic]) -> list[Paper]:
    """The drafts with each ``merge:`` pair's two papers drafted again as one, in the place of
    the first; a pair naming no record is a warning at its line."""
    if not curation.merges:
        return drafts
    into: dict[int, int] = {}  # a group's index -> the index of the group it joins

    def root(i: int) -> int:
        while i in into:
            i = into[i]
        return i

    for pair in curation.merges:
        found = [next((i for i, group in enumerate(groups)
                       if any(at_place(r.source.path, r.source.line, place) for r in group)), None)
                 for place in (pair.first, pair.second)]
        if None in found:
            missing = (pair.first, pair.second)[found.index(None)]
            diagnostics.append(warning(curation.path, pair.line, f"merge entry names {missing!r}, "
                                       "where no record starts", "curation-match"))
        elif root(found[0]) != root(found[1]):  # type: ignore[arg-type]
            a, b = sorted((root(found[0]), root(found[1])))  # type: ignore[arg-type]
            into[b] = a
    if not into:
        return drafts
    members: dict[int, list[Record]] = defaultdict(list)
    for i, group in enumerate(groups):
        members[root(i)] += group
    return [_draft_paper(members[i], names, []) if any(root(j) == i for j in into) else draft
            for i, draft in enumerate(drafts) if i not in into]


def _hidden_dropped(diagnostics: list[Diagnostic], shown: list[Paper],
                    groups: list[list[Record]], curation: Curation) -> list[Diagnostic]:
    """The warnings but those at a record of a paper left off the site (``hide: true``):
    nothing shows them, so nothing is left to settle."""
    if not any(edit.hide for edit in curation.papers):
        return diagnostics
    kept = {source for paper in shown for source in paper.sources}
    hidden = {(r.source.path, r.source.line) for group in groups for r in group
              if r.source not in kept}
    if not hidden:
        return diagnostics
    return [d for d in diagnostics if d.severity is not Severity.WARNING or (
        (d.path, d.line) not in hidden
        and not any(f"duplicate of {path}:{line}:" in d.message for path, line in hidden))]


def _best_titled(group: list[Record]) -> Record:
    """The record whose title the paper shows (docs/merging.md): one with a title, a complete
    title over a truncated one, proper capitalisation over all lower or all upper case, then
    the first by (dump path, line)."""
    if len(group) == 1:
        return group[0]
    titles = _complete([r.title for r in group if r.title])
    return min(group, key=lambda r: (r.title is None, r.title is not None and _cut(r.title, titles),
                                     r.title is not None and _badly_cased(r.title), r.source))


def _best_abstract(group: list[Record]) -> str:
    """The abstract the paper shows: the longest complete one (in words), then the first by
    place."""
    if len(group) == 1:
        return group[0].abstract
    texts = _complete([r.abstract for r in group])
    return min(group, key=lambda r: (_cut(r.abstract, texts), -len(_folded(r.abstract)),
                                     r.source)).abstract


_ELLIPSES = ("…", "...")


def _folded(text: str) -> str:
    """A title or abstract as merging compares it (its words: see text.fold), so that a copy
    is not longer by a space, and the memo of fold has it already."""
    return fold(plain_text(text))


def _complete(texts: list[str]) -> list[str]:
    """The folded texts that do not end in an ellipsis."""
    return [_folded(t) for t in texts if not t.rstrip().endswith(_ELLIPSES)]


def _cut(text: str, others: list[str]) -> bool:
    """Whether ``text`` is truncated: it ends in an ellipsis, or another record's complete
    text (folded) goes on where it stops."""
    if text.rstrip().endswith(_ELLIPSES):
        return True
    folded = _folded(text)
    return any(len(other) > len(folded) and other.startswith(folded) for other in others)


def _badly_cased(title: str) -> bool:
    """All lower or all upper case (``learning rate warmup``, ``LEARNING RATE WARMUP``)."""
    return title.lower() == title or title.upper() == title


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _apply_curation(drafts: list[Paper], curation: Curation) -> tuple[list[Paper], list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    hidden: set[int] = set()
    for edit in curation.papers:
        if edit.match_key == "source":
            matches, found = _by_source(edit, drafts, curation.path)
            diagnostics += found
            if found and found[0].severity is Severity.ERROR:
                continue
        else:
            matches = [i for i, paper in enumerate(drafts) if _selects(edit, paper)]
        if len(matches) != 1:
            what = "matches no paper" if not matches else (
                f"matches {len(matches)} papers: "
                + "; ".join(f"{excerpt(drafts[i].title)} ({drafts[i].sources[0]})" for i in matches)
                + "; match one by its record instead: match: {source: \"FILE:LINE\", title: \"...\"}")
            diagnostics.append(warning(curation.path, edit.line,
                                       f"curation entry ({edit.match_key}: {edit.match_value!r}) {what}",
                                       "curation-match"))
            continue
        i = matches[0]
        drafts[i] = _edited(drafts[i], edit)
        if edit.hide:
            hidden.add(i)
    return [p for i, p in enumerate(drafts) if i not in hidden], diagnostics


def _selects(edit: PaperEdit, paper: Paper) -> bool:
    value = edit.match_value
    if edit.match_key == "id":
        return paper.id == value or slugify(paper.title) == value
    if edit.match_key == "title":
        return fold(paper.title) == fold(value)
    if edit.match_key == "abstract":
        return fold(plain_text(paper.abstract)).startswith(fold(plain_text(value)))
    return any(at_place(source.path, source.line, value) for source in paper.sources)


def _by_source(edit: PaperEdit, drafts: list[Paper], path: str
               ) -> tuple[list[int], list[Diagnostic]]:
    """The papers a ``source`` entry applies to, checked against its anchor: a refreshed export
    moves lines, and the entry must never silently apply to the paper now at its line."""
    here = [i for i, paper in enumerate(drafts) if _selects(edit, paper)]
    where = f"curation entry for {edit.match_value!r}"
    if edit.anchor is None:
        anchor = _paper_anchor(drafts[here[0]]) if len(here) == 1 else 'title: "..."'
        return [], [error(path, edit.line, f"{where} names no title or abstract: a refreshed "
                          "export would move it to another paper; write match: "
                          f"{_placed(edit.match_value, anchor)}")]
    key, value = edit.anchor
    anchor_edit = replace(edit, match_key=key, match_value=value, anchor=None)
    if anchored := [i for i in here if _selects(anchor_edit, drafts[i])]:
        return anchored, []
    elsewhere = [i for i, paper in enumerate(drafts) if _selects(anchor_edit, paper)]
    if len(elsewhere) == 1:
        now = ", ".join(map(str, drafts[elsewhere[0]].sources))
        return elsewhere, [warning(path, edit.line, f"{where}: the paper with {key}: {value!r} "
                                   f"is now at {now}; applied there, update the entry's source",
                                   "curation-moved")]
    if here:
        return [], [error(path, edit.line, f"{where} now matches {drafts[here[0]].title[:60]!r}, "
                          f"not the paper it was written for ({key}: {value!r}); "
                          "nothing was applied")]
    return [], []


def _anchor(title: str | None, abstract: str) -> str:
    """What a match by place also names, so that it finds its paper after the dump is exported
    again and never another: the title, or, without one, the start of the abstract."""
    if title:
        return f"title: {_quoted(plain_text(title))}"
    return f"abstract: {_quoted(' '.join(plain_text(abstract).split()[:12]))}"


def _paper_anchor(paper: Paper) -> str:
    """A paper's anchor: its title only where a dump gave it (not derived, not curation's)."""
    return _anchor(paper.title if paper.title_origin == "dump" else None, paper.abstract)


def _placed(place: str, anchor: str) -> str:
    """A curation ``match`` by a record's place ("file:line") and an anchor."""
    return f"{{source: {_quoted(place)}, {anchor}}}"


def _quoted(text: str) -> str:
    """A YAML double-quoted string (JSON's escapes are YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def _edited(paper: Paper, edit: PaperEdit) -> Paper:
    changes: dict[str, object] = {"links": paper.links + edit.links,
                                  "aliases": paper.aliases + edit.aliases}
    if edit.title:
        changes.update(title=edit.title, title_origin="curation")
    if edit.year is not None:
        changes["year"] = edit.year
    if edit.subjects is not None:
        changes["subjects"] = edit.subjects
    return replace(paper, **changes)  # type: ignore[arg-type]


def _missing_years(papers: list[Paper]) -> list[Diagnostic]:
    """Warn about papers that no record or curation entry dates: they sort last and feeds guess."""
    return [warning(p.sources[0].path, p.sources[0].line,
                    f"no year for {excerpt(p.title)}: no record states one; to set it, "
                    f"{paste_entry(_placed(str(p.sources[0]), _paper_anchor(p)), 'year: YYYY')}",
                    "no-year")
            for p in papers if p.year is None]


def paste_entry(match: str, setting: str) -> str:
    """A curation entry for the paper ``match`` finds, ready to paste (one line of YAML)."""
    return f"add under papers: in curation.yaml: - {{match: {match}, {setting}}}"


def _assign_paper_ids(drafts: list[Paper]) -> list[Paper]:
    """Stable, unique slugs from titles; collisions get the year, then a number."""
    ordered = sorted(drafts, key=_id_order)
    return [replace(paper, id=slug) for paper, slug in zip(ordered, _unique_slugs(ordered))]


def _id_order(paper: Paper) -> tuple[int, str, tuple[SourceRef, ...]]:
    """Newest first, then by title: the order in which papers pick their slugs."""
    return -(paper.year or 0), fold(paper.title), paper.sources


def _unique_slugs(ordered: Sequence[Paper]) -> list[str]:
    """Each paper's slug, in order: its title's, else with the year, else with a number."""
    taken: set[str] = set()
    slugs = []
    for paper in ordered:
        slug = slugify(paper.title) or "paper"
        if slug in taken:
            slug = _free_slug(slug, paper.year, taken)
        taken.add(slug)
        slugs.append(slug)
    return slugs


def _free_slug(base: str, year: int | None, taken: set[str]) -> str:
    """A slug not taken yet for a paper whose title's slug is: with its year, else numbered."""
    if year and f"{base}-{year}" not in taken:
        return f"{base}-{year}"
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _build_authors(papers: list[Paper], dumps: Sequence[Dump], names: _NameIndex,
                   curation: Curation) -> tuple[Author, ...]:
    """One Author per name key; paper author lists are rewritten from keys to author ids."""
    ids = _author_ids(_author_keys(papers, dumps, names), names)
    for i, paper in enumerate(papers):
        papers[i] = _with_author_ids(paper, ids)
    return _authors(papers, ids, dumps, names, curation)


def _author_keys(papers: Iterable[Paper], dumps: Sequence[Dump], names: _NameIndex) -> set[str]:
    """The name key of everyone on a paper, and of every profile's owner."""
    keys = {k for p in papers for k in p.all_author_ids}
    keys.update(names.key(d.owner) for d in dumps)
    return keys


def _with_author_ids(paper: Paper, ids: dict[str, str]) -> Paper:
    return replace(paper, author_ids=tuple(ids[k] for k in paper.author_ids),
                   extra_author_ids=tuple(ids[k] for k in paper.extra_author_ids))


AuthorMemo = dict[str, tuple[tuple[object, ...], Author]]
"""By author id: what an Author was made from, and the Author."""


def _authors(papers: list[Paper], ids: dict[str, str], dumps: Sequence[Dump], names: _NameIndex,
             curation: Curation, kept: AuthorMemo | None = None) -> tuple[Author, ...]:
    """Every person of ``ids`` (name key -> author id) with their papers and profiles. With
    ``kept``: last call's Author where made from equal inputs; ``kept`` then holds this call's."""
    paper_ids: dict[str, list[str]] = {author_id: [] for author_id in ids.values()}
    for paper in papers:  # this loop runs over every paper on every rebuild: kept lean
        for author_id in paper.author_ids:
            paper_ids[author_id].append(paper.id)
        for author_id in paper.extra_author_ids:
            paper_ids[author_id].append(paper.id)
    profiles: dict[str, list[Profile]] = defaultdict(list)
    for dump in sorted(dumps, key=lambda d: d.path):
        profiles[ids[names.key(dump.owner)]].append(Profile(dump.path, dump.claim, len(dump.records)))
    details = {names.key(e.name): e for e in curation.authors}
    before = dict(kept or {})
    authors = []
    for key, author_id in ids.items():
        inputs = (names.display[key], tuple(paper_ids[author_id]), tuple(profiles[author_id]),
                  details.get(key))
        hit = before.get(author_id)
        author = hit[1] if hit is not None and hit[0] == inputs else _author(author_id, *inputs)
        if kept is not None:
            kept[author_id] = (inputs, author)
        authors.append(author)
    if kept is not None:
        for gone in before.keys() - ids.values():
            del kept[gone]
    return tuple(sorted(authors, key=lambda a: (fold(a.name), a.id)))


def _author(author_id: str, name: str, paper_ids: tuple[str, ...], profiles: tuple[Profile, ...],
            edit: AuthorEdit | None) -> Author:
    return Author(id=author_id, name=name, members=paper_ids, profiles=profiles,
                  affiliation=edit.affiliation if edit else None,
                  homepage=edit.homepage if edit else None,
                  variants=edit.variants if edit else (), aliases=edit.aliases if edit else ())


def _author_ids(keys: Iterable[str], names: _NameIndex) -> dict[str, str]:
    """Slug per name key, unique; processed in sorted order so ids do not depend on input order."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for key in sorted(keys):
        base = slugify(names.display[key]) or "author"
        slug, n = base, 2
        while slug in taken:
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug)
        ids[key] = slug
    return ids


def _unknown_subject(code: str, paper: Paper, curation: Curation) -> Diagnostic:
    """An unknown subject code at the curation entry that set it, else at the paper's record."""
    edit = next((e for e in curation.papers if e.subjects and code in e.subjects), None)
    path, line = (curation.path, edit.line) if edit else (paper.sources[0].path,
                                                          paper.sources[0].line)
    return warning(path, line, f"unknown arXiv subject {code!r}", "unknown-subject")


def _build_subjects(papers: list[Paper], diagnostics: list[Diagnostic], curation: Curation
                    ) -> tuple[Subject, ...]:
    members: dict[str, list[Paper]] = defaultdict(list)
    for paper in papers:
        for code in paper.subjects:
            members[code].append(paper)
    subjects = []
    for code in sorted(members):
        known = category(code)
        if known is None:
            diagnostics.append(_unknown_subject(code, members[code][0], curation))
        subjects.append(Subject(code, known.name if known else code,
                                known.group if known else "Other", known is not None,
                                tuple(p.id for p in members[code])))
    return tuple(subjects)
