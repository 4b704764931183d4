"""FileCache: dumps read by worker processes are the dumps read in this process, in the
same order, and a rebuild still reads again only what changed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import REPO, abstract, coauthor_dump, listing_dump, read_tree, write_files

from site_gen.incremental import cache, store
from site_gen.incremental.builder import Builder
from site_gen.incremental.cache import FileCache
from site_gen.pipeline import parse_dump

DUMPS = {
    **{f"content/dumps/{n:03d}_listing.txt": listing_dump(
        f"Author {chr(65 + n)}", [(2020 + n % 5, f"Paper {n} on Sparse Attention Kernels",
                                    abstract(f"topic {n}"), ["cs.LG"])]) for n in range(12)},
    "content/dumps/050_coauthor.txt": coauthor_dump("Bo Wu", [("Bo Wu, Ann Lee",
                                                               abstract("topic 3"))]),
    "content/dumps/060_broken.txt": b"\xff\xfe\x00garbage that is not a dump\n",
    "content/dumps/070_empty.txt": "",
}


@pytest.fixture
def in_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Send any amount of dumps to worker processes (a real site needs megabytes)."""
    monkeypatch.setattr(cache, "PARALLEL_BYTES", 1)


def files_of(project: Path) -> list[tuple[str, Path]]:
    folder = project / "content/dumps"
    return [(f"content/dumps/{p.name}", p) for p in sorted(folder.iterdir())]


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="worker processes are forked")
def test_dumps_parsed_in_workers_equal_dumps_parsed_here(tmp_path: Path, in_workers) -> None:
    project = write_files(tmp_path / "p", DUMPS)
    here, _ = FileCache(parse_dump, processes=1).load(files_of(project))
    there, parsed = FileCache(parse_dump, processes=3).load(files_of(project))
    assert list(there) == list(here) == [shown for shown, _ in files_of(project)]
    assert parsed == list(here)
    for shown in here:
        assert there[shown].value == here[shown].value, shown
        assert there[shown].digest == here[shown].digest
        assert there[shown].stat == here[shown].stat
    broken = there["content/dumps/060_broken.txt"].value
    assert broken[0] is None and broken[1], "a broken dump's diagnostics come back too"


def test_a_site_built_with_workers_reading_dumps_is_the_same(make_project, tmp_path: Path,
                                                             in_workers) -> None:
    readable = {k: v for k, v in DUMPS.items() if "broken" not in k and "empty" not in k}
    project = make_project(readable)
    serial = Builder(project, tmp_path / "serial", jobs=1).build()
    parallel = Builder(project, tmp_path / "parallel", jobs=2).build()
    assert serial.ok and parallel.ok
    assert [str(d) for d in parallel.diagnostics] == [str(d) for d in serial.diagnostics]
    assert read_tree(tmp_path / "parallel") == read_tree(tmp_path / "serial")


def test_touched_files_are_not_parsed_again_and_an_edit_is(tmp_path: Path, in_workers) -> None:
    project = write_files(tmp_path / "p", DUMPS)
    files = files_of(project)
    dumps = FileCache(parse_dump, processes=2)
    first, _ = dumps.load(files)
    for _, path in files:  # the same bytes again, with a new mtime (say, a git checkout)
        path.write_bytes(path.read_bytes())
        os.utime(path, ns=(1, 1))
    touched, parsed = dumps.load(files, hinted={os.path.abspath(p) for _, p in files})
    assert parsed == []
    assert all(touched[shown].value is first[shown].value for shown in first)
    edited = project / "content/dumps/003_listing.txt"
    edited.write_text(edited.read_text(encoding="utf-8").replace("Paper 3", "Paper Three"),
                      encoding="utf-8")
    (project / "content/dumps/070_empty.txt").unlink()
    again, parsed = dumps.load(files, hinted={str(edited)})
    assert parsed == ["content/dumps/003_listing.txt"]
    assert "content/dumps/070_empty.txt" not in again
    assert list(again) == [shown for shown, _ in files if "empty" not in shown]
    assert "Paper Three" in str(again["content/dumps/003_listing.txt"].value[0])


