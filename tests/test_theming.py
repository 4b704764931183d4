"""The theming contract (docs/theming.md): a macro a project overrides is the one every default
page calls, paper pages and list items included."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import abstract, build, listing_dump

from site_gen.pipeline import builtin_theme_dir

DUMPS = {"content/dumps/a.txt": listing_dump("Ann Lee", [
    (2024, "Tail Batching for Synchronous RL", abstract("tail batching"), ["cs.LG", "cs.DC"]),
    (2023, "Phase Multiplexing for Rollouts", abstract("multiplexing"), ["cs.DC"]),
    (2023, "Elastic Rollout Scheduling", abstract("scheduling"), ["cs.DC"])])}

CHIP = '<b class="my-chip" data-href="{{ subject|href }}">{{ subject.code }}: {{ subject.name }}</b>'
AUTHORS = '<i class="my-authors">by {{ paper|author_links(link) }}</i>'


def theme_macros_with(**bodies: str) -> str:
    """The default theme's partials/macros.html with the named macros' bodies replaced, as a
    project that copies the file and edits it has it."""
    theme = builtin_theme_dir("default")
    assert theme is not None
    text = (theme / "templates/partials/macros.html").read_text(encoding="utf-8")
    for name, body in bodies.items():
        text, found = re.subn(r"(\{% macro " + name + r"\(.*?\) -%\}\n).*?(\n\{%- endmacro %\})",
                              lambda m, body=body: m.group(1) + body + m.group(2), text, count=1,
                              flags=re.DOTALL)
        assert found, name
    return text


def page(site: Path, url: str) -> str:
    return (site / url / "index.html").read_text(encoding="utf-8")


def test_an_overridden_subject_chip_and_author_list_reach_every_page(make_project) -> None:
    project = make_project({**DUMPS, "templates/partials/macros.html":
                            theme_macros_with(subject_chip=CHIP, author_list=AUTHORS)})
    result = build(project)
    assert result.ok, [str(d) for d in result.diagnostics]
    site = project / "_site"
    paper = page(site, "papers/tail-batching-for-synchronous-rl")
    # The paper page: its subjects, its byline and its related list ("more by this author").
    assert '<b class="my-chip" data-href="../../subjects/cs.LG/">cs.LG: Machine Learning</b>' in paper
    assert ('<i class="my-authors">by <a href="../../authors/ann-lee/"><bdi>Ann Lee</bdi></a></i>'
            in paper)
    assert paper.count('class="my-authors"') == 3, paper  # the byline and two related papers
    # List items, at their pages' depths: the papers index, a subject, an author, the home page.
    for url, up in (("papers", "../"), ("subjects/cs.DC", "../../"), ("authors/ann-lee", "../../"),
                    ("", "")):
        html = page(site, url)
        assert f'<b class="my-chip" data-href="{up}subjects/cs.DC/">cs.DC: ' in html, url
        assert '<i class="my-authors">by <bdi>Ann Lee</bdi></i>' in html, url
    assert page(site, "subjects").count('class="my-chip"') == 2
    # No page draws the theme's own chip: every chip is the project's macro.
    for path in site.rglob("*.html"):
        assert 'class="chip"' not in path.read_text(encoding="utf-8"), path


def test_an_overridden_paper_meta_reaches_paper_pages(make_project) -> None:
    theme = builtin_theme_dir("default")
    assert theme is not None
    meta = (theme / "templates/partials/meta.html").read_text(encoding="utf-8")
    meta = meta.replace("{{ paper|paper_meta_html(catalog, site) }}",
                        '<meta name="my-meta" content="{{ paper.title|plain }}">')
    project = make_project({**DUMPS, "templates/partials/meta.html": meta})
    assert build(project).ok
    paper = page(project / "_site", "papers/elastic-rollout-scheduling")
    assert '<meta name="my-meta" content="Elastic Rollout Scheduling">' in paper
    assert "citation_title" not in paper
