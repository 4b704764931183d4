"""The render stage on its own (site_gen/render/engine.py): a route is its template rendered
with its context into the writer; text from the dumps is escaped; a broken template is reported
at its file and line, with worker processes too; and the bytes do not depend on how many
processes made them.

Whole builds that report template errors as diagnostics are in test_user_errors.py and
test_build.py; the tidy rule and the theme's snippets in test_snippets.py; what a rebuild
renders again in test_incremental.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from markupsafe import Markup, escape

from site_gen.incremental.builder import Builder
from site_gen.model import Catalog
from site_gen.outputs.citations import bibtex_entries
from site_gen.pipeline import Plan, template_diagnostic
from site_gen.plan.routes import Route
from site_gen.read.config import Config
from site_gen.render.engine import (
    Fragments,
    MemoryWriter,
    Rendered,
    TemplateFault,
    Theme,
    asset_versions,
    make_environment,
    render_pages,
)
from site_gen.write.tree import digest

TEMPLATES = {
    "base.html": "<!doctype html>\n<title>{% block title %}{% endblock %}</title>\n"
                 "<main>{% block content %}{% endblock %}</main>\n",
    "item.html": "{% extends 'base.html' %}\n"
                 "{% block title %}{{ heading }}{% endblock %}\n"
                 "{% block content %}<a href=\"{{ 'papers/'|url }}\" title=\"{{ note }}\">"
                 "{{ note }}</a>{{ trusted }}{% endblock %}\n",
    "broken.html": "{% extends 'base.html' %}\n"
                   "{% block content %}\n"
                   "{{ missing.attribute }}\n"
                   "{% endblock %}\n",
    "uses_partial.html": "{% extends 'base.html' %}\n"
                         "{% block content %}{% include 'partials/bad.html' %}{% endblock %}\n",
    "partials/bad.html": "<p>fine</p>\n<p>{{ 1 // 0 }}</p>\n",
}
HOSTILE = '<script>alert("x")</script> & <img src=x onerror=y>'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with ``templates/`` holding TEMPLATES, as a project's own templates are."""
    for name, text in TEMPLATES.items():
        path = tmp_path / "templates" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def render(project: Path, routes: list[Route], workers: int = 1
           ) -> tuple[dict[str, bytes], dict[str, Rendered]]:
    """The pages' bytes and what render_pages says of each, from a new environment."""
    templates = project / "templates"
    env = make_environment(Theme((templates,), ()), templates)
    writer = MemoryWriter()
    rendered = render_pages(env, tuple(routes), Config(), Catalog((), (), ()), {}, writer,
                            workers=workers)
    return writer.files, rendered


def route(url: str, template: str, **context: object) -> Route:
    return Route(url=url, output=url + "index.html", template=template, context=context)


def test_a_route_is_its_template_rendered_with_its_context(project: Path) -> None:
    page = route("papers/x/", "item.html", heading="Tail batching", note="a note", trusted="")
    files, rendered = render(project, [page])
    assert list(files) == ["papers/x/index.html"]
    assert files["papers/x/index.html"] == (
        b'<!doctype html>\n<title>Tail batching</title>\n'
        b'<main><a href="../../papers/" title="a note">a note</a></main>\n')
    assert rendered["papers/x/index.html"].digest == digest(files["papers/x/index.html"])
    # every template the page loaded is among what it read, for a rebuild to compare
    assert {("template", "item.html"), ("template", "base.html")} <= \
        rendered["papers/x/index.html"].lookups


def test_text_is_escaped_in_content_and_attributes_and_markup_is_not(project: Path) -> None:
    page = route("", "item.html", heading=HOSTILE, note=HOSTILE, trusted=Markup("<em>ok</em>"))
    html = render(project, [page])[0]["index.html"].decode()
    escaped = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;img src=x onerror=y&gt;"
    assert f"<title>{escaped}</title>" in html
    assert f'title="{escaped}">{escaped}</a>' in html
    assert "<script>" not in html and "<img" not in html
    assert "<em>ok</em>" in html


def _fault(project: Path, template: str, workers: int = 1) -> TemplateFault:
    pages = [route(f"p{i}/", "item.html", heading="h", note="n", trusted="") for i in range(3)]
    pages.append(route("bad/", template))
    with pytest.raises(TemplateFault) as caught:
        render(project, pages, workers)
    return caught.value


@pytest.mark.parametrize("workers", [1, 2])
def test_a_template_error_names_the_file_and_line(project: Path, workers: int) -> None:
    fault = _fault(project, "broken.html", workers)
    assert (Path(fault.path), fault.line) == (project / "templates" / "broken.html", 3)
    assert fault.message == "template error on bad/: 'missing' is undefined"
    shown = str(template_diagnostic(fault, Theme((project / "templates",), ()), project))
    assert shown == "templates/broken.html:3: template error on bad/: 'missing' is undefined"


