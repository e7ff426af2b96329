"""Untrusted-text helpers for the TUI: every provider string reaches the screen through here.

Provider text is sanitized with :func:`websearch_tui.core.text.sanitize` (escape sequences and
control characters removed) and wrapped in :class:`textual.content.Content`, which is never
parsed as markup. URLs are only opened or copied after :func:`websearch_tui.core.text.safe_url`
accepts them (absolute http/https).
"""

from __future__ import annotations

import re

from textual.app import App
from textual.content import Content

from websearch_tui.core.text import safe_url, sanitize, truncate

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


def open_url_safely(app: App[object], url: object) -> bool:
    """Open ``url`` with ``app.open_url`` if it is http(s); otherwise warn. Returns True if opened."""
    checked = safe_url(url)
    if checked is None:
        app.notify("Refused to open a link that is not http(s).", severity="warning", markup=False)
        return False
    app.open_url(checked)
    app.notify(f"Opening {truncate(checked, 80)} in the browser…", markup=False, timeout=3)
    return True


def copy_url_safely(app: App[object], url: object) -> bool:
    """Copy ``url`` to the clipboard if it is http(s); otherwise warn. Returns True if copied."""
    checked = safe_url(url)
    if checked is None:
        app.notify("Refused to copy a link that is not http(s).", severity="warning", markup=False)
        return False
    app.copy_to_clipboard(checked)
    app.notify(f"Copied {truncate(checked, 80)}", markup=False, timeout=2)
    return True
