"""Untrusted text on the TUI's screen: every provider string reaches it through here.

Provider text is sanitized with :func:`websearch_tui.core.text.sanitize` (escape sequences, control
and invisible characters removed), the few characters Rich and terminals measure differently are
written as both measure them (:func:`terminal_text`), and it is wrapped in
:class:`textual.content.Content`, which is never parsed as markup. Opening and copying links is
:mod:`websearch_tui.tui.common.links`.
"""

from __future__ import annotations

import re

from textual.content import Content

from websearch_tui.core.text import sanitize, truncate

_WHITESPACE = re.compile(r"\s+")

TERMINAL_WIDTHS: dict[int, int | None] = {
    **{code: None for code in range(0x1F3FB, 0x1F400)},
    **{code: ord("A") + code - 0x1F1E6 for code in range(0x1F1E6, 0x1F200)},
}
"""What :func:`terminal_text` writes for the characters (left after
:func:`~websearch_tui.core.text.sanitize`) whose width Rich and terminals disagree on, each as wide to
Rich as the character it stands for, so a layout Rich measured still holds: the emoji skin-tone
modifiers (0 cells to Rich, 2 to wcwidth-style tables) are dropped and a regional indicator (1 cell to
Rich and glibc, 2 to wcwidth; a pair is one flag in some terminals) becomes its ASCII letter (a flag reads
``US``). ``tests/unit/test_text_hygiene.py`` checks every code point against Rich and wcwidth."""


def terminal_text(text: str) -> str:
    """``text`` with the characters of :data:`TERMINAL_WIDTHS` written as it says: as wide to Rich as
    before, and now as wide in the terminal. One C pass (none for ASCII)."""
    return text if text.isascii() else text.translate(TERMINAL_WIDTHS)


def clean(text: object, *, one_line: bool = False, limit: int | None = None) -> str:
    """Sanitize ``text`` (non-strings give ``""``) and write it as the terminal measures it
    (:func:`terminal_text`); optionally collapse whitespace and truncate."""
    value = terminal_text(sanitize(text)) if isinstance(text, str) else ""
    if one_line:
        value = _WHITESPACE.sub(" ", value).strip()
    if limit is not None:
        value = truncate(value, limit)
    return value


def plain(text: object, style: str = "", *, one_line: bool = False, limit: int | None = None) -> Content:
    """A :class:`Content` holding sanitized ``text`` verbatim, with an optional style."""
    value = clean(text, one_line=one_line, limit=limit)
    return Content.styled(value, style) if style else Content(value)