def test_an_error_in_an_included_template_is_placed_in_that_template(project: Path) -> None:
    fault = _fault(project, "uses_partial.html")
    shown = str(template_diagnostic(fault, Theme((project / "templates",), ()), project))
    assert shown == ("templates/partials/bad.html:2: template error on bad/: "
                     "integer division or modulo by zero (ZeroDivisionError)")


def _globals(plan: Plan) -> Mapping[str, object]:
    """What a build gives the default theme's pages besides their routes' contexts."""
    return {"asset_versions": asset_versions(plan.static),
            "bibtex": bibtex_entries(plan.catalog, plan.config.site_url),
            "nav_pages": tuple(p for p in plan.pages if p.nav)}


def test_the_bytes_are_the_builds_in_one_process_or_in_workers(demo_project: Path,
                                                                  demo_site: Path) -> None:
    """The demo's pages rendered by the stage alone, serially and in two forked workers, are
    the bytes the whole build wrote."""
    plan = Builder(demo_project, output=demo_project / "_unused").plan()[0]
    assert plan is not None
    made = []
    for workers in (1, 2):
        env = make_environment(plan.theme, plan.theme_templates)
        writer = MemoryWriter()
        render_pages(env, plan.routes, plan.config, plan.catalog, _globals(plan), writer,
                     workers=workers)
        made.append(writer.files)
    assert len(made[0]) == len(plan.routes) > 50
    assert made[0] == made[1]
    assert made[0] == {name: (demo_site / name).read_bytes() for name in made[0]}


