"""The Builder: wires the stages together and keeps, between builds, what a rebuild may reuse.

read config -> read dumps -> curation -> catalog -> pages -> routes -> render -> write.
Rendering yields the HTML pages plus the files beside them (search index, feeds, sitemap,
citations, data exports, ``.nojekyll``/``CNAME`` for GitHub Pages); a one-shot build of a large
site makes the ones that need only the catalog in a process forked once the catalog is made
(``_Ahead``), while this one plans routes. Any error diagnostic stops
the build before the write, so the previous output stays intact. A Builder kept alive (watch
mode) re-reads only changed files and re-renders only pages whose inputs changed (incremental/cache.py
says how that is decided); its output is byte-identical to a clean build's.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import multiprocessing
import multiprocessing.process
import os
import sys
from collections.abc import Callable, Collection, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import replace
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path

import jinja2
from markupsafe import Markup

from site_gen.catalog.assemble import build_catalog
from site_gen.catalog.merge import RecordKeys, abstract_identities
from site_gen.incremental import store
from site_gen.incremental.cache import FileCache, Lookup, RenderMemory, intern_catalog
from site_gen.incremental.catalog import CatalogMemo
from site_gen.incremental.fragments import FragmentMemo
from site_gen.incremental.outputs import SiteFilesMemo, kept_bibtex_entries, kept_site_file_stream
from site_gen.incremental.pieces import Carried, CatalogDelta
from site_gen.incremental.routes import RouteMemo
from site_gen.incremental.store import StoredKey
from site_gen.model import Catalog, Dump
from site_gen.outputs.citations import bibtex_entries
from site_gen.outputs.exports import export_files
from site_gen.outputs.files import (
    SiteFile,
    finding_file_stream,
    listing_file_stream,
    route_file_stream,
    site_file_stream,
)
from site_gen.pipeline import (
    CONTENT_DIR,
    DEFAULT_OUTPUT,
    DUMPS_DIR,
    LOCK_SHOWN,
    BuildResult,
    ParsedDump,
    Plan,
    dump_listing,
    keep_bytes,
    no_content,
    parse_dump,
    resolve_theme,
    shown_path,
    site_files_key,
    sorted_diagnostics,
    source_date,
    static_bytes,
    static_listing,
    taken_names,
    template_diagnostic,
    theme_missing,
    unreadable,
    unreadable_files,
    unrecorded_warning,
)
from site_gen.plan.redirects import (
    LOCK_FILE,
    Lock,
    parse_lock,
    plan_redirects,
    published,
    write_lock,
)
from site_gen.plan.routes import Route, plan_routes
from site_gen.read.config import CONFIG_FILE, Config, load_config, with_site_url
from site_gen.read.curation import CURATION_FILE, load_curation, settle
from site_gen.read.pages import PAGES_DIR, Page, read_pages
from site_gen.render.engine import (
    ASSETS,
    PARALLEL_THRESHOLD,
    PageRendering,
    TemplateFault,
    Theme,
    asset_versions,
    make_environment,
    template_texts,
)
from site_gen.util.diagnostics import Diagnostic, error, failing, has_errors, warning
from site_gen.util.lifeline import die_with_parent
from site_gen.util.progress import NoProgress, Progress, Stopwatch
from site_gen.util.safety import check_output_folder, escaping_symlinks
from site_gen.util.text import fold
from site_gen.write.tree import (
    OutputError,
    OutputTree,
    Receipt,
    Staging,
    StaleOutput,
    spare_untouched,
    staging_paths,
)


class Builder:
    """Builds one project folder into one output folder; kept alive, it rebuilds incrementally."""

    def __init__(self, project: Path, output: Path | None = None, site_url: str | None = None,
                 environ: Mapping[str, str] | None = None, jobs: int | None = None,
                 keep_spare: bool = False, progress: Progress | None = None,
                 cache: Path | None = None) -> None:
        self.project = project
        self.jobs = jobs
        """Processes that parse dumps and render pages; None picks one per core for large
        sites (``--jobs``)."""
        self.output = output or project / DEFAULT_OUTPUT
        self.site_url = site_url
        """Overrides ``site_url`` from site.yaml (``--site-url``), e.g. with the Pages URL in CI."""
        self.environ = os.environ if environ is None else environ
        self.keep_spare = keep_spare
        """Keep the previous site beside the output between builds (watch mode; write/tree.py).

        Such a Builder lives on for rebuilds and keeps what they reuse. One that does not
        (``site-gen build``) drops parsed dumps once merged and what each page read, which
        on a large site is most of the memory a build needs.
        """
        self.progress: Progress = progress if progress is not None else NoProgress()
        """Told how rendering goes (a bar on a terminal; util/progress.py); never raises."""
        self.cache = cache
        """The folder where what each page was rendered from is stored after each build that
        wrote, and taken back from at the first build (``site-gen build``'s
        ``.site-gen-cache/``; incremental/store.py)."""
        self.remember = keep_spare or cache is not None
        """Remember what each page was rendered from and read (``RenderMemory``), for a
        rebuild in this process or, through ``cache``, in the next one. The other memos
        (parsed dumps, catalog, routes, pieces of the files beside the pages) are kept only
        with ``keep_spare``: stored, they took longer to load than to make again."""
        self._restored = False
        """The key of the memory this Builder took from or last put in its cache folder."""
        self._stored_memory: store.Stored | None = None
        """The store whose memory the first build takes back once its catalog is made."""
        self._pickled: bytes | None = None
        """This build's memory as the cache stores it, when pickled while the build waited."""
        self.forget()

    def forget(self) -> None:
        """Start with no caches (and after an unexpected error: the next build starts afresh)."""
        self._stored_memory = None
        self._dumps_taken = 0
        """Dumps whose parse the last build took from the cache folder (``BuildResult``)."""
        self.tree = OutputTree(self.output, keep_spare=self.keep_spare or self.cache is not None,
                               waiting=self._waiting, remember=self.keep_spare)
        """With a cache folder, the previous site stays as the spare between builds too, and
        its manifest is stored (``_store``): a build again then stages only what changed
        since, rather than linking the whole site into a new folder (19,000 files in 12,000
        folders at 10,000 papers) and deleting the old one."""
        self.dumps: FileCache[ParsedDump] = self._dump_cache()
        self.static: FileCache[bytes] = FileCache(static_bytes)
        self.page_files: FileCache[bytes] = FileCache(keep_bytes)
        self.lock: FileCache[tuple[Lock, list[Diagnostic]]] = FileCache(parse_lock)
        """``content/urls.lock`` parsed: 12,000 lines at 10,000 papers, 3% of a watch rebuild
        when read each time."""
        self.memory = RenderMemory()
        self.fragments = FragmentMemo()
        self.site_memo = SiteFilesMemo() if self.keep_spare else None
        """Per-paper pieces of the files beside the pages, reused by the next build
        (incremental/outputs.py); a one-shot build keeps none: it calls the plain generators."""
        self.catalog_memo = CatalogMemo() if self.keep_spare else None
        """What the catalog stage made, for a rebuild after a few dumps changed (incremental/catalog.py)."""
        self.routes_memo = RouteMemo() if self.keep_spare else None
        """The last plan of routes, for the next plan to reuse where it holds (incremental/routes.py)."""
        self._env: tuple[Theme, Path, jinja2.Environment] | None = None
        self._compiled: Mapping[str, str] = {}
        """The template sources the environment's compiled templates were made from."""

    def _waiting(self) -> None:
        """Say why a build stands still: another process is writing the same output."""
        print(f"waiting for another site-gen process to finish writing {self.output}",
              file=sys.stderr, flush=True)

    def _dump_cache(self) -> FileCache[ParsedDump]:
        """Dumps parsed by as many processes as pages are rendered by (``--jobs``), and kept
        in the cache folder when there is one (``store.ParsedFiles``)."""
        return FileCache(parse_dump, processes=self.jobs or os.cpu_count() or 1,
                         stored=None if self.cache is None else store.ParsedFiles(self.cache))

    def build(self, strict: bool | str = False, changed: Collection[str] = ()) -> BuildResult:
        """Run every stage; write only when there is no error (and no warning if strict).

        ``changed`` names files (absolute paths) a watcher saw change: they are read again
        even if their size and modification time look the same. The result carries how long
        each stage took; the progress bar is cleared however the build ends.
        """
        stopwatch = Stopwatch()
        blocked = unreadable(self.project / CONTENT_DIR, CONTENT_DIR)
        if blocked:  # before anything reads site.yaml in it
            return BuildResult(tuple(blocked))
        # The key names the inputs as they are before this build reads them: a file edited
        # while it runs gives the next build another key, so that build starts afresh.
        key = self._cache_key() if self.cache is not None else None
        with _collector_paused():
            try:
                if key is not None and not self._restored:
                    self._restore(key, stopwatch)
                result = self._build(strict, changed, stopwatch)
            finally:
                self.progress.finish()
            if key is not None and result.ok:
                result = self._store(key, result, stopwatch)
        return replace(result, timings=stopwatch.timings(), stored_dumps=self._dumps_taken)

    def _cache_key(self) -> StoredKey:
        """What the stored memory depends on beyond the inputs it checks itself (store.py):
        site.yaml, the theme's and the project's template and static files, the output
        folder and ``--site-url``."""
        content = self.project / CONTENT_DIR
        try:
            settings = (content / CONFIG_FILE).read_bytes()
        except OSError:
            settings = b""
        config, _ = load_config(content, f"{CONTENT_DIR}/{CONFIG_FILE}",
                                site_url_given=self.site_url is not None)
        themed = resolve_theme(self.project, config)
        folders = () if themed is None else themed[0].template_dirs + themed[0].static_dirs
        return store.stamp([settings, store.files_digest(folders),
                            str(self.output.resolve()), self.site_url or ""])

    def _restore(self, key: StoredKey, stopwatch: Stopwatch) -> None:
        """Take back the output's manifest from the cache folder, if it fits; the memory is
        taken back once the catalog is made (``_take_memory``)."""
        assert self.cache is not None
        self._restored = True
        stored = store.load(self.cache, key)
        manifest = stored.take() if stored is not None else None
        spare = stored.take() if stored is not None else None
        if isinstance(manifest, dict):
            live = store.live_files(self.output, manifest)
            self.tree.trust(live, store.live_files(staging_paths(self.output)[0], spare)
                            if isinstance(spare, dict) and spare_untouched(self.output) else None)
            if any(found is not None for found in live.values()):
                self._stored_memory = stored  # else no page is left to reuse (a CI runner's
                # restored cache without the output): the build renders as a first build does
        stopwatch.lap("cache read")

    def _take_memory(self, stopwatch: Stopwatch) -> None:
        """Take back the memory of the last build, if ``_restore`` found one: after the
        ``_Ahead`` process forked, which needs only the catalog and the output's manifest."""
        stored, self._stored_memory = self._stored_memory, None
        if stored is None:
            return
        memory = stored.take()
        if isinstance(memory, RenderMemory):
            self.memory = memory
        stopwatch.lap("cache read")

    def _store(self, key: StoredKey, result: BuildResult, stopwatch: Stopwatch) -> BuildResult:
        """Put this build's memory in the cache folder; a note if that failed (the build did
        not: the next one starts afresh)."""
        assert self.cache is not None
        memory = self._pickled or store.ToPickle(self.memory)
        manifests = [store.pickled(store.stated(root, files)) for root, files in (
            (self.output, self.tree.digests()), (staging_paths(self.output)[0], self.tree.spares()))]
        problem = store.save(self.cache, key, [*manifests, memory])
        stopwatch.lap("cache write")
        if problem is None:
            return result
        note = f"build cache not saved ({problem}); the next build starts afresh"
        return replace(result, notes=(*result.notes, note))

    def _build(self, strict: bool | str, changed: Collection[str], stopwatch: Stopwatch) -> BuildResult:
        refused = check_output_folder(self.output, self.project, self.project / CONTENT_DIR)
        if refused:
            return BuildResult(tuple(refused))
        ahead = _Ahead(self.tree) if self._may_go_ahead() else None
        try:
            return self._plan_and_write(strict, changed, stopwatch, ahead)
        finally:
            if ahead is not None:
                ahead.close()  # abandons its staging if the build did not take it

    def _plan_and_write(self, strict: bool | str, changed: Collection[str], stopwatch: Stopwatch,
                        ahead: _Ahead | None) -> BuildResult:
        hook = None if ahead is None else functools.partial(self._go_ahead, ahead, strict)
        plan, diagnostics, catalog, reread = self.plan(changed, stopwatch, hook)
        if plan is not None and strict and plan.lock is not None and plan.unrecorded():
            diagnostics = sorted_diagnostics(diagnostics + [unrecorded_warning(plan.unrecorded())])
        if plan is None or failing(diagnostics, strict):
            return BuildResult(tuple(diagnostics), catalog=catalog, reread=reread)
        try:
            try:
                result = self._render_and_write(plan, diagnostics, reread, stopwatch, ahead)
            except StaleOutput:  # the output was replaced behind our back: start afresh
                self.memory = RenderMemory()
                result = self._render_and_write(replace(plan, changes=None), diagnostics,
                                                reread, stopwatch)
            return result if strict else self._record_urls(plan, result)
        except (jinja2.TemplateError, TemplateFault) as exc:
            fault = exc if isinstance(exc, TemplateFault) else TemplateFault.of(exc, "", "")
            return BuildResult(tuple(diagnostics + [template_diagnostic(fault, plan.theme,
                                                                         self.project)]),
                               catalog=catalog, reread=reread)
        except OutputError as exc:
            return BuildResult(tuple(diagnostics) + (error(str(self.output), 0, str(exc)),),
                               reread=reread)

    def _record_urls(self, plan: Plan, result: BuildResult) -> BuildResult:
        """After a build that wrote (not under --strict, which only checks the committed lock):
        add its URLs to ``content/urls.lock``, and say so."""
        new = plan.unrecorded()
        if not result.ok or not new:
            return result
        try:
            write_lock(self.project / CONTENT_DIR / LOCK_FILE, {**(plan.lock or {}), **plan.published})
        except OSError as exc:  # the site is written; the next build that can will record them
            note = (f"{LOCK_SHOWN}: cannot record {len(new)} new URL{'s' * (len(new) > 1)} "
                    f"({exc.strerror or exc}); make {CONTENT_DIR}/ writable and build again")
            return replace(result, notes=(*result.notes, note))
        what = "created" if plan.lock is None else f"{len(new)} new URL{'s' * (len(new) > 1)}"
        note = (f"{LOCK_SHOWN}: {what}{' recorded' * (plan.lock is not None)}; commit it, so that "
                "every URL the site published keeps answering (a renamed page leaves a redirect "
                "behind)")
        return replace(result, notes=(*result.notes, note))

    def _may_go_ahead(self) -> bool:
        """Can the files beside the pages be made in a process of their own (``_Ahead``)?
        Only in a one-shot build (watch mode makes them from its memos, in this process),
        with more than one process allowed, where processes can be forked."""
        return (not self.keep_spare and (self.jobs or os.cpu_count() or 1) > 1
                and "fork" in multiprocessing.get_all_start_methods())

    def _go_ahead(self, ahead: _Ahead, strict: bool | str, config: Config, catalog: Catalog,
                  build_time: datetime | None, diagnostics: list[Diagnostic]) -> None:
        """Once the catalog is made: start making the search index, the feeds and the
        citations in a forked process, unless the build already fails or the site is too
        small to render in parallel (forking would then cost more than it saves). A build
        again (one that took back a stored memory) renders few pages and would wait for that
        process: it makes the feeds and citations here (with their BibTeX entries, 1 s of
        that process's 5 to 6 s at 10,000 papers). A build that renders the whole site
        leaves them there: made here, what they leave in this process's memos was copied
        into every render worker (23 MB more at the peak at 10,000 papers)."""
        if failing(diagnostics, strict) or \
                len(catalog.papers) + len(catalog.authors) < PARALLEL_THRESHOLD:
            return
        ahead.listings = self._stored_memory is None
        ahead.start(functools.partial(finding_file_stream, catalog, config, build_time,
                                      ahead.listings))
        if ahead.started:  # the entries are made in both processes, when in that one
            ahead.entries = bibtex_entries(catalog, config.site_url)  # (0.3 s at 10,000
            # papers): this one need not wait for them

    def plan(self, changed: Collection[str] = (), stopwatch: Stopwatch | None = None,
             on_catalog: Callable[[Config, Catalog, datetime | None, list[Diagnostic]], None]
             | None = None
             ) -> tuple[Plan | None, list[Diagnostic], Catalog | None, tuple[str, ...]]:
        """Every stage before rendering: the plan (None on error), diagnostics, re-read dumps.

        ``on_catalog`` is told the catalog (with the diagnostics so far) as soon as it is made,
        before the memory stored by the last build is taken back and routes are planned."""
        stopwatch = stopwatch or Stopwatch()
        content = self.project / CONTENT_DIR
        if not content.is_dir():
            return None, [no_content(self.project)], None, ()
        diagnostics, refused = escaping_symlinks(content, CONTENT_DIR)
        if diagnostics:
            return None, diagnostics, None, ()
        config, build_time = self._settings(content, diagnostics)
        dumps, keys, reread = self._read_dumps(content, refused, changed, diagnostics)
        stopwatch.lap("read dumps")
        curation, found = load_curation(content, f"{CONTENT_DIR}/{CURATION_FILE}")
        catalog, more = (build_catalog(dumps, curation, keys) if self.catalog_memo is None
                         else self.catalog_memo.build(dumps, curation, keys))
        identities = None if self.keep_spare else abstract_identities(dumps, keys)  # watch
        # mode remembers each abstract's (redirects._abstract_identity): 14 ms saved a rebuild
        del dumps, keys
        if not self.keep_spare:
            self.dumps = self._dump_cache()  # a one-shot build reads each dump once,
            fold.cache_clear()  # and folds each abstract once, for its merge keys (24 MB
            # at 10k papers when the dumps are parsed in this process)
        if on_catalog is not None:
            on_catalog(config, catalog, build_time,
                       settle(diagnostics + found + more, curation, unused=False))
        stopwatch.lap("catalog")
        self._take_memory(stopwatch)
        catalog, changes = intern_catalog(catalog, self.memory.catalog)
        stopwatch.lap("catalog")
        pages, most = read_pages(content, CONTENT_DIR)
        most += unreadable(content / PAGES_DIR, f"{CONTENT_DIR}/{PAGES_DIR}")
        routes, last = (plan_routes(catalog, pages, config.recent_papers, config.page_size)
                        if self.routes_memo is None else
                        self.routes_memo.plan(catalog, pages, config.recent_papers, config.page_size))
        lock, problems = self._read_lock(content / LOCK_FILE, changed)
        now = published(catalog, identities)
        del identities
        moved, aliased = plan_redirects(catalog, lock or {}, now, {r.url for r in routes},
                                        f"{CONTENT_DIR}/{CURATION_FILE}")
        stopwatch.lap("routes")
        diagnostics = settle(diagnostics + found + more + most + last + problems + aliased,
                             curation)
        themed = resolve_theme(self.project, config)
        if themed is None:
            diagnostics.append(theme_missing(content, config.theme))
        if has_errors(diagnostics) or themed is None:
            return None, sorted_diagnostics(diagnostics), catalog, reread
        theme, theme_templates = themed
        static = self._read_static(theme, changed, diagnostics)
        page_files = self._page_files(content, pages, changed, diagnostics)
        stopwatch.lap("theme")
        if has_errors(diagnostics):  # a file that cannot be read
            return None, sorted_diagnostics(diagnostics), catalog, reread
        plan = Plan(config, catalog, changes, pages, routes + tuple(moved), theme, theme_templates,
                    static, build_time, page_files, lock, now)
        return plan, sorted_diagnostics(diagnostics), catalog, reread

    def _settings(self, content: Path, diagnostics: list[Diagnostic]
                  ) -> tuple[Config, datetime | None]:
        """site.yaml, with --site-url applied, and the build time from SOURCE_DATE_EPOCH."""
        config, found = load_config(content, f"{CONTENT_DIR}/{CONFIG_FILE}",
                                    site_url_given=self.site_url is not None)
        config, overridden = with_site_url(config, self.site_url, "--site-url")
        build_time, dated = source_date(self.environ)
        diagnostics += found + overridden + dated
        return config, build_time

    def _read_dumps(self, content: Path, refused: set[Path], changed: Collection[str],
                    diagnostics: list[Diagnostic]
                    ) -> tuple[list[Dump], dict[str, tuple[RecordKeys, ...]], tuple[str, ...]]:
        """Parsed dumps, from the cache where a file did not change, with their records'
        merge keys by dump path."""
        files, listed = dump_listing(content, refused)
        diagnostics += listed
        try:
            entries, reread = self.dumps.load(files, changed)
        except OSError as exc:  # listed, yet not readable (a folder others may list only)
            listed = unreadable_files(files, exc)
            diagnostics += listed
            entries, reread = {}, []
        self._dumps_taken = self.dumps.taken
        if not entries and not has_errors(listed):
            diagnostics.append(warning(f"{CONTENT_DIR}/{DUMPS_DIR}", 0, "no dump files found: "
                                       "copy profile exports here as .txt files "
                                       "(docs/dump-formats.md); the site has no papers yet", "no-dumps"))
        dumps, keys = [], {}
        for entry in entries.values():
            dump, found, keyed = entry.value
            diagnostics += found
            if dump is not None:
                dumps.append(dump)
                keys[dump.path] = keyed
        return dumps, keys, tuple(reread)

    def _read_lock(self, path: Path, changed: Collection[str]) -> tuple[Lock | None, list[Diagnostic]]:
        """The recorded URLs (None when there is no lock file; ``parse_lock``), parsed again
        only when the file may have changed."""
        try:
            entries, _ = self.lock.load([(LOCK_SHOWN, path)], changed)
        except OSError as exc:
            return None, unreadable_files([(LOCK_SHOWN, path)], exc)
        return entries[LOCK_SHOWN].value if LOCK_SHOWN in entries else (None, [])

    def _page_files(self, content: Path, pages: tuple[Page, ...], changed: Collection[str],
                    diagnostics: list[Diagnostic]) -> dict[str, bytes]:
        """The files Markdown pages show, by output path, each page's beside the page."""
        folder = content / PAGES_DIR
        wanted = sorted({name for page in pages for name in page.files})
        try:
            entries, _ = self.page_files.load([(name, folder / name) for name in wanted], changed)
        except OSError as exc:
            diagnostics += unreadable_files([(f"{CONTENT_DIR}/{PAGES_DIR}/{name}", folder / name)
                                             for name in wanted], exc)
            return {}
        return {f"{page.slug}/{name}": entries[name].value
                for page in pages for name in page.files if name in entries}

    def _read_static(self, theme: Theme, changed: Collection[str],
                     diagnostics: list[Diagnostic]) -> dict[str, bytes]:
        """The theme's and the project's static files; an error for each that cannot be
        read, and for each folder of them that cannot be listed (``static_listing``)."""
        files, problems = static_listing(theme, self.project)
        diagnostics += problems
        try:
            entries, _ = self.static.load(files.items(), changed)
        except OSError as exc:
            diagnostics += unreadable_files([(shown_path(path, self.project), path)
                                             for path in files.values()], exc)
            return {}
        return {name: entry.value for name, entry in entries.items()}

    def _render_and_write(self, plan: Plan, diagnostics: list[Diagnostic],
                          reread: tuple[str, ...], stopwatch: Stopwatch,
                          ahead: _Ahead | None = None) -> BuildResult:
        """Render what is stale, reuse the rest, write; then remember what is on disk.

        Given a started ``ahead``, the files beside the pages that need only the catalog are
        being made by its process, into its staging, which this build then writes."""
        self._pickled = None  # a memory pickled by an attempt that did not write
        env, texts = self._environment(plan.theme, plan.theme_templates)
        same_catalog = plan.changes == frozenset()
        delta = CatalogDelta.of(self.memory.catalog, plan.catalog, plan.changes)
        ahead = ahead if ahead is not None and ahead.started else None
        entries = ahead.entries if ahead is not None else self._bibtex(plan, same_catalog, delta)
        nav = tuple(p for p in plan.pages if p.nav)
        tracked = {"asset": asset_versions(plan.static), "bibtex": entries,
                   "page-body": {p.slug: p.body for p in nav}}
        globals_ = {"asset_versions": tracked["asset"], "bibtex": entries, "nav_pages": nav}
        # the globals not tracked per page; a navigation page's body is (render/engine.py's
        # TrackedPage): editing its text does not re-render every page that links it
        site = (plan.config, tuple([replace(p, body=Markup()) for p in nav]))
        fresh = self.memory.site != site
        changes = self.memory.changes(plan.changes, tracked, texts)
        stale = self._stale_routes(plan.routes, changes, fresh)
        files_key = site_files_key(plan)
        names = {r.output for r in plan.routes}
        assets = {ASSETS + name: data for name, data in plan.static.items()} | plan.page_files
        clashes = taken_names(names, assets)
        if clashes:
            return BuildResult(tuple(sorted_diagnostics(diagnostics + clashes)), catalog=plan.catalog,
                               reread=reread)
        stopwatch.lap("prepare")
        waiting = ahead  # until the files its process made are taken
        try:
            with self.tree.staging() if ahead is None else ahead.staged() as staging:
                with PageRendering(env, stale, plan.config, plan.catalog, globals_, staging,
                                   self.jobs, self.fragments, self.progress,
                                   remember=self.remember, later=ahead is not None,
                                   listed=not self.keep_spare) as pages:
                    # with worker processes, pages are rendered meanwhile
                    for name in sorted(assets):
                        staging.put(name, assets[name])
                    taken = names | assets.keys()
                    if ahead is None:
                        stream, kept_files = self._site_files(plan, files_key, entries,
                                                              same_catalog, delta)
                        files = self._put_site_files(stream, staging, taken)
                        del stream
                        stopwatch.lap("site files")
                        rendered = pages.result()
                        stopwatch.lap("render")
                    else:  # the exports are made here, and the feeds and citations
                        kept_files = set()  # when that process does not make them
                        listings = () if ahead.listings else listing_file_stream(
                            plan.catalog, plan.config, entries, plan.build_time)
                        files = self._put_site_files(itertools.chain(
                            route_file_stream(plan.config, plan.routes), listings,
                            export_files(plan.catalog, plan.config)), staging, taken)
                        if pages.parallel:  # this process renders until ``ahead``'s is done,
                            pages.render_while(ahead.busy)  # then forks the workers: three
                            self._take_ahead(ahead, staging, taken)  # at once took longer
                            stopwatch.lap("site files")  # on two cores, and more memory
                            waiting = None
                        rendered = pages.result()
                        stopwatch.lap("render")
                self.progress.finish()
                made = ((files_key, files or kept_files) if self.keep_spare  # the names of the
                        else (None, ()))  # files beside the pages only when they are all known
                memory = (self.memory.after(plan.catalog, site, texts, tracked, plan.routes,
                                            rendered, made) if self.remember else self.memory)
                # While ``ahead``'s process still works (``waiting``: the pages were rendered
                # here), the cache is pickled, then the pages reused (11,854 after a small edit
                # at 10,000 papers) are linked into the staging; only then does this build wait.
                if waiting is not None:
                    self._store_early(memory, stopwatch)
                staging.keep(sorted((names - rendered.keys()) | (kept_files - files)))
                if waiting is not None:
                    stopwatch.lap("write")
                    self._take_ahead(waiting, staging, taken)
                    stopwatch.lap("site files")
        except _Clash as clash:
            return BuildResult(tuple(sorted_diagnostics(diagnostics + clash.diagnostics)),
                               catalog=plan.catalog, reread=reread)
        self.memory = memory
        stopwatch.lap("write")
        return BuildResult(tuple(sorted_diagnostics(diagnostics)), staging.result, len(plan.routes),
                           plan.catalog, len(rendered), reread, plan.config)

    def _store_early(self, memory: RenderMemory, stopwatch: Stopwatch) -> None:
        """Pickle what the cache will store of this build (``_store``) while ``_Ahead``'s
        process finishes the files beside the pages: a rebuild that renders few pages
        waits a second or more for it at 10,000 papers."""
        if self.cache is not None:
            self._pickled = store.pickled(memory)
            stopwatch.lap("cache write")

    def _put_site_files(self, stream: Iterator[SiteFile | Carried], staging: Staging,
                        taken: AbstractSet[str]) -> set[str]:
        """Stage each file beside the pages as it is made, and let it go before the next is
        made; their names, when a rebuild will need them. Raises _Clash when a file has the
        name of a page or static file (after the generators ran, as before)."""
        files: set[str] = set()
        clashes: dict[str, bytes] = {}
        for item in stream:
            if isinstance(item, Carried):
                if not taken.isdisjoint(item.names):  # in C: 45,000 names a rebuild
                    clashes.update(dict.fromkeys([n for n in item.names if n in taken], b""))
                if not clashes:
                    staging.keep(item.names)
                    files.update(item.names)
                continue
            name, data = item
            if name in taken:
                clashes[name] = b""
            elif not clashes:
                if isinstance(data, bytes):
                    staging.put(name, data)
                else:
                    staging.put_parts(name, data)
                if self.keep_spare:
                    files.add(name)
            data = b""  # not kept alive while the next file is made
        if clashes:
            raise _Clash(taken_names(taken, clashes))
        return files

    def _take_ahead(self, ahead: _Ahead, staging: Staging, taken: AbstractSet[str]) -> None:
        """Note the files ``ahead``'s process staged, once it is done; raises _Clash as
        ``_put_site_files`` does. If that process failed, the files are made here, which
        raises the same error with its traceback (or, if it was the process, succeeds)."""
        receipts = ahead.receipts()
        if receipts is None:
            self._put_site_files(ahead.make(), staging, taken)
            return
        clashes = dict.fromkeys([r.name for r in receipts if r.name in taken], b"")
        if clashes:
            raise _Clash(taken_names(taken, clashes))
        for receipt in receipts:
            staging.record(receipt)

    def _bibtex(self, plan: Plan, same_catalog: bool, delta: CatalogDelta | None
                ) -> Mapping[str, str]:
        """BibTeX entries of every paper (a template global): last build's if nothing changed."""
        before = self.memory.tracked.get("bibtex")
        if same_catalog and before is not None and self.memory.site is not None \
                and self.memory.site[0].site_url == plan.config.site_url:  # type: ignore[index]
            return before  # type: ignore[return-value]
        if self.site_memo is None:
            return bibtex_entries(plan.catalog, plan.config.site_url)
        return kept_bibtex_entries(plan.catalog, plan.config.site_url, self.site_memo.citations,
                                   delta)

    def _site_files(self, plan: Plan, now: tuple[object, tuple[str, ...]],
                    entries: Mapping[str, str], same_catalog: bool, delta: CatalogDelta | None
                    ) -> tuple[Iterator[SiteFile | Carried], set[str]]:
        """The files beside the pages, one at a time, or (when all they are made from is
        unchanged) the names of last build's, which the output keeps. The generators are
        given ``delta`` when the settings they read are the last build's (``now``: this
        build's ``site_files_key``)."""
        key, names = self.memory.site_files
        live = self.tree.digests()
        if same_catalog and key == now and all(live.get(n) for n in names):
            return iter(()), set(names)
        if self.site_memo is None:
            return site_file_stream(plan.catalog, plan.config, plan.routes, dict(entries),
                                    plan.build_time), set()
        same_settings = isinstance(key, tuple) and key[0] == now[0]  # the sitemap reads routes
        return kept_site_file_stream(plan.catalog, plan.config, plan.routes, dict(entries),
                                     plan.build_time, self.site_memo,
                                     delta if same_settings else None), set()

    def _stale_routes(self, routes: tuple[Route, ...], changes: frozenset[Lookup] | None,
                      fresh: bool) -> tuple[Route, ...]:
        """The routes to render: all when the site-wide inputs changed, else those not reusable.

        List-item fragments kept from earlier builds are dropped on the same grounds.
        """
        self.fragments.trim(len(routes))
        if fresh or changes is None:
            self.fragments = FragmentMemo(self.fragments.whole_lists_over)
            return routes
        self.fragments.drop_stale(changes)
        return self.memory.stale(routes, changes, self.tree.digests())

    def _environment(self, theme: Theme, theme_templates: Path
                     ) -> tuple[jinja2.Environment, dict[str, str]]:
        """The Jinja environment, kept while the theme's folders stay the same, and the source
        of every template it can load.

        Its compiled templates are kept while every source is the same (in watch mode,
        compiling the theme again costs more than re-rendering the pages an edit touches).
        """
        if self._env is None or self._env[:2] != (theme, theme_templates):
            self._env = (theme, theme_templates, make_environment(theme, theme_templates,
                                                               self.keep_spare))
            if self.cache is not None:  # compiled by an earlier build (store.TemplateCode)
                self._env[2].bytecode_cache = store.TemplateCode(self.cache)
            self._compiled = {}
        env = self._env[2]
        texts = template_texts(env)
        if texts != self._compiled and env.cache is not None:
            env.cache.clear()
        self._compiled = texts
        return env, texts

    def fill_spare(self, go_on: Callable[[], bool]) -> bool:
        """Link the output's files into the spare while ``go_on()`` (see OutputTree.fill_spare);
        True once done."""
        return self.tree.fill_spare(go_on)

    def close(self) -> None:
        """Remove the spare output folder a watch session kept (see write/tree.py)."""
        self.tree.remove_spare()


