"""Diagnostics: problems in the user's input, reported as ``path:line: message``.

Every stage returns its findings as data instead of raising, so the CLI can print them all at
once, decide the exit code, and refuse to write a half-built site.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass


class Severity(enum.IntEnum):
    """How bad a finding is; errors stop the build, warnings fail it only under ``--strict``."""

    WARNING = 1
    ERROR = 2


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic:
    """One problem, located at a file and a 1-based line (0 when it concerns the whole file).

    A warning has a ``code`` (docs/usage.md lists them), by which curation.yaml can
    acknowledge it at its place."""

    path: str
    line: int
    message: str
    severity: Severity = Severity.ERROR
    code: str = ""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        suffix = f" [{self.code}]" if self.code else ""
        return f"{where}: {prefix}{self.message}{suffix}"


STRICT_ALL = "all"
"""``--strict=all``: every warning fails the build, the informational ones too."""
INFORMATIONAL = frozenset({"claim-count"})
"""Warning codes that report what a dump says rather than a problem to settle: shown, and
failing a build only under ``--strict=all``."""


def error(path: str, line: int, message: str) -> Diagnostic:
    """Shorthand for an error diagnostic."""
    return Diagnostic(path, line, message, Severity.ERROR)


def warning(path: str, line: int, message: str, code: str = "") -> Diagnostic:
    """Shorthand for a warning diagnostic."""
    return Diagnostic(path, line, message, Severity.WARNING, code)


def has_errors(diagnostics: Sequence[Diagnostic]) -> bool:
    """True when any diagnostic is an error."""
    return any(d.severity is Severity.ERROR for d in diagnostics)


def failing(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic], strict: bool | str
            ) -> list[Diagnostic]:
    """What stops a build: errors; with ``strict``, warnings too (the informational ones only
    with ``strict == "all"``)."""
    return [d for d in diagnostics if d.severity is Severity.ERROR or (
        strict and (strict == STRICT_ALL or d.code not in INFORMATIONAL))]


def excerpt(text: str, limit: int = 60) -> str:
    """``text`` quoted, cut at the last word end within ``limit`` characters ("…" added), so a
    message never ends mid-word."""
    if len(text) <= limit:
        return repr(text)
    cut = text[:limit + 1].rsplit(" ", 1)[0] if " " in text[:limit + 1] else text[:limit]
    return repr(cut.rstrip(" ,;:") + "…")
