"""incremental.catalog.CatalogMemo against its specification, catalog.assemble.build_catalog:
after every step of random edit sequences the memo gives exactly what build_catalog gives.

Dumps are made the way a Builder's FileCache hands them over: an unchanged dump is the very
same object as last time, a changed (or merely re-read) one is a new object with new records.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import SEEDS, abstract
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import site_gen.incremental.catalog as memo_module
from site_gen.catalog.assemble import build_catalog
from site_gen.catalog.merge import dump_keys, group_records
from site_gen.incremental.catalog import CatalogMemo
from site_gen.incremental.grouping import Regrouping
from site_gen.model import Catalog, Dump, Link, Record, SourceRef
from site_gen.read.curation import AuthorEdit, Curation, Pairing, PaperEdit
from site_gen.read.dumps import read_dump

ABSTRACTS = [
    abstract("rollout"),
    abstract("rollout").upper(),  # the same paper as the first
    abstract("rollout", 5),  # opens like the first: a suspected duplicate
    abstract("cache"),
    abstract("cache graphs") + " We bound it by $O(n^2)$.",
    "A short note on kernels.",  # short: one paper only with a record sharing a person
    "a short note on KERNELS",  # the same short abstract, folded
]
TITLES = ["Tail Batching For Synchronous RL", "Tail batching for synchronous RL.",
          "Rollout Systems", None, "Rollout Systems At Scale",
          "Tail Batching For Synchronous RL 2021"]  # its slug is another's slug with a year
YEARS = [None, 2020, 2021]
AUTHORS = [(), ("Ann Lee", "Bo Wu"), ("Ánn Lee", "José Núñez"), ("Jose Nunez", "A. Lee", "Bo Wu"),
           ("王小明",)]
SUBJECTS = [(), ("cs.LG",), ("cs.CL", "cs.LG"), ("xx.YY",)]
OWNERS = ["Ann Lee", "Bo Wu", "José Núñez", "Jose Nunez", "A. Lee"]
PATHS = [f"content/dumps/d{i}.txt" for i in range(5)]
CURATIONS = [
    Curation(),
    Curation(authors=(AuthorEdit(1, "Ann Lee", display_name="Ann B. Lee", affiliation="MIT",
                                 variants=("A. Lee",)),)),
    Curation(papers=(PaperEdit(1, "title", "Rollout Systems At Scale", title="Rollout, Revised",
                               year=2019, subjects=("cs.DC",)),)),
    Curation(papers=(PaperEdit(1, "abstract", abstract("cache")[:60], hide=True),
                     PaperEdit(2, "source", "d1.txt:11",
                               links=(Link("code", "https://example.org/c", "Code"),)))),
    Curation(authors=(AuthorEdit(1, "Bo Wu", variants=("王小明",)),),
             papers=(PaperEdit(1, "id", "rollout-systems", title="Renamed Systems Paper"),)),
    Curation(merges=(Pairing(1, "d0.txt:1", "d1.txt:1"), Pairing(2, "d2.txt:1", "d0.txt:11"),
                     Pairing(3, "d1.txt:1", "d3.txt:21")),  # records are at lines 1, 11, 21, ...
             papers=(PaperEdit(4, "source", "d1.txt:11", ("title", "Rollout Systems"), hide=True),)),
    Curation(papers=(PaperEdit(1, "source", "d1.txt:11", ("title", "Rollout Systems"), hide=True),
                     PaperEdit(2, "source", "d2.txt:3", ("abstract", "We study cache"),
                               title="Cache, Curated", year=2018))),
]
FIELDS = {"abstract": ABSTRACTS, "title": TITLES, "year": YEARS, "authors": AUTHORS,
          "subjects": SUBJECTS, "et_al": [False, True]}

spec = st.fixed_dictionaries({name: st.sampled_from(values) for name, values in FIELDS.items()})
slot = st.integers(0, len(PATHS) - 1)
operation = st.one_of(
    st.tuples(st.just("edit"), slot, st.integers(0, 9), st.sampled_from(sorted(FIELDS)),
              st.integers(0, 9)),
    st.tuples(st.just("add record"), slot, st.integers(0, 9), spec),
    st.tuples(st.just("remove record"), slot, st.integers(0, 9)),
    st.tuples(st.just("add dump"), slot, st.sampled_from(OWNERS), st.lists(spec, max_size=6)),
    st.tuples(st.just("remove dump"), slot),
    st.tuples(st.just("read again"), slot),
    st.tuples(st.just("curation"), st.integers(0, len(CURATIONS) - 1)),
)


class Project:
    """Dumps as record specs by path, and the Dump objects a FileCache would hand over."""

    def __init__(self) -> None:
        self.specs: dict[str, tuple[str, list[dict]]] = {}
        self.dumps: dict[str, Dump] = {}
        self.curation = Curation()

    def apply(self, op: tuple) -> None:
        """One operation; those on a missing dump or record do nothing."""
        kind = op[0]
        if kind == "curation":
            self.curation = CURATIONS[op[1]]
            return
        path = PATHS[op[1]]
        if kind == "add dump":
            self.specs[path] = (op[2], list(op[3]))
        elif path not in self.specs:
            return
        elif kind == "remove dump":
            del self.specs[path], self.dumps[path]
            return
        records = self.specs[path][1]
        if kind == "edit" and records:
            field, values = op[3], FIELDS[op[3]]
            records[op[2] % len(records)] = {**records[op[2] % len(records)],
                                             field: values[op[4] % len(values)]}
        elif kind == "add record":
            records.insert(op[2] % (len(records) + 1), op[3])
        elif kind == "remove record" and records:
            del records[op[2] % len(records)]
        self.dumps[path] = self._parsed(path)

    def _parsed(self, path: str) -> Dump:
        owner, specs = self.specs[path]
        records = tuple(Record(SourceRef(path, 1 + 10 * i), owner, s["title"], s["authors"],
                               s["et_al"], s["year"], s["subjects"], s["abstract"])
                        for i, s in enumerate(specs))
        return Dump(path, "test", owner, 1, None, records)


def strict(built: tuple[Catalog, list]) -> tuple:
    """A catalog and its diagnostics, with the paper lists its equality leaves out (model.py)."""
    catalog, diagnostics = built
    return (catalog, [(a.id, a.members) for a in catalog.authors],
            [(s.code, s.members) for s in catalog.subjects], diagnostics)


def assert_same_as_fresh(project: Project, memo: CatalogMemo) -> None:
    dumps = list(project.dumps.values())
    assert strict(memo.build(dumps, project.curation)) == \
        strict(build_catalog(dumps, project.curation))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.just("add dump"), slot, st.sampled_from(OWNERS),
                         st.lists(spec, min_size=1, max_size=6)), min_size=1, max_size=4),
       st.lists(operation, min_size=1, max_size=14))
def test_random_edits_build_what_a_fresh_build_builds(start: list[tuple], ops: list[tuple]) -> None:
    project, memo = Project(), CatalogMemo()
    for op in start + ops:
        project.apply(op)
        assert_same_as_fresh(project, memo)


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operation, min_size=1, max_size=20))
def test_regrouping_groups_as_group_records_does(ops: list[tuple]) -> None:
    """``Regrouping.update`` against its specification, ``group_records`` of every record in
    path order: the same groups, in order, and the same warnings."""
    project, regrouping = Project(), Regrouping()
    for n, op in enumerate(ops):
        project.apply(op)
        dumps = sorted(project.dumps.values(), key=lambda d: d.path)
        records = [r for d in dumps for r in d.records]
        keys = {d.path: dump_keys(d) for d in dumps if n % 2}  # made where parsed, or not
        assert regrouping.update(dumps, keys) == group_records(records)
        assert group_records(records, [k for d in dumps for k in dump_keys(d)]) == \
            group_records(records)


def seed_dumps() -> list[Dump]:
    return [read_dump(f"content/dumps/{p.name}", p.read_bytes())[0]
            for p in sorted(SEEDS.iterdir())]


def test_a_one_dump_edit_keeps_the_other_dumps_papers_as_the_same_objects() -> None:
    dumps, memo = seed_dumps(), CatalogMemo()
    before, _ = memo.build(dumps, Curation())
    first = dumps[0]
    edited = replace(first.records[0], abstract=first.records[0].abstract + " Revised.")
    dumps[0] = replace(first, records=(edited,) + first.records[1:])
    after, diagnostics = memo.build(dumps, Curation())
    assert strict((after, diagnostics)) == strict(build_catalog(dumps, Curation()))
    kept = {id(p) for p in before.papers}
    made_again = {p.id for p in after.papers if id(p) not in kept}
    in_edited_dump = {p.id for p in after.papers if any(s.path == first.path for s in p.sources)}
    assert made_again < in_edited_dump and len(made_again) < len(after.papers)


def test_a_dump_read_again_makes_again_only_the_papers_of_its_changed_records() -> None:
    """Reading a dump again gives new record objects; the equal ones are taken for the old."""
    dumps, memo = seed_dumps(), CatalogMemo()
    before, _ = memo.build(dumps, Curation())
    first = dumps[0]
    edited = replace(first.records[1], abstract=first.records[1].abstract + " Revised.")
    copies = tuple(replace(r) for r in first.records)  # equal, not the same objects
    dumps[0] = replace(first, records=copies[:1] + (edited,) + copies[2:])
    after, diagnostics = memo.build(dumps, Curation())
    assert strict((after, diagnostics)) == strict(build_catalog(dumps, Curation()))
    kept = {id(p) for p in before.papers}
    made_again = [p for p in after.papers if id(p) not in kept]
    assert [p.abstract for p in made_again] == [edited.abstract]
    # one record more at the top moves the others' lines: those are put in again, correctly
    shifted = tuple(replace(r, source=replace(r.source, line=r.source.line + 2))
                    for r in dumps[0].records)
    dumps[0] = replace(first, records=(replace(edited, abstract=abstract("new paper")),) + shifted)
    assert strict(memo.build(dumps, Curation())) == \
        strict(build_catalog(dumps, Curation()))


def test_seed_dumps_read_again_one_at_a_time() -> None:
    dumps, memo = seed_dumps(), CatalogMemo()
    memo.build(dumps, Curation())
    for i, dump in enumerate(dumps):
        dumps[i] = read_dump(dump.path, (SEEDS / dump.path.rsplit("/", 1)[1]).read_bytes())[0]
        assert strict(memo.build(dumps, Curation())) == strict(build_catalog(dumps, Curation()))
    del dumps[1]
    assert strict(memo.build(dumps, Curation())) == strict(build_catalog(dumps, Curation()))


def test_dumps_sharing_a_path_are_merged_without_the_memo() -> None:
    dumps = seed_dumps()
    dumps.append(replace(dumps[0], owner="Someone Else"))
    assert strict(CatalogMemo().build(dumps, Curation())) == strict(build_catalog(dumps, Curation()))


def test_after_an_error_the_memo_starts_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    dumps, memo = seed_dumps(), CatalogMemo()
    memo.build(dumps, Curation())
    dumps[0] = replace(dumps[0], records=dumps[0].records[1:])
    real = memo_module.draft_paper
    monkeypatch.setattr(memo_module, "draft_paper", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        memo.build(dumps, Curation())
    monkeypatch.setattr(memo_module, "draft_paper", real)
    assert strict(memo.build(dumps, Curation())) == strict(build_catalog(dumps, Curation()))


def record_spec(title: int, year: int, text: int) -> dict:
    return {"title": TITLES[title], "year": YEARS[year], "abstract": ABSTRACTS[text],
            "authors": (), "subjects": (), "et_al": False}


def test_a_title_losing_its_first_record_splits_its_group_and_warns_again() -> None:
    """The first record with a title has no year, so both dated ones join it; without it,
    they disagree on the year, part, and their alike abstracts are reported."""
    project, memo = Project(), CatalogMemo()
    for path, year, text in ((0, 0, 3), (1, 1, 0), (2, 2, 2)):
        project.apply(("add dump", path, "Ann Lee", [record_spec(0, year, text)]))
    assert_same_as_fresh(project, memo)
    project.apply(("remove dump", 0))
    assert_same_as_fresh(project, memo)
    _, diagnostics = memo.build(list(project.dumps.values()), project.curation)
    assert any("suspected duplicate" in d.message for d in diagnostics)


def test_papers_alike_in_title_year_and_source_keep_their_order() -> None:
    """Records stated at one line (no reader does that) with a short title and one year give
    papers that sort alike; a curated one is a new object on each build."""
    project, memo = Project(), CatalogMemo()
    project.apply(("add dump", 0, "Ann Lee", [record_spec(2, 1, 3), record_spec(2, 1, 4)]))
    dump = project.dumps[PATHS[0]]
    project.dumps[PATHS[0]] = replace(dump, records=tuple(
        replace(r, source=SourceRef(dump.path, 1)) for r in dump.records))
    project.curation = Curation(papers=(PaperEdit(1, "abstract", ABSTRACTS[3][:40],
                                                  links=(Link("pdf", "https://x.org", "PDF"),)),))
    assert_same_as_fresh(project, memo)
    assert_same_as_fresh(project, memo)


def test_the_memo_keeps_only_what_the_last_build_used() -> None:
    project, memo = Project(), CatalogMemo()
    project.apply(("add dump", 0, "Ann Lee", [record_spec(0, 1, 0), record_spec(4, 1, 3)]))
    project.apply(("add dump", 1, "José Núñez", [record_spec(2, 2, 4)]))
    assert_same_as_fresh(project, memo)
    project.apply(("remove dump", 1))
    assert_same_as_fresh(project, memo)
    assert memo.names is not None and set(memo.names.display) == {"ann lee"}
    assert len(memo.drafts) == len(memo.papers) == 2
    assert len(memo.groups._keyed) == len(memo.groups._group_of) == 2
