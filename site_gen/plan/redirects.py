"""URLs that last: ``content/urls.lock`` + curation aliases -> redirect pages (planning stage).

Every paper and author URL a build publishes is recorded in ``content/urls.lock`` with what
the page showed: a paper by a digest of its folded abstract, an author by their profile (or
their name). When a later build no longer has a page at a recorded URL (a curated title or
name changed the slug), the URL gets a small redirect page to the page that now shows the
same paper or person; curation's ``aliases`` add old slugs by hand. Redirect pages are routes
of their own (template ``redirect.html``), left out of the sitemap and search.
"""

from __future__ import annotations

import codecs
import contextlib
import os
from collections.abc import Collection, Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from site_gen.catalog.merge import abstract_identity
from site_gen.model import Author, Catalog, Paper
from site_gen.plan.routes import Route
from site_gen.plan.urls import author_url, check_url, output_path, paper_url
from site_gen.read.names import person_key
from site_gen.util.diagnostics import Diagnostic, error, warning
from site_gen.util.text import MEMO, fold, plain_text

LOCK_FILE = "urls.lock"
REDIRECT_TEMPLATE = "redirect.html"
_HEADER = ("# Every paper and author URL this site has published, and what it showed.\n"
           "# site-gen build adds to it; commit it, so that a URL, once published, keeps\n"
           "# answering (with a redirect once its page moves). See docs/curation.md.\n")

PROFILE = "profile:"
"""The identity of an author URL that showed a profile: ``profile:<the dump's path>``."""

Lock = dict[str, str]
"""Published URL -> the identity of what it showed (``paper:<digest>``, ``profile:<dump>``,
``name:<folded name>``)."""


