"""The app's one text input: :class:`SafeInput` keeps control characters out of what is typed or pasted.

A paste can carry terminal escape sequences (``ESC c`` resets many terminals) and line breaks; an
``Input`` that kept them would write them back to the terminal when it draws its value. Every text
field of the app is a :class:`SafeInput` (which also applies keys typed in one burst in order).
"""

from __future__ import annotations

from textual import events

from websearch_tui.core.text import single_line
from websearch_tui.tui.patches.ordered_input import OrderedInput


class SafeInput(OrderedInput):
    """An :class:`~textual.widgets.Input` whose every insertion (typed keys, pastes, edits) passes
    :func:`~websearch_tui.core.text.single_line` first, and whose editing keys act in the order they were typed
    (:class:`~websearch_tui.tui.patches.ordered_input.OrderedInput`)."""

    def replace(self, text: str, start: int, end: int) -> None:
        """Replace ``start:end`` with ``text`` made :func:`~websearch_tui.core.text.single_line` (Textual
        routes every edit here)."""
        super().replace(single_line(text), start, end)

    def on_paste(self, event: events.Paste) -> None:
        """A paste of several lines is one line, its line breaks turned into spaces (Textual's
        ``Input`` keeps only the first line, so a pasted question lost the rest of it)."""
        event.prevent_default()  # not the base classes' handlers: Input's first-line-only paste as well
        event.stop()
        if event.text:
            start, end = sorted(self.selection)
            self.replace(event.text, start, end)
            self.cursor_position = start + len(single_line(event.text))
