"""URL rules: relative links from any page, output paths, and refusal of unsafe URLs."""

from __future__ import annotations

import pytest

from site_gen.plan.urls import check_url, output_path, relative_url


@pytest.mark.parametrize("target, current, expected", [
    ("authors/x/", "papers/y/", "../../authors/x/"),
    ("", "papers/y/", "../../"),
    ("", "", "./"),
    ("papers/y/", "papers/y/", "../../papers/y/"),
    ("search.json", "search/", "../search.json"),
    ("assets/site.css", "", "assets/site.css"),
    ("assets/site.css", "404.html", "assets/site.css"),
    ("subjects/cs.LG/", "subjects/", "../subjects/cs.LG/"),
    ("papers/x/feed.xml", "papers/x/", "../../papers/x/feed.xml"),
])
def test_relative_url(target: str, current: str, expected: str) -> None:
    assert relative_url(target, current) == expected


def test_output_paths() -> None:
    assert output_path("") == "index.html"
    assert output_path("papers/x/") == "papers/x/index.html"
    assert output_path("404.html") == "404.html"


@pytest.mark.parametrize("url", ["../x/", "/etc/passwd", "a/../../b/", "a//b/", "a/./b", "x/<y>/", ".hidden/"])
def test_unsafe_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        check_url(url)
