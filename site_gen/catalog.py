"""Stage 2, merging: Dumps + Curation -> Catalog(papers, authors, subjects) + Diagnostics.

One Paper per paper (see merge.py for the rule), one Author per person (names matched after
Unicode folding and curation's variants), one Subject per arXiv code in use.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace

from .curation import Curation, PaperEdit
from .diagnostics import Diagnostic, warning
from .merge import group_records
from .model import TitleOrigin, Author, Catalog, Dump, Paper, Profile, Record, SourceRef, Subject
from .subjects import category
from .text import derive_title, fold, plain_text, slugify


def build_catalog(dumps: Sequence[Dump], curation: Curation) -> tuple[Catalog, list[Diagnostic]]:
    """Merge every dump's records into the site's papers, authors and subjects."""
    records = [r for dump in sorted(dumps, key=lambda d: d.path) for r in dump.records]
    groups, diagnostics = group_records(records)
    names = _NameIndex(curation, dumps, records)
    drafts = [_draft_paper(group, names, diagnostics) for group in groups]
    drafts, curation_diagnostics = _apply_curation(drafts, curation)
    diagnostics += curation_diagnostics
    diagnostics += _missing_years(drafts)
    papers = _assign_paper_ids(drafts)
    authors = _build_authors(papers, dumps, names, curation)
    subjects = _build_subjects(papers, diagnostics)
    return Catalog(tuple(papers), authors, subjects), diagnostics


class _NameIndex:
    """Maps every spelling of a person's name to one key and one display name."""

    def __init__(self, curation: Curation, dumps: Sequence[Dump], records: Sequence[Record]):
        self.alias: dict[str, str] = {}
        self.fixed: dict[str, str] = {}
        for edit in curation.authors:
            key = fold(edit.name)
            for variant in edit.variants:
                self.alias[fold(variant)] = key
            if edit.display_name:
                self.fixed[key] = edit.display_name
        spellings: dict[str, Counter[str]] = defaultdict(Counter)
        for dump in dumps:
            spellings[self.key(dump.owner)][dump.owner] += 1000  # a profile's own spelling wins
        for record in records:
            for name in record.authors:
                spellings[self.key(name)][name] += 1
        self.display = {key: self.fixed.get(key) or _best_spelling(c) for key, c in spellings.items()}

    def key(self, name: str) -> str:
        """The identity of a name: folded, then mapped through curation variants."""
        folded = fold(name)
        return self.alias.get(folded, folded)


def _best_spelling(counts: Counter[str]) -> str:
    """Most used spelling; ties go to the one with more non-ASCII letters (accents kept)."""
    return min(counts, key=lambda s: (-counts[s], -sum(ord(c) > 127 for c in s), s))


def _draft_paper(group: list[Record], names: _NameIndex, diagnostics: list[Diagnostic]) -> Paper:
    """A paper from its records: first titled record leads; author lists come from any record."""
    lead = min(group, key=lambda r: (r.title is None, r.source))
    years = sorted({r.year for r in group if r.year is not None})
    if len(years) > 1:
        diagnostics.append(warning(lead.source.path, lead.source.line,
                                   f"records of this paper disagree on the year {years}; using {years[0]}"))
    listed = max((r for r in group if r.authors), key=lambda r: len(r.authors), default=None)
    author_keys = _unique(names.key(n) for n in (listed.authors if listed else ()))
    extra = _unique(k for k in (names.key(r.owner) for r in group) if k not in author_keys)
    subjects = _unique(s for r in sorted(group, key=lambda r: r.source) for s in r.subjects)
    origin: TitleOrigin = "dump" if lead.title else "derived"
    title = lead.title or derive_title(lead.abstract)
    return Paper(
        id="", title=title, title_origin=origin, year=years[0] if years else None,
        subjects=subjects, abstract=lead.abstract, author_ids=author_keys,
        extra_author_ids=extra, et_al=bool(listed and listed.et_al),
        authors_listed=listed is not None, sources=tuple(sorted(r.source for r in group)),
    )


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _apply_curation(drafts: list[Paper], curation: Curation) -> tuple[list[Paper], list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    hidden: set[int] = set()
    for edit in curation.papers:
        matches = [i for i, paper in enumerate(drafts) if _selects(edit, paper)]
        if len(matches) != 1:
            what = "matches no paper" if not matches else f"matches {len(matches)} papers"
            diagnostics.append(warning(curation.path, edit.line,
                                       f"curation entry ({edit.match_key}: {edit.match_value!r}) {what}"))
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
    return any(_source_matches(source, value) for source in paper.sources)


def _source_matches(source: SourceRef, value: str) -> bool:
    """``value`` is "file:line", with the file as a full path or just its name."""
    path, _, line = value.rpartition(":")
    return line == str(source.line) and (source.path == path or source.path.endswith("/" + path))


def _edited(paper: Paper, edit: PaperEdit) -> Paper:
    changes: dict[str, object] = {"links": paper.links + edit.links}
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
                    f"no year for {p.title[:60]!r}: no record states one; set 'year:' in curation.yaml")
            for p in papers if p.year is None]


