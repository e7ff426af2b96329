"""The query box: a :class:`~websearch_tui.tui.common.safe_input.SafeInput` (sanitised, keys in typed
order) with a session history on Up/Down."""

from __future__ import annotations

from textual.binding import Binding

from websearch_tui.tui.common.safe_input import SafeInput


class QueryInput(SafeInput):
    """Single-line query input; Up/Down walk the queries searched in this session."""

    BINDINGS = [
        Binding("up", "history(-1)", "Previous query", show=False, id="history-previous"),
        Binding("down", "history(1)", "Next query", show=False, id="history-next"),
    ]

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self.history: list[str] = []
        self._position: int | None = None
        self._draft = ""

    def remember(self, query: str) -> None:
        """Add ``query`` to the history (consecutive duplicates are kept once)."""
        if query and (not self.history or self.history[-1] != query):
            self.history.append(query)
        self._position = None

    def action_history(self, delta: int) -> None:
        """Show the previous (-1) or next (+1) query, skipping queries equal to the text in the box (so
        the first Up after a search shows the one before it); past the newest, restore the draft."""
        if not self.history:
            return
        if self._position is None:
            if delta > 0:
                return
            self._draft = self.value
            position = len(self.history) + delta
        else:
            position = self._position + delta
        while 0 <= position < len(self.history) and self.history[position] == self.value:
            position += delta
        if position < 0:
            return  # no older query: stay where it is
        if position >= len(self.history):
            self._position = None
            self.value = self._draft
        else:
            self._position = position
            self.value = self.history[position]
        self.cursor_position = len(self.value)
