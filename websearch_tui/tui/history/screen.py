"""The History screen (F4): every recorded search, newest first, filtered by full-text search as you
type; Enter reopens one offline, ``r`` runs it again live, Delete removes it (after asking).

The screen reads the history file through a blocking ``open_store()`` (the app's), always from a
thread. A choice goes to ``on_choice`` (the search screen) while this screen is still in front, so
the search screen is laid out and painted once, with the chosen search in it, when this one closes.
The rows are a :class:`~websearch_tui.tui.history.rows.HistoryRows` (line API: only visible
lines are drawn, each as one strip; a ``DataTable`` spent most of a keystroke rendering its cells).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Key
from textual.widgets import Input, Static

from websearch_tui.history import HistoryEntry, HistoryError, HistoryStore, StoredSearch
from websearch_tui.history.index import match_expression
from websearch_tui.tui.common.dialogs import ChoiceDialog
from websearch_tui.tui.common.keys_footer import KeysFooter
from websearch_tui.tui.common.safe_input import SafeInput
from websearch_tui.tui.common.screen import AppScreen
from websearch_tui.tui.history.rows import HistoryRows

LIST_LIMIT = 100
"""The most rows listed; typing searches all of the history."""


@dataclass(frozen=True)
class HistoryChoice:
    """What the user chose: ``action`` is ``"reopen"`` (show it as it ended, offline) or ``"rerun"``
    (search it again live), ``stored`` the search."""

    action: str
    stored: StoredSearch


class HistoryTable(HistoryRows):
    """The rows of this screen: ``r`` re-runs, Delete removes, ``/`` goes back to the filter, and other
    typed characters go to the filter (so typing always filters)."""

    BINDINGS = [
        Binding("r", "screen.choose('rerun')", "Re-run", id="history-rerun", tooltip="Search it again, live"),
        Binding("delete", "screen.delete", "Delete", id="history-delete", tooltip="Remove it from the history"),
        Binding("slash", "screen.focus_filter", "Filter", id="history-filter", tooltip="Back to the filter"),
    ]

    def on_key(self, event: Key) -> None:
        """Send a typed character that is not a binding to the filter."""
        if event.is_printable and event.character and event.character not in ("r", "/"):
            event.stop()
            event.prevent_default()
            box = self.screen.query_one("#history-filter", Input)
            box.insert_text_at_cursor(event.character)
            box.focus()


class HistoryScreen(AppScreen[None]):
    """Browse, filter, reopen, re-run and delete recorded searches.

    Args:
        open_store: blocking; returns the history store (called in a thread, may raise
            :class:`~websearch_tui.history.HistoryError`).
        on_choice: shows or re-runs the chosen search (awaited before this screen closes).
    """

    BINDINGS = [
        Binding("escape", "close", "Back", id="history-close", tooltip="Back to the search screen"),
        Binding("enter", "choose('reopen')", "Reopen", id="history-reopen", tooltip="Show it as it ended, offline"),
        Binding("ctrl+r", "choose('rerun')", "Re-run", show=False, id="history-rerun-anywhere"),
        Binding("down", "move(1)", "Next", show=False, id="history-list-next"),  # not the query box's history-next
        Binding("up", "move(-1)", "Previous", show=False, id="history-list-previous"),
    ]

    DEFAULT_CSS = """
    HistoryScreen { layout: vertical; }
    HistoryScreen #history-title { height: 1; padding: 0 1; text-style: bold; }
    HistoryScreen #history-status { height: auto; padding: 0 1; color: $text-muted; }
    HistoryScreen #history-list { height: 1fr; }
    """

    def __init__(
        self, open_store: Callable[[], HistoryStore], on_choice: Callable[[HistoryChoice], Awaitable[None]]
    ) -> None:
        super().__init__()
        self._open_store = open_store
        self._on_choice = on_choice

    def compose(self) -> ComposeResult:
        """Title, filter, status line, the rows and the footer."""
        yield Static("History", id="history-title", markup=False)
        yield SafeInput(
            placeholder="Type to search queries, answers, sources and URLs…",
            id="history-filter",
            select_on_focus=False,
            validate_on=(),  # nothing to validate: Textual would restyle the box on the Enter that reopens
        )
        yield Static("Loading…", id="history-status", markup=False)
        yield HistoryTable(id="history-list")
        yield KeysFooter()

    def on_mount(self) -> None:
        """Focus the filter and list the newest searches."""
        self.filter_input.focus()
        self._load("")

    @property
    def filter_input(self) -> Input:
        """The filter box."""
        return self.query_one("#history-filter", Input)

    @property
    def rows(self) -> HistoryTable:
        """The rows."""
        return self.query_one(HistoryTable)

    @property
    def selected(self) -> HistoryEntry | None:
        """The search under the cursor, if any."""
        return self.rows.selected

    def set_status(self, text: str) -> None:
        """Show one plain line above the rows."""
        self.query_one("#history-status", Static).update(text)

    # --- listing ----------------------------------------------------------------------

    @on(Input.Changed, "#history-filter")
    def _on_filter(self, event: Input.Changed) -> None:
        event.stop()
        self._load(event.value)

    @work(exclusive=True, group="history-load", exit_on_error=False, description="history list")
    async def _load(self, text: str) -> None:
        """List the newest searches, or those matching ``text`` (newest first), off the event loop."""
        try:
            entries, total, full_text, notice = await asyncio.to_thread(self._fetch, text)
        except HistoryError as exc:
            self.rows.set_entries([])
            self.set_status(str(exc))
            return
        self._tell(notice)
        self.rows.set_entries(entries)
        self.set_status(_status_text(text, len(entries), total, full_text))

    def _fetch(self, text: str) -> tuple[list[HistoryEntry], int, bool, str | None]:
        """Blocking: ``(rows, how many are stored (-1: not counted, a filter is typed), whether
        full-text search works, a notice)``."""
        store = self._open_store()
        if match_expression(text) is None:
            entries, total = store.entries(limit=LIST_LIMIT), store.count()
        else:
            entries, total = store.search(text, limit=LIST_LIMIT, best_first=False), -1
        return entries, total, store.full_text, store.take_notice()

    def _tell(self, notice: str | None) -> None:
        """Show what the history had to repair or set aside (a rebuilt index, a file moved aside)."""
        if notice:
            self.notify(notice, title="History", severity="warning", markup=False, timeout=10)

    def _get(self, entry_id: int) -> tuple[StoredSearch, str | None]:
        """Blocking: the stored search ``entry_id`` and the history's notice, if any."""
        store = self._open_store()
        return store.get(entry_id), store.take_notice()

    def _remove(self, entry_id: int) -> str | None:
        """Blocking: delete the search ``entry_id``; the history's notice, if any."""
        store = self._open_store()
        store.delete(entry_id)
        return store.take_notice()

    # --- actions ----------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        """Up/Down in the filter move the cursor in the rows."""
        self.rows.action_move(step)

    def action_focus_filter(self) -> None:
        """Back to the filter box."""
        self.filter_input.focus()

    def action_close(self) -> None:
        """Back to the search screen, choosing nothing."""
        self.dismiss(None)

    @on(HistoryRows.Chosen, "#history-list")
    def _on_chosen(self, event: HistoryRows.Chosen) -> None:
        event.stop()
        self.action_choose("reopen")

    @on(Input.Submitted, "#history-filter")
    def _on_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose("reopen")

    def action_choose(self, action: str) -> None:
        """Read the search under the cursor and hand it over (``"reopen"`` or ``"rerun"``)."""
        entry = self.selected
        if entry is None:
            self.notify("No search selected.", severity="warning", markup=False)
            return
        self._read(action, entry.id)

    @work(exclusive=True, group="history-read", exit_on_error=False, description="history read")
    async def _read(self, action: str, entry_id: int) -> None:
        """Read the search, hand it to ``on_choice`` while this screen is still in front, then close."""
        try:
            stored, notice = await asyncio.to_thread(self._get, entry_id)
        except HistoryError as exc:
            self.notify(str(exc), title="History", severity="error", markup=False, timeout=10)
            return
        self._tell(notice)
        await self._on_choice(HistoryChoice(action, stored))
        self.dismiss(None)

    def action_delete(self) -> None:
        """Ask, then remove the search under the cursor from the history."""
        entry = self.selected
        if entry is None:
            return
        when = entry.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
        dialog = ChoiceDialog(
            "Delete this search from the history?",
            f"{entry.query}\n{when}",
            [("Delete", "delete", "error"), ("Keep", "keep", "primary")],
        )

        def answered(choice: str | None) -> None:
            if choice == "delete":
                self._delete(entry.id)

        self.app.push_screen(dialog, answered)

    @work(group="history-delete", exit_on_error=False, description="history delete")
    async def _delete(self, entry_id: int) -> None:
        try:
            notice = await asyncio.to_thread(self._remove, entry_id)
        except HistoryError as exc:
            self.notify(str(exc), title="History", severity="error", markup=False, timeout=10)
            return
        self._tell(notice)
        self.rows.drop(entry_id)
        self.notify("Deleted from the history.", markup=False, timeout=3)


def _status_text(text: str, shown: int, total: int, full_text: bool) -> str:
    """The line above the rows: how many are stored or match, and what the keys do."""
    keys = "Enter reopens · r re-runs · Delete removes · Esc back"
    if total == 0:
        return "No searches recorded yet: every search you run is kept here."
    if total > 0:
        more = f", the newest {shown} listed (type to search them all)" if shown < total else ""
        return f"{total:,} search{'es' if total != 1 else ''}, newest first{more} · {keys}"
    where = "queries, answers and sources" if full_text else "queries only (this SQLite has no full-text search)"
    found = f"{shown}{'+' if shown == LIST_LIMIT else ''} matching" if shown else "No search matching"
    return f"{found} in {where}, newest first · {keys}"
