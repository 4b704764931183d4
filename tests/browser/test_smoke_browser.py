"""Self-contained smoke test of the browser-testing toolchain: Chromium via
Playwright, the prefix-mounted static server, axe-core and the Nu checker."""

from __future__ import annotations

import textwrap
from urllib.parse import urlsplit

import pytest


def describe(violations: list[dict]) -> str:
    return "\n".join(f"{v['id']} ({v['impact']}): {v['help']}" for v in violations)


PAGE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
<header><nav aria-label="Site"><a href="{other_href}">{other_title}</a></nav></header>
<main>
<h1>{title}</h1>
<p id="status">JavaScript has not run.</p>
<p>The quadratic formula:</p>
<math display="block">
  <mrow>
    <mi>x</mi><mo>=</mo>
    <mfrac>
      <mrow><mo>&#x2212;</mo><mi>b</mi><mo>&#x00B1;</mo>
        <msqrt><mrow><msup><mi>b</mi><mn>2</mn></msup><mo>&#x2212;</mo>
          <mn>4</mn><mi>a</mi><mi>c</mi></mrow></msqrt>
      </mrow>
      <mrow><mn>2</mn><mi>a</mi></mrow>
    </mfrac>
  </mrow>
</math>
</main>
<script src="app.js"></script>
</body>
</html>
"""


@pytest.fixture
def tiny_site(tmp_path):
    site = tmp_path / "site"
    (site / "about").mkdir(parents=True)
    (site / "index.html").write_text(
        PAGE.format(title="Home", other_href="about/", other_title="About"), encoding="utf-8"
    )
    (site / "about" / "index.html").write_text(
        PAGE.format(title="About", other_href="../", other_title="Home")
        .replace('href="style.css"', 'href="../style.css"')
        .replace('src="app.js"', 'src="../app.js"'),
        encoding="utf-8",
    )
    (site / "style.css").write_text(
        "body { font-family: sans-serif; max-width: 40em; margin: auto; }\n"
    )
    (site / "app.js").write_text(
        textwrap.dedent(
            """\
            document.getElementById("status").textContent =
              "JavaScript ran on " + document.title + ".";
            """
        )
    )
    return site


def test_site_in_chromium(tiny_site, serve_directory, page, axe_violations, validate_html):
    with serve_directory(tiny_site, "/demo-repo/") as base_url:
        assert base_url.endswith("/demo-repo/")
        response = page.goto(base_url)
        assert response is not None and response.status == 200
        assert page.title() == "Home"
        assert page.locator("#status").text_content() == "JavaScript ran on Home."
        assert page.locator("math").count() == 1
        # MathML is laid out by Chromium (MathML Core), not shown as raw text.
        assert page.locator("math mfrac").bounding_box()["height"] > 20
        violations = axe_violations(page)
        assert violations == [], describe(violations)

        page.get_by_role("link", name="About").click()
        page.wait_for_url(base_url + "about/")
        assert page.title() == "About"
        assert page.locator("#status").text_content() == "JavaScript ran on About."
        violations = axe_violations(page)
        assert violations == [], describe(violations)

        page.get_by_role("link", name="Home").click()
        page.wait_for_url(base_url)
        assert page.title() == "Home"

        # The server only serves under the prefix.
        outside = page.request.get(base_url.replace("/demo-repo/", "/index.html"))
        assert outside.status == 404

    assert page.console_errors == []
    assert page.failed_requests == []
    hosts = {urlsplit(url).hostname for url in page.requests}
    assert hosts == {"127.0.0.1"}, page.requests
    errors = validate_html([tiny_site], base=tiny_site)
    assert errors == [], "\n".join(errors)


def test_problems_are_reported(tmp_path, serve_directory, page, axe_violations, validate_html):
    """The fixtures really catch errors (guards against vacuous passes)."""
    site = tmp_path / "bad"
    site.mkdir()
    (site / "index.html").write_text(
        "<!DOCTYPE html><html><head><title>Bad</title>"
        '<link rel="stylesheet" href="missing.css">'
        '<link rel="stylesheet" href="https://cdn.example.com/x.css">'
        "</head><body><p><div>block in p</div></p><img src=missing.png>"
        "<script>console.error('boom'); undefinedFunction();</script></body></html>",
        encoding="utf-8",
    )
    with serve_directory(site, "/demo-repo/") as base_url:
        page.goto(base_url)
        violations = {v["id"] for v in axe_violations(page)}
    assert {"image-alt", "html-has-lang"} <= violations
    assert any("boom" in e for e in page.console_errors)
    assert any("undefinedFunction" in e for e in page.console_errors)
    failed = "\n".join(page.failed_requests)
    assert "missing.css: HTTP 404" in failed
    assert "missing.png: HTTP 404" in failed
    assert "https://cdn.example.com/x.css" in failed  # blocked, never left the machine
    errors = validate_html([site / "index.html"], base=site)
    assert any(e.startswith("index.html:") and "alt" in e for e in errors), errors
