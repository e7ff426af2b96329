"""This session's searches in the order they were shown, for going back and forward without
searching again (like a browser's history of one tab)."""

from __future__ import annotations

from datetime import datetime

from websearch_tui.core.records import record
from websearch_tui.core.results import SearchResult

TRAIL_LIMIT = 100
"""The most searches the trail keeps (the oldest are dropped)."""


@record(frozen=True)
class Shown:
    """A search the screen showed.

    ``result`` is the engine's (filled in as it ran; complete once it ended) or one read from the
    history; ``started_at`` is when it started (UTC); ``from_history`` marks one reopened from the
    history file.
    """

    result: SearchResult
    started_at: datetime
    from_history: bool = False


class SessionTrail:
    """The searches shown in this session and which one is on screen.

    :meth:`push` adds a search after the current one (dropping any that were ahead of it, as a
    browser does); :meth:`back` and :meth:`forward` move the position and return the search there,
    or ``None`` at either end.
    """

    def __init__(self, limit: int = TRAIL_LIMIT) -> None:
        self._items: list[Shown] = []
        self._position = -1
        self._limit = limit

    @property
    def current(self) -> Shown | None:
        """The search on screen, if any."""
        return self._items[self._position] if self._items else None

    @property
    def position(self) -> tuple[int, int]:
        """``(number, count)``: the current search's number (1-based) and how many there are."""
        return self._position + 1, len(self._items)

    def push(self, shown: Shown) -> None:
        """``shown`` becomes the current search, after the one that was current."""
        del self._items[self._position + 1 :]
        self._items.append(shown)
        del self._items[: max(0, len(self._items) - self._limit)]
        self._position = len(self._items) - 1

    def back(self) -> Shown | None:
        """Move to the previous search and return it (``None``, not moving, at the first)."""
        return self._move(-1)

    def forward(self) -> Shown | None:
        """Move to the next search and return it (``None``, not moving, at the last)."""
        return self._move(1)

    def _move(self, step: int) -> Shown | None:
        target = self._position + step
        if not 0 <= target < len(self._items):
            return None
        self._position = target
        return self._items[target]
