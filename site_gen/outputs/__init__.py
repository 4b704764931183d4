"""Stage 5, the files beside the pages: Catalog (+ Routes) -> {output path: bytes}.

In: the ``Catalog``, the ``Config`` and the ``Route``s. Out: ``files.site_file_stream``
yields every file once, each made when asked for: the search index (``search``), Atom feeds
(``feeds``), citation files (``citations``), data exports (``exports``), the sitemap
(``sitemap``) and GitHub Pages' ``.nojekyll``/``CNAME``. Each generator is a plain function
of its inputs and keeps nothing: it is the specification of its files. It exposes the piece
it makes per paper or author and the function that joins the pieces, which the rebuilding
variants in ``incremental.outputs`` and ``incremental.search`` reuse.
"""