class _Abandoned(Exception):
    """Ends a staging that an ``_Ahead`` opened and no build took (the output stays as it was)."""


class _Ahead:
    """The files beside the pages that need only the catalog (search index, feeds, citations,
    exports), made and staged by a forked process while this one plans routes and renders.

    Planning routes keeps one core busy for a second or more on a large site while the other
    idles; until now these files were made only after it. ``start`` opens the build's staging
    early for them; the Builder then writes into that staging (``staged``) and records what
    the process staged (``receipts``: ``Staging.write`` there, ``Staging.record`` here, as for
    rendered pages). A staging no build took is abandoned by ``close``.
    """

    def __init__(self, tree: OutputTree) -> None:
        self.tree = tree
        self.entries: Mapping[str, str] = {}
        """The papers' BibTeX entries, made by this process once ``start`` has forked."""
        self.make: Callable[[], Iterator[SiteFile]] = lambda: iter(())
        self.listings = True
        """The process makes the feeds and citations as well as the search index."""
        self._open: contextlib.ExitStack | None = None
        """Holds the staging ``start`` opened until a build takes it (``staged``)."""
        self._staging: Staging | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self._answer: Connection | None = None

    @property
    def started(self) -> bool:
        return self._process is not None

    def start(self, make: Callable[[], Iterator[SiteFile]]) -> None:
        """Open the staging and fork the process that runs ``make`` into it. If the output
        cannot be staged, nothing starts: the build then meets (and reports) the problem."""
        opened = contextlib.ExitStack()
        try:
            staging = opened.enter_context(self.tree.staging())
        except OutputError:
            return
        self._open, self._staging = opened, staging
        self.make = make
        forked = multiprocessing.get_context("fork")
        self._answer, answer = forked.Pipe(duplex=False)
        try:  # forked: the staging and ``make`` reach the process as they are, not pickled
            self._process = forked.Process(
                target=_stage_ahead, args=(answer, self._answer, os.getpid(), staging, make),
                daemon=True)
            self._process.start()
        finally:
            answer.close()

    @contextlib.contextmanager
    def staged(self) -> Iterator[Staging]:
        """The staging ``start`` opened, as ``OutputTree.staging()`` gives one: swapped in when
        the block ends, abandoned if it raises."""
        opened, self._open = self._open, None
        assert opened is not None and self._staging is not None
        with opened:
            try:
                yield self._staging
            except BaseException:
                self._stop()  # before the staging is abandoned: a build that starts again
                raise  # (StaleOutput) must not meet this process still writing into it

    def busy(self) -> bool:
        """Is the process still at work (no answer, nor its end, yet)?"""
        assert self._answer is not None
        return not self._answer.poll()

    def receipts(self) -> list[Receipt] | None:
        """What the process staged, once it is done; None if it failed."""
        assert self._answer is not None
        try:
            answer: list[Receipt] | None = self._answer.recv()
        except EOFError:  # it died without answering
            return None
        return answer

    def close(self) -> None:
        """Stop the process if it still runs; abandon the staging if no build took it."""
        self._stop()
        if self._answer is not None:
            self._answer.close()
            self._answer = None
        opened, self._open = self._open, None
        if opened is not None:
            with contextlib.suppress(_Abandoned), opened:
                raise _Abandoned  # leaving the staging by an error abandons it

    def _stop(self) -> None:
        """End the process, if it still runs, and wait for it."""
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join()
            self._process = None


