"""Atom feeds: Catalog -> ``feed.xml`` for the site, each author and each subject.

Output stage, {output path: bytes}. The site feed holds the newest ``SITE_FEED_LIMIT`` papers,
an author's or subject's the newest ``FEED_LIMIT``: a reader polls for what is new, and older
papers are on the pages (a feed of every paper grew with the catalog). Timestamps
never come from the wall clock: an entry is dated January 1st of its paper's year, and a feed's
``updated`` is ``SOURCE_DATE_EPOCH`` when the build sets it, else its newest entry's date.
Text is escaped as ElementTree escapes it (the bytes are those of ``ET.tostring`` after
``ET.indent(space=" ")``), after characters XML forbids are dropped and the bidi controls it
leaves open are closed (``clean_text``; a name is closed before it joins a feed's title).
Documents are joined from strings rather than built as trees: an entry's text is the same in
every feed that holds it, so it is made once per paper (``entries_once``; a rebuild keeps it
between builds: ``incremental.outputs``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from site_gen import __version__
from site_gen.model import Catalog, Paper, newest_first
from site_gen.plan.urls import (
    SITE_FEED,
    absolute_url,
    author_feed_url,
    author_url,
    paper_url,
    subject_feed_url,
    subject_url,
)
from site_gen.read.config import Config
from site_gen.render.citation import author_names, clean_text
from site_gen.util.bidi import balance_bidi
from site_gen.util.text import plain_text

ATOM = "http://www.w3.org/2005/Atom"
FEED_LIMIT = 20
SITE_FEED_LIMIT = 50
EPOCH = "1970-01-01T00:00:00Z"


@dataclass(frozen=True, slots=True)
class FeedSpec:
    """One feed: where it lives, the page it mirrors, its title, its papers (of which it
    holds the newest ``limit``)."""

    url: str
    page_url: str
    title: str
    paper_ids: tuple[str, ...]
    limit: int = FEED_LIMIT


def feed_specs(catalog: Catalog, config: Config) -> tuple[FeedSpec, ...]:
    """The site feed, then one feed per author and per subject."""
    specs = [FeedSpec(SITE_FEED, "", config.title, tuple([p.id for p in catalog.papers]),
                      SITE_FEED_LIMIT)]
    specs += [FeedSpec(author_feed_url(a.id), author_url(a.id),
                       f"{balance_bidi(a.name)} · {config.title}",
                       a.paper_ids) for a in catalog.authors]
    specs += [FeedSpec(subject_feed_url(s.code), subject_url(s.code),
                       f"{s.name} ({s.code}) · {config.title}", s.paper_ids)
              for s in catalog.subjects]
    return tuple(specs)


EntryText = Callable[[Paper, str], str]
"""An entry's text given its paper and ``fallback`` date (``entry_text``)."""


def feed_files(catalog: Catalog, config: Config, build_time: datetime | None = None
               ) -> Iterator[tuple[str, bytes]]:
    """Every Atom feed of the site, one at a time, each made when it is asked for.

    Papers are put in newest-first order once, as ranks, so that each feed sorts its papers
    by a dictionary lookup; each entry's text is made once a build, however many feeds
    hold its paper.
    """
    rank = newest_first_ranks(catalog)
    entry = entries_once(lambda paper, fallback: entry_text(paper, catalog, config, fallback))
    for spec in feed_specs(catalog, config):
        yield spec.url, render_feed(spec, catalog, config, build_time, rank, entry)


def entries_once(make: EntryText) -> EntryText:
    """``make``, answering a second call for the same paper and date from the first: an
    entry is the same text in every feed that holds its paper."""
    made: dict[tuple[str, str], str] = {}

    def entry(paper: Paper, fallback: str) -> str:
        text = made.get((paper.id, fallback))
        if text is None:
            text = made[paper.id, fallback] = make(paper, fallback)
        return text
    return entry


def render_feed(spec: FeedSpec, catalog: Catalog, config: Config,
                build_time: datetime | None, rank: Mapping[str, int] | None = None,
                entry: EntryText | None = None) -> bytes:
    """One Atom 1.0 document. ``rank`` is ``newest_first_ranks(catalog)``, and ``entry``
    gives each entry's text (both made when missing)."""
    papers, updated = feed_papers(spec, catalog, build_time, rank)
    entry = entry or (lambda paper, fallback: entry_text(paper, catalog, config, fallback))
    texts = [entry(paper, entry_fallback(paper, updated)) for paper in papers]
    return feed_bytes(feed_head(spec, config, updated), texts)


def feed_papers(spec: FeedSpec, catalog: Catalog, build_time: datetime | None,
                rank: Mapping[str, int] | None = None) -> tuple[list[Paper], str]:
    """The papers a feed shows, newest first, and its ``updated`` date."""
    rank = rank or newest_first_ranks(catalog)
    papers = [catalog.paper(i) for i in sorted(spec.paper_ids, key=rank.__getitem__)[:spec.limit]]
    return papers, _timestamp(build_time) if build_time else _newest_date(papers)


