"""Owner's corrections: ``content/curation.yaml`` -> Curation + Diagnostics.

Curation is input, read once and applied by the catalog stage: titles, years, subjects and
links for papers (found by id, title, abstract prefix or source record), paper hiding, and
details and name variants for authors. A curated year is one a dump's source line may state
(``read.listing.MIN_YEAR`` to ``MAX_YEAR``): every page, chart and feed is sane for those.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from site_gen.model import Link
from site_gen.read.listing import MAX_YEAR, MIN_YEAR
from site_gen.read.source import has_control_characters, normalise_line
from site_gen.util.diagnostics import Diagnostic, Severity, error, warning
from site_gen.util.subjects import looks_like_category
from site_gen.util.yamlfile import did_you_mean, line_of, line_of_item, load_yaml_file, quoted

CURATION_FILE = "curation.yaml"
MATCH_KEYS = ("id", "title", "abstract", "source")
ANCHOR_KEYS = ("title", "abstract")
"""What a ``source`` match must also name: a dump's lines move when it is exported again."""
LINK_LABELS = {"arxiv": "arXiv", "pdf": "PDF", "code": "Code", "doi": "DOI",
               "project": "Project page", "video": "Video", "slides": "Slides", "poster": "Poster"}
_PAPER_KEYS = {"match", "title", "year", "subjects", "links", "hide", "aliases"}
_AUTHOR_KEYS = {"name", "display_name", "affiliation", "homepage", "variants", "aliases"}
_LISTS = ("papers", "authors", "merge", "distinct", "acknowledge")
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class PaperEdit:
    """Overrides for the one paper that ``match_key``/``match_value`` selects."""

    line: int
    match_key: str
    match_value: str
    anchor: tuple[str, str] | None = None
    """For a ``source`` match: ``("title", ...)`` or ``("abstract", ...)``, which the paper
    at that source must have (else the entry is not applied there)."""
    title: str | None = None
    year: int | None = None
    subjects: tuple[str, ...] | None = None
    links: tuple[Link, ...] = ()
    hide: bool = False
    aliases: tuple[str, ...] = ()
    """Old slugs of the paper: their URLs redirect to its page."""


@dataclass(frozen=True, slots=True)
class AuthorEdit:
    """Details for the person called ``name`` (or any of ``variants``)."""

    line: int
    name: str
    display_name: str | None = None
    affiliation: str | None = None
    homepage: str | None = None
    variants: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two records, by place ("file:line"): one paper (``merge:``) or two (``distinct:``)."""

    line: int
    first: str
    second: str


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """A warning the owner has read and accepts: its code and place ("file:line", or a file)."""

    line: int
    code: str
    at: str


@dataclass(frozen=True, slots=True)
class Curation:
    """Every correction in the curation file; empty when there is none."""

    path: str = CURATION_FILE
    papers: tuple[PaperEdit, ...] = ()
    authors: tuple[AuthorEdit, ...] = ()
    merges: tuple[Pairing, ...] = ()
    distinct: tuple[Pairing, ...] = ()
    acknowledged: tuple[Acknowledgement, ...] = ()


_Edit = TypeVar("_Edit", PaperEdit, AuthorEdit, Pairing, Acknowledgement)


class _Problem(Exception):
    """A curation entry is malformed; carries the line to report."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def load_curation(content_dir: Path, shown: str) -> tuple[Curation, list[Diagnostic]]:
    """Read the curation file if present; each malformed entry is one error."""
    path = content_dir / CURATION_FILE
    if not path.is_file():
        return Curation(shown), []
    data, diagnostics = load_yaml_file(path, shown)
    if diagnostics or data is None:
        return Curation(shown), diagnostics
    lists = ", ".join(_LISTS)
    if not isinstance(data, dict):
        return Curation(shown), [error(shown, 1, f"curation.yaml holds lists: {lists}")]
    unknown = sorted(set(map(str, data)) - set(_LISTS))
    if unknown:
        return Curation(shown), [error(shown, line_of(data, unknown[0]), f"unknown key "
                                       f"{unknown[0]!r}{did_you_mean(unknown[0], _LISTS)}; "
                                       f"curation.yaml holds lists: {lists}")]
    papers = _entries(data, "papers", _paper_edit, shown, diagnostics)
    authors = _entries(data, "authors", _author_edit, shown, diagnostics)
    merges = _entries(data, "merge", _pairing, shown, diagnostics)
    distinct = _entries(data, "distinct", _pairing, shown, diagnostics)
    acknowledged = _entries(data, "acknowledge", _acknowledgement, shown, diagnostics)
    return Curation(shown, papers, authors, merges, distinct, acknowledged), diagnostics


