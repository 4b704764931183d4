"""Markdown pages: front matter checked, math typeset as in abstracts, files beside a page
published beside it."""

from __future__ import annotations

from pathlib import Path

from conftest import SEEDS, write_files

from site_gen.cli import main

PAGE = """---
title: Methods
---
We minimise $\\mathcal{L}(\\theta) = \\sum_i x_i^2$ per step, and

$$E = mc^2$$

![The pipeline](figures/pipeline.svg) and [the data](data.csv); costs are $5 and $6.
[Another page](../about/) and [elsewhere](https://data.example.net/x.png).
"""


def test_a_page_typesets_math_and_publishes_the_files_it_shows(tmp_path: Path, capsys) -> None:
    project = write_files(tmp_path / "p", {
        "content/dumps/ada.txt": min(SEEDS.glob("*.txt")).read_bytes(),
        "content/site.yaml": "title: Lab\nsite_url: https://example.org/\n",
        "content/pages/methods.md": PAGE,
        "content/pages/about.md": "About us.\n",
        "content/pages/figures/pipeline.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>\n",
        "content/pages/data.csv": "a,b\n1,2\n",
        "content/pages/unused.png": b"\x89PNG",
    })
    assert main(["build", "--project", str(project)]) == 0, capsys.readouterr().err
    site = project / "_site"
    html = (site / "methods/index.html").read_text()
    assert html.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">') == 1
    assert html.count('display="block"') == 1
    assert "costs are $5 and $6" in html  # dollars that are money stay text
    assert '<img src="figures/pipeline.svg" alt="The pipeline"' in html
    assert (site / "methods/figures/pipeline.svg").read_bytes() == \
        (project / "content/pages/figures/pipeline.svg").read_bytes()
    assert (site / "methods/data.csv").is_file()
    assert not list(site.rglob("unused.png"))  # only what a page shows or links
    assert main(["check", "--project", str(project)]) == 0, capsys.readouterr().err
