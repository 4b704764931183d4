"""axe-core: zero WCAG 2.1 A/AA violations on every page kind, in light and dark, on the demo
site and on a sample of the generated corpus, with search results and the cite box's RIS shown."""

from __future__ import annotations

import pytest

DEMO_PAGES = {
    "home": "",
    "author": "authors/jiamang-wang/",
    "coauthor": "authors/zihe-liu/",
    "paper": "papers/part-i-tricks-or-traps-a-deep-dive-into-rl-for-llm-reasoning/",
    "subject": "subjects/cs.LG/",
    "subjects": "subjects/",
    "search": "search/?q=rollout",
    "papers": "papers/",
    "authors": "authors/",
    "page": "about/",
    "404": "404.html",
}


def prepare(page) -> None:
    """Show what only appears on interaction: search results, the cite box's RIS."""
    if page.locator(".search-form").count():
        page.wait_for_function("document.querySelector('.search-form').dataset.state === 'done'")
        page.wait_for_function("document.getElementById('search-status').textContent !== ''")
    formats = page.locator('.cite-formats button[data-format="ris"]')
    if formats.count():
        formats.click()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", list(DEMO_PAGES))
def test_demo_pages(chromium, demo_base, assert_accessible, name, scheme) -> None:
    context = chromium.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(demo_base + DEMO_PAGES[name])
    prepare(page)
    assert_accessible(page)
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_toggled_scheme_and_focus(chromium, demo_base, assert_accessible, scheme) -> None:
    """The scheme chosen with the toggle (opposite to the OS) passes too."""
    context = chromium.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(demo_base + "authors/jiamang-wang/")
    page.locator(".theme-toggle").click()
    assert page.evaluate("document.documentElement.dataset.theme") != scheme
    page.keyboard.press("Tab")  # the skip link, focused and visible
    assert page.locator(".skip-link").is_visible()
    assert_accessible(page)
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_corpus_sample(chromium, corpus_site, corpus_base, assert_accessible, scheme) -> None:
    authors = sorted(p.parent.name for p in corpus_site.glob("authors/*/index.html"))
    papers = sorted(p.parent.name for p in corpus_site.glob("papers/*/index.html"))
    paged = sorted(p.parent.parent.parent.name for p in corpus_site.glob("authors/*/page/2/index.html"))
    sample = ["", "subjects/", "search/?q=memory", f"authors/{authors[0]}/",
              f"papers/{papers[len(papers) // 2]}/", "subjects/cs.LG/", "subjects/cs.LG/page/2/",
              "papers/page/2/", f"authors/{paged[0]}/page/2/"]
    context = chromium.new_context(color_scheme=scheme)
    page = context.new_page()
    for url in sample:
        page.goto(corpus_base + url)
        prepare(page)
        assert_accessible(page)
    context.close()
