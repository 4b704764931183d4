"""The pipeline's wiring: where a project's inputs are, what a build plans and returns.

read (config, dumps, curation, pages) -> catalog -> plan (routes, redirects) -> render ->
outputs -> write. ``incremental.Builder`` runs these steps; this module holds what they share:
the project layout (``CONTENT_DIR``, ``dump_files``, ``resolve_theme``), the ``Plan`` a build
renders from, the ``BuildResult`` it returns, and the diagnostics a build itself makes.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat
from collections.abc import Collection, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.resources import files as package_files
from pathlib import Path

import rjsmin

from site_gen.catalog.merge import RecordKeys, dump_keys
from site_gen.model import Catalog, Dump, Lookup
from site_gen.plan.redirects import (
    LOCK_FILE,
    Lock,
)
from site_gen.plan.routes import Route
from site_gen.read.config import CONFIG_FILE, Config
from site_gen.read.dumps import read_dump
from site_gen.read.pages import Page
from site_gen.render.engine import (
    TemplateFault,
    Theme,
)
from site_gen.util.diagnostics import Diagnostic, Severity, error, warning
from site_gen.util.safety import UNPRINTABLE, printable
from site_gen.util.yamlfile import line_of, load_yaml_file
from site_gen.write.tree import WriteResult

CONTENT_DIR = "content"


LOCK_SHOWN = f"{CONTENT_DIR}/{LOCK_FILE}"


DUMPS_DIR = "dumps"


DEFAULT_OUTPUT = "_site"


SCRATCH_PATTERNS = ("*~", ".*", "*.swp", "*.swx", "*.swo", "4913", "*.tmp", "*___jb_*___",
                    "*.crdownload", "*.part")
"""Editor backups, swap and temp files: never input, never a reason to rebuild."""


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a build did: its diagnostics, and (when it wrote) what changed on disk."""

    diagnostics: tuple[Diagnostic, ...]
    written: WriteResult | None = None
    pages: int = 0
    catalog: Catalog | None = field(default=None, repr=False)
    rendered: int = 0
    """Pages rendered by this build; the others were reused from the previous one."""
    reread: tuple[str, ...] = ()
    """Dumps parsed by this build (all of them on a first build, the changed ones after)."""
    config: Config | None = field(default=None, repr=False)
    timings: tuple[tuple[str, float], ...] = ()
    """Seconds spent in each stage, in order (``--verbose`` prints them)."""
    notes: tuple[str, ...] = ()
    """What the user should do about a build that went well (commit ``content/urls.lock``)."""
    stored_dumps: int = 0
    """Dumps whose parse this build took from the build cache instead (store.ParsedFiles)."""

    @property
    def ok(self) -> bool:
        return self.written is not None


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything decided before rendering."""

    config: Config
    catalog: Catalog
    changes: frozenset[Lookup] | None
    pages: tuple[Page, ...]
    routes: tuple[Route, ...]
    theme: Theme
    theme_templates: Path
    static: dict[str, bytes]
    build_time: datetime | None
    page_files: dict[str, bytes] = field(default_factory=dict)
    """Files beside Markdown pages, by output path (``<slug>/<file>``)."""
    lock: Lock | None = None
    """``content/urls.lock`` as read (None when there is none)."""
    published: Lock = field(default_factory=dict)
    """The paper and author URLs of this build, with what they show."""

    def unrecorded(self) -> list[str]:
        """The URLs of this build the lock does not record (or records showing another thing)."""
        lock = self.lock or {}
        return sorted(url for url, shown in self.published.items() if lock.get(url) != shown)


def is_scratch_file(name: str) -> bool:
    """True for an editor's backup, swap or temp file (by its file name)."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in SCRATCH_PATTERNS)


def builtin_theme_dir(name: str) -> Path | None:
    """A theme shipped with site-gen: inside the wheel, or beside the package in a checkout."""
    candidates = [Path(str(package_files("site_gen"))) / "themes" / name,
                  Path(__file__).resolve().parent.parent / "themes" / name]
    return next((c for c in candidates if (c / "templates").is_dir()), None)


def resolve_theme(project: Path, config: Config) -> tuple[Theme, Path] | None:
    """The theme's folders, with the project's own templates/ and static/ in front."""
    named = project / config.theme
    base = named if (named / "templates").is_dir() else builtin_theme_dir(config.theme)
    if base is None:
        return None
    theme = Theme(
        template_dirs=tuple(d for d in (project / "templates", base / "templates") if d.is_dir()),
        static_dirs=tuple(d for d in (project / "static", base / "static") if d.is_dir()),
    )
    return theme, base / "templates"


