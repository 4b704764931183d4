"""Incremental equals clean, as a property: random sequences of edits, additions, deletions and
renames of dumps, records appended to or taken from a dump, count lines changed, curation
title fixes and page edits, each followed by an incremental build, end byte-identical to a
clean build. An incremental build is a Builder kept alive (watch mode), or a new one that takes
back what the last build stored in ``.site-gen-cache/`` (``site-gen build`` run again); the
latter also after every kind of edit ``test_incremental.STEPS`` makes, and with its store
damaged.

CI runs a few sequences; ``SITE_GEN_FUZZ=long`` runs many (docs/security.md).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import abstract, build, coauthor_dump, listing_dump, read_tree, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental import ANN, STEPS

from site_gen.cli import main
from site_gen.incremental import store
from site_gen.incremental.builder import Builder
from site_gen.incremental.fragments import FragmentMemo
from site_gen.pipeline import BuildResult
from site_gen.write import tree as tree_module
from site_gen.write.tree import spare_untouched, staging_paths

LONG = os.environ.get("SITE_GEN_FUZZ") == "long"
OWNERS = ["Ann Lee", "Bo Wu", "José Núñez", "王小明", "Li Na (李娜)", "Li Na", "Wei Wang 0001"]
POOL = [(2018 + i % 8, f"Paper {i} On {w} Systems", abstract(f"{w} number {i}"), [s])
        for i, (w, s) in enumerate(zip(["rollout", "cache", "graph", "kernel", "agent", "token",
                                        "shard", "lattice", "speech", "policy"],
                                       ["cs.LG", "cs.DC", "cs.CL", "stat.ML", "cs.AI"] * 2))]

operation = st.one_of(
    st.tuples(st.just("listing"), st.integers(0, 5), st.sampled_from(OWNERS),
              st.sets(st.integers(0, len(POOL) - 1), min_size=1, max_size=5)),
    st.tuples(st.just("coauthor"), st.integers(0, 5), st.sampled_from(OWNERS),
              st.sets(st.integers(0, len(POOL) - 1), min_size=1, max_size=3)),
    st.tuples(st.just("edit"), st.integers(0, 5)),
    st.tuples(st.just("retitle"), st.integers(0, 5)),
    st.tuples(st.just("delete"), st.integers(0, 5)),
    st.tuples(st.just("rename"), st.integers(0, 5), st.integers(0, 5)),
    st.tuples(st.just("append"), st.integers(0, 5), st.integers(0, len(POOL) - 1)),
    st.tuples(st.just("drop"), st.integers(0, 5)),
    st.tuples(st.just("claim"), st.integers(0, 5)),
    st.tuples(st.just("curation"), st.integers(0, len(POOL) - 1), st.booleans()),
    st.tuples(st.just("page"), st.integers(0, 2)),
)
COUNT = re.compile(r"^(At least )?(\d+) records?", re.MULTILINE)


def apply(dumps: Path, op: tuple) -> None:
    """Apply one operation to the dumps folder (or, for ``curation`` and ``page``, to the
    content folder beside it); operations on missing files do nothing."""
    kind, slot = op[0], dumps / f"{op[1]}.txt"
    if kind in ("append", "drop", "claim"):
        recount(slot, kind, op)
    elif kind == "curation":  # a title fix (a new slug), or the entry taken out
        _, title, abstract_text, _ = POOL[op[1]]
        entry = (f'  - match: {{abstract: "{abstract_text[:40]}"}}\n    title: "{title} Fixed"\n'
                 if op[2] else "")
        (dumps.parent / "curation.yaml").write_text("papers:\n" + entry if entry
                                                    else "papers: []\n", encoding="utf-8")
    elif kind == "page":  # a Markdown page edited (it is in the navigation)
        (dumps.parent / "pages").mkdir(exist_ok=True)
        (dumps.parent / "pages" / "about.md").write_text(
            f"---\ntitle: About\n---\nVersion {op[1]} of this page.\n", encoding="utf-8")
    if kind == "listing":
        slot.write_text(listing_dump(op[2], [POOL[i] for i in sorted(op[3])]), encoding="utf-8")
    elif kind == "coauthor":
        entries = [(f"{OWNERS[(i + 1) % 7]}, {OWNERS[(i + 2) % 7]} et al.", POOL[i][2].upper())
                   for i in sorted(op[3])]
        slot.write_text(coauthor_dump(op[2], entries), encoding="utf-8")
    elif kind == "edit" and slot.exists():
        text = slot.read_text(encoding="utf-8")
        slot.write_text(text.replace("We study", "We examine", 1) if "We study" in text
                        else text.replace("We examine", "We study", 1), encoding="utf-8")
    elif kind == "retitle" and slot.exists():  # a paper's id, hence its authors' lists, change
        text = slot.read_text(encoding="utf-8")
        slot.write_text(text.replace(" On ", " About ", 1) if " On " in text
                        else text.replace(" About ", " On ", 1), encoding="utf-8")
    elif kind == "delete" and slot.exists():
        slot.unlink()
    elif kind == "rename" and slot.exists():
        slot.rename(dumps / f"{op[2]}.txt")


def recount(slot: Path, kind: str, op: tuple) -> None:
    """In a listing dump: a record appended or the last one taken out (its count line
    following), or only its count line changed (``claim``: the profile alone changes)."""
    if not slot.exists():
        return
    text = slot.read_text(encoding="utf-8")
    found = COUNT.search(text)
    if found is None:  # a co-author dump
        return
    at_least, n = found.group(1) or "", int(found.group(2))
    if kind == "append":
        year, title, abstract_text, subjects = POOL[op[2]]
        text += f"arXiv{year}\n\n{title}\n\n{abstract_text}\n\n{subjects[0]}↗\n\n"
        n += 1
    elif kind == "drop":
        cut = text.rfind("arXiv", found.end())
        if cut < 0 or n <= 1:
            return
        text, n = text[:cut], n - 1
    else:
        at_least = "" if at_least else "At least "
    count = f"{at_least}{n} record{'s' if n != 1 else ''}"
    slot.write_text(text[:found.start()] + count + text[found.end():], encoding="utf-8")


SETTINGS = settings(max_examples=60 if LONG else 6, deadline=None, derandomize=not LONG,
                    suppress_health_check=[HealthCheck.too_slow])
SEQUENCES = st.lists(operation, min_size=1, max_size=10 if LONG else 6)


@SETTINGS
@given(SEQUENCES)
def test_random_edit_sequences_rebuild_to_the_clean_bytes(ops: list[tuple]) -> None:
    rebuild_and_compare(ops)


@SETTINGS
@given(SEQUENCES)
def test_lists_kept_whole_rebuild_to_the_clean_bytes(ops: list[tuple]) -> None:
    """The same, with every list of papers kept whole between builds (``FragmentMemo``'s
    ``whole_lists_over``; on real sites only lists of over a hundred papers are)."""
    rebuild_and_compare(ops, whole_lists_over=0)


@SETTINGS
@given(SEQUENCES)
def test_lists_split_into_pages_rebuild_to_the_clean_bytes(ops: list[tuple]) -> None:
    """The same, with every list split into pages of two papers (``page_size``): a paper
    added, moved or gone shifts the papers of the later pages."""
    rebuild_and_compare(ops, "page_size: 2\n")


@SETTINGS
@given(SEQUENCES)
def test_builds_from_the_cache_rebuild_to_the_clean_bytes(ops: list[tuple]) -> None:
    """The same, each build a new Builder (a new ``site-gen build``) given the cache folder."""
    rebuild_and_compare(ops, cached=True)


def cached_build(project: Path) -> BuildResult:
    """What ``site-gen build`` does: a new Builder, with the project's cache folder."""
    return Builder(project, cache=project / store.CACHE_DIR).build()


