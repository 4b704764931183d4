"""Abstracts are untrusted text holding arXiv's LaTeX: every construct renders or is shown as
written, escaped, and none stops a build (an ``\\href`` once crashed every build).

The table holds the constructs arXiv abstracts use and what each becomes; the fuzz joins
real abstracts' fragments with stray braces, dollars, backslashes and Unicode, and holds the
renderers to well-formed, escaped HTML that keeps every letter of the source."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import listing_dump
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.cli import main
from site_gen.util.text import _MATHML_ELEMENTS, plain_text, render_abstract, render_title

LINK = 'rel="nofollow noopener"'
TAGS = {"p", "a", "strong", "em", "code", "span", "u", "sup", "sub"} | _MATHML_ELEMENTS
ATTRIBUTES = {"a": {"href", "rel"}, "span": {"class"}, "code": {"class"},
              "math": {"xmlns", "display"}}
"""Attributes each HTML tag may carry; MathML elements carry the renderer's allow-list."""
TAG = re.compile(r"<(/?)([a-z]+)((?:\s[a-z:-]+=\"[^\"<>]*\")*)>")
ENTITY = re.compile(r"&(?!amp;|lt;|gt;|#34;|#39;)")


class _Visible(HTMLParser):
    """The text a reader sees, with each link's URL where its tag stands."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(tag)
        self.parts.extend(value or "" for name, value in attrs if name == "href")

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack.pop() == tag, f"</{tag}> closes nothing open"

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def assert_well_formed(html: str) -> str:
    """``html`` is tags of the allow-list with quoted attributes, nested properly, and text
    escaped; returns what a reader sees of it."""
    for closing, tag, attributes in TAG.findall(html):
        assert tag in TAGS, tag
        names = re.findall(r"\s([a-z:-]+)=\"[^\"]*\"", attributes)
        assert not closing or not names, html
        if tag in ATTRIBUTES:
            assert set(names) <= ATTRIBUTES[tag], (tag, names)
        if tag == "a" and not closing:
            assert re.fullmatch(rf' href="(?i:https?)://[^"\s]+" {LINK}', attributes), attributes
        if tag in ("span", "code") and names:
            assert attributes in (' class="smallcaps"', ' class="tex"'), attributes
    text = TAG.sub("", html)
    assert "<" not in text and ">" not in text, html  # every < and > of the source escaped
    assert not ENTITY.search(text), html  # and every &
    assert "<script" not in html.lower()
    visible = _Visible()
    visible.feed(html)
    visible.close()
    assert not visible.stack, f"left open: {visible.stack}"
    return "".join(visible.parts)


_MACRO = re.compile(r"\\[A-Za-z]+")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}")


def _letters(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c))


def assert_letters_kept(source: str, shown: str) -> None:
    """Every letter and digit of ``source`` is in ``shown`` (as often), but macro names and an
    environment's name (``\\begin{itemize}``): markup, not text. Not in order: a link that
    cannot be one shows its text, then its URL (``\\href{url}{text}``)."""
    wanted = Counter(_letters(_MACRO.sub(" ", _ENVIRONMENT.sub(" ", source))))
    missing = wanted - Counter(_letters(shown))
    assert not missing, (source, shown, missing)


def _html(source: str) -> str:
    html = str(render_abstract(source))
    assert_letters_kept(source, assert_well_formed(html))
    return html


def _link(url: str, label: str) -> str:
    return f'<a href="{url}" {LINK}>{label}</a>'


# ---- The constructs, one by one ------------------------------------------------------------

@pytest.mark.parametrize("source, html", [
    # links: http(s) only, escaped, rel as for bare URLs; anything else stays text, URL shown
    (r"Code at \href{https://github.com/x/y}{GitHub}.",
     f"Code at {_link('https://github.com/x/y', 'GitHub')}."),
    (r"\href{https://x.org/a\_b\%20c}{\emph{the docs}}",
     _link("https://x.org/a_b%20c", "<em>the docs</em>")),
    (r"\href{https://x.org/a}{}", _link("https://x.org/a", "https://x.org/a")),
    (r"\href{javascript:alert(1)}{click}", "click (javascript:alert(1))"),
    (r"\href{mailto:a@b.org}{mail us}", "mail us (mailto:a@b.org)"),
    (r'\href{https://x.org/"><script>alert(1)</script>}{x}',
     _link("https://x.org/&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;", "x")),
    (r"\href{https://x.org}", rf"\href{{{_link('https://x.org', 'https://x.org')}}}"),  # no text
    (r"see \url{https://example.org/a_(b)}.",
     f"see {_link('https://example.org/a_(b)', 'https://example.org/a_(b)')}."),
    (r"\url{https://example.org/x.}", _link("https://example.org/x.", "https://example.org/x.")),
    (r"\url{ftp://x.org/f}", "ftp://x.org/f"),
    (r"\url{javascript:alert(1)}", "javascript:alert(1)"),
    # notes, citations, references: their text stays
    (r"Fast\footnote{See \url{https://x.org}.} and small",
     f"Fast (See {_link('https://x.org', 'https://x.org')}.) and small"),
    (r"as in \cite{smith2020}", "as in [smith2020]"),
    (r"\citep[p.~3]{a,b}", "[a,b, p.\u00a03]"),
    (r"\citep[see][Ch.~2]{key}", "[see key, Ch.\u00a02]"),
    (r"Section~\ref{sec:intro} and \eqref{eq:1}", "Section\u00a0sec:intro and (eq:1)"),
    # text styles, nested, as declarations
    (r"\textsc{Bert} \texttt{torch\_geometric} \mathrm{d} \textsuperscript{th}",
     '<span class="smallcaps">Bert</span> <code>torch_geometric</code> d <sup>th</sup>'),
    (r"\textbf{\emph{x}}", "<strong><em>x</em></strong>"),
    (r"{\em stress} and {\bf bold} and {\it it}",
     "<em>stress</em> and <strong>bold</strong> and <em>it</em>"),
    (r"\textbf{a \em b} c", "<strong>a <em>b</em></strong> c"),
    (r"\mathbb{R} and \mathcal{O}", "ℝ and 𝒪"),
    # lists and environments: markers go, items stay
    (r"Two:\begin{itemize}\item fast, \item small.\end{itemize}", "Two: • fast, • small."),
    (r"\begin{enumerate}\item one \item two\end{enumerate}", " 1. one 2. two"),
    (r"\begin{itemize}\item[(i)] first\end{itemize}", " (i) first"),
    (r"\begin{center}x\end{center}", "x"),
    (r"\begin{foo}x\end{foo}", r"\begin{foo}x\end{foo}"),
    # characters
    (r"a~b, 90\% \& 5\$, \#1, x\_y, \{set\}", "a\u00a0b, 90% &amp; 5$, #1, x_y, {set}"),
    (r"1--2, a---b, a\,b", "1–2, a—b, a\u202fb"),
    (r"Andr\'e, G\"odel, \^o, \`e, Espa\~na, \c{c}, \v{S}, \'{\i}, \"{o}",
     "André, Gödel, ô, è, España, ç, Š, í, ö"),
    (r"\~{}user, \^{}, \'{}", r"~user, ^, \&#39;{}"),
    (r"\ldots, \ss, \o, \alpha", "…, ß, ø, α"),
    (r"\LaTeX{} and \today", r"\LaTeX{} and \today"),  # unknown here (and no clock): as written
    (r"\unknown{d} \frac{1}{2}", r"\unknown{d} \frac{1}{2}"),  # text mode: as written
    # what does not close stays as written
    (r"\textbf{open and", r"\textbf{open and"),
    (r"a } b { c", "a } b { c"),
    ("$x costs", "$x costs"),
    ("$$x", "$$x"),
    (r"\(x", r"\(x"),
    (r"{\em open", r"{\em open"),
])
def test_construct_renders_or_stays_as_written(source: str, html: str) -> None:
    assert _html(source) == f"<p>{html}</p>"


@pytest.mark.parametrize("source, parts", [
    (r"$\frac{1}{2}$", ["<mfrac>", r"\frac{1}{2}</annotation>"]),
    (r"$\sqrt[3]{x}$", ["<mroot>"]),
    (r"$\left( x \right)$", ['stretchy="true"']),
    (r"$\mathbb{R}^{d}$ and $\mathrm{d}x$", ["<msup><mi>ℝ</mi>", "<mi>d</mi>"]),
    (r"$$E=mc^2$$", ['display="block"', "<msup>"]),
    (r"\(a+b\)", ['display="inline"', "<mo>+</mo>"]),
    (r"\[x^2\]", ['display="block"', "<msup>"]),
    (r"\begin{equation}E=mc^2\end{equation}", ['display="block"', "<msup>"]),
    (r"\emph{$k$-NN} search", ["<em><math", "</math>-NN</em> search"]),
    (r"\textbf{$x$ and $y$}", ["<strong><math", "</math> and <math", "</math></strong>"]),
    (r"\href{https://x.org}{$\pi$-net}", ['<a href="https://x.org"', "</math>-net</a>"]),
    (r"bad \(\frac{\) here", [r'<code class="tex">\(\frac{\)</code> here']),
    (r"bad $\frac{$ here", [r'<code class="tex">$\frac{$</code> here']),
    (r"\textbf{a $x} y$ b", [r"<p>\textbf{a <math", "</math> b</p>"]),  # closes in math
    ("$" + "+".join(f"x_{{{i}}}^{{2}}" for i in range(3000)) + "$", ["<math", "<msubsup>"]),
])
def test_math_is_typeset_or_shown_as_written(source: str, parts: list[str]) -> None:
    html = _html(source)
    for part in parts:
        assert part in html, (part, html)


@pytest.mark.parametrize("source", [
    "$" + "{" * 600 + "x" + "}" * 600 + "$",
    "$" + r"\frac{1}{" * 200 + "x" + "}" * 200 + "$",
    "$" + r"\sqrt{" * 300 + "x" + "}" * 300 + "$",
    "$" + r"\left(" * 300 + "x" + r"\right)" * 300 + "$",
    "$" + r"\sqrt" * 400 + " x$",
    r"\textbf{" * 1000 + "x" + "}" * 1000,
    r"\emph{" * 1000 + "x",
    "{" * 3000 + "x" + "}" * 3000,
    r"\href{https://x.org}{" * 500 + "x" + "}" * 1000,
    r"\textbf{a \\}" + r" \textbf{" * 3000,
])
def test_deep_nesting_is_shown_not_raised(source: str) -> None:
    """Nesting past what is rendered shows the rest as written, whatever the depth of the
    call stack: no RecursionError from pylatexenc, latex2mathml or the renderer."""
    _html(source)
    assert_letters_kept(source, plain_text(source))
    assert "<a " not in str(render_title(source))


@pytest.mark.parametrize("source, text", [
    (r"Code at \href{https://github.com/x/y}{GitHub}.", "Code at GitHub <https://github.com/x/y>."),
    (r"\href{https://x.org/~a\_b}{docs}", "docs <https://x.org/~a_b>"),
    (r"\href{https://x.org}", "href https://x.org"),  # raised IndexError
    (r"\footnote", "footnote"),  # raised KeyError
    (r"\verb|x|", r"\verb|x|"),  # raised IndexError in the parser: as written
    (r"\begin{array}x\end{array}", "x"),  # raised ValueError
    (r"\textcolor{red}", "textcolor red"),
    (r"\texttt{torch\_geometric} and \mbox{a\_b}", "torch_geometric and a_b"),  # were dropped
    (r"$x \mbox{ if } y$", "x if y"),
    (r"Andr\'e G\"odel", "André Gödel"),  # the accent went on the letter before
    (r"\today", "today"),  # was the date of the build
    (r"$\sqrt[3]{x}$ and $\frac$", "³√x and frac"),  # were √x (the index lost) and %s/%s
    (r"\footnote{\citep[p.~3]{a}}", "[a, p. 3]"),  # the options were lost
    (r"\textbf{" * 40 + "x" + "}" * 40, r"\textbf{" * 40 + "x" + "}" * 40),
])
def test_plain_text_reads_or_keeps_what_it_cannot(source: str, text: str) -> None:
    assert plain_text(source) == text


# ---- Fuzz ----------------------------------------------------------------------------------

FRAGMENTS = [
    r"$O(n \log n)$", r"\textbf{RoLA}", r"\emph{outside}", r"90\%", r"2.63$\times$",
    r"\href{https://github.com/x/y}{GitHub}", r"\url{https://example.org/a_b}", r"\footnote{",
    r"\cite{smith2020}", r"\citep[p.~3]{a,b}", r"\ref{sec:intro}", r"\eqref{eq:1}",
    r"\textsc{Bert}", r"\texttt{torch\_geometric}", r"$\mathrm{d}x$", r"$\mathbb{R}^{d}$",
    r"\mathbb{R}", r"$\frac{1}{2}$", r"\frac{a}{b}", r"$\sqrt[3]{x}$", r"$\left( x \right)$",
    r"\begin{itemize}", r"\item", r"\item[(a)]", r"\end{itemize}", r"\begin{enumerate}",
    r"\end{enumerate}", r"\begin{equation}", r"\end{equation}", r"\\", "~", r"\&", r"\'e",
    r'\"o', r"\'{\i}", r"\c{c}", r"{\em x}", r"{\bf ", r"\em ", r"\textbf{\emph{x}}", r"$$E=mc^2$$",
    r"\(a+b\)", r"\[x^2\]", "--", "---", r"\,", r"$\ell_1$", r"\alpha", r"$k$-NN", r"\mbox{ if }",
    r"\ldots", r"e.g.\ ", r"\LaTeX{}", r"\^{}", r"\~{}", r"\today", r"\verb|x|", r"\unknown{d}",
    r"\textbf{", r"\href{", r"\url{", "}{", "https://x.org/a)", "http://x.org/<b>", "javascript:",
    "<script>alert(1)</script>", '" onmouseover="x', "&amp;", r"$\text{</mtext><script>}$",
]
CHARACTERS = [*"{}$\\[]^_%&#<>\"' \n-~()", "\n\n", "é", "中", "\u0301", "α", "𝒪", "\u00a0"]
_SOURCES = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(CHARACTERS),
                              st.text(max_size=3)), max_size=24).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_SOURCES)
def test_any_abstract_renders_to_well_formed_escaped_html(source: str) -> None:
    _html(source)
    title = str(render_title(source))
    assert "<a " not in title
    assert_letters_kept(source, assert_well_formed(title))
    assert_letters_kept(source, plain_text(source))


# ---- A build -------------------------------------------------------------------------------

KITCHEN_SINK = r"We propose \textbf{RoLA}\footnote{Code: \url{https://example.org/rola}.} (see~\cite{a}), with \href{https://example.org/x}{\emph{docs}}, $\frac{1}{2}$, $\sqrt[3]{x}$, $\left( x \right)$, \[x^2\], \(y\), $$z$$, {\em x}, \textsc{Sc}, \texttt{a\_b}, $\mathbb{R}^d$, \'e, \"o, 90\% \& more, a \\ b, \begin{itemize}\item one\end{itemize}, and $ unbalanced { braces."


def test_an_abstract_with_href_builds_and_links(
        make_project: Callable[[Mapping[str, str | bytes]], Path]) -> None:
    """The issue's case: one ``\\href`` made every build die with pylatexenc's IndexError."""
    href = r"The code is at \href{https://github.com/x/y}{GitHub}, with more to come."
    project = make_project({"content/dumps/a.txt": listing_dump("Ann Lee", [
        (2024, "Linked Code", href, ["cs.LG"]),
        (2023, "Every Construct at Once", KITCHEN_SINK, ["cs.LG"])])})
    assert main(["build", "-q", "--project", str(project)]) == 0
    pages = {path.parent.name: path.read_text(encoding="utf-8")
             for path in (project / "_site" / "papers").glob("*/index.html")}
    linked, every = pages["linked-code"], pages["every-construct-at-once"]
    assert f'{_link("https://github.com/x/y", "GitHub")}, with more to come.' in linked
    assert _link("https://example.org/x", "<em>docs</em>") in every
    assert "and $ unbalanced { braces." in every
    exported = json.loads((project / "_site" / "papers.json").read_text(encoding="utf-8"))
    texts = {paper["title"]: paper["abstract_text"] for paper in exported["papers"]}
    assert "GitHub <https://github.com/x/y>" in texts["Linked Code"]
