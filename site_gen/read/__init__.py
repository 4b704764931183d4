"""Stage 1, reading: the files a user writes -> plain, frozen values + Diagnostics.

In: bytes of ``content/dumps/**/*.txt``, ``site.yaml``, ``curation.yaml``, ``pages/*.md``.
Out: ``Dump`` (raw ``Record``s as one dump states them; ``dumps.read_dump`` sniffs the format
and hands the lines to ``listing`` or ``coauthor``), ``Config`` (``config``), ``Curation``
(``curation``), ``Page`` (``pages``). Nothing here knows of other files: merging is the
catalog's job.
"""