def _entries(data: dict[str, Any], kind: str, parse: Callable[[Any, int], _Edit], shown: str,
             diagnostics: list[Diagnostic]) -> tuple[_Edit, ...]:
    """Parse one list of entries; each malformed entry becomes one error."""
    entries = data.get(kind) or []
    if not isinstance(entries, list):
        diagnostics.append(error(shown, line_of(data, kind), f"'{kind}' must be a list"))
        return ()
    parsed = []
    for index, entry in enumerate(entries):
        try:
            parsed.append(parse(entry, line_of_item(entries, index, line_of(data, kind))))
        except _Problem as problem:
            diagnostics.append(error(shown, problem.line, str(problem)))
    return tuple(parsed)


def _mapping(entry: Any, fallback: int, allowed: set[str]) -> tuple[dict[str, Any], int]:
    line = line_of(entry) or fallback
    if not isinstance(entry, dict):
        raise _Problem(line, "each entry must be a mapping")
    unknown = sorted(set(map(str, entry)) - allowed)
    if unknown:
        raise _Problem(line_of(entry, unknown[0]) or line,
                       f"unknown key {unknown[0]!r}{did_you_mean(unknown[0], allowed)}")
    return entry, line


def _text(entry: dict[str, Any], key: str, line: int) -> str | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _Problem(line_of(entry, key) or line, f"'{key}' must be non-empty text")
    return " ".join(normalise_line(value).split())


def _paper_edit(entry: Any, fallback: int) -> PaperEdit:
    entry, line = _mapping(entry, fallback, _PAPER_KEYS)
    key, value, anchor = _match(entry.get("match"), line)
    year = entry.get("year")
    if year is not None and (not isinstance(year, int) or isinstance(year, bool)
                             or not MIN_YEAR <= year <= MAX_YEAR):
        raise _Problem(line_of(entry, "year") or line, f"'year' must be a whole number from "
                                                       f"{MIN_YEAR} to {MAX_YEAR}, not "
                                                       f"{quoted(year, 40)}")
    return PaperEdit(line, key, value, anchor, _text(entry, "title", line), year,
                     _subjects(entry, line), _links(entry, line), entry.get("hide") is True,
                     _aliases(entry, line))


def _aliases(entry: dict[str, Any], line: int) -> tuple[str, ...]:
    """Old slugs (``rola-old-title``, as in ``papers/rola-old-title/``)."""
    value = entry.get("aliases") or []
    if not isinstance(value, list) or not all(isinstance(v, str) and _SLUG.fullmatch(v)
                                              for v in value):
        raise _Problem(line_of(entry, "aliases") or line, "'aliases' must be a list of old "
                                                          "slugs such as old-title-2024")
    return tuple(dict.fromkeys(value))


def _match(match: Any, line: int) -> tuple[str, str, tuple[str, str] | None]:
    """A ``match``: one selector, or ``source`` with an anchor (its title or abstract start)."""
    keys = tuple(match) if isinstance(match, dict) else ()
    anchored = len(keys) == 2 and "source" in keys and set(keys) - {"source"} <= set(ANCHOR_KEYS)
    if not (len(keys) == 1 and keys[0] in MATCH_KEYS or anchored):
        raise _Problem(line, f"'match' needs exactly one of {', '.join(MATCH_KEYS)}, or 'source' "
                             "with 'title' or 'abstract'")
    for key in keys:
        if not isinstance(match[key], str) or not match[key].strip():
            raise _Problem(line, f"match '{key}' must be non-empty text")
    if not anchored:
        return keys[0], match[keys[0]].strip(), None
    other = next(k for k in keys if k != "source")
    return "source", match["source"].strip(), (other, match[other].strip())


def _subjects(entry: dict[str, Any], line: int) -> tuple[str, ...] | None:
    value = entry.get("subjects")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and looks_like_category(v)
                                              for v in value):
        raise _Problem(line_of(entry, "subjects") or line, "'subjects' must be a list of arXiv codes such as cs.LG")
    return tuple(dict.fromkeys(value))


def _links(entry: dict[str, Any], line: int) -> tuple[Link, ...]:
    value = entry.get("links") or {}
    where = line_of(entry, "links") or line
    if not isinstance(value, dict):
        raise _Problem(where, "'links' must map a kind (arxiv, pdf, code, ...) to a URL")
    links = []
    for kind, url in value.items():
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
            raise _Problem(line_of(value, kind) or where, f"link {kind!r} must be an http(s) URL")
        if has_control_characters(url):
            raise _Problem(line_of(value, kind) or where,
                           f"link {kind!r} holds a control character (a YAML escape?)")
        links.append(Link(str(kind), url.strip(), LINK_LABELS.get(str(kind), str(kind).title())))
    return tuple(links)


