"""Untrusted text: matching keys, slugs, derived titles, and abstract LaTeX -> safe HTML.

Every function here takes raw dump text and returns either plain text or ``Markup`` whose every
byte was produced by this module: input characters only ever reach the output escaped.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape
from pylatexenc import latex2text
from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexwalker import LatexMacroNode, LatexWalker, LatexWalkerEndOfStream
from slugify import slugify as _slugify

MEMO = 1 << 20
"""Entries kept by the memos of pure functions of dump text (here, plan/urls.py, outputs/citations.py).

A rebuild in watch mode meets the same titles, abstracts and names again, and a build meets
each title on many pages and in every generator. Those meet the papers in one order, over and
over, and an LRU memo smaller than what it is asked for then never hits: with 65,536 entries,
a 100,000-paper site (200,000 titles and abstracts) made every one of them again in every
generator and every rebuild. So the memos hold more than any site we expect has titles and
abstracts; what a memo keeps is what the site is made of anyway."""
_LOOKALIKES = {"×": "x", "ß": "ss", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L"}
"""Letters NFKD does not decompose, as their look-alike letters (× too: 2×2 is 2x2)."""


_UTF8_FOLD = bytes([c if chr(c).isalnum() else 32 for c in (ord(chr(i).lower()) for i in range(128))]
                   + list(range(128, 256)))
"""bytes.translate table for UTF-8: ASCII letters to lower case, digits kept, any other ASCII
character a space, the bytes of other characters kept."""

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@lru_cache(maxsize=MEMO)
def fold(text: str) -> str:
    """A matching key: no accents, no case, no punctuation, single spaces.

    That is: NFKD, combining marks deleted, case folded, then every run of ``[\\W_]`` one
    space, stripped (tests/test_text.py holds that definition and checks this against it).
    Abstracts are mostly ASCII with a few other characters, so those few are handled one by
    one, and the ASCII ones all at once in UTF-8; a regex or ``str.translate`` over the whole
    text costs more per character than all the rest.
    """
    if not text.isascii():
        text = _fold_non_ascii(text)
    return b" ".join(text.encode("utf-8").translate(_UTF8_FOLD).split()).decode("utf-8")


def _fold_non_ascii(text: str) -> str:
    """``text`` case folded, with its non-ASCII characters decomposed (NFKD), combining marks
    deleted and other non-ASCII characters that are not letters or digits made spaces."""
    for char, alike in _LOOKALIKES.items():  # str.replace: str.translate looks up every
        if char in text:  # character in a dict (a third of folding a non-ASCII abstract)
            text = text.replace(char, alike)
    text = unicodedata.normalize("NFKD", text)
    for mark in {c for c in _NON_ASCII.findall(text) if unicodedata.combining(c)}:
        text = text.replace(mark, "")
    text = text.casefold()
    for other in {c for c in _NON_ASCII.findall(text) if not c.isalnum()}:
        text = text.replace(other, " ")
    return text


@lru_cache(maxsize=MEMO)
def slugify(text: str, max_length: int = 80) -> str:
    """ASCII URL slug (transliterating any script); may be empty, callers supply a fallback."""
    return _slugify(text, max_length=max_length, word_boundary=True, save_order=True)


def derive_title(abstract: str, max_words: int = 12) -> str:
    """A stand-in title for an untitled record: the abstract's first words, with an ellipsis."""
    first = re.split(r"(?<=[.!?])\s", plain_text(abstract).strip(), maxsplit=1)[0]
    words = first.rstrip(".!?").split()
    if not words:
        return "Untitled paper"
    return " ".join(words[:max_words]) + ("…" if len(words) > max_words else "")


def esc(value: object) -> str:
    """``str(markupsafe.escape(value))``, without a ``Markup`` object per plain string.

    The same five replacements markupsafe makes; ``Markup`` and other values go through
    markupsafe itself (already safe markup stays as it is, as with autoescape).
    """
    if type(value) is not str:
        return str(escape(value))
    return (value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
            .replace("'", "&#39;").replace('"', "&#34;"))


