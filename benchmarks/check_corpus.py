#!/usr/bin/env python3
"""Check a corpus written by gen_corpus.py against the dump grammar; print its statistics.

    python3 benchmarks/check_corpus.py DIR [--papers N]

Standard library only and independent of site_gen, so it checks the generator, not the
readers.  Exits 1 (listing the first problems) when a file breaks the grammar.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import unicodedata
from collections import Counter

SUBJECTS = {"cs.LG", "cs.CL", "cs.CV", "cs.DC", "cs.AI", "cs.IR", "cs.NE", "cs.RO", "stat.ML",
            "math.OC", "eess.SP", "q-bio.NC", "quant-ph", "cs.CR", "cs.SE"}
COUNT = re.compile(r"(At least )?(\d+) (records?)Linked to original sources")
YEAR = re.compile(r"arXiv(\d{4})")
NAME = re.compile(r"[^\W\d_][\w'.\-]*(?: [^\W\d_][\w'.\-]*){0,5}")
_NON_WORD = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    text = re.sub(r"(?<!\\)\$+", "", text)
    text = re.sub(r"\\([A-Za-z]+|[%&_#$,;])", lambda m: "%" if m.group(1) == "%" else "", text)
    text = re.sub(r"(?<!\\)[{}]", "", text)
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", bare.casefold()).strip()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--papers", type=int, help="expected number of distinct papers")
    args = ap.parse_args()
    dumps = os.path.join(args.dir, "content", "dumps")
    problems: list[str] = []

    def bad(where: str, what: str) -> None:
        problems.append(f"{where}: {what}")

    # abstract key -> (title, year, subjects)
    listed: dict[str, tuple[str, int, tuple[str, ...]]] = {}
    coauthor_keys: list[str] = []
    titles: dict[str, str] = {}
    stats: Counter[str] = Counter()
    per_author: list[int] = []
    for name in sorted(os.listdir(dumps)):
        path = os.path.join(dumps, name)
        with open(path, "rb") as file:
            raw = file.read()
        where = name
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            bad(where, "not UTF-8")
            continue
        if "\r" in text or "\t" in text or text.startswith("\ufeff"):
            bad(where, "CR, tab or BOM")
        elements = text.split("\n\n")
        for i, e in enumerate(elements):
            if not e or "\n" in e or e != e.strip():
                bad(where, f"element {i} is empty, spans lines or has surrounding space")
                break
        if elements[0] == "arXiv subjects":
            stats["listing dumps"] += 1
            owner = elements[1]
            if not NAME.fullmatch(owner):
                bad(where, f"owner {owner!r} is not name-shaped")
            if elements[2] != f"Publications and source records attributed to {owner}.":
                bad(where, "attribution line")
            m = COUNT.fullmatch(elements[3])
            if not m:
                bad(where, f"count line {elements[3]!r}")
                continue
            claimed, at_least = int(m.group(2)), bool(m.group(1))
            if (claimed == 1) != (m.group(3) == "record"):
                bad(where, "record/records")
            stats['at_least'] += at_least
            body, n, last_year = elements[4:], 0, 9999
            i = 0
            while i < len(body):
                y = YEAR.fullmatch(body[i])
                if not y or i + 3 >= len(body) + 1:
                    bad(where, f"expected arXiv<year> at element {i + 4}: {body[i][:40]!r}")
                    break
                year = int(y.group(1))
                if not 2015 <= year <= 2026 or year > last_year:
                    bad(where, f"year {year} out of range or order")
                last_year = year
                title, abstract = body[i + 1], body[i + 2]
                j = i + 3
                subjects = []
                while j < len(body) and body[j].endswith("↗"):
                    subjects.append(body[j][:-1])
                    j += 1
                if not 1 <= len(subjects) <= 3 or not set(subjects) <= SUBJECTS:
                    bad(where, f"subjects {subjects} for {title[:40]!r}")
                if not 5 <= len(title.split()) <= 14:
                    bad(where, f"title word count: {title!r}")
                if not 700 <= len(abstract) <= 1900:
                    bad(where, f"abstract length {len(abstract)}")
                key = fold(abstract)
                if key not in listed:
                    stats["latex"] += bool(re.search(r"\$|\\(textbf|emph)\{|\\%", abstract))
                    stats["url"] += "https://github.com/" in abstract
                entry = (title, year, tuple(subjects))
                if listed.setdefault(key, entry) != entry:
                    bad(where, f"paper listed twice with different data: {title[:40]!r}")
                if titles.setdefault(fold(title), key) != key:
                    bad(where, f"title shared by two papers: {title!r}")
                n += 1
                i = j
            stats["listing records"] += n
            per_author.append(n)
            if (at_least and claimed > n) or (not at_least and claimed != n) or n == 0:
                bad(where, f"count line says {elements[3]!r} but holds {n}")
        else:
            stats["co-author dumps"] += 1
            if not NAME.fullmatch(elements[0]):
                bad(where, f"owner {elements[0]!r} is not name-shaped")
            body = elements[1:]
            if not body or len(body) % 2:
                bad(where, "odd number of elements after the owner")
            for k in range(0, len(body) - 1, 2):
                authors, abstract = body[k], body[k + 1]
                names = authors.removesuffix(" et al.").split(", ")
                if not 1 <= len(names) <= 3 or not all(NAME.fullmatch(x) for x in names):
                    bad(where, f"author list {authors!r}")
                if authors.endswith(" et al.") and len(names) != 3:
                    bad(where, f"et al. with fewer than 3 names: {authors!r}")
                if not 690 <= len(abstract) <= 1910:
                    bad(where, f"abstract length {len(abstract)}")
                coauthor_keys.append(fold(abstract))
            stats["co-author records"] += len(body) // 2
    untitled = {k for k in coauthor_keys if k not in listed}
    papers = len(listed) + len(untitled)
    openings = Counter(" ".join(k.split()[:25]) for k in list(listed) + sorted(untitled))
    if any(c > 1 for c in openings.values()):
        bad("corpus", f"{sum(c > 1 for c in openings.values())} abstract openings shared")
    if args.papers is not None and papers != args.papers:
        bad("corpus", f"{papers} distinct papers, expected {args.papers}")
    print(f"files: {stats['listing dumps']} listing, {stats['co-author dumps']} co-author; "
          f"records: {stats['listing records']} listing, {stats['co-author records']} co-author")
    print(f"distinct papers: {papers} ({len(listed)} titled, {len(untitled)} untitled = "
          f"{len(untitled) / max(1, len(coauthor_keys)):.0%} of co-author entries); "
          f"'At least' dumps: {stats['at_least']}")
    print(f"titled abstracts with LaTeX: {stats['latex'] / max(1, len(listed)):.0%}, "
          f"with a GitHub URL: {stats['url'] / max(1, len(listed)):.0%}")
    print(f"records per listing dump: max {max(per_author, default=0)}, "
          f"median {sorted(per_author)[len(per_author) // 2] if per_author else 0}")
    hugo = os.path.join(args.dir, "hugo", "content", "papers")
    if os.path.isdir(hugo):
        pages = [f for f in os.listdir(hugo) if f.endswith(".md") and f != "_index.md"]
        print(f"hugo paper pages: {len(pages)}")
        if args.papers is not None and len(pages) != args.papers:
            bad("hugo", f"{len(pages)} paper pages, expected {args.papers}")
    for p in problems[:20]:
        print("PROBLEM", p)
    if problems:
        print(f"{len(problems)} problems")
        return 1
    print("grammar OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
