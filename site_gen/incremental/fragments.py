"""List items kept between builds: the render stage's fragments, outliving the build that
rendered them (``render.engine.Fragments`` holds one build's)."""

from __future__ import annotations

from site_gen.render.engine import Fragment, Fragments, stale_marks


class FragmentMemo(Fragments):
    """Rendered fragments, with the lookups each made, kept between builds.

    Between builds, the Builder drops entries whose lookups changed (``drop_stale``) and,
    from time to time, the entries no build used for a while (``rotate``).
    """

    def __init__(self, whole_lists_over: int = 100) -> None:
        super().__init__(whole_lists_over)
        self.previous: dict[tuple[object, ...], Fragment] = {}

    def get(self, key: tuple[object, ...]) -> Fragment | None:
        hit = self.current.get(key)
        if hit is None and (hit := self.previous.pop(key, None)) is not None:
            self.current[key] = hit
        return hit

    def rotate(self) -> None:
        """Start a build, and forget the entries no build used since the last time they were
        forgotten, once the ones used since then are as many.

        An edit renders few pages, so the list items of the others (the papers index's
        10,000) stay until about a site's worth of other items has been used or made; dropped
        at each build, they were gone after two small edits and the third one that touched a
        long list rendered it all again. The memo stays within about twice a site's items.
        """
        if len(self.current) >= len(self.previous):
            self.previous, self.current = self.current, {}

    def drop_stale(self, changes: frozenset[tuple[str, str]]) -> None:
        """Forget the fragments that read an answer among ``changes`` (``incremental.cache.RenderMemory.stale``)."""
        marks = stale_marks(changes)
        if not marks:
            return
        for table in (self.current, self.previous):
            for key in [k for k, (_, lookups) in table.items() if not marks.isdisjoint(lookups)]:
                del table[key]


__all__ = ["FragmentMemo"]
