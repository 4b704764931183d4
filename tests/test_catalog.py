"""Catalog: merge rules in both directions, authors, subjects, curation."""

from __future__ import annotations

import re

import pytest
from conftest import SEEDS, abstract
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.catalog.assemble import NameIndex, build_catalog, draft_paper
from site_gen.catalog.merge import record_keys
from site_gen.model import Dump, Link, Record, SourceRef
from site_gen.read.curation import AuthorEdit, Curation, PaperEdit
from site_gen.read.dumps import read_dump
from site_gen.util.diagnostics import Severity

LONG = ("Reinforcement learning post-training of large language models alternates rollout "
        "generation and training. We observe that long-tail responses leave accelerators idle "
        "for most of each step, and propose tail batching, which gathers long responses into a "
        "few dedicated rounds. On 128 GPUs our system cuts end-to-end training time by 2.1x.")


def record(path: str, line: int, owner: str, abstract_text: str, title: str | None = None,
           year: int | None = None, authors: tuple[str, ...] = (), et_al: bool = False,
           subjects: tuple[str, ...] = ()) -> Record:
    return Record(SourceRef(path, line), owner, title, authors, et_al, year, subjects, abstract_text)


def catalog_of(*records: Record, curation: Curation | None = None):
    dumps = {}
    for r in records:
        dumps.setdefault(r.source.path, []).append(r)
    built = [Dump(path, "test", rs[0].owner, 1, None, tuple(rs)) for path, rs in dumps.items()]
    return build_catalog(built, curation or Curation())


def seed_catalog(curation: Curation | None = None):
    dumps = [read_dump(p.name, p.read_bytes())[0] for p in sorted(SEEDS.iterdir())]
    return build_catalog(dumps, curation or Curation())


@pytest.mark.parametrize("noise", [
    pytest.param(lambda t: t.upper(), id="case"),
    pytest.param(lambda t: t.replace(" ", "  ").replace(". ", ".\n"), id="whitespace"),
    pytest.param(lambda t: t.replace(",", "").replace(".", ";").replace("-", " "), id="punctuation"),
    pytest.param(lambda t: t.replace("accelerators", "accélérators"), id="accents"),
    pytest.param(lambda t: t.replace("2.1x", "$2.1\\times$"), id="latex-markup"),
])
def test_near_copies_merge(noise) -> None:
    catalog, _ = catalog_of(
        record("a.txt", 9, "Ann Lee", LONG, "Tail Batching for Synchronous RL", 2025, subjects=("cs.LG",)),
        record("b.txt", 3, "Ann Lee", noise(LONG), authors=("Bo Wu", "Ann Lee"), et_al=True))
    assert len(catalog.papers) == 1
    paper = catalog.papers[0]
    assert paper.title == "Tail Batching for Synchronous RL" and paper.year == 2025
    assert [catalog.author(a).name for a in paper.author_ids] == ["Bo Wu", "Ann Lee"]
    assert paper.et_al and paper.extra_author_ids == ()
    assert [str(s) for s in paper.sources] == ["a.txt:9", "b.txt:3"]


@pytest.mark.parametrize("other", [
    pytest.param(LONG.replace("2.1x", "3.4x").replace("128", "64"), id="different-figures"),
    pytest.param(LONG.replace("tail batching", "speculative rollouts"), id="different-method"),
    pytest.param(abstract("tail batching for RL post-training"), id="same-topic"),
    pytest.param(LONG[:150], id="shared-opening-only"),
])
def test_distinct_papers_on_similar_topics_stay_apart(other: str) -> None:
    catalog, diagnostics = catalog_of(
        record("a.txt", 9, "Ann Lee", LONG, "Tail Batching for Synchronous RL", 2025),
        record("a.txt", 17, "Ann Lee", other, "Another Paper On Rollout Systems", 2025))
    assert len(catalog.papers) == 2
    assert not [d for d in diagnostics if d.severity is Severity.ERROR]


