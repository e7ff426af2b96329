"""Fitting text to a column of terminal cells, shared by the front ends (the TUI's History screen
and ``websearch-tui history list`` shorten a long provider list the same way)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


def cell_width(text: str) -> int:
    """The terminal cells ``text`` takes: a wide or fullwidth East Asian character 2, a combining
    mark or format character 0, any other character 1."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def fit_labels(labels: Sequence[str], cells: int) -> str:
    """As many of ``labels`` as fit in ``cells`` cells, then ``+N`` for the rest:
    ``"DuckDuckGo, Exa +4"``; ``"6 providers"`` when not even the first one fits."""
    for shown in range(len(labels), 0, -1):
        rest = len(labels) - shown
        text = ", ".join(labels[:shown]) + (f" +{rest}" if rest else "")
        if cell_width(text) <= cells:
            return text
    return f"{len(labels)} providers"
