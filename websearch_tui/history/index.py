"""What the history's full-text index holds, and how typed text becomes an FTS5 ``MATCH`` expression.

The index is an FTS5 table with the ``unicode61`` tokenizer (diacritics folded) and no stored
content (see :mod:`websearch_tui.history.schema`). ``unicode61`` splits Latin, Cyrillic, Greek, ...
text into words, but reads a run of Chinese, Japanese or Korean characters as one long "word", so
before indexing every CJK character is set apart as a word of its own (``"异步编程"`` -> ``"异 步 编 程"``)
and a typed CJK run becomes the phrase of its characters (``"步编"`` finds ``"异步编程"``). Any CJK
substring is found, one character included, also the two-character words (``"中国"``) that a
trigram index cannot match.

Everything here is a pure function of strings: the text indexed for a stored search is derived
from its stored record, so deleting it from the index (a contentless table needs the indexed text
again) reproduces exactly what was indexed. Changing :func:`index_form` or :func:`index_body` changes
what was indexed, so it needs a schema migration that rebuilds the index.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from websearch_tui.core.text import pattern

_CJK_CHARS = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f"  # Bopomofo
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width Katakana
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
_CJK_RUN = f"([{_CJK_CHARS}]+)"
"""A run of CJK characters, captured (its ``split`` gives the other text and the runs by turns). The
one pattern over this class, compiled at its first use (:func:`~websearch_tui.core.text.pattern`):
about 2 ms (the class spans 100,000 code points), which text without CJK never pays."""
_CJK_FIRST = "\u1100"
"""The lowest character :data:`_CJK_RUN` matches: text whose characters are all below it has none."""
_WORD = r"[^\W_]+"  # letters and digits: the characters unicode61 keeps in a token

MIN_PREFIX_CHARS = 3
"""A typed word of at least this many characters also matches longer words it begins (``"asy"``
finds ``"asyncio"``); shorter ones match whole words only: with 10,000 stored searches a two-letter
prefix (``"de"``, ``"th"``) merges thousands of words and takes 100 ms or more, three letters ~10 ms."""


MAX_TERMS = 10
"""The most terms (distinct words, CJK runs) one search matches: the cost of a full-text search grows
with every common word (at 50,000 stored searches, 80 common words took 15 s and 400 MB); the
words typed after these are left out (:func:`terms_left_out` says how many)."""


def _spaced(run: str) -> str:
    """The characters of a CJK run, separated by spaces."""
    return " ".join(run)


def index_form(text: str) -> str:
    """``text`` as it is indexed: every CJK character set apart by spaces; other text unchanged.
    Linear in ``len(text)``."""
    if max(text, default="") < _CJK_FIRST:
        return text
    return pattern(_CJK_RUN).sub(lambda match: f" {_spaced(match.group())} ", text)


def index_body(outcomes: Sequence[Mapping[str, Any]]) -> str:
    """The indexed body of a stored search: every answer, source title, snippet and URL of its
    ``outcomes`` (stored outcome records, see :mod:`websearch_tui.history.codec`), each distinct
    string once, one per line, in :func:`index_form`."""
    return index_form("\n".join(dict.fromkeys(_texts(outcomes))))


def _texts(outcomes: Iterable[Mapping[str, Any]]) -> Iterable[str]:
    for outcome in outcomes:
        response = outcome.get("response") or {}
        answer = response.get("answer")
        if isinstance(answer, str) and answer.strip():
            yield answer
        for source in response.get("sources") or ():
            for name in ("title", "snippet", "url"):
                value = source.get(name)
                if isinstance(value, str) and value:
                    yield value


def match_expression(text: str) -> str | None:
    """An FTS5 ``MATCH`` expression finding entries that contain every word of ``text`` (its first
    :data:`MAX_TERMS` distinct terms), or ``None`` when ``text`` holds no letter or digit.

    Each word is quoted (FTS5 operators and punctuation in ``text`` are never interpreted); a word of
    :data:`MIN_PREFIX_CHARS` or more also matches words it begins; a CJK run becomes the phrase of its
    characters, matching the way :func:`index_form` indexed it.
    Example: ``'asyncio 教程 "a"'`` -> ``'"asyncio"* "教 程" "a"'``.
    """
    return " ".join(_terms(text)[:MAX_TERMS]) or None


def terms_left_out(text: str) -> int:
    """How many distinct terms of ``text`` :func:`match_expression` leaves out (beyond :data:`MAX_TERMS`)."""
    return max(0, len(_terms(text)) - MAX_TERMS)


def _terms(text: str) -> list[str]:
    """The distinct quoted terms of ``text``, in the order typed (linear in ``len(text)``)."""
    terms: list[str] = []
    for word in pattern(_WORD).findall(text):
        for position, piece in enumerate(pattern(_CJK_RUN).split(word)):
            if position % 2:  # a CJK run (split puts the captured runs at odd positions)
                terms.append(f'"{_spaced(piece)}"')
            elif piece:
                terms.append(f'"{piece}"*' if len(piece) >= MIN_PREFIX_CHARS else f'"{piece}"')
    return list(dict.fromkeys(terms))


def query_words(text: str) -> list[str]:
    """The letters-and-digits words of ``text`` (for matching queries without a full-text index)."""
    return pattern(_WORD).findall(text)
