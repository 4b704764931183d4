"""Fuzzing the readers: any bytes give records or located diagnostics, never an exception.

Profiles: the default (CI) runs a few hundred cases per property; set
``SITE_GEN_FUZZ=long`` for thousands (see docs/security.md).
"""

from __future__ import annotations

import json
import os
import random
import re
import unicodedata

import pytest
from conftest import SEEDS, abstract, coauthor_dump, listing_dump, write_files
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from site_gen.catalog.assemble import _bare, build_catalog
from site_gen.incremental.builder import Builder
from site_gen.read.curation import Curation
from site_gen.read.dumps import read_dump
from site_gen.util.diagnostics import Severity
from site_gen.util.text import esc, fold

LONG = os.environ.get("SITE_GEN_FUZZ") == "long"
PROFILE = settings(max_examples=5000 if LONG else 300, deadline=None, derandomize=not LONG,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SEED_BYTES = [p.read_bytes() for p in sorted(SEEDS.iterdir())]
PATH = "content/dumps/fuzz.txt"


def check_outcome(data: bytes) -> None:
    """The only allowed outcomes: a dump and/or diagnostics located in this file."""
    dump, diagnostics = read_dump(PATH, data)
    lines = data.count(b"\n") + data.count(b"\r") + 1
    for d in diagnostics:
        assert d.path == PATH and 0 <= d.line <= lines and d.message
    if dump is None:
        assert any(d.severity is Severity.ERROR for d in diagnostics)
    else:
        for record in dump.records:
            assert 1 <= record.source.line <= lines
            assert record.title or record.abstract


@PROFILE
@given(st.binary(max_size=4096))
def test_random_bytes(data: bytes) -> None:
    check_outcome(data)


@PROFILE
@given(st.text(max_size=2000))
def test_random_text(text: str) -> None:
    check_outcome(text.encode("utf-8", "surrogatepass"))


@PROFILE
@given(seed=st.sampled_from(SEED_BYTES), cut=st.integers(min_value=0, max_value=30000))
def test_truncated_seeds(seed: bytes, cut: int) -> None:
    check_outcome(seed[:cut])


@PROFILE
@given(seed=st.sampled_from(SEED_BYTES), shuffle=st.randoms(use_true_random=False))
def test_shuffled_seed_lines(seed: bytes, shuffle: random.Random) -> None:
    lines = seed.split(b"\n")
    shuffle.shuffle(lines)
    check_outcome(b"\n".join(lines))


@PROFILE
@given(seed=st.sampled_from(SEED_BYTES), at=st.integers(min_value=0, max_value=30000),
       junk=st.sampled_from([b"\x00", b"\r", b"\r\n", b"\n\n\n", b"\xff", b"\xe2\x86",
                             b"x" * 200000, b"\t", b"\xef\xbb\xbf", b"\x1b[31m", b"arXiv2025\n"]))
def test_seed_with_junk_spliced_in(seed: bytes, at: int, junk: bytes) -> None:
    check_outcome(seed[:at] + junk + seed[at:])


def test_huge_line_is_handled_quickly() -> None:
    text = listing_dump("Ann Lee", [(2024, "T" * 100000, "word " * 200000, ["cs.LG"])])
    dump, _diagnostics = read_dump(PATH, text.encode())
    assert dump is not None and len(dump.records) == 1


# ---- conservation: every valid record ends up on the site ---------------------------------

WORDS = ["rollout", "tensor", "cache", "graph", "sparse", "kernel", "agent", "token", "batch",
         "shard", "quantum", "lattice", "vision", "speech", "policy", "reward"]
NAMES = ["Ann Lee", "Bo Wu", "José Núñez", "王小明", "Дмитрий Иванов", "Zoë Müller", "Li Na"]


@st.composite
def corpora(draw: st.DrawFn) -> tuple[dict[str, str], int]:
    """Valid dumps over a pool of distinct papers, some papers repeated across dumps."""
    n = draw(st.integers(min_value=1, max_value=12))
    papers = [(" ".join(draw(st.permutations(WORDS))[:5]).title() + f" {i}",
               abstract(f"topic number {i} " + " ".join(draw(st.permutations(WORDS))[:3])),
               draw(st.integers(min_value=2015, max_value=2026)),
               draw(st.sampled_from(["cs.LG", "cs.CL", "stat.ML", "q-bio.NC"]))) for i in range(n)]
    files: dict[str, str] = {}
    used: set[int] = set()
    for d in range(draw(st.integers(min_value=1, max_value=4))):
        owner = NAMES[d % len(NAMES)]
        chosen = sorted(set(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n))))
        used.update(chosen)
        if draw(st.booleans()):
            files[f"{d}.txt"] = listing_dump(owner, [(papers[i][2], papers[i][0], papers[i][1], [papers[i][3]])
                                                      for i in chosen])
        else:
            noisy = lambda t: t.upper() if draw(st.booleans()) else t.replace(" ", "  ")
            files[f"{d}.txt"] = coauthor_dump(owner, [(f"{NAMES[(d + 1) % 7]}, {NAMES[(d + 2) % 7]} et al.",
                                                       noisy(papers[i][1])) for i in chosen])
    return files, len(used)


