"""Sentence splitting for answers and pages, English and CJK alike.

A sentence ends at ``.``, ``!``, ``?`` or an ellipsis followed by a space, or at a CJK full stop
(``。``, and ``!``/``?`` next to a CJK character) with or without one; closing quotes and brackets
after the stop, and citation markers (``[3]``, ``[1, 2]``, ``[4][5]``, before or after a space),
stay with the sentence they close. A full stop does not end a sentence inside a number (``3.5``),
a URL or a dotted abbreviation (``e.g.``, ``U.S.``) unless a capital follows, after a title
(``Dr.``, ``Prof.``), an initial (``J. K. Rowling``) or an abbreviation that goes on (``approx.``,
``cf.``; ``No.``, ``Fig.`` and ``p.`` before a number), nor before a word in lower case; an
ellipsis ends one only before a capital.

Linear: only the stops are visited, and each looks at a bounded neighbourhood.
"""

from __future__ import annotations

import re

from websearch_tui.verify.text import is_cjk

MARKER = re.compile(r"\[(\d{1,4}+(?:[ \t]{0,2}+,[ \t]{0,2}+\d{1,4}+){0,50}+)\]")
"""A citation marker: ``[3]`` or ``[1, 2]``; group 1 is the comma-separated list of numbers."""
_STOP = re.compile(r"[.!?\u3002]++")
_CLOSERS = re.compile(r"(?:[\"')\]\u300d\u300f\u3011\u300b\uff09]|[ \t]{0,3}+" + MARKER.pattern + r")*+")
_NEXT_WORD = re.compile(r"\s*+(\S)")
MAX_SENTENCE = 600
"""A run of text with no sentence end is cut into pieces of at most this many characters (at a
space where there is one), so one passage stays short and matching stays linear."""

_NEVER_ENDS = frozenset("mr mrs ms dr prof st sr jr lt sgt rev hon vs e.g i.e cf viz approx ca".split())
"""Abbreviations after which a full stop does not end the sentence, whatever follows."""
_BEFORE_NUMBERS = frozenset("no nos vol p pp fig figs ch art sec eq op".split())
"""Abbreviations after which a full stop does not end the sentence when a number follows (``No. 5``)."""


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (one paragraph, whitespace collapsed), stripped, in order, none
    empty and none longer than :data:`MAX_SENTENCE` characters. Linear in ``text``."""
    found: list[str] = []
    start = 0
    for stop in _STOP.finditer(text):
        closers = _CLOSERS.match(text, stop.end())
        end = closers.end() if closers else stop.end()  # the pattern matches the empty string: always a match
        if _ends_sentence(text, stop, end):
            found.extend(_pieces(text[start:end]))
            start = end
    found.extend(_pieces(text[start:]))
    return found


def _ends_sentence(text: str, stop: re.Match[str], end: int) -> bool:
    """Whether the stop ``stop``, whose closers run to ``end``, ends a sentence."""
    run = stop.group()
    if "\u3002" in run or end == len(text):
        return True
    before = text[stop.start() - 1] if stop.start() else ""
    if run[0] in "!?" and (is_cjk(before) or is_cjk(text[end])):  # CJK: no space after a stop
        return True
    if not text[end].isspace():  # 3.5, e.g, example.com
        return False
    following = _NEXT_WORD.match(text, end)
    if following is None:
        return True
    next_char = following.group(1)
    if next_char.islower():
        return False
    if run[0] in "!?":
        return True
    if len(run) > 1:  # an ellipsis ends a sentence only before a capital
        return next_char.isupper()
    return _full_stop_ends(_word_before(text, stop.start()), next_char)


def _full_stop_ends(word: str, next_char: str) -> bool:
    """Whether a full stop after ``word``, followed by a word starting with ``next_char`` (not a
    lower-case letter), ends the sentence."""
    lowered = word.lower()
    if lowered in _NEVER_ENDS or (len(word) == 1 and word.isupper()):
        return False
    if lowered in _BEFORE_NUMBERS and next_char.isdigit():
        return False
    if "." in word:  # U.S., a.m.: the end only when a capital follows
        return next_char.isupper()
    return True


def _word_before(text: str, index: int) -> str:
    """The word (at most 12 characters, no spaces) that ends at ``index``."""
    start = index
    while start > 0 and index - start < 12 and not text[start - 1].isspace() and text[start - 1] not in "(\"'[":
        start -= 1
    return text[start:index]


def _pieces(sentence: str) -> list[str]:
    """``sentence`` stripped and cut at spaces into pieces of at most :data:`MAX_SENTENCE`
    characters (hard cuts where a stretch has no space); ``[]`` when it is blank. Linear."""
    sentence = sentence.strip()
    pieces = []
    start = 0
    while len(sentence) - start > MAX_SENTENCE:
        cut = sentence.rfind(" ", start + MAX_SENTENCE // 2, start + MAX_SENTENCE)
        cut = cut if cut > 0 else start + MAX_SENTENCE
        pieces.append(sentence[start:cut].strip())
        start = cut
    pieces.append(sentence[start:].strip())
    return [piece for piece in pieces if piece]
