"""Search in the browser: matching, typos, ranking, highlighting, filters, URL state,
keyboard use, the live region, escaping, and a generated 2,000-paper corpus."""

from __future__ import annotations

import bisect
import json
import re
from collections import Counter
from urllib.parse import parse_qs, urlsplit

import pytest

from site_gen.outputs.search import excerpt, stem, words

ROLLMUX = "RollMux: Phase-Level Multiplexing for Disaggregated RL Post-Training"


def rendered(page, query: str) -> None:
    """Wait until the search page has shown the results of ``query``."""
    page.wait_for_function(
        "q => document.querySelector('.search-form').dataset.renderedQuery === q", arg=query)


def search(page, query: str) -> list[str]:
    """Type a query into the search box; the result titles, in order."""
    page.fill("#q", query)
    rendered(page, query)
    return page.locator("#search-results .result-title").all_inner_texts()


def result_count(page) -> int:
    """The number of results the page reports."""
    text = page.locator("#search-count").inner_text()
    return 0 if text.startswith("No results") else int(text.split()[0])


@pytest.fixture(scope="module")
def in_dc(demo_site) -> int:
    """How many demo papers are in cs.DC."""
    index = json.loads((demo_site / "search.json").read_text(encoding="utf-8"))
    return sum("cs.DC" in p["subjects"] for p in index["papers"])


@pytest.fixture
def search_page(page, demo_base, visit):
    """The demo site's search page, loaded and ready."""
    visit(demo_base + "search/")
    page.wait_for_function("document.querySelector('.search-form').dataset.state === 'done'")
    return page


@pytest.mark.parametrize("query", ["rollmux", "RollMux", "rollm", "rolmux", "rollmxu", "rolllmux",
                                   "ROLLMUX phase"])
def test_prefix_and_one_typo_find_rollmux(search_page, query) -> None:
    assert search(search_page, query)[0] == ROLLMUX


@pytest.mark.parametrize("query", ["rolm", "rlmux", "xollmux"])
def test_short_words_and_first_letters_must_be_right(search_page, query) -> None:
    assert ROLLMUX not in search(search_page, query)


def test_matches_every_field_and_ranks_titles_first(search_page, in_dc) -> None:
    titles = search(search_page, "rollout")
    in_title = [t for t in titles if "rollout" in t.lower()]
    assert in_title and titles[: len(in_title)] == in_title  # title hits come first
    assert "Zihe Liu" in search(search_page, "zihe")  # an author is a result of its own
    assert any("Part I: Tricks or Traps" in t for t in search(search_page, "zihe liu"))
    search(search_page, "distributed parallel cluster")  # cs.DC's name, then some of it
    assert result_count(search_page) == in_dc
    assert search_page.locator("#search-count").inner_text().endswith("that match some of the words.")
    assert "Preplan-and-Anchor" in " ".join(search(search_page, "sawtooth"))  # abstract


def test_matched_words_are_highlighted(search_page) -> None:
    search(search_page, "rollm phase")
    marks = search_page.locator("#search-results li").first.locator("mark").all_inner_texts()
    assert "RollM" in marks and "Phase" in marks


def test_results_show_the_abstract_s_opening_highlighted(search_page, demo_site) -> None:
    exported = json.loads((demo_site / "papers.json").read_text(encoding="utf-8"))
    text = next(p["abstract_text"] for p in exported["papers"] if p["title"] == ROLLMUX)
    assert search(search_page, "rollmux disaggregation")[0] == ROLLMUX
    snippet = search_page.locator("#search-results li").first.locator(".result-snippet")
    assert snippet.inner_text() == excerpt(text) and len(excerpt(text)) < len(text)
    assert "disaggregation" in [m.lower() for m in snippet.locator("mark").all_inner_texts()]


def test_results_update_on_every_keystroke(search_page) -> None:
    search_page.focus("#q")
    firsts = []
    for letter in "rollmux":
        search_page.keyboard.type(letter)
        value = search_page.input_value("#q")
        rendered(search_page, value)  # every prefix is searched and shown
        titles = search_page.locator("#search-results .result-title").all_inner_texts()
        firsts.append(titles[0] if titles else None)
    assert firsts[0] is None  # one letter is not searched yet
    assert firsts[4:] == [ROLLMUX] * 3  # from "rollm" on, RollMux leads
    assert search_page.locator("#search-results li").count() == 1


