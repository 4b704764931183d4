"""Stage 3, planning: Catalog + Pages -> the site's URLs, as ``Route``s.

In: the ``Catalog`` and the Markdown ``Page``s. Out: ``routes.plan_routes`` -> a ``Route``
(URL, output path, template, context) per page; ``redirects`` adds a redirect page per URL
recorded in ``content/urls.lock`` that no longer answers; ``related`` chooses "more by these
authors". ``urls`` is the only place that knows the URL scheme. Plain one-shot functions:
watch mode's variant, which reuses last plan's routes, is ``incremental.routes``.
"""
