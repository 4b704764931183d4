"""Untrusted text: matching keys, slugs, derived titles, and abstract LaTeX -> safe HTML.

Every function here takes raw dump text and returns either plain text or ``Markup`` whose every
byte was produced by this module: input characters only ever reach the output escaped.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape
from pylatexenc import latex2text, latexwalker
from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexwalker import (
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexWalker,
    LatexWalkerEndOfStream,
)
from pylatexenc.macrospec import LatexContextDb, MacroSpec
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
#
# Abstracts are untrusted text holding the LaTeX arXiv abstracts hold. Every construct renders
# or degrades: what this code cannot render it shows as written (escaped), so no character of
# an export is dropped. There is no warning channel here (the filters run while pages render,
# after every Diagnostic is settled), so a construct left as written is its own message.

_MATH = re.compile(
    r"\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$])\$(?P<inline>(?=\S)(?:\\.|[^$\\])+?(?<=\S))\$(?!\d)"
    r"|\\\((?P<paren>.+?)\\\)",
    re.DOTALL,
)
_HTML_MATH = re.compile(_MATH.pattern + r"|(?<!\\)\\\[(?P<bracket>.+?)\\\]", re.DOTALL)
"""``_MATH`` and ``\\[...\\]``. Apart from ``_MATH``, which also cuts the pieces plain_text
reads: their text, and so the identities ``urls.lock`` records, must not change."""
_DECLARATIONS = {
    **dict.fromkeys(("em", "it", "itshape", "sl", "slshape"), ("<em>", "</em>")),
    **dict.fromkeys(("bf", "bfseries"), ("<strong>", "</strong>")),
    **dict.fromkeys(("tt", "ttfamily"), ("<code>", "</code>")),
    **dict.fromkeys(("sc", "scshape"), ('<span class="smallcaps">', "</span>")),
    **dict.fromkeys(("rm", "rmfamily", "sf", "sffamily", "normalfont", "upshape", "mdseries"),
                    ("", "")),
}
"""Font declarations (``{\\em x}``): to the end of their group, or of the argument or
paragraph they stand in."""
_TEXT_TOKEN = re.compile(
    r"(?P<url>https?://[^\s<>\"'{}\\]+)"
    r"|\{\\(?P<declaration>" + "|".join(sorted(_DECLARATIONS, key=len, reverse=True))
    + r")(?![A-Za-z])\s*"
    r"|\\(?P<macro>[A-Za-z]+)"
    r"|\\(?P<accent>['\"`^~=.])"
    r"|\\(?P<escaped>[%&_#${}])"
    r"|\\(?P<space>[,;:! ])"
    r"|(?P<newline>\\\\)"
    r"|(?P<tilde>~)"
    r"|(?P<dash>-{2,3})"
    r"|\n\n(?P<para>)",
)
_MATH_MARKS = ("$", "\\(", "\\[")
"""Text holding none of these holds no ``_HTML_MATH``. Most abstracts have no math and no
markup, and the two regexes, which cannot skip ahead to a known first character, scan each
character."""
_TOKEN_MARKS = ("\\", "http", "~", "--", "\n\n")
"""Text holding none of these holds no ``_TEXT_TOKEN``: every token begins with one (a
declaration, ``{\\em``, holds a backslash)."""
_WRAPPERS = {
    **dict.fromkeys(("textbf", "mathbf"), ("<strong>", "</strong>")),
    **dict.fromkeys(("emph", "textit", "textsl", "mathit"), ("<em>", "</em>")),
    **dict.fromkeys(("texttt", "mathtt"), ("<code>", "</code>")),
    "textsc": ('<span class="smallcaps">', "</span>"),
    "underline": ("<u>", "</u>"),
    "textsuperscript": ("<sup>", "</sup>"),
    "textsubscript": ("<sub>", "</sub>"),
    **dict.fromkeys(("text", "mathrm", "textrm", "textsf", "textup", "textnormal", "textmd",
                     "mathsf", "mbox", "hbox"), ("", "")),
}
"""Macros whose one argument is text in a style."""
_LETTERLIKE = frozenset(("mathbb", "mathcal", "mathfrak", "mathscr", "c", "v", "u", "H", "k",
                         "r", "d", "b", "t"))
"""Macros whose one argument pylatexenc reads as letters: ``\\mathbb{R}`` is ℝ, ``\\v{s}`` š."""
_ACCENT_ALONE = {"~": "~", "^": "^"}
"""``\\~{}`` and ``\\^{}``, an accent on nothing: the character itself, as in URLs."""
_CITATIONS = frozenset(("cite", "citep", "citet", "citealp", "citealt", "citeauthor",
                        "citeyear", "parencite", "textcite", "autocite"))
_REFERENCES = frozenset(("ref", "eqref", "autoref", "cref", "Cref", "pageref"))
_LISTS: dict[str, int | None] = {"itemize": None, "description": None, "enumerate": 0}
"""List environments, inline: an item is a bullet, or its number in ``enumerate``."""
_BLOCKS = frozenset(("center", "quote", "quotation", "flushleft", "flushright", "abstract"))
"""Environments that only lay their body out: shown as their body."""
_MATH_ENVIRONMENTS = {"equation": True, "equation*": True, "displaymath": True, "math": False}
"""Environments whose body is a formula, and whether it is displayed."""
_BREAKS = {"newline": " ", "linebreak": " ", "par": " ", "noindent": ""}
_LINKABLE = re.compile(r"(?i:https?)://\S+")
_URL_ESCAPE = re.compile(r"\\([%&_#$~{}])")
_SPACES = re.compile(r"[ \t]*(?:\n[ \t]*)?")
_MAX_DEPTH = 32
"""Nesting (of arguments, groups, ``\\left``, environments) rendered; deeper text is shown as
written. pylatexenc and latex2mathml recurse a few frames a level and met Python's recursion
limit at 140 levels; no abstract nests more than a handful."""
_OPTIONAL_LENGTH = 200
"""How far ``[`` looks for its ``]`` (``\\cite[p.~3]{key}``, ``\\item[label]``)."""
_URL_TRAILING = ".,;:!?'\")]}"


@lru_cache(maxsize=MEMO)
def render_abstract(text: str) -> Markup:
    """Abstract -> HTML paragraphs: math as MathML, text-mode LaTeX as tags, URLs as links."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    return Markup("".join(f"<p>{render_inline(p)}</p>" for p in paragraphs))


def render_inline(text: str, links: bool = True) -> Markup:
    """One run of abstract text -> inline HTML; ``links=False`` for text inside a link."""
    if not any(mark in text for mark in (*_MATH_MARKS, *_TOKEN_MARKS)):  # no regex scan
        return Markup(esc(text))
    return Markup(_Inline(text, 0, len(text), links, 0, _Braces(text)).html())


@lru_cache(maxsize=MEMO)
def render_title(text: str) -> Markup:
    """A title as inline HTML (math, dashes, emphasis), never containing links."""
    return render_inline(text, links=False)


class _Braces:
    """Where each ``{`` of a text closes, found once for the text (an argument is looked up,
    not scanned for: a text of many unclosed ``\\textbf{`` would cost its length squared)."""

    __slots__ = ("_closing", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._closing: dict[int, int] | None = None

    def closing(self, opening: int) -> int | None:
        """The index of the ``}`` closing the ``{`` at ``opening``; None if none does."""
        if self._closing is None:
            self._closing = {}
            open_at: list[int] = []
            for brace in re.finditer(r"\\.|[{}]", self.text, re.DOTALL):
                if brace[0] == "{":
                    open_at.append(brace.start())
                elif brace[0] == "}" and open_at:
                    self._closing[open_at.pop()] = brace.start()
        return self._closing.get(opening)


class _Inline:
    """One range of abstract text as inline HTML: math typeset, the text between token by
    token, each macro's arguments a range of their own (so math inside them is typeset too).
    What it cannot render it shows as written."""

    __slots__ = ("braces", "depth", "end", "links", "lists", "maths", "start", "text")

    def __init__(self, text: str, start: int, end: int, links: bool, depth: int,
                 braces: _Braces) -> None:
        self.text, self.start, self.end = text, start, end
        self.links, self.depth, self.braces = links, depth, braces
        self.maths: list[re.Match[str]] = []
        self.lists: list[int | None] = []

    def html(self) -> str:
        text, end = self.text, self.end
        if self.depth > _MAX_DEPTH:
            return esc(text[self.start : end])
        own = text if self.start == 0 and end == len(text) else text[self.start : end]
        if any(mark in own for mark in _MATH_MARKS):  # _MATH scans faster, when it will do
            maths = _HTML_MATH if "\\[" in own else _MATH
            self.maths = list(maths.finditer(text, self.start, end))
        out: list[str] = []
        pos = self.start
        for math in self.maths:
            if math.start() < pos:  # inside the argument of a macro before it
                continue
            pos = self._text(pos, math.start(), out)
            if pos <= math.start():
                out.append(_typeset(math))
                pos = math.end()
        self._text(pos, end, out)
        return "".join(out)

    def _text(self, pos: int, stop: int, out: list[str]) -> int:
        """Render text[pos:stop] into ``out``; where it ends (past ``stop`` when an argument
        reached over math)."""
        text = self.text
        if not any(mark in text[pos:stop] for mark in _TOKEN_MARKS):  # most text: no regex
            out.append(esc(text[pos:stop]))
            return stop
        while (token := _TEXT_TOKEN.search(text, pos, stop)) is not None:
            out.append(esc(text[pos : token.start()]))
            html, pos = self._token(token)
            out.append(html)
            if pos > stop:
                return pos
        out.append(esc(text[pos:stop]))
        return stop

    def _token(self, token: re.Match[str]) -> tuple[str, int]:
        kind, pos = token.lastgroup, token.end()
        if kind == "url":
            url, trailing = _trim_url(token["url"])
            linked = self.links and _LINKABLE.fullmatch(url)  # not "https://" alone
            return (_link(url, esc(url)) if linked else esc(url)) + esc(trailing), pos
        if kind == "macro":
            done = self._macro(token["macro"], token.start(), pos)
            return done if done is not None else (esc(token[0]), pos)
        if kind == "declaration":
            closing = self.braces.closing(token.start())
            if closing is None or closing >= self.end or self._in_math(closing):
                return esc(token[0]), pos
            opening, ending = _DECLARATIONS[token["declaration"]]
            return opening + self._inner(pos, closing) + ending, closing + 1
        if kind == "accent":
            return self._accent(token)
        if kind == "escaped":
            return esc(token["escaped"]), pos
        if kind == "space":
            return ("\u202f" if token["space"] in ",:;" else " "), pos
        if kind in ("newline", "para"):
            return " ", pos
        if kind == "tilde":
            return "\u00a0", pos
        return ("—" if len(token["dash"]) == 3 else "–"), pos

    def _accent(self, token: re.Match[str]) -> tuple[str, int]:
        """``\\'e``, ``\\"{o}`` as the accented letter; an accent on nothing as written."""
        text, pos = self.text, token.end()
        if pos < self.end and text[pos].isascii() and text[pos].isalpha():
            after = pos + 1
        elif (argument := self._argument(pos)) is not None:
            start, stop, after = argument
            if not text[start:stop].strip():
                alone = _ACCENT_ALONE.get(token["accent"])
                return (esc(alone), after) if alone else (esc(token[0]), pos)
        else:
            return esc(token[0]), pos
        letter = unicodedata.normalize("NFC", _latex_piece(text[token.start() : after]))
        return (esc(token[0]), pos) if "\\" in letter else (esc(letter), after)

    def _macro(self, name: str, at: int, pos: int) -> tuple[str, int] | None:
        """A macro and its arguments as HTML, and where they end; None to show it as written."""
        text = self.text
        if name in _WRAPPERS or name == "footnote":
            if (argument := self._argument(pos)) is None:
                return None
            inner = self._inner(argument[0], argument[1])
            if name == "footnote":  # an aside, in parentheses where it stands
                space = "" if at == 0 or text[at - 1].isspace() else " "
                return f"{space}({inner})", argument[2]
            opening, closing = _WRAPPERS[name]
            return opening + inner + closing, argument[2]
        if name in ("url", "href"):
            return self._hyperlink(name, pos)
        if name in _CITATIONS:
            return self._citation(pos)
        if name in _REFERENCES:
            if (argument := self._argument(pos)) is None:
                return None
            label = esc(text[argument[0] : argument[1]].strip())
            return (f"({label})" if name == "eqref" else label), argument[2]
        if name in _LETTERLIKE:
            if (argument := self._argument(pos)) is None:
                return None
            letters = unicodedata.normalize("NFC", _latex_piece(text[at : argument[2]]))
            return None if "\\" in letters else (esc(letters), argument[2])
        if name in ("begin", "end"):
            return self._environment(name, at, pos)
        if name == "item":
            return self._item(at, pos)
        if name in _DECLARATIONS:  # bare, as in \textbf{\em x}: to the end of this range
            opening, closing = _DECLARATIONS[name]
            inner = self._inner(_SPACES.match(text, pos).end(), self.end)  # type: ignore[union-attr]
            return opening + inner + closing, self.end
        if name in _BREAKS:
            return _BREAKS[name], pos
        if (symbol := _symbol(name)) is not None:
            return esc(symbol), pos + 2 if text.startswith("{}", pos) else pos
        return None

    def _hyperlink(self, name: str, pos: int) -> tuple[str, int] | None:
        """``\\url{u}`` and ``\\href{u}{text}``: a link when ``u`` is http(s) and links are
        on, else the text, with the URL beside it."""
        if (target := self._argument(pos)) is None:
            return None
        url = _URL_ESCAPE.sub(r"\1", self.text[target[0] : target[1]].strip())
        after, label = target[2], ""
        if name == "href":
            if (argument := self._argument(after)) is None:
                return None
            label = self._inner(argument[0], argument[1], links=False).strip()
            after = argument[2]
        if self.links and _LINKABLE.fullmatch(url):
            return _link(url, label or esc(url)), after
        if not label or label == esc(url):
            return esc(url), after
        return f"{label} ({esc(url)})", after

    def _citation(self, pos: int) -> tuple[str, int] | None:
        """``\\cite[pre][post]{keys}`` as ``[pre keys, post]``: the keys are all a reader
        can be shown of the reference."""
        options: list[str] = []
        while len(options) < 2 and (option := self._optional(pos)) is not None:
            options.append(self._inner(option[0], option[1]).strip())
            pos = option[2]
        if (argument := self._argument(pos)) is None:
            return None
        keys = esc(self.text[argument[0] : argument[1]].strip())
        before, after = (options[0], options[1]) if len(options) == 2 else ("", "".join(options))
        cited = f"{before + ' ' if before else ''}{keys}{', ' + after if after else ''}"
        return f"[{cited}]", argument[2]

    def _environment(self, name: str, at: int, pos: int) -> tuple[str, int] | None:
        """``\\begin``/``\\end`` of a list or layout environment (its markers go, its body
        stays), or a math environment (typeset whole); None for any other."""
        if (argument := self._argument(pos)) is None:
            return None
        environment = self.text[argument[0] : argument[1]].strip()
        if name == "begin" and environment in _MATH_ENVIRONMENTS:
            end = f"\\end{{{environment}}}"
            closing = self.text.find(end, argument[2], self.end)
            if closing < 0 or self._in_math(closing):
                return None
            written = self.text[at : closing + len(end)]
            body = self.text[argument[2] : closing]
            display = _MATH_ENVIRONMENTS[environment]
            return _typeset_source(body, display, written), closing + len(end)
        if environment in _LISTS:
            if name == "begin":
                self.lists.append(_LISTS[environment])
            elif self.lists:
                self.lists.pop()
            return "", argument[2]
        return ("", argument[2]) if environment in _BLOCKS else None

    def _item(self, at: int, pos: int) -> tuple[str, int]:
        """``\\item``: its label, its number in an ``enumerate``, else a bullet; after a space."""
        space = "" if at == 0 or self.text[at - 1].isspace() else " "
        if (option := self._optional(pos)) is not None:
            return space + self._inner(option[0], option[1]), option[2]
        if self.lists and (number := self.lists[-1]) is not None:
            self.lists[-1] = number + 1
            return f"{space}{number + 1}.", pos
        return f"{space}•", pos

    def _argument(self, pos: int) -> tuple[int, int, int] | None:
        """The braced argument at ``pos`` (spaces and one line break before it allowed): its
        text's start and end, and the index after it; None if there is none, it does not
        close within this range, or it closes inside math."""
        opening = _SPACES.match(self.text, pos).end()  # type: ignore[union-attr]
        if opening >= self.end or self.text[opening] != "{":
            return None
        closing = self.braces.closing(opening)
        if closing is None or closing >= self.end or self._in_math(closing):
            return None
        return opening + 1, closing, closing + 1

    def _optional(self, pos: int) -> tuple[int, int, int] | None:
        """The ``[...]`` argument right at ``pos``, as ``_argument`` gives a braced one."""
        text = self.text
        if pos >= self.end or text[pos] != "[":
            return None
        i, stop = pos + 1, min(self.end, pos + 1 + _OPTIONAL_LENGTH)
        while i < stop:
            if text[i] == "]":
                return (pos + 1, i, i + 1) if not self._in_math(i) else None
            if text[i] == "\\":
                i += 2
            elif text[i] == "{" and (closing := self.braces.closing(i)) is not None:
                i = closing + 1
            else:
                i += 1
        return None

    def _in_math(self, index: int) -> bool:
        return any(math.start() <= index < math.end() for math in self.maths)

    def _inner(self, start: int, stop: int, links: bool | None = None) -> str:
        """text[start:stop], an argument or group, as a range of its own, one level deeper."""
        links = self.links if links is None else links
        return _Inline(self.text, start, stop, links, self.depth + 1, self.braces).html()


@lru_cache(maxsize=4096)
def _symbol(name: str) -> str | None:
    """What pylatexenc writes for a macro that stands for fixed text and takes no argument
    (``\\ldots`` …, ``\\ss`` ß, ``\\alpha`` α, ``\\LaTeX``); None for any other."""
    replacement = _latex_reader().latex_context.get_macro_spec(name).simplify_repl
    parsed = _walker_context().get_macro_spec(name)
    takes_argument = parsed is not None and "{" in parsed.args_parser.argspec
    if not isinstance(replacement, str) or "%" in replacement or takes_argument:
        return None
    return replacement if replacement.strip() else None


def _typeset(math: re.Match[str]) -> str:
    """A math match as MathML, or as written if it does not parse."""
    bracket = math["bracket"] if math.re is _HTML_MATH else None
    display = math["display"] is not None or bracket is not None
    source = math["display"] or math["inline"] or math["paren"] or bracket or ""
    return _typeset_source(source, display, math[0])


def _typeset_source(source: str, display: bool, written: str) -> str:
    mathml = _mathml(source, display)
    return mathml if mathml is not None else f'<code class="tex">{esc(written)}</code>'


def _trim_url(url: str) -> tuple[str, str]:
    """Split trailing sentence punctuation off a URL, keeping balanced closing brackets."""
    end = len(url)
    while end and url[end - 1] in _URL_TRAILING:
        if url[end - 1] == ")" and url.count("(", 0, end) >= url.count(")", 0, end):
            break
        end -= 1
    return url[:end], url[end:]


def _link(url: str, label: str) -> str:
    """A link to ``url`` (escaped here) around ``label`` (HTML already)."""
    return f'<a href="{esc(url)}" rel="nofollow noopener">{label}</a>'


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
_NESTING = re.compile(r"\\(?P<open>left|begin)(?![A-Za-z])|\\(?P<close>right|end)(?![A-Za-z])"
                      r"|\\.|(?P<brace>[{}])", re.DOTALL)


def render_math(source: str, display: bool = False) -> Markup:
    """TeX -> sanitised MathML (with the TeX as annotation); unparseable TeX is shown as code."""
    mathml = _mathml(source, display)
    if mathml is None:
        delimiter = "$$" if display else "$"
        return Markup('<code class="tex">{}</code>').format(f"{delimiter}{source}{delimiter}")
    return Markup(mathml)


@lru_cache(maxsize=8192)
def _mathml(source: str, display: bool) -> str | None:
    """TeX -> sanitised MathML; None for TeX that does not parse or nests too deep.

    latex2mathml is imported here, at the first formula: importing it (and the package
    metadata it reads) took 39 ms of every start of site-gen, a third of the imports, in
    processes that meet no math (``--version``, ``check``, a build again of pages without)."""
    from latex2mathml.converter import convert as latex_to_mathml

    if _nesting(source) > _MAX_DEPTH:
        return None
    try:
        tree = ET.fromstring(latex_to_mathml(source, display="block" if display else "inline"))
        body = "".join(_serialise(child) for child in tree)
    except Exception:  # noqa: BLE001 - latex2mathml raises many types on malformed TeX
        return None
    annotation = f'<annotation encoding="application/x-tex">{escape(source)}</annotation>'
    mode = "block" if display else "inline"
    return (f'<math xmlns="http://www.w3.org/1998/Math/MathML" display="{mode}">'
            f"<semantics><mrow>{body}</mrow>{annotation}</semantics></math>")


def _nesting(latex: str) -> int:
    """How deep ``latex`` nests groups, ``\\left``/``\\right`` and environments."""
    if "{" not in latex and "\\" not in latex:
        return 0
    depth = deepest = 0
    for token in _NESTING.finditer(latex):
        if token["open"] or token["brace"] == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif token["close"] or token["brace"] == "}":
            depth -= 1
    return deepest


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
_LATEX_ISLAND = re.compile(_MATH.pattern + r"|\\(?P<macro>[A-Za-z]+\*?)"
                           r"|\\(?P<accent>['\"`^~=.])|\\.|[{}~]", re.DOTALL)
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
    """Where the LaTeX in ``text`` is: math, a macro with its braced arguments, an accent with
    its letter (``\\'e``, ``\\"{o}``), an escaped character, a brace or a tilde; (start, end)
    in order."""
    pos = 0
    for island in _islands(text):
        if island.start() < pos:  # inside the arguments of the macro before
            continue
        pos = island.end()
        if island.group("macro"):
            while (argument := _ARGUMENT.match(text, pos)) is not None:
                pos = _braced(text, argument.end())[1]
        elif island.group("accent"):  # read apart from its letter, the accent went on the
            if pos < len(text) and text[pos].isascii() and text[pos].isalpha():  # letter before
                pos += 1
            elif (argument := _ARGUMENT.match(text, pos)) is not None:
                pos = _braced(text, argument.end())[1]
        yield island.start(), pos


def _braced(text: str, start: int) -> tuple[str, int]:
    """The text up to the brace matching one just before ``start``, and the index after it
    (the text's end when none does)."""
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
    """One piece of LaTeX as text (pieces such as ``$\\times$`` recur in many abstracts).

    A piece pylatexenc cannot read, or reads losing a letter or digit of it (an unclosed
    environment's arguments, a layout macro's), or that nests too deep for it to read at any
    depth of the call stack, is kept as written: no character of an abstract is lost from the
    plain text (search, feeds, exports), and none stops a build."""
    simple = _symbols_only(latex)
    if simple is not None:
        return simple
    if _nesting(latex) > _MAX_DEPTH:
        return latex
    try:
        text = _read_latex(latex)
    except Exception:  # noqa: BLE001 - pylatexenc raises many types on LaTeX it does not expect
        return latex
    return text if not _letter_count(_MARKUP.sub(" ", latex)) - _letter_count(text) else latex


_MARKUP = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}|\\[A-Za-z]+")
"""Macro names and environments' names: markup, whose letters a reading may drop."""


def _letter_count(text: str) -> Counter[str]:
    """The letters and digits of ``text`` (accents apart, ``é`` is ``e``), counted."""
    decomposed = unicodedata.normalize("NFKD", text)
    return Counter(c for c in decomposed if c.isalnum() and not unicodedata.combining(c))


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
        super().__init__(text, latex_context=_walker_context(), tolerant_parsing=True)
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
def _walker_context() -> LatexContextDb:
    """pylatexenc's parsing context, told that ``\\href`` takes two arguments. Its converter
    has a replacement for ``\\href`` that reads both, but its parser did not know the macro,
    read no argument, and the replacement raised: every build with an ``\\href`` died."""
    context = latexwalker.get_default_latex_context_db()
    context.add_context_category("site-gen", prepend=True, macros=[MacroSpec("href", "{{")])
    return context


@lru_cache(maxsize=1)
def _latex_reader() -> LatexNodes2Text:
    """pylatexenc's converter, with these changes for abstracts: an unknown macro keeps its
    name and the text of any arguments (the parser knows ``\\texttt`` and ``\\mbox`` take one,
    the converter did not know them and dropped it), ``\\texttt{x}`` and its kind are ``x``,
    ``\\sqrt{d}`` is ``√d`` (parentheses only around more than one character), citations and
    references keep their keys (and a citation its options), ``\\href{url}{text}`` is
    ``text <url>`` with the URL as written, ``\\today`` is not the date of the build,
    ``\\input`` and ``\\include`` are unknown (pylatexenc's logged a missing argument to the
    console), and a node whose replacement fails on what it was given is read as an unknown
    one (``_Reader``)."""
    context = latex2text.get_default_latex_context_db()
    context.set_unknown_macro_spec(latex2text.MacroTextSpec("", simplify_repl=_unknown_macro))
    context.add_context_category("site-gen", prepend=True, macros=[
        latex2text.MacroTextSpec("sqrt", simplify_repl=_square_root),
        latex2text.MacroTextSpec("href", simplify_repl=_hyperlink),
        *(latex2text.MacroTextSpec(name, simplify_repl=_unknown_macro)
          for name in ("today", "input", "include")),
        *(latex2text.MacroTextSpec(name, discard=False)
          for name in ("texttt", "textsf", "textmd", "textup", "mbox")),
        *(latex2text.MacroTextSpec(name, simplify_repl=_citation)
          for name in ("cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear")),
        *(latex2text.MacroTextSpec(name, simplify_repl=_last_argument)
          for name in ("ref", "eqref", "label")),
    ])
    return _Reader(latex_context=context, math_mode="text")


class _Reader(LatexNodes2Text):
    """pylatexenc's converter, reading a node its replacement fails on as an unknown macro
    (its name, then its arguments) or environment (its arguments, then its body): pylatexenc's
    replacements index arguments the parser may not have found (``\\footnote`` alone, an
    ``array`` without columns), and the whole build died of the IndexError; a ``%s`` pattern
    given too few arguments (``$\\frac$``) was logged to the console and written as it was."""

    def apply_simplify_repl(self, node: Any, simplify_repl: Any, what: str) -> str:
        if isinstance(simplify_repl, str) and not _fills(simplify_repl, node):
            return self._as_unknown(node)
        try:
            return super().apply_simplify_repl(node, simplify_repl, what)
        except Exception:  # noqa: BLE001 - any replacement's failure: the node as written
            return self._as_unknown(node)

    def _as_unknown(self, node: Any) -> str:
        arguments = node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist else []
        words = [self.nodelist_to_text([a]) for a in arguments if a is not None]
        if node.isNodeType(LatexMacroNode):
            words.insert(0, node.macroname)
        elif node.isNodeType(LatexEnvironmentNode):
            words.append(self.nodelist_to_text(node.nodelist))
        else:
            words.insert(0, getattr(node, "specials_chars", ""))
        return " ".join(word for word in words if word) + " "


_SUPERSCRIPTS = str.maketrans("0123456789n", "⁰¹²³⁴⁵⁶⁷⁸⁹ⁿ")


_PERCENT_S = re.compile(r"(^|[^%])(%%)*%s")
"""pylatexenc's test for a ``%s`` pattern (else it fills ``%(1)s`` by the arguments' numbers)."""


def _fills(pattern: str, node: Any) -> bool:
    """Whether pylatexenc can fill a replacement pattern with what ``node`` was given: it fills
    it as this does, with the arguments (an environment's ``%s``: its body)."""
    if "%" not in pattern or len(pattern) == 1:
        return True
    count = len(node.nodeargd.argnlist) if node.nodeargd and node.nodeargd.argnlist else 0
    environment = node.isNodeType(LatexEnvironmentNode)
    if _PERCENT_S.search(pattern):
        values: Any = ("",) * (1 if environment else count)
    else:
        values = {str(1 + j): "" for j in range(count)} | ({"body": ""} if environment else {})
    try:
        pattern % values
    except (TypeError, ValueError, KeyError):
        return False
    return True


def _unknown_macro(node: LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    arguments = node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist else []
    words = [l2tobj.nodelist_to_text([a]) for a in arguments if a is not None]
    return " ".join((node.macroname, *(word for word in words if word))) + " "


def _hyperlink(node: LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    """``\\href{url}{text}`` as ``text <url>``, the URL as written (pylatexenc's own reads it as
    text, so a ``~`` in it became a space)."""
    arguments = node.nodeargd.argnlist if node.nodeargd else []
    if len(arguments) < 2 or None in arguments[:2]:
        raise ValueError("\\href without its two arguments")  # _Reader reads it as written
    written = arguments[0].latex_verbatim()
    if arguments[0].isNodeType(LatexGroupNode):
        written = written[1:-1]
    url = _URL_ESCAPE.sub(r"\1", written.strip())
    return f"{l2tobj.nodelist_to_text([arguments[1]]).strip()} <{url}>"


def _last_argument(node: LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    arguments = node.nodeargd.argnlist if node.nodeargd else []
    last = arguments[-1] if arguments else None
    return l2tobj.nodelist_to_text([last]).strip() if last is not None else ""


def _citation(node: LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    """A citation's keys, then the text of its options (``\\citep[p.~3]{key}`` is ``key, p. 3``:
    the options were dropped)."""
    arguments = node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist else []
    options = [l2tobj.nodelist_to_text([a]).strip() for a in arguments[:-1] if a is not None]
    words = [_last_argument(node, l2tobj), *(o for o in options if o and o != "*")]
    return ", ".join(word for word in words if word)


def _square_root(node: LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    """``√d``, ``√(n k)``; a root's index raised before it (``\\sqrt[3]{x}`` is ``³√x``: the
    index was dropped, a cube root read as a square root)."""
    radicand = _last_argument(node, l2tobj)
    arguments = node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist else []
    index = arguments[0] if len(arguments) > 1 else None
    raised = l2tobj.nodelist_to_text([index]).strip().translate(_SUPERSCRIPTS) if index else ""
    return raised + "√" + (radicand if len(radicand) == 1 else f"({radicand})")
