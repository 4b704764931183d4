"""Disk IO: bytes -> the output folder, staged and swapped in atomically.

In: file names and bytes (or parts). Out: ``tree.OutputTree`` stages a new site beside the
old one and swaps it in with one rename, so a failed build never leaves a half-written site;
``Receipt``s say what changed. It knows nothing of papers or pages; rendering and the Builder
hand it bytes.
"""