def _stage_ahead(answer: Connection, reader: Connection, parent: int, staging: Staging,
                 make: Callable[[], Iterator[SiteFile]]) -> None:
    """In ``_Ahead``'s process: make and stage the files, and send back what was staged (None
    after any error: the Builder then makes them itself, and so reports the error).

    The inherited ``reader`` end is closed first: held here, a ``send`` larger than the pipe
    would block for good once the build is killed, as nobody else reads it."""
    reader.close()
    die_with_parent(parent)
    receipts: list[Receipt] | None
    try:
        receipts = [staging.write(name, data) if isinstance(data, bytes)
                    else staging.write_stream(name, data) for name, data in make()]
    except Exception:  # noqa: BLE001 - reported by the Builder, which makes them again
        receipts = None
    answer.send(receipts)
    answer.close()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Build with the cyclic garbage collector off, as a watch session already does; the
    processes a build forks (dump parsers, render workers, ``_Ahead``'s) inherit it off.

    A build makes hundreds of thousands of objects that live until it ends (the catalog,
    routes, what each page read) and almost no cyclic garbage: rendering 11,964 pages left
    44 unreachable objects, making the files beside the pages none. Yet each full collection
    walked everything made so far again, and each forked process what it inherited (copying
    the memory pages it walked). At 10,000 papers: ``plan()`` 4.35 -> 3.87 s, taking back a
    stored memory 3.9 -> 1.4 s; rendering and writing, with the plan frozen out of the
    collector, still spent 0.8 s of CPU time in it over three processes.

    The parsed dumps go once merged, without a collection: pylatexenc's walker left its
    end-of-input exception in a reference cycle with the frames of the whole call stack,
    merging's included (at 100,000 papers, 500 MB more at the peak while they waited for the
    build's end); ``util.text._Walker`` breaks that cycle where it is made.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Clash(Exception):
    """Two files of the site want one name: abandons the staged site (write/tree.py)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__()
        self.diagnostics = diagnostics


