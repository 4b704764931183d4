"""Stage 2, merging: Dumps + Curation -> Catalog(papers, authors, subjects) + Diagnostics.

One Paper per paper (see catalog/merge.py for the rule), one Author per person (names matched after
Unicode folding and curation's variants), one Subject per arXiv code in use.

``build_catalog`` is the definition: it makes everything from the dumps each time. The steps it
is made of are public because ``incremental.catalog.CatalogMemo`` (watch mode) runs the same
steps, reusing what unchanged dumps made last time; property tests hold it to ``build_catalog``.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace

from site_gen.catalog.merge import RecordKeys, dump_keys, group_records
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
from site_gen.read.names import person_key
from site_gen.util.diagnostics import Diagnostic, Severity, error, excerpt, warning
from site_gen.util.subjects import category
from site_gen.util.text import derive_title, fold, plain_text, slugify


def build_catalog(dumps: Sequence[Dump], curation: Curation,
                  keys: Mapping[str, Sequence[RecordKeys]] | None = None
                  ) -> tuple[Catalog, list[Diagnostic]]:
    """Merge every dump's records into the site's papers, authors and subjects. ``keys``:
    the ``merge.dump_keys`` of dumps by path, where made already."""
    ordered_dumps = sorted(dumps, key=lambda d: d.path)
    records = [r for dump in ordered_dumps for r in dump.records]
    known = keys or {}
    keys_in_order = [k for dump in ordered_dumps
                     for k in (known[dump.path] if dump.path in known else dump_keys(dump))]
    groups, diagnostics = group_records(records, keys_in_order)
    names = NameIndex(curation, dumps)
    keyed = dict(zip(map(id, records), keys_in_order))
    drafts = [draft_paper(group, names, diagnostics, [keyed[id(r)] for r in group])
              for group in groups]
    drafts, diagnostics = settled(groups, drafts, names, curation, diagnostics)
    ordered = sorted(drafts, key=id_order)
    ids = author_ids(author_keys(drafts, dumps, names), names)
    papers = [with_ids(draft, slug, ids)
              for draft, slug in zip(ordered, unique_slugs(ordered))]
    authors = sorted_authors(make_author(author_id, inputs) for author_id, inputs
                             in author_inputs(papers, ids, dumps, names, curation))
    subjects = build_subjects(papers, diagnostics, curation)
    return Catalog(tuple(papers), authors, subjects), diagnostics


def settled(groups: list[list[Record]], drafts: list[Paper], names: NameIndex,
            curation: Curation, diagnostics: list[Diagnostic]) -> tuple[list[Paper], list[Diagnostic]]:
    """The drafts (one per group) with curation applied, the papers it hides left out, and
    the diagnostics so far with the warnings about hidden papers dropped and curation's and
    the missing years' added."""
    drafts = _merged(groups, drafts, names, curation, diagnostics)
    drafts, curation_diagnostics = _apply_curation(drafts, curation)
    diagnostics = _hidden_dropped(diagnostics, drafts, groups, curation) + curation_diagnostics
    diagnostics += _missing_years(drafts)
    return drafts, diagnostics


class NameIndex:
    """Maps every spelling of a person's name to one key and one display name."""

    def __init__(self, curation: Curation, dumps: Sequence[Dump] = ()):
        self.alias: dict[str, str] = {}
        self.fixed: dict[str, str] = {}
        for edit in curation.authors:
            key = person_key(edit.name)
            for variant in edit.variants:
                self.alias[person_key(variant)] = key
            if fixed := _curated_name(edit):
                self.fixed[key] = fixed
        self.spellings: dict[str, Counter[str]] = defaultdict(Counter)
        self.display: dict[str, str] = {}
        touched: set[str] = set()
        for dump in dumps:
            self.count(dump, 1, touched)
        self.show(touched)

    def key(self, name: str) -> str:
        """The identity of a name: its ``person_key``, then mapped through curation variants."""
        folded = person_key(name)
        return self.alias.get(folded, folded)

    def tied_key(self, name: str, owners: Iterable[str]) -> str:
        """The key of a name in a paper's author list, where a paper ties an alias: when the
        name is an owner's name of the same paper with, or without, a bracketed form
        (``Li Na`` and ``Li Na (李娜)``), it is that owner. Names curation maps are its."""
        folded = person_key(name)
        if folded not in self.alias:
            bare = _bare(name)
            for owner in owners:
                owned = person_key(owner)
                if folded != owned and owned not in self.alias and \
                        (_bare(owner) == folded or bare == owned):
                    return self.key(owner)
        return self.key(name)

    def count(self, dump: Dump, sign: int, touched: set[str]) -> None:
        """Add (or with ``sign`` -1 take back) the spellings a dump uses; ``touched`` gets
        their keys, whose display names ``show`` then chooses again."""
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

    def show(self, keys: Iterable[str]) -> None:
        """Choose the display names of these keys again; forget keys no dump uses any more."""
        for key in keys:
            if self.spellings[key]:
                self.display[key] = self.fixed.get(key) or _best_spelling(self.spellings[key])
            else:
                del self.spellings[key]
                self.display.pop(key, None)


_BRACKETED = re.compile(r"\s*[(（][^)）]*[)）]")


def _bare(name: str) -> str:
    """The name's key without its bracketed parts (``Li Na (李娜)`` -> ``li na``)."""
    return person_key(_BRACKETED.sub("", name).strip() or name)


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
    longer = [s for s in counts if _bare(s) == person_key(best) != person_key(s)]
    return min(longer, key=order) if longer else best


