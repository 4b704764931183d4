"""YAML files with line numbers, so config and curation problems point at a line."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from site_gen.util.diagnostics import Diagnostic, error


class LineDict(dict[str, Any]):
    """A mapping from YAML that remembers the 1-based line it started on."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of_key(self, key: str) -> int:
        """The line a key stands on (the mapping's own line when unknown)."""
        return getattr(self, "key_lines", {}).get(key, self.line)


class _LineLoader(yaml.SafeLoader):
    """SafeLoader whose mappings are LineDicts: still no arbitrary objects."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    seen: set[object] = set()
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value in seen:  # YAML would keep the last
            raise yaml.constructor.ConstructorError(
                None, None, f"{key.value!r} appears twice in this mapping; merge the two",
                key.start_mark)
        seen.add(key.value if isinstance(key, yaml.ScalarNode) else id(key))
    mapping = LineDict({str(k): v for k, v in loader.construct_mapping(node, deep=True).items()})
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {str(k.value): k.start_mark.line + 1 for k, _ in node.value}
    return mapping


class LineList(list[Any]):
    """A sequence from YAML that remembers the 1-based line of each item."""

    item_lines: tuple[int, ...] = ()


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    items = LineList(loader.construct_sequence(node, deep=True))
    items.item_lines = tuple(item.start_mark.line + 1 for item in node.value)
    return items


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


_SURROGATE = re.compile("[\ud800-\udfff]")


def load_yaml(path: str, text: str) -> tuple[Any, list[Diagnostic]]:
    """Parse YAML safely; a syntax error becomes a diagnostic at its line."""
    try:
        data = yaml.load(text, Loader=_LineLoader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [error(path, line, f"invalid YAML: {problem}")]
    line = _surrogate_line(data, 1)
    if line:
        return None, [error(path, line, "invalid Unicode: an escape such as \\ud800 names half "
                                        "of a surrogate pair, which no file can hold")]
    return data, []


def read_text(path: Path, shown: str) -> tuple[str | None, list[Diagnostic]]:
    """A user's text file as UTF-8 (a BOM allowed); unreadable or mis-encoded is a diagnostic
    at the line of the first bad byte, never an exception."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, [error(shown, 0, f"cannot read: {exc.strerror or exc}")]
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        return None, [error(shown, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                                         "save the file as UTF-8")]


def load_yaml_file(path: Path, shown: str) -> tuple[Any, list[Diagnostic]]:
    """``load_yaml`` on a file, with ``read_text``'s diagnostics."""
    text, problems = read_text(path, shown)
    return (None, problems) if text is None else load_yaml(shown, text)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """" (did you mean 'language'?)" for a misspelt key, else a list of the known keys."""
    choices = sorted(known)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (expected one of: {', '.join(choices)})"


def _surrogate_line(value: Any, line: int) -> int:
    """The line of a mapping holding a lone surrogate (escaped in a quoted string), or 0."""
    if isinstance(value, str):
        return line if _SURROGATE.search(value) else 0
    if isinstance(value, dict):
        here = value.line if isinstance(value, LineDict) else line
        for key, item in value.items():
            where = value.line_of_key(str(key)) if isinstance(value, LineDict) else here
            found = _surrogate_line(key, where) or _surrogate_line(item, where)
            if found:
                return found
    if isinstance(value, list):
        return next((found for item in value if (found := _surrogate_line(item, line))), 0)
    return 0


def line_of_item(items: object, index: int, fallback: int) -> int:
    """The line item ``index`` of a YAML list stands on, or ``fallback`` when unknown."""
    lines = items.item_lines if isinstance(items, LineList) else ()
    return lines[index] if index < len(lines) else fallback


def line_of(value: object, key: str | None = None) -> int:
    """The line a mapping (or one of its keys) starts on, or 0 when unknown."""
    if not isinstance(value, LineDict):
        return 0
    return value.line_of_key(key) if key else value.line