def test_workers_started_later_fork_once_this_process_is_free(
        demo_project: Path, demo_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``later``, one worker fewer forks at first, and this process renders beside them
    while ``busy()`` (the build's process that makes the files beside the pages still
    works); then the last worker forks for the batches left, and none if none is left. The
    pages and what each read are the same however they were shared."""
    from site_gen.render import engine

    plan = Builder(demo_project, output=demo_project / "_unused").plan()[0]
    assert plan is not None
    forks: list[tuple[int, int]] = []  # each fork: batches taken before it, processes forked
    start = engine._Workers.start

    def noted(self: engine._Workers, total: int) -> None:
        before, taken = len(self._processes), self._counter.value
        start(self, total)
        if len(self._processes) > before:
            forks.append((taken, len(self._processes) - before))

    monkeypatch.setattr(engine._Workers, "start", noted)
    made = []
    for workers, answers in ((2, [True, True, False]), (2, [True] * 1000), (2, []),
                             (3, [False])):
        env = make_environment(plan.theme, plan.theme_templates)
        writer = MemoryWriter()
        asked = iter(answers)
        with engine.PageRendering(env, plan.routes, plan.config, plan.catalog, _globals(plan),
                                  writer, workers=workers, later=bool(answers)) as pages:
            if answers:
                pages.render_while(lambda asked=asked: next(asked, False))
            rendered = pages.result()
        made.append((writer.files, rendered))
    batches = len(engine._parallel_batches(plan.routes, 2))
    assert batches > 3
    # two batches here, then the fork; all of them here, and none; at once; one at once and
    # one once this process is free (at once too, before the first could take every batch)
    assert forks[:2] == [(2, 1), (0, 1)] and forks[2][0] == 0
    assert [count for _, count in forks] == [1, 1, 1, 1]
    assert made[0] == made[1] == made[2] == made[3]
    assert made[0][0] == {name: (demo_site / name).read_bytes() for name in made[0][0]}


def test_lookups_listed_are_the_sets_as_tuples(demo_project: Path) -> None:
    """``listed`` (a one-shot build, which only stores what pages read) keeps each page's
    lookups as a tuple, here and from forked workers: the same lookups as the sets, each
    one object however many pages read it, and the same bytes. List items keep theirs as
    sorted tuples, equal ones one object, and no list is kept whole (none is shown twice)."""
    from site_gen.render import engine

    plan = Builder(demo_project, output=demo_project / "_unused").plan()[0]
    assert plan is not None
    made = {}
    for workers in (1, 2):
        for listed in (False, True):
            env = make_environment(plan.theme, plan.theme_templates)
            writer = MemoryWriter()
            memo = engine.Fragments(whole_lists_over=2)
            with engine.PageRendering(env, plan.routes, plan.config, plan.catalog,
                                      _globals(plan), writer, workers=workers, fragments=memo,
                                      listed=listed) as pages:
                rendered = pages.result()
            kinds = {type(r.lookups) for r in rendered.values()}
            assert kinds == ({tuple} if listed else {frozenset})
            made[workers, listed] = (writer.files, rendered)
            if workers == 1:  # the list items this process rendered, and whole lists
                wholes = [key for key in memo.current if key[0] == "*list"]
                assert (wholes == []) if listed else wholes
                items = [lookups for key, (_, lookups) in memo.current.items()
                         if key[0] != "*list"]
                assert len(items) > 50
                if listed:  # sorted tuples, one object for equal ones
                    assert all(type(x) is tuple and list(x) == sorted(set(x)) for x in items)
                    assert len({id(x) for x in items}) == len(set(items)) < len(items)
    files, sets = made[1, False]
    for (workers, listed), (other_files, rendered) in made.items():
        assert other_files == files
        assert {name: frozenset(r.lookups) for name, r in rendered.items()} == \
            {name: r.lookups for name, r in sets.items()}
        if listed:
            assert all(len(set(r.lookups)) == len(r.lookups) for r in rendered.values())
            one: dict[tuple[str, str], tuple[str, str]] = {}
            assert all(one.setdefault(lookup, lookup) is lookup
                       for r in rendered.values() for lookup in r.lookups)
    assert any(len(r.lookups) > 20 for r in sets.values())


def test_lookups_are_kept_once_however_many_pages_made_them() -> None:
    """What pages and list items read is kept for rebuilds and the build cache: equal lookups,
    and equal sets of them, are one object (TrackedCatalog.frozen), wildcard marks included."""
    from site_gen.render.engine import WILDCARD, TrackedCatalog

    def lookup(kind: str, key: str) -> tuple[str, str]:
        return (kind, key)  # a new tuple each call, as a page's reads make them

    tracked = TrackedCatalog(Catalog(papers=(), authors=(), subjects=()))
    first = tracked.frozen({lookup("paper", "a"), lookup("author", "b")})
    second = tracked.frozen({lookup("paper", "a"), lookup("author", "b")})
    third = tracked.frozen({lookup("paper", "a"), lookup("*", "papers")})
    assert first is second and first == {("paper", "a"), ("author", "b")}
    assert third == {("paper", "a"), ("*", "papers"), WILDCARD}
    assert {t for t in first if t[0] == "paper"}.pop() is {t for t in third if t[0] == "paper"}.pop()


FRAGMENT_TEMPLATES = {
    "item.html": "<a href=\"{{ ''|url }}\">{{ note }}</a><a href=\"{{ 'papers/'|url }}\"></a>"
                 "{{ fragment('inner.html', n=note) }}{{ macros('links.html').chip() }}",
    "inner.html": "<i data-x=\"{{ 'authors/'|url }}\">{{ n }}</i>",
    "links.html": "{% macro chip() %}<b data-x=\"{{ 'subjects/'|url }}\"></b>{% endmacro %}",
    "page.html": "{{ fragment('item.html', note=note) }}|{{ fragments('item.html', 'note', notes) }}"
                 "|{{ macros('links.html').chip() }}",
}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_fragment_is_rendered_once_and_links_from_each_page_that_shows_it(
        tmp_path: Path, workers: int) -> None:
    """Fragments are rendered with their links marked, once for all pages; each page then
    links them from where it is (its depth, the home page's "./", the 404 page's absolute
    links, escaped as any link is), nested fragments and macros included, and the text
    between stays as it is."""
    for name, text in FRAGMENT_TEMPLATES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = make_environment(Theme((tmp_path,), ()), tmp_path)
    writer, memo = MemoryWriter(), Fragments(whole_lists_over=1)
    notes = (HOSTILE, "../ & ./", "second")
    pages = [route(url, "page.html", note=HOSTILE, notes=notes)
             for url in ("", "papers/x/", "authors/y/page/2/")]
    pages.append(Route(url="404.html", output="404.html", template="page.html",
                       context={"note": HOSTILE, "notes": notes}))
    render_pages(env, tuple(pages), Config(site_url="https://x.github.io/r&d/"),
                 Catalog((), (), ()), {}, writer, workers=workers, fragments=memo)
    escaped = {n: str(escape(n)) for n in notes}

    def item(note: str, root: str, up: str) -> str:
        return (f'<a href="{root}">{escaped[note]}</a><a href="{up}papers/"></a>'
                f'<i data-x="{up}authors/">{escaped[note]}</i><b data-x="{up}subjects/"></b>')

    for output, root, up in [("index.html", "./", ""), ("papers/x/index.html", "../../", "../../"),
                             ("authors/y/page/2/index.html", "../../../../", "../../../../"),
                             ("404.html", "/r&amp;d/", "/r&amp;d/")]:
        assert writer.files[output].decode() == (
            item(HOSTILE, root, up) + "|" + "".join(item(n, root, up) for n in notes)
            + f'|<b data-x="{up}subjects/"></b>\n')
    if workers == 1:  # one rendering of each item served the four pages (a list's items
        # are keyed by the list's values and the item, a fragment by its sorted values)
        assert {k for k in memo.current if k[0] == "item.html"} == {
            ("item.html", (("note", HOSTILE),))} | {("item.html", (), "note", n) for n in notes}
