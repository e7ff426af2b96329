"""Where a passage or a search term is in a page: the reader view's text work, without Textual.

A citation check's passage (:attr:`~websearch_tui.core.checks.CitationCheck.passage`) is plain text
in the checker's form (NFKC, straight quotes, Markdown stripped, sentences joined by spaces, the
headings between them left out); the reader shows the page as Markdown rendered to wrapped lines.
The two are compared as word tokens (runs of letters and digits, casefolded, each CJK character a
token of its own), so wrapping, Markdown marks, punctuation, case and line breaks do not matter.
A passage is found as runs of tokens: the longest part of it that the page holds word for word,
then each next part shortly after (a heading or a caption between two of its sentences is skipped).

Every function is linear in the text it reads, times a logarithm at most.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from websearch_tui.verify.text import CJK, clean, fold

_TOKEN = re.compile(rf"[{CJK}]|[^\W_{CJK}]+")
"""One CJK character, or a run of other letters and digits."""
MIN_RUN = 3
"""The fewest tokens a found part of a passage holds (unless the passage is shorter)."""
GAP_TOKENS = 40
"""How many tokens of the page may lie between two found parts of one passage."""


@dataclass(frozen=True)
class Hit:
    """Characters ``start:end`` of line ``line`` (0-based, both in characters, not cells)."""

    line: int
    start: int
    end: int


Token = tuple[str, int, int, int]
"""One word token of a text: ``(key, line, start, end)``: its compared form, on ``line`` from
``start`` to ``end`` (character offsets in that line; a text read whole is line 0)."""


def _key(word: str) -> str:
    """The compared form of one token: lower case (ASCII), else the checker's clean form casefolded."""
    return word.lower() if word.isascii() else fold(clean(word))


def tokens_of(text: str, line: int = 0) -> Iterator[Token]:
    """The word tokens of ``text`` (one line, or a whole text as line 0), in order."""
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        yield _key(text[start:end]), line, start, end


def line_tokens(lines: Sequence[str]) -> list[Token]:
    """The word tokens of every line of ``lines``, in order."""
    return [token for number, text in enumerate(lines) for token in tokens_of(text, number)]


def passage_keys(passage: str) -> list[str]:
    """The compared forms of the tokens of ``passage``."""
    return [token[0] for token in tokens_of(passage)]


class _Keys:
    """Tokens' keys joined by spaces, to find runs of them with ``str.find``."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.text = " " + " ".join(keys) + " "
        self.offsets: list[int] = []
        position = 1
        for key in keys:
            self.offsets.append(position)
            position += len(key) + 1

    def find(self, run: Sequence[str], first: int, last: int | None = None) -> int | None:
        """The index of the first token from ``first`` on (and starting before ``last``, when given)
        where ``run`` is, or ``None``."""
        if first >= len(self.offsets):
            return None
        wanted = " " + " ".join(run) + " "
        start = self.offsets[first] - 1
        end = len(self.text) if last is None or last >= len(self.offsets) else self.offsets[last] - 1 + len(wanted)
        found = self.text.find(wanted, start, end)
        return None if found < 0 else bisect.bisect_left(self.offsets, found + 1)

    def longest(self, needle: Sequence[str], first: int, last: int | None, least: int) -> tuple[int, int] | None:
        """``(index, count)``: the longest start of ``needle`` (at least ``least`` tokens) found from
        token ``first`` on (starting before ``last``), at its first place; ``None`` when none is."""
        low = min(least, len(needle))
        found = self.find(needle[:low], first, last) if low else None
        if found is None:
            return None
        high = len(needle)
        best = (found, low)
        while low < high:  # the longest start held: a start of n tokens held means every shorter one is
            middle = (low + high + 1) // 2
            at = self.find(needle[:middle], first, last)
            if at is None:
                high = middle - 1
            else:
                low, best = middle, (at, middle)
        return best


def find_runs(keys: Sequence[str], needle: Sequence[str]) -> list[tuple[int, int]]:
    """Where ``needle`` (token keys) is among ``keys``: ``(index, count)`` runs in order, the first
    the longest start of the needle the keys hold (at least :data:`MIN_RUN` tokens), each next one
    the longest start of the rest within :data:`GAP_TOKENS` tokens after the previous (a token of the
    needle found nowhere there is skipped). Empty when not even the first run is found."""
    joined = _Keys(keys)
    first = joined.longest(needle, 0, None, MIN_RUN)
    if first is None:
        return []
    runs = [first]
    done = first[1]
    position = first[0] + first[1]
    while done < len(needle):
        found = joined.longest(needle[done:], position, position + GAP_TOKENS, MIN_RUN)
        if found is None:
            done += 1
            continue
        runs.append(found)
        done += found[1]
        position = found[0] + found[1]
    return runs


def passage_hits(lines: Sequence[str], passage: str) -> list[Hit]:
    """The parts of ``lines`` that show ``passage`` (see :func:`find_runs`), one hit per line and
    run, from the first token of the run on that line to its last and the punctuation right after
    it (a sentence's full stop); empty when it is not found."""
    tokens = line_tokens(lines)
    hits: list[Hit] = []
    for index, count in find_runs([token[0] for token in tokens], passage_keys(passage)):
        run = tokens[index : index + count]
        for line in sorted({token[1] for token in run}):
            on_line = [token for token in run if token[1] == line]
            text, end = lines[line], on_line[-1][3]
            while end < len(text) and not text[end].isspace() and not text[end].isalnum():
                end += 1
            hits.append(Hit(line, on_line[0][2], end))
    return hits


def passage_offset(text: str, passage: str) -> int | None:
    """The character offset in ``text`` (a whole page's Markdown) where ``passage`` starts, as
    :func:`find_runs` finds it; ``None`` when it is not found."""
    tokens = list(tokens_of(text))
    runs = find_runs([token[0] for token in tokens], passage_keys(passage))
    return tokens[runs[0][0]][2] if runs else None


def term_hits(lines: Sequence[str], term: str) -> list[Hit]:
    """Every place ``term`` is in ``lines``, ignoring case, in order (a term is found within one
    line: one that a line wrap cuts in two is not)."""
    needle = term.lower()
    if not needle:
        return []
    hits = []
    for number, line in enumerate(lines):
        folded = line.lower()
        if len(folded) != len(line):  # a character whose lower case is longer: compare as shown
            folded, wanted = line, term
        else:
            wanted = needle
        start = folded.find(wanted)
        while start >= 0:
            hits.append(Hit(number, start, start + len(wanted)))
            start = folded.find(wanted, start + max(1, len(wanted)))
    return hits


def text_find(text: str, term: str, start: int = 0) -> int | None:
    """The character offset of the first place ``term`` is in ``text`` from ``start`` on, ignoring
    case; ``None`` when it is not there."""
    needle = term.lower()
    if not needle:
        return None
    lowered = text.lower()
    if len(lowered) != len(text):
        found = text.find(term, start)
    else:
        found = lowered.find(needle, start)
    return None if found < 0 else found


def cut_point(text: str, start: int, size: int) -> int:
    """Where a part of ``text`` of about ``size`` characters from ``start`` ends: ``len(text)`` when
    the rest fits, else after the last blank line (a paragraph break) in the second half of the part,
    else after its last line break, else after its last space, else at ``start + size``."""
    end = start + size
    if end >= len(text):
        return len(text)
    floor = start + size // 2
    for separator in ("\n\n", "\n", " "):
        found = text.rfind(separator, floor, end)
        if found >= 0:
            return found + len(separator)
    return end