def _author_edit(entry: Any, fallback: int) -> AuthorEdit:
    entry, line = _mapping(entry, fallback, _AUTHOR_KEYS)
    name = _text(entry, "name", line)
    if name is None:
        raise _Problem(line, "author entry needs a 'name'")
    homepage = _text(entry, "homepage", line)
    if homepage and urlsplit(homepage).scheme not in ("http", "https"):
        raise _Problem(line_of(entry, "homepage") or line, "'homepage' must be an http(s) URL")
    variants = entry.get("variants") or []
    if not isinstance(variants, list) or not all(isinstance(v, str) and v.strip() for v in variants):
        raise _Problem(line_of(entry, "variants") or line, "'variants' must be a list of names")
    return AuthorEdit(line, name, _text(entry, "display_name", line),
                      _text(entry, "affiliation", line), homepage,
                      tuple(" ".join(v.split()) for v in variants), _aliases(entry, line))


def _pairing(entry: Any, line: int) -> Pairing:
    """``["ada.txt:12", "bo.txt:40"]``: two records' places."""
    if not isinstance(entry, list) or len(entry) != 2 or not all(
            isinstance(p, str) and _PLACE.fullmatch(p.strip()) for p in entry):
        raise _Problem(line, 'each entry must name two records as ["FILE:LINE", "FILE:LINE"], '
                             f"not {quoted(entry, 80)}")
    return Pairing(line, entry[0].strip(), entry[1].strip())


def _acknowledgement(entry: Any, line: int) -> Acknowledgement:
    """``{code: no-year, at: "ada.txt:12"}``: a warning accepted as it is."""
    entry, line = _mapping(entry, line, {"code", "at"})
    code, at = _text(entry, "code", line), _text(entry, "at", line)
    if code is None or at is None:
        raise _Problem(line, "an acknowledgement needs 'code' and 'at' (the warning's code "
                             "and its FILE:LINE, or FILE for a whole file)")
    return Acknowledgement(line, code, at)


_PLACE = re.compile(r"\S.*:\d+")


def at_place(path: str, line: int, place: str) -> bool:
    """Does ``place`` ("FILE:LINE", or "FILE" for line 0; the file by name or by path) name
    ``path:line``?"""
    file, _, number = place.rpartition(":")
    if not number.isdigit():
        file, number = place, "0"
    return int(number) == line and (path == file or path.endswith("/" + file))


_DUPLICATE_OF = re.compile(r"suspected duplicate of (.+?:\d+):")


def settle(diagnostics: list[Diagnostic], curation: Curation, unused: bool = True
           ) -> list[Diagnostic]:
    """The diagnostics but the warnings curation settles: acknowledged by code and place, and
    suspected duplicates declared ``distinct`` or merged. With ``unused``, an acknowledgement or
    ``distinct`` pair that settles nothing is a warning at its line: it names a place that no
    longer says what it did (the dump changed), and must not quietly settle something else."""
    if not (curation.acknowledged or curation.distinct or curation.merges):
        return diagnostics
    used: set[int] = set()
    kept = []
    for diagnostic in diagnostics:
        settled = diagnostic.severity is Severity.WARNING and _settled_by(diagnostic, curation)
        if settled is None:
            kept.append(diagnostic)
        else:
            used.add(settled)
    if unused:
        kept += [warning(curation.path, entry.line, f"{kind} entry settles no warning: "
                                                    "the place it names no longer warns",
                         "unused-curation")
                 for kind, entries in (("acknowledge", curation.acknowledged),
                                       ("distinct", curation.distinct))
                 for entry in entries if entry.line not in used]
    return kept


def _settled_by(diagnostic: Diagnostic, curation: Curation) -> int | None:
    """The line of the curation entry that settles a warning, or None."""
    here = (diagnostic.path, diagnostic.line)
    for ack in curation.acknowledged:
        if ack.code == diagnostic.code and at_place(*here, ack.at):
            return ack.line
    match = _DUPLICATE_OF.match(diagnostic.message) if diagnostic.code == "duplicate" else None
    if match:
        first = match.group(1).rpartition(":")
        for pair in curation.distinct + curation.merges:
            for a, b in ((pair.first, pair.second), (pair.second, pair.first)):
                if at_place(*here, a) and at_place(first[0], int(first[2]), b):
                    return pair.line
    return None