def static_listing(theme: Theme, project: Path) -> tuple[dict[str, Path], list[Diagnostic]]:
    """Static files by relative name (a project file shadows the theme's file of that name),
    and an error for each folder that cannot be read and each name that is not UTF-8: either
    would drop files from the site without a word. Symlinked folders are not followed."""
    found: dict[str, Path] = {}
    problems: list[Diagnostic] = []
    for folder in reversed(theme.static_dirs):
        files: list[Path] = []
        stack = [folder]
        while stack:  # not recursive: a folder nested a thousand deep is no RecursionError
            here = stack.pop()
            try:
                with os.scandir(here) as listing:
                    entries = list(listing)
            except OSError as exc:
                problems.append(error(shown_path(here, project), 0, unreadable_folder(exc)))
                continue
            for entry in entries:
                path = here / entry.name
                if _NOT_UTF8.search(entry.name):
                    problems.append(error(shown_path(here, project) + "/" + printable(entry.name),
                                          0, "the name is not valid UTF-8; rename it"))
                elif _is_folder(entry) and not entry.is_symlink():
                    stack.append(path)
                elif _is_file(entry) and not is_scratch_file(entry.name):
                    files.append(path)
        for path in sorted(files):
            found[path.relative_to(folder).as_posix()] = path
    return found, problems


DUMP_SUFFIX = ".txt"
"""Dumps are the ``*.txt`` files in content/dumps/ and its subfolders (docs/dump-formats.md);
other files there (a README.md, say) are notes, not read."""

NOTE_SUFFIX = ".md"
"""A note beside the dumps: not read, and not warned about."""

MAX_DEPTH = 32
"""Folders below content/dumps nested deeper than this are not read, with an error: no one
files dumps so, and a runaway script's thousand nested folders must not take the build down."""

_NOT_UTF8 = re.compile("[\ud800-\udfff]")


def dump_files(content: Path, refused: AbstractSet[Path] = frozenset()
               ) -> list[tuple[str, Path]]:
    """Every dump ``dump_listing`` finds, with its display path; what it says is dropped."""
    return dump_listing(content, refused)[0]


def dump_listing(content: Path, refused: AbstractSet[Path] = frozenset()
                 ) -> tuple[list[tuple[str, Path]], list[Diagnostic]]:
    """The dumps to read, sorted, with their display paths, and what the listing found wrong.

    A dump is a ``*.txt`` regular file (or a symlink to one) in content/dumps or a subfolder,
    but hidden and editor scratch files, anything in a hidden folder, and ``refused``.
    Errors, since each would drop papers from the site without a word: a folder that cannot
    be read, a name that does not fit a message or a line of urls.lock (``UNPRINTABLE``),
    folders nested deeper than ``MAX_DEPTH``. Warnings (``not-a-dump``): any other file but
    a ``*.md`` note, and a ``*.txt`` that is not a regular file (a named pipe, which reading
    would wait on for ever, or a symlink to nothing), which is never opened.
    """
    folder = content / DUMPS_DIR
    top = f"{CONTENT_DIR}/{DUMPS_DIR}"
    try:
        if folder in refused or not folder.is_dir():
            return [], []
    except OSError as exc:  # content/ itself cannot be searched
        return [], [error(top, 0, unreadable_folder(exc))]
    found: list[tuple[str, Path]] = []
    problems: list[Diagnostic] = []
    stack = [(folder, top, 0)]
    while stack:  # not recursive: a thousand nested folders are no RecursionError
        here, shown, depth = stack.pop()
        try:
            with os.scandir(here) as listing:  # no stat per file (watch rebuilds)
                entries = list(listing)
        except OSError as exc:
            problems.append(error(shown, 0, unreadable_folder(exc)))
            continue
        for entry in entries:
            path, name = here / entry.name, entry.name
            folder_entry = _is_folder(entry)
            if path in refused or (name.startswith(".") if folder_entry
                                   else is_scratch_file(name)):
                continue
            where = f"{shown}/{printable(name)}"
            if UNPRINTABLE.search(name):  # a dump's path is its profile's identity in
                problems.append(error(where, 0, _name_problem(name)))  # urls.lock, too
            elif not folder_entry:
                said = _not_a_dump(where, path, entry)
                problems += said
                if not said and path.suffix == DUMP_SUFFIX:
                    found.append((where, path))
            elif entry.is_symlink():
                continue  # a symlinked folder is not followed, as os.walk does not
            elif depth == MAX_DEPTH:
                problems.append(error(where, 0, f"folders nested more than {MAX_DEPTH} deep "
                                                f"below {top} are not read; move its dumps up"))
            else:
                stack.append((path, where, depth + 1))
    return sorted(found), problems


