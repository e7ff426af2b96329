"""The rows of the History screen: one line per stored search, rendered line by line (Textual's line
API), so showing a new list of rows costs the same for 20 rows or 2,000 and only visible lines are
ever drawn.

Each row is when (local time), the query, the providers and how each ended, in columns fitted to
the width (wide CJK characters counted as two cells). Every cell is plain, sanitized text.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import set_cell_size
from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from websearch_tui.core.columns import fit_labels
from websearch_tui.history import HistoryEntry
from websearch_tui.tui.common.safe import clean

WHEN_CELLS = 16
PROVIDERS_CELLS = 34
OUTCOMES_CELLS = 26


def row_texts(entry: HistoryEntry) -> tuple[str, str, str, str]:
    """``(when, query, providers, outcomes)`` of a row: local start time, the query on one line, the
    provider labels that fit their column (then ``+N``), and the non-zero status counts."""
    labels = [clean(entry.label(pid), one_line=True) for pid in entry.providers]
    counts = " · ".join(f"{count} {status.value}" for status, count in entry.counts().items() if count)
    when = entry.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
    return when, clean(entry.query, one_line=True, limit=500), fit_labels(labels, PROVIDERS_CELLS), counts


class HistoryRows(ScrollView, can_focus=True):
    """Stored searches, one per line, with a cursor.

    Up/Down, PageUp/PageDown, Home/End move the cursor; Enter or a click on the cursor's row posts
    :class:`Chosen`. :attr:`entries` is what is shown, :attr:`cursor` the cursor's index.
    """

    BINDINGS = [
        Binding("up", "move(-1)", "Previous", show=False, id="history-rows-previous"),
        Binding("down", "move(1)", "Next", show=False, id="history-rows-next"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="history-rows-page-up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="history-rows-page-down"),
        Binding("home", "jump(0)", "First", show=False, id="history-rows-first"),
        Binding("end", "jump(-1)", "Last", show=False, id="history-rows-last"),
        Binding("enter", "choose", "Reopen", show=False, id="history-rows-reopen"),
    ]

    COMPONENT_CLASSES = {"history-rows--cursor", "history-rows--dim", "history-rows--query"}
    DEFAULT_CSS = """
    HistoryRows { background: $surface; }
    HistoryRows > .history-rows--cursor { background: $primary 30%; }
    HistoryRows:focus > .history-rows--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    HistoryRows > .history-rows--dim { color: $text-muted; }
    HistoryRows > .history-rows--query { text-style: bold; }
    """

    class Chosen(Message):
        """Enter (or a click) on the row of ``entry``; ``rows`` is the widget it came from."""

        def __init__(self, rows: HistoryRows, entry: HistoryEntry) -> None:
            super().__init__()
            self.rows = rows
            self.entry = entry

        @property
        def control(self) -> HistoryRows:
            """The rows (so ``@on(HistoryRows.Chosen, "#id")`` can match)."""
            return self.rows

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[HistoryEntry] = []
        self.cursor = 0
        self._texts: dict[int, tuple[str, str, str, str]] = {}

    @property
    def selected(self) -> HistoryEntry | None:
        """The entry under the cursor, if any."""
        return self.entries[self.cursor] if self.entries else None

    def set_entries(self, entries: Sequence[HistoryEntry]) -> None:
        """Show ``entries`` (in order), the cursor on the first."""
        self.entries = list(entries)
        self._texts = {entry.id: self._texts.get(entry.id) or row_texts(entry) for entry in self.entries}
        self.cursor = 0
        self.virtual_size = Size(self.size.width, len(self.entries))
        self.scroll_home(animate=False, immediate=True)
        self.refresh()

    def drop(self, entry_id: int) -> None:
        """Take the row of ``entry_id`` away (the cursor stays at the same index when it can)."""
        self.entries = [entry for entry in self.entries if entry.id != entry_id]
        self.cursor = min(self.cursor, max(0, len(self.entries) - 1))
        self.virtual_size = Size(self.size.width, len(self.entries))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the view: a row, or blank below the last one."""
        index = int(self.scroll_offset.y) + y
        width = self.size.width
        if not 0 <= index < len(self.entries):
            return Strip.blank(width, self.rich_style)
        return self._row(index, width)

    def _row(self, index: int, width: int) -> Strip:
        when, query, providers, outcomes = self._texts[self.entries[index].id]
        base = self.rich_style
        if index == self.cursor:
            base += self.get_component_rich_style("history-rows--cursor", partial=True)
        dim = base + self.get_component_rich_style("history-rows--dim", partial=True)
        bold = base + self.get_component_rich_style("history-rows--query", partial=True)
        query_cells = max(10, width - WHEN_CELLS - PROVIDERS_CELLS - OUTCOMES_CELLS - 5)
        cells = [(when, WHEN_CELLS, dim), (query, query_cells, bold), (providers, PROVIDERS_CELLS, base)]
        segments = [Segment(" ", base)]
        for text, size, style in [*cells, (outcomes, OUTCOMES_CELLS, dim)]:
            segments += [Segment(set_cell_size(text, size), style), Segment(" ", base)]
        return Strip(segments).crop_extend(0, width, base)

    # --- moving ---------------------------------------------------------------------

    def _move_to(self, index: int) -> None:
        if not self.entries:
            return
        old, self.cursor = self.cursor, max(0, min(index, len(self.entries) - 1))
        self.scroll_to_region(Region(0, self.cursor, 1, 1), animate=False, immediate=True)
        for row in (old, self.cursor):
            self.refresh_line(row - int(self.scroll_offset.y))

    def refresh_line(self, y: int) -> None:
        """Repaint line ``y`` of the view (when it is visible)."""
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def action_move(self, step: int) -> None:
        """Move the cursor ``step`` rows."""
        self._move_to(self.cursor + step)

    def action_page(self, step: int) -> None:
        """Move the cursor a page up (-1) or down (1)."""
        self._move_to(self.cursor + step * max(1, self.size.height - 1))

    def action_jump(self, index: int) -> None:
        """Move the cursor to the first (0) or last (-1) row."""
        self._move_to(index if index >= 0 else len(self.entries) - 1)

    def action_choose(self) -> None:
        """Post :class:`Chosen` for the row under the cursor."""
        if self.selected is not None:
            self.post_message(self.Chosen(self, self.selected))

    def on_click(self, event: events.Click) -> None:
        """A click moves the cursor to that row; a click on the cursor's row chooses it."""
        index = int(self.scroll_offset.y) + event.y
        if not 0 <= index < len(self.entries):
            return
        if index == self.cursor:
            self.action_choose()
        else:
            self._move_to(index)

    def on_resize(self) -> None:
        """Keep the virtual width in step with the widget."""
        self.virtual_size = Size(self.size.width, len(self.entries))
