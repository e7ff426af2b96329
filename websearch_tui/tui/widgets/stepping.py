"""Keyboard stepping between sibling items of one list (sources, related questions), and focus
safety when such items are removed."""

from __future__ import annotations

from collections.abc import Sequence

from textual.containers import ScrollableContainer
from textual.widget import Widget


def release_focus(leaving: Sequence[Widget], owner: Widget) -> None:
    """Before ``leaving`` widgets are removed, move focus off them to the scrolling body around ``owner``.

    Without this, removing the focused item while its neighbours are removed too can leave focus on
    a detached widget, and then no key reaches any binding.
    """
    focused = owner.screen.focused if owner.is_attached else None
    if focused is None or not any(focused is w or w in focused.ancestors for w in leaving):
        return
    for ancestor in owner.ancestors:
        if isinstance(ancestor, ScrollableContainer) and ancestor.can_focus:
            ancestor.focus(scroll_visible=False)
            return
    owner.screen.set_focus(None)


class SiblingStepper(Widget):
    """A focusable list item whose ``step`` action moves focus to the previous/next item of its kind."""

    def action_step(self, delta: int) -> None:
        """Focus the sibling ``delta`` places away (same class), if there is one."""
        kind = type(self)
        siblings = [item for item in self.parent.children if isinstance(item, kind)] if self.parent else []
        position = siblings.index(self) + delta if self in siblings else -1
        if 0 <= position < len(siblings):
            siblings[position].focus()
