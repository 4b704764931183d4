"""The built sites in a real browser: every page loads cleanly, under a sub-path, on phones
and wide screens, in both colour schemes, with and without JavaScript, and in print."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

WIDTHS = (360, 390, 1280)
PAGE_KINDS = {
    "home": "",
    "papers": "papers/",
    "paper": "papers/rola-rotary-positioned-low-rank-linear-attention-for-efficient-diffusion/",
    "author": "authors/jiamang-wang/",
    "coauthor": "authors/zihe-liu/",
    "subjects": "subjects/",
    "subject": "subjects/cs.LG/",
    "search": "search/?q=rollout",
    "page": "about/",
    "404": "404.html",
}


def assert_clean(page, base: str) -> None:
    """No console error, no failed request, and nothing requested outside the site."""
    assert page.console_errors == []
    # Moving on to the next page cancels what the last one still loads (its favicon, the
    # search manifest): net::ERR_ABORTED is the crawl's doing, not a broken page.
    assert [f for f in page.failed_requests if not f.endswith("net::ERR_ABORTED")] == []
    origin = urlsplit(base)
    outside = [u for u in page.requests
               if urlsplit(u)[:2] != origin[:2] or not urlsplit(u).path.startswith(origin.path)]
    assert outside == []


def test_every_demo_page_loads_cleanly_under_a_sub_path(page, demo_site, demo_base, visit, site_pages) -> None:
    urls = site_pages(demo_site)
    assert len(urls) > 60
    for url in urls:
        visit(demo_base + url, wait_until="load")
    assert_clean(page, demo_base)


def test_corpus_pages_load_cleanly(page, corpus_site, corpus_base, visit, site_pages) -> None:
    urls = site_pages(corpus_site)
    sample = [u for u in urls if u.count("/") <= 1] + urls[::97] + [
        u for u in urls if u.endswith(("/page/2/", "/page/3/"))]
    for url in sample:
        visit(corpus_base + url, wait_until="load")
    assert_clean(page, corpus_base)


def test_a_paged_list_is_walked_with_the_keyboard(page, corpus_base, visit) -> None:
    """Pages of a long list: a named navigation, the current page marked for screen readers,
    rel=prev/next in the head and on the links, Next and page numbers reached by keyboard."""
    visit(corpus_base + "subjects/cs.LG/")
    pager = page.get_by_role("navigation", name="cs.LG papers, pages")
    assert pager.locator("[aria-current=page]").text_content() == "Page 1"
    assert page.locator("head link[rel=prev]").count() == 0
    pager.get_by_role("link", name="Next page").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(corpus_base + "subjects/cs.LG/page/2/")
    assert pager.locator("[aria-current=page]").text_content() == "Page 2"
    prev = page.evaluate("document.querySelector('head link[rel=prev]').href")
    assert prev == corpus_base + "subjects/cs.LG/"
    assert page.evaluate("document.querySelector('head link[rel=next]').href") == \
        corpus_base + "subjects/cs.LG/page/3/"
    assert page.locator(".year-group").count() >= 1
    assert 50 <= page.locator(".paper-item").count() <= 150  # about page_size (100)
    pager.get_by_role("link", name="Page 1", exact=True).focus()
    page.keyboard.press("Enter")
    page.wait_for_url(corpus_base + "subjects/cs.LG/")
    last = pager.get_by_role("link", name=re.compile(r"^Page \d+$")).last
    last.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/subjects/cs.LG/page/*/")
    assert page.locator("head link[rel=next]").count() == 0
    assert pager.locator("[aria-current=page]").text_content() == last.text_content()


def test_404_page_links_work_at_any_depth(page, demo_base, visit) -> None:
    response = page.goto(demo_base + "no/such/page/")
    assert response.status == 404
    page.goto(demo_base + "404.html")
    page.get_by_role("link", name="All papers").click()
    page.wait_for_url(demo_base + "papers/")
    assert page.locator("h1").inner_text() == "Papers"


def test_navigation_works_under_the_sub_path(page, demo_base, visit) -> None:
    visit(demo_base)
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Authors").click()
    page.wait_for_url(demo_base + "authors/")
    page.get_by_role("link", name="Jiamang Wang").first.click()
    page.wait_for_url(demo_base + "authors/jiamang-wang/")
    page.locator(".paper-item > :first-child a").first.click()
    assert page.url.startswith(demo_base + "papers/")
    page.locator(".facts a.chip").first.click()
    assert page.url.startswith(demo_base + "subjects/")
    assert_clean(page, demo_base)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways(chromium, demo_base, width) -> None:
    context = chromium.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    for name, url in PAGE_KINDS.items():
        page.goto(demo_base + url)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} is {overflow}px wider than a {width}px screen"
    context.close()


def test_header_search_box_leads_to_search(page, demo_base, visit) -> None:
    visit(demo_base + "papers/")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "header-q"
    page.keyboard.type("rollmux")
    page.keyboard.press("Enter")
    page.wait_for_url(demo_base + "search/?q=rollmux")
    page.wait_for_selector("#search-results li")
    assert "RollMux" in page.locator("#search-results li").first.inner_text()


def test_colour_scheme_follows_the_os_and_the_toggle_is_remembered(chromium, demo_base) -> None:
    context = chromium.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(demo_base)
    background = "getComputedStyle(document.body).backgroundColor"
    dark = page.evaluate(background)
    toggle = page.locator(".theme-toggle")
    assert toggle.get_attribute("aria-label") == "Switch to light colour scheme"
    toggle.click()
    light = page.evaluate(background)
    assert light != dark
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    page.goto(demo_base + "papers/")  # remembered on the next page
    assert page.evaluate(background) == light
    page.locator(".theme-toggle").click()  # back to what the OS asks for: follow it again
    assert page.evaluate("localStorage.getItem('site-gen-theme')") is None
    assert page.evaluate(background) == dark
    context.close()


def test_lists_link_to_abstracts_which_read_without_javascript(chromium, demo_base) -> None:
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(demo_base + "authors/jiamang-wang/")
    assert page.locator(".paper-item").count() == 21 and page.locator(".abstract").count() == 0
    assert page.locator(".theme-toggle").is_hidden()  # shown by JavaScript only
    page.locator(".paper-item > :first-child a").first.click()
    assert page.locator(".abstract-section .abstract").is_visible()
    context.close()


def test_search_page_without_javascript_says_so(chromium, demo_base) -> None:
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(demo_base + "search/?q=rollmux")
    notice = page.locator(".notice")
    assert "needs JavaScript" in notice.inner_text()
    notice.get_by_role("link", name="papers by year").click()
    page.wait_for_url(demo_base + "papers/")
    context.close()


def test_author_page_charts_have_text_alternatives(page, demo_base, visit) -> None:
    visit(demo_base + "authors/jiamang-wang/")
    chart = page.locator(".year-chart svg[role=img]")
    label = chart.get_attribute("aria-label")
    assert label.startswith("Bar chart: 21 papers with a known year, 2024 to 2026; most in 2025 (13).")
    rows = page.locator(".year-chart table tbody tr").all_inner_texts()
    assert [" ".join(r.split()) for r in rows] == ["2024 1", "2025 13", "2026 7"]
    bars = [page.locator(".year-chart rect.bar").nth(i).bounding_box()["height"] for i in range(3)]
    assert bars[1] > bars[2] > bars[0] > 0
    breakdown = page.locator(".breakdown li").first.inner_text()
    assert " ".join(breakdown.split()) == "cs.LG Machine Learning 7 papers"
    stats = " ".join(page.locator(".stats").inner_text().split())
    assert "21 papers on this site" in stats and "at least 19 records claimed" in stats


def test_paper_page_math_authors_and_buttons(page, demo_base, edge_base, visit) -> None:
    visit(demo_base + PAGE_KINDS["paper"])
    assert page.locator(".abstract math").first.bounding_box()["height"] > 5
    visit(demo_base + "papers/part-i-tricks-or-traps-a-deep-dive-into-rl-for-llm-reasoning/")
    byline = " ".join(page.locator(".byline").inner_text().split())
    assert byline == "Zihe Liu, Jiashun Liu, Yancheng He et al. (including Jiamang Wang)"
    assert "only the first 3 authors" in page.locator(".paper-header .note").inner_text()
    visit(edge_base + "papers/tail-batching-for-synchronous-rl/")
    buttons = page.locator(".buttons a.button")
    assert buttons.all_inner_texts() == ["arXiv", "PDF", "Code"]
    assert buttons.first.get_attribute("href") == "https://arxiv.org/abs/2401.00001"
    assert page.locator(".paper-header .note").inner_text().startswith("The source lists only")


def test_hostile_titles_are_text(page, edge_base, visit) -> None:
    visit(edge_base + "papers/")
    hostile = page.locator(".paper-item > :first-child a", has_text="Hostile")
    assert "<img src=x" in hostile.inner_text()
    assert page.evaluate("window.__pwned") is None
    assert page.locator(".paper-item > :first-child img").count() == 0


def test_print_shows_content_and_abstracts(page, demo_base, visit) -> None:
    visit(demo_base + PAGE_KINDS["paper"])
    page.emulate_media(media="print")
    assert page.locator(".abstract-section .abstract").is_visible()
    visit(demo_base + "authors/jiamang-wang/")
    page.emulate_media(media="print")
    assert page.locator(".site-header").is_hidden()
    assert page.locator(".paper-item").first.is_visible()
    pdf = page.pdf()
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000


@pytest.mark.parametrize("chosen", [None, "dark"])
def test_print_is_dark_on_white_in_a_dark_scheme(chromium, demo_base, chosen) -> None:
    """Paper is white: printing from a dark screen (the OS's or the toggle's) prints the light
    palette, not light grey text for a background the printer leaves out."""
    context = chromium.new_context(color_scheme="dark" if chosen is None else "light")
    page = context.new_page()
    page.goto(demo_base + PAGE_KINDS["paper"])
    if chosen:
        page.locator(".theme-toggle").click()
    assert page.evaluate("getComputedStyle(document.body).color") == "rgb(230, 232, 235)"
    page.emulate_media(media="print")
    colours = page.evaluate("""[document.body, document.querySelector('.byline'),
        document.querySelector('.facts-panel')].map(e => [getComputedStyle(e).color,
        getComputedStyle(e).backgroundColor])""")
    assert colours[0] == ["rgb(0, 0, 0)", "rgb(255, 255, 255)"]
    assert colours[1][0] == "rgb(0, 0, 0)"
    assert colours[2][1] == "rgb(255, 255, 255)"
    context.close()