def test_same_long_title_merges_when_years_agree() -> None:
    catalog, _ = catalog_of(
        record("a.txt", 9, "Ann Lee", LONG, "Tail Batching for Synchronous RL", 2025),
        record("b.txt", 9, "Bo Wu", abstract("v2 abstract"), "Tail batching for synchronous RL.", 2025))
    assert len(catalog.papers) == 1
    assert {catalog.author(a).name for a in catalog.papers[0].all_author_ids} == {"Ann Lee", "Bo Wu"}


def test_same_title_different_years_or_short_title_stay_apart() -> None:
    catalog, _ = catalog_of(
        record("a.txt", 9, "Ann Lee", abstract("one"), "Tail Batching for Synchronous RL", 2021),
        record("a.txt", 17, "Ann Lee", abstract("two"), "Tail Batching for Synchronous RL", 2025),
        record("a.txt", 25, "Ann Lee", abstract("three"), "Introduction", 2025),
        record("b.txt", 25, "Bo Wu", abstract("four"), "Introduction", 2025))
    assert len(catalog.papers) == 4
    assert len({p.id for p in catalog.papers}) == 4


def test_suspected_duplicate_is_warned() -> None:
    edited = LONG.replace("2.1x", "2.4x")
    _, diagnostics = catalog_of(record("a.txt", 9, "Ann Lee", LONG, "Tail Batching", 2025),
                                record("b.txt", 3, "Ann Lee", edited, authors=("Bo Wu",)))
    suspected = [d for d in diagnostics if "suspected duplicate" in d.message]
    assert [(d.path, d.line, d.severity) for d in suspected] == [("b.txt", 3, Severity.WARNING)]
    assert "suspected duplicate of a.txt:9" in suspected[0].message


def test_seed_catalog_counts() -> None:
    catalog, diagnostics = seed_catalog()
    # Only the three papers that no listing dump dates (content/curation.yaml gives their years).
    assert [(d.path, d.line, d.severity) for d in diagnostics] == [
        ("003_f93c594022924f84.txt", n, Severity.WARNING) for n in (11, 15, 27)]
    assert all("no year" in d.message for d in diagnostics)
    assert len(catalog.papers) == 28
    by_path = lambda prefix: {p.id for p in catalog.papers
                              if any(s.path.startswith(prefix) for s in p.sources)}
    assert len(by_path("000")) == 18 and len(by_path("001")) == 7
    assert len(by_path("003") - by_path("000")) == 3
    assert len(by_path("003") & by_path("000")) == 4
    wang = next(a for a in catalog.authors if a.name == "Jiamang Wang")
    assert len(wang.paper_ids) == 21
    assert [str(p.claim) for p in wang.profiles if p.claim] == ["at least 19 records"]
    assert [s.code for s in catalog.subjects] == ["cs.AI", "cs.CL", "cs.CV", "cs.DC", "cs.IR", "cs.LG"]


def test_seed_merge_keeps_title_from_one_record_and_coauthors_from_the_other() -> None:
    catalog, _ = seed_catalog()
    paper = next(p for p in catalog.papers if p.title.startswith("Attention Illuminates"))
    assert [catalog.author(a).name for a in paper.author_ids] == ["Yang Li", "Zhichen Dong", "Yuhan Sun"]
    assert [catalog.author(a).name for a in paper.extra_author_ids] == ["Jiamang Wang"]
    assert paper.et_al and paper.year == 2025 and paper.subjects == ("cs.CL",)
    assert [s.path[:3] for s in paper.sources] == ["000", "003"]


def test_untitled_papers_get_a_marked_derived_title() -> None:
    catalog, _ = seed_catalog()
    derived = [p for p in catalog.papers if p.title_origin == "derived"]
    assert len(derived) == 3
    assert all(p.title.endswith("…") for p in derived)
    assert any(p.title.startswith("Recent advances in Vision-Language-Action") for p in derived)


