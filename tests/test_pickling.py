"""``util.pickling.pickled_by_fields``: what the build cache and the dump parsers pickle comes
back whole, fields left out of equality included, and a class it cannot serve is refused."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import pytest

from site_gen.catalog.merge import RecordKeys, dump_keys
from site_gen.incremental.builder import Builder
from site_gen.incremental.cache import PageMemo
from site_gen.model import Author, Dump, Paper, Record, SourceRef, Subject
from site_gen.pipeline import parse_dump
from site_gen.plan.routes import Pager, Route
from site_gen.util.pickling import pickled_by_fields


def same_fields(a: Any, b: Any) -> bool:
    """Equal in every field, the ones equality leaves out too, down through nested objects."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_fields(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_fields(a[k], b[k]) for k in a)
    if hasattr(type(a), "__dataclass_fields__"):
        return all(same_fields(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return bool(a == b)


def test_a_demo_plan_comes_back_whole(demo_project: Path) -> None:
    plan = Builder(demo_project).plan()[0]
    assert plan is not None
    catalog = plan.catalog
    routes = plan.routes
    memos = [PageMemo(route, frozenset({("paper", "x")}), b"\0" * 16) for route in routes]
    every = (catalog.papers, catalog.authors, catalog.subjects, routes, memos)
    back = pickle.loads(pickle.dumps(every, protocol=pickle.HIGHEST_PROTOCOL))
    assert same_fields(back, every)
    # the catalog's lookups hold the objects unpickled, each once: shared objects stay shared
    papers = back[0]
    assert any(type(r.context.get("paper")) is Paper for r in back[3])
    by_id = {p.id: p for p in papers}
    assert all(r.context["paper"] is by_id[r.context["paper"].id]
               for r in back[3] if type(r.context.get("paper")) is Paper)
    assert any(a.members for a in back[1]) and any(s.members for s in back[2])
    assert any(type(r.context.get("pager")) is Pager for r in back[3])


def test_parsed_dumps_come_back_whole(demo_project: Path) -> None:
    for path in sorted((demo_project / "content" / "dumps").iterdir()):
        parsed = parse_dump(f"content/dumps/{path.name}", path.read_bytes())
        dump, keys = parsed[0], parsed[2]
        assert isinstance(dump, Dump) and keys == dump_keys(dump)
        back, keys_back = pickle.loads(pickle.dumps((dump, keys), protocol=pickle.HIGHEST_PROTOCOL))
        assert same_fields(back, dump) and keys_back == keys
        assert all(type(k) is RecordKeys for k in keys_back)
        assert all(type(r) is Record and type(r.source) is SourceRef for r in back.records)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class One:
    value: tuple[int, ...] = ()


def test_one_field_and_defaults() -> None:
    assert pickle.loads(pickle.dumps(One((1, 2)))) == One((1, 2))
    author = Author("a", "A", ("p",), (), None, None, ("A.",), ("old-a",))
    assert same_fields(pickle.loads(pickle.dumps(author)), author)
    subject = Subject("cs.LG", "Machine Learning", "Computer Science", True, ("p", "q"))
    assert same_fields(pickle.loads(pickle.dumps(subject)), subject)
    route = Route("papers/p/", "papers/p/index.html", "paper.html", {"n": 1}, "content/pages/p.md")
    assert same_fields(pickle.loads(pickle.dumps(route)), route)


def test_a_class_whose_init_does_more_is_refused() -> None:
    with pytest.raises(TypeError):
        @pickled_by_fields
        @dataclass(frozen=True)
        class Checked:
            value: int

            def __post_init__(self) -> None:
                pass

    with pytest.raises(TypeError):
        @pickled_by_fields
        @dataclass(frozen=True)
        class Derived:
            value: int
            made: int = field(init=False, default=0)

    with pytest.raises(TypeError):
        @pickled_by_fields
        @dataclass(frozen=True, kw_only=True)
        class Named:
            value: int

    with pytest.raises(TypeError):
        pickled_by_fields(int)
