"""Stage 4, rendering: Routes -> {output path: bytes} through the theme's Jinja2 templates.

Templates come from the project's ``templates/`` first, then the theme; ``!theme/x.html``
always names the theme's own file, so an override can extend the template it replaces.
Autoescape is on everywhere and undefined variables are errors.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from . import __version__, metadata
from .config import Config
from .model import Author, Catalog, Paper, Subject
from .routes import Route
from .text import plain_text, render_abstract, render_title
from .urls import (
    SITE_FEED,
    absolute_url,
    author_bibtex_url,
    author_feed_url,
    author_url,
    citation_url,
    paper_url,
    relative_url,
    subject_feed_url,
    subject_url,
)

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
    env.globals.update(_METADATA_GLOBALS)
    return env


# URL rules and head metadata the templates may call (docs/theming.md lists them).
_METADATA_GLOBALS: dict[str, Any] = {
    "site_feed": SITE_FEED, "citation_url": citation_url, "author_bibtex_url": author_bibtex_url,
    "author_feed_url": author_feed_url, "subject_feed_url": subject_feed_url,
    "highwire_tags": metadata.highwire_tags, "open_graph_tags": metadata.open_graph_tags,
    "twitter_tags": metadata.twitter_tags, "summary": metadata.summary,
    "paper_jsonld": metadata.paper_jsonld, "author_jsonld": metadata.author_jsonld,
    "collection_jsonld": metadata.collection_jsonld, "site_jsonld": metadata.site_jsonld,
}


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
    globals_: Mapping[str, Any], workers: int | None = None,
) -> dict[str, bytes]:
    """Render every route, in parallel worker processes for large sites.

    Raises jinja2 errors, which the builder turns into diagnostics.
    """
    versions = globals_["asset_versions"]

    @jinja2.pass_context
    def asset(context: jinja2.runtime.Context, name: str) -> str:
        return _url(context, ASSETS + name) + f"?v={versions.get(name, '0')}"

    env.filters["asset"] = asset
    env.globals.update(globals_, site=site, catalog=catalog, generator=f"site-gen {__version__}",
                       fragment=_fragment_renderer(env), fragments=_fragment_list_renderer(env))
    workers = workers if workers is not None else _default_workers(len(routes))
    if workers > 1:
        return _render_parallel(env, routes, site, workers)
    return dict(_render_one(env, route, site) for route in routes)


PARALLEL_THRESHOLD = 400
_CHUNK = 64


def _default_workers(count: int) -> int:
    """Processes worth starting: none below a few hundred pages, else one per core."""
    if count < PARALLEL_THRESHOLD or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return min(os.cpu_count() or 1, 8)


def _render_one(env: jinja2.Environment, route: Route, site: Config) -> tuple[str, bytes]:
    html = env.get_template(route.template).render(
        route.context, page_url=route.url, absolute_links=route.url == "404.html",
        canonical=absolute_url(route.url, site.site_url))
    return str(route.output), _tidy(html).encode("utf-8")


# Set in the parent just before forking; workers inherit it (fork start method only).
_JOB: tuple[jinja2.Environment, tuple[Route, ...], Config] | None = None


def _render_chunk(bounds: tuple[int, int]) -> list[tuple[str, bytes]] | None:
    """Worker side: render routes[start:end]; None tells the parent to redo it and raise."""
    assert _JOB is not None
    env, routes, site = _JOB
    try:
        return [_render_one(env, route, site) for route in routes[bounds[0]:bounds[1]]]
    except Exception:  # re-rendered in the parent, which raises it with its traceback
        return None


def _render_parallel(env: jinja2.Environment, routes: tuple[Route, ...], site: Config,
                     workers: int) -> dict[str, bytes]:
    global _JOB
    chunks = [(i, min(i + _CHUNK, len(routes))) for i in range(0, len(routes), _CHUNK)]
    _JOB = (env, routes, site)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_render_chunk, chunks, chunksize=1)
    finally:
        _JOB = None
    outputs: dict[str, bytes] = {}
    for (start, end), rendered in zip(chunks, results):
        if rendered is None:
            rendered = [_render_one(env, route, site) for route in routes[start:end]]
        outputs.update(rendered)
    return outputs


def _fragment_renderer(env: jinja2.Environment) -> Callable[..., Markup]:
    """``fragment(name, **values)``: a partial rendered once per page depth and reused.

    A paper's list item appears on many pages (author, subject, index, related lists); links
    depend only on the page's depth (urls.relative_url), so one rendering serves every page of
    that depth. The cache lives for one build.
    """
    cache: dict[tuple[object, ...], Markup] = {}

    @jinja2.pass_context
    def fragment(context: jinja2.runtime.Context, name: str, **values: object) -> Markup:
        absolute = bool(context.get("absolute_links"))
        depth = -1 if absolute else context["page_url"].count("/")
        key = (name, depth, tuple(sorted(values.items())))
        html = cache.get(key)
        if html is None:
            page_url = "404.html" if absolute else "_/" * depth
            html = Markup(env.get_template(name).render(values, page_url=page_url,
                                                        absolute_links=absolute))
            cache[key] = html
        return html

    return fragment


def _fragment_list_renderer(env: jinja2.Environment) -> Callable[..., Markup]:
    """``fragments(name, var, items, **values)``: ``fragment`` for each item, joined."""
    single = _fragment_renderer(env)

    @jinja2.pass_context
    def fragments(context: jinja2.runtime.Context, name: str, var: str, items: Any,
                  **values: object) -> Markup:
        return Markup("").join(single(context, name, **{var: item}, **values) for item in items)

    return fragments


def _tidy(html: str) -> str:
    """Drop trailing spaces and runs of blank lines that template blocks leave behind."""
    lines = [line.rstrip() for line in html.splitlines()]
    kept = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]
    return "\n".join(kept).strip() + "\n"


__all__ = ["Markup", "Theme", "asset_versions", "make_environment", "render_routes", "target_of"]
