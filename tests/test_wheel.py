"""The release path: ``python -m build`` makes a wheel and an sdist that hold the theme; the
wheel installed alone, outside the checkout, builds the demo; the wheel a project carries
(carry.py) holds the very files of the built one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

from site_gen import __version__
from site_gen.carry import running_wheel, wheel_name

pytestmark = pytest.mark.slow

THEME_AND_DATA = ("site_gen/themes/default/templates/base.html",
                  "site_gen/themes/default/templates/partials/macros.html",
                  "site_gen/themes/default/static/site.css",
                  "site_gen/themes/default/static/search.js",
                  "site_gen/data/arxiv_categories.tsv")
MADE_BY_THE_BACKEND = {"WHEEL", "RECORD", "top_level.txt"}
"""dist-info files whose bytes name the tool that packed the wheel, or that installers ignore.
The carried wheel's METADATA is the built one's headers: the README, its long description,
is left out."""


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` of a copy of the checkout (the build leaves nothing in it)."""
    source = tmp_path_factory.mktemp("source") / "site-gen"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "_site", "._site*", ".site-gen-cache", "*.egg-info", "__pycache__",
        "build", "dist"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                   check=True, capture_output=True, cwd=out)
    return out


def test_build_makes_a_wheel_and_an_sdist_that_hold_the_theme(dist: Path) -> None:
    assert sorted(p.name for p in dist.iterdir()) == sorted([
        f"site_gen-{__version__}.tar.gz", wheel_name(__version__)])
    names = set(zipfile.ZipFile(dist / wheel_name(__version__)).namelist())
    assert set(THEME_AND_DATA) <= names
    with tarfile.open(dist / f"site_gen-{__version__}.tar.gz") as sdist:
        inside = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"pyproject.toml", "README.md", "themes/default/templates/base.html",
            "themes/default/static/site.css", "site_gen/data/arxiv_categories.tsv"} <= inside


def test_the_carried_wheel_holds_the_files_of_the_built_one(dist: Path) -> None:
    built = zipfile.ZipFile(dist / wheel_name(__version__))
    carried_wheel = running_wheel()
    assert carried_wheel.name == wheel_name(__version__)
    assert running_wheel() == carried_wheel  # the same site-gen packs the same bytes
    carried = zipfile.ZipFile(_saved(dist.parent / "carried", carried_wheel.data))
    assert carried.testzip() is None

    def comparable(archive: zipfile.ZipFile) -> dict[str, bytes]:
        files = {name: archive.read(name) for name in archive.namelist()
                 if name.rsplit("/", 1)[-1] not in MADE_BY_THE_BACKEND}
        metadata = f"site_gen-{__version__}.dist-info/METADATA"
        files[metadata] = files[metadata].split(b"\n\n", 1)[0].rstrip()  # headers, no README
        return files

    assert comparable(carried) == comparable(built)
    record = carried.read(f"site_gen-{__version__}.dist-info/RECORD").decode()
    assert sorted(line.split(",")[0] for line in record.splitlines()) == sorted(carried.namelist())


def _saved(folder: Path, data: bytes) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / wheel_name(__version__)
    path.write_bytes(data)
    return path


def test_the_wheel_installed_alone_builds_the_demo(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", str(dist / wheel_name(__version__))],
                   check=True, capture_output=True)
    project = tmp_path / "elsewhere"
    shutil.copytree(REPO / "content", project / "content")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([str(venv / "bin/site-gen"), "build", "--strict"], check=False,
                         cwd=project, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("built 64 pages into _site")
    assert (project / "_site/papers/index.html").is_file()
    assert (project / "_site/assets/site.css").is_file()
    where = subprocess.run([str(venv / "bin/python"), "-c",
                            "import site_gen; print(site_gen.__file__)"],
                           check=True, cwd=project, env=env, capture_output=True, text=True)
    assert str(venv) in where.stdout and str(REPO) not in where.stdout
    version = subprocess.run([str(venv / "bin/site-gen"), "--version"], check=True,
                             capture_output=True, text=True, env=env)
    assert version.stdout == f"site-gen {__version__}\n"
