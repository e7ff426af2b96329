"""A list of rows drawn with Textual's Line API: one widget for every row of a pane's list (its sources,
its citations, its related questions), with a cursor.

Each row is a :class:`~textual.content.Content` (sanitized provider text, never parsed as markup) of
one or more lines. :class:`LineList` wraps the rows at its width and draws only the lines Textual
asks for (``render_line``), so ten sources cost one widget in layout and compositing, not ten. The
list is one focus stop: Up / Down move its cursor (see :meth:`LineList.action_step`), the cursor row
is highlighted while the list has focus (component class ``line-list--cursor``) and the row under
the mouse with ``line-list--hover``; a click puts the cursor on the clicked row. Text can be selected
with the mouse.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from textual import events
from textual.containers import ScrollableContainer
from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from websearch_tui.tui.common.line_widget import LineWidget, draw_line
from websearch_tui.tui.patches.wrap_count import wrapped_line_count

CURSOR = "line-list--cursor"
HOVER = "line-list--hover"


def wrapped_height(content: Content, width: int) -> int:
    """Lines ``content`` takes wrapped at ``width`` cells, as Textual wraps a ``Static``'s content (at
    spaces, a word longer than the width folded), counted on the plain text: the same number as
    ``Content.get_height`` gives, without building a ``Content`` for every line (text with tabs,
    which Textual expands first, is measured by ``Content.get_height`` itself)."""
    text = content.plain
    counted = wrapped_line_count(text, width) if "\t" not in text and width > 0 else None
    return content.get_height({}, width) if counted is None else counted


@dataclass
class _Layout:
    """The rows laid out at ``width``: row ``i`` takes ``heights[i]`` lines from line ``starts[i]``,
    then ``gap`` blank lines. ``lines`` holds the wrapped lines of the rows drawn so far (a row is
    wrapped when a line of it is first drawn), ``strips`` the lines drawn so far, by line and by the
    component classes they were drawn with."""

    width: int
    gap: int
    starts: list[int]
    heights: list[int]
    lines: dict[int, list[Content]] = field(default_factory=dict)
    strips: dict[tuple[int, tuple[str, ...]], Strip] = field(default_factory=dict)

    @property
    def height(self) -> int:
        """Lines of all rows, gaps included."""
        return self.starts[-1] + self.heights[-1] + self.gap if self.starts else 0

    def row_at(self, y: int) -> int | None:
        """The row drawn on line ``y``; None on a gap line or outside the rows."""
        index = bisect.bisect_right(self.starts, y) - 1
        if index < 0 or y >= self.starts[index] + self.heights[index]:
            return None
        return index

    def region(self, index: int) -> Region:
        """The lines of row ``index`` and the gap below it (as Textual's margin is kept in view)."""
        return Region(0, self.starts[index], self.width, self.heights[index] + self.gap)


class LineList(LineWidget, can_focus=True):
    """Rows of :class:`Content`, drawn line by line, with a cursor (see the module docstring).

    Subclasses bind keys to :meth:`action_step` and say with :attr:`GAP` how many blank lines
    follow each row; :meth:`row_clicked` is their hook for a click.
    """

    COMPONENT_CLASSES = {CURSOR, HOVER}
    """``line-list--cursor``: the cursor row while the list has focus; ``line-list--hover``: the row under the mouse."""

    DEFAULT_CSS = """
    LineList { height: auto; }
    """

    GAP = 0
    """Blank lines below each row."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[Content] = []
        self._cursor = 0
        self._hover: int | None = None
        self._layout: _Layout | None = None

    @property
    def rows(self) -> list[Content]:
        """The rows shown, in order."""
        return list(self._rows)

    @property
    def cursor(self) -> int:
        """The index of the cursor row (0 when there are no rows)."""
        return self._cursor

    def set_rows(self, rows: Sequence[Content]) -> None:
        """Show ``rows``; the cursor keeps its index (moved up to the last row when there are fewer).
        An emptied list gives its focus to the pane around it."""
        self._rows = list(rows)
        self._cursor = max(0, min(self._cursor, len(self._rows) - 1))
        self._hover = None
        self._layout = None
        if not self._rows:
            self._give_up_focus()
        self.refresh(layout=True)

    def move_cursor(self, index: int) -> None:
        """Put the cursor on row ``index`` (clamped to the rows); when the row is not all in view,
        scroll it to the middle of the view (as Textual scrolls a widget that takes the focus)."""
        index = max(0, min(index, len(self._rows) - 1))
        self._set_cursor(index)
        self.call_after_refresh(self._scroll_to_row, index)

    def focus_row(self, index: int) -> None:
        """Focus the list with the cursor on row ``index`` (see :meth:`move_cursor`)."""
        self.focus(scroll_visible=False)
        self.move_cursor(index)

    def action_step(self, delta: int) -> None:
        """Move the cursor ``delta`` rows down (up when negative), if there is a row there."""
        target = self._cursor + delta
        if 0 <= target < len(self._rows):
            self.move_cursor(target)

    def row_region(self, index: int) -> Region:
        """Where row ``index`` is drawn in the list (its lines and the gap below it), at the list's width."""
        return self._laid_out(self.size.width).region(index)

    def row_clicked(self, index: int) -> None:
        """Called once a click has put the cursor on row ``index`` (nothing more happens here)."""

    # --- drawing ---------------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Lines the rows take at ``width``, a :attr:`GAP` below each."""
        return self._laid_out(width).height

    def render_line(self, y: int) -> Strip:
        """Line ``y``: part of a row (in the cursor's or the hover's style where they are), or blank."""
        layout = self._laid_out(self.line_width)
        index = layout.row_at(y)
        classes = () if index is None else self._classes_of(index)
        strip = layout.strips.get((y, classes))
        if strip is None:
            line = None if index is None else self._line_of(layout, index, y - layout.starts[index])
            strip = layout.strips[(y, classes)] = draw_line(line, layout.width, y, self.get_visual_style(*classes))
        return self.with_selection(strip, y)

    def plain_lines(self) -> Iterable[str]:
        """Every line as drawn (gap lines empty), for copying a selection."""
        layout = self._laid_out(self.size.width)
        for index in range(len(self._rows)):
            yield from (line.plain for line in self._wrapped(layout, index))
            yield from [""] * layout.gap

    def notify_style_update(self) -> None:
        """The theme, the CSS or a pseudo-class changed: draw again with the new styles."""
        super().notify_style_update()
        self._layout = None

    def _laid_out(self, width: int) -> _Layout:
        """The rows laid out at ``width`` (kept until the rows, the width or the styles change): their
        heights only, as Textual wraps a ``Static``'s content."""
        layout = self._layout
        if layout is None or layout.width != width:
            heights = [wrapped_height(row, width) for row in self._rows]
            starts = [0] * len(heights)
            for index in range(1, len(heights)):
                starts[index] = starts[index - 1] + heights[index - 1] + self.GAP
            layout = self._layout = _Layout(width, self.GAP, starts, heights)
        return layout

    def _line_of(self, layout: _Layout, index: int, offset: int) -> Content | None:
        """Line ``offset`` of row ``index`` (None past the row's last line)."""
        lines = self._wrapped(layout, index)
        return lines[offset] if offset < len(lines) else None

    def _wrapped(self, layout: _Layout, index: int) -> list[Content]:
        """The lines of row ``index`` wrapped at the layout's width (wrapped once per layout)."""
        lines = layout.lines.get(index)
        if lines is None:
            lines = layout.lines[index] = self._rows[index].wrap(layout.width) if layout.width > 0 else []
        return lines

    def _classes_of(self, index: int) -> tuple[str, ...]:
        """The component classes row ``index`` is drawn with now (the hover's over the cursor's)."""
        cursor = (CURSOR,) if index == self._cursor and self.has_focus else ()
        return cursor + ((HOVER,) if index == self._hover else ())

    def _give_up_focus(self) -> None:
        """Move the focus, if the list has it, to the scrolling body around it (a list with no rows
        has nothing to select, and may be hidden)."""
        if not self.has_focus:
            return
        for ancestor in self.ancestors:
            if isinstance(ancestor, ScrollableContainer) and ancestor.can_focus:
                ancestor.focus(scroll_visible=False)
                return
        self.screen.set_focus(None)

    def _set_cursor(self, index: int) -> None:
        if index != self._cursor:
            self._refresh_row(self._cursor)
            self._cursor = index
            self._refresh_row(index)

    def _refresh_row(self, index: int | None) -> None:
        """Draw row ``index`` again (the whole list when it is not laid out)."""
        layout = self._layout
        if layout is None:
            self.refresh()
        elif index is not None and index < len(layout.starts):
            self.refresh(layout.region(index))

    def _scroll_to_row(self, index: int) -> None:
        """Scroll the container around the list to row ``index`` (see :meth:`move_cursor`)."""
        container = self.parent
        if not isinstance(container, Widget) or not self.size.width or index >= len(self._rows):
            return
        region = self.row_region(index).translate(self.virtual_region.offset)
        view = Region(round(container.scroll_x), round(container.scroll_y), *container.scrollable_content_region.size)
        if not view.contains_region(region):
            container.scroll_to_region(region, center=True, origin_visible=True, immediate=True)

    # --- focus and mouse -------------------------------------------------------------------

    def on_focus(self) -> None:
        """Show the cursor."""
        self._refresh_row(self._cursor)

    def on_blur(self) -> None:
        """Hide the cursor."""
        self._refresh_row(self._cursor)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Highlight the row under the mouse."""
        self._set_hover(self._row_under(event))

    def on_leave(self) -> None:
        """The mouse left the list: no row is highlighted."""
        self._set_hover(None)

    def on_click(self, event: events.Click) -> None:
        """Put the cursor on the clicked row, then :meth:`row_clicked`."""
        index = self._row_under(event)
        if index is None:
            return
        event.stop()
        self._set_cursor(index)
        self.row_clicked(index)

    def _row_under(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        return None if offset is None else self._laid_out(self.size.width).row_at(offset.y)

    def _set_hover(self, index: int | None) -> None:
        if index != self._hover:
            self._refresh_row(self._hover)
            self._hover = index
            self._refresh_row(index)