def test_result_count_is_announced(search_page) -> None:
    search(search_page, "rollout")
    status = search_page.locator("#search-status")
    assert status.get_attribute("role") == "status"
    search_page.wait_for_function("document.getElementById('search-status').textContent !== ''")
    assert re.fullmatch(r"\d+ results for “rollout”\.", status.inner_text())
    search(search_page, "qqqqqq")
    search_page.wait_for_function(
        "document.getElementById('search-status').textContent.startsWith('No results')")


def test_filters_by_subject_and_year_live_in_the_url(search_page, in_dc) -> None:
    search(search_page, "rl")
    everything = result_count(search_page)
    search_page.select_option("#filter-subject", "cs.DC")
    search_page.wait_for_function("location.search.includes('subject=cs.DC')")
    search_page.wait_for_function("document.getElementById('search-count').textContent.includes(' in cs.DC')")
    items = search_page.locator("#search-results li")
    assert 0 < result_count(search_page) < everything
    assert all("cs.DC" in t for t in items.all_inner_texts())
    search_page.select_option("#filter-year", "2025")
    search_page.wait_for_function("location.search.includes('year=2025')")
    search_page.wait_for_function("document.getElementById('search-count').textContent.includes('from 2025')")
    assert all("2025" in t for t in search_page.locator("#search-results li").all_inner_texts())
    search_page.go_back()  # the year filter goes, the subject stays
    search_page.wait_for_function("!location.search.includes('year=')")
    assert search_page.input_value("#filter-year") == ""
    assert search_page.input_value("#filter-subject") == "cs.DC"
    search_page.wait_for_function("!document.getElementById('search-count').textContent.includes('from 2025')")
    search_page.fill("#q", "")  # a filter alone lists the subject's papers
    rendered(search_page, "")
    assert result_count(search_page) == in_dc
    assert search_page.locator("#search-results li").count() == min(in_dc, 10)


def test_query_in_the_url_is_searched_and_back_returns_to_it(page, demo_base, visit) -> None:
    visit(demo_base + "search/?q=rolmux")
    rendered(page, "rolmux")
    assert page.input_value("#q") == "rolmux"
    assert page.locator("#search-results .result-title").first.inner_text() == ROLLMUX
    page.fill("#q", "rollpacker")
    rendered(page, "rollpacker")
    page.locator("#search-results .result-title").first.click()
    page.wait_for_url(re.compile(r".*/papers/rollpacker.*"))
    page.go_back()
    page.wait_for_function("document.getElementById('q').value === 'rollpacker'")
    rendered(page, "rollpacker")
    assert parse_qs(urlsplit(page.url).query) == {"q": ["rollpacker"]}
    assert "RollPacker" in page.locator("#search-results .result-title").first.inner_text()


def test_keyboard_slash_arrows_and_enter(search_page, demo_base) -> None:
    search(search_page, "rollout")
    search_page.locator("h1").click()
    search_page.keyboard.press("/")
    assert search_page.evaluate("document.activeElement.id") == "q"
    links = search_page.locator("#search-results .result-title")
    search_page.keyboard.press("ArrowDown")
    assert search_page.evaluate("document.activeElement.className") == "result-title"
    assert search_page.evaluate("document.activeElement.href") == links.nth(0).evaluate("a => a.href")
    search_page.keyboard.press("ArrowDown")
    search_page.keyboard.press("ArrowDown")
    search_page.keyboard.press("ArrowUp")
    second = links.nth(1).evaluate("a => a.href")
    assert search_page.evaluate("document.activeElement.href") == second
    search_page.keyboard.press("Enter")
    search_page.wait_for_url(second)
    assert search_page.locator("h1").is_visible()


def test_arrow_up_from_the_first_result_returns_to_the_box(search_page) -> None:
    search(search_page, "rollout")
    search_page.focus("#q")
    search_page.keyboard.press("ArrowDown")
    search_page.keyboard.press("ArrowUp")
    assert search_page.evaluate("document.activeElement.id") == "q"


def test_more_results_on_request(page, corpus_base, visit) -> None:
    visit(corpus_base + "search/?q=memory")
    rendered(page, "memory")
    items = page.locator("#search-results li")
    assert items.count() == 10
    page.click("#search-more")
    page.wait_for_function("document.querySelectorAll('#search-results li').length === 20")
    assert page.evaluate("document.activeElement.className") == "result-title"


