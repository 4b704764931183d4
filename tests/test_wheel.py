"""The wheel carries the default theme: install it outside the checkout and build a site."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, abstract, listing_dump, write_files

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(REPO)],
                   check=True, capture_output=True, cwd=out)
    return next(out.glob("site_gen-*.whl"))


def test_wheel_contains_theme_and_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in ("site_gen/themes/default/templates/base.html",
                     "site_gen/themes/default/templates/partials/macros.html",
                     "site_gen/themes/default/static/site.css",
                     "site_gen/themes/default/static/search.js",
                     "site_gen/data/arxiv_categories.tsv"):
        assert required in names


def test_installed_wheel_builds_a_site(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, str(wheel)], check=True, capture_output=True)
    project = write_files(tmp_path / "elsewhere", {
        "content/site.yaml": "title: From the wheel\nsite_url: https://example.org/x/\n",
        "content/dumps/a.txt": listing_dump("Ann Lee", [(2024, "A Paper Title", abstract("x"), ["cs.LG"])]),
    })
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    run = subprocess.run([str(venv / "bin/site-gen"), "build"], check=False, cwd=project, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (project / "_site/papers/a-paper-title/index.html").is_file()
    assert (project / "_site/assets/site.css").is_file()
    where = subprocess.run([str(venv / "bin/python"), "-c", "import site_gen; print(site_gen.__file__)"],
                           check=False, cwd=project, env=env, capture_output=True,
                           text=True).stdout
    assert str(REPO) not in where
