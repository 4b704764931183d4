"""Reader for the *listing* dump format (seeds 000_*, 001_*): a profile's publication list.

Grammar, on non-blank lines (blank lines, CRLF, BOM and trailing spaces are ignored)::

    dump    := header record*
    header  := ["arXiv subjects"] owner ["Publications and source records attributed to" NAME "."]
               [count] ["Linked to original sources"]
    count   := ["At least"] N ("record" | "records") ["Linked to original sources"]
    record  := source text+ subject*
    source  := "arXiv" [YEAR]                      e.g. "arXiv2026"
    text    := the title line, then the abstract (one or more lines)
    subject := CODE ["↗"] (("," | " ") CODE ["↗"])*  e.g. "cs.LG↗"
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from site_gen.model import CountClaim, Dump, Record, SourceRef
from site_gen.read.names import MAX_NAME_WORDS, is_name
from site_gen.read.source import Line
from site_gen.util.diagnostics import Diagnostic, error, warning
from site_gen.util.subjects import category, looks_like_category
from site_gen.util.text import fold

FORMAT = "listing"
_LABEL = re.compile(r"arxiv subjects", re.IGNORECASE)
_ATTRIBUTION = re.compile(r"publications and source records attributed to (.+?)\.?", re.IGNORECASE)
_COUNT = re.compile(
    r"(at least\s+)?(\d[\d,]*)\s+records?\s*(?:linked to original sources)?", re.IGNORECASE
)
_LINKED = re.compile(r"linked to original sources", re.IGNORECASE)
_SOURCE = re.compile(r"arxiv\s*(\d+)?", re.IGNORECASE)
_SUBJECT_TOKEN = re.compile(r"([A-Za-z][A-Za-z\-]*(?:\.[A-Za-z\-]+)?)\s*(↗?)")
_SUBJECT_SEP = re.compile(r"[\s,;]*")
MIN_YEAR, MAX_YEAR = 1900, 2100
"""The years a paper may have (curation's too, ``read.curation``): four digits for Atom dates,
and at most 201 columns in an author page's chart of papers per year, which has every year from
the first to the last."""
# A lone line longer than this, or one that reads as sentences, is an abstract rather than a title.
MAX_TITLE = 300


def sniff(lines: Sequence[Line]) -> bool:
    """True when the head of a file reads like a profile listing."""
    head = [line.text for line in lines[:8]]
    return any(_ATTRIBUTION.fullmatch(t) for t in head) or (
        bool(head) and bool(_LABEL.fullmatch(head[0]))
    )


def is_source_line(text: str) -> bool:
    """Whether a line is a record's source line (``arXiv2026``, ``arXiv``): what starts a
    record of this format."""
    return _SOURCE.fullmatch(text) is not None


def parse_subjects(text: str) -> tuple[str, ...] | None:
    """Subject codes on a subject line, or None when the line is not one."""
    codes: list[str] = []
    arrows = 0
    pos = _SUBJECT_SEP.match(text).end()  # type: ignore[union-attr]
    while pos < len(text):
        match = _SUBJECT_TOKEN.match(text, pos)
        if not match or not looks_like_category(match.group(1)):
            return None
        codes.append(match.group(1))
        arrows += bool(match.group(2))
        pos = _SUBJECT_SEP.match(text, match.end()).end()  # type: ignore[union-attr]
    # Without the arrow marker only well-known codes count: "Transformers" is not a subject.
    if not codes or (not arrows and not all(category(c) for c in codes)):
        return None
    return tuple(dict.fromkeys(canonical_code(c) for c in codes))


def canonical_code(code: str) -> str:
    """The table's spelling of a code ("cs.lg" -> "cs.LG"); unknown codes stay as written."""
    known = category(code)
    return known.code if known else code


def read(path: str, lines: Sequence[Line]) -> tuple[Dump | None, list[Diagnostic]]:
    """Parse a listing dump into a Dump; problems become diagnostics with line numbers."""
    diagnostics: list[Diagnostic] = []
    start = next((i for i, line in enumerate(lines) if _SOURCE.fullmatch(line.text)), len(lines))
    header = _read_header(path, lines[:start], diagnostics)
    if header is None:
        return None, diagnostics
    owner, owner_line, claim, claim_line = header
    records: list[Record] = []
    for group in _record_groups(lines[start:]):
        record = _read_record(path, owner, group, diagnostics)
        if record is not None:
            records.append(record)
    _check_claim(path, claim, claim_line, len(records), diagnostics)
    dump = Dump(path, FORMAT, owner, owner_line, claim, tuple(records))
    return dump, diagnostics


def _read_header(
    path: str, lines: Sequence[Line], diagnostics: list[Diagnostic]
) -> tuple[str, int, CountClaim | None, int] | None:
    """The header's lines by their place: after the optional label, the owner's line holds
    the owner whatever it spells; then the attribution, count and 'Linked' lines."""
    owner: Line | None = None
    attributed: Line | None = None
    claim: CountClaim | None = None
    claim_line = 0
    for line in lines:
        text = line.text
        if _LABEL.fullmatch(text) or _LINKED.fullmatch(text):
            continue
        if match := _ATTRIBUTION.fullmatch(text):
            attributed = Line(line.number, match.group(1).strip())
        elif match := _COUNT.fullmatch(text):
            count = int(match.group(2).replace(",", ""))
            claim, claim_line = CountClaim(count, bool(match.group(1))), line.number
        elif (owner_place := owner is None and attributed is None and claim is None) \
                and is_name(text):
            owner = line
        else:
            diagnostics.append(error(path, line.number, _misplaced(text, owner_place)))
            return None
    if owner and attributed and fold(owner.text) != fold(attributed.text):
        diagnostics.append(warning(path, attributed.number,
                                   f"header names {owner.text!r} but attributes records to "
                                   f"{attributed.text!r}; using {owner.text!r}", "owner-mismatch"))
    owner = owner or attributed
    if owner is None:
        first = lines[0].number if lines else 1
        diagnostics.append(error(path, first, "no profile owner name before the first record"))
        return None
    return owner.text, owner.number, claim, claim_line


def _misplaced(text: str, owner_place: bool) -> str:
    """What the header expected where ``text`` stands."""
    found = f"found {text[:60]!r}"
    if text[:5].casefold() == "arxiv":
        return f"not a record's source line: expected 'arXiv' and a year, such as 'arXiv2025'; {found}"
    if owner_place:
        return (f"unexpected line in the header: expected the profile owner's name "
                f"(up to {MAX_NAME_WORDS} words); {found}")
    return ("unexpected line in the header: expected 'Publications and source records "
            "attributed to NAME.', a record count such as '7 records', or a record's source "
            f"line such as 'arXiv2025'; {found}")


def _record_groups(lines: Sequence[Line]) -> list[list[Line]]:
    """Split the body at each source line ("arXiv2026"); every group starts with one."""
    groups: list[list[Line]] = []
    for line in lines:
        if _SOURCE.fullmatch(line.text):
            groups.append([line])
        else:
            groups[-1].append(line)
    return groups


def _read_record(
    path: str, owner: str, group: list[Line], diagnostics: list[Diagnostic]
) -> Record | None:
    source, body = group[0], group[1:]
    year = _read_year(path, source, diagnostics)
    texts: list[Line] = []
    subjects: list[str] = []
    for line in body:
        codes = parse_subjects(line.text)
        if codes is not None:
            subjects.extend(c for c in codes if c not in subjects)
        elif subjects:
            diagnostics.append(error(path, line.number,
                                     "text after the subject lines; is this record's "
                                     "'arXiv<year>' line missing?"))
            return None
        else:
            texts.append(line)
    if not texts:
        diagnostics.append(error(path, source.number, "record has no title and no abstract"))
        return None
    title, abstract = _split_title(path, source, texts, diagnostics)
    if not subjects:
        diagnostics.append(warning(path, source.number, "record has no subject line", "no-subject"))
    return Record(SourceRef(path, source.number), owner, title, (), False, year,
                  tuple(subjects), abstract)


def _read_year(path: str, source: Line, diagnostics: list[Diagnostic]) -> int | None:
    match = _SOURCE.fullmatch(source.text)
    digits = match.group(1) if match else None
    if digits is None:
        return None  # the catalog warns when no record of the paper, nor curation, has a year
    year = int(digits) if len(digits) <= 4 else None  # int() refuses 4,300 digits and more
    if year is None or not MIN_YEAR <= year <= MAX_YEAR:
        shown = digits if len(digits) <= 12 else digits[:12] + "…"
        diagnostics.append(warning(path, source.number, f"implausible year {shown} ignored "
                                   f"(years run from {MIN_YEAR} to {MAX_YEAR})",
                                   "implausible-year"))
        return None
    return year


def _split_title(
    path: str, source: Line, texts: list[Line], diagnostics: list[Diagnostic]
) -> tuple[str | None, str]:
    """First line is the title and the rest the abstract; a lone line is whichever it reads as."""
    if len(texts) > 1:
        return texts[0].text, "\n\n".join(t.text for t in texts[1:])
    only = texts[0].text
    if len(only) <= MAX_TITLE and not re.search(r"[.!?]\s+\S", only):
        diagnostics.append(warning(path, source.number, "record has no abstract", "no-abstract"))
        return only, ""
    diagnostics.append(warning(path, source.number, "record has no title", "no-title"))
    return None, only


def _check_claim(
    path: str, claim: CountClaim | None, line: int, found: int, diagnostics: list[Diagnostic]
) -> None:
    if claim and not claim.at_least and claim.count != found:
        diagnostics.append(warning(path, line, f"the dump claims {claim} but holds {found} (shown "
                                               "on the author page)", "claim-count"))
