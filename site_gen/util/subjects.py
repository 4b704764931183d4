"""arXiv subject codes -> full names, from the table shipped in site_gen/data."""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from types import MappingProxyType

# Archive ("cs", "hep-th", "q-bio"), optionally "." + subject class ("LG", "stat-mech").
_CATEGORY_RE = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.(?:[A-Z]{2}|[a-z]+(?:-[a-z]+)?))?")


@dataclass(frozen=True, slots=True)
class Category:
    """One arXiv category: its code, official full name and top-level group."""

    code: str
    name: str
    group: str


@cache
def categories() -> Mapping[str, Category]:
    """Return every known category keyed by its exact code (read-only, cached)."""
    text = (files("site_gen") / "data" / "arxiv_categories.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE)
    table = {r["code"]: Category(r["code"], r["name"], r["group"]) for r in rows}
    return MappingProxyType(table)


@cache
def _folded() -> Mapping[str, Category]:
    """Return the categories keyed by case-folded code, for lenient lookups."""
    return MappingProxyType({code.casefold(): cat for code, cat in categories().items()})


def category(code: str) -> Category | None:
    """Look up a code exactly, then case-insensitively; None if unknown."""
    code = code.strip()
    return categories().get(code) or _folded().get(code.casefold())


def subject_name(code: str) -> str | None:
    """Return the official full name for a code, or None if unknown."""
    cat = category(code)
    return cat.name if cat else None


def looks_like_category(code: str) -> bool:
    """Tell whether a string is shaped like an arXiv code (known or not)."""
    return _CATEGORY_RE.fullmatch(code) is not None