def parse_lock(shown: str, data: bytes) -> tuple[Lock, list[Diagnostic]]:
    """The URLs a lock file's bytes record; a malformed line is an error.

    Lines end at a newline only, not at every break ``str.splitlines`` knows (``\\x85``,
    ``\\u2028``, a lone ``\\r``), which a name may hold. A line that is no entry, right
    after a ``profile:`` entry (blank lines aside), is the rest of that dump's name: an older
    site-gen wrote a name holding a newline as it was, and every later build failed on the
    lock. No dump may be named so now (``pipeline.dump_listing``), so such an identity
    matches no page, and ``lock_text`` leaves it out of the next lock written.
    """
    lock: Lock = {}
    problems = []
    named = ""  # the URL of the profile entry a line may continue
    for number, raw in enumerate(data.removeprefix(codecs.BOM_UTF8).split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(error(shown, number, f"not UTF-8 text (byte {raw[exc.start]:#04x}); "
                                                 "expected a line as site-gen build writes it"))
            named = ""
            continue
        if not line.strip() or line.startswith("#"):
            named = named if not line.strip() else ""
            continue
        url, _, identity = line.strip().partition(" ")
        if not _valid_url(url) or not identity.strip():
            if named:
                lock[named] += "\n" + line.strip()
                continue
            problems.append(error(shown, number, "expected '<papers/slug/ or authors/slug/> "
                                                 "<identity>', as site-gen build writes it"))
            continue
        lock[url] = identity.strip()
        named = url if lock[url].startswith(PROFILE) else ""
    return lock, problems


def _valid_url(url: str) -> bool:
    try:
        check_url(url)
    except ValueError:
        return False
    return url.startswith(("papers/", "authors/")) and url.endswith("/") and url.count("/") == 2


def lock_text(lock: Lock) -> str:
    """The lock file's text: sorted, one URL a line, so that its diffs read well. An entry
    ``parse_lock`` would not read back as it is (an identity holding a newline, say, which
    an older lock may have left) is left out: nothing it holds may break the lock."""
    return _HEADER + "".join(f"{url} {lock[url]}\n" for url in sorted(lock)
                             if _writable(url, lock[url]))


def _writable(url: str, identity: str) -> bool:
    """Whether ``parse_lock`` reads the line of this entry back as this entry."""
    return (_valid_url(url) and "\n" not in identity and bool(identity)
            and identity == identity.strip())


def write_lock(path: Path, lock: Lock) -> None:
    """Replace the lock file in one step (a reader never sees half of it); raises OSError,
    leaving no side file."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(lock_text(lock), encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise


def paper_identity(paper: Paper) -> str:
    """What a paper URL showed: its abstract, as merging compares it."""
    return _abstract_identity(paper.abstract_text)


@lru_cache(maxsize=MEMO)
def _abstract_identity(abstract: str) -> str:
    """Remembered by abstract: every build, watch rebuilds too, names every paper's identity
    (250 ms at 10,000 papers without it). Folded without fold's memo, which a one-shot build
    empties after merging (24 MB at 10,000 papers)."""
    return abstract_identity(fold.__wrapped__(plain_text(abstract)))


def author_identities(author: Author) -> tuple[str, ...]:
    """Who an author URL showed, first the identity recorded for it: their profile's dump, else
    their name; then every other name they go by (curation's variants)."""
    names = tuple(f"name:{person_key(n)}" for n in (author.name, *author.variants))
    return tuple(f"{PROFILE}{p.path}" for p in author.profiles) + names


def published(catalog: Catalog, known: Mapping[str, str] | None = None) -> Lock:
    """Every paper and author URL of this catalog, with its identity. ``known``: identities
    by abstract made already (``catalog.merge.abstract_identities``: where dumps are parsed,
    in parallel and kept in the build cache)."""
    known = known or {}
    lock = {paper_url(p.id): known.get(p.abstract_text) or paper_identity(p)
            for p in catalog.papers}
    lock.update((author_url(a.id), author_identities(a)[0]) for a in catalog.authors)
    return lock


def plan_redirects(catalog: Catalog, lock: Lock, now: Lock, taken: Collection[str], shown: str
                   ) -> tuple[list[Route], list[Diagnostic]]:
    """A redirect route for every recorded URL whose page moved, and every curated alias;
    never over a page of this build (``taken``). ``now`` is ``published(catalog)``."""
    gone = {url: identity for url, identity in lock.items() if url not in taken}
    moves = _moves(catalog, gone, now) if gone else {}
    diagnostics: list[Diagnostic] = []
    for url, target in _aliases(catalog):
        if url in taken:
            diagnostics.append(warning(shown, 0, f"alias {url!r} of {target[0]!r} is the URL of "
                                                 "another page; no redirect made", "alias-taken"))
        else:
            moves[url] = target
    return [redirect_route(url, *moves[url]) for url in sorted(moves)], diagnostics


def _moves(catalog: Catalog, gone: Lock, now: Lock) -> dict[str, tuple[str, str]]:
    """Where each recorded URL without a page went: the first page (papers, then authors, in
    catalog order) showing what it showed, with that page's title."""
    targets: dict[str, str] = {}
    for url, identity in now.items():
        targets.setdefault(identity, url)
    for author in catalog.authors:
        for identity in author_identities(author)[1:]:
            targets.setdefault(identity, author_url(author.id))
    return {url: (targets[identity], _title(catalog, targets[identity]))
            for url, identity in gone.items() if identity in targets}


def _title(catalog: Catalog, url: str) -> str:
    kind, slug, _ = url.split("/")
    if kind == "papers":
        return plain_text(catalog.paper(slug).title)
    return catalog.author(slug).name


def _aliases(catalog: Catalog) -> Iterable[tuple[str, tuple[str, str]]]:
    for paper in catalog.papers:
        for alias in paper.aliases:
            yield paper_url(alias), (paper_url(paper.id), plain_text(paper.title))
    for author in catalog.authors:
        for alias in author.aliases:
            yield author_url(alias), (author_url(author.id), author.name)


def redirect_route(url: str, target: str, title: str) -> Route:
    """The page left at ``url``: it sends the browser to ``target`` (both site-relative)."""
    return Route(url, output_path(url), REDIRECT_TEMPLATE, {"target": target, "title": title})


def is_redirect(route: Route) -> bool:
    return route.template == REDIRECT_TEMPLATE