def entry_fallback(paper: Paper, updated: str) -> str:
    """The date an entry shows when its paper has no year: the feed's (else "")."""
    return "" if paper.year else updated


def newest_first_ranks(catalog: Catalog, only: Collection[str] | None = None) -> dict[str, int]:
    """Each paper's place in newest-first order, by id (feeds sort by a dictionary lookup);
    among the papers ``only`` names, if given."""
    papers = catalog.papers if only is None else [catalog.paper(i) for i in only]
    return {paper.id: n for n, paper in enumerate(sorted(papers, key=newest_first))}


def feed_head(spec: FeedSpec, config: Config, updated: str) -> str:
    """The feed's own elements, before its entries."""
    url = absolute_url(spec.url, config.site_url)
    children = [_element("title", spec.title)]
    if config.description:
        children.append(_element("subtitle", config.description))
    children += [_element("id", url),
                 _link(url, "self", "application/atom+xml"),
                 _link(absolute_url(spec.page_url, config.site_url), "alternate", "text/html"),
                 _element("updated", updated),
                 _parent("author", [_element("name", config.title)], 1),
                 _element("generator", "site-gen", version=__version__)]
    return _start("feed", {"xmlns": ATOM, "xml:lang": config.language}) + _indented(children, 1)


def feed_bytes(head: str, entries: Sequence[str]) -> bytes:
    """The whole document: declaration, feed head, entries (ElementTree's indentation)."""
    body = head + "".join(entries)
    return (f'<?xml version="1.0" encoding="utf-8"?>\n{body}\n</feed>\n'
            .encode("utf-8", "xmlcharrefreplace"))


def entry_names(paper: Paper, catalog: Catalog) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a paper's entry shows of other objects: every author's name, each subject's."""
    listed, extra = author_names(paper, catalog)
    return listed + extra, tuple([catalog.subject(code).name for code in paper.subjects])


def entry_text(paper: Paper, catalog: Catalog, config: Config, fallback: str) -> str:
    """An entry with its leading indentation, as every feed holding the paper has it;
    ``fallback`` is the date an undated paper's entry shows ("" for a dated paper)."""
    names, subjects = entry_names(paper, catalog)
    return "\n " + _entry(paper, names, subjects, config, fallback)


def _entry(paper: Paper, names: tuple[str, ...], subject_names: tuple[str, ...],
           config: Config, fallback: str) -> str:
    url = absolute_url(paper_url(paper.id), config.site_url)
    children = [_element("title", plain_text(paper.title)), _element("id", url),
                _link(url, "alternate", "text/html")]
    children += [_link(link.url, "related", title=link.label) for link in paper.links]
    children.append(_element("updated", _year_date(paper.year) if paper.year else fallback))
    # Atom authors carry no order: list everyone known
    children += [_parent("author", [_element("name", name)], 2) for name in names]
    children += [_empty("category", {"term": code, "label": name})
                 for code, name in zip(paper.subjects, subject_names, strict=True)]
    if paper.abstract:
        children.append(_element("summary", plain_text(paper.abstract), type="text"))
    return _start("entry", {}) + _indented(children, 2) + "\n </entry>"


# ---- XML text, as ElementTree writes it --------------------------------------------------

def _element(tag: str, text: str, **attributes: str) -> str:
    """A text element; its text cleaned (see ``clean_text``) and escaped."""
    text = clean_text(text)
    if not text:
        return _empty(tag, attributes)
    return f"{_start(tag, attributes)}{_escape_text(text)}</{tag}>"


def _link(href: str, rel: str, type_: str | None = None, title: str | None = None) -> str:
    attributes = {"href": clean_text(href), "rel": rel}
    if type_:
        attributes["type"] = type_
    if title:
        attributes["title"] = clean_text(title)
    return _empty("link", attributes)


def _parent(tag: str, children: list[str], level: int) -> str:
    """An element holding others, indented at ``level`` (one space a level)."""
    return _start(tag, {}) + _indented(children, level + 1) + "\n" + " " * level + f"</{tag}>"


def _indented(children: list[str], level: int) -> str:
    indent = "\n" + " " * level
    return "".join(indent + child for child in children)


def _start(tag: str, attributes: dict[str, str]) -> str:
    return f"<{tag}{_attributes(attributes)}>"


def _empty(tag: str, attributes: dict[str, str]) -> str:
    return f"<{tag}{_attributes(attributes)} />"


def _attributes(attributes: dict[str, str]) -> str:
    return "".join(f' {name}="{_escape_attribute(value)}"' for name, value in attributes.items())


def _escape_text(text: str) -> str:
    """Character data as ElementTree escapes it."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _escape_attribute(text: str) -> str:
    """An attribute value as ElementTree escapes it (line breaks and tabs as references)."""
    text = _escape_text(text)
    for char, reference in (('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;")):
        if char in text:
            text = text.replace(char, reference)
    return text


def _newest_date(papers: Iterable[Paper]) -> str:
    years = [p.year for p in papers if p.year]
    return _year_date(max(years)) if years else EPOCH


def _year_date(year: int) -> str:
    return f"{year:04d}-01-01T00:00:00Z"


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
