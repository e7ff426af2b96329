"""Keyboard stepping between sibling items of one list (sources, related questions)."""

from __future__ import annotations

from textual.widget import Widget


class SiblingStepper(Widget):
    """A focusable list item whose ``step`` action moves focus to the previous/next item of its kind."""

    def action_step(self, delta: int) -> None:
        """Focus the sibling ``delta`` places away (same class), if there is one."""
        kind = type(self)
        siblings = [item for item in self.parent.children if isinstance(item, kind)] if self.parent else []
        position = siblings.index(self) + delta if self in siblings else -1
        if 0 <= position < len(siblings):
            siblings[position].focus()
