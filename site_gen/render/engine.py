"""Stage 4, rendering: Routes -> pages staged on disk, through the theme's Jinja2 templates.

``PageRendering`` renders each route (in forked workers for a large site), hands the bytes to
a ``PageWriter`` (``write.tree.Staging``) and returns, per page, a ``Rendered``: its digest and
what it read. The bytes are not kept.

Templates come from the project's ``templates/`` first, then the theme; ``!theme/x.html``
always names the theme's own file, so an override can extend the template it replaces.
Autoescape is on everywhere and undefined variables are errors.

Each page also reports what it read beyond its route's context (``Rendered.lookups``): the
catalog lookups its templates made, the entries of tracked globals (asset versions, BibTeX)
and every template it loaded. A Builder kept alive compares those with what changed to decide
which pages to render again (incremental/cache.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import chain, islice
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any, Protocol, Self, cast

import jinja2
from markupsafe import Markup, escape

from site_gen import __version__
from site_gen.model import Author, Catalog, Paper, Subject, noting_reads
from site_gen.plan.routes import Route
from site_gen.plan.urls import (
    SITE_FEED,
    absolute_url,
    author_bibtex_url,
    author_feed_url,
    author_url,
    citation_url,
    link_from,
    paper_url,
    subject_feed_url,
    subject_url,
    to_root,
)
from site_gen.read.config import Config
from site_gen.render import metadata, snippets
from site_gen.util.lifeline import die_with_parent
from site_gen.util.progress import NoProgress, Progress
from site_gen.util.text import plain_text, render_abstract, render_title
from site_gen.write.tree import Receipt, digest

ASSETS = "assets/"


@dataclass(frozen=True, slots=True)
class Theme:
    """Where templates and static files come from, in override order."""

    template_dirs: tuple[Path, ...]
    static_dirs: tuple[Path, ...]


def make_environment(theme: Theme, theme_templates: Path, rebuilds: bool = True
                     ) -> TrackingEnvironment:
    """A Jinja2 environment with our filters; one per build, templates compiled once.

    ``rebuilds=False`` (a one-shot build): abstracts are rendered without the memo, as each
    is shown on one page; the memo held every abstract's HTML (about 19 MB at 10,000 papers,
    over the processes that render) and never answered."""
    loader = jinja2.ChoiceLoader([
        jinja2.PrefixLoader({"!theme": jinja2.FileSystemLoader(theme_templates)}, delimiter="/"),
        jinja2.FileSystemLoader([str(d) for d in theme.template_dirs]),
    ])
    env = TrackingEnvironment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             auto_reload=False)
    env.filters.update(url=_url, href=_href, plain=plain_text,
                       abstract=render_abstract if rebuilds else render_abstract.__wrapped__,
                       title=render_title,
                       absolute=_absolute)
    # Markup the theme's busiest macros build in Python. Filters rather than globals: every
    # template context copies every global, and a page makes several contexts.
    env.filters.update(metadata.FILTERS, **snippets.FILTERS)
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


MARKED_PAGE = "\x00"
"""``page_url`` while a fragment is rendered: its links are marked (``LINK_MARK``,
``ROOT_MARK``), not made for one page, and each page that shows it puts its own way to the
site's root in their place (``unmarked``). Readers remove control characters from every text
of the input, so no text a fragment shows holds a mark."""
LINK_MARK = "\x00"
"""Where a marked fragment's link to a site URL starts."""
ROOT_MARK = "\x01"
"""A marked fragment's link to the site's root (``./`` on the home page)."""


@jinja2.pass_context
def _url(context: jinja2.runtime.Context, target: str) -> str:
    """Link to a site URL from the current page: relative, base-path absolute on 404, or
    marked in a fragment being rendered."""
    base = link_base(context)
    if base is None:
        return LINK_MARK + target if target else ROOT_MARK
    return link_from(base, target)


def link_base(context: jinja2.runtime.Context) -> str | None:
    """What links from the page of ``context`` start with (``to_root``; the 404 page's are
    absolute), or None inside a fragment being rendered."""
    if context.get("absolute_links"):
        return str(context["site"].base_path)
    page = str(context["page_url"])
    return None if page == MARKED_PAGE else to_root(page)


def unmarked(html: str, base: str | None) -> Markup:
    """A marked fragment's markup with its links made from ``base`` (``link_base``; None:
    left marked, for the fragment that holds it). The marks stand in escaped markup, so
    ``base`` goes in escaped, as ``|url`` would have been written (a base path may hold
    ``&``)."""
    if base is None:
        return Markup(html)
    safe = str(escape(base))
    return Markup(str.replace(str.replace(html, ROOT_MARK, link_from(safe, "")), LINK_MARK, safe))


@jinja2.pass_context
def _href(context: jinja2.runtime.Context, obj: object) -> str:
    return _url(context, target_of(obj))


@jinja2.pass_context
def _absolute(context: jinja2.runtime.Context, obj: object) -> str:
    return absolute_url(target_of(obj), context["site"].site_url)


def asset_versions(static: Mapping[str, bytes]) -> dict[str, str]:
    """Short content hashes of static files, appended to their URLs so caches never go stale."""
    return {name: hashlib.sha256(data).hexdigest()[:10] for name, data in static.items()}


