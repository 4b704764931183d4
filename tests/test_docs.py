"""The documentation's links hold: every relative link in README.md and docs/*.md names a file
that exists and, with a ``#fragment``, a heading of that file (GitHub's anchors); and
docs/screenshots/ holds exactly the images the documents show, which scripts/screenshots.py
refreshes, so that no unused megabytes ride along in every clone."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(path: Path) -> str:
    """The Markdown outside fenced code blocks."""
    return re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces to
    hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_anchor(h) for h in re.findall(r"^#+ (.+)$", _prose(path), re.MULTILINE)}


def _relative_links() -> list[tuple[Path, str]]:
    return [(doc, target) for doc in DOCS for target in LINK.findall(_prose(doc))
            if not re.match(r"[a-z][a-z+.-]*:", target)]


def test_relative_links_and_their_anchors_resolve() -> None:
    links = _relative_links()
    assert any("#" in target for _, target in links)  # the check below has work to do
    broken = []
    for doc, target in links:
        path, _, fragment = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(f"{doc.relative_to(REPO)}: {target}: no such file")
        elif fragment and file.suffix == ".md" and fragment not in _anchors(file):
            broken.append(f"{doc.relative_to(REPO)}: {target}: no such heading")
    assert broken == []


def test_screenshots_are_exactly_those_the_docs_show() -> None:
    folder = REPO / "docs" / "screenshots"
    shown = {(doc.parent / target).resolve() for doc, target in _relative_links()
             if (doc.parent / target).resolve().parent == folder}
    assert shown and shown == set(folder.iterdir())
    written = {folder / f"{name}-{width}-{scheme}.png" for name, width, scheme in _shown_by_script()}
    assert written == shown


def _shown_by_script() -> tuple[tuple[str, int, str], ...]:
    """scripts/screenshots.py's ``SHOWN``, read without running the script (it puts the tests'
    folders on sys.path to borrow their HTTP server)."""
    tree = ast.parse((REPO / "scripts" / "screenshots.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["SHOWN"]:
            return ast.literal_eval(node.value)
    raise AssertionError("scripts/screenshots.py has no SHOWN")