def test_curation_sets_title_links_and_hides() -> None:
    curation = Curation("curation.yaml", papers=(
        PaperEdit(2, "abstract", "Recent advances in vision-language-action models",
                  title="CombatVLA", year=2025, subjects=("cs.CV",),
                  links=(Link("code", "https://example.org/c", "Code"),)),
        PaperEdit(5, "title", "RoLA: Rotary-Positioned Low-Rank Linear Attention for Efficient "
                              "Diffusion Transformers", hide=True),
        PaperEdit(7, "source", "001_c61dd221c79335b9.txt:57",
                  ("title", ("LayerKV: Optimizing Large Language Model Serving with Layer-wise "
                            "KV Cache Management")), title="LayerKV (curated)"),
        PaperEdit(9, "title", "No Such Paper"),
    ), authors=(AuthorEdit(11, "Jiamang Wang", affiliation="Alibaba", variants=("J. Wang",)),))
    catalog, diagnostics = seed_catalog(curation)
    titles = {p.title: p for p in catalog.papers}
    assert titles["CombatVLA"].title_origin == "curation"
    assert titles["CombatVLA"].year == 2025 and titles["CombatVLA"].subjects == ("cs.CV",)
    assert titles["CombatVLA"].links[0].url == "https://example.org/c"
    assert "LayerKV (curated)" in titles
    assert len(catalog.papers) == 27 and not any(t.startswith("RoLA") for t in titles)
    unmatched = [d for d in diagnostics if d.path == "curation.yaml"]
    assert [(d.path, d.line) for d in unmatched] == [("curation.yaml", 9)]
    assert "matches no paper" in unmatched[0].message
    assert {d.line for d in diagnostics if "no year" in d.message} == {15, 27}  # 11 got a year
    assert next(a for a in catalog.authors if a.name == "Jiamang Wang").affiliation == "Alibaba"


def test_names_match_after_unicode_folding_and_display_keeps_accents() -> None:
    catalog, _ = catalog_of(
        record("a.txt", 1, "José Núñez", abstract("one"), "Paper One Is Here", 2020),
        record("b.txt", 1, "Zoë Adams", abstract("two"), authors=("Jose Nunez", "ZOË ADAMS")),
        record("c.txt", 1, "Zoë Adams", abstract("three"), authors=("Jose\u0301 Nu\u0301n\u0303ez",)))
    names = sorted(a.name for a in catalog.authors)
    assert names == ["José Núñez", "Zoë Adams"]
    assert all(a.id.isascii() for a in catalog.authors)


def test_a_number_separates_people_and_slugs_keep_it() -> None:
    catalog, _ = catalog_of(
        record("a.txt", 1, "Wei Wang 0001", abstract("one"), "Paper One Is Here", 2020),
        record("b.txt", 1, "Wei Wang 0001", abstract("one"), authors=("Wei Wang 0001", "Ann Lee")),
        record("b.txt", 2, "Wei Wang 0001", abstract("two"), authors=("Wei Wang 0002", "Wei Wang")))
    assert sorted(a.id for a in catalog.authors) == ["ann-lee", "wei-wang", "wei-wang-0001",
                                                    "wei-wang-0002"]
    one = catalog.author("wei-wang-0001")
    assert (one.name, len(one.members), len(one.profiles)) == ("Wei Wang 0001", 2, 2)


def test_a_bracketed_alias_is_the_bare_name_only_where_a_paper_ties_them() -> None:
    catalog, _ = catalog_of(
        record("a.txt", 1, "Li Na (李娜)", abstract("one"), "Paper One Is Here", 2020),
        record("b.txt", 1, "Bo Wu", abstract("one"), authors=("Bo Wu", "Li Na")),  # same paper
        record("c.txt", 1, "Cy Do", abstract("two"), authors=("Cy Do", "Li Na")))  # no tie
    tied = next(p for p in catalog.papers if p.title == "Paper One Is Here")
    assert [catalog.author(a).name for a in tied.all_author_ids] == ["Bo Wu", "Li Na (李娜)"]
    other = next(p for p in catalog.papers if p is not tied)
    assert [catalog.author(a).name for a in other.all_author_ids] == ["Cy Do", "Li Na"]
    assert len([a for a in catalog.authors if a.name.startswith("Li Na")]) == 2


