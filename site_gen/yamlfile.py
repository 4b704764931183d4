"""YAML files with line numbers, so config and curation problems point at a line."""

from __future__ import annotations

import re
from typing import Any

import yaml

from .diagnostics import Diagnostic, error


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
    mapping = LineDict({str(k): v for k, v in loader.construct_mapping(node, deep=True).items()})
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {str(k.value): k.start_mark.line + 1 for k, _ in node.value}
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


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


def line_of(value: object, key: str | None = None) -> int:
    """The line a mapping (or one of its keys) starts on, or 0 when unknown."""
    if not isinstance(value, LineDict):
        return 0
    return value.line_of_key(key) if key else value.line
