"""What a build remembers so that the next one does less: the Builder and its memory.

In: a project folder and the ``changed`` paths a watcher saw. Out: a ``pipeline.BuildResult``
and an output folder byte-identical to a clean build's. ``builder.Builder`` runs the
pipeline's stages; ``cache`` holds the memory between builds (files read, pages rendered and
what they read, the interned catalog). A one-shot ``site-gen build`` is a Builder with empty
memory, which calls each stage's plain function.

The stages' watch-mode variants live here, each held by property tests to the plain function
of its stage, which is the specification: ``catalog.CatalogMemo`` (with ``grouping.Regrouping``)
to ``catalog.assemble.build_catalog``, ``routes.RouteMemo`` to ``plan.routes.plan_routes``,
``outputs.kept_site_file_stream`` (with ``search.kept_search_files``; their pieces are kept in
``pieces.Pieces``) to ``outputs.files.site_file_stream``.
"""
