"""YAML files with line numbers, so config and curation problems point at a line."""

from __future__ import annotations

import difflib
import re
import unicodedata
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


MAX_DEPTH = 50
"""Collections nested deeper than this (aliases expanded) are refused: PyYAML composes and
constructs by recursion, so a file of ten thousand ``[`` would end in RecursionError, and no
settings file nests beyond a handful of levels."""
MAX_ALIASED = 10_000
"""The values aliases (``*name``) may repeat in one file, all told. An alias stands for its
anchor's whole value, so ten short lines of nested aliases ("billion laughs") stand for a
billion values, and every walk over the data (ours, a message's ``repr``) would take for ever. A
file without aliases is never near it: what it holds is as long as the file."""
MAX_NUMBER = 100
"""The longest number (in characters) read as a number: Python refuses to read integers of
more than 4,300 digits, and YAML's base-60 integers (``1:30``) take quadratic time."""


class _LineLoader(yaml.SafeLoader):
    """SafeLoader whose mappings are LineDicts: still no arbitrary objects. It bounds what a
    hostile file can make: nesting (``MAX_DEPTH``), what aliases repeat (``MAX_ALIASED``),
    and numbers' length (``MAX_NUMBER``); and a value no constructor can read is a YAML error
    at its line, never the constructor's exception."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliased = 0
        self._measured: dict[yaml.Node, tuple[int, int]] = {}

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """Compose as PyYAML does, counting depth and what each alias repeats."""
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None:  # else PyYAML reports the undefined alias
                self._count_alias(event, node)
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"values nested more than {MAX_DEPTH} levels deep", event.start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def _count_alias(self, event: yaml.AliasEvent, node: yaml.Node) -> None:
        """Refuse an alias inside the collection it names, or one that takes the file over
        ``MAX_ALIASED`` repeated values or ``MAX_DEPTH`` levels."""
        if isinstance(node, yaml.CollectionNode) and node.end_mark is None:  # still open
            raise _refusal(f"alias *{event.anchor} stands inside the value it names",
                           event.start_mark)
        size, depth = _measure(node, self._measured)
        self._aliased += size
        if self._aliased > MAX_ALIASED:
            raise _refusal(f"aliases (*{event.anchor} and others) repeat more than "
                           f"{MAX_ALIASED:,} values; write the values out", event.start_mark)
        if self._depth + depth > MAX_DEPTH:
            raise _refusal(f"alias *{event.anchor} nests values more than {MAX_DEPTH} levels "
                           "deep", event.start_mark)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """PyYAML's, but a scalar its constructor cannot read (``!!int x``, the date
        ``2024-13-45``) is a YAML error at its line rather than a ValueError."""
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, LookupError, AttributeError, OverflowError):
            raise yaml.constructor.ConstructorError(
                None, None, f"{_excerpt(node)} cannot be read as {_kind(node.tag)}",
                node.start_mark) from None


def _measure(node: yaml.Node, known: dict[yaml.Node, tuple[int, int]]) -> tuple[int, int]:
    """(values, levels) a node stands for, aliases expanded; each collection measured once,
    so nested aliases cost their own lines, not what they expand to."""
    if not isinstance(node, yaml.CollectionNode):
        return 1, 1
    if node not in known:
        children = [child for pair in node.value for child in pair] if isinstance(
            node, yaml.MappingNode) else node.value
        measured = [_measure(child, known) for child in children]
        known[node] = (1 + sum(size for size, _ in measured),
                       1 + max((depth for _, depth in measured), default=0))
    return known[node]


def _excerpt(node: yaml.Node) -> str:
    """A scalar's text as a message quotes it (cut short), or what kind of node it is."""
    if not isinstance(node, yaml.ScalarNode):
        return "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"
    text = str(node.value)
    return repr(text if len(text) <= 40 else text[:40] + "…")


def _kind(tag: str) -> str:
    """A YAML tag in words."""
    name = tag.rpartition(":")[2]
    return {"int": "a whole number", "float": "a number", "bool": "true or false",
            "timestamp": "a date", "binary": "base64"}.get(name, f"!!{name}")


def _construct_int(loader: _LineLoader, node: yaml.ScalarNode) -> int:
    """An integer, unless its text is longer than ``MAX_NUMBER`` characters."""
    if isinstance(node, yaml.ScalarNode) and len(node.value) > MAX_NUMBER:
        raise yaml.constructor.ConstructorError(
            None, None, f"a number {len(node.value):,} characters long (at most {MAX_NUMBER}; "
                        "put text in quotes)", node.start_mark)
    return loader.construct_yaml_int(node)


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
_LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


_SURROGATE = re.compile("[\ud800-\udfff]")


def load_yaml(path: str, text: str) -> tuple[Any, list[Diagnostic]]:
    """Parse YAML safely; a syntax error becomes one diagnostic, on one line, at its line
    (counted as the dump readers count lines: PyYAML also breaks lines at U+2028 and NEL)."""
    try:
        data = yaml.load(text, Loader=_LineLoader)  # a SafeLoader subclass
    except yaml.reader.ReaderError as exc:  # a character YAML refuses anywhere in the file
        return None, [error(path, _line_at(text, exc.position),
                            f"invalid YAML: {_refused_character(exc.character)}")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = _line_at(text, mark.index) if mark else 1
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [error(path, line, f"invalid YAML: {' '.join(problem.split())}")]
    except (ValueError, TypeError, LookupError, AttributeError, OverflowError, RecursionError):
        # construct_object reports these at their node; a top-level !!set's deferred
        # construction is the one path that could bypass it
        return None, [error(path, 1, "invalid YAML: a value cannot be read")]
    line = _surrogate_line(data, 1)
    if line:
        return None, [error(path, line, "invalid Unicode: an escape such as \\ud800 names half "
                                        "of a surrogate pair, which no file can hold")]
    return data, []


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _line_at(text: str, index: int) -> int:
    """The 1-based line of ``text[index]``, lines ending at CR LF, CR or LF."""
    return len(_LINE_BREAK.findall(text, 0, max(0, index))) + 1


def _refused_character(code: int | bytes) -> str:
    """Why the YAML reader stopped at a character, in words."""
    if isinstance(code, bytes):
        return "a byte that is not text"
    kind = "control character" if unicodedata.category(chr(code)) == "Cc" else "character"
    return f"{kind} U+{code:04X} is not allowed in YAML; delete it"


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


def quoted(value: object, limit: int = 60) -> str:
    """A value as a message quotes it (``repr``), cut short: a value may be a long list."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def line_of_item(items: object, index: int, fallback: int) -> int:
    """The line item ``index`` of a YAML list stands on, or ``fallback`` when unknown."""
    lines = items.item_lines if isinstance(items, LineList) else ()
    return lines[index] if index < len(lines) else fallback


def line_of(value: object, key: str | None = None) -> int:
    """The line a mapping (or one of its keys) starts on, or 0 when unknown."""
    if not isinstance(value, LineDict):
        return 0
    return value.line_of_key(key) if key else value.line


def _refusal(message: str, mark: Any) -> yaml.composer.ComposerError:
    """The error a refused alias raises: PyYAML reports it at ``mark`` as its own."""
    return yaml.composer.ComposerError(None, None, message, mark)