Lookups = frozenset[tuple[str, str]] | tuple[tuple[str, str], ...]
"""What a page read (``frozen_lookups``): a set, or a tuple where it is only stored (a one-shot
build's cache: ``PageRendering``'s ``listed``)."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """One page as written: its digest, and what it read beyond its route's context."""

    digest: bytes
    lookups: Lookups


class PageWriter(Protocol):
    """Where pages go as they are rendered (output.Staging is one).

    ``write`` may run in a forked worker process; its receipt is ``record``ed in this one.
    """

    def write(self, name: str, data: bytes) -> Receipt: ...

    def record(self, receipt: Receipt) -> None: ...


class MemoryWriter:
    """A PageWriter that keeps the pages' bytes (for tests, benchmarks and small tools)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def write(self, name: str, data: bytes) -> Receipt:
        return Receipt(name, digest(data), True, data)

    def record(self, receipt: Receipt) -> None:
        assert receipt.data is not None
        self.files[receipt.name] = receipt.data


TRACKED_GLOBALS = {"asset_versions": "asset", "bibtex": "bibtex"}
"""Globals holding per-page data, by the kind their lookups are noted as."""


def render_pages(
    env: jinja2.Environment, routes: tuple[Route, ...], site: Config, catalog: Catalog,
    globals_: Mapping[str, Any], writer: PageWriter, workers: int | None = None,
    fragments: Fragments | None = None, progress: Progress | None = None,
    remember: bool = True,
) -> dict[str, Rendered]:
    """Render routes into ``writer`` (see ``PageRendering``) and wait for them."""
    with PageRendering(env, routes, site, catalog, globals_, writer, workers, fragments,
                       progress, remember) as rendering:
        return rendering.result()


class PageRendering:
    """Routes being rendered into a writer, noting what each page read.

    With ``workers`` above 1, rendering starts on ``__enter__`` in ``workers - 1`` forked
    processes and goes on while this process does other work (the files beside the pages);
    ``result()`` then renders the batches left, beside them: a process fewer holds its own
    copy of the pages of the catalog it reads, and this one does not wait idle. With
    ``later`` (another process of the build takes a core), one worker fewer forks at first,
    and this process renders beside them in ``render_while``; the last forks after it.
    Without workers, rendering happens in ``result()``. ``fragments`` may carry list items
    between builds; ``progress`` is started when rendering starts and told how many pages
    were done each time a batch is (from a helper thread when workers render);
    ``remember=False`` drops what pages read, as nothing will rebuild from it; ``listed``
    keeps it as tuples, not sets (``TrackedCatalog.listed``): a one-shot build only stores it
    for the next build, which reads each once, and at 100,000 papers the sets took hundreds
    of megabytes. Jinja2 errors are raised by ``result()``; the builder turns them into
    diagnostics.
    """

    def __init__(self, env: jinja2.Environment, routes: tuple[Route, ...], site: Config,
                 catalog: Catalog, globals_: Mapping[str, Any], writer: PageWriter,
                 workers: int | None = None, fragments: Fragments | None = None,
                 progress: Progress | None = None, remember: bool = True,
                 later: bool = False, listed: bool = False) -> None:
        _prepare_environment(env, site, catalog, globals_,
                             fragments if fragments is not None else Fragments(), remember, listed)
        self.job = _Job(env, routes, site, writer, remember)
        self.workers = workers if workers is not None else _default_workers(len(routes))
        self.progress: Progress = progress if progress is not None else NoProgress()
        self.later = later
        self._workers: _Workers | None = None
        self._local: tuple[int, ...] = ()
        """Routes this process renders while workers render the rest (see ``_lists_apart``)."""

    def __enter__(self) -> Self:
        if self.workers > 1 and self.job.routes:
            _compile_templates(self.job.env)
            self.progress.start(len(self.job.routes), "rendering")
            batches = _parallel_batches(self.job.routes, self.workers)
            if self.job.remember:
                batches, self._local = _lists_apart(self.job.routes, batches)
            self._workers = _Workers(self.job, batches, self.progress.advance, self._taken)
            self._workers.start(self.workers - 1 - self.later)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._workers is not None:
            self._workers.close()
            self._workers = None

    @property
    def parallel(self) -> bool:
        """Is rendering shared with worker processes (between ``__enter__`` and ``__exit__``;
        with ``later``, the last forks in ``render_while``)?"""
        return self._workers is not None

    def render_while(self, busy: Callable[[], bool]) -> None:
        """Render batches here, beside the workers forked so far, while ``busy()`` says
        another process of the build still works, then fork the last worker for the rest (if
        any is left): a one-shot build renders so while its forked process makes the files
        beside the pages. As many processes as cores: on two, three alive at once held
        415 MB at 10,000 papers (PSS), two 360 MB, and were no faster."""
        assert self._workers is not None
        self._workers.join_in(busy)
        self._workers.start(self.workers - 1)

    def result(self) -> dict[str, Rendered]:
        """Every page rendered and handed to the writer; the writer has recorded them all."""
        if self._workers is None:
            self.progress.start(len(self.job.routes), "rendering")
            batches: Iterable[Batch] = _render_serial(self.job, self.progress)
        else:
            self._workers.start(self.workers - 1)
            here = _render_batch(self.job, self._local)
            self.progress.advance(len(here))
            self._workers.join_in()
            batches = chain([here], (batch if batch is not None else _render_batch(self.job, indices)
                                     for indices, batch in self._workers.answers()))
        pages: dict[str, Rendered] = {}
        for batch in batches:
            for receipt, lookups in batch:
                self.job.writer.record(receipt)
                pages[receipt.name] = Rendered(receipt.digest, lookups)
        return pages

    def _taken(self, batch: Batch) -> Batch:
        """A worker's batch as it arrives, made of this process's one object for each lookup
        (``TrackedCatalog.taken``), so that the copies it came with are freed at once: at
        100,000 papers they were a hundred megabytes at the peak, the end of rendering."""
        tracked: TrackedCatalog = self.job.env.globals["catalog"]  # type: ignore[assignment]
        return [(receipt, tracked.taken(lookups)) for receipt, lookups in batch]


def _prepare_environment(env: jinja2.Environment, site: Config, catalog: Catalog,
                         globals_: Mapping[str, Any], memo: Fragments, remember: bool,
                         listed: bool = False) -> None:
    """Give templates the site, the tracked catalog and globals, and the fragment helpers."""
    tracked = TrackedCatalog(catalog, listed)
    wrapped = {name: TrackedMapping(value, TRACKED_GLOBALS[name], tracked)
               for name, value in globals_.items() if name in TRACKED_GLOBALS}
    versions: Mapping[str, Any] = wrapped.get("asset_versions", {})

    @jinja2.pass_context
    def asset(context: jinja2.runtime.Context, name: str) -> str:
        return _url(context, ASSETS + name) + f"?v={versions.get(name, '0')}"

    env.filters["asset"] = asset
    nav = {"nav_pages": tuple(TrackedPage(p, tracked) for p in globals_["nav_pages"])
           } if "nav_pages" in globals_ else {}
    env.globals.update(globals_, **wrapped, **nav, site=site, catalog=tracked,
                       generator=f"site-gen {__version__}")
    if isinstance(env, TrackingEnvironment):
        env.tracked = tracked
    env.globals.update(fragment=_fragment_renderer(env, tracked, memo, remember),
                       fragments=_fragment_list_renderer(env, tracked, memo, remember,
                                                         whole=remember and not listed),
                       macros=_macro_modules(env, tracked))


class TrackingEnvironment(jinja2.Environment):
    """A Jinja2 environment that notes ``("template", name)`` among the lookups of the page
    being rendered for every template it loads, cached or not: ``extends``, ``import`` and
    ``include`` all load through ``get_template`` or ``select_template`` (public API)."""

    tracked: TrackedCatalog | None = None

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals: the environment's own dict when it has none of its own.

        Every page and fragment copies its template's globals into a new context; Jinja2's
        ``ChainMap`` over the environment's makes that copy run Python per name, a tenth of
        rendering. Templates here get no globals of their own (``get_template`` refuses them:
        Jinja2 would write them into a cached template's globals, here the environment's).
        """
        return self.globals if not d else super().make_globals(d)

    def get_template(self, name: str | jinja2.Template, parent: str | None = None,
                     globals: MutableMapping[str, Any] | None = None) -> jinja2.Template:
        _no_globals(globals)
        if isinstance(name, str):
            name = self.join_path(name, parent) if parent is not None else name
            self._note(name)
        return super().get_template(name, None)

    def select_template(self, names: Iterable[str | jinja2.Template], parent: str | None = None,
                        globals: MutableMapping[str, Any] | None = None) -> jinja2.Template:
        _no_globals(globals)
        names = [self.join_path(n, parent) if parent is not None and isinstance(n, str) else n
                 for n in names]
        for name in names:
            if isinstance(name, str):
                self._note(name)  # each one tried, even if missing: it may appear later
        return super().select_template(names, None)

    def _note(self, name: str) -> None:
        if self.tracked is not None:
            self.tracked.lookups.add(("template", name))


