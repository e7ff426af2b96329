"""The history file as every front end reads it: opened after the searches still being written.

The engine's recorder writes ended searches from a thread of its own; a front end that lists,
searches, shows or deletes them first waits (at most :data:`HISTORY_FLUSH_SECONDS`) until what was
recorded is written, then opens the file once and keeps it open. Reading never creates the file
(keeping a page read does). Every method blocks (SQLite): call it from a thread in async code.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from websearch_tui.history import HistoryError, UnknownEntry, history_path
from websearch_tui.history.index import match_expression

if TYPE_CHECKING:
    from datetime import datetime

    from websearch_tui.core.pages import Page
    from websearch_tui.engine.engine import SearchRecorder
    from websearch_tui.history import HistoryEntry, HistoryStore, StoredSearch
    from websearch_tui.history.codec import Reused
    from websearch_tui.history.stats import StatsReport
    from websearch_tui.settings.config import Config

HISTORY_FLUSH_SECONDS = 2.0
"""How long opening the history waits for the searches the recorder is still writing."""

HISTORY_OFF = "the history is off ([history] enabled = false in the config file)"


class HistoryAccess:
    """The history file of one config: list, search, show, delete and clear, after a flush.

    Args:
        path: the history file (:func:`~websearch_tui.history.history_path` of the config's).
        enabled: ``[history] enabled``; when False every reading or deleting method raises
            :class:`HistoryError`.
        recorder: the engine's recorder, flushed before the file is first read (``None``: none).
        flush_seconds: how long to wait for the recorder, in seconds.
    """

    def __init__(
        self,
        path: Path,
        *,
        enabled: bool = True,
        recorder: SearchRecorder | None = None,
        flush_seconds: float = HISTORY_FLUSH_SECONDS,
    ) -> None:
        self.path = path
        self.enabled = enabled
        self.recorder = recorder
        self.flush_seconds = flush_seconds
        self._store: HistoryStore | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, config: Config, recorder: SearchRecorder | None = None) -> HistoryAccess:
        """The history ``config`` names (``[history] enabled`` and ``path``)."""
        return cls(history_path(config.history.path), enabled=config.history.enabled, recorder=recorder)

    def retarget(self, path: Path, *, enabled: bool, recorder: SearchRecorder | None) -> None:
        """Follow newly saved settings in place (so whoever holds this object, such as an open History
        screen, reads the new file): a changed ``path`` or ``enabled`` releases the open file (the
        next read opens the new one); the recorder is always the engine's current one. Blocking only
        while the old file closes."""
        self.recorder = recorder
        with self._lock:
            if (path, enabled) == (self.path, self.enabled):
                return
            store, self._store = self._store, None
            self.path, self.enabled = path, enabled
        if store is not None:
            store.close()

    def open(self, *, create: bool = False) -> HistoryStore | None:
        """The store, once what the recorder holds is written; ``None`` when the file does not exist
        yet and ``create`` is False.

        Raises:
            HistoryError: the history is off, or the file cannot be opened.
        """
        if not self.enabled:
            raise HistoryError(HISTORY_OFF)
        if self.recorder is not None:
            self.recorder.flush(self.flush_seconds)
        with self._lock:
            if self._store is None:
                if not create and not self.path.exists():
                    return None
                from websearch_tui.history.store import HistoryStore  # SQLite, when the file is first read

                self._store = HistoryStore(self.path)
            return self._store

    def store(self) -> HistoryStore:
        """The store, created when the file does not exist yet (the TUI's History screen).

        Raises:
            HistoryError: as :meth:`open`.
        """
        store = self.open(create=True)
        assert store is not None  # created when missing
        return store

    def take_notice(self) -> str | None:
        """What opening the file had to do (a damaged file moved aside), once; ``None`` if nothing."""
        return self._store.take_notice() if self._store is not None else None

    @property
    def full_text(self) -> bool:
        """Whether searching reads the whole results (SQLite with FTS5) or only the queries."""
        store = self.open()
        return store is None or store.full_text

    def entries(self, *, limit: int = 50) -> list[HistoryEntry]:
        """The newest ``limit`` searches, newest first (none when there is no file)."""
        store = self.open()
        return store.entries(limit=limit) if store is not None else []

    def search(self, text: str, *, limit: int = 50) -> list[HistoryEntry]:
        """Searches whose query or results match ``text``, best first (at most ``limit``).

        Raises:
            HistoryError: ``text`` has no word or number to search for; as :meth:`open`.
        """
        if match_expression(text) is None:
            raise HistoryError(f"nothing to search for in {text!r}: give at least one word or number")
        store = self.open()
        return store.search(text, limit=limit) if store is not None else []

    def get(self, entry_id: int) -> StoredSearch:
        """The stored search ``entry_id``, whole.

        Raises:
            UnknownEntry: no search has that id (or there is no file yet); HistoryError: as :meth:`open`.
        """
        return self._existing(entry_id).get(entry_id)

    def delete(self, entry_id: int) -> None:
        """Delete the search ``entry_id``.

        Raises:
            UnknownEntry, HistoryError: as :meth:`get`.
        """
        self._existing(entry_id).delete(entry_id)

    def count(self) -> int:
        """How many searches the history holds (0 without a file)."""
        store = self.open()
        return store.count() if store is not None else 0

    def clear(self) -> int:
        """Delete every search; returns how many there were."""
        store = self.open()
        return store.clear() if store is not None else 0

    def reusable(self, cache_key: str, newer_than: datetime) -> Reused | None:
        """The newest stored result asked as ``cache_key`` that ended done, was sent (not itself
        reused) and started at or after ``newer_than`` (:meth:`HistoryStore.reusable`); ``None`` when
        there is none, or there is no file yet.

        Raises:
            HistoryError: as :meth:`open`.
        """
        store = self.open()
        return store.reusable(cache_key, newer_than) if store is not None else None

    def spent(self, since: datetime) -> float:
        """US dollars the runs of searches started at or after ``since`` cost (0.0 without a file).

        Raises:
            HistoryError: as :meth:`open`.
        """
        store = self.open()
        return store.spent(since) if store is not None else 0.0

    def average_cost(self, provider: str, since: datetime) -> float | None:
        """US dollars ``provider``'s recent runs since ``since`` cost on average
        (:meth:`HistoryStore.average_cost`); ``None`` when none is known, or there is no file yet.

        Raises:
            HistoryError: as :meth:`open`.
        """
        store = self.open()
        return store.average_cost(provider, since) if store is not None else None

    def stats(
        self,
        since: datetime | None = None,
        provider: str | None = None,
        *,
        progress: Callable[[int], None] | None = None,
    ) -> StatsReport:
        """The statistics of the searches started at or after ``since`` (``None``: all), of every
        provider or only ``provider`` (:meth:`HistoryStore.stats`, which tells ``progress`` how many
        searches stored by an older version are still being counted; an empty report without a file).

        Raises:
            HistoryError: as :meth:`open`.
        """
        store = self.open()
        if store is None:
            from websearch_tui.history.stats import StatsReport

            return StatsReport.empty(since, provider)
        return store.stats(since, provider, progress=progress)

    def page(self, url: str) -> Page | None:
        """The page kept for ``url`` (:meth:`HistoryStore.page`), however old; ``None`` when none is
        kept, or there is no file yet.

        Raises:
            HistoryError: as :meth:`open`.
        """
        store = self.open()
        return store.page(url) if store is not None else None

    def add_page(self, page: Page, *, max_bytes: int) -> bool:
        """Keep ``page`` (:meth:`HistoryStore.add_page`: not when its text is longer than ``max_bytes``
        UTF-8 bytes, the reader's cap), creating the file when there is none yet; True when kept.

        Raises:
            HistoryError: as :meth:`open`.
        """
        return self.store().add_page(page, max_bytes=max_bytes)

    def close(self) -> None:
        """Release the file (a later call opens it again)."""
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.close()

    def _existing(self, entry_id: int) -> HistoryStore:
        store = self.open()
        if store is None:
            raise UnknownEntry(f"no search with id {entry_id}: the history file {self.path} does not exist yet")
        return store
