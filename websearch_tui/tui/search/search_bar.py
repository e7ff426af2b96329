"""The search bar: the query box and the mode, recency and count boxes of the search screen.

It holds the controls of the next search and nothing else: the screen asks it for them
(:meth:`SearchBar.controls`), sets them to a past search's (:meth:`SearchBar.show_request`) and
tells it the window's width (:meth:`SearchBar.compact`). A change of a box is Textual's
``Select.Changed``, which bubbles to the screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Select

from websearch_tui.core.models import MAX_RESULTS_LIMIT, SearchRequest
from websearch_tui.tui.common.remembered import Controls
from websearch_tui.tui.search.query_input import QueryInput

if TYPE_CHECKING:
    from websearch_tui.settings.config import SearchSettings

T = TypeVar("T")

RECENCY_OPTIONS = [
    ("any time", "any"),
    ("past day", "day"),
    ("past week", "week"),
    ("past month", "month"),
    ("past year", "year"),
]
MODE_OPTIONS = [("compare", "compare"), ("auto", "auto")]
COUNT_OPTIONS = [(f"{n} result{'s' if n != 1 else ''}", n) for n in range(1, MAX_RESULTS_LIMIT + 1)]
COMPACT_RECENCY_OPTIONS = [("any", "any"), ("day", "day"), ("week", "week"), ("month", "month"), ("year", "year")]
COMPACT_COUNT_OPTIONS = [(str(n), n) for n in range(1, MAX_RESULTS_LIMIT + 1)]
COMPACT_WIDTH = 100
"""Below this many columns the recency and count boxes show short labels (``week``, ``10``), so the
query box keeps room for a question."""
SELECT_CHROME = 6
"""Columns a search-bar Select takes besides its label: border (2), padding (2) and the arrow (2)."""


class SearchBar(Horizontal):
    """The query box, then the mode, recency and count boxes, set to ``controls``.

    Args:
        controls: the controls to start with (providers are the provider list's, not used here).
        compact: short labels in the recency and count boxes (a window narrower than
            :data:`COMPACT_WIDTH` columns).
    """

    def __init__(self, controls: Controls, *, compact: bool, id: str | None = None) -> None:
        super().__init__(id=id)
        self._start = controls
        self._compact = compact

    def compose(self) -> ComposeResult:
        """The query box and the three boxes, each just wide enough for its longest label."""
        controls = self._start
        recency = controls.recency if controls.recency in {v for _, v in RECENCY_OPTIONS} else "any"
        count = min(max(int(controls.max_results), 1), MAX_RESULTS_LIMIT)
        mode = controls.mode if controls.mode in ("compare", "auto") else "compare"
        compact = self._compact
        yield QueryInput(placeholder="Ask the web anything…", id="query")
        yield _control(MODE_OPTIONS, mode, id="mode", tooltip="Search mode")
        yield _control(
            COMPACT_RECENCY_OPTIONS if compact else RECENCY_OPTIONS, recency, id="recency", tooltip="Recency"
        )
        yield _control(
            COMPACT_COUNT_OPTIONS if compact else COUNT_OPTIONS, count, id="count", tooltip="Results per provider"
        )

    def controls(self) -> tuple[str, str | None, int]:
        """``(mode, recency or None for any time, results per provider)`` as the boxes show them."""
        mode, recency, count = (self.query_one(f"#{name}", Select).value for name in ("mode", "recency", "count"))
        return (
            mode if isinstance(mode, str) else "compare",
            recency if isinstance(recency, str) and recency != "any" else None,
            count if isinstance(count, int) else 10,
        )

    def show_request(self, request: SearchRequest) -> None:
        """Set the boxes to ``request``'s mode, recency and count (the caller prevents ``Select.Changed``)."""
        self.query_one("#mode", Select).value = request.mode
        self.query_one("#recency", Select).value = request.recency or "any"
        self.query_one("#count", Select).value = min(max(request.max_results, 1), MAX_RESULTS_LIMIT)

    def follow_config(self, old: SearchSettings, new: SearchSettings) -> None:
        """Newly saved ``[search]`` defaults: each box whose default changed shows the new one."""
        if new.mode != old.mode:
            self.query_one("#mode", Select).value = new.mode
        if new.recency != old.recency:
            self.query_one("#recency", Select).value = new.recency or "any"
        if new.max_results != old.max_results:
            self.query_one("#count", Select).value = min(max(new.max_results, 1), MAX_RESULTS_LIMIT)

    def compact(self, compact: bool) -> None:
        """Short labels in the recency and count boxes (``week``, ``10``), or the full ones; the values
        stay (no change is reported)."""
        if compact == self._compact:
            return
        self._compact = compact
        with self.prevent(Select.Changed):
            _relabel(self.query_one("#recency", Select), COMPACT_RECENCY_OPTIONS if compact else RECENCY_OPTIONS)
            _relabel(self.query_one("#count", Select), COMPACT_COUNT_OPTIONS if compact else COUNT_OPTIONS)


def _control(options: list[tuple[str, T]], value: T, *, id: str, tooltip: str) -> Select[T]:
    """A search-bar Select just wide enough for its longest option on one line."""
    width = max(cell_len(label) for label, _ in options) + SELECT_CHROME
    return Select(options, value=value, allow_blank=False, id=id, tooltip=tooltip).set_styles(f"width: {width};")


def _relabel(select: Select[T], options: list[tuple[str, T]]) -> None:
    """Give ``select`` other labels for the same values (its value kept) and fit its width to them."""
    value = select.value
    select.set_options(options)
    select.value = value
    select.styles.width = max(cell_len(label) for label, _ in options) + SELECT_CHROME
