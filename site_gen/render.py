"""Stage 4, rendering: Routes -> {output path: bytes} through the theme's Jinja2 templates.

Templates come from the project's ``templates/`` first, then the theme; ``!theme/x.html``
always names the theme's own file, so an override can extend the template it replaces.
Autoescape is on everywhere and undefined variables are errors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import meta
from markupsafe import Markup

from . import __version__
from .config import Config
from .model import Author, Catalog, Paper, Subject
from .routes import Route
from .text import plain_text, render_abstract, render_title
from .urls import absolute_url, author_url, paper_url, relative_url, subject_url

ASSETS = "assets/"


@dataclass(frozen=True, slots=True)
class Theme:
    """Where templates and static files come from, in override order."""

    template_dirs: tuple[Path, ...]
    static_dirs: tuple[Path, ...]


def make_environment(theme: Theme, theme_templates: Path) -> jinja2.Environment:
    """A Jinja2 environment with our filters; one per build, templates compiled once."""
    loader = jinja2.ChoiceLoader([
        jinja2.PrefixLoader({"!theme": jinja2.FileSystemLoader(theme_templates)}, delimiter="/"),
        jinja2.FileSystemLoader([str(d) for d in theme.template_dirs]),
    ])
    env = jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             auto_reload=False)
    env.filters.update(url=_url, href=_href, abstract=render_abstract, plain=plain_text,
                       title=render_title,
                       absolute=_absolute)
    return env


def template_sources(env: jinja2.Environment, name: str) -> tuple[tuple[str, str], ...]:
    """The sources of a template and of every template it extends, imports or includes.

    A page depends on exactly these texts. A reference computed at render time cannot be
    followed, so such a template is taken to depend on every template there is.
    """
    seen: dict[str, str] = {}
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen[current] = source = env.loader.get_source(env, current)[0]  # type: ignore[union-attr]
        for referenced in _references(env, source):
            pending += env.list_templates() if referenced is None else [referenced]
    return tuple(sorted(seen.items()))


_REFERENCES: dict[str, tuple[str | None, ...]] = {}


def _references(env: jinja2.Environment, source: str) -> tuple[str | None, ...]:
    """Template names a source refers to (None for a dynamic one); parsed once per text."""
    if source not in _REFERENCES:
        if len(_REFERENCES) > 512:  # a long watch session edits templates many times
            _REFERENCES.clear()
        _REFERENCES[source] = tuple(meta.find_referenced_templates(env.parse(source)))
    return _REFERENCES[source]


def target_of(obj: object) -> str:
    """The site URL of a model object (or a URL string as it is)."""
    if isinstance(obj, Paper):
        return paper_url(obj.id)
    if isinstance(obj, Author):
        return author_url(obj.id)
    if isinstance(obj, Subject):
        return subject_url(obj.code)
    return str(obj)


@jinja2.pass_context
def _url(context: jinja2.runtime.Context, target: str) -> str:
    """Link to a site URL from the current page: relative, or base-path absolute on 404."""
    if context.get("absolute_links"):
        return context["site"].base_path + target
    return relative_url(target, context["page_url"])


@jinja2.pass_context
def _href(context: jinja2.runtime.Context, obj: object) -> str:
    return _url(context, target_of(obj))


@jinja2.pass_context
def _absolute(context: jinja2.runtime.Context, obj: object) -> str:
    return absolute_url(target_of(obj), context["site"].site_url)


def asset_versions(static: Mapping[str, bytes]) -> dict[str, str]:
    """Short content hashes of static files, appended to their URLs so caches never go stale."""
    return {name: hashlib.sha256(data).hexdigest()[:10] for name, data in static.items()}


def render_routes(
    env: jinja2.Environment, routes: tuple[Route, ...], site: Config, catalog: Catalog,
    globals_: Mapping[str, Any],
) -> dict[str, bytes]:
    """Render every route; raises jinja2 errors, which the builder turns into diagnostics."""
    rendered = render_pages(env, routes, site, catalog, globals_)
    return {name: page.data for name, page in rendered.items()}


@dataclass(frozen=True, slots=True)
class Rendered:
    """One page's bytes, and the catalog lookups its templates made beyond the route's context."""

    data: bytes
    lookups: frozenset[tuple[str, str]]


def render_pages(
    env: jinja2.Environment, routes: tuple[Route, ...], site: Config, catalog: Catalog,
    globals_: Mapping[str, Any],
) -> dict[str, Rendered]:
    """Render routes, noting what each looked up, so a rebuild can tell which pages are stale."""
    tracked = TrackedCatalog(catalog)
    versions = TrackedMapping(globals_["asset_versions"], "asset", tracked.lookups)

    @jinja2.pass_context
    def asset(context: jinja2.runtime.Context, name: str) -> str:
        return _url(context, ASSETS + name) + f"?v={versions.get(name, '0')}"

    env.filters["asset"] = asset
    env.globals.update(globals_, site=site, catalog=tracked, generator=f"site-gen {__version__}",
                       asset_versions=versions)
    outputs: dict[str, Rendered] = {}
    for route in routes:
        tracked.lookups.clear()
        template = env.get_template(route.template)
        html = template.render(route.context, page_url=route.url,
                               absolute_links=route.url == "404.html",
                               canonical=absolute_url(route.url, site.site_url))
        outputs[str(route.output)] = Rendered(_tidy(html).encode("utf-8"),
                                              frozenset(tracked.lookups))
    return outputs


class TrackedMapping(Mapping[str, Any]):
    """A read-only mapping whose lookups are noted as ``(kind, key)``; iterating is ``("*", kind)``."""

    def __init__(self, data: Mapping[str, Any], kind: str, lookups: set[tuple[str, str]]) -> None:
        self._data, self._kind, self._lookups = data, kind, lookups

    def __getitem__(self, key: str) -> Any:
        self._lookups.add((self._kind, key))
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        self._lookups.add((self._kind, str(key)))
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        self._lookups.add(("*", self._kind))
        return iter(self._data)

    def __len__(self) -> int:
        self._lookups.add(("*", self._kind))
        return len(self._data)


class TrackedCatalog:
    """The catalog as templates see it: the same lookups, each noted for the page being rendered.

    A lookup is ``(kind, key)``: ``("paper", id)``, ``("author", id)``, ``("subject", code)``;
    a whole collection is ``(name, "")``; anything else ``("*", attribute)``.
    """

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self.lookups: set[tuple[str, str]] = set()

    def paper(self, paper_id: str) -> Paper:
        """The paper with this id."""
        self.lookups.add(("paper", paper_id))
        return self._catalog.paper(paper_id)

    def author(self, author_id: str) -> Author:
        """The author with this id."""
        self.lookups.add(("author", author_id))
        return self._catalog.author(author_id)

    def subject(self, code: str) -> Subject:
        """The subject with this code."""
        self.lookups.add(("subject", code))
        return self._catalog.subject(code)

    @property
    def papers(self) -> tuple[Paper, ...]:
        self.lookups.add(("papers", ""))
        return self._catalog.papers

    @property
    def authors(self) -> tuple[Author, ...]:
        self.lookups.add(("authors", ""))
        return self._catalog.authors

    @property
    def profiled_authors(self) -> tuple[Author, ...]:
        self.lookups.add(("authors", ""))
        return self._catalog.profiled_authors

    @property
    def subjects(self) -> tuple[Subject, ...]:
        self.lookups.add(("subjects", ""))
        return self._catalog.subjects

    def __getattr__(self, name: str) -> object:
        self.lookups.add(("*", name))
        return getattr(self._catalog, name)


def _tidy(html: str) -> str:
    """Drop trailing spaces and runs of blank lines that template blocks leave behind."""
    lines = [line.rstrip() for line in html.splitlines()]
    kept = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]
    return "\n".join(kept).strip() + "\n"


__all__ = [
    "Markup",
    "Rendered",
    "Theme",
    "TrackedCatalog",
    "asset_versions",
    "make_environment",
    "render_pages",
    "render_routes",
    "target_of",
]