def draft_paper(group: list[Record], names: NameIndex, diagnostics: list[Diagnostic],
                keys: Sequence[RecordKeys] | None = None) -> Paper:
    """A paper from its records: the best title and abstract lead; author lists come from any
    record. ``keys``: the records' ``merge.RecordKeys``, in order, if made already: where
    they show that the records' texts fold alike, choosing needs no folding."""
    lead = _best_titled(group, keys)
    text = _best_abstract(group, keys)
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


def _merged(groups: list[list[Record]], drafts: list[Paper], names: NameIndex,
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
    return [draft_paper(members[i], names, []) if any(root(j) == i for j in into) else draft
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


def _best_titled(group: list[Record], keys: Sequence[RecordKeys] | None = None) -> Record:
    """The record whose title the paper shows (docs/merging.md): one with a title, a complete
    title over a truncated one, proper capitalisation over all lower or all upper case, then
    the first by (dump path, line)."""
    if len(group) == 1:
        return group[0]
    if keys is not None and _alike([k.title for r, k in zip(group, keys, strict=True) if r.title]):
        titles: list[str] = []  # folded alike: none goes on where another stops (_cut)
    else:
        titles = _complete([r.title for r in group if r.title])
    return min(group, key=lambda r: (r.title is None, r.title is not None and _cut(r.title, titles),
                                     r.title is not None and _badly_cased(r.title), r.source))


def _best_abstract(group: list[Record], keys: Sequence[RecordKeys] | None = None) -> str:
    """The abstract the paper shows: the longest complete one (in words), then the first by
    place."""
    if len(group) == 1:
        return group[0].abstract
    if keys is not None and _alike([k.abstract for k in keys]):  # folded alike, so of one
        return min(group, key=lambda r: (_ellipsed(r.abstract), r.source)).abstract  # length
    texts = _complete([r.abstract for r in group])
    return min(group, key=lambda r: (_cut(r.abstract, texts), -len(_folded(r.abstract)),
                                     r.source)).abstract


def _alike(digests: list[bytes | None]) -> bool:
    """Whether these ``RecordKeys`` digests say their texts fold to one text (None: a text
    too short to have its digest made)."""
    return bool(digests) and None not in digests and len(set(digests)) == 1


_ELLIPSES = ("…", "...")


def _folded(text: str) -> str:
    """A title or abstract as merging compares it (its words: see text.fold), so that a copy
    is not longer by a space, and the memo of fold has it already."""
    return fold(plain_text(text))


def _ellipsed(text: str) -> bool:
    return text.rstrip().endswith(_ELLIPSES)


def _complete(texts: list[str]) -> list[str]:
    """The folded texts that do not end in an ellipsis."""
    return [_folded(t) for t in texts if not _ellipsed(t)]


def _cut(text: str, others: list[str]) -> bool:
    """Whether ``text`` is truncated: it ends in an ellipsis, or another record's complete
    text (folded) goes on where it stops."""
    if _ellipsed(text):
        return True
    if not others:
        return False
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


def id_order(paper: Paper) -> tuple[int, str, tuple[SourceRef, ...]]:
    """Newest first, then by title: the order in which papers pick their slugs."""
    return -(paper.year or 0), fold(paper.title), paper.sources


def unique_slugs(ordered: Sequence[Paper]) -> list[str]:
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


def author_keys(papers: Iterable[Paper], dumps: Sequence[Dump], names: NameIndex) -> set[str]:
    """The name key of everyone on a paper, and of every profile's owner."""
    keys = {k for p in papers for k in p.all_author_ids}
    keys.update(names.key(d.owner) for d in dumps)
    return keys


def with_ids(draft: Paper, paper_id: str, ids: dict[str, str]) -> Paper:
    """The draft with its id, and its authors' name keys replaced by their author ids (one
    ``replace``: it costs as much as the rest of placing a paper)."""
    return replace(draft, id=paper_id, author_ids=tuple(ids[k] for k in draft.author_ids),
                   extra_author_ids=tuple(ids[k] for k in draft.extra_author_ids))


AuthorInputs = tuple[str, tuple[str, ...], tuple[Profile, ...], AuthorEdit | None]
"""What an Author is made from: its name, paper ids, profiles and curation entry."""


def author_inputs(papers: list[Paper], ids: dict[str, str], dumps: Sequence[Dump],
                  names: NameIndex, curation: Curation) -> Iterator[tuple[str, AuthorInputs]]:
    """Every person of ``ids`` (name key -> author id), with what their Author is made from."""
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
    for key, author_id in ids.items():
        yield author_id, (names.display[key], tuple(paper_ids[author_id]),
                          tuple(profiles[author_id]), details.get(key))


def make_author(author_id: str, inputs: AuthorInputs) -> Author:
    """The Author of ``author_id`` made from its ``inputs`` (``author_inputs``)."""
    name, paper_ids, profiles, edit = inputs
    return Author(id=author_id, name=name, members=paper_ids, own_profiles=profiles,
                  affiliation=edit.affiliation if edit else None,
                  homepage=edit.homepage if edit else None,
                  variants=edit.variants if edit else (), aliases=edit.aliases if edit else ())


def sorted_authors(authors: Iterable[Author]) -> tuple[Author, ...]:
    """The site's order of authors: by folded name, then id."""
    return tuple(sorted(authors, key=lambda a: (fold(a.name), a.id)))


def author_ids(keys: Iterable[str], names: NameIndex) -> dict[str, str]:
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


def build_subjects(papers: list[Paper], diagnostics: list[Diagnostic], curation: Curation
                   ) -> tuple[Subject, ...]:
    """One Subject per code in use, with its papers; an unknown code is a warning."""
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
