"""A :class:`SelectionList` whose check boxes differ in their text, not only in colour.

Textual draws the same ``X`` in a selected and an unselected box and tells them apart by colour
alone, so with ``NO_COLOR``, a monochrome terminal or some themes they look the same.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.option_list import OptionDoesNotExist

from websearch_tui.tui.common.provider_rows import SELECTED_MARK, UNSELECTED_MARK


class MarkedSelectionList(SelectionList[str]):
    """A selection list of string values drawing :data:`SELECTED_MARK` or :data:`UNSELECTED_MARK`
    in each check box."""

    def render_line(self, y: int) -> Strip:
        """Textual's line, with the mark of the item's state in its check box."""
        line = super().render_line(y)
        try:
            value = self.get_option_at_index(self.scroll_offset.y + y).value
        except OptionDoesNotExist:
            return line
        segments = list(line)
        box = segments[1]
        mark = SELECTED_MARK if value in self.selected else UNSELECTED_MARK
        segments[1] = Segment(mark, box.style, box.control)
        return Strip(segments, line.cell_length)