def unreadable_folder(exc: OSError) -> str:
    """The message for a folder that cannot be listed."""
    return f"cannot read this folder ({exc.strerror or exc}); make it readable"


def unreadable(folder: Path, shown: str) -> list[Diagnostic]:
    """An error if ``folder`` exists but cannot be listed, or its files looked at (a reader
    that globs it would find nothing, and drop what it holds without a word)."""
    try:
        if folder.is_dir():
            os.scandir(folder).close()
            if not os.access(folder, os.R_OK | os.X_OK):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as exc:
        return [error(shown, 0, unreadable_folder(exc))]
    return []


def unreadable_files(files: Iterable[tuple[str, Path]], failure: OSError) -> list[Diagnostic]:
    """Reading ``files`` failed with ``failure``: an error for each that cannot be opened
    (never waiting on a pipe), or, if each can by now, for the one that failed."""
    found = []
    for shown, path in files:
        try:
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC))
        except OSError as exc:
            found.append(error(shown, 0, f"cannot read it ({exc.strerror or exc}); make it "
                                         "readable"))
    if found:
        return found
    named = {os.fsdecode(path): shown for shown, path in files}
    place = named.get(os.fsdecode(failure.filename or ""), failure.filename or "")
    return [error(printable(str(place)), 0, f"cannot read it ({failure.strerror or failure})")]