def test_a_profile_ties_its_bare_owner_to_the_bracketed_form_it_lists() -> None:
    catalog, _ = catalog_of(record("a.txt", 1, "Li Na", abstract("one"), authors=("Li Na (李娜)", "Bo Wu")),
                            record("a.txt", 2, "Li Na", abstract("two"), "Paper Two Is Here", 2021))
    li = next(a for a in catalog.authors if a.id != "bo-wu")
    assert (li.name, len(li.members), len(li.profiles)) == ("Li Na (李娜)", 2, 1)


def test_curation_variants_decide_over_a_tie() -> None:
    curation = Curation(authors=(AuthorEdit(line=1, name="Li Na", variants=("Li Na (李娜)",)),))
    catalog, _ = catalog_of(record("a.txt", 1, "Li Na (李娜)", abstract("one"), "Paper One Is Here", 2020),
                            record("b.txt", 1, "Bo Wu", abstract("one"), authors=("Bo Wu", "Li Na")),
                            curation=curation)
    assert sorted(a.name for a in catalog.authors) == ["Bo Wu", "Li Na"]  # the curated name wins
    curation = Curation(authors=(AuthorEdit(line=1, name="Li Nana", variants=("Li Na",)),))
    catalog, _ = catalog_of(record("a.txt", 1, "Li Na (李娜)", abstract("one"), "Paper One Is Here", 2020),
                            record("b.txt", 1, "Bo Wu", abstract("one"), authors=("Bo Wu", "Li Na")),
                            curation=curation)
    # "Li Na" is Li Nana's variant, not the bracketed owner's alias; the curated name is shown
    assert sorted(a.name for a in catalog.authors) == ["Bo Wu", "Li Na (李娜)", "Li Nana"]


def test_owner_is_an_author_of_every_paper_in_their_dump() -> None:
    catalog, _ = catalog_of(record("a.txt", 1, "Ann Lee", abstract("one"), "Paper One", 2020),
                            record("b.txt", 1, "Bo Wu", abstract("two"), authors=("Cy Do",)))
    for paper in catalog.papers:
        owners = {catalog.author(a).name for a in paper.all_author_ids}
        assert owners & {"Ann Lee", "Bo Wu"}


def test_slug_collisions_are_resolved_deterministically() -> None:
    records = [record("a.txt", i, "Ann Lee", abstract(f"t{i}"), "Same Title", 2020 + i % 2)
               for i in range(1, 5)]
    ids = sorted(p.id for p in catalog_of(*records)[0].papers)
    again = sorted(p.id for p in catalog_of(*reversed(records))[0].papers)
    assert ids == again
    assert len(set(ids)) == 4 and "same-title" in ids and "same-title-2021" in ids


def test_hostile_and_empty_titles_and_names_give_safe_distinct_urls() -> None:
    titles = ["../../etc/passwd", "CON", "!!!", "???", "..", "/", "NUL.txt", "Ünïcödé"]
    catalog, _ = catalog_of(*[record("a.txt", i + 1, "Ann Lee", abstract(f"p{i}"), t, 2020)
                              for i, t in enumerate(titles)],
                            record("b.txt", 1, "!!!", abstract("q"), "Fine Title Here", 2021,
                                   authors=("???", "...")))
    ids = [p.id for p in catalog.papers] + [a.id for a in catalog.authors]
    assert len(ids) == len(set(ids))
    for slug in ids:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug), slug
    again, _ = catalog_of(*[record("a.txt", i + 1, "Ann Lee", abstract(f"p{i}"), t, 2020)
                            for i, t in enumerate(titles)],
                          record("b.txt", 1, "!!!", abstract("q"), "Fine Title Here", 2021,
                                 authors=("???", "...")))
    assert [p.id for p in again.papers] == [p.id for p in catalog.papers]


