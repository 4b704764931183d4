"""Stage 4, rendering: Routes -> HTML pages, staged on disk, with their digests.

In: ``Route``s, the ``Config`` and a ``Theme`` (Jinja2 templates and static files, the
project's own first). Out: ``engine.PageRendering`` renders every route (in forked workers
for a large site), hands the bytes to a ``write.tree.Staging`` and returns ``Receipt``s.
``metadata`` makes each page's head (Highwire, JSON-LD, Open Graph); ``citation`` formats a
paper as BibTeX, RIS and CSL-JSON (the cite box, and the files in ``outputs``); ``snippets``
are pieces of HTML the templates call as filters.
"""
