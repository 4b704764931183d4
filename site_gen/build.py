"""The Builder: wires the stages together and owns nothing but their inputs and outputs.

read config -> read dumps -> curation -> catalog -> pages -> routes -> render -> write.
Rendering yields the HTML pages plus the files beside them (search index, feeds, sitemap,
citations, data exports, ``.nojekyll``/``CNAME`` for GitHub Pages). Any error diagnostic stops
the build before the write, so the previous output stays intact.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.resources import files as package_files
from pathlib import Path

import jinja2

from .catalog import build_catalog
from .citations import bibtex_entries, citation_outputs
from .config import CONFIG_FILE, Config, load_config, with_site_url
from .curation import CURATION_FILE, load_curation
from .diagnostics import Diagnostic, Severity, error, has_errors, warning
from .exports import export_outputs
from .feeds import feed_outputs
from .model import Catalog
from .output import OutputError, WriteResult, write_outputs
from .pages import read_pages
from .readers import read_dumps
from .render import ASSETS, Theme, asset_versions, make_environment, render_routes
from .routes import Route, plan_routes
from .safety import check_output_folder, escaping_symlinks
from .search import search_outputs
from .sitemap import sitemap_outputs

CONTENT_DIR = "content"
DUMPS_DIR = "dumps"
DEFAULT_OUTPUT = "_site"
NOJEKYLL, CNAME = ".nojekyll", "CNAME"


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a build did: its diagnostics, and (when it wrote) what changed on disk."""

    diagnostics: tuple[Diagnostic, ...]
    written: WriteResult | None = None
    pages: int = 0
    catalog: Catalog | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return self.written is not None


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


def read_static(theme: Theme) -> dict[str, bytes]:
    """Static files by relative name; a project file shadows the theme's file of that name."""
    found: dict[str, bytes] = {}
    for folder in reversed(theme.static_dirs):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                found[path.relative_to(folder).as_posix()] = path.read_bytes()
    return found


def dump_files(content: Path, refused: frozenset[Path] | set[Path] = frozenset()
               ) -> list[tuple[str, Path]]:
    """Every regular, non-hidden file in content/dumps, sorted, with its display path."""
    folder = content / DUMPS_DIR
    if not folder.is_dir() or folder in refused:
        return []
    return [(f"{CONTENT_DIR}/{DUMPS_DIR}/{p.name}", p) for p in sorted(folder.iterdir())
            if p.is_file() and p not in refused and not p.name.startswith(".")
            and not p.name.endswith("~")]


class Builder:
    """Builds one project folder into one output folder."""

    def __init__(self, project: Path, output: Path | None = None, site_url: str | None = None,
                 environ: Mapping[str, str] | None = None, jobs: int | None = None) -> None:
        self.project = project
        self.jobs = jobs
        """Rendering processes; None picks one per core for large sites (``--jobs``)."""
        self.output = output or project / DEFAULT_OUTPUT
        self.site_url = site_url
        """Overrides ``site_url`` from site.yaml (``--site-url``), e.g. with the Pages URL in CI."""
        self.environ = os.environ if environ is None else environ

    def build(self, strict: bool = False) -> BuildResult:
        """Run every stage; write only when there is no error (and no warning if strict)."""
        content = self.project / CONTENT_DIR
        refused = check_output_folder(self.output, self.project, content)
        if refused:
            return BuildResult(tuple(refused))
        outputs, diagnostics, catalog = self.render()
        failing = has_errors(diagnostics) or (strict and bool(diagnostics))
        if outputs is None or failing:
            return BuildResult(tuple(diagnostics), catalog=catalog)
        try:
            written = write_outputs(self.output, outputs)
        except OutputError as exc:
            return BuildResult(tuple(diagnostics) + (error(str(self.output), 0, str(exc)),))
        html = sum(name.endswith(".html") for name in outputs)
        return BuildResult(tuple(diagnostics), written, html, catalog)

    def render(self) -> tuple[dict[str, bytes] | None, list[Diagnostic], Catalog | None]:
        """Everything but the write: the site's files in memory, or None on error."""
        content = self.project / CONTENT_DIR
        if not content.is_dir():
            return None, [error(str(content), 0, "no content folder; run site-gen in a project "
                                                 "folder that holds content/dumps/")], None
        diagnostics, refused = escaping_symlinks(content, CONTENT_DIR)
        if diagnostics:
            return None, diagnostics, None
        config, found = load_config(content, f"{CONTENT_DIR}/{CONFIG_FILE}")
        diagnostics += found
        config, overridden = with_site_url(config, self.site_url, "--site-url")
        build_time, dated = source_date(self.environ)
        diagnostics += overridden + dated
        files = dump_files(content, refused)
        if not files:
            diagnostics.append(error(f"{CONTENT_DIR}/{DUMPS_DIR}", 0, "no dump files found"))
        dumps, read_found = read_dumps(files)
        diagnostics += read_found
        curation, found = load_curation(content, f"{CONTENT_DIR}/{CURATION_FILE}")
        diagnostics += found
        catalog, found = build_catalog(dumps, curation)
        diagnostics += found
        pages, found = read_pages(content, CONTENT_DIR)
        diagnostics += found
        routes, found = plan_routes(catalog, pages, config.recent_papers)
        diagnostics += found
        themed = resolve_theme(self.project, config)
        if themed is None:
            diagnostics.append(error(f"{CONTENT_DIR}/{CONFIG_FILE}", 0, f"theme {config.theme!r} not found"))
        if has_errors(diagnostics) or themed is None:
            return None, _sorted(diagnostics), catalog
        theme, theme_templates = themed
        static = read_static(theme)
        env = make_environment(theme, theme_templates)
        entries = bibtex_entries(catalog, config.site_url)
        try:
            outputs = render_routes(env, routes, config, catalog, {
                "asset_versions": asset_versions(static), "bibtex": entries,
                "nav_pages": tuple(p for p in pages if p.nav)}, workers=self.jobs)
        except jinja2.TemplateError as exc:
            return None, _sorted(diagnostics) + [_template_diagnostic(exc, self.project)], catalog
        diagnostics += merge_outputs(outputs, {ASSETS + name: data for name, data in static.items()})
        diagnostics += merge_outputs(outputs, site_files(catalog, config, routes, entries, build_time))
        if has_errors(diagnostics):
            return None, _sorted(diagnostics), catalog
        return outputs, _sorted(diagnostics), catalog


