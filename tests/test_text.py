"""Untrusted text: LaTeX to HTML/MathML, links, escaping, keys, slugs, derived titles."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import unicodedata
import weakref
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.read.dumps import read_dump
from site_gen.util.text import (
    _read_latex,
    _symbols_only,
    derive_title,
    fold,
    latex_pieces,
    macro_words,
    plain_text,
    render_abstract,
    render_math,
    slugify,
)

REPO = Path(__file__).resolve().parent.parent


def test_text_mode_commands() -> None:
    html = render_abstract(r"We propose \textbf{RoLA} applied \emph{outside} at 90\% -- see \texttt{x\_y}.")
    assert html == ("<p>We propose <strong>RoLA</strong> applied <em>outside</em> at 90% – see "
                    "<code>x_y</code>.</p>")


def test_nested_commands_and_unknown_commands_stay_literal() -> None:
    assert render_abstract(r"\textbf{a \emph{b} c} \unknown{d}") == (
        "<p><strong>a <em>b</em> c</strong> \\unknown{d}</p>")


def test_inline_math_becomes_mathml_with_tex_annotation() -> None:
    html = render_abstract(r"achieves 2.63$\times$ speedup")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert "<mo>×</mo>" in html
    assert '<annotation encoding="application/x-tex">\\times</annotation>' in html


def test_display_math_and_paren_math() -> None:
    assert 'display="block"' in render_abstract(r"$$E=mc^2$$")
    assert "<msup>" in render_abstract(r"\(n^2\)")


@pytest.mark.parametrize("text", ["costs $5 and $6 each", "a $ b", "price: $ 10$"])
def test_dollar_signs_that_are_not_math_stay_text(text: str) -> None:
    assert "<math" not in render_abstract(text)


def test_malformed_math_falls_back_to_escaped_source() -> None:
    assert render_abstract(r"bad $\frac{$ here") == r'<p>bad <code class="tex">$\frac{$</code> here</p>'


@pytest.mark.parametrize("hostile", [
    r"$\text{<script>alert(1)</script>}$",
    r"$\text{</mtext><script>alert(1)</script>}$",
    r"$x & y <img src=x onerror=alert(1)>$",
    r"\textbf{<script>alert(1)</script>}",
    "<script>alert(1)</script>",
    '" onmouseover="alert(1)',
    r"\url{javascript:alert(1)}",
    "https://example.org/\"><script>alert(1)</script>",
])
def test_hostile_text_never_yields_markup(hostile: str) -> None:
    html = str(render_abstract(hostile))
    assert "<script" not in html and "<img" not in html
    assert not re.search(r"<[^>]*\son\w+=", html)
    assert 'href="javascript' not in html


def test_mathml_is_rebuilt_from_an_allow_list() -> None:
    html = str(render_math(r"\mathrm{x}^{2}"))
    tags = set(re.findall(r"</?([a-z]+)", html))
    assert tags <= {"math", "semantics", "mrow", "mi", "mn", "mo", "msup", "mtext", "annotation",
                    "mstyle", "mspace"}


def test_urls_become_links_without_trailing_punctuation() -> None:
    html = render_abstract("Code: https://github.com/a/b. Docs (https://x.org/a_(b)). And https://c.org/d,")
    assert '<a href="https://github.com/a/b" rel="nofollow noopener">https://github.com/a/b</a>.' in html
    assert '<a href="https://x.org/a_(b)" rel="nofollow noopener">' in html
    assert '<a href="https://c.org/d" rel="nofollow noopener">https://c.org/d</a>,' in html


def test_paragraphs() -> None:
    assert render_abstract("One.\n\nTwo.") == "<p>One.</p><p>Two.</p>"


def test_plain_text() -> None:
    assert plain_text(r"at 90\% with 2.63$\times$ speed, \textbf{RoLA}") == "at 90% with 2.63× speed, RoLA"


def test_plain_text_of_plain_text_is_that_text() -> None:
    """Memoised, a plain text's plain text is the text itself, not a copy (a build keeps the
    plain text of every abstract); any other text's is made anew."""
    plain = "A plain abstract, as a dump's line holds it."
    assert plain_text(plain) is plain
    for text, made in (("two  spaces", "two spaces"), (" edges ", "edges"),
                       ("a\nbreak", "a break"), ("$x$ plain", "x plain")):
        assert plain_text(text) == made


