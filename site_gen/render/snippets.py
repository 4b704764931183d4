"""Markup built in Python for the loops every page runs, behind the theme's own templates.

A 10,000-paper site renders about 50,000 pages and list items, and in Jinja each link of a
loop costs a ``loop`` object, a filter call, an ``escape`` and a ``Markup`` per value. The
theme keeps its macros (``partials/macros.html``) and templates as the place to override; their
default bodies call these helpers, which build the same markup as one string.

Every value from the catalog goes through ``escape``, and each name is in a ``<bdi>`` of its
own: a bidi control one name leaves open must not reorder the names after it. Links go
through the environment's own ``href``/``url`` filters, so a page's depth and the 404 page's
absolute links apply exactly as in a template, and catalog lookups go through the page's
tracked catalog, so incremental builds still see what a page read.
"""

from __future__ import annotations

from collections.abc import Iterable

import jinja2
from jinja2.runtime import Context
from markupsafe import Markup

from site_gen.model import Author, Paper
from site_gen.util.bidi import balance_bidi
from site_gen.util.text import esc


@jinja2.pass_context
def author_links(context: Context, paper: Paper, link: bool = True) -> Markup:
    """A paper's authors as ``partials/macros.html``'s ``author_list`` lays them out.

    Listed authors in order, then "et al.", then the profiled authors at unknown positions
    ("(including ...)" after "et al.", else after a comma); names are links unless ``link``
    is false (inside a link, say).
    """
    catalog, href = context["catalog"], context.environment.filters["href"]

    def names(ids: Iterable[str]) -> str:
        authors = [catalog.author(i) for i in ids]
        if link:
            return ", ".join(f'<a href="{esc(href(context, a))}"><bdi>{esc(a.name)}</bdi></a>'
                             for a in authors)
        return ", ".join(f"<bdi>{esc(a.name)}</bdi>" for a in authors)

    listed = paper.author_ids
    html = names(listed)
    if paper.et_al:
        html += ' <span class="et-al">et al.</span>'
    if paper.extra_author_ids:
        if listed:
            html += ' <span class="incl">(including ' if paper.et_al else ", "
        html += names(paper.extra_author_ids)
        if listed and paper.et_al:
            html += ")</span>"
    return Markup(html)


def path_breaks(path: object) -> Markup:
    """A file path (or ``path:line``) with a ``<wbr>`` after each "/", so long paths wrap."""
    return Markup("/<wbr>".join(esc(part) for part in str(path).split("/")))


def link_buttons(paper: Paper, cls: str = "button") -> Markup:
    """A paper's curated outbound links (arXiv, PDF, code, ...) as ``paper_links`` draws them."""
    cls = esc(cls)
    return Markup(" ".join(f'<a class="{cls}" href="{esc(link.url)}" rel="noopener">'
                           f"{esc(link.label)}</a>" for link in paper.links))


@jinja2.pass_context
def counted_names(context: Context, pairs: Iterable[tuple[Author, int]], noun: str,
                  indent: int = 0) -> Markup:
    """``<li>`` lines of linked names with a count (co-authors and their joint papers).

    One line per pair, each indented by ``indent`` spaces like the template around it, joined
    by newlines (the template's own line break ends the last one).
    """
    href = context.environment.filters["href"]
    pad, noun = " " * indent, esc(noun)
    return Markup("\n".join(
        f'{pad}<li><a href="{esc(href(context, a))}"><bdi>{esc(a.name)}</bdi></a> '
        f'<span class="count">{n}<span class="visually-hidden"> {noun}{"s" if n != 1 else ""}'
        "</span></span></li>"
        for a, n in pairs))


def without(papers: Iterable[Paper], others: Iterable[Paper]) -> list[Paper]:
    """``papers`` but those among ``others`` (by id), in order: what
    ``papers|rejectattr('id', 'in', others|map(attribute='id')|list)|list`` gives, for a
    fraction of its cost (every paper page runs it on its related lists)."""
    ids = {other.id for other in others}
    return [paper for paper in papers if paper.id not in ids]


FILTERS = {"author_links": author_links, "link_buttons": link_buttons, "counted_names": counted_names,
           "path_breaks": path_breaks, "without": without, "balanced": balance_bidi}
"""The filters render.make_environment adds for these (``paper|author_links(false)``, ...)."""

__all__ = ["FILTERS", "author_links", "balance_bidi", "counted_names", "esc", "link_buttons",
           "path_breaks", "without"]