def test_hostile_titles_stay_text_in_results(page, edge_base, visit) -> None:
    visit(edge_base + "search/?q=hostile")
    rendered(page, "hostile")
    result = page.locator("#search-results li").first
    assert "<img src=x" in result.inner_text() and "<script>" in result.inner_text()
    assert result.locator("img, script").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert page.console_errors == []


def test_search_links_resolve_under_the_sub_path(page, demo_base, visit) -> None:
    visit(demo_base + "search/?q=jiamang")
    rendered(page, "jiamang")
    first = page.locator("#search-results .result-title").first
    assert first.inner_text() == "Jiamang Wang"
    first.click()
    page.wait_for_url(demo_base + "authors/jiamang-wang/")
    assert page.failed_requests == [] and page.console_errors == []


def test_search_works_on_the_generated_corpus(page, corpus_site, corpus_base, visit) -> None:
    index = json.loads((corpus_site / "search.json").read_text(encoding="utf-8"))
    paper = next(p for p in index["papers"] if len(p["title"].split()) > 4 and p["year"])
    word = max(re.findall(r"[A-Za-z]{6,}", paper["title"]), key=len).lower()
    typo = word[:2] + word[3:]
    visit(corpus_base + "search/")
    page.wait_for_function("document.querySelector('.search-form').dataset.state === 'done'")
    exact = search(page, word)
    assert exact and all(stem(word) in map(stem, words(t)) for t in exact[:3])  # or its forms
    assert search(page, typo)[:3] == exact[:3]
    surname = paper["authors"][0].split()[-1]
    assert search(page, surname)
    names = page.locator("#search-results .result-meta").all_inner_texts()
    assert any(surname.lower() in n.lower() for n in names)
    fetched = [u for u in page.requests if "/search/index/" in u]
    assert not any(u.endswith("search.json") for u in page.requests)  # the big file is not needed
    assert fetched and page.failed_requests == [] and page.console_errors == []


def test_a_word_that_finds_a_page_is_taken_as_meant(page, tmp_path, serve_directory, visit) -> None:
    """Two words with one paper holding both: each finds ten papers alone, so neither is
    widened to its typos, and a title a typo away ("Course") does not push in among the
    papers that hold a query word as typed (once, in a long abstract). A word that finds fewer
    than ten still is ("coirse" finds the course)."""
    from conftest import build, listing_dump, write_files

    topics = ["fluids", "heat", "waves", "soils", "rocks", "ice", "plasma", "tides", "winds",
              "stars", "clouds", "magma", "glaciers", "rivers", "dunes", "reefs", "forests",
              "comets", "lakes", "caves", "storms", "deltas", "moons", "sands"]
    long = " We measure the cells of many grids and report what they hold." * 15

    def paper(year: int, topic: str, word: str) -> tuple[int, str, str, list[str]]:
        return year, f"Models of {topic.title()}", f"A {word} method for {topic}.{long}", ["cs.NA"]

    records = [paper(2020, t, "coarse") for t in topics[:12]]
    records += [paper(2021, t, "lattice") for t in topics[12:]]
    records += [(2022, "Both Kinds", "A coarse lattice.", ["cs.NA"]),
                (2019, "Course Notes", "Teaching notes.", ["cs.CY"])]
    project = write_files(tmp_path / "project", {
        "content/site.yaml": "title: Typos\n",
        "content/dumps/a.txt": listing_dump("Ann Lee", records)})
    assert build(project).ok
    with serve_directory(project / "_site", "/") as base:
        visit(base + "search/")
        page.wait_for_function("document.querySelector('.search-form').dataset.state === 'done'")
        found = search(page, "coarse lattice")
        assert found[0] == "Both Kinds" and len(found) == 10 and "Course Notes" not in found
        assert "Course Notes" in search(page, "coirse")
    assert page.failed_requests == [] and page.console_errors == []


def test_plurals_and_other_forms_of_a_word_match(search_page) -> None:
    kv = search(search_page, "kv cache")
    assert len(kv) >= 2 and search(search_page, "KV caches")[:2] == kv[:2]  # a plural
    assert search(search_page, "quantizer")[0].startswith("Learning Grouped Lattice Vector Quantizers")
    assert search(search_page, "recommender")[0].startswith("RecIS")
    assert search(search_page, "asynchronous")[0].startswith("Part II: ROLL Flash")  # Asynchrony
    marks = search_page.locator("#search-results li").first.locator("mark").all_inner_texts()
    assert marks == ["Asynchrony"]  # another form is highlighted whole


