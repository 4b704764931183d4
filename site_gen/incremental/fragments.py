"""List items kept between builds: the render stage's fragments, outliving the build that
rendered them (``render.engine.Fragments`` holds one build's)."""

from __future__ import annotations

from itertools import islice

from site_gen.render.engine import Fragment, Fragments, stale_marks

ITEMS_PER_PAGE = 8
"""How many list items a FragmentMemo keeps per page of the site (``trim``): a site built
with the default theme has 3.5 (10,000 papers: 42,000 items for 12,000 pages); the rest is
room for the items of papers as they were before edits, which an undo finds again."""


class FragmentMemo(Fragments):
    """Rendered fragments, with the lookups each made, kept between builds in the order they
    were last used.

    Between builds, the Builder drops entries whose lookups changed (``drop_stale``) and, past
    ``ITEMS_PER_PAGE`` a page of the site, those used least recently (``trim``). So a run of
    edits keeps the items of the lists it did not touch, however long: with a memo that kept
    only what the last builds used, a paper added after other kinds of edit rendered the
    papers index's 10,000 items again.
    """

    def get(self, key: tuple[object, ...]) -> Fragment | None:
        hit = self.current.pop(key, None)
        if hit is not None:
            self.current[key] = hit  # now the most recently used
        return hit

    def trim(self, pages: int) -> None:
        """Start a build of a site of ``pages`` pages: drop the entries used least recently
        beyond ``ITEMS_PER_PAGE`` a page."""
        excess = len(self.current) - ITEMS_PER_PAGE * pages
        if excess > 0:
            for key in list(islice(self.current, excess)):
                del self.current[key]

    def drop_stale(self, changes: frozenset[tuple[str, str]]) -> None:
        """Forget the fragments that read an answer among ``changes`` (``incremental.cache.RenderMemory.stale``)."""
        marks = stale_marks(changes)
        if not marks:
            return
        table = self.current
        for key in [k for k, (_, lookups) in table.items() if not marks.isdisjoint(lookups)]:
            del table[key]


__all__ = ["ITEMS_PER_PAGE", "FragmentMemo"]
