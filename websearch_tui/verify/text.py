"""Normalisation shared by the claim and the page, so the two are compared in one form.

- :func:`clean`: Unicode NFKC (full-width forms, ligatures, no-break spaces become their plain
  forms), curly quotes made straight, every dash and hyphen made ``-``, invisible characters (zero
  width, soft hyphen, byte order mark) removed. Case is kept: proper names are read from it.
- :func:`blocks`: Markdown as paragraphs of plain text, each with the headings it sits under.
- :func:`tokens`, :func:`content_words`, :func:`quote_key`: the casefolded word forms the matcher
  compares.

Every function is linear in its input: the patterns have bounded, non-overlapping repeats.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

_QUOTES_AND_DASHES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u02bc", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63", "-"),
        **dict.fromkeys("\u00ad\u200b\u200c\u200d\u2060\ufeff", None),
    }
)

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Hiragana, katakana and the CJK ideographs (as a regex character range): scripts written without
spaces between words."""
_TOKEN = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+")
"""A run of CJK characters, or a run of other letters and digits; everything else separates."""
_CJK_CHAR = re.compile(rf"[{CJK}]")

_LINE_MARK = re.compile(r"[ \t]{0,3}+(?:(#{1,6})[ \t]++|(?:>[ \t]?+)++|[-*+\u2022][ \t]++|(\d{1,9})[.)][ \t]++)")
"""What opens a Markdown line: a heading's hashes (group 1), quote marks, a bullet or an item number
(group 2)."""
_TABLE_RULE = re.compile(r"[\s|:\-]*+")
_RULE = re.compile(r"[ \t]{0,3}+(?:[-=*_][ \t]*+){3,}+")
"""A thematic break or a setext heading's underline (``---``, ``===``, ``* * *``)."""
_INLINE = re.compile(
    r"!?\[([^\[\]\n]{0,500}+)\]\([^()\s]{0,2048}+(?:\([^()\s]{0,2048}+\)[^()\s]{0,2048}+)?+"
    r"(?:[ \t]{1,5}+\"[^\"\n]{0,300}+\")?+\)"  # a link or image: its text
    r"|<(https?://[^<>\s]{1,2048}+)>"  # an autolink: its URL
    r"|\\([!-/:-@\[-`{-~])"  # a backslash escape: the escaped character
    r"|[*`]++|~~"  # emphasis, code and strikethrough marks (a lone "~" is "about")
)
_SPACES = re.compile(r"\s+")
_NUMBER_LINK = re.compile(r"\d{1,4}")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me more
    most my myself no nor not of off on once only or other our ours ourselves out over own same she should
    so some such than that the their theirs them themselves then there these they this those through to
    too under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves according per via s t""".split()
)
"""English function words, left out of the words a claim and a passage are matched on. "not", "no"
and "nor" are among them: a negation does not change which words match (see match.py)."""


def clean(text: str) -> str:
    """``text`` in NFKC with straight quotes, ``-`` for every dash, no invisible characters; case
    and line breaks kept. Linear."""
    return unicodedata.normalize("NFKC", text).translate(_QUOTES_AND_DASHES)


def fold(text: str) -> str:
    """``text`` casefolded (``"Straße"`` -> ``"strasse"``)."""
    return text.casefold()


def is_cjk(char: str) -> bool:
    """True when ``char`` (one character, or ``""``: False) is written without spaces between words
    (Han, kana)."""
    return char >= "\u3040" and _CJK_CHAR.match(char) is not None


def tokens(text: str) -> list[str]:
    """The word tokens of ``text`` casefolded, in order: runs of letters and digits, and runs of
    CJK characters as one token each (``"Paris's 3,000 东京塔"`` -> ``["paris", "s", "3", "000", "东京塔"]``)."""
    return _TOKEN.findall(fold(text))


def quote_key(text: str) -> str:
    """The form in which a quote and a page are compared: the tokens joined by single spaces, so
    punctuation, Markdown, case and spacing no longer matter."""
    return " ".join(tokens(text))


def content_words(words: list[str]) -> list[str]:
    """The words a claim and a passage are matched on: ``words`` (from :func:`tokens`) without
    stop words and numbers, each CJK run cut into its overlapping two-character pieces (CJK is
    written without spaces, so pairs of characters stand in for words)."""
    out: list[str] = []
    for word in words:
        if is_cjk(word[0]):
            out.extend(word[i : i + 2] for i in range(max(1, len(word) - 1)))
        elif not word.isdigit() and word not in STOPWORDS:
            out.append(word)
    return out


def strip_inline(text: str) -> str:
    """One line or paragraph of Markdown as plain text: links and images become their text (a link
    whose text is a number, ``[3](https://...)``, becomes the citation marker ``[3]``), autolinks
    their URL; escapes, emphasis, code and strikethrough marks are dropped. Linear."""
    return _INLINE.sub(_inline_replacement, text)


def _inline_replacement(match: re.Match[str]) -> str:
    label = match.group(1)
    if label is not None:
        return f"[{label}]" if _NUMBER_LINK.fullmatch(label) else label
    return match.group(2) or match.group(3) or ""


@dataclass(frozen=True)
class Block:
    """A paragraph, list item, table row or heading of a Markdown text, as plain text on one line.

    ``headings`` are the texts of the headings it sits under, outermost first (a heading block
    lists itself last); ``heading`` is True for a heading block.
    """

    text: str
    headings: tuple[str, ...]
    heading: bool = False


def blocks(text: str) -> Iterator[Block]:
    """The blocks of Markdown ``text`` (already :func:`clean`), in order: a blank line, a heading,
    a list item, a quote line or a table row starts a new block, other lines continue the one
    before (a soft line break). Rules, setext underlines, table rules and blocks without a word are
    dropped. Linear."""
    trail: list[str] = []
    paragraph: list[str] = []
    in_item = False
    for line in text.splitlines():
        if _RULE.fullmatch(line):
            line = ""  # ends the paragraph, like a blank line
        mark = _line_mark(line, plain_paragraph=bool(paragraph) and not in_item)
        body = line[mark.end() :] if mark else line
        table = body.lstrip().startswith("|")
        if (mark is not None or table or not body.strip()) and paragraph:
            yield from _block(_plain(" ".join(paragraph)), trail)
            paragraph = []
        in_item = (mark is not None or in_item) and bool(body.strip())
        if mark is not None and mark.group(1):
            yield from _heading(len(mark.group(1)), body, trail)
        elif table:
            if not _TABLE_RULE.fullmatch(body):
                yield from _block(_plain(body.replace("|", " ")), trail)
        elif body.strip():
            paragraph.append(body)
    if paragraph:
        yield from _block(_plain(" ".join(paragraph)), trail)


def _heading(level: int, body: str, trail: list[str]) -> Iterator[Block]:
    """The heading block of level ``level`` (1-6), after ``trail`` is cut to its outer headings and
    extended by it."""
    del trail[level - 1 :]
    trail.extend([""] * (level - 1 - len(trail)))
    trail.append(_plain(body).strip(" #"))
    yield from _block(trail[-1], trail, heading=True)


def _line_mark(line: str, *, plain_paragraph: bool) -> re.Match[str] | None:
    """The Markdown mark opening ``line``; an item number other than 1 does not interrupt a plain
    paragraph (as in CommonMark: "... in\\n2023. The ..." is one paragraph)."""
    mark = _LINE_MARK.match(line)
    if mark is not None and plain_paragraph and mark.group(2) not in (None, "1"):
        return None
    return mark


def _block(plain: str, trail: list[str], *, heading: bool = False) -> Iterator[Block]:
    """The block of plain text ``plain`` under the headings ``trail``, unless it has no word."""
    if _TOKEN.search(plain):
        yield Block(plain, tuple(part for part in trail if part), heading)


def _plain(text: str) -> str:
    """Markdown ``text`` (one block) as plain text on one line (:func:`strip_inline`, spaces collapsed)."""
    return _SPACES.sub(" ", strip_inline(text)).strip()