# ---- LaTeX in abstracts -----------------------------------------------------------------

_MATH = re.compile(
    r"\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$])\$(?P<inline>(?=\S)(?:\\.|[^$\\])+?(?<=\S))\$(?!\d)"
    r"|\\\((?P<paren>.+?)\\\)",
    re.DOTALL,
)
_TEXT_TOKEN = re.compile(
    r"(?P<url>https?://[^\s<>\"'{}\\]+)"
    r"|\\(?P<cmd>textbf|emph|textit|texttt|textsc|underline|text|mathrm|url)\s*\{"
    r"|\\(?P<escaped>[%&_#${}])"
    r"|\\(?P<space>[,;:! ])"
    r"|(?P<newline>\\\\)"
    r"|(?P<tilde>~)"
    r"|(?P<dash>-{2,3})"
    r"|\n\n(?P<para>)",
)
_MATH_MARKS = ("$", "\\(")
"""Text holding neither holds no ``_MATH``. Most abstracts have no math and no markup, and
the two regexes, which cannot skip ahead to a known first character, scan each character."""
_TOKEN_MARKS = ("\\", "http", "~", "--", "\n\n")
"""Text holding none of these holds no ``_TEXT_TOKEN``: every token begins with one."""
_WRAPPERS = {
    "textbf": ("<strong>", "</strong>"),
    "emph": ("<em>", "</em>"),
    "textit": ("<em>", "</em>"),
    "texttt": ("<code>", "</code>"),
    "textsc": ('<span class="smallcaps">', "</span>"),
    "underline": ("<u>", "</u>"),
    "text": ("", ""),
    "mathrm": ("", ""),
}
_URL_TRAILING = ".,;:!?'\")]}"


@lru_cache(maxsize=MEMO)
def render_abstract(text: str) -> Markup:
    """Abstract -> HTML paragraphs: math as MathML, text-mode LaTeX as tags, URLs as links."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    return Markup("".join(f"<p>{render_inline(p)}</p>" for p in paragraphs))


def render_inline(text: str, links: bool = True) -> Markup:
    """One run of abstract text -> inline HTML; ``links=False`` for text inside a link."""
    if not any(mark in text for mark in _MATH_MARKS):  # no math: no regex scan for it
        return Markup(_render_text(text, links))
    out: list[str] = []
    pos = 0
    for match in _MATH.finditer(text):
        out.append(_render_text(text[pos : match.start()], links))
        display = match.group("display") is not None
        source = match.group("display") or match.group("inline") or match.group("paren")
        out.append(render_math(source, display))
        pos = match.end()
    out.append(_render_text(text[pos:], links))
    return Markup("".join(out))


@lru_cache(maxsize=MEMO)
def render_title(text: str) -> Markup:
    """A title as inline HTML (math, dashes, emphasis), never containing links."""
    return render_inline(text, links=False)


def _render_text(text: str, links: bool = True) -> str:
    if not any(mark in text for mark in _TOKEN_MARKS):  # most text: no regex scan at all
        return esc(text)
    out: list[str] = []
    pos = 0
    while (match := _TEXT_TOKEN.search(text, pos)) is not None:
        out.append(esc(text[pos : match.start()]))
        pos = match.end()
        kind = match.lastgroup
        if kind == "url":
            url, trailing = _trim_url(match.group("url"))
            out.append((_link(url, url) if links else esc(url)) + esc(trailing))
        elif kind == "cmd":
            inner, pos = _braced(text, pos)
            out.append(_command(match.group("cmd"), inner, links))
        elif kind == "escaped":
            out.append(esc(match.group("escaped")))
        elif kind == "space":
            out.append("\u202f" if match.group("space") in ",:;" else " ")
        elif kind in ("newline", "para"):
            out.append(" ")
        elif kind == "tilde":
            out.append("\u00a0")
        else:
            out.append("—" if len(match.group("dash")) == 3 else "–")
    out.append(esc(text[pos:]))
    return "".join(out)


def _braced(text: str, start: int) -> tuple[str, int]:
    """The text up to the brace matching one just before ``start``, and the index after it."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "\\":
            continue
        if text[i] == "{" and text[i - 1] != "\\":
            depth += 1
        elif text[i] == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[start:i], i + 1
    return text[start:], len(text)