def _no_globals(globals: MutableMapping[str, Any] | None) -> None:
    if globals:
        raise TypeError("templates take the environment's globals only (make_globals)")


def template_texts(env: jinja2.Environment) -> dict[str, str]:
    """The source of every template the environment can load, by name (TemplateFault for
    one that is not UTF-8 text)."""
    loader = env.loader
    assert loader is not None
    texts = {}
    for name in sorted(loader.list_templates()):
        try:
            texts[name] = loader.get_source(env, name)[0]
        except UnicodeDecodeError as exc:
            raise TemplateFault(name, 0, f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x}); "
                                         "save the file as UTF-8") from None
    return texts


class TemplateFault(Exception):
    """A template failed: its file (a path, or a template name), line and what went wrong.

    Made from any exception a page's rendering raised, in the process that rendered it (the
    traceback, which holds the place, does not cross to the parent), and plain data, so it
    pickles. Not an OSError, which a missing template (jinja2.TemplateNotFound) is, and which
    the output stage would take for a failed write.
    """

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(path, line, message)
        self.path, self.line, self.message = path, line, message

    @classmethod
    def of(cls, exc: BaseException, template: str, page: str) -> TemplateFault:
        """The innermost template frame of ``exc``'s traceback, and what ``exc`` says."""
        path = getattr(exc, "filename", None) or template
        line = getattr(exc, "lineno", None) or 0
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename.endswith(".html"):
                path, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
            tb = tb.tb_next
        if isinstance(exc, jinja2.TemplateNotFound):
            what = f"template {exc.name!r} not found"
        elif isinstance(exc, jinja2.TemplateError):
            what = str(exc.message or exc)
        else:
            what = f"{exc} ({type(exc).__name__})"
        return cls(str(path), line, f"template error{' on ' + page if page else ''}: {what}")