def test_ranking_puts_the_title_that_is_the_query_first(search_page) -> None:
    laws = search(search_page, "scaling laws")  # "Scaling Law" in the title, then "Scaling" only
    assert laws[0].startswith("D-CPT Law") and laws[1].startswith("Every Step Evolves: Scaling")
    roll = search(search_page, "roll")  # the word itself before words that start with it
    assert sorted(t.split(":")[0] for t in roll[:2]) == ["Let It Flow", "Part II"]


def test_an_idle_page_gets_ready_without_downloading_the_index(page, corpus_site, corpus_base,
                                                                visit) -> None:
    """While idle, a fresh search page opens its connections (requests for the manifest's
    headers): it downloads no other index file and shows nothing. Its first query then fetches a small vocabulary beside the word's shards."""
    index = json.loads((corpus_site / "search.json").read_text(encoding="utf-8"))
    counted = Counter(w for p in index["papers"] for w in words(p["title"]) if len(w) >= 6)
    word = counted.most_common(1)[0][0]  # many results: typos are never looked for
    sent: list[tuple[str, str]] = []
    page.on("request", lambda r: sent.append((r.method, urlsplit(r.url).path)))
    visit(corpus_base + "search/")
    page.wait_for_function("document.querySelector('.search-form').dataset.state === 'done'")
    page.wait_for_load_state("networkidle")
    for _ in range(5):  # the connections are opened in an idle callback
        page.evaluate("() => new Promise((done) => requestIdleCallback(done))")
    index_requests = [(m, p) for m, p in sent if "/search/index/" in p]
    assert index_requests == [("GET", urlsplit(corpus_base).path + "search/index/meta.json")] + \
        [("HEAD", urlsplit(corpus_base).path + "search/index/meta.json")] * 6
    assert page.locator("#search-results li").count() == 0
    assert page.locator("#search-count").inner_text() == ""
    assert len(search(page, word)) == 10
    letter = format(ord(word[0]), "x")
    assert any(p.endswith(f"/search/index/v/{letter}.json") for _, p in sent)
    assert page.failed_requests == [] and page.console_errors == []


def test_a_word_fetches_only_shards_that_may_hold_its_terms(page, corpus_site, corpus_base,
                                                           visit) -> None:
    """A long word fetches the shards of the terms it is, starts or completes (its
    beginnings that an ending follows, as "prompt" of "prompts"), not every shard that lies
    between its first letters and itself; and it finds the papers that hold it."""
    folder = corpus_site / "search" / "index"
    starts = json.loads((folder / "meta.json").read_text(encoding="utf-8"))["shards"]
    shards = [json.loads((folder / "t" / f"{n}.json").read_text(encoding="utf-8"))
              for n in range(len(starts))]
    index = json.loads((corpus_site / "search.json").read_text(encoding="utf-8"))
    titled = sorted({w for p in index["papers"] for w in words(p["title"]) if len(w) >= 9})

    def shard_of(term: str) -> int:  # the last shard whose first term is <= term
        return bisect.bisect_right(starts, term) - 1

    def may_hold(number: int, word: str) -> bool:
        return any(t.startswith((word, stem(word))) or (len(t) >= 3 and word.startswith(t))
                   or (len(t) >= 4 and t[-1] in "ei" and word.startswith(t[:-1]))
                   for t in shards[number])

    # Words with a shard between their first letters' and their own that holds none of this.
    between = [w for w in titled
               if not all(may_hold(n, w) for n in range(shard_of(w[:max(3, len(w) - 7)]), shard_of(w)))]
    between = list({w[:3]: w for w in between}.values())[:3]  # each fetches shards of its own
    assert between, "the corpus has no word with such a shard"
    visit(corpus_base + "search/")
    page.wait_for_function("document.querySelector('.search-form').dataset.state === 'done'")
    for word in between:
        page.requests.clear()
        found = search(page, word)
        assert any(stem(word) in map(stem, words(t)) for t in found[:3])
        fetched = {int(urlsplit(u).path.rsplit("/", 1)[1].split(".")[0])
                   for u in page.requests if "/search/index/t/" in u}
        assert fetched and all(may_hold(n, word) for n in fetched), (word, sorted(fetched))
    assert page.failed_requests == [] and page.console_errors == []
