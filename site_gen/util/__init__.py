"""Helpers every stage may use; they know nothing of papers or pages.

In: strings, bytes, YAML files. Out: ``Diagnostic`` (bad input as data), text folding and
LaTeX rendering (``text``), canonical JSON (``jsonenc``), YAML with line numbers
(``yamlfile``), the arXiv subject table (``subjects``), progress display, the helpers that tie
a forked process's life to its parent (``lifeline``), path safety checks (``safety``) and
fast pickling of frozen dataclasses (``pickling``).
"""