def _assign_paper_ids(drafts: list[Paper]) -> list[Paper]:
    """Stable, unique slugs from titles; collisions get the year, then a number."""
    ordered = sorted(drafts, key=lambda p: (-(p.year or 0), fold(p.title), p.sources))
    taken: set[str] = set()
    papers = []
    for paper in ordered:
        base = slugify(paper.title) or "paper"
        candidates = [base, f"{base}-{paper.year}" if paper.year else base]
        slug = next((c for c in candidates if c not in taken), None)
        n = 2
        while slug is None or slug in taken:
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug)
        papers.append(replace(paper, id=slug))
    return papers


def _build_authors(papers: list[Paper], dumps: Sequence[Dump], names: _NameIndex,
                   curation: Curation) -> tuple[Author, ...]:
    """One Author per name key; paper author lists are rewritten from keys to author ids."""
    keys = _unique(k for p in papers for k in p.all_author_ids)
    keys = _unique(list(keys) + [names.key(d.owner) for d in dumps])
    ids = _author_ids(keys, names)
    for i, paper in enumerate(papers):
        papers[i] = replace(paper, author_ids=tuple(ids[k] for k in paper.author_ids),
                            extra_author_ids=tuple(ids[k] for k in paper.extra_author_ids))
    paper_ids: dict[str, list[str]] = defaultdict(list)
    for paper in papers:
        for author_id in paper.all_author_ids:
            paper_ids[author_id].append(paper.id)
    profiles: dict[str, list[Profile]] = defaultdict(list)
    for dump in sorted(dumps, key=lambda d: d.path):
        profiles[ids[names.key(dump.owner)]].append(Profile(dump.path, dump.claim, len(dump.records)))
    details = {names.key(e.name): e for e in curation.authors}
    authors = []
    for key in keys:
        edit = details.get(key)
        authors.append(Author(
            id=ids[key], name=names.display[key], paper_ids=tuple(paper_ids[ids[key]]),
            profiles=tuple(profiles[ids[key]]),
            affiliation=edit.affiliation if edit else None,
            homepage=edit.homepage if edit else None,
            variants=edit.variants if edit else ()))
    return tuple(sorted(authors, key=lambda a: (fold(a.name), a.id)))


def _author_ids(keys: Sequence[str], names: _NameIndex) -> dict[str, str]:
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


def _build_subjects(papers: list[Paper], diagnostics: list[Diagnostic]) -> tuple[Subject, ...]:
    members: dict[str, list[Paper]] = defaultdict(list)
    for paper in papers:
        for code in paper.subjects:
            members[code].append(paper)
    subjects = []
    for code in sorted(members):
        known = category(code)
        if known is None:
            first = members[code][0].sources[0]
            diagnostics.append(warning(first.path, first.line, f"unknown arXiv subject {code!r}"))
        subjects.append(Subject(code, known.name if known else code,
                                known.group if known else "Other", known is not None,
                                tuple(p.id for p in members[code])))
    return tuple(subjects)
