"""``site-gen new DIR`` and ``site-gen pin``: a ready project that builds, passes
``site-gen check`` and deploys, carrying the site-gen that builds it.

Not a pipeline stage: it only writes the files a user then edits (docs/usage.md, "Starting a
project"). The project carries the running site-gen as a wheel in ``.site-gen/`` (carry.py),
and the Pages workflow it writes installs that wheel, so a repository holding only
``content/`` deploys with exactly the version that made it; ``pin`` replaces the wheel with
the running version's.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from site_gen.carry import FOLDER, PACKAGE, Wheel, running_wheel

INSTALL = f"python -m pip install {FOLDER}/{PACKAGE}-*.whl"
"""How a content-only repository installs the site-gen it carries (docs/deployment.md): the
one wheel in its ``.site-gen/`` folder, with the dependencies from the package index."""

SITE_YAML = """\
# Site settings; every key is optional. All of them: docs/configuration.md in site-gen's
# documentation.
title: {title}
description: Publications of our group, built from scholarly profile exports.
# Where the site will live. The Pages workflow passes the real address with --site-url, so
# this matters for local builds and other hosts. A project site: https://USER.github.io/REPO/
site_url: http://localhost:8000/
language: en
# How many papers the home page lists.
recent_papers: 10
# footer: "© 2026 Our group"
# cname: pubs.example.org        # a custom domain (written as CNAME)
"""

DUMPS_NOTE = """\
# Author dumps go here

Copy each profile export (one plain-text file per person, as the profile site exports it)
into this folder as a `.txt` file, in subfolders if you like (`2024/ada.txt`). Only `.txt`
files are read; this note is not. The formats: docs/dump-formats.md in site-gen's
documentation.

Do not edit the exports: corrections go in `../curation.yaml`, so the next export can simply
replace the file.
"""

CURATION_YAML = """\
# Corrections applied on top of the dumps at every build: docs/curation.md in site-gen's
# documentation. When a build warns, its message names the entry that settles it; paste it
# here. Examples (remove the leading "# " to use one):
papers: []
#  - match: {{title: "The exact current title"}}   # or {{abstract: "the opening words"}},
#    year: 2025                                  #    {{id: page-slug}}, {{source: "ada.txt:27"}}
#    subjects: [cs.LG]
#    links: {{code: "https://github.com/example/code"}}
#  - match: {{title: "A paper to leave off the site"}}
#    hide: true
authors: []
#  - name: Ada Lovelace               # any spelling the dumps use
#    affiliation: Example University
#    homepage: https://example.org/~ada
#    variants: ["A. Lovelace"]        # other spellings of the same person
"""

ABOUT_MD = """\
---
title: About
order: 1
---
This site lists the publications of our group, built with site-gen from plain-text exports
of our scholarly profiles.

Each paper's page names the profile records it was merged from. To correct a title, a year or
a link, edit `content/curation.yaml` and rebuild.
"""

GITIGNORE = """\
/_site/
/._site.*
/.site-gen-cache/
"""

WORKFLOW = """\
# Build the site with site-gen and deploy it to GitHub Pages (docs/deployment.md).
# Repository settings: Pages -> Build and deployment -> Source: "GitHub Actions".
name: Deploy to GitHub Pages

on:
  push:
    branches: [main]
  workflow_dispatch:

# The deploy job publishes with an OIDC token; nothing else may write.
permissions:
  contents: read
  pages: write
  id-token: write

# One deployment at a time; let a running one finish rather than cancel it halfway.
concurrency:
  group: pages
  cancel-in-progress: false

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Configure Pages
        id: pages
        uses: actions/configure-pages@v5
      - name: Install site-gen
        # The site-gen this project carries in .site-gen/ (`site-gen pin` replaces it).
        run: {install}
      - name: Keep the build cache between runs
        # The next run renders only what changed; another site-gen or theme starts afresh.
        uses: actions/cache@v4
        with:
          path: .site-gen-cache
          key: site-gen-${{{{ hashFiles({keyed}) }}}}-${{{{ github.run_id }}}}
          restore-keys: site-gen-${{{{ hashFiles({keyed}) }}}}-
      - name: Build (warnings fail the build)
        run: site-gen build --strict --site-url "${{{{ steps.pages.outputs.base_url }}}}/"
      - name: Check links, assets, feeds and sitemap
        run: site-gen check --site-url "${{{{ steps.pages.outputs.base_url }}}}/"
      - uses: actions/upload-pages-artifact@v3
        with:
          path: _site

  deploy:
    needs: build
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - name: Deploy
        id: deployment
        uses: actions/deploy-pages@v4