def _command(name: str, inner: str, links: bool) -> str:
    if name == "url":
        url, _ = _trim_url(inner.strip())
        linkable = links and url.startswith(("http://", "https://"))
        return _link(url, url) if linkable else esc(inner)
    opening, closing = _WRAPPERS[name]
    return opening + _render_text(inner, links) + closing


def _trim_url(url: str) -> tuple[str, str]:
    """Split trailing sentence punctuation off a URL, keeping balanced closing brackets."""
    end = len(url)
    while end and url[end - 1] in _URL_TRAILING:
        if url[end - 1] == ")" and url.count("(", 0, end) >= url.count(")", 0, end):
            break
        end -= 1
    return url[:end], url[end:]


def _link(url: str, label: str) -> str:
    return f'<a href="{escape(url)}" rel="nofollow noopener">{escape(label)}</a>'


# ---- Math ---------------------------------------------------------------------------------

# Word lists: they read better than thirty quoted names each (hence SIM905 off).
_MATHML_ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mover munder "  # noqa: SIM905
    "munderover mtable mtr mtd mstyle mpadded mphantom menclose merror semantics annotation".split()
)
_MATHML_ATTRIBUTES = frozenset(
    "display mathvariant stretchy fence separator lspace rspace linethickness accent "  # noqa: SIM905
    "accentunder columnalign rowalign rowspacing columnspacing width height depth minsize "
    "maxsize movablelimits scriptlevel displaystyle notation form largeop symmetric "
    "columnlines rowlines frame align encoding".split()
)
_MATHML_NS = "{http://www.w3.org/1998/Math/MathML}"


@lru_cache(maxsize=8192)
def render_math(source: str, display: bool = False) -> Markup:
    """TeX -> sanitised MathML (with the TeX as annotation); unparseable TeX is shown as code.

    latex2mathml is imported here, at the first formula: importing it (and the package
    metadata it reads) took 39 ms of every start of site-gen, a third of the imports, in
    processes that meet no math (``--version``, ``check``, a build again of pages without)."""
    from latex2mathml.converter import convert as latex_to_mathml

    try:
        mathml = latex_to_mathml(source, display="block" if display else "inline")
        tree = ET.fromstring(mathml)
    except Exception:  # noqa: BLE001 - latex2mathml raises many types on malformed TeX
        delimiter = "$$" if display else "$"
        return Markup('<code class="tex">{}</code>').format(f"{delimiter}{source}{delimiter}")
    body = "".join(_serialise(child) for child in tree)
    annotation = f'<annotation encoding="application/x-tex">{escape(source)}</annotation>'
    mode = "block" if display else "inline"
    return Markup(
        f'<math xmlns="http://www.w3.org/1998/Math/MathML" display="{mode}">'
        f"<semantics><mrow>{body}</mrow>{annotation}</semantics></math>"
    )


def _serialise(element: ET.Element) -> str:
    """Rebuild MathML from an allow-list of elements and attributes, escaping all text."""
    tag = element.tag.removeprefix(_MATHML_NS)
    children = "".join(_serialise(child) for child in element)
    content = esc(element.text or "") + children
    tail = esc(element.tail or "")
    if tag not in _MATHML_ELEMENTS or tag == "math":
        return content + tail
    attributes = "".join(
        f' {name}="{escape(value)}"'
        for name, value in sorted(element.attrib.items())
        if name in _MATHML_ATTRIBUTES
    )
    return f"<{tag}{attributes}>{content}</{tag}>{tail}"


# ---- Plain text ---------------------------------------------------------------------------