def test_curated_name_wins_when_variants_merge_spellings() -> None:
    records = (record("a.txt", 1, "M. Kowalska", abstract("one"), "Paper One Is Here", 2020),
               record("b.txt", 1, "Maria Kowalska", abstract("two"), "Paper Two Is Here", 2021))
    merged = Curation(authors=(AuthorEdit(1, "Maria Kowalska", variants=("M. Kowalska",)),))
    catalog, _ = catalog_of(*records, curation=merged)
    assert [(a.name, a.id, len(a.paper_ids)) for a in catalog.authors] == [
        ("Maria Kowalska", "maria-kowalska", 2)]
    shown = Curation(authors=(AuthorEdit(1, "Maria Kowalska", display_name="Maria K. Kowalska",
                                         variants=("M. Kowalska",)),))
    catalog, _ = catalog_of(*records, curation=shown)
    assert [(a.name, a.id) for a in catalog.authors] == [("Maria K. Kowalska", "maria-k-kowalska")]
    unmerged = Curation(authors=(AuthorEdit(1, "Jose Nunez", affiliation="Somewhere"),))
    catalog, _ = catalog_of(record("a.txt", 1, "José Núñez", abstract("one"), "Paper One Is Here"),
                            curation=unmerged)
    assert catalog.authors[0].name == "José Núñez"  # without variants, the profile's spelling


TITLE = "Learning Rate Warmup Revisited: A Theory of Adaptive Optimisers"


@pytest.mark.parametrize("first, second, shown", [
    pytest.param(None, TITLE, TITLE, id="a-title-over-a-derived-one"),
    pytest.param(TITLE.lower(), TITLE, TITLE, id="proper-case-over-lower-case"),
    pytest.param(TITLE.upper(), TITLE, TITLE, id="proper-case-over-upper-case"),
    pytest.param("Learning Rate Warmup Revisited: A Theory…", TITLE.lower(), TITLE.lower(),
                 id="complete-over-truncated-by-an-ellipsis"),
    pytest.param("Learning Rate Warmup Revisited", TITLE, TITLE, id="complete-over-cut-short"),
])
def test_the_best_title_leads_whatever_the_file_order(first: str | None, second: str,
                                                       shown: str) -> None:
    for a, b in ((first, second), (second, first)):
        catalog, _ = catalog_of(record("a.txt", 1, "Ann Lee", LONG, a, 2024),
                                record("b.txt", 1, "Bo Wu", LONG, b, 2024))
        assert [p.title for p in catalog.papers] == [shown]


def test_title_ties_go_to_the_first_record_by_file_name() -> None:
    sentence_case = "Learning rate warmup revisited: a theory of adaptive optimisers"
    for a, b in ((TITLE, sentence_case), (sentence_case, TITLE)):
        catalog, _ = catalog_of(record("a.txt", 1, "Ann Lee", LONG, a, 2024),
                                record("b.txt", 1, "Bo Wu", LONG, b, 2024))
        assert [p.title for p in catalog.papers] == [a]


def test_the_longest_complete_abstract_leads() -> None:
    cut = LONG[:180] + "…"
    longer = LONG + " The code is open source."
    for texts in ((cut, LONG, longer), (longer, cut, LONG), (LONG, longer, cut)):
        catalog, _ = catalog_of(*(record(f"{i}.txt", 1, "Ann Lee", t, TITLE, 2024)
                                  for i, t in enumerate(texts)))
        assert [p.abstract for p in catalog.papers] == [longer]
    catalog, _ = catalog_of(record("a.txt", 1, "Ann Lee", LONG + " And more words …", TITLE, 2024),
                            record("b.txt", 1, "Bo Wu", LONG, TITLE, 2024))
    assert catalog.papers[0].abstract == LONG  # complete over longer but truncated



_TEXT_VARIANTS = st.sampled_from([
    lambda t: t, str.lower, str.upper, lambda t: t + " …", lambda t: t + "...",
    lambda t: t.replace(" ", "  "), lambda t: t.replace(",", ""), lambda t: t[:len(t) // 2],
    lambda t: t[:len(t) // 2] + "…", lambda t: t + " More words.", lambda t: t.replace("2.1x", "$2.1\\times$"),
    lambda t: "Über " + t, lambda t: t.replace("e", "é")])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_TEXT_VARIANTS, st.none() | _TEXT_VARIANTS), min_size=2, max_size=5),
       st.permutations(range(5)))
