"""What an answer claims with each of its citations.

A citation's claim is the provider's ``cited_text`` when it sends one (Anthropic and DeepSeek quote
the page; Gemini and the Responses family quote the answer span it supports; Perplexity sends the
result's snippet). Otherwise it is read from the answer: citation ``n`` (1-based, as the providers
number them: ``[n]`` is ``response.citations[n - 1]``) claims each sentence that carries an ``[n]``
marker (``[n]``, ``[1, n]``, ``[m][n]``), markers removed. When a sentence carries markers at
several places ("Paris has 2.1 million people [1], and Lyon has 0.5 million [2]."), each marker
claims only the part of the sentence since the marker before it, so no page is held to what
another page says.
"""

from __future__ import annotations

import re

from websearch_tui.core.models import SearchResponse
from websearch_tui.verify.sentences import MARKER, split_sentences
from websearch_tui.verify.text import blocks, clean

_MARKER_GAP = re.compile(r"[\s,]{0,3}+")
_MARKER_AND_SPACE = re.compile(r" ?+" + MARKER.pattern)
_EDGES = " ,;:-"


def citation_claims(response: SearchResponse) -> dict[int, list[str]]:
    """Citation index (0-based, into ``response.citations``) -> its claims, distinct, in answer
    order: ``[cited_text]`` when the citation has one, else the marked sentences (module
    docstring). A citation with neither is left out. Linear in the answer."""
    marked = marked_claims(response.answer or "")
    claims: dict[int, list[str]] = {}
    for index, citation in enumerate(response.citations):
        cited = (citation.cited_text or "").strip()
        if cited:
            claims[index] = [cited]
        elif index + 1 in marked:
            claims[index] = marked[index + 1]
    return claims


def marked_claims(answer: str) -> dict[int, list[str]]:
    """Marker number (1-based) -> the claims of ``answer`` (Markdown) that carry it, distinct, in
    order, as plain text without markers. Linear."""
    found: dict[int, dict[str, None]] = {}
    for block in blocks(clean(answer)):
        for sentence in split_sentences(block.text):
            for numbers, claim in _segments(sentence):
                for number in numbers:
                    found.setdefault(number, {})[claim] = None
    return {number: list(claims) for number, claims in found.items()}


def _segments(sentence: str) -> list[tuple[list[int], str]]:
    """The marker groups of ``sentence`` with the text each claims: the whole sentence when it has
    one group (or a group's own part has no words), else the part since the group before."""
    groups = _marker_groups(sentence)
    whole = _without_markers(sentence)
    out = []
    previous_end = 0
    for start, end, numbers in groups:
        part = _without_markers(sentence[previous_end:start]) if len(groups) > 1 else whole
        out.append((numbers, part if any(char.isalnum() for char in part) else whole))
        previous_end = end
    return [(numbers, claim) for numbers, claim in out if any(char.isalnum() for char in claim)]


def _marker_groups(sentence: str) -> list[tuple[int, int, list[int]]]:
    """The runs of markers in ``sentence`` (``[1][2]``, ``[1], [3]``): (start, end, numbers)."""
    groups: list[tuple[int, int, list[int]]] = []
    for marker in MARKER.finditer(sentence):
        numbers = [int(number) for number in marker.group(1).split(",")]
        gap = _MARKER_GAP.match(sentence, groups[-1][1]) if groups else None
        if groups and gap is not None and gap.end() == marker.start():
            start, _, earlier = groups[-1]
            earlier.extend(numbers)
            groups[-1] = (start, marker.end(), earlier)
        else:
            groups.append((marker.start(), marker.end(), numbers))
    return groups


def _without_markers(text: str) -> str:
    """``text`` without citation markers, spaces collapsed, stripped of spaces and joining
    punctuation at either end."""
    return " ".join(_MARKER_AND_SPACE.sub("", text).split()).strip(_EDGES)
