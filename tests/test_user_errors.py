"""Every file a user writes, broken in many ways, fed to build, serve and check.

The promise (docs/development.md, "Rules of the house"): bad input gives ``path:line: message``
and a non-zero exit, never a traceback, and the last good site stays as it was.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, abstract, listing_dump, read_tree, write_files

from site_gen.cli import main

TITLE = "Scheduling Rollouts for Fast Training"
GOOD = {
    "content/site.yaml": "title: Lab\nsite_url: https://example.org/\n",
    "content/dumps/ada.txt": listing_dump("Ada Lovelace", [
        (2024, TITLE, abstract("rollouts"), ["cs.LG"]),
        (2023, "Serving Models Across Many Machines", abstract("serving"), ["cs.DC"])]),
    "content/curation.yaml": "papers: []\n",
    "content/pages/about.md": "---\ntitle: About\n---\nHello.\n",
}
PAGE_TEMPLATE = "{% extends 'base.html' %}{% block content %}\n"

# (name, files written over the good project, build's exit code, what stderr must hold)
CASES: list[tuple[str, dict[str, str | bytes], int, str]] = [
    ("dump not UTF-8", {"content/dumps/ada.txt": b"Ada Lovelace\n\n\xff broken\n"}, 1,
     "content/dumps/ada.txt:3: "),
    ("dump empty", {"content/dumps/ada.txt": ""}, 1, "content/dumps/ada.txt:1: empty dump"),
    ("dump binary", {"content/dumps/ada.txt": b"\x00\x01\x02\x89PNG"}, 1,
     "content/dumps/ada.txt:1: "),
    ("dump text after subjects", {"content/dumps/ada.txt": GOOD["content/dumps/ada.txt"]
                                  + "stray words here\n"}, 1, "content/dumps/ada.txt:"),
    ("site.yaml not UTF-8", {"content/site.yaml": b"title: Lab\nfooter: caf\xe9\n"}, 1,
     "content/site.yaml:2: not UTF-8 text"),
    ("site.yaml bad YAML", {"content/site.yaml": "title: [Lab\n"}, 1,
     "content/site.yaml:2: invalid YAML"),
    ("site.yaml a list", {"content/site.yaml": "- title\n"}, 1,
     "content/site.yaml:1: site.yaml must be a mapping"),
    ("site.yaml negative count", {"content/site.yaml": "title: Lab\nrecent_papers: -3\n"}, 1,
     "content/site.yaml:2: recent_papers must be a whole number, 0 or more, not -3"),
    ("site.yaml wrong type", {"content/site.yaml": "title: 3\n"}, 1,
     "content/site.yaml:1: title must be text"),
    ("site.yaml control character", {"content/site.yaml": 'title: "Lab\\x01"\n'}, 1,
     "content/site.yaml:1: title must be text without control characters, not 'Lab\\x01'"),
    ("site.yaml misspelt key", {"content/site.yaml": "title: Lab\nlangauge: en\n"}, 0,
     "content/site.yaml:2: warning: unknown setting 'langauge' ignored (did you mean 'language'?)"),
    ("site.yaml unknown theme", {"content/site.yaml": "title: Lab\ntheme: fancy\n"}, 1,
     "content/site.yaml:2: theme 'fancy' not found: no folder fancy/templates/"),
    ("site.yaml bad URL", {"content/site.yaml": "site_url: ftp://example.org/\n"}, 1,
     "content/site.yaml:1: site_url must be an absolute http(s) URL"),
    ("curation not UTF-8", {"content/curation.yaml": b"papers:\n  - match: {title: \xff}\n"}, 1,
     "content/curation.yaml:2: not UTF-8 text"),
    ("curation misspelt key", {"content/curation.yaml":
                               f"papers:\n  - match: {{title: {TITLE}}}\n    yaer: 2020\n"}, 1,
     "content/curation.yaml:3: unknown key 'yaer' (did you mean 'year'?)"),
    ("curation misspelt list", {"content/curation.yaml": "paper: []\n"}, 1,
     "content/curation.yaml:1: unknown key 'paper' (did you mean 'papers'?)"),
    ("curation entry not a mapping", {"content/curation.yaml": "papers:\n  - just text\n"}, 1,
     "content/curation.yaml:2: each entry must be a mapping"),
    ("curation year not a number", {"content/curation.yaml":
                                    f"papers:\n  - match: {{title: {TITLE}}}\n    year: soon\n"},
     1, "content/curation.yaml:3: 'year' must be a whole number"),
    ("curation unknown subject", {"content/curation.yaml":
                                  f"papers:\n  - match: {{title: {TITLE}}}\n"
                                  "    subjects: [cs.XX]\n"}, 0,
     "content/curation.yaml:2: warning: unknown arXiv subject 'cs.XX'"),
    ("curation link with a control character", {"content/curation.yaml":
                                                f"papers:\n  - match: {{title: {TITLE}}}\n"
                                                '    links: {code: "https://x.org/a\\0b"}\n'},
     1, "content/curation.yaml:3: link 'code' holds a control character (a YAML escape?)"),
    ("page not UTF-8", {"content/pages/about.md": b"---\ntitle: A\n---\n\xff\n"}, 1,
     "content/pages/about.md:4: not UTF-8 text"),
    ("page bad front matter", {"content/pages/about.md": "---\ntitle: [\n---\nx\n"}, 1,
     "content/pages/about.md:3: invalid YAML"),
    ("page reserved slug", {"content/pages/papers.md": "hi\n"}, 1,
     "content/pages/papers.md:1: page slug 'papers'"),
    ("page misspelt key", {"content/pages/about.md": "---\ntitle: About\nordr: 2\n---\nx\n"}, 0,
     ("content/pages/about.md:3: warning: unknown front matter key 'ordr' ignored "
      "(did you mean 'order'?)")),
    ("page wrong type", {"content/pages/about.md": "---\ntitle: About\norder: first\n---\nx\n"},
     1, "content/pages/about.md:3: order must be a whole number"),
    ("template include missing", {"templates/page.html": PAGE_TEMPLATE
                                  + "{% include 'partials/nothere.html' %}{% endblock %}\n"}, 1,
     ("templates/page.html:2: template error on about/: template 'partials/nothere.html' not "
      "found")),
    ("template extends missing", {"templates/page.html": "{% extends 'nope.html' %}\n"}, 1,
     "templates/page.html:1: template error on about/: template 'nope.html' not found"),
    ("template runtime error", {"templates/page.html": PAGE_TEMPLATE
                                + "{{ 1/0 }}{% endblock %}\n"}, 1,
     "templates/page.html:2: template error on about/: division by zero (ZeroDivisionError)"),
    ("template undefined name", {"templates/page.html": PAGE_TEMPLATE
                                 + "{{ nothing.here }}{% endblock %}\n"}, 1,
     "templates/page.html:2: template error on about/: 'nothing' is undefined"),
    ("template syntax error", {"templates/page.html": PAGE_TEMPLATE + "{{ 1 }\n"}, 1,
     "templates/page.html:2: template error"),
    ("template not UTF-8", {"templates/page.html": b"{% block content %}\xff{% endblock %}"}, 1,
     "templates/page.html: not UTF-8 text"),
    ("static shadows nothing it may not", {"static/site.css": b"\xff\xfe not even CSS"}, 0, ""),
    ("static page with a broken link", {"static/x.html":
                                        "<!doctype html>\n<a href='nowhere.html'>x</a>\n"}, 0, ""),
]


def _no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text and "Error:" not in text.replace("error:", ""), text


@pytest.fixture
def broken(tmp_path: Path, request: pytest.FixtureRequest) -> tuple[Path, dict[str, bytes]]:
    """A project built once while good, then broken by the case's files."""
    _, files, _, _ = request.param
    project = write_files(tmp_path / "project", GOOD)
    assert main(["build", "-q", "--project", str(project)]) == 0
    before = read_tree(project / "_site")
    write_files(project, files)
    return project, before


