"""Shared fixtures: projects built from inline files, and the demo site built once."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from site_gen.incremental.builder import Builder
from site_gen.pipeline import BuildResult

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "content" / "dumps"

LISTING = """arXiv subjects

{owner}

Publications and source records attributed to {owner}.

{count}Linked to original sources

{records}"""


def listing_dump(owner: str, records: list[tuple[int | None, str, str, list[str]]],
                 count: str | None = None) -> str:
    """A listing-format dump from (year, title, abstract, subjects) tuples."""
    body = []
    for year, title, abstract, subjects in records:
        body.append(f"arXiv{year or ''}\n\n{title}\n\n{abstract}\n\n"
                    + "".join(f"{s}↗\n\n" for s in subjects))
    n = len(records)
    count = count or f"{n} record{'s' if n != 1 else ''}"
    return LISTING.format(owner=owner, count=count, records="".join(body))


def coauthor_dump(owner: str, entries: list[tuple[str, str]]) -> str:
    """A co-author dump from (author list, abstract) pairs."""
    return owner + "\n\n" + "".join(f"{authors}\n\n{abstract}\n\n" for authors, abstract in entries)


def abstract(topic: str, n: int = 6) -> str:
    """A realistic-length abstract that differs by topic."""
    sentences = [f"We study {topic} in large language model systems.",
                 f"Existing approaches to {topic} waste accelerator time and memory.",
                 f"We present a scheduler for {topic} that overlaps phases.",
                 f"It adapts to {topic} workloads without manual tuning.",
                 f"Experiments on {topic} benchmarks show a 1.5x speedup.",
                 f"The code for {topic} is open source."]
    return " ".join(sentences[:n])


def write_files(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``{relative path: text or bytes}`` under ``root``."""
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[Mapping[str, str | bytes]], Path]:
    """A project folder holding the given files (paths relative to the project)."""
    def make(files: Mapping[str, str | bytes]) -> Path:
        project = tmp_path / "project"
        project.mkdir(exist_ok=True)
        defaults = {"content/site.yaml": "title: Test site\nsite_url: https://example.org/\n"}
        return write_files(project, {**defaults, **files})
    return make


def build(project: Path, output: Path | None = None, strict: bool = False) -> BuildResult:
    """Build a project, returning the BuildResult."""
    return Builder(project, output).build(strict=strict)


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's demo project (content/ only)."""
    project = tmp_path_factory.mktemp("demo")
    shutil.copytree(REPO / "content", project / "content")
    return project


@pytest.fixture(scope="session")
def demo_site(demo_project: Path) -> Path:
    """The demo site, built once per session."""
    result = build(demo_project)
    assert result.ok, [str(d) for d in result.diagnostics]
    return demo_project / "_site"