def rebuild_and_compare(ops: list[tuple], settings: str = "", whole_lists_over: int = 100,
                        cached: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = write_files(Path(tmp) / "p", {
            "content/site.yaml": "title: Property\nsite_url: https://example.org/x/\n" + settings,
            "content/dumps/0.txt": listing_dump("Ann Lee", POOL[:2])})
        builder = Builder(project, keep_spare=True)
        builder.fragments = FragmentMemo(whole_lists_over)
        next_build: Callable[[], BuildResult] = (lambda: cached_build(project)) if cached \
            else builder.build
        assert next_build().ok
        for op in ops:
            apply(project / "content/dumps", op)
            incremental_ok = next_build().ok
            clean = Path(tmp) / "clean"
            clean_result = build(project, clean)
            assert incremental_ok == clean_result.ok, op
            if clean_result.ok:
                assert read_tree(project / "_site") == read_tree(clean), op


def test_every_kind_of_edit_rebuilds_from_the_cache_to_the_clean_bytes(make_project,
                                                                      tmp_path: Path) -> None:
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    assert cached_build(project).ok
    again = cached_build(project)
    assert again.ok and again.rendered == 0 and again.written.changed == ()
    for n, (what, change) in enumerate(STEPS):
        change(project)
        result = cached_build(project)
        assert result.ok, (what, [str(d) for d in result.diagnostics])
        clean = tmp_path / f"clean{n}"
        assert build(project, clean).ok
        assert read_tree(project / "_site") == read_tree(clean), what
    assert (project / store.CACHE_DIR / store.STORE_FILE).is_file()


def truncated(data: bytes) -> bytes:
    return data[:len(data) // 2]


def flipped(data: bytes) -> bytes:
    return data[:-100] + bytes([data[-100] ^ 0xFF]) + data[-99:]


def unsigned(data: bytes) -> bytes:  # a whole pickle of something else, its digest right
    return store.FORMAT + data[len(store.FORMAT):][:store.DIGEST_SIZE] + \
        store.hashlib.blake2b(b"\x80\x04K\x01.", digest_size=store.DIGEST_SIZE).digest() + \
        b"\x80\x04K\x01."


@pytest.mark.parametrize("damage", [truncated, flipped, unsigned, lambda d: b"", lambda d: d[:10],
                                    lambda d: b"\x80\x04garbage" * 100])
def test_a_damaged_cache_is_ignored(make_project, tmp_path: Path, capsys: pytest.CaptureFixture,
                                    damage: Callable[[bytes], bytes]) -> None:
    """A cache file cut short, changed or of another kind is no cache: a full, correct build,
    and no traceback; the build stores a good one again."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    assert main(["build", "--quiet", "--project", str(project)]) == 0
    stored = project / store.CACHE_DIR / store.STORE_FILE
    (project / "content/dumps/a.txt").write_text(listing_dump("Ann Lee", ANN[:2]),
                                                  encoding="utf-8")
    stored.write_bytes(damage(stored.read_bytes()))
    capsys.readouterr()
    assert main(["build", "-v", "--project", str(project)]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "0 reused" in out
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")
    assert cached_build(project).rendered == 0  # stored again, whole


def test_a_build_again_stages_into_the_previous_site_only_what_changed(
        make_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The previous site stays beside the output as the spare, its manifest stored: a build
    again links or writes only the files that differ from it, not the whole site."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    spare = staging_paths(project / "_site")[0]
    assert cached_build(project).ok and cached_build(project).ok  # the second makes a spare
    assert spare_untouched(project / "_site")
    files = len(read_tree(project / "_site"))
    made: list[str] = []
    link, write = tree_module._link, tree_module._write_file
    monkeypatch.setattr(tree_module, "_link", lambda current, target: (
        made.append(str(target)), link(current, target))[1])
    monkeypatch.setattr(tree_module, "_write_file", lambda target, parts: (
        made.append(str(target)), write(target, parts))[1])
    again = cached_build(project)
    assert again.ok and again.written.changed == () and made == [str(spare / ".site-gen")]
    (project / "content/dumps/a.txt").write_text(listing_dump("Ann Lee", ANN[:2]), encoding="utf-8")
    made.clear()
    edited = cached_build(project)
    assert edited.ok and edited.written.changed and len(made) < files / 2
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")
    assert not (project / "_site.old").exists() and spare_untouched(project / "_site")


def test_a_spare_a_build_was_changing_when_killed_is_not_trusted(make_project,
                                                                  tmp_path: Path) -> None:
    """A build killed while staging leaves files in the spare that no stored manifest knows;
    the spare has lost its marker, so the next build takes its files as unknown."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    assert cached_build(project).ok and cached_build(project).ok
    spare = staging_paths(project / "_site")[0]
    (spare / ".site-gen").unlink()  # what a build does first
    write_files(spare, {"stray/index.html": "half", "index.html": "half a page"})
    assert cached_build(project).ok
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")


def test_an_output_file_changed_by_hand_is_made_again(make_project, tmp_path: Path) -> None:
    """The cache trusts an output file only while its size, mtime and inode are as written;
    the spare shares the output's unchanged files (hard links), and so sees the change too."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    assert cached_build(project).ok and cached_build(project).ok
    page = project / "_site/index.html"
    page.write_bytes(page.read_bytes().replace(b"<body", b"<BODY", 1))  # the same size
    result = cached_build(project)
    assert result.ok and result.rendered >= 1
    assert build(project, tmp_path / "clean").ok
    assert read_tree(project / "_site") == read_tree(tmp_path / "clean")


def test_an_output_folder_copied_back_is_checked_not_rendered(make_project, tmp_path: Path
                                                              ) -> None:
    """An output folder restored from elsewhere (a CI cache: new inodes and times) is read
    once to check it against the manifest, not rendered again."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    assert cached_build(project).ok
    site = project / "_site"
    shutil.copytree(site, tmp_path / "saved", copy_function=shutil.copyfile)
    shutil.rmtree(site)
    shutil.copytree(tmp_path / "saved", site, copy_function=shutil.copyfile)
    result = cached_build(project)
    assert result.ok and result.rendered == 0
    assert build(project, tmp_path / "clean").ok
    assert read_tree(site) == read_tree(tmp_path / "clean")


def test_the_cache_belongs_to_one_output_and_one_theme(make_project) -> None:
    """Another output folder, or a changed theme file, starts afresh (the stored key)."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN)})
    assert cached_build(project).ok
    other = Builder(project, project / "other", cache=project / store.CACHE_DIR).build()
    assert other.ok and other.rendered == other.pages
    assert cached_build(project).rendered == cached_build(project).pages  # stored for "other"
    write_files(project, {"templates/partials/extra.html": "unused\n"})
    result = cached_build(project)
    assert result.ok and result.rendered == result.pages


def test_theme_files_checked_out_again_keep_the_cache(make_project) -> None:
    """A CI runner checks the project out afresh each run: its template and static files have
    new times but the same bytes, and the restored cache still fits; new bytes do not."""
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", ANN),
                            "templates/partials/extra.html": "unused\n",
                            "static/extra.css": "p {}\n"})
    assert cached_build(project).ok
    for name in ("templates/partials/extra.html", "static/extra.css"):
        os.utime(project / name, ns=(10**18, 10**18))
    assert cached_build(project).rendered == 0
    write_files(project, {"templates/partials/extra.html": "unused!\n"})
    result = cached_build(project)
    assert result.ok and result.rendered == result.pages