PARALLEL_THRESHOLD = 400
_CHUNK = 64


@dataclass(frozen=True, slots=True)
class _Job:
    env: jinja2.Environment
    routes: tuple[Route, ...]
    site: Config
    writer: PageWriter
    remember: bool


Batch = list[tuple[Receipt, Lookups]]
_NOTHING: frozenset[tuple[str, str]] = frozenset()


def _default_workers(count: int) -> int:
    """Processes to render with, this one included: one below a few hundred pages, else one
    per core."""
    if count < PARALLEL_THRESHOLD or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return min(os.cpu_count() or 1, 8)


def _render_one(job: _Job, route: Route, kept: bool = True) -> tuple[Receipt, Lookups]:
    """Render a page and hand it to the writer; the bytes are not kept. ``kept=False`` (in a
    worker): what the page read is sent to the parent, not kept here (``TrackedCatalog.apart``).
    With ``listed_items``, what it read is a tuple (``TrackedCatalog.listed``), here or sent."""
    tracked: TrackedCatalog = job.env.globals["catalog"]  # type: ignore[assignment]
    tracked.lookups = set()
    try:
        template = job.env.get_template(route.template)
        values = {"page_url": route.url, "absolute_links": route.url == "404.html",
                  "canonical": absolute_url(route.url, job.site.site_url)}
        with noting_reads(tracked.note):  # paper lists and abstracts read, even from the context
            if _listed_papers(route.context) > LONG_LIST:  # megabytes: tidied as they are made
                html: Iterable[str] = template.generate(route.context, **values)
            else:  # joined at once, which costs less than taking a stream
                html = (template.render(route.context, **values),)
            data = _tidy(html)
    except Exception as exc:  # noqa: BLE001 - any failure in a template is the template's
        raise TemplateFault.of(exc, route.template, route.url or "the home page") from None
    receipt = job.writer.write(route.output, data)
    if not job.remember:
        return receipt, _NOTHING
    if tracked.listed_items:
        return receipt, tracked.listed(tracked.lookups)
    return receipt, tracked.frozen(tracked.lookups) if kept else tracked.apart(tracked.lookups)


WILDCARD = ("*", "")
"""Among a page's lookups when any is ``("*", ...)``: then every change makes it stale."""


def frozen_lookups(lookups: AbstractSet[tuple[str, str]]) -> frozenset[tuple[str, str]]:
    """What a page or fragment read, marked with ``WILDCARD`` where it holds a ``("*", ...)``,
    so that a rebuild finds out in one set lookup (``incremental.cache.RenderMemory.stale``) rather than a scan."""
    frozen = frozenset(lookups)
    if WILDCARD not in frozen and any(kind == "*" for kind, _ in frozen):
        return frozen | {WILDCARD}
    return frozen


def stale_marks(changes: frozenset[tuple[str, str]]) -> frozenset[tuple[str, str]]:
    """The lookups any one of which makes a page or fragment stale after ``changes``: the
    changes, and ``WILDCARD`` (which depends on every change) unless there are none. A
    page's lookups are then checked with one ``isdisjoint`` (``incremental.cache.RenderMemory.stale``)."""
    return changes | {WILDCARD} if changes else changes


def _render_batch(job: _Job, indices: Sequence[int], kept: bool = True) -> Batch:
    return [_render_one(job, job.routes[i], kept) for i in indices]


def _render_serial(job: _Job, progress: Progress) -> Iterator[Batch]:
    count = len(job.routes)
    for start in range(0, count, _CHUNK):
        batch = _render_batch(job, range(start, min(start + _CHUNK, count)))
        progress.advance(len(batch))
        yield batch


PAGE_WEIGHT = 15
"""What a page costs to render beyond its lists, in list items: at 10,000 papers a paper page
took 0.54 ms, a page listing 93 papers about 4 ms."""


def _weight(context: Mapping[str, object]) -> int:
    """A page's rough cost, in list items: the page, the papers it lists by year and the items
    of the other lists its context holds (co-authors, related papers, an index's authors).
    One pass over the context's top level: weighing every route comes before any renders."""
    return PAGE_WEIGHT + _listed_papers(context) + sum(
        len(value) for value in context.values() if type(value) is tuple)


