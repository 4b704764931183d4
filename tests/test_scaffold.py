"""``site-gen new``, the install story, the dumps folder's layout and the theming recipe."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import yaml
from conftest import REPO, SEEDS, read_tree, write_files

from site_gen import __version__
from site_gen.carry import FOLDER, wheel_name
from site_gen.cli import main
from site_gen.incremental.store import CACHE_DIR
from site_gen.scaffold import INSTALL

SEED = min(SEEDS.glob("*.txt"))


def test_a_new_project_builds_strictly_and_passes_check_at_once(tmp_path: Path, capsys) -> None:
    project = tmp_path / "my-site"
    assert main(["new", str(project), "--title", 'Our "Lab": papers']) == 0
    said = capsys.readouterr().out
    assert f"copy your profile exports into {project / 'content' / 'dumps'}/" in said
    for name in ("content/site.yaml", "content/dumps/README.md", "content/curation.yaml",
                 "content/pages/about.md", ".gitignore", ".github/workflows/pages.yml",
                 f"{FOLDER}/README.md", f"{FOLDER}/{wheel_name(__version__)}"):
        assert (project / name).is_file(), name
    assert main(["build", "--project", str(project)]) == 0
    err = capsys.readouterr().err
    assert "content/dumps: warning: no dump files found: copy profile exports here" in err
    assert "README.md" not in err  # the note beside the dumps is not read as one
    home = (project / "_site/index.html").read_text()
    assert "<title>Our &#34;Lab&#34;: papers</title>" in home
    assert main(["check", "--project", str(project)]) == 0
    # with a dump copied in, nothing is left that --strict fails on
    (project / "content/dumps/ada.txt").write_bytes(SEED.read_bytes())
    assert main(["build", "--strict", "--project", str(project)]) == 0, capsys.readouterr().err
    assert main(["check", "--project", str(project)]) == 0


def test_new_overwrites_nothing(tmp_path: Path, capsys) -> None:
    project = write_files(tmp_path / "mine", {"notes.txt": "mine"})
    assert main(["new", str(project)]) == 1
    assert "is not empty; site-gen new starts a project in a new or empty folder" in \
        capsys.readouterr().err
    assert read_tree(project) == {"notes.txt": b"mine"}
    (tmp_path / "file").write_text("x")
    assert main(["new", str(tmp_path / "file")]) == 1
    empty_but_git = tmp_path / "repo"
    (empty_but_git / ".git").mkdir(parents=True)
    assert main(["new", str(empty_but_git)]) == 0  # a fresh clone is a fine place


def test_the_new_workflow_installs_the_wheel_the_project_carries(tmp_path) -> None:
    assert main(["new", str(tmp_path / "p")]) == 0
    text = (tmp_path / "p/.github/workflows/pages.yml").read_text()
    steps = yaml.safe_load(text)["jobs"]["build"]["steps"]
    install = next(s["run"] for s in steps if s.get("name") == "Install site-gen")
    assert install == INSTALL == f"python -m pip install {FOLDER}/site_gen-*.whl"
    assert [p.name for p in (tmp_path / "p" / FOLDER).glob("site_gen-*.whl")] == \
        [wheel_name(__version__)]  # the glob names exactly one file
    # the rest of the workflow is the one this repository deploys with, and docs show both
    ours = (REPO / ".github/workflows/pages.yml").read_text()
    assert _without_install(text) == _without_install(ours)
    assert f"run: {INSTALL}" in (REPO / "docs/deployment.md").read_text()


def test_both_workflows_keep_the_build_cache_keyed_by_site_gen_and_theme(tmp_path) -> None:
    assert main(["new", str(tmp_path / "p")]) == 0
    for workflow in (tmp_path / "p/.github/workflows/pages.yml", REPO / ".github/workflows/pages.yml"):
        steps = yaml.safe_load(workflow.read_text())["jobs"]["build"]["steps"]
        names = [s.get("name", s.get("uses", "")) for s in steps]
        cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
        # restored after site-gen is installed, before the build that uses it
        assert names.index("Install site-gen") < steps.index(cache) < \
            names.index("Build (warnings fail the build)")
        assert cache["with"]["path"] == CACHE_DIR
        key, restore = cache["with"]["key"], cache["with"]["restore-keys"]
        for keyed in (f"{FOLDER}/*.whl", "site_gen/**", "themes/**", "templates/**", "static/**"):
            assert f"'{keyed}'" in key, keyed
        assert key.endswith("-${{ github.run_id }}") and key.startswith(restore)


def _without_install(workflow: str) -> str:
    return re.sub(r"      - name: Install site-gen\n(        .*\n)+", "", workflow)


def test_pin_carries_the_running_site_gen_and_drops_other_versions(tmp_path, capsys) -> None:
    project = tmp_path / "p"
    assert main(["new", str(project)]) == 0
    carried = project / FOLDER / wheel_name(__version__)
    made = carried.read_bytes()
    old = project / FOLDER / "site_gen-0.0.9-py3-none-any.whl"
    old.write_bytes(b"an older release")
    carried.unlink()
    capsys.readouterr()
    assert main(["pin", "--project", str(project)]) == 0
    said = capsys.readouterr()
    assert said.out == (f"site-gen: the project carries site-gen {__version__}: "
                        f"{FOLDER}/{wheel_name(__version__)} (replacing {old.name}); commit it\n")
    assert said.err == ""
    assert carried.read_bytes() == made  # the same site-gen packs the same bytes
    assert sorted(p.name for p in (project / FOLDER).iterdir()) == ["README.md", carried.name]


def test_pin_says_when_no_workflow_installs_the_wheel_and_refuses_a_non_project(
        tmp_path, capsys) -> None:
    project = write_files(tmp_path / "old", {"content/site.yaml": "title: Old\n"})
    assert main(["pin", "--project", str(project)]) == 0
    err = capsys.readouterr().err
    assert "no workflow in .github/workflows installs it" in err and f"run: {INSTALL}" in err
    assert (project / FOLDER / wheel_name(__version__)).is_file()
    assert main(["pin", "--project", str(tmp_path / "nothing")]) == 1
    assert "has no content/ folder: not a site-gen project" in capsys.readouterr().err
    assert not (tmp_path / "nothing").exists()


URL = re.compile(r"""(?:git\+)?https?://[^\s"'<>)`\]]+""")
PLACEHOLDER_HOSTS = ("localhost", "127.0.0.1", "example.org", "example.github.io",
                     "user.github.io", "USER.github.io", "github.com/example/")


