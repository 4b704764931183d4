"""Taking site-gen home, end to end, as a user's CI and a user's shell run it.

Both layouts run the steps of their own Pages workflow, read from the YAML (never a copy of
its commands), in a fresh virtual environment where site-gen is not installed and only the
package index is reachable: a project made by ``site-gen new`` (content only, installing the
wheel it carries) and a copy of this repository (a fork, installing ``.``). The ``uses:``
steps are stood in for: checkout by the folder itself, setup-python by the environment,
configure-pages by a base URL, actions/cache by copying the folder it names between runs,
the artifact upload by checking the folder it names. README's "Using it on your own dumps"
block runs as pasted, in a copy of the checkout after README command 1.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml
from conftest import REPO, SEEDS, read_tree

from site_gen.cli import main

pytestmark = pytest.mark.slow

BASE_URL = "https://example.github.io/my-site"
"""What actions/configure-pages gives as ``base_url`` for a project site (no final slash)."""
STOOD_IN = {"actions/checkout", "actions/setup-python", "actions/configure-pages",
            "actions/cache", "actions/upload-pages-artifact"}


def fresh_environment(folder: Path) -> dict[str, str]:
    """A new virtual environment with nothing installed, first on PATH; no PYTHONPATH."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{folder / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(folder))
    where = subprocess.run(["python", "-c", "import site_gen"], env=env, cwd=folder,
                           capture_output=True, text=True, check=False)
    assert where.returncode != 0, "site-gen is importable in the fresh environment"
    return env


def run_workflow(project: Path, env: Mapping[str, str], cache: Path) -> list[str]:
    """Run the build job of ``project``'s Pages workflow; ``cache`` stands for actions/cache's
    store (restored before the build when it exists, saved after the job). Returns the
    names of the steps run."""
    steps = yaml.safe_load((project / ".github/workflows/pages.yml").read_text())["jobs"][
        "build"]["steps"]
    ran = []
    for step in steps:
        action = step.get("uses", "").split("@")[0]
        if action:
            assert action in STOOD_IN, f"no stand-in for {action}"
            if action == "actions/cache":
                saved = (project / step["with"]["path"], cache)
                if cache.exists():
                    shutil.copytree(cache, project / step["with"]["path"])
            if action == "actions/upload-pages-artifact":
                assert (project / step["with"]["path"] / "index.html").is_file()
            continue
        script = step["run"].replace("${{ steps.pages.outputs.base_url }}", BASE_URL)
        assert "${{" not in script, script
        done = subprocess.run(["bash", "-e", "-c", script], cwd=project, env=env,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{step.get('name')}: {done.stdout}\n{done.stderr}"
        ran.append(step.get("name", script))
    shutil.rmtree(cache, ignore_errors=True)
    shutil.copytree(*saved)  # the job passed: actions/cache saves its folder
    return ran


def assert_deploys_and_rebuilds(project: Path, tmp_path: Path) -> None:
    """Run the workflow twice as CI does: from nothing, then in a new checkout with one dump
    edited and the cache restored; the second site equals a clean build's."""
    cache = tmp_path / "actions-cache"
    again = tmp_path / "checkout-again"
    shutil.copytree(project, again)
    ran = run_workflow(project, fresh_environment(tmp_path / "venv-1"), cache)
    assert ran == ["Install site-gen", "Build (warnings fail the build)",
                   "Check links, assets, feeds and sitemap"]
    home = (project / "_site/index.html").read_text()
    assert f'<link rel="canonical" href="{BASE_URL}/">' in home
    assert (cache / "build.pickle").is_file()
    dump = min((again / "content/dumps").glob("*.txt"))
    edited = dump.read_text().replace("quickly becomes the dominant", "soon becomes the main", 1)
    assert edited != dump.read_text()  # an abstract edited: no URL moves
    dump.write_text(edited)
    clean = tmp_path / "clean"
    shutil.copytree(again, clean)
    assert main(["build", "-q", "--no-cache", "--project", str(clean), "--site-url",
                 BASE_URL + "/"]) == 0
    # the user built before committing: the lock names the edited paper's new abstract
    shutil.copy(clean / "content/urls.lock", again / "content/urls.lock")
    run_workflow(again, fresh_environment(tmp_path / "venv-2"), cache)
    assert read_tree(again / "_site") == read_tree(clean / "_site")
    assert b"soon becomes the main" in b"".join(read_tree(again / "_site").values())


def test_a_new_project_deploys_with_the_wheel_it_carries(tmp_path: Path) -> None:
    project = tmp_path / "my-site"
    assert main(["new", str(project), "--title", "Our Lab"]) == 0
    for seed in SEEDS.glob("*.txt"):
        shutil.copy(seed, project / "content/dumps" / seed.name)
    # and the demo's corrections: three of its records state no year, which --strict refuses
    shutil.copy(REPO / "content/curation.yaml", project / "content/curation.yaml")
    assert_deploys_and_rebuilds(project, tmp_path)


def test_a_fork_of_site_gen_deploys_with_its_checkout(tmp_path: Path) -> None:
    fork = checkout_copy(tmp_path / "site-gen")
    assert_deploys_and_rebuilds(fork, tmp_path)


def checkout_copy(folder: Path) -> Path:
    """The checkout's files as a clone has them (tracked, and new ones not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (REPO / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, folder / name)
    return folder


def readme_block(heading: str, index: int = 0) -> str:
    """The ``index``-th ``sh`` block under a README heading."""
    text = (REPO / "README.md").read_text()
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```sh\n")[index + 1].split("```", 1)[0]


def test_the_readme_own_dumps_block_works_as_pasted(tmp_path: Path) -> None:
    with socket.socket() as probe:  # the block previews on the default port
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", 8000))
    clone = checkout_copy(tmp_path / "clone")
    home = tmp_path / "home"
    (home / "Downloads").mkdir(parents=True)
    shutil.copy(min(SEEDS.glob("*.txt")), home / "Downloads" / "profile-export.txt")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["HOME"] = str(home)
    command_1 = readme_block("The two commands").splitlines()[1]
    assert command_1.startswith("python3 -m venv .venv")
    done = subprocess.run(["bash", "-e", "-c", command_1], cwd=clone, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    block = readme_block("Using it on your own dumps")
    assert "site-gen serve" in block
    shell = subprocess.Popen(["bash", "-e", "-c", block], cwd=clone, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        assert shell.stderr is not None
        deadline = time.monotonic() + 60
        line = ""
        while "serving" not in line and time.monotonic() < deadline:
            line = shell.stderr.readline()
            assert line or shell.poll() is None, "the block ended before serving"
        with urllib.request.urlopen("http://127.0.0.1:8000/", timeout=10) as response:
            page = response.read().decode()
        assert "<title>Our Lab</title>" in page
    finally:
        os.killpg(shell.pid, signal.SIGINT)
        shell.communicate(timeout=30)
    site = tmp_path / "my-site"
    assert (site / ".site-gen").is_dir() and (site / "_site/papers/index.html").is_file()
    assert [p.name for p in (site / "content/dumps").glob("*.txt")] == ["profile-export.txt"]