@PROFILE
@given(corpora())
def test_conservation_records_in_papers_out(corpus: tuple[dict[str, str], int]) -> None:
    files, distinct = corpus
    dumps = []
    records = 0
    for name, text in sorted(files.items()):
        dump, diagnostics = read_dump(name, text.encode())
        assert dump is not None and not [d for d in diagnostics if d.severity is Severity.ERROR]
        records += len(dump.records)
        dumps.append(dump)
    catalog, _ = build_catalog(dumps, Curation())
    assert len(catalog.papers) == distinct
    assert sum(len(p.sources) for p in catalog.papers) == records
    sources = {s for p in catalog.papers for s in p.sources}
    assert sources == {r.source for d in dumps for r in d.records}


# ---- names of every kind: every record is on the site, under the name its dump gave ------

_LETTERS = st.characters(categories=("Lu", "Ll", "Lt", "Lm", "Lo", "Nd"))
_MARKUP = st.sampled_from(["<", ">", '"', "'", "-", "<b>", "</b>", "*"])
_PLAIN = st.lists(st.one_of(_LETTERS, _LETTERS, _MARKUP), min_size=1, max_size=8).map("".join)
_WORD = st.one_of(_PLAIN, _PLAIN, st.tuples(st.sampled_from(["()", "[]", "{{}}", "（）"]), _PLAIN).map(
    lambda pair: pair[0][: len(pair[0]) // 2] + pair[1] + pair[0][len(pair[0]) // 2:]))
_SUFFIX = st.sampled_from(["", "", ", Jr.", ", PhD", " III", ", MD"])


@st.composite
def person_names(draw: st.DrawFn, listed: bool = False) -> str:
    """A name of 1-16 words from any script, digits, brackets and markup characters; owners
    may also hold ``&`` and titles (in an author list ``&`` separates names)."""
    words = draw(st.lists(_WORD, min_size=1, max_size=15))
    name = " ".join(words) + draw(_SUFFIX)
    if not listed and draw(st.booleans()):
        name = draw(st.sampled_from(["Dr. ", "Prof. ", ""])) + name + draw(st.sampled_from([" & Co", ""]))
    name = unicodedata.normalize("NFC", name)
    assume(name == name.strip() and len(name.split()) <= 16 and len(name) <= 200 and fold(name))
    assume(not re.match(r"(?i)arxiv|\d+ records?|publications and|at least|linked to", name))
    return name


@st.composite
def named_corpora(draw: st.DrawFn) -> tuple[dict[str, str], list[str]]:
    """A listing and a co-author dump whose owners and listed authors have drawn names, all
    told apart by folding and by brackets (so no two are one person)."""
    names = draw(st.lists(person_names(listed=True), min_size=2, max_size=5))
    owners = [draw(person_names()), draw(person_names())]
    everyone = names + owners
    assume(len({fold(n) for n in everyone}) == len(everyone))
    folds = {fold(n) for n in everyone}
    assume(all(_bare(n) == fold(n) or _bare(n) not in folds for n in everyone))
    listing = listing_dump(owners[0], [(2020 + i, f"Paper {i} About Names Here", abstract(f"names {i}"),
                                        ["cs.LG"]) for i in range(2)])
    coauthor = coauthor_dump(owners[1], [(", ".join(names) + " et al.", abstract("names 0")),
                                         (names[0], abstract("names other"))])
    return {"a.txt": listing, "b.txt": coauthor}, everyone


@PROFILE
@given(named_corpora())
def test_every_record_is_on_the_site_under_the_name_its_dump_gave(
        corpus: tuple[dict[str, str], list[str]]) -> None:
    files, _ = corpus
    dumps = []
    for name, text in sorted(files.items()):
        dump, diagnostics = read_dump(name, text.encode())
        assert dump is not None, [str(d) for d in diagnostics]
        assert not [d for d in diagnostics if d.severity is Severity.ERROR]
        dumps.append(dump)
    catalog, _ = build_catalog(dumps, Curation())
    by_source = {s: p for p in catalog.papers for s in p.sources}
    for dump in dumps:
        for record in dump.records:
            paper = by_source[record.source]
            shown = [catalog.author(a).name for a in paper.all_author_ids]
            assert dump.owner in shown
            assert [n for n in shown if n in record.authors] == list(record.authors)
    ids = [a.id for a in catalog.authors]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", i) for i in ids)


@settings(PROFILE, max_examples=40 if LONG else 6,  # builds a site per example: no shrinking
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(corpus=named_corpora())
def test_every_name_has_its_page_showing_it_as_written(
        corpus: tuple[dict[str, str], list[str]], tmp_path_factory: pytest.TempPathFactory) -> None:
    files, everyone = corpus
    project = write_files(tmp_path_factory.mktemp("names"), {
        "content/site.yaml": "title: Names\nsite_url: https://example.org/\n",
        **{f"content/dumps/{name}": text for name, text in files.items()}})
    result = Builder(project).build()
    assert result.ok, [str(d) for d in result.diagnostics]
    authors = json.loads((project / "_site/authors.json").read_text(encoding="utf-8"))["authors"]
    assert sorted(a["name"] for a in authors) == sorted(everyone)
    for author in authors:
        page = (project / "_site/authors" / author["id"] / "index.html").read_text(encoding="utf-8")
        assert f"<h1>{esc(author['name'])}" in page
        assert author["papers"] and (project / "_site/authors" / author["id"] / "feed.xml").is_file()