@pytest.mark.parametrize("broken, case", [(c, c) for c in CASES], ids=[c[0] for c in CASES],
                         indirect=["broken"])
def test_broken_input_is_a_message_at_its_line(broken, case, capsys) -> None:
    project, before = broken
    name, _, code, expected = case
    assert main(["build", "--project", str(project)]) == code
    out, err = capsys.readouterr()
    _no_traceback(out, err)
    assert expected in err, err
    if code:
        assert read_tree(project / "_site") == before  # the last good site, untouched
        assert err.rstrip().endswith(f"{project / '_site'} was left as it was")
    checked = main(["check", "--project", str(project)])
    out, err = capsys.readouterr()
    _no_traceback(out, err)
    if name == "static page with a broken link":
        assert checked == 1 and "assets/x.html:2: broken link 'nowhere.html'" in err
    else:
        assert checked == 0, err
    _serve_says(project, expected)


def _serve_says(project: Path, expected: str) -> None:
    """``site-gen serve`` prints the same message before it starts serving, and stops cleanly."""
    process = subprocess.Popen(
        [sys.executable, "-m", "site_gen", "serve", "--port", "0", "--project", str(project)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    assert process.stderr is not None
    said = []
    try:
        for line in process.stderr:
            said.append(line)
            if line.startswith("site-gen: serving "):
                break
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    text = "".join(said) + err
    _no_traceback(out, text)
    assert expected in text and process.returncode == 0, text


def test_command_line_mistakes_are_usage_errors(tmp_path: Path, capsys) -> None:
    for argv in (["serve", "--port", "99999"], ["serve", "--port", "http"],
                 ["build", "--jobs", "many"], ["build", "--jobs", "0"]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and "Traceback" not in err
        assert "is not a port" in err or "whole number" in err or "at least 1" in err, err


def test_a_run_inside_content_points_at_the_project_folder(tmp_path: Path, capsys) -> None:
    project = write_files(tmp_path / "project", GOOD)
    assert main(["build", "--project", str(project / "content")]) == 1
    err = capsys.readouterr().err
    assert f"looks like the content folder itself; run site-gen from the project folder " \
           f"above it (cd {project})" in err
    assert f"nothing was written to {project / 'content' / '_site'}" in err


def test_a_strict_failure_says_warnings_were_made_errors(tmp_path: Path, capsys) -> None:
    project = write_files(tmp_path / "project", {**GOOD, "content/site.yaml": "langauge: en\n"})
    assert main(["build", "--strict", "--project", str(project)]) == 1
    err = capsys.readouterr().err
    assert "build failed (--strict makes warnings errors); nothing was written to" in err


def test_no_site_yaml_is_one_warning_about_the_file_and_none_with_site_url(tmp_path, capsys
                                                                             ) -> None:
    project = write_files(tmp_path / "project", {
        name: text for name, text in GOOD.items() if name != "content/site.yaml"})
    assert main(["build", "--project", str(project)]) == 0
    assert "content/site.yaml: warning: no site.yaml; using default settings (site_url " \
           "http://localhost:8000/); site-gen new writes a commented one [no-settings]" in \
           capsys.readouterr().err
    assert main(["build", "--strict", "--project", str(project),
                 "--site-url", "https://example.org/lab/"]) == 0
    assert capsys.readouterr().err == ""


def test_a_taken_port_suggests_port_zero(tmp_path) -> None:
    project = write_files(tmp_path / "project", GOOD)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "site_gen", "serve", "--port", str(port),
                              "--project", str(project)], capture_output=True, text=True,
                             timeout=60, check=False, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "choose another --port, or --port 0 for any free one" in run.stderr
