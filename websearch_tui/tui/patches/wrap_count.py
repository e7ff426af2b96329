"""Counting the lines a plain text takes when Textual wraps it, without building it as ``Content``.

Textual's ``Content`` wraps text with Rich's ``divide_line`` (from the private module ``rich._wrap``:
break at spaces, fold a word longer than the width); :func:`wrapped_line_count` calls it on the plain
text directly, so a list measures its rows without building a ``Content`` for each of their lines.
Rich has no public function for it; no Rich issue asking for one was found.

``divide_line`` and its ``(text, width, fold)`` signature are checked when first used; when either is
missing, :func:`wrapped_line_count` answers None (the caller measures with ``Content.get_height``,
Textual's own way) and a warning is logged once.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable

from websearch_tui.core.internals import fall_back

log = logging.getLogger(__name__)

PATCH = "Counting wrapped lines with rich._wrap.divide_line"
PARAMETERS = ["text", "width", "fold"]

try:
    from rich._wrap import divide_line
except ImportError:  # not in the Rich the pinned Textual runs on
    divide_line = None  # type: ignore[assignment]


def wrapped_line_count(text: str, width: int) -> int | None:
    """Lines ``text`` (without tabs; ``width`` > 0 cells) takes wrapped as Textual's ``Content`` wraps
    it at ``width``: each of its lines at least one. None when Rich's ``divide_line`` cannot be used."""
    problem = _problem(divide_line)
    if problem:
        fall_back(log, PATCH, problem)
        return None
    return sum(len(divide_line(line, width, fold=True)) + 1 for line in text.split("\n"))


@functools.cache
def _problem(divide: Callable[..., list[int]] | None) -> str:
    """Why ``divide`` (Rich's ``divide_line`` as found) cannot be used ("" when it can)."""
    if divide is None:
        return "no rich._wrap.divide_line"
    if list(inspect.signature(divide).parameters) != PARAMETERS:
        return f"rich._wrap.divide_line no longer takes ({', '.join(PARAMETERS)})"
    return ""