@pytest.mark.parametrize("latex, text", [
    (r"$O(n \log n)$", "O(n log n)"),
    (r"$T_w=\Theta(\sqrt{d}/(1-\beta_2))$", "T_w=Θ(√d/(1-β_2))"),
    (r"an $\ell_1$ norm", "an ℓ_1 norm"),
    (r"$k \ll n$ keys", "k ≪ n keys"),
    (r"$\Delta F$", "Δ F"),
    (r"$\sqrt{n k}$, $\mathbb{R}^d$", "√(n k), ℝ^d"),
    (r"\unknownmacro{arg} stays", "unknownmacro arg stays"),
    (r"see \cite{smith2020} and \ref{sec:a}", "see smith2020 and sec:a"),
    ("50% of R&D -- no TeX here", "50% of R&D -- no TeX here"),
    (r"\emph{50% of R&D}, 1.2--1.3$\times$, top-$k$, a~b", "50% of R&D, 1.2--1.3×, top-k, a b"),
    ("costs $5 a month", "costs $5 a month"),
])
def test_plain_text_reads_latex_as_unicode(latex: str, text: str) -> None:
    assert plain_text(latex) == text


def test_reading_latex_keeps_nothing_of_its_callers_alive() -> None:
    """pylatexenc's walker leaves the exception that ends its input in a reference cycle with
    its frames, which held every frame of the call stack: a build pauses the collector, so
    the locals of merging (every parsed dump) lived until the build's end. With the collector
    off, what the caller held goes when the caller returns."""

    class Held:
        pass

    def caller(piece: str) -> tuple[weakref.ref[Held], str]:
        held = Held()
        return weakref.ref(held), plain_text(piece)

    enabled = gc.isenabled()
    gc.disable()
    try:
        unique = id(Held)  # so that each piece is parsed, not found in a memo
        for piece in (rf"$\frac{{a}}{{b_{unique}}}$", rf"\begin{{itemize}}\item {unique}",
                      rf"$x^{{{unique}", rf"{{ \unknown{{{unique}}}", rf"\href{{{unique}}}",
                      rf"\verb|{unique}|", rf"\footnote{{\begin{{array}}{unique}}}"):
            held, text = caller(piece)
            assert str(unique) in text and held() is None, piece
    finally:
        if enabled:
            gc.enable()


def test_macro_words_name_what_the_symbols_were() -> None:
    assert macro_words(r"$T_w=\Theta(\sqrt{d})$ and $\Theta(n)$, $\ell_1$") == "Theta sqrt ell"
    assert macro_words(r"\emph{fast}: $2\times$, $O(n \log n)$, $\le 3$") == ""
    assert macro_words("no macros") == ""


_MACRO = re.compile(r"\\[A-Za-z]+")


def _letters(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c))


def assert_letters_kept(source: str, text: str) -> None:
    """Every letter and digit of ``source`` but macro names is in ``text``, in order."""
    remaining = iter(_letters(text))
    missing = [c for c in _letters(_MACRO.sub(" ", source)) if c not in remaining]
    assert not missing, (source, text, missing)


def _corpus_texts(dumps: Path) -> set[str]:
    found = [read_dump(p.name, p.read_bytes())[0] for p in sorted(dumps.iterdir())]
    return {t for dump in found if dump for r in dump.records for t in (r.abstract, r.title or "")}


def test_plain_text_keeps_every_letter_of_the_demo_and_benchmark_corpora(tmp_path: Path) -> None:
    """No letter or digit of any abstract or title is lost but macro names (``\\times``)."""
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "gen_corpus.py"), "2000",
                    "--no-hugo", "--out", str(tmp_path)], check=True, capture_output=True)
    texts = _corpus_texts(REPO / "content" / "dumps") | _corpus_texts(tmp_path / "content" / "dumps")
    with_latex = [t for t in texts if "\\" in t or "$" in t]
    assert len(with_latex) > 300
    for text in texts:
        assert_letters_kept(text, plain_text(text))
    pieces = {text[start:end] for text in with_latex for start, end in latex_pieces(text)}
    for piece in pieces | {r"$n \log n$", r"$ \alpha x $", r"\ldots", r"\times", r"\%", "$k$",
                           r"$a_{ij}^{2}$", r"\emph{RoLA}", r"\textbf {x y}", r"\emph{a}{b}"}:
        assert _symbols_only(piece) in (None, _read_latex(piece)), piece
    parsed = [p for p in pieces if _symbols_only(p) is None]
    assert len(parsed) < len(pieces) // 20, parsed[:20]  # the fast path reads nearly all


def test_fold_ignores_case_accents_punctuation_and_spacing() -> None:
    assert fold("  Zoë   MÜLLER-Smith. ") == fold("zoe muller smith") == "zoe muller smith"
    assert fold("2.1×") == fold("2.1x")