def _parallel_batches(routes: Sequence[Route], workers: int) -> list[tuple[int, ...]]:
    """Route indices in batches for the workers: the heaviest pages first and alone, so no
    worker is left rendering a long list page while the others idle."""
    weights = [_weight(route.context) for route in routes]
    budget = max(sum(weights) // (workers * 32), 1)
    batches: list[tuple[int, ...]] = []
    batch: list[int] = []
    load = 0
    for i in sorted(range(len(routes)), key=lambda i: -weights[i]):
        batch.append(i)
        load += weights[i]
        if load >= budget or len(batch) == _CHUNK:
            batches.append(tuple(batch))
            batch, load = [], 0
    return batches + ([tuple(batch)] if batch else [])


def _compile_templates(env: jinja2.Environment) -> None:
    """Compile every template before forking: the workers inherit them instead of each
    compiling its own, and a Builder that rebuilds has them for its next, small build."""
    for name in env.list_templates(filter_func=lambda name: name.endswith(".html")):
        try:
            env.get_template(name)
        except jinja2.TemplateError:
            pass  # reported by the page that uses it, if one does


LONG_LIST = 500
"""A page listing more papers than this is tidied from the template's stream (``_render_one``)
and, in watch mode, rendered by the Builder itself (``_lists_apart``)."""


def _lists_apart(routes: Sequence[Route], batches: list[tuple[int, ...]]
                 ) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
    """The batches without the long list pages, and those pages, for this process to render.

    List items rendered by a worker stay in the worker's fragment memo. A Builder that
    rebuilds (watch mode) renders the long lists itself (the papers index, large subjects),
    so that its memo holds the items their next rendering reuses: the first edit after a full
    build then renders a 10,000-item index from the memo, as every later edit does.
    """
    local = tuple(i for batch in batches for i in batch
                  if _listed_papers(routes[i].context) > LONG_LIST)
    taken = set(local)
    rest = [kept for batch in batches if (kept := tuple(i for i in batch if i not in taken))]
    return rest, local


def _listed_papers(context: Mapping[str, object]) -> int:
    """How many papers a page lists by year (``years`` in plan/routes.py's contexts)."""
    years = context.get("years")
    if not isinstance(years, tuple):
        return 0
    return sum(len(group[1]) for group in years if isinstance(group, tuple) and len(group) == 2
               and isinstance(group[1], tuple))


class _Workers:
    """Forked processes that render batches of routes, joined by this process when it is free.

    The job and the batches reach each process as they are when it forks (the fork start
    method pickles nothing it is given); a shared counter hands out batch numbers, heaviest
    first, to them and to this process (``join_in``). Each process sends back each batch's
    receipts by its own pipe, which a thread here empties as they come, making what each page
    read of this process's lookups (``taken``) and advancing the progress bar. A batch that
    does not come back, because its process died or its rendering failed, is rendered by the
    parent again, which then reports the error with its traceback.
    """

    def __init__(self, job: _Job, batches: list[tuple[int, ...]],
                 advance: Callable[[int], None], taken: Callable[[Batch], Batch]) -> None:
        forked = multiprocessing.get_context("fork")
        self.batches = batches
        self._counter = forked.Value("i", 0)
        self._job, self._advance, self._taken = job, advance, taken
        self._answers: dict[int, Batch | None] = {}
        self._processes: list[multiprocessing.process.BaseProcess] = []
        self._readers: list[Connection] = []
        self._takers: list[threading.Thread] = []
        self._stop, self._stopping = forked.Pipe(duplex=False)

    def start(self, total: int) -> None:
        """Fork processes until ``total`` were forked, unless no batch is left for them; a
        thread takes what the new ones send back."""
        count = total - len(self._processes)
        if count <= 0 or self._counter.value >= len(self.batches):
            return
        forked = multiprocessing.get_context("fork")
        pipes = [forked.Pipe(duplex=False) for _ in range(count)]
        writers = [writer for _, writer in pipes]
        processes = [forked.Process(target=_work, daemon=True,
                                    args=(self._job, self.batches, self._counter, writers, n,
                                          os.getpid()))
                     for n in range(count)]
        for process in processes:
            process.start()
        for writer in writers:
            writer.close()
        readers = [reader for reader, _ in pipes]
        self._processes += processes
        self._readers += readers
        taker = threading.Thread(target=self._take, args=(readers, self._advance), daemon=True)
        self._takers.append(taker)
        taker.start()

    def _take(self, readers: list[Connection], advance: Callable[[int], None]) -> None:
        live = list(readers)
        while live and len(self._answers) < len(self.batches):
            for ready in multiprocessing.connection.wait([*live, self._stop]):
                if ready is self._stop:
                    return
                assert isinstance(ready, Connection)
                try:
                    number, batch = ready.recv()
                except EOFError:  # that process is gone
                    live.remove(ready)
                    continue
                self._answers[number] = None if batch is None else self._taken(batch)
                advance(len(self.batches[number]))

    def join_in(self, go_on: Callable[[], bool] = lambda: True) -> None:
        """Render batches here too until none is left, or ``go_on()`` is false before one (a
        failed one is left to ``answers``' reader, which renders it again and reports the
        error in batch order)."""
        while go_on() and (number := _next_batch(self._counter)) < len(self.batches):
            try:
                batch: Batch | None = _render_batch(self._job, self.batches[number])
            except Exception:  # noqa: BLE001 - rendered again, in order, by the reader
                batch = None
            self._answers[number] = batch
            self._advance(len(self.batches[number]))

    def answers(self) -> Iterator[tuple[tuple[int, ...], Batch | None]]:
        """Each batch's indices and receipts, in order, once every process is done; None for a
        batch that did not come back."""
        for taker in self._takers:
            taker.join()
        return ((indices, self._answers.get(number)) for number, indices in enumerate(self.batches))

    def close(self) -> None:
        """Stop the processes (done or not) and the thread."""
        for process in self._processes:
            process.terminate()
        for process in self._processes:
            process.join()
        self._stopping.send(None)  # wakes every thread still waiting
        for taker in self._takers:
            taker.join()
        for connection in (*self._readers, self._stop, self._stopping):
            connection.close()


def _work(job: _Job, batches: list[tuple[int, ...]], counter: Synchronized[int],
          writers: list[Connection], mine: int, parent: int) -> None:
    """A worker: render batches until none is left, sending back each one's receipts."""
    die_with_parent(parent)
    for n, writer in enumerate(writers):
        if n != mine:
            writer.close()  # so that this one's end closes when its process ends
    answer = writers[mine]
    while True:
        number = _next_batch(counter)
        if number >= len(batches):
            return
        try:
            batch: Batch | None = _render_batch(job, batches[number], kept=False)
        except Exception:  # noqa: BLE001 - the parent renders it again and reports the error
            batch = None
        answer.send((number, batch))


def _next_batch(counter: Synchronized[int]) -> int:
    """The number of the next batch to render (past the last one when none is left)."""
    with counter.get_lock():
        number = counter.value
        counter.value += 1
    return number


Fragment = tuple[Markup, Lookups]
"""A rendered fragment and the lookups it made."""


class Fragments:
    """Rendered fragments by key, with the lookups each made: one build's.

    A Builder that rebuilds keeps them between builds (``incremental.fragments.FragmentMemo``,
    which also answers from the previous build's).
    """

    def __init__(self, whole_lists_over: int = 100) -> None:
        self.whole_lists_over = whole_lists_over
        """A list of more items than this is itself kept whole, besides its items (when pages
        are remembered)."""
        self.current: dict[tuple[object, ...], Fragment] = {}

    def get(self, key: tuple[object, ...]) -> Fragment | None:
        return self.current.get(key)


def _fragment_renderer(env: jinja2.Environment, tracked: TrackedCatalog,
                       memo: Fragments, remember: bool = True) -> Callable[..., Markup]:
    """``fragment(name, **values)``: a partial rendered once and reused.

    A paper's list item appears on many pages (author, subject, index, related lists). It is
    rendered with its links marked (``MARKED_PAGE``), and each page puts its own way to the
    site's root in their place, so one rendering serves every page. A reused fragment adds
    the lookups it made to the page using it.
    """
    render = _fragment_maker(env, tracked, memo, remember)

    @jinja2.pass_context
    def fragment(context: jinja2.runtime.Context, name: str, **values: object) -> Markup:
        return unmarked(render((name, tuple(sorted(values.items())))), link_base(context))

    return fragment


def _fragment_list_renderer(env: jinja2.Environment, tracked: TrackedCatalog,
                            memo: Fragments, remember: bool = True, whole: bool = True
                            ) -> Callable[..., Markup]:
    """``fragments(name, var, items, **values)``: ``fragment`` for each item, joined.

    The items are joined as plain strings: every one is markup already, and ``Markup.join``
    would copy each (the papers index joins 10,000). With ``whole`` (watch mode), a long
    list is kept whole as well, under its very items: an edit re-renders the papers index
    and large subject pages, whose year groups are lists of hundreds of papers, and all but
    the group holding the edited paper are then taken whole from the memo. A one-shot build
    shows each list once.
    """
    render = _fragment_maker(env, tracked, memo, remember)

    @jinja2.pass_context
    def fragments(context: jinja2.runtime.Context, name: str, var: str, items: Any,
                  **values: object) -> Markup:
        base = link_base(context)
        shared = tuple(sorted(values.items()))
        if not (whole and isinstance(items, tuple) and len(items) > memo.whole_lists_over):
            return unmarked(_joined(render, name, var, items, shared), base)
        key = ("*list", name, base, var, shared, items)
        hit = memo.get(key)
        if hit is None:
            with tracked.recording() as lookups:
                html = unmarked(_joined(render, name, var, items, shared), base)
            memo.current[key] = (html, tracked.frozen(lookups))
            return html
        tracked.lookups.update(hit[1])
        return hit[0]

    return fragments


def _joined(render: Callable[[tuple[object, ...]], Markup], name: str, var: str,
            items: Iterable[object], shared: tuple[tuple[str, object], ...]) -> str:
    """Each item's (marked) fragment, joined: its key is ``(name, shared, var, item)``, one
    tuple an item; the values it renders with are made only when it is not in the memo. (A
    key of the sorted values, as ``fragment`` makes, took three tuples an item: at 10,000
    papers 4.7 MB of keys in the build's own process.)"""
    return "".join([render((name, shared, var, item)) for item in items])


def _fragment_maker(env: jinja2.Environment, tracked: TrackedCatalog, memo: Fragments,
                    remember: bool) -> Callable[[tuple[object, ...]], Markup]:
    """Render a fragment, its links marked, or take it from the memo. Its key is
    ``(name, values)`` (``fragment``: the values sorted) or ``(name, shared, var, item)``
    (an item of ``fragments``: the values are ``shared`` and ``var``, which is ``item``)."""

    def render(key: tuple[object, ...]) -> Markup:
        hit = memo.get(key)
        if hit is None:
            values = dict(cast("tuple[tuple[str, object], ...]", key[1]))
            if len(key) == 4:
                values[cast(str, key[2])] = key[3]
            with tracked.recording() as lookups:
                html = Markup(env.get_template(cast(str, key[0])).render(
                    values, page_url=MARKED_PAGE, absolute_links=False))
            hit = memo.current[key] = (html, tracked.kept(lookups) if remember else _NOTHING)
        tracked.lookups.update(hit[1])
        return hit[0]

    return render


def _macro_modules(env: jinja2.Environment, tracked: TrackedCatalog) -> Callable[..., Any]:
    """``macros(name)``: the macros of a template, made once per page depth and reused.

    The default pages call every macro a theme may override through this, so a project's
    ``partials/macros.html`` changes them all. ``{% import ... with context %}`` would run the
    file again for every page (a sixth of a paper page's cost), and a plain ``import`` gives
    macros no page to link from; the macros' links depend only on the page's depth, so one
    module per depth serves every page (and one, its links marked, every fragment being
    rendered). Each use notes the template, as loading it would.
    """
    modules: dict[tuple[str, str | None], Any] = {}

    @jinja2.pass_context
    def macros(context: jinja2.runtime.Context, name: str) -> Any:
        base = link_base(context)
        tracked.lookups.add(("template", name))
        module = modules.get((name, base))
        if module is None:
            absolute = bool(context.get("absolute_links"))
            page = (MARKED_PAGE if base is None else "404.html" if absolute
                    else "_/" * base.count("/"))
            module = modules[name, base] = env.get_template(name).make_module(
                {"page_url": page, "absolute_links": absolute})
        return module

    return macros


class TrackedMapping(Mapping[str, Any]):
    """A read-only mapping whose lookups are noted as ``(kind, key)``; iterating is ``("*", kind)``."""

    def __init__(self, data: Mapping[str, Any], kind: str, owner: TrackedCatalog) -> None:
        self._data, self._kind, self._owner = data, kind, owner

    def __getitem__(self, key: str) -> Any:
        self._owner.lookups.add((self._kind, key))
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        self._owner.lookups.add((self._kind, str(key)))
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        self._owner.lookups.add(("*", self._kind))
        return iter(self._data)

    def __len__(self) -> int:
        self._owner.lookups.add(("*", self._kind))
        return len(self._data)


class TrackedPage:
    """A Markdown page in the navigation (``nav_pages``): reading its ``body`` is noted as
    ``("page-body", slug)``, so that editing a page's text re-renders the pages that show the
    text, not every page whose navigation links it (the Builder tracks the bodies apart)."""

    __slots__ = ("_owner", "_page")

    def __init__(self, page: Any, owner: TrackedCatalog) -> None:
        self._page, self._owner = page, owner

    def __getattr__(self, name: str) -> Any:
        if name == "body":
            self._owner.lookups.add(("page-body", self._page.slug))
        return getattr(self._page, name)


class TrackedSequence(Sequence[Any]):
    """A catalog collection: its length is noted as ``("count", name)``, anything else as
    ``(name, "")``, so a page that only counts papers does not depend on each of them."""

    def __init__(self, items: tuple[Any, ...], name: str, owner: TrackedCatalog) -> None:
        self._items, self._name, self._owner = items, name, owner

    def __len__(self) -> int:
        self._owner.lookups.add(("count", self._name))
        return len(self._items)

    def __getitem__(self, index: Any) -> Any:
        self._owner.lookups.add((self._name, ""))
        return self._items[index]

    def __iter__(self) -> Iterator[Any]:
        self._owner.lookups.add((self._name, ""))
        return iter(self._items)

    def __contains__(self, item: object) -> bool:
        self._owner.lookups.add((self._name, ""))
        return item in self._items

    def __bool__(self) -> bool:
        self._owner.lookups.add(("count", self._name))
        return bool(self._items)


class TrackedCatalog:
    """The catalog as templates see it: the same lookups, each noted for the page being rendered.

    A lookup is ``("paper", id)``, ``("author", id)``, ``("subject", code)``; a whole
    collection is ``(name, "")`` and its length ``("count", name)``; anything else
    ``("*", attribute)``.
    """

    def __init__(self, catalog: Catalog, listed: bool = False) -> None:
        self._catalog = catalog
        self.listed_items = listed
        """Keep what each page and list item read as a tuple (``listed``, ``kept``), not a set
        (``PageRendering``'s ``listed``): a one-shot build only stores pages' reads, and
        replays items' into the pages that show them."""
        self.lookups: set[tuple[str, str]] = set()
        self._interned: dict[object, Any] = {}
        """Each lookup, and each set or sorted tuple of them, made so far (``frozen``,
        ``kept``)."""

    def kept(self, lookups: AbstractSet[tuple[str, str]]) -> Lookups:
        """What a list item read, as its fragment keeps it: ``frozen``, or with
        ``listed_items`` a sorted tuple, each one object however many items made it (at
        10,000 papers 42,000 items read 13,700 different sets of 3 to 14 lookups: a set of
        five or more takes 728 bytes, a tuple of five 96)."""
        if not self.listed_items:
            return self.frozen(lookups)
        items = tuple(sorted(self._one_each(frozen_lookups(lookups))))
        hit: tuple[tuple[str, str], ...] = self._interned.setdefault(items, items)
        return hit

    def frozen(self, lookups: AbstractSet[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        """``frozen_lookups``, with each lookup and each set of them one object however many
        pages and list items made it. What pages read is kept for rebuilds and in the build
        cache: at 10,000 papers 495,000 lookups, of which 35,000 differ, and 42,000 list
        items' sets, of which 14,000 do (one tuple, one set and one pickle each, at 100,000
        papers in every process that renders)."""
        return self.interned(frozen_lookups(lookups))

    def apart(self, lookups: AbstractSet[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        """``frozen_lookups`` made of the one object for each lookup, the set itself not kept:
        a worker sends its pages' sets to the parent, which keeps them (``interned``), and
        at 10,000 papers its 6,000 sets (2.6 kB each, nearly all different) stayed alive in
        it until it ended."""
        return frozenset(self._one_each(frozen_lookups(lookups)))

    def listed(self, lookups: AbstractSet[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        """``frozen_lookups`` as a tuple of the one object for each lookup: a quarter of a
        set's memory, for a build that only stores what pages read (``PageRendering``'s
        ``listed``)."""
        return self.interned_list(tuple(frozen_lookups(lookups)))

    def interned_list(self, lookups: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        """``lookups`` (``listed`` made it, here or in a worker) made of the one object for
        each lookup."""
        return tuple(self._one_each(lookups))

    def taken(self, lookups: Lookups) -> Lookups:
        """What a page read, as a worker sent it or this process made it (``listed``,
        ``frozen`` or ``apart``), made of the one object for each lookup."""
        if not lookups:
            return lookups
        if isinstance(lookups, tuple):
            return self.interned_list(lookups)
        return self.interned(lookups)

    def interned(self, frozen: frozenset[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        """``frozen`` (``frozen_lookups`` already made it, here or in a worker) as the one
        object for its lookups (``frozen``)."""
        hit: frozenset[tuple[str, str]] | None = self._interned.get(frozen)
        if hit is None:
            hit = frozenset(self._one_each(frozen))
            self._interned[hit] = hit
        return hit

    def _one_each(self, lookups: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """``lookups``, each the one object kept for it (the first equal one seen)."""
        interned = self._interned
        return [interned.setdefault(lookup, lookup) for lookup in lookups]

    @contextlib.contextmanager
    def recording(self) -> Iterator[set[tuple[str, str]]]:
        """Collect the lookups made inside the block apart (they still count for the page)."""
        outer, self.lookups = self.lookups, set()
        try:
            yield self.lookups
        finally:
            inner, self.lookups = self.lookups, outer
            outer |= inner

    def note(self, kind: str, key: str) -> None:
        """Note a lookup made outside this object (``model.noting_reads``)."""
        self.lookups.add((kind, key))

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
    def papers(self) -> TrackedSequence:
        return TrackedSequence(self._catalog.papers, "papers", self)

    @property
    def authors(self) -> TrackedSequence:
        return TrackedSequence(self._catalog.authors, "authors", self)

    @property
    def profiled_authors(self) -> TrackedSequence:
        return TrackedSequence(self._catalog.profiled_authors, "profiled_authors", self)

    @property
    def subjects(self) -> TrackedSequence:
        return TrackedSequence(self._catalog.subjects, "subjects", self)

    def __getattr__(self, name: str) -> object:
        self.lookups.add(("*", name))
        return getattr(self._catalog, name)


_SEGMENT = 1 << 16
"""Characters of a page tidied at a time (``_tidy``)."""


def _tidy(chunks: Iterable[str]) -> bytes:
    """The page as UTF-8, without the trailing spaces and runs of blank lines that template
    blocks leave behind: ``("\\n".join(kept).strip() + "\\n").encode()`` of the joined
    ``chunks``, where ``kept`` are the lines (right-stripped) that are not blank or follow
    one that is not.

    Tidied from the template's stream a segment of lines at a time: the papers index of a
    large site is megabytes of text (twice that in memory, as non-Latin names make it two
    bytes a character), and joining then tidying it whole copied it five times over in the
    process rendering it.
    """
    tidy = _Tidy()
    stream = iter(chunks)
    held = ""
    while batch := list(islice(stream, _BATCH)):  # a page yields thousands of small chunks
        text = held + "".join(batch)
        if len(text) < _SEGMENT:
            held = text
            continue
        cut = text.rfind("\n") + 1
        tidy.feed(text, cut)
        held = text[cut:]
    tidy.feed(held, len(held))
    return tidy.result()


_BATCH = 256
"""Chunks of a template's stream joined at once (``_tidy``)."""


class _Tidy:
    """``_tidy``'s state between segments of a page."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.after_text = False
        """The last line seen was not blank."""
        self.blank_pending = False
        """A blank line after text, written only if more text follows."""

    def feed(self, text: str, end: int) -> None:
        """Tidy the whole lines of ``text[:end]`` (``end`` is 0 or follows a line break)."""
        start = 0
        while start < end:
            cut = text.find("\n", start + _SEGMENT, end)
            stop = end if cut < 0 else cut + 1
            self._lines(text[start:stop].splitlines())
            start = stop

    def _lines(self, lines: list[str]) -> None:
        stripped = [line.rstrip() for line in lines]
        if not stripped:
            return
        before = ["x" if self.after_text else "", *stripped]  # each line's previous line
        kept = [line for line, previous in zip(stripped, before) if line or previous]
        self.after_text = bool(stripped[-1])
        if kept and self.blank_pending:  # kept[0] has text: the line before it was blank
            kept.insert(0, "")
            self.blank_pending = False
        if kept and not kept[-1]:
            kept.pop()
            self.blank_pending = True
        if kept:
            if not self.parts:
                kept[0] = kept[0].lstrip()  # the page's first line (``strip``)
            self.parts.append(("\n".join(kept) + "\n").encode("utf-8"))

    def result(self) -> bytes:
        return b"".join(self.parts) if self.parts else b"\n"


__all__ = ["Fragment", "Fragments", "Markup", "MemoryWriter", "PageRendering", "PageWriter", "Rendered",
           "Theme", "TrackedCatalog", "asset_versions", "make_environment", "render_pages",
           "target_of", "template_texts"]