_LATEX_MARKS = ("\\", "$", "{", "}", "~")
"""Text holding none of these holds no LaTeX for plain_text to read (most titles, many
abstracts)."""
_LATEX_ISLAND = re.compile(_MATH.pattern + r"|\\(?P<macro>[A-Za-z]+\*?)|\\.|[{}~]", re.DOTALL)
_ARGUMENT = re.compile(r"\s*\{")
_BARE = re.compile(r"(?<!\\)([%&])")
"""``%`` and ``&`` written as text ("50%", "R&D"): TeX would read a comment and a column break."""
_MACRO_NAME = re.compile(r"\\([A-Za-z]+)")


@lru_cache(maxsize=MEMO)
def plain_text(text: str) -> str:
    """Text without markup, LaTeX read as Unicode (``$O(n \\log n)$`` -> ``O(n log n)``): for
    search, descriptions, feeds, exports and ``<title>``. Unknown macros keep their name.

    Only the LaTeX in it (math, a macro with its braced arguments, a brace, a tilde) goes
    through pylatexenc, one piece at a time: reading a whole abstract costs it milliseconds,
    and the text between those pieces is text already."""
    if any(mark in text for mark in _LATEX_MARKS):
        out: list[str] = []
        pos = 0
        for start, end in latex_pieces(text):
            out += (text[pos:start], _latex_piece(text[start:end]))
            pos = end
        text = "".join(out) + text[pos:]
    plain = " ".join(text.split())
    return text if plain == text else plain  # the text itself when it is plain already: the
    # memo then holds no copy of it (of every abstract at the peak of a build: 18 MB at
    # 10,000 papers)


def latex_pieces(text: str) -> Iterator[tuple[int, int]]:
    """Where the LaTeX in ``text`` is: math, a macro with its braced arguments, an escaped
    character, a brace or a tilde; (start, end) in order."""
    pos = 0
    for island in _islands(text):
        if island.start() < pos:  # inside the arguments of the macro before
            continue
        pos = island.end()
        if island.group("macro"):
            while (argument := _ARGUMENT.match(text, pos)) is not None:
                pos = _braced(text, argument.end())[1]
        yield island.start(), pos


_ISLAND_START = re.compile(r"[\\${}~]")
"""Where a ``_LATEX_ISLAND`` can start: each of its alternatives starts with one of these."""


def _islands(text: str) -> Iterator[re.Match[str]]:
    """``_LATEX_ISLAND.finditer(text)``, tried only where an island can start: the regex
    itself, with its alternatives and look-behind, is tried at every character, which made
    finding the LaTeX half the cost of reading an abstract."""
    at = 0
    while (start := _ISLAND_START.search(text, at)) is not None:
        island = _LATEX_ISLAND.match(text, start.start())
        if island is None:
            at = start.start() + 1
            continue
        at = island.end()
        yield island


@lru_cache(maxsize=MEMO)
def _latex_piece(latex: str) -> str:
    """One piece of LaTeX as text (pieces such as ``$\\times$`` recur in many abstracts)."""
    simple = _symbols_only(latex)
    return simple if simple is not None else _read_latex(latex)


def _read_latex(latex: str) -> str:
    """``latex_to_text``, leaving no reference cycle behind (``_Walker``)."""
    walker = _Walker(_BARE.sub(r"\\\1", latex))
    try:
        return _latex_reader().nodelist_to_text(walker.get_latex_nodes()[0])
    finally:
        walker.let_go()


