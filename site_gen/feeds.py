"""Atom feeds: Catalog -> ``feed.xml`` for the site, each author and each subject.

Output stage, {output path: bytes}. Feeds hold the newest ``FEED_LIMIT`` papers. Timestamps
never come from the wall clock: an entry is dated January 1st of its paper's year, and a feed's
``updated`` is ``SOURCE_DATE_EPOCH`` when the build sets it, else its newest entry's date.
Text goes through ElementTree, which escapes it, after characters XML forbids are dropped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from . import __version__
from .citations import clean_text
from .config import Config
from .model import Catalog, Paper
from .text import plain_text
from .urls import (
    SITE_FEED,
    absolute_url,
    author_feed_url,
    author_url,
    paper_url,
    subject_feed_url,
    subject_url,
)

ATOM = "http://www.w3.org/2005/Atom"
FEED_LIMIT = 50
EPOCH = "1970-01-01T00:00:00Z"


@dataclass(frozen=True, slots=True)
class FeedSpec:
    """One feed: where it lives, the page it mirrors, its title and its papers."""

    url: str
    page_url: str
    title: str
    papers: tuple[Paper, ...]


def feed_specs(catalog: Catalog, config: Config) -> tuple[FeedSpec, ...]:
    """The site feed, then one feed per author and per subject."""
    specs = [FeedSpec(SITE_FEED, "", config.title, catalog.papers)]
    specs += [FeedSpec(author_feed_url(a.id), author_url(a.id), f"{a.name} · {config.title}",
                       tuple(catalog.paper(p) for p in a.paper_ids)) for a in catalog.authors]
    specs += [FeedSpec(subject_feed_url(s.code), subject_url(s.code),
                       f"{s.name} ({s.code}) · {config.title}",
                       tuple(catalog.paper(p) for p in s.paper_ids)) for s in catalog.subjects]
    return tuple(specs)


def feed_outputs(catalog: Catalog, config: Config,
                 build_time: datetime | None = None, memo: object = None) -> dict[str, bytes]:
    """Every Atom feed of the site, by output path."""
    return {spec.url: render_feed(spec, catalog, config, build_time)
            for spec in feed_specs(catalog, config)}


def render_feed(spec: FeedSpec, catalog: Catalog, config: Config,
                build_time: datetime | None) -> bytes:
    """One Atom 1.0 document."""
    papers = sorted(spec.papers, key=_newest_first)[:FEED_LIMIT]
    updated = _timestamp(build_time) if build_time else _newest_date(papers)
    feed = ET.Element("feed", {"xmlns": ATOM, "xml:lang": config.language})
    _text(feed, "title", spec.title)
    if config.description:
        _text(feed, "subtitle", config.description)
    _text(feed, "id", absolute_url(spec.url, config.site_url))
    _link(feed, absolute_url(spec.url, config.site_url), "self", "application/atom+xml")
    _link(feed, absolute_url(spec.page_url, config.site_url), "alternate", "text/html")
    _text(feed, "updated", updated)
    author = ET.SubElement(feed, "author")
    _text(author, "name", config.title)
    _text(feed, "generator", "site-gen", version=__version__)
    for paper in papers:
        feed.append(_entry(paper, catalog, config, fallback=updated))
    ET.indent(feed, space=" ")
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, "utf-8") + b"\n"


def _entry(paper: Paper, catalog: Catalog, config: Config, fallback: str) -> ET.Element:
    entry = ET.Element("entry")
    url = absolute_url(paper_url(paper.id), config.site_url)
    _text(entry, "title", plain_text(paper.title))
    _text(entry, "id", url)
    _link(entry, url, "alternate", "text/html")
    for link in paper.links:
        _link(entry, link.url, "related", title=link.label)
    _text(entry, "updated", _year_date(paper.year) if paper.year else fallback)
    for author_id in paper.all_author_ids:  # Atom authors carry no order: list everyone known
        _text(ET.SubElement(entry, "author"), "name", catalog.author(author_id).name)
    for code in paper.subjects:
        ET.SubElement(entry, "category", {"term": code, "label": catalog.subject(code).name})
    if paper.abstract:
        _text(entry, "summary", plain_text(paper.abstract), type="text")
    return entry


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attributes)
    element.text = clean_text(text)
    return element


def _link(parent: ET.Element, href: str, rel: str, type_: str | None = None,
          title: str | None = None) -> None:
    attributes = {"href": clean_text(href), "rel": rel}
    if type_:
        attributes["type"] = type_
    if title:
        attributes["title"] = clean_text(title)
    ET.SubElement(parent, "link", attributes)


def _newest_first(paper: Paper) -> tuple[bool, int, str]:
    return (paper.year is None, -(paper.year or 0), paper.id)


def _newest_date(papers: Iterable[Paper]) -> str:
    years = [p.year for p in papers if p.year]
    return _year_date(max(years)) if years else EPOCH


def _year_date(year: int) -> str:
    return f"{year:04d}-01-01T00:00:00Z"


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class FeedMemo:
    """Placeholder."""
