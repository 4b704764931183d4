"""Canonical JSON for every file the site writes: compact, key-sorted, HTML-safe, joinable.

``<``, ``>``, ``&``, U+2028 and U+2029 are escaped, so a document can sit inside a ``<script>``
element. A value's text is the same wherever it sits, so a big document (``papers.json``, the
search index) is joined from its parts' texts, and a rebuild reuses the parts that did not
change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping

JsonParts = Iterator[bytes]
"""A JSON text in consecutive pieces, made as they are taken: joined once where the whole
document is made, or written one by one (``Staging.put_parts``)."""


def encode_json(document: object) -> bytes:
    """Compact, key-sorted UTF-8 JSON with HTML-significant characters escaped."""
    return (json_text(document) + "\n").encode("utf-8")


def json_text(value: object) -> str:
    """``value`` as ``encode_json`` writes it, without the final newline.

    The text of a value inside a document is the same wherever the value sits, so a
    document can be joined from the texts of its parts (``json_object``, ``json_array``),
    which lets a rebuild reuse the parts that did not change.
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def json_object(members: Mapping[str, bytes | JsonParts], end: bytes = b"") -> bytes:
    """A JSON object from its members' UTF-8 texts, keys sorted as ``json.dumps`` sorts them.

    Bytes, not str: a document of many megabytes is then one join, never re-encoded whole.
    A member may be given in parts (``json_array``); the document, ``end`` included, is
    made by a single join, since each copy of a 40 MB export costs as much as its pieces.
    """
    return b"".join(json_object_parts(members, end))


def json_object_parts(members: Mapping[str, bytes | JsonParts], end: bytes = b"") -> JsonParts:
    """``json_object`` in the parts it joins, made as they are asked for, for a writer that
    never joins them (``Staging.put_parts``); a member in parts is taken the same way."""
    yield b"{"
    for number, (key, value) in enumerate(sorted(members.items())):
        if number:
            yield b","
        yield json_bytes(key)
        yield b":"
        if isinstance(value, bytes):
            yield value
        else:
            yield from value
    yield b"}"
    yield end


def json_array(texts: Iterable[bytes]) -> JsonParts:
    """A JSON array from its items' UTF-8 texts, in parts made as they are asked for."""
    yield b"["
    for number, text in enumerate(texts):
        if number:
            yield b","
        yield text
    yield b"]"


def json_bytes(value: object) -> bytes:
    """``json_text`` in UTF-8."""
    return json_text(value).encode("utf-8")
