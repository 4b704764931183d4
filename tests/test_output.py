"""The output stage's double buffer: a spare tree brought up to date in place, then swapped."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import read_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import site_gen.write.tree as output_module
from site_gen.write.tree import (
    MARKER,
    MARKER_TEXT,
    OutputTree,
    StaleOutput,
    spare_untouched,
    staging_paths,
)

V1 = {"index.html": b"home 1", "papers/a/index.html": b"paper a", "papers/b/index.html": b"b 1",
      "assets/site.css": b"css"}
V2 = {"index.html": b"home 2", "papers/a/index.html": b"paper a", "papers/c/index.html": b"c",
      "assets/site.css": b"css"}
V3 = {"index.html": b"home 3", "papers/a/index.html": b"paper a!", "papers/c/index.html": b"c",
      "assets/site.css": b"css", "search.json": b"{}"}


def tree_of(files: dict[str, bytes]) -> dict[str, bytes]:
    return {**files, MARKER: MARKER_TEXT}


def test_generations_swap_and_the_spare_holds_the_previous_site(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    for before, after in ((None, V1), (V1, V2), (V2, V3), (V3, V1)):
        result = tree.write(after)
        assert read_tree(out) == tree_of(after)
        if before is not None:
            assert read_tree(staging_paths(out)[0]) == tree_of(before)
            assert set(result.changed) == {n for n in after if before.get(n) != after[n]}
            assert set(result.removed) == before.keys() - after.keys()


def test_kept_files_need_no_bytes(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    tree.write(V1)
    tree.write(V2)
    result = tree.write({"index.html": b"home 3"}, keep={"papers/a/index.html",
                                                          "papers/c/index.html", "assets/site.css"})
    assert read_tree(out) == tree_of({**V2, "index.html": b"home 3"})
    assert result.changed == ("index.html",) and result.removed == ()


def test_unchanged_files_share_inodes_and_old_ones_are_never_rewritten(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    tree.write(V1)
    old_home = os.stat(out / "index.html").st_ino
    tree.write(V2)
    assert os.stat(out / "papers/a/index.html").st_ino == \
        os.stat(staging_paths(out)[0] / "papers/a/index.html").st_ino
    assert os.stat(staging_paths(out)[0] / "index.html").st_ino == old_home
    assert (staging_paths(out)[0] / "index.html").read_bytes() == b"home 1"


def test_the_same_bytes_object_again_is_not_digested_again(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    files = dict(V1)
    tree.write(files)
    tree.write(files)  # now both the output and the spare hold these bytes
    digested: list[bytes] = []
    real = output_module.digest
    monkeypatch.setattr(output_module, "digest", lambda data: digested.append(data) or real(data))
    result = tree.write({**files, "index.html": b"home 9"})
    assert digested == [b"home 9"]
    assert result.changed == ("index.html",)
    assert read_tree(out) == tree_of({**V1, "index.html": b"home 9"})
    result = tree.write({**files, "index.html": b"home 1"})  # equal bytes, a new object
    assert digested == [b"home 9", b"home 1"] and result.changed == ("index.html",)
    assert read_tree(out) == tree_of(V1)


def test_a_kept_file_stays_remembered(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    files = dict(V1)
    tree.write(files)
    tree.write(files)
    tree.write({}, keep=set(files))  # nothing changed: every file kept, none handed over
    digested: list[bytes] = []
    real = output_module.digest
    monkeypatch.setattr(output_module, "digest", lambda data: digested.append(data) or real(data))
    tree.write(files)
    assert digested == [] and read_tree(out) == tree_of(V1)


def test_a_remembered_bytes_object_is_written_where_the_tree_lacks_it(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    files = dict(V1)
    tree.write(files)
    tree.write({**files, "index.html": b"other"})  # the spare still holds V1's home page
    tree.write(files)
    assert read_tree(out) == tree_of(V1)
    OutputTree(out, keep_spare=False).write(V3)  # another writer: nothing is known any more
    result = tree.write(files)
    assert read_tree(out) == tree_of(V1) and "index.html" in result.changed


def test_keeping_a_file_it_does_not_know_is_refused(tmp_path: Path) -> None:
    tree = OutputTree(tmp_path / "_site")
    tree.write(V1)
    with pytest.raises(StaleOutput):
        tree.write({}, keep={"papers/zzz/index.html"})
    with pytest.raises(StaleOutput):
        OutputTree(tmp_path / "_site").write({}, keep={"index.html"})  # a new process knows nothing


def test_another_writer_makes_it_forget_what_it_knew(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    tree.write(V1)
    tree.write(V2)
    assert tree.digests()
    OutputTree(out, keep_spare=False).write(V3)  # another process swapped in its own tree
    assert tree.digests() == {}
    tree.write(V1)
    assert read_tree(out) == tree_of(V1)


def test_a_leftover_spare_is_reused_but_never_trusted(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    OutputTree(out, keep_spare=False).write(V1)
    spare = staging_paths(out)[0]
    outside = tmp_path / "outside"
    outside.mkdir()
    (spare / "papers").mkdir(parents=True)
    os.symlink(outside, spare / "papers" / "c")          # a link where a folder must be
    (spare / "assets").write_text("a file where a folder must be")
    (spare / "index.html").mkdir()                        # a folder where a file must be
    (spare / "stray" / "deep").mkdir(parents=True)
    (spare / "stray" / "deep" / "x.html").write_text("stray")
    (spare / "papers" / "a").mkdir()
    (spare / "papers" / "a" / "index.html").write_text("paper a")  # right bytes, unknown inode
    OutputTree(out).write(V2)
    assert read_tree(out) == tree_of(V2)
    assert list(outside.iterdir()) == []
    assert not (out / "stray").exists()


def test_without_renameat2_two_renames_do_the_swap(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(output_module, "_exchange", lambda a, b: False)
    out = tmp_path / "_site"
    tree = OutputTree(out)
    for files in (V1, V2, V3):
        tree.write(files)
        assert read_tree(out) == tree_of(files)
    assert not staging_paths(out)[1].exists()
    assert read_tree(staging_paths(out)[0]) == tree_of(V2)


def test_libc_is_looked_up_once_not_at_every_swap(tmp_path: Path, monkeypatch) -> None:
    """``find_library`` runs ``ldconfig -p`` in a child process: not once a build."""
    import ctypes.util

    looked: list[str] = []
    find = ctypes.util.find_library
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: looked.append(name) or find(name))
    output_module._renameat2.cache_clear()
    try:
        out = tmp_path / "_site"
        tree = OutputTree(out)
        for files in (V1, V2, V3, V1):
            tree.write(files)
            assert read_tree(out) == tree_of(files)
        assert looked == ["c"]
    finally:
        output_module._renameat2.cache_clear()


def wait_until_gone(paths, seconds: float = 20.0) -> bool:
    import time
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(p.exists() for p in paths):
            return True
        time.sleep(0.05)
    return False


def test_a_large_previous_site_is_deleted_in_the_background(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(output_module, "BACKGROUND_DELETE", 2)
    out = tmp_path / "_site"
    OutputTree(out, keep_spare=False).write(V1)
    OutputTree(out, keep_spare=False).write(V2)
    assert read_tree(out) == tree_of(V2)  # in place at once; the old tree goes aside
    trash = list(tmp_path.glob("._site.trash-*"))
    assert all(p.is_dir() for p in trash) and not staging_paths(out)[0].exists()
    assert wait_until_gone(trash)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_site"]


def test_a_deletion_cut_short_is_finished_by_the_next_build(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "_site"
    OutputTree(out, keep_spare=False).write(V1)
    leftover = tmp_path / "._site.trash-1-2"
    (leftover / "papers" / "a").mkdir(parents=True)
    (leftover / "papers" / "a" / "index.html").write_text("old")
    OutputTree(out, keep_spare=False).write(V2)
    assert leftover.exists()  # too recent: maybe another build's deletion, still running
    monkeypatch.setattr(output_module, "TRASH_GRACE", -1)
    OutputTree(out, keep_spare=False).write(V3)
    assert wait_until_gone([leftover])
    assert read_tree(out) == tree_of(V3)


# ---- files in parts ------------------------------------------------------------------------

PARTS = [b'{"papers":[', b'{"id":"a"}', b",", b"", b'{"id":"b"}', b"]}\n"]


def put_all(tree: OutputTree, files: dict[str, bytes | list[bytes]]) -> None:
    with tree.staging() as staging:
        for name, data in sorted(files.items()):
            if isinstance(data, bytes):
                staging.put(name, data)
            else:
                staging.put_parts(name, data)


def test_a_file_in_parts_is_the_file_of_its_parts_joined(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(output_module, "WRITEV_BUFFERS", 4)  # more parts than one writev takes
    many = [bytes([65 + i % 26]) * i for i in range(40)]
    out = tmp_path / "_site"
    tree = OutputTree(out)
    put_all(tree, {**V1, "papers.json": PARTS, "many.txt": many, "none.json": []})
    joined = {**V1, "papers.json": b"".join(PARTS), "many.txt": b"".join(many), "none.json": b""}
    assert read_tree(out) == tree_of(joined)
    parted = {"papers.json": PARTS, "many.txt": many, "none.json": []}
    assert tree.digests() == {name: output_module.parts_digest(parted[name]) if name in parted
                              else output_module.digest(data) for name, data in joined.items()}


def test_parts_are_digested_once_while_they_are_the_same_objects(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """A rebuild digests only the parts it made again; the file's identity is the same."""
    digested: list[bytes] = []
    real = output_module.digest
    monkeypatch.setattr(output_module, "digest", lambda data: digested.append(data) or real(data))
    tree = OutputTree(tmp_path / "_site")
    put_all(tree, {"papers.json": PARTS})
    first = tree.digests()["papers.json"]
    digested.clear()
    fresh = b'{"id":"c"}'
    put_all(tree, {"papers.json": [*PARTS[:4], fresh, PARTS[5]]})
    assert digested == [fresh]
    put_all(tree, {"papers.json": PARTS})
    assert tree.digests()["papers.json"] == first
    assert (tmp_path / "_site/papers.json").read_bytes() == b"".join(PARTS)


