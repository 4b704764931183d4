"""Owner-written pages: ``content/pages/*.md`` (YAML front matter + Markdown) -> Pages."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup
from mdit_py_plugins.dollarmath import dollarmath_plugin

from site_gen.util.diagnostics import Diagnostic, Severity, error, warning
from site_gen.util.pickling import pickled_by_fields
from site_gen.util.text import render_math, slugify
from site_gen.util.yamlfile import did_you_mean, line_of, load_yaml, read_text

PAGES_DIR = "pages"
RESERVED = frozenset({"papers", "authors", "subjects", "search", "assets", "404"})
FRONT_MATTER_KEYS = {"title": "text", "slug": "text", "nav": "true or false",
                     "order": "a whole number"}
"""What a page's front matter may set, and what each value must be (docs/configuration.md)."""
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?\n?", re.DOTALL | re.MULTILINE)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Page:
    """A rendered Markdown page with its front matter."""

    slug: str
    title: str
    body: Markup
    source: str
    nav: bool = True
    order: int = 0
    files: tuple[str, ...] = ()
    """Files beside the page's ``.md`` that it shows or links (relative to the pages folder),
    published beside the page (``<slug>/<file>``) so its relative URLs work; only the kinds
    in ``PUBLISHED_BESIDE``."""


PUBLISHED_BESIDE = frozenset({
    # images
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".bmp", ".ico", ".tif", ".tiff",
    # documents, text and data
    ".pdf", ".txt", ".csv", ".tsv", ".json", ".bib", ".ris", ".tex", ".ps", ".eps",
    ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".epub",
    ".dat", ".npy", ".npz", ".h5", ".hdf5", ".mat", ".parquet", ".ipynb",
    ".py", ".r", ".jl", ".m", ".c", ".h", ".cpp", ".sh",
    # archives
    ".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".zst", ".7z",
    # audio and video
    ".mp3", ".m4a", ".ogg", ".oga", ".wav", ".flac", ".mp4", ".m4v", ".webm", ".ogv", ".mov",
})
"""The kinds of file published beside a page: those a browser shows or downloads but never
runs. Anything else a page links (``.html``, ``.svg``, ``.xml``, ``.js`` and every other kind
a server may send as a document that runs script) is not published, with a warning: pages are
the owner's, but a file pasted beside one must not run script on the site. Such a file
belongs in the project's ``static/`` folder, the theme layer that is published as it is."""


def _markdown() -> MarkdownIt:
    # Raw HTML stays off: pages are the owner's, but a pasted snippet must not run script.
    # $...$ and $$...$$ are typeset as in abstracts (text.render_math: sanitised MathML).
    md = MarkdownIt("commonmark", {"html": False, "typographer": True}).enable(
        ["table", "strikethrough", "replacements", "smartquotes"])
    dollarmath_plugin(md, allow_space=False, allow_digits=False, double_inline=True,
                      renderer=lambda tex, options: str(render_math(tex, options["display_mode"])))
    return md


def _files_beside(tokens: list[Token], folder: Path, shown: str, first_line: int
                  ) -> tuple[tuple[str, ...], list[Diagnostic]]:
    """The files in the pages folder that the page's images and links name by a relative URL
    (not other pages: those are ``.md``) and that may be published (``PUBLISHED_BESIDE``),
    and a warning for each other one, at the first line naming it (``first_line``: the
    line of the Markdown's first line in the file)."""
    found: set[str] = set()
    refused: dict[str, int] = {}
    for token in tokens:
        for child in token.children or ():
            url = child.attrGet("src") if child.type == "image" else (
                child.attrGet("href") if child.type == "link_open" else None)
            parts = urlsplit(str(url or ""))
            if not parts.path or parts.scheme or parts.netloc or parts.path.startswith("/"):
                continue
            path = (folder / unquote(parts.path)).resolve()
            if path.is_file() and path.suffix != ".md" and path.is_relative_to(folder.resolve()):
                name = path.relative_to(folder.resolve()).as_posix()
                if path.suffix.lower() in PUBLISHED_BESIDE:
                    found.add(name)
                else:
                    refused.setdefault(name, first_line + (token.map or (0, 0))[0])
    return tuple(sorted(found)), [
        warning(shown, line, f"{name} is not published: a browser could run it, script and all, "
                             "as a page of the site (beside pages, only images, documents, data, "
                             "archives and media are published); if you trust it, put it in the "
                             f"project's static/ folder and link it as "
                             f"../assets/{PurePosixPath(name).name}", "not-published")
        for name, line in sorted(refused.items())]


def read_pages(content_dir: Path, shown_dir: str) -> tuple[tuple[Page, ...], list[Diagnostic]]:
    """Every ``*.md`` in the pages folder, sorted by (order, title)."""
    folder = content_dir / PAGES_DIR
    if not folder.is_dir():
        return (), []
    md = _markdown()
    pages: list[Page] = []
    diagnostics: list[Diagnostic] = []
    for path in sorted(folder.glob("*.md")):
        shown = f"{shown_dir}/{PAGES_DIR}/{path.name}"
        page, problems = _read_page(md, path, shown)
        diagnostics += problems
        if page is not None:
            pages.append(page)
    return tuple(sorted(pages, key=lambda p: (p.order, p.title, p.slug))), diagnostics


def _read_page(md: MarkdownIt, path: Path, shown: str) -> tuple[Page | None, list[Diagnostic]]:
    text, problems = read_text(path, shown)
    if text is None:
        return None, problems
    meta: object = {}
    match = _FRONT_MATTER.match(text)
    if match:
        meta, problems = load_yaml(shown, match.group(1))
        if problems:
            return None, [replace(p, line=p.line + 1) for p in problems]  # after the "---"
        text = text[match.end():]
    first_line = match.group().count("\n") + 1 if match else 1  # the Markdown's, in the file
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return None, [error(shown, 1, "front matter must be a mapping (title: ...)")]
    problems = _front_matter_problems(meta, shown)
    if any(p.severity is Severity.ERROR for p in problems):
        return None, problems
    slug = slugify(str(meta.get("slug") or path.stem))
    if not slug or slug in RESERVED:
        return None, [error(shown, 1, f"page slug {slug!r} is empty or reserved; set 'slug:'")]
    title = str(meta.get("title") or path.stem.replace("-", " ").title())
    order = meta.get("order", 0)
    tokens = md.parse(text)
    body = Markup(md.renderer.render(tokens, md.options, {}))
    files, refused = _files_beside(tokens, path.parent, shown, first_line)
    return Page(slug, title, body, shown, meta.get("nav", True) is not False,
                order if isinstance(order, int) else 0, files), problems + refused


def _front_matter_problems(meta: dict[str, object], shown: str) -> list[Diagnostic]:
    """Unknown keys (warnings, with the likely one meant) and values of the wrong kind
    (errors), each at its line below the opening ``---``."""
    problems = [warning(shown, line_of(meta, key) + 1, f"unknown front matter key {key!r} "
                                                       f"ignored{did_you_mean(key, FRONT_MATTER_KEYS)}",
                          "unknown-key")
                for key in sorted(set(map(str, meta)) - FRONT_MATTER_KEYS.keys())]
    for key, kind in FRONT_MATTER_KEYS.items():
        value = meta.get(key)
        if value is None:
            continue
        fits = {"text": isinstance(value, str), "true or false": isinstance(value, bool),
                "a whole number": isinstance(value, int) and not isinstance(value, bool)}[kind]
        if not fits:
            problems.append(error(shown, line_of(meta, key) + 1, f"{key} must be {kind}, "
                                                                 f"not {value!r}"))
    return problems
