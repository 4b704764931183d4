"""Stage 2, the catalog: Dumps + Curation -> one ``Catalog`` of papers, authors, subjects.

In: the ``Dump``s and the ``Curation`` from ``read``. Out: ``assemble.build_catalog`` ->
``(Catalog, diagnostics)``. ``merge`` decides which records are one paper (docs/merging.md);
``assemble`` settles each paper's best title and abstract, its authors and subjects, and
applies curation. Plain one-shot functions: watch mode's variant, which reuses what
unchanged dumps made, is ``incremental.catalog``.
"""