def test_a_new_process_finds_a_file_in_parts_unchanged_on_disk(tmp_path: Path) -> None:
    """With no digests known (site-gen build run again), the file is compared part by part."""
    out = tmp_path / "_site"
    put_all(OutputTree(out, keep_spare=False), {**V1, "papers.json": PARTS})
    again = OutputTree(out, keep_spare=False)
    with again.staging() as staging:
        for name, data in V1.items():
            staging.put(name, data)
        staging.put_parts("papers.json", [b"".join(PARTS[:2]), *PARTS[2:]])
    assert staging.result.changed == ()
    changed = OutputTree(out, keep_spare=False)
    with changed.staging() as staging:
        staging.put_parts("papers.json", [*PARTS[:-1], b"]}"])
    assert staging.result.changed == ("papers.json",)


def test_writev_may_take_part_of_the_buffers(tmp_path: Path, monkeypatch) -> None:
    real = os.writev
    monkeypatch.setattr(output_module.os, "writev",
                        lambda fd, buffers: real(fd, [bytes(memoryview(buffers[0])[:3])]))
    out = tmp_path / "_site"
    put_all(OutputTree(out, keep_spare=False), {"papers.json": PARTS})
    assert (out / "papers.json").read_bytes() == b"".join(PARTS)


def test_a_file_in_parts_is_linked_or_left_alone_as_a_whole_one_is(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    put_all(tree, {**V1, "papers.json": PARTS})
    put_all(tree, {**V2, "papers.json": list(PARTS)})  # the output has it: linked, unchanged
    spare = staging_paths(out)[0]
    assert os.stat(out / "papers.json").st_ino == os.stat(spare / "papers.json").st_ino
    inode = os.stat(out / "papers.json").st_ino
    put_all(tree, {**V3, "papers.json": PARTS})  # the spare has it too: nothing to do
    assert os.stat(out / "papers.json").st_ino == inode
    changed = PARTS[:-1] + [b"]}\n\n"]
    with tree.staging() as staging:
        staging.put_parts("papers.json", changed)
    assert staging.result.changed == ("papers.json",)
    assert read_tree(out) == tree_of({"papers.json": b"".join(changed)})
    assert os.stat(out / "papers.json").st_ino != inode  # a new file, never the shared inode


def test_a_file_in_parts_is_compared_with_an_output_it_does_not_know(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    OutputTree(out, keep_spare=False).write({**V1, "papers.json": b"".join(PARTS),
                                             "authors.json": b"[1]"})
    tree = OutputTree(out, keep_spare=False)  # a new process: the output's digests unknown
    with tree.staging() as staging:
        staging.put_parts("papers.json", PARTS)           # the same bytes: linked
        staging.put_parts("authors.json", [b"[", b"2]"])  # the same size, other bytes
    assert staging.result.changed == ("authors.json",)
    assert read_tree(out) == tree_of({"papers.json": b"".join(PARTS), "authors.json": b"[2]"})


def test_a_one_shot_tree_writes_parts_as_they_are_made(tmp_path: Path, monkeypatch) -> None:
    """A build that remembers nothing never holds a file's parts at once: each batch of
    parts is on disk before the next part is made; the side file never reaches the output."""
    monkeypatch.setattr(output_module, "WRITEV_BUFFERS", 2)
    out = tmp_path / "_site"
    side = staging_paths(out)[0] / output_module.partial_name()
    seen: list[int] = []

    def made() -> Iterator[bytes]:
        for number, part in enumerate(PARTS):
            if number == 4:
                seen.append(side.stat().st_size)  # the first two batches are written
            yield part

    with OutputTree(out, keep_spare=False).staging() as staging:
        staging.put_parts("papers.json", made())
    assert seen == [len(b"".join(PARTS[:4]))]
    assert staging.result.changed == ("papers.json",)
    assert read_tree(out) == tree_of({"papers.json": b"".join(PARTS)})
    inode = os.stat(out / "papers.json").st_ino
    with OutputTree(out, keep_spare=False).staging() as staging:  # a new process, same bytes
        staging.put_parts("papers.json", iter(PARTS))
    assert staging.result.changed == ()
    assert os.stat(out / "papers.json").st_ino == inode  # linked from the previous output
    assert not side.exists() and not (out / output_module.partial_name()).exists()


def test_two_processes_write_files_in_parts_into_one_spare_at_once(tmp_path: Path) -> None:
    """A build and the process it forks ahead both stage files given in parts, at the same
    time, each through a side file: neither may take the other's for its own."""
    out = tmp_path / "_site"
    ours = {f"ours{n}.json": [b"%d-" % n] * 50 for n in range(20)}
    theirs = {f"theirs{n}.json": [b"%d+" % n] * 50 for n in range(20)}

    def slowly(parts: list[bytes]) -> Iterator[bytes]:
        for part in parts:
            time.sleep(0.0002)
            yield part

    with OutputTree(out, keep_spare=False).staging() as staging:
        reader, writer = multiprocessing.get_context("fork").Pipe(duplex=False)
        child = multiprocessing.get_context("fork").Process(target=lambda: writer.send(
            [staging.write_stream(name, slowly(parts)) for name, parts in theirs.items()]))
        child.start()
        for name, parts in ours.items():
            staging.put_parts(name, slowly(parts))
        assert reader.poll(30), "the other process failed"
        for receipt in reader.recv():
            staging.record(receipt)
        child.join()
    assert read_tree(out) == tree_of({name: b"".join(parts)
                                      for name, parts in {**ours, **theirs}.items()})


def test_a_one_shot_tree_remembers_no_bytes_it_staged(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    with OutputTree(out, keep_spare=False).staging() as staging:
        for name, data in V1.items():
            staging.put(name, data)
    assert staging.sources == {}
    with OutputTree(out).staging() as staging:
        for name, data in V1.items():
            staging.put(name, data)
    assert staging.sources.keys() == V1.keys()


def _hold_lock(folder: Path) -> int:
    """Lock ``folder`` as another site-gen process writing an output in it would."""
    import fcntl

    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_a_build_waits_while_another_process_writes_the_same_output(tmp_path: Path) -> None:
    import fcntl
    import threading

    out = tmp_path / "_site"
    OutputTree(out, keep_spare=False).write(V1)
    fd = _hold_lock(tmp_path)  # another open file: the lock conflicts as another process's would
    told = threading.Event()
    writer = threading.Thread(target=lambda: OutputTree(out, waiting=told.set).write(V2))
    try:
        writer.start()
        assert told.wait(10), "the writer was not told it must wait"
        writer.join(0.3)
        assert writer.is_alive(), "the writer did not wait for the lock"
        assert read_tree(out) == tree_of(V1)
        assert not staging_paths(out)[0].exists()  # nothing staged while the lock is held
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    writer.join(10)
    assert not writer.is_alive()
    assert read_tree(out) == tree_of(V2)


def test_an_unlocked_output_is_written_without_waiting(tmp_path: Path) -> None:
    told: list[bool] = []
    tree = OutputTree(tmp_path / "_site", waiting=lambda: told.append(True))
    tree.write(V1)
    tree.write(V2)
    tree.remove_spare()
    assert told == []
    # the lock is let go after each build: another process can take it at once
    os.close(_hold_lock(tmp_path))


def test_the_lock_is_let_go_when_staging_fails(tmp_path: Path) -> None:
    tree = OutputTree(tmp_path / "_site")
    with pytest.raises(RuntimeError), tree.staging() as staging:
        staging.put("index.html", b"x")
        raise RuntimeError("a generator failed")
    os.close(_hold_lock(tmp_path))


def _inodes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_ino for p in root.rglob("*") if p.is_file()}


def test_filling_the_spare_links_the_output_into_it(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    spare = staging_paths(out)[0]
    tree = OutputTree(out)
    tree.write(V1)  # a first build into no output: no spare yet
    assert not spare.exists()
    assert tree.fill_spare() is True
    assert read_tree(spare) == {name: data for name, data in tree_of(V1).items() if name != MARKER}
    linked = _inodes(out)
    assert _inodes(spare) == {n: linked[n] for n in V1}
    result = tree.write(V2)
    assert read_tree(out) == tree_of(V2)
    assert set(result.changed) == {"index.html", "papers/c/index.html"}
    assert set(result.removed) == {"papers/b/index.html"}
    assert _inodes(out)["papers/a/index.html"] == linked["papers/a/index.html"]
    assert read_tree(spare) == tree_of(V1)
    assert spare_untouched(out)  # the previous site, as the swap left it
    assert tree.fill_spare() is True  # now only what the last build changed is linked
    assert read_tree(spare) == {**V2, "papers/b/index.html": b"b 1"}  # no marker: changed
    assert not spare_untouched(out)


def test_a_file_the_spare_holds_alone_is_written_over_in_place(tmp_path: Path) -> None:
    """A file the last build changed is the spare's own: filling copies the output's bytes
    over it and the next build that changes it writes over it again, in the same inode, and
    cuts it to a shorter length; files the trees share are never written into."""
    out = tmp_path / "_site"
    spare = staging_paths(out)[0]
    tree = OutputTree(out)
    tree.write(V1)
    tree.fill_spare()
    tree.write(V2)  # index.html changed: the spare's (the previous site's) is its own
    own = os.stat(spare / "index.html")
    assert own.st_nlink == 1
    assert tree.fill_spare() is True
    assert (spare / "index.html").read_bytes() == b"home 2"
    assert os.stat(spare / "index.html").st_ino == own.st_ino
    shared = os.stat(out / "papers/a/index.html").st_ino
    tree.write({**V2, "index.html": b"h", "papers/a/index.html": b"paper a, again"})
    assert read_tree(out) == tree_of({**V2, "index.html": b"h",
                                      "papers/a/index.html": b"paper a, again"})
    assert os.stat(out / "index.html").st_ino == own.st_ino
    assert read_tree(spare) == tree_of(V2)  # the previous site, shared inodes included
    assert os.stat(spare / "papers/a/index.html").st_ino == shared
    assert os.stat(out / "papers/a/index.html").st_ino != shared


def test_a_large_file_is_linked_into_the_spare_not_copied(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(output_module, "REMEMBERED_BYTES", len(b"home 2") - 1)
    out = tmp_path / "_site"
    tree = OutputTree(out)
    tree.write(V1)
    tree.fill_spare()
    tree.write(V2)
    assert tree.fill_spare() is True
    assert os.stat(staging_paths(out)[0] / "index.html").st_ino == \
        os.stat(out / "index.html").st_ino
    tree.write(V3)
    assert read_tree(out) == tree_of(V3)
    assert read_tree(staging_paths(out)[0]) == tree_of(V2)


def test_filling_stops_when_told_and_the_next_build_is_whole(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    tree.write(V1)
    asked = []

    def go_on() -> bool:
        asked.append(True)
        return len(asked) <= 2  # an edit comes after two files

    assert tree.fill_spare(go_on, batch=1) is False
    assert len(_inodes(staging_paths(out)[0])) == 2
    tree.write(V3)
    assert read_tree(out) == tree_of(V3)
    assert tree.fill_spare() is True
    tree.write(V1)
    assert read_tree(out) == tree_of(V1)


def test_a_spare_is_not_filled_from_an_output_another_process_replaced(tmp_path: Path) -> None:
    out = tmp_path / "_site"
    tree = OutputTree(out)
    tree.write(V1)
    OutputTree(out, keep_spare=False).write(V2)  # another process built meanwhile
    assert tree.fill_spare() is True
    assert not staging_paths(out)[0].exists()
    tree.write(V3)
    assert read_tree(out) == tree_of(V3)


def test_a_one_shot_tree_has_no_spare_to_fill(tmp_path: Path) -> None:
    tree = OutputTree(tmp_path / "_site", keep_spare=False)
    tree.write(V1)
    assert tree.fill_spare() is True
    assert not staging_paths(tmp_path / "_site")[0].exists()


# ---- what a long-lived tree remembers, against the folders ---------------------------------

NAMES = ("index.html", "papers/a/index.html", "papers/b/index.html", "papers/b/cite.bib",
         "assets/site.css", "search.json")
CONTENTS = (b"one", b"two", b"three")

step = st.one_of(
    # a build: each name absent, handed over as new bytes, as last build's bytes object, in
    # two parts, or kept (only if the output holds it)
    st.tuples(st.just("build"),
              st.lists(st.sampled_from(("gone", "new", "same", "parts", "keep")),
                       min_size=len(NAMES), max_size=len(NAMES)),
              st.lists(st.sampled_from(CONTENTS), min_size=len(NAMES), max_size=len(NAMES))),
    st.tuples(st.just("fill"), st.integers(0, 4)),  # stopped by an edit after so many files
)


@settings(max_examples=300 if os.environ.get("SITE_GEN_FUZZ") == "long" else 60,
          deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(step, min_size=1, max_size=8), st.sampled_from((1 << 20, 3, 0)))
def test_what_the_tree_remembers_matches_its_folders(tmp_path_factory, steps, large) -> None:
    """After any builds and fills: the output is the site asked for; the spare holds the
    output's bytes under every name it is not ``behind`` under (``Staging.keep`` checks only
    those); every remembered bytes object is what the output holds under its name. Filling
    copies over the spare's own files only up to ``large`` bytes and links the others: at
    3, "three" is linked; at 0, every file."""
    saved = output_module.REMEMBERED_BYTES
    output_module.REMEMBERED_BYTES = large
    try:
        _check_steps(tmp_path_factory, steps)
    finally:
        output_module.REMEMBERED_BYTES = saved


def _check_steps(tmp_path_factory, steps) -> None:
    out = tmp_path_factory.mktemp("out") / "_site"
    spare = staging_paths(out)[0]
    tree = OutputTree(out)
    site: dict[str, bytes] | None = None
    handed: dict[str, bytes] = {}
    for kind, *args in steps:
        if kind == "fill":
            budget = iter(range(args[0] + 1))
            tree.fill_spare(lambda budget=budget: next(budget, None) is not None, batch=1)
            _check_spare(tree, spare, site or {})
            continue
        site, before = {}, site or {}
        with tree.staging() as staging:
            for name, how, data in zip(NAMES, args[0], args[1], strict=True):
                if how == "keep" and name in before:
                    staging.keep([name])
                    site[name] = before[name]
                elif how == "same" and name in handed:
                    staging.put(name, handed[name])
                    site[name] = handed[name]
                elif how == "parts":
                    staging.put_parts(name, [data[:1], data[1:]])
                    site[name] = data
                    handed.pop(name, None)
                elif how != "gone":
                    site[name] = handed[name] = bytes(bytearray(data))  # a new object
                    staging.put(name, site[name])
        handed = {name: data for name, data in handed.items() if name in site}
        assert read_tree(out) == tree_of(site)
        live = tree.live or {}
        for name, (data, digested) in tree._staged.items():
            assert digested == live[name] == output_module.digest(data)
            assert (out / name).read_bytes() == data
        _check_spare(tree, spare, site)


def _check_spare(tree: OutputTree, spare: Path, site: dict[str, bytes]) -> None:
    """The spare holds the site's bytes under every name it is not ``behind`` under, and
    knows it."""
    live = tree.live or {}
    if tree.spare is not None and tree.behind is not None:
        for name in live.keys() - tree.behind:
            assert (spare / name).read_bytes() == site[name], name
            assert tree.spare[name] == live[name]
