#!/usr/bin/env python3
"""How much of site_gen exists only so that a rebuild does less: a figure to watch, by module.

    python3 scripts/incremental_lines.py [REPO]

Counts code lines (not blank, not comment-only; docstrings count) of the modules that are
wholly rebuild memory (``incremental/cache.py``, ``incremental/store.py``,
``incremental/pieces.py``, and the stages' watch-mode variants ``incremental/catalog.py``,
``incremental/grouping.py``, ``incremental/routes.py``, ``incremental/outputs.py``,
``incremental/search.py``; older trees' ``cache.py``, ``memo.py``, ``outputs/pieces.py``, so
that the figure of an older checkout compares) and of every function,
class or method elsewhere whose name marks it as rebuild-only (``...Memo``, ``..._after``,
``delta``, ``intern``, ``stale``, ``spare``, ...). A name-based count: it misses the memo
branches inside functions that serve both builds, so it is a floor, not an exact figure.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

WHOLE = {"cache.py", "memo.py", "incremental/cache.py", "incremental/store.py", "outputs/pieces.py",
         "incremental/pieces.py", "incremental/catalog.py", "incremental/grouping.py",
         "incremental/routes.py", "incremental/outputs.py", "incremental/search.py"}
MARK = re.compile(r"Memo|memo|_after|[dD]elta|Carried|in_step|intern|FileCache|RenderMemory|"
                  r"PageMemo|stale|_kept|kept_|spare|Regrouping|regroup|rotate|_same_as_read|"
                  r"_paper_changes|_equal_but_abstract|_update_postings|Pieces|made_files")


def code_lines(lines: list[str], first: int, last: int) -> int:
    return sum(1 for line in lines[first - 1:last]
               if line.strip() and not line.strip().startswith("#"))


def marked_lines(body: list[ast.stmt], lines: list[str]) -> int:
    """Lines of the marked definitions in ``body``, looking into unmarked classes."""
    found = 0
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            if MARK.search(node.name):
                found += code_lines(lines, node.lineno, node.end_lineno or node.lineno)
            elif isinstance(node, ast.ClassDef):
                found += marked_lines(node.body, lines)
    return found


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent.parent) / "site_gen"
    total = 0
    rebuild: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        total += code_lines(lines, 1, len(lines))
        count = (code_lines(lines, 1, len(lines)) if name in WHOLE
                 else marked_lines(ast.parse("\n".join(lines)).body, lines))
        if count:
            rebuild[name] = count
    found = sum(rebuild.values())
    print(f"{total} code lines; {found} ({found / total:.0%}) exist only for rebuilds, "
          f"in {len(rebuild)} modules")
    for name, count in sorted(rebuild.items(), key=lambda item: -item[1]):
        print(f"  {count:5d} {name}")


if __name__ == "__main__":
    main()