@pytest.mark.parametrize("text, slug", [
    ("RoLA: Rotary-Positioned Low-Rank Linear Attention", "rola-rotary-positioned-low-rank-linear-attention"),
    ("王小明", "wang-xiao-ming"),
    ("Дмитрий Иванов", "dmitrii-ivanov"),
    ("José Núñez", "jose-nunez"),
    ("../../etc/passwd", "etc-passwd"),
    ("", ""),
])
def test_slugs_are_ascii_and_safe(text: str, slug: str) -> None:
    assert slugify(text) == slug


def test_long_slugs_are_cut_at_a_word_boundary() -> None:
    slug = slugify("word " * 40)
    assert len(slug) <= 80 and not slug.endswith("-") and set(slug.split("-")) == {"word"}


def test_derived_title_uses_the_first_words_and_marks_the_cut() -> None:
    assert derive_title("Short first sentence. Then more.") == "Short first sentence"
    long = "Recent advances in Vision-Language-Action models (VLAs) have expanded the capabilities of embodied AI."
    assert derive_title(long) == "Recent advances in Vision-Language-Action models (VLAs) have expanded the capabilities of embodied…"
    assert derive_title("") == "Untitled paper"


def _fold_reference(text: str) -> str:
    """text.fold as first written: one regex over the NFKD form, marks deleted one by one."""
    import re
    import unicodedata
    non_word = re.compile(r"[\W_]+")
    if text.isascii():
        return non_word.sub(" ", text.lower()).strip()
    lookalikes = str.maketrans({"×": "x", "ß": "ss", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L"})
    decomposed = unicodedata.normalize("NFKD", text.translate(lookalikes))
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    return non_word.sub(" ", kept.casefold()).strip()


_TEXTISH = st.lists(st.sampled_from(
    list("aAzZ09 _-.,;:!?'\"$\\{}~\t\n") + list("éÉñØøßł×İıǅﬁ²①Å\u0301\u0327\u20d7αΩЖ中")
    + ["\\alpha", "\\&", "$x$", "{\\em a}", "\u00a0"]), max_size=40).map("".join)


@settings(max_examples=2000, deadline=None)
@given(_TEXTISH)
def test_fold_equals_its_plain_definition_and_plain_text_keeps_every_letter(text: str) -> None:
    assert fold(text) == _fold_reference(text)
    assert_letters_kept(text, plain_text(text))


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="\\${}~()[]^_ aZ1.\n", max_size=40))
def test_latex_islands_are_the_regexs_own_matches(text: str) -> None:
    """``_islands`` tries the island regex only where one can start; it must find exactly
    what ``finditer`` finds, look-behinds included."""
    from site_gen.util.text import _LATEX_ISLAND, _islands
    assert [(m.span(), m.groupdict()) for m in _islands(text)] == [
        (m.span(), m.groupdict()) for m in _LATEX_ISLAND.finditer(text)]


def test_fold_treats_every_ascii_character_as_the_regex_did() -> None:
    from site_gen.util.text import fold
    for code in range(128):
        text = f"Ab{chr(code)}9z {chr(code)}"
        assert fold(text) == _fold_reference(text), repr(chr(code))


@settings(max_examples=3000, deadline=None)
@given(st.text(max_size=60))
def test_fold_equals_its_plain_definition_on_any_text(text: str) -> None:
    """Any code point (combining marks, digits of other scripts, symbols whose case folding
    or compatibility form is several characters), not only the alphabet above."""
    from site_gen.util.text import fold
    assert fold(text) == _fold_reference(text)


def test_fold_treats_every_code_point_as_the_regex_did() -> None:
    from site_gen.util.text import fold
    for code in range(0x80, 0x110000, 7):
        if 0xD800 <= code <= 0xDFFF:
            continue
        text = f"Éb{chr(code)}9z {chr(code)}\u0301x"
        assert fold(text) == _fold_reference(text), hex(code)


_LATEXISH = st.lists(st.sampled_from(
    list("ab $\\(){}~-\n%&<>\"'h") + ["http://x.org/a", "https://", "--", "---", "$$", "\\(",
                                       "\\)", "\\emph{", "\\url{", "\\,", "\\\\", "\\%", "ξ"]),
    max_size=30).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_LATEXISH)
def test_text_without_marks_renders_as_the_regexes_would(text: str) -> None:
    """render_inline skips its regexes for text holding none of their first characters; with
    the skip turned off (every text "holds" the empty mark) the HTML is the same."""
    from site_gen.util import text as module
    fast = module.render_inline(text), module.render_inline(text, links=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "_MATH_MARKS", ("",))
        patch.setattr(module, "_TOKEN_MARKS", ("",))
        slow = module.render_inline(text), module.render_inline(text, links=False)
    assert fast == slow
