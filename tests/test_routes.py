"""Route planning: the related-papers ranking against a plain reference implementation."""

from __future__ import annotations

from collections import Counter
from itertools import chain

from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.routes import RELATED_LIMIT, _related


def reference(own: int, groups: list[tuple[int, ...]]) -> list[int]:
    """Count every paper of every author; most shared first, then newest (lowest rank)."""
    counts = Counter(chain.from_iterable(groups))
    counts.pop(own, None)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [rank for rank, _ in ranked[:RELATED_LIMIT]]


@st.composite
def authors_of_a_paper(draw: st.DrawFn) -> tuple[int, list[tuple[int, ...]]]:
    """A paper's rank and its authors' papers (sorted ranks, each holding the paper)."""
    own = draw(st.integers(0, 300))
    lists = draw(st.lists(st.sets(st.integers(0, 300), max_size=150), min_size=1, max_size=6))
    if draw(st.booleans()) and lists:  # the same author listed twice
        lists.append(lists[0])
    return own, [tuple(sorted(papers | {own})) for papers in lists]


@settings(max_examples=500, deadline=None)
@given(authors_of_a_paper(), st.booleans())
def test_related_papers_match_counting_every_paper(case, with_sets: bool) -> None:
    own, groups = case
    sets = [frozenset(g) if with_sets else None for g in groups]
    by_rank = list(range(302))
    assert list(_related(own, groups, sets, by_rank)) == reference(own, groups)  # type: ignore[arg-type]


def test_a_prolific_author_is_probed_not_counted() -> None:
    big = tuple(range(0, 20_000, 2))
    small = (4, 7, 9, 11)
    # 4 is shared by both authors; then the newest of either, skipping the paper itself
    assert list(_related(7, [big, small], [frozenset(big), None], list(range(20_000)))) == \
        [4, 0, 2, 6, 8]