@pytest.mark.parametrize("workers", [1, 2])
def test_stored_parses_are_taken_back_and_only_changed_dumps_are_parsed(
        tmp_path: Path, in_workers, workers: int) -> None:
    """A new FileCache given the same store (a new ``site-gen build``) parses only the dumps
    whose bytes it has no parse of, takes the others' back equal, and keeps one parse a dump."""
    project = write_files(tmp_path / "p", DUMPS)
    files = files_of(project)
    stored = store.ParsedFiles(tmp_path / "cache")
    first, parsed = FileCache(parse_dump, workers, stored).load(files)
    assert parsed == list(first)
    assert len(os.listdir(stored.folder)) == len(files)
    edited = project / "content/dumps/003_listing.txt"
    edited.write_text(edited.read_text(encoding="utf-8").replace("Paper 3", "Paper Three"),
                      encoding="utf-8")
    again, parsed = FileCache(parse_dump, workers, stored).load(files)
    assert parsed == ["content/dumps/003_listing.txt"]
    assert {s: e.value for s, e in again.items()} == {
        s: e.value for s, e in FileCache(parse_dump).load(files)[0].items()}
    assert sorted(os.listdir(stored.folder)) == sorted(  # the parse of the old bytes is gone
        stored.name(shown, entry.digest) for shown, entry in again.items())


@pytest.mark.parametrize("damage", [
    lambda d: d[:len(d) // 2], lambda d: b"", lambda d: d[:-1] + bytes([d[-1] ^ 1]),
    lambda d: d[:len(store.PARSED_FORMAT)] + store.hashlib.blake2b(
        b"\x80\x04garbage", digest_size=store.DIGEST_SIZE).digest() + b"\x80\x04garbage"])
def test_a_damaged_stored_parse_is_parsed_again(tmp_path: Path, damage) -> None:
    """A stored parse cut short, changed, or whole but not a pickle is no parse: the dump is
    parsed again (no error), and its parse stored again."""
    project = write_files(tmp_path / "p", DUMPS)
    files = files_of(project)
    stored = store.ParsedFiles(tmp_path / "cache")
    first, _ = FileCache(parse_dump, 1, stored).load(files)
    shown = "content/dumps/050_coauthor.txt"
    kept = stored.folder / stored.name(shown, first[shown].digest)
    kept.write_bytes(damage(kept.read_bytes()))
    again, parsed = FileCache(parse_dump, 1, stored).load(files)
    assert again[shown].value == first[shown].value
    assert parsed == [shown]
    assert FileCache(parse_dump, 1, stored).load(files)[1] == []  # stored whole again


def _built_with_cache(project: Path) -> dict[str, bytes]:
    """A new Builder's build of every page of ``project`` with its cache folder (a new
    ``site-gen build`` into an empty output); the site."""
    shutil.rmtree(project / "_site", ignore_errors=True)
    (project / store.CACHE_DIR / store.STORE_FILE).unlink(missing_ok=True)
    result = Builder(project, cache=project / store.CACHE_DIR).build()
    assert result.ok, [str(d) for d in result.diagnostics]
    return read_tree(project / "_site")


def test_templates_compiled_by_a_build_are_loaded_by_the_next(tmp_path: Path,
                                                              monkeypatch) -> None:
    """A build with a cache folder stores its templates compiled; the next loads them
    instead of compiling them, and gives the same site. A template edited, a file damaged,
    or another code's file is compiled (or deleted) instead, and the edit shows."""
    dumps = {name: text for name, text in DUMPS.items() if "listing" in name}
    project = write_files(tmp_path / "p", {"content/site.yaml": "title: T\nsite_url: https://e.org/\n",
                                           **dumps})
    from site_gen.render.engine import TrackingEnvironment

    compiled: list[str] = []  # each template Jinja2 compiles from its source
    real = TrackingEnvironment.compile

    def compile_noted(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(name)
        return real(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(TrackingEnvironment, "compile", compile_noted)
    first = _built_with_cache(project)
    folder = project / store.CACHE_DIR / store.TEMPLATES_DIR
    assert compiled and len(os.listdir(folder)) == len(compiled)
    compiled.clear()
    assert _built_with_cache(project) == first
    assert compiled == []
    files = sorted(folder.iterdir())
    files[0].write_bytes(files[0].read_bytes()[:40])  # damaged: compiled again, stored again
    (folder / "__jinja2_0123_other-code.cache").write_bytes(b"site-gen of another version")
    assert _built_with_cache(project) == first
    assert len(compiled) == 1 and "__jinja2_0123_other-code.cache" not in os.listdir(folder)
    theme = project / "templates" / "base.html"  # the project overrides the theme's base
    theme.parent.mkdir()
    base = REPO / "themes/default/templates/base.html"
    theme.write_text(base.read_text(encoding="utf-8").replace("</body>", "<!-- mine --></body>"),
                     encoding="utf-8")
    compiled.clear()
    edited = _built_with_cache(project)
    assert "base.html" in compiled and b"<!-- mine -->" in edited["index.html"]