def test_no_url_that_this_project_does_not_publish(tmp_path) -> None:
    """site-gen publishes no repository, package page or site of its own yet: no file a user
    reads or runs may send them to one (a project made by ``new`` included)."""
    assert "urls" not in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert main(["new", str(tmp_path / "p")]) == 0
    ours = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "pyproject.toml",
            *(REPO / "docs").glob("*.md"), *(REPO / ".github").rglob("*.yml"),
            *(p for folder in ("site_gen", "themes", "scripts") for p in (REPO / folder).rglob("*")
              if p.suffix in (".py", ".html", ".js", ".css", ".sh", "") and p.is_file()),
            *(p for p in (tmp_path / "p").rglob("*") if p.is_file() and p.suffix != ".whl")]
    for path in ours:
        for url in URL.findall(path.read_text(errors="replace")):
            assert not url.startswith("git+"), (path, url)
            if not any(host in url for host in PLACEHOLDER_HOSTS):
                assert "site-gen" not in url and "site_gen" not in url, (path, url)
    for path in (p for p in (tmp_path / "p").rglob("*") if p.is_file() and p.suffix != ".whl"):
        for url in URL.findall(path.read_text()):
            assert any(host in url for host in PLACEHOLDER_HOSTS), (path, url)


def test_dumps_in_subfolders_are_read_and_only_txt_files(tmp_path: Path, capsys) -> None:
    project = tmp_path / "p"
    assert main(["new", str(project)]) == 0
    write_files(project, {"content/dumps/2024/ada.txt": SEED.read_bytes(),
                          "content/dumps/notes.md": "# not a dump\n",
                          "content/dumps/export.csv": "also, not, read\n",
                          "content/dumps/.hidden/old.txt": "never read\n"})
    assert main(["build", "--project", str(project)]) == 0
    err = capsys.readouterr().err
    assert err.splitlines() == [("content/dumps/export.csv: warning: not read: dumps are .txt "
                                 "files (rename it to export.txt if it is one) [not-a-dump]"),
                                ("content/urls.lock: created; commit it, so that every URL the "
                                "site published keeps answering (a renamed page leaves a "
                                "redirect behind)")]
    papers = json.loads((project / "_site/papers.json").read_text())["papers"]
    assert papers and all(s["path"] == "content/dumps/2024/ada.txt"
                          for p in papers for s in p["sources"]), papers[0]


def test_the_theming_recipe_works_as_written_on_every_page(tmp_path: Path) -> None:
    doc = (REPO / "docs/theming.md").read_text()
    files = {m.group(1): m.group(0).split("\n", 1)[1].rsplit("```", 1)[0]
             for m in re.finditer(r"```\w+\n(?:/\*|\{#) my-site/(\S+) (?:\*/|#\})\n.*?```", doc,
                                  re.DOTALL)}
    assert {"static/custom.css", "templates/base.html"} <= set(files)  # and the paper.html example
    project = write_files(tmp_path / "my-site", {**files, "content/dumps/ada.txt":
                                                 SEED.read_bytes()})
    assert main(["build", "-q", "--project", str(project)]) == 0
    pages = sorted((project / "_site").rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        assert re.search(r'<link rel="stylesheet" href="[./]*assets/custom\.css\?v=\w+">',
                         page.read_text()), page
    assert (project / "_site/assets/custom.css").read_text() == files["static/custom.css"]


def test_serve_open_opens_the_served_address_in_the_browser(tmp_path: Path) -> None:
    assert main(["new", str(tmp_path / "p")]) == 0
    opened = tmp_path / "opened.txt"
    browser = write_files(tmp_path, {"browser.sh": f'#!/bin/sh\necho "$1" > {opened}\n'})
    (browser / "browser.sh").chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(REPO), "BROWSER": str(tmp_path / "browser.sh")}
    process = subprocess.Popen([sys.executable, "-m", "site_gen", "serve", "--port", "0",
                                "--open"], cwd=tmp_path / "p", env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stderr is not None
    try:
        served = next(line for line in process.stderr if line.startswith("site-gen: serving "))
        deadline = time.monotonic() + 10
        while not opened.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
    assert opened.read_text().strip() == served.split()[2]


def test_new_refuses_a_title_with_a_control_character_and_writes_nothing(tmp_path, capsys) -> None:
    for title in ("\x1b[31mred", "two\nlines", "tab\there", "bell\x07"):
        assert main(["new", str(tmp_path / "p"), "--title", title]) == 1
        assert "the title holds the control character U+" in capsys.readouterr().err
        assert not (tmp_path / "p").exists()
    assert main(["new", str(tmp_path / "p"), "--title", "Lab 👩‍🔬 «Ünïcode» \"quoted\""]) == 0
    assert main(["build", "-q", "--project", str(tmp_path / "p")]) == 0
