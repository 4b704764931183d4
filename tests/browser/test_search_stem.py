"""search.js's Snowball English stemmer, run in Chromium, against the Python library the build
stems with (snowballstemmer), on every word of the demo site and of the generated corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_gen.outputs.search import STOPWORDS, stem, words

SEARCH_JS = Path(__file__).resolve().parents[2] / "themes/default/static/search.js"

STEM_ALL = """(words) => {
  var module = {exports: {}}, document;  // search.js exports its stemmer where no page is
  SOURCE
  return words.map(module.exports.stem);
}"""


def vocabulary(site: Path) -> list[str]:
    """Every distinct word of a site's papers and authors, as the index folds them."""
    listing = json.loads((site / "search.json").read_text(encoding="utf-8"))
    exported = json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]
    abstracts = {paper["id"]: paper["abstract_text"] for paper in exported}  # not in search.json
    found: set[str] = set()
    for paper in listing["papers"]:
        abstract = abstracts[paper["url"].removeprefix("papers/").strip("/")]
        found.update(words(" ".join([paper["title"], abstract, *paper["authors"]])))
    found.update(w for a in listing["authors"] for w in words(a["name"]))
    return sorted(found)


@pytest.mark.parametrize("site", ["demo_site", "corpus_site"])
def test_search_js_stems_as_the_build_does(page, request, site: str) -> None:
    vocab = vocabulary(request.getfixturevalue(site))
    assert len(vocab) > 1500
    script = STEM_ALL.replace("SOURCE", SEARCH_JS.read_text(encoding="utf-8"))
    in_browser = page.evaluate(script, vocab)
    differ = [(w, s, b) for w, s, b in zip(vocab, map(stem, vocab), in_browser) if s != b]
    assert differ == []


def test_plurals_and_forms_share_a_stem() -> None:
    assert stem("caches") == stem("cache") == stem("caching")
    assert stem("quantizers") == stem("quantizer") and stem("recommender") == stem("recommendation")
    assert stem("scaling") == stem("scale") and stem("laws") == stem("law")
    assert stem("rollmux") == "rollmux" and stem("王") == "王"  # non-ASCII words: themselves
    assert "the" in STOPWORDS


@pytest.mark.parametrize("site", ["demo_site", "corpus_site"])
def test_a_stem_starts_with_its_words_first_letter(request, site: str) -> None:
    """search.js stems a result's word, to mark it, only when a matched term starts with the
    word's first letter: that holds because no stem loses it."""
    odd = ["aing", "aed", "eed", "ies", "ying", "yes", "sses", "skies", "dying", "idly", "y" * 5]
    vocab = vocabulary(request.getfixturevalue(site)) + odd
    assert [w for w in vocab if not stem(w).startswith(w[0])] == []
