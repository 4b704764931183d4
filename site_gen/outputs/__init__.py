"""Stage 5, the files beside the pages: Catalog (+ Routes) -> {output path: bytes}.

In: the ``Catalog``, the ``Config`` and the ``Route``s. Out: ``files.site_file_stream``
yields every file once, each made when asked for: the search index (``search``), Atom feeds
(``feeds``), citation files (``citations``), data exports (``exports``), the sitemap
(``sitemap``) and GitHub Pages' ``.nojekyll``/``CNAME``. Each generator is a function of its
inputs; given the ``pieces`` of a previous build it reuses what it made from the same inputs.
"""