"""


CACHE_KEYED = ("'.site-gen/*.whl', 'pyproject.toml', 'site_gen/**', 'themes/**', "
               "'templates/**', 'static/**'")
"""What the workflow's cache key hashes: the carried wheel (a content-only repository) or
site-gen's source (its own repository), and the project's theme files."""

CARRIED_NOTE = """\
# The site-gen this site is built with

The wheel in this folder is the site-gen release this project deploys with: the Pages
workflow (`.github/workflows/pages.yml`) installs it, with its dependencies from the Python
package index. Commit it. To move the project to the site-gen you are running, run
`site-gen pin` in the project folder: it replaces the wheel here with that version's.
"""


def project_files(title: str, wheel: Wheel) -> dict[str, str | bytes]:
    """The new project's files by path relative to its folder."""
    quoted = '"' + title.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return {
        "content/site.yaml": SITE_YAML.format(title=quoted),
        "content/dumps/README.md": DUMPS_NOTE,
        "content/curation.yaml": CURATION_YAML.format(),
        "content/pages/about.md": ABOUT_MD,
        ".gitignore": GITIGNORE,
        ".github/workflows/pages.yml": WORKFLOW.format(install=INSTALL, keyed=CACHE_KEYED),
        f"{FOLDER}/README.md": CARRIED_NOTE,
        f"{FOLDER}/{wheel.name}": wheel.data,
    }


def new_project(folder: Path, title: str) -> tuple[list[str], str]:
    """Write a new project into ``folder`` (made if missing): (files written, "") or ([], why
    not). An existing folder must be empty but for dotfiles such as ``.git``, so nothing a
    user wrote is overwritten. The running site-gen is packed first: a project that could
    not carry it is not written at all."""
    control = next((c for c in title if unicodedata.category(c) in ("Cc", "Cs")), None)
    if control is not None:
        return [], (f"the title holds the control character U+{ord(control):04X}; give a title "
                    "of printable text")
    if folder.exists() and not folder.is_dir():
        return [], f"{folder} exists and is not a folder"
    if folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir()):
        return [], f"{folder} is not empty; site-gen new starts a project in a new or empty folder"
    files = project_files(title, running_wheel())
    taken = [name for name in files if (folder / name).exists()]
    if taken:
        return [], f"{folder / taken[0]} exists; site-gen new overwrites nothing"
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return list(files), ""


def pin_project(folder: Path) -> tuple[str, list[str]]:
    """Make the project carry the running site-gen: write its wheel into ``.site-gen/`` and
    delete the other site-gen wheels there. Returns (the wheel's path, the wheels deleted)."""
    wheel = running_wheel()
    carried = folder / FOLDER
    carried.mkdir(parents=True, exist_ok=True)
    target = carried / wheel.name
    side = carried / f".{wheel.name}.part"
    side.write_bytes(wheel.data)
    side.replace(target)
    old = sorted(p for p in carried.glob(f"{PACKAGE}-*.whl") if p.name != wheel.name)
    for path in old:
        path.unlink()
    if not (carried / "README.md").exists():
        (carried / "README.md").write_text(CARRIED_NOTE, encoding="utf-8")
    return f"{FOLDER}/{wheel.name}", [p.name for p in old]


def workflows_installing(folder: Path) -> list[str]:
    """The project's GitHub workflows that install the carried wheel (``INSTALL``)."""
    found = folder / ".github" / "workflows"
    return sorted(p.name for p in found.glob("*.y*ml") if INSTALL in p.read_text(errors="replace")) \
        if found.is_dir() else []
