"""Stage 0, configuration: ``content/site.yaml`` -> Config + Diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from site_gen.read.source import has_control_characters
from site_gen.util.diagnostics import Diagnostic, error, warning
from site_gen.util.yamlfile import LineDict, did_you_mean, line_of, load_yaml_file, quoted

CONFIG_FILE = "site.yaml"
_KNOWN_KEYS = {"title", "description", "site_url", "language", "theme", "recent_papers",
               "page_size", "footer", "cname", "citation_files"}


@dataclass(frozen=True, slots=True)
class Config:
    """Site-wide settings; ``base_path`` is the path part of ``site_url`` ("/" or "/repo/")."""

    title: str = "Publications"
    description: str = ""
    site_url: str = "http://localhost:8000/"
    language: str = "en"
    theme: str = "default"
    recent_papers: int = 10
    page_size: int = 100
    """Papers on one page of a long list (authors: five times as many); the rest on more pages."""
    footer: str = ""
    cname: str | None = None
    citation_files: bool = False
    """Write each paper's cite.bib, cite.ris and cite.csl.json (the cite box makes them in the
    browser either way)."""

    @property
    def base_path(self) -> str:
        """Where the site lives on its host: always starts and ends with "/"."""
        path = urlsplit(self.site_url).path.strip("/")
        return f"/{path}/" if path else "/"


def load_config(content_dir: Path, shown: str, site_url_given: bool = False
                ) -> tuple[Config, list[Diagnostic]]:
    """Read ``site.yaml`` from the content folder; a missing file means all defaults (a
    warning, unless ``--site-url`` gave the one setting a deployed site cannot go without)."""
    path = content_dir / CONFIG_FILE
    if not path.is_file():
        return Config(), [] if site_url_given else [warning(
            shown, 0, "no site.yaml; using default settings (site_url "
                      f"{Config().site_url}); site-gen new writes a commented one", "no-settings")]
    data, diagnostics = load_yaml_file(path, shown)
    if diagnostics:
        return Config(), diagnostics
    if data is None:
        data = LineDict()
    if not isinstance(data, dict):
        return Config(), [error(shown, 1, "site.yaml must be a mapping of settings")]
    return _config_from(shown, data)


def _config_from(shown: str, data: dict[str, object]) -> tuple[Config, list[Diagnostic]]:
    diagnostics = [warning(shown, line_of(data, key), f"unknown setting {key!r} ignored"
                                                      + did_you_mean(key, _KNOWN_KEYS), "unknown-key")
                   for key in sorted(set(map(str, data)) - _KNOWN_KEYS)]
    values: dict[str, object] = {}
    for key in sorted(_KNOWN_KEYS & set(data)):
        value = data[key]
        problem = _value_problem(key, value)
        if problem:
            diagnostics.append(error(shown, line_of(data, key), f"{key} must be {problem}, "
                                                                f"not {quoted(value)}"))
            continue
        values[key] = value.strip() if isinstance(value, str) else value
    site_url, problem = checked_site_url(str(values.get("site_url", Config().site_url)))
    if problem:
        diagnostics.append(error(shown, line_of(data, "site_url"), problem))
        values.pop("site_url", None)
    else:
        values["site_url"] = site_url
    return Config(**values), diagnostics  # type: ignore[arg-type]


_LEAST = {"recent_papers": 0, "page_size": 1}
"""The settings that are whole numbers, and the least each may be."""


def _value_problem(key: str, value: object) -> str:
    """What a setting's value must be, in words, when it is not that; else ""."""
    if key in _LEAST:
        least = _LEAST[key]
        whole = isinstance(value, int) and not isinstance(value, bool)
        return "" if whole and value >= least else f"a whole number, {least} or more"  # type: ignore[operator]
    if key == "citation_files":
        return "" if isinstance(value, bool) else "true or false"
    if not isinstance(value, str):
        return "text (put it in quotes)"
    return "text without control characters" if has_control_characters(value) else ""


def checked_site_url(site_url: str) -> tuple[str, str]:
    """(URL ending in "/", "") when usable as ``site_url``, else (URL, the problem: what is
    wrong with it, so that a URL given on the command line is not just refused)."""
    try:
        parts = urlsplit(site_url)
    except ValueError as exc:  # "http://[x": an IPv6 host not closed
        why = str(exc)
    else:
        why = ("it does not start with http:// or https://" if not parts.scheme
               else f"{parts.scheme}: is not http: or https:"
               if parts.scheme not in ("http", "https") else "it has no host" if not parts.netloc
               else "it has a query (?...)" if parts.query
               else "it has a fragment (#...)" if parts.fragment else "")
    if why:
        return site_url, f"site_url must be an absolute http(s) URL, not {site_url!r} ({why})"
    return (site_url if site_url.endswith("/") else site_url + "/"), ""


def with_site_url(config: Config, site_url: str | None, shown: str) -> tuple[Config, list[Diagnostic]]:
    """The config with ``site_url`` replaced (``--site-url`` on the command line), if given."""
    if site_url is None:
        return config, []
    checked, problem = checked_site_url(site_url.strip())
    if problem:
        return config, [error(shown, 0, problem)]
    return replace(config, site_url=checked), []
