"""``site-gen new DIR``: a ready project that builds, passes ``site-gen check`` and deploys.

Not a pipeline stage: it only writes the files a user then edits (docs/usage.md, "Starting a
project"). The Pages workflow it writes installs site-gen from its source repository at the
tag of the version that made the project, so a repository holding only ``content/`` deploys.
"""

from __future__ import annotations

from pathlib import Path

from site_gen import SOURCE_URL, __version__

INSTALL = f'python -m pip install "site-gen @ git+{SOURCE_URL}@v{__version__}"'
"""How a content-only repository installs the site-gen that made it (docs/deployment.md)."""

SITE_YAML = """\
# Site settings; every key is optional. All of them: docs/configuration.md in site-gen's
# documentation ({source}/blob/main/docs/configuration.md).
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
documentation ({source}/blob/main/docs/dump-formats.md).

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
This site lists the publications of our group, built with
[site-gen]({source}) from plain-text exports of our scholarly profiles.

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
        # The version this project was made with, from site-gen's source repository.
        run: {install}
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


def project_files(title: str) -> dict[str, str]:
    """The new project's files by path relative to its folder."""
    quoted = '"' + title.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return {
        "content/site.yaml": SITE_YAML.format(title=quoted, source=SOURCE_URL),
        "content/dumps/README.md": DUMPS_NOTE.format(source=SOURCE_URL),
        "content/curation.yaml": CURATION_YAML.format(),
        "content/pages/about.md": ABOUT_MD.format(source=SOURCE_URL),
        ".gitignore": GITIGNORE,
        ".github/workflows/pages.yml": WORKFLOW.format(install=INSTALL),
    }


def new_project(folder: Path, title: str) -> tuple[list[str], str]:
    """Write a new project into ``folder`` (made if missing): (files written, "") or ([], why
    not). An existing folder must be empty but for dotfiles such as ``.git``, so nothing a
    user wrote is overwritten."""
    if folder.exists() and not folder.is_dir():
        return [], f"{folder} exists and is not a folder"
    if folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir()):
        return [], f"{folder} is not empty; site-gen new starts a project in a new or empty folder"
    files = project_files(title)
    taken = [name for name in files if (folder / name).exists()]
    if taken:
        return [], f"{folder / taken[0]} exists; site-gen new overwrites nothing"
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files), ""