class _Walker(LatexWalker):
    """pylatexenc's walker, which lets go of the end-of-input exceptions it raised.

    In tolerant parsing, the walker keeps the exception that ends the input in a local of the
    frame that caught it, and the exception's traceback holds that frame: a reference cycle.
    Frames in a cycle keep their callers' frames, so the cycle held the locals of the whole
    call stack (merging's, with every parsed dump) until the collector ran, which a build
    pauses. Dropping each exception's traceback once the parse is done breaks the cycle, and
    the frames go at once."""

    def __init__(self, text: str) -> None:
        super().__init__(text, tolerant_parsing=True)
        self.ends: list[LatexWalkerEndOfStream] = []

    def get_token(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().get_token(*args, **kwargs)
        except LatexWalkerEndOfStream as end:
            self.ends.append(end)
            raise

    def let_go(self) -> None:
        for end in self.ends:
            end.__traceback__ = None
        self.ends.clear()


_SYMBOLS = re.compile(r"(?P<math>\$?)(?P<body>(?:[^\\%&~$]|\\[A-Za-z]+(?![A-Za-z]))*)(?P=math)")
_WRAPPED = re.compile(r"\\(?:textbf|emph|textit|texttt|text|mathrm|underline)\s*\{([^\\{}$%&~^_]*)\}")


def _symbols_only(latex: str) -> str | None:
    """What pylatexenc makes of a piece holding only text, macros it replaces by a fixed string
    and, in math, sub- and superscripts (``$1.2\\times$``, ``$O(n \\log n)$``, ``$n^{2}$``,
    ``\\alpha``), or emphasis around plain text (``\\emph{RoLA}``), without parsing it: a parse
    costs about a millisecond (and leaves the classes pylatexenc defines in it, a few dozen
    objects in reference cycles, to the collector); None for any other piece."""
    if (wrapped := _WRAPPED.fullmatch(latex)) is not None:
        return wrapped[1]
    found = _SYMBOLS.fullmatch(latex)
    if found is None or not (found["math"] or latex.startswith("\\") and "{" not in latex):
        return None
    out: list[str] = []
    pos = 0
    body = found["body"]
    for macro in _MACRO_NAME.finditer(body):
        spec = _latex_reader().latex_context.get_macro_spec(macro[1])
        replacement = spec.simplify_repl
        if not isinstance(replacement, str) or "%" in replacement:
            return None
        out += (body[pos : macro.start()], replacement)
        pos = macro.end()
    text = ("".join(out) + body[pos:]).replace("{", "").replace("}", "")
    return text.strip() if found["math"] else text


def macro_words(text: str) -> str:
    """The names of the macros in ``text`` that plain_text makes a letter of another script or
    a root (``Theta ell sqrt``), for search to find ``Θ``, ``ℓ`` and ``√`` by the words their
    authors typed; not markup (``emph``) or operators (``times``), which would match prose."""
    if "\\" not in text:
        return ""
    names = dict.fromkeys(_MACRO_NAME.findall(text))
    return " ".join(name for name in names if _is_named_symbol(name))


@lru_cache(maxsize=4096)
def _is_named_symbol(name: str) -> bool:
    replacement = _latex_reader().latex_context.get_macro_spec(name).simplify_repl
    return name == "sqrt" or (isinstance(replacement, str) and replacement.isalpha()
                              and not replacement.isascii())


@lru_cache(maxsize=1)
def _latex_reader() -> LatexNodes2Text:
    """pylatexenc's converter, with three changes for abstracts: an unknown macro keeps its
    name, ``\\sqrt{d}`` is ``√d`` (parentheses only around more than one character), and
    citations and references keep their keys."""
    context = latex2text.get_default_latex_context_db()
    context.set_unknown_macro_spec(latex2text.MacroTextSpec("", simplify_repl=_unknown_macro))
    context.add_context_category("site-gen", prepend=True, macros=[
        latex2text.MacroTextSpec("sqrt", simplify_repl=_square_root),
        *(latex2text.MacroTextSpec(name, simplify_repl=_last_argument)
          for name in ("cite", "citep", "citet", "ref", "eqref", "label")),
    ])
    return LatexNodes2Text(latex_context=context, math_mode="text")


def _unknown_macro(node: LatexMacroNode) -> str:
    return f"{node.macroname} "


def _last_argument(node: LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    arguments = node.nodeargd.argnlist if node.nodeargd else []
    last = arguments[-1] if arguments else None
    return l2tobj.nodelist_to_text([last]).strip() if last is not None else ""


def _square_root(node: LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    radicand = _last_argument(node, l2tobj)
    return "√" + (radicand if len(radicand) == 1 else f"({radicand})")
