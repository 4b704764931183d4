"""The Nu Html Checker (vnu): zero errors on every page of the demo site, the edge-case site
and the generated 2,000-paper corpus."""

from __future__ import annotations

import time


def test_demo_and_edge_sites_are_valid(demo_site, edge_site, validate_html) -> None:
    errors = validate_html([demo_site], base=demo_site) + validate_html([edge_site], base=edge_site)
    assert errors == [], "\n".join(errors)


def test_every_corpus_page_is_valid(corpus_site, validate_html) -> None:
    started = time.perf_counter()
    pages = list(corpus_site.rglob("*.html"))
    errors = validate_html([corpus_site], base=corpus_site)
    took = time.perf_counter() - started
    assert errors == [], "\n".join(errors[:50])
    print(f"vnu checked {len(pages)} pages in {took:.1f} s")
