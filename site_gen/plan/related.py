"""Related papers, for planning (plan/routes.py): by shared authors, and by subject among a paper's
neighbours in date order.

Papers are ranks here (positions in the site's newest-first order), so lists are compared
and counted as integers, and planning can tell when a result still holds (``incremental.routes.RouteMemo``).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Mapping
from itertools import chain
from operator import itemgetter

RELATED_LIMIT = 5
LONG_LIST = 64
"""Authors with more papers than this get a set of them for probing (``by_authors``)."""


def by_subject(own: int, subjects: list[list[int]], papers: int
               ) -> tuple[tuple[int, ...], tuple[int, int]]:
    """Papers sharing the most subjects, nearest in date; only neighbours are looked at.

    ``subjects`` are the paper's subjects' papers as ranks, sorted, out of ``papers``. Returns
    the ranks found, and the span of ranks the result depends on: the neighbours looked at and
    the paper itself; it reaches the first (last) rank when a subject had fewer than
    ``RELATED_LIMIT`` papers before (after) this one, since any paper added there would count.
    """
    lo = hi = own
    candidates: Counter[int] = Counter()
    for ranks in subjects:
        at = bisect.bisect_left(ranks, own)
        start, end = at - RELATED_LIMIT, at + RELATED_LIMIT + 1
        lo = min(lo, 0 if start < 0 else ranks[start])
        hi = max(hi, papers - 1 if end > len(ranks) else ranks[end - 1])
        candidates.update(ranks[max(0, start):end])
    candidates.pop(own, None)
    best = sorted(candidates.items(),  # a few dozen: cheaper than heapq.nsmallest
                  key=lambda kv: (-kv[1], abs(kv[0] - own), kv[0]))[:RELATED_LIMIT]
    return tuple(r for r, _ in best), (lo, hi)


def by_authors(own: int, groups: list[tuple[int, ...]], sets: list[frozenset[int] | None]
               ) -> tuple[int, ...]:
    """Other papers, most of these authors shared first, then newest first (as ranks).

    ``groups`` are the authors' papers as ranks, sorted. Counting every paper of every author
    would cost the square of a prolific author's paper count summed over that author's
    papers, so the longest list is not counted: it is probed (through its set in ``sets``)
    for the papers of the other lists, and read from its start for papers it alone holds.
    """
    longest = max(range(len(groups)), key=lambda i: len(groups[i]), default=None)
    if longest is None:
        return ()
    counts = Counter(chain.from_iterable(g for i, g in enumerate(groups) if i != longest))
    probe = sets[longest]
    if probe is None:
        probe = frozenset(groups[longest])
    for candidate in counts:
        if candidate in probe:
            counts[candidate] += 1
    counts.pop(own, None)
    shared = sorted(counts.items())  # by rank
    shared.sort(key=itemgetter(1), reverse=True)  # most shared first; stable, so newest first
    best = shared[:RELATED_LIMIT]
    if len(best) < RELATED_LIMIT or best[-1][1] == 1:
        alone = [(r, 1) for r in _first_not_in(groups[longest], counts, own, RELATED_LIMIT)]
        best = sorted([kv for kv in best if kv[1] > 1] + sorted(
            [kv for kv in best if kv[1] == 1] + alone)[:RELATED_LIMIT],
            key=itemgetter(1), reverse=True)[:RELATED_LIMIT]
    return tuple(r for r, _ in best)


def _first_not_in(ranks: tuple[int, ...], counted: Mapping[int, int], own: int,
                  limit: int) -> list[int]:
    """The first ``limit`` ranks of a sorted list that are neither counted nor ``own``."""
    found: list[int] = []
    for r in ranks:
        if r != own and r not in counted:
            found.append(r)
            if len(found) == limit:
                break
    return found
