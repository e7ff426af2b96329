"""Untrusted text on the TUI's screen: every provider string reaches it through here.

Provider text is sanitized with :func:`websearch_tui.core.text.sanitize` (escape sequences and
control characters removed) and wrapped in :class:`textual.content.Content`, which is never
parsed as markup. Opening and copying links is :mod:`websearch_tui.tui.common.links`.
"""

from __future__ import annotations

import re

from textual.content import Content

from websearch_tui.core.text import sanitize, truncate

_WHITESPACE = re.compile(r"\s+")


def clean(text: object, *, one_line: bool = False, limit: int | None = None) -> str:
    """Sanitize ``text`` (non-strings give ``""``); optionally collapse whitespace and truncate."""
    value = sanitize(text) if isinstance(text, str) else ""
    if one_line:
        value = _WHITESPACE.sub(" ", value).strip()
    if limit is not None:
        value = truncate(value, limit)
    return value


def plain(text: object, style: str = "", *, one_line: bool = False, limit: int | None = None) -> Content:
    """A :class:`Content` holding sanitized ``text`` verbatim, with an optional style."""
    value = clean(text, one_line=one_line, limit=limit)
    return Content.styled(value, style) if style else Content(value)