def test_drafting_with_merge_keys_chooses_as_folding_does(variants, order) -> None:
    """draft_paper given the records' merge keys skips folding where the keys show the texts
    fold alike; it must choose the title and abstract that folding them chooses."""
    group = [record(f"{order[i]}.txt", 1 + i, "Ann Lee", abstract_of(LONG), title and title(TITLE), 2024)
             for i, (abstract_of, title) in enumerate(variants)]
    names = NameIndex(Curation(), [])
    keyed = draft_paper(group, names, [], [record_keys(r) for r in group])
    assert keyed == draft_paper(group, names, [])

def _kowalska(*titles: str) -> list[Record]:
    return [record("kowalska.txt", 1 + 4 * i, "Maria Kowalska", abstract(t), t, 2024)
            for i, t in enumerate(titles)]


def test_a_source_entry_never_silently_moves_to_another_paper() -> None:
    """A record added at the top of a dump moves every line; the anchor keeps the entry on its
    paper (with a warning to update the line), and a paper now at that line is left alone."""
    hide = Curation("curation.yaml", papers=(
        PaperEdit(3, "source", "kowalska.txt:5", ("title", "Sparse Attention Kernels"), hide=True),))
    catalog, diagnostics = catalog_of(*_kowalska("Diffusion Priors for Inverse Problems",
                                                 "Sparse Attention Kernels"), curation=hide)
    assert [p.title for p in catalog.papers] == ["Diffusion Priors for Inverse Problems"]
    assert not [d for d in diagnostics if d.path == "curation.yaml"]
    refreshed = _kowalska("Brand New Paper on Graphs", "Diffusion Priors for Inverse Problems",
                          "Sparse Attention Kernels")
    catalog, diagnostics = catalog_of(*refreshed, curation=hide)
    assert sorted(p.title for p in catalog.papers) == ["Brand New Paper on Graphs",
                                                       "Diffusion Priors for Inverse Problems"]
    [moved] = [d for d in diagnostics if d.path == "curation.yaml"]
    assert moved.severity is Severity.WARNING and moved.line == 3
    assert "is now at kowalska.txt:9; applied there, update the entry's source" in moved.message
    gone = _kowalska("Brand New Paper on Graphs", "Diffusion Priors for Inverse Problems")
    catalog, diagnostics = catalog_of(*gone, curation=hide)
    assert len(catalog.papers) == 2  # the paper now at line 5 is not hidden
    [jump] = [d for d in diagnostics if d.path == "curation.yaml"]
    assert jump.severity is Severity.ERROR and str(jump) == (
        "curation.yaml:3: curation entry for 'kowalska.txt:5' now matches 'Diffusion Priors for "
        "Inverse Problems', not the paper it was written for (title: 'Sparse Attention Kernels'); "
        "nothing was applied")


def test_a_source_entry_without_an_anchor_is_an_error_that_suggests_one() -> None:
    bare = Curation("curation.yaml", papers=(PaperEdit(3, "source", "kowalska.txt:1", year=2020),))
    catalog, diagnostics = catalog_of(*_kowalska("Diffusion Priors for Inverse Problems"), curation=bare)
    assert catalog.papers[0].year == 2024
    [entry] = [d for d in diagnostics if d.path == "curation.yaml"]
    assert entry.severity is Severity.ERROR and entry.message.endswith(
        'write match: {source: "kowalska.txt:1", title: "Diffusion Priors for Inverse Problems"}')


def test_the_missing_year_warning_suggests_an_entry_that_survives_a_new_export() -> None:
    _, diagnostics = catalog_of(record("a.txt", 3, "Ann Lee", LONG, TITLE),
                                record("b.txt", 3, "Bo Wu", abstract("untitled")))
    messages = sorted(d.message for d in diagnostics if "no year" in d.message)
    assert messages[0].endswith(f"""- {{match: {{source: "a.txt:3", title: "{TITLE}"}}, year: YYYY}}""")
    assert messages[1].endswith("""- {match: {source: "b.txt:3", abstract: "We study untitled in large language model systems. Existing approaches to untitled"}, year: YYYY}""")