def _name_problem(name: str) -> str:
    """Why a name under content/dumps is refused."""
    what = ("is not valid UTF-8" if _NOT_UTF8.search(name) else
            "holds a line break" if any(c in name for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85"
                                        "\u2028\u2029")
            else "holds a control character")
    return (f"the name {what}; rename it: a dump's path is shown in messages and recorded in "
            f"{LOCK_SHOWN}, one line each")


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """A folder, or a symlink to one (os.walk's test)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    """A regular file, or a symlink to one (d_type tells without a stat, but for a symlink)."""
    try:
        return entry.is_file()
    except OSError:  # a symlink loop (escaping_symlinks refuses those first), say
        return False


def _not_a_dump(where: str, path: Path, entry: os.DirEntry[str]) -> list[Diagnostic]:
    """The ``not-a-dump`` warning for a file that is not read: not ``*.txt`` (but a note), or
    a ``*.txt`` that is not a regular file; none for a dump."""
    if path.suffix != DUMP_SUFFIX:
        return [] if path.suffix == NOTE_SUFFIX else [
            warning(where, 0, f"not read: dumps are {DUMP_SUFFIX} files (rename it to "
                              f"{printable(path.stem)}{DUMP_SUFFIX} if it is one)", "not-a-dump")]
    if _is_file(entry):
        return []
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        what = (f"a symlink to nothing ({printable(os.readlink(path))})"
                if entry.is_symlink() and exc.errno == errno.ENOENT
                else f"a file that cannot be looked at ({exc.strerror or exc})")
    else:
        what = ("a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "not a regular file")
    return [warning(where, 0, f"not read: {what}; a dump is a regular file", "not-a-dump")]


ParsedDump = tuple[Dump | None, list[Diagnostic], tuple[RecordKeys, ...]]


def parse_dump(shown: str, data: bytes) -> ParsedDump:
    """A dump read, with its records' merge keys (``catalog.merge.dump_keys``): folding their
    text is most of merging's cost, which runs on one core, so the processes that parse
    dumps make them, and a build again takes them from the stored parse."""
    dump, found = read_dump(shown, data)
    return dump, found, () if dump is None else dump_keys(dump)


def keep_bytes(shown: str, data: bytes) -> bytes:
    return data


COMPILE_HINT = b"//# allFunctionsCalledOnLoad\n"
"""V8's compile hint, valid on a script's first line only: compile every function as the
file loads rather than each on the main thread at its first call (search.js: a first query)."""


def static_bytes(shown: str, data: bytes) -> bytes:
    """A static file as the site serves it: JavaScript minified (rjsmin keeps ``/*! */``
    comments, such as licences, and a first-line compile hint is put back in front), so a
    first visit downloads less; everything else as it is."""
    if not shown.endswith(".js"):
        return data
    hint = COMPILE_HINT if data.startswith(COMPILE_HINT) else b""
    return hint + rjsmin.jsmin(data, keep_bang_comments=True)


def site_files_key(plan: Plan) -> tuple[object, tuple[str, ...]]:
    """What the files beside the pages are made from, besides the catalog: the settings every
    generator reads, and the routes (which only the sitemap reads)."""
    return (plan.config, plan.build_time), tuple([r.url for r in plan.routes])


def taken_names(names: Collection[str], more: Mapping[str, bytes]) -> list[Diagnostic]:
    """An error for each file of ``more`` whose name is already in ``names``."""
    return [error(name, 0, f"{name} would be written twice (a theme or project file has the "
                           "name of a generated file)") for name in sorted(more) if name in names]


def source_date(environ: Mapping[str, str]) -> tuple[datetime | None, list[Diagnostic]]:
    """The build time for feeds from ``SOURCE_DATE_EPOCH`` (reproducible builds), if set."""
    value = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None, []
    try:
        return datetime.fromtimestamp(int(value), UTC), []
    except (ValueError, OverflowError, OSError):
        return None, [warning("SOURCE_DATE_EPOCH", 0, f"not a whole number of seconds "
                                                      f"({value!r}); feeds use paper years", "source-date")]


def unrecorded_warning(urls: list[str]) -> Diagnostic:
    """Under --strict (CI), a committed lock that misses published URLs fails: a CI build's
    own record is thrown away, so those URLs would not answer after a rename."""
    listed = ", ".join(urls[:3]) + (f" and {len(urls) - 3} more" if len(urls) > 3 else "")
    return warning(LOCK_SHOWN, 0, f"does not record {listed}: run 'site-gen build' and commit "
                                  f"{LOCK_SHOWN}, so that they keep answering after a rename",
                   "urls-lock")


def no_content(project: Path) -> Diagnostic:
    """No content/ folder: pointing at the project folder when this looks like content/ itself."""
    here = project.resolve()
    if here.name == CONTENT_DIR or (here / DUMPS_DIR).is_dir() or (here / CONFIG_FILE).is_file():
        return error(str(project / CONTENT_DIR), 0,
                     f"no content folder here: {here} looks like the content folder itself; run "
                     f"site-gen from the project folder above it (cd {here.parent}), or pass "
                     f"--project {here.parent}")
    return error(str(project / CONTENT_DIR), 0,
                 "no content folder; run site-gen in a project folder that holds "
                 "content/dumps/, or make one with: site-gen new FOLDER")


def theme_missing(content: Path, theme: str) -> Diagnostic:
    """Where the theme was looked for, at the ``theme:`` line of site.yaml."""
    data, _ = load_yaml_file(content / CONFIG_FILE, CONFIG_FILE)
    builtin = sorted(p.name for p in (builtin_theme_dir("default") or Path()).parent.iterdir()
                     if (p / "templates").is_dir())
    return error(f"{CONTENT_DIR}/{CONFIG_FILE}", line_of(data, "theme"),
                 f"theme {theme!r} not found: no folder {theme}/templates/ in the project "
                 f"folder and no built-in theme of that name (built-in: {', '.join(builtin)})")


def template_diagnostic(fault: TemplateFault, theme: Theme, project: Path) -> Diagnostic:
    """A template's problem at its file as the user knows it (a template name is looked up in
    the theme's folders, the project's own first)."""
    path = Path(fault.path)
    if fault.path and not path.is_absolute():
        path = next((d / fault.path for d in theme.template_dirs if (d / fault.path).is_file()),
                    path)
    return error(shown_path(path, project) if fault.path else "templates", fault.line, fault.message)


def shown_path(path: Path, project: Path) -> str:
    """A path as the user knows it: relative to the project when inside it."""
    try:
        return path.resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        return str(path)


def sorted_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Errors first, then by place; stable and deterministic for the terminal and tests."""
    return sorted(dict.fromkeys(diagnostics), key=lambda d: (d.severity != Severity.ERROR, d))