def site_files(catalog: Catalog, config: Config, routes: tuple[Route, ...],
               entries: dict[str, str], build_time: datetime | None) -> dict[str, bytes]:
    """Everything beside the HTML pages: search, feeds, sitemap, citations, exports, Pages files."""
    files = {**search_outputs(catalog), NOJEKYLL: b""}
    if config.cname:
        files[CNAME] = config.cname.encode("utf-8") + b"\n"
    for more in (feed_outputs(catalog, config, build_time), sitemap_outputs(routes, config.site_url),
                 citation_outputs(catalog, config.site_url, entries), export_outputs(catalog, config)):
        collisions = files.keys() & more.keys()
        assert not collisions, f"two generators write {sorted(collisions)}"  # fixed names in urls.py
        files.update(more)
    return files


def merge_outputs(outputs: dict[str, bytes], more: Mapping[str, bytes]) -> list[Diagnostic]:
    """Add files to the site; a name already taken (say, a static file) is an error."""
    problems = [error(name, 0, f"{name} would be written twice (a theme or project file "
                               "has the name of a generated file)")
                for name in sorted(outputs.keys() & more.keys())]
    outputs.update(more)
    return problems


def source_date(environ: Mapping[str, str]) -> tuple[datetime | None, list[Diagnostic]]:
    """The build time for feeds from ``SOURCE_DATE_EPOCH`` (reproducible builds), if set."""
    value = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None, []
    try:
        return datetime.fromtimestamp(int(value), UTC), []
    except (ValueError, OverflowError, OSError):
        return None, [warning("SOURCE_DATE_EPOCH", 0, f"not a whole number of seconds "
                                                      f"({value!r}); feeds use paper years")]


def _template_diagnostic(exc: jinja2.TemplateError, project: Path) -> Diagnostic:
    """Locate a template error: syntax errors carry a line, runtime ones a traceback frame."""
    name = getattr(exc, "filename", None) or getattr(exc, "name", None)
    line = getattr(exc, "lineno", None) or 0
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith(".html"):
            name, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next
    return error(_shown(Path(name), project) if name else "template", line,
                 f"template error: {exc.message or exc}")


def _shown(path: Path, project: Path) -> str:
    """A path as the user knows it: relative to the project when inside it."""
    try:
        return path.resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        return str(path)


def _sorted(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Errors first, then by place; stable and deterministic for the terminal and tests."""
    return sorted(dict.fromkeys(diagnostics), key=lambda d: (d.severity != Severity.ERROR, d))
