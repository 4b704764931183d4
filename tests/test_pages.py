"""Markdown pages: front matter checked, math typeset as in abstracts, files beside a page
published beside it, but not those a browser could run."""

from __future__ import annotations

from pathlib import Path

from conftest import SEEDS, write_files

from site_gen.cli import main

PAGE = """---
title: Methods
---
We minimise $\\mathcal{L}(\\theta) = \\sum_i x_i^2$ per step, and

$$E = mc^2$$

![The pipeline](figures/pipeline.png) and [the data](data.csv); costs are $5 and $6.
[Another page](../about/) and [elsewhere](https://data.example.net/x.png).
"""


def test_a_page_typesets_math_and_publishes_the_files_it_shows(tmp_path: Path, capsys) -> None:
    project = write_files(tmp_path / "p", {
        "content/dumps/ada.txt": min(SEEDS.glob("*.txt")).read_bytes(),
        "content/site.yaml": "title: Lab\nsite_url: https://example.org/\n",
        "content/pages/methods.md": PAGE,
        "content/pages/about.md": "About us.\n",
        "content/pages/figures/pipeline.png": b"\x89PNG\r\n\x1a\n",
        "content/pages/data.csv": "a,b\n1,2\n",
        "content/pages/unused.png": b"\x89PNG",
    })
    assert main(["build", "--project", str(project)]) == 0, capsys.readouterr().err
    site = project / "_site"
    html = (site / "methods/index.html").read_text()
    assert html.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">') == 1
    assert html.count('display="block"') == 1
    assert "costs are $5 and $6" in html  # dollars that are money stay text
    assert '<img src="figures/pipeline.png" alt="The pipeline"' in html
    assert (site / "methods/figures/pipeline.png").read_bytes() == \
        (project / "content/pages/figures/pipeline.png").read_bytes()
    assert (site / "methods/data.csv").is_file()
    assert not list(site.rglob("unused.png"))  # only what a page shows or links
    assert main(["check", "--project", str(project)]) == 0, capsys.readouterr().err


RUNNABLE = """---
title: Figures
---
A figure ![plot](fig.png), a drawing ![drawing](evil.svg),

[a page](a.html) and [a feed](data/feed.XML) beside it.
"""


def test_files_a_browser_could_run_are_not_published_beside_a_page(tmp_path: Path,
                                                                    capsys) -> None:
    """An ``.svg`` or ``.html`` beside a page runs script when opened: pages cannot carry raw
    HTML, so neither can the files beside them. Each is named in a warning at the line that
    links it, with where it belongs; an image is still published."""
    svg = ("<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'>"
           "<script>alert(2)</script></svg>\n")
    project = write_files(tmp_path / "p", {
        "content/dumps/ada.txt": min(SEEDS.glob("*.txt")).read_bytes(),
        "content/site.yaml": "title: Lab\nsite_url: https://example.org/\n",
        "content/pages/figures.md": RUNNABLE,
        "content/pages/fig.png": b"\x89PNG\r\n\x1a\n",
        "content/pages/evil.svg": svg,
        "content/pages/a.html": "<script>alert(3)</script>\n",
        "content/pages/data/feed.XML": "<x/>\n",
    })
    assert main(["build", "--project", str(project)]) == 0
    err = capsys.readouterr().err
    site = project / "_site"
    assert (site / "figures/fig.png").read_bytes() == b"\x89PNG\r\n\x1a\n"
    published = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    assert not {name for name in published
                if name.rsplit(".", 1)[-1].lower() in ("svg", "html", "xml")
                and not name.startswith("assets/") and name.rsplit("/", 1)[-1] not in (
                    "index.html", "404.html", "feed.xml", "sitemap.xml")}, published
    assert not (site / "figures/evil.svg").exists() and not (site / "figures/a.html").exists()
    warned = [line for line in err.splitlines() if "[not-published]" in line]
    assert [line.split(" is not published")[0] for line in warned] == [
        "content/pages/figures.md:4: warning: evil.svg",
        "content/pages/figures.md:6: warning: a.html",
        "content/pages/figures.md:6: warning: data/feed.XML"], err
    assert all("static/" in line and "../assets/" in line for line in warned)
    # --strict fails on it; static/ is where a trusted drawing goes, published as it is
    assert main(["build", "--project", str(project), "--strict"]) == 1
    write_files(project, {"static/evil.svg": svg})
    assert main(["build", "--project", str(project)]) == 0
    assert (site / "assets/evil.svg").read_text() == svg
