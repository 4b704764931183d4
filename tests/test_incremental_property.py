"""Incremental equals clean, as a property: random sequences of edits, additions, deletions and
renames of dumps, each followed by an incremental build, end byte-identical to a clean build.

CI runs a few sequences; ``SITE_GEN_FUZZ=long`` runs many (docs/security.md).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from conftest import abstract, build, coauthor_dump, listing_dump, read_tree, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_gen.incremental.builder import Builder
from site_gen.render.engine import FragmentMemo

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
)


def apply(dumps: Path, op: tuple) -> None:
    """Apply one operation to the dumps folder; operations on missing files do nothing."""
    kind, slot = op[0], dumps / f"{op[1]}.txt"
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


def rebuild_and_compare(ops: list[tuple], settings: str = "", whole_lists_over: int = 100
                        ) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = write_files(Path(tmp) / "p", {
            "content/site.yaml": "title: Property\nsite_url: https://example.org/x/\n" + settings,
            "content/dumps/0.txt": listing_dump("Ann Lee", POOL[:2])})
        builder = Builder(project, keep_spare=True)
        builder.fragments = FragmentMemo(whole_lists_over)
        assert builder.build().ok
        for op in ops:
            apply(project / "content/dumps", op)
            incremental_ok = builder.build().ok
            clean = Path(tmp) / "clean"
            clean_result = build(project, clean)
            assert incremental_ok == clean_result.ok, op
            if clean_result.ok:
                assert read_tree(project / "_site") == read_tree(clean), op
