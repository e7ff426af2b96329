"""Recording searches without delaying them: the engine hands each ended search to a
:class:`HistoryRecorder`, which writes it to the history file on its own thread."""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from websearch_tui.core.results import SearchResult
from websearch_tui.history.store import BUSY_TIMEOUT_SECONDS, HistoryError, HistoryStore

log = logging.getLogger(__name__)

Notice = Callable[[str], None]
"""``notice(message)``: one line for the user (a damaged file moved aside, a search not recorded)."""

RECORD_BUSY_SECONDS = 1.0
"""How long one recording waits, in seconds, for another process's write to the file to finish:
past it, that search is not recorded (and the user is told), so a history locked by another
process never holds a search's exit for long."""
CLOSE_SECONDS = BUSY_TIMEOUT_SECONDS
"""How long :meth:`HistoryRecorder.close` waits, in seconds, for the writer thread to write what is
queued and end (10 s): the bound for a stuck disk; a locked file gives up after
:data:`RECORD_BUSY_SECONDS`."""


class HistoryRecorder:
    """Writes ended searches to the history file, in order, on a ``history-writer`` thread.

    :meth:`record` only queues a snapshot and returns; the thread starts when there is something to
    write, opens the store on first use and ends once the queue is empty (so an idle program has no
    extra thread); :meth:`close` waits for it to end (a bounded time), so nothing queued is lost when
    the process exits right after. A write waits at most :data:`RECORD_BUSY_SECONDS` for another
    process's lock on the file. A failure to write never reaches the search: it is logged and told once
    per reason through ``on_notice`` (called on the writer thread), which also hears when a damaged
    file was moved aside or its index rebuilt.

    Args:
        path: the history file.
        max_entries: the most searches the file keeps (the oldest are deleted).
        on_notice: where notices go (default: the log only).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_entries: int,
        on_notice: Notice | None = None,
    ) -> None:
        self.path = Path(path)
        self.max_entries = max_entries
        self.on_notice = on_notice
        self._pending: deque[tuple[SearchResult, datetime]] = deque()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._writers: list[threading.Thread] = []  # started and maybe still running: close() joins them
        self._store: HistoryStore | None = None
        self._last_problem: str | None = None
        self._tidy = False  # after a write: prune the oldest searches beyond max_entries, then reclaim
        self._tidying = False  # the writer thread is pruning or reclaiming now (close() may interrupt it)
        self._closing = False

    def record(self, result: SearchResult, started_at: datetime) -> None:
        """Queue ``result`` (which the engine no longer changes) to be stored as started at ``started_at``."""
        snapshot = dataclasses.replace(result, outcomes=list(result.outcomes), labels=dict(result.labels))
        with self._lock:
            self._pending.append((snapshot, started_at))
            self._closing = False
            if self._thread is None:
                self._thread = threading.Thread(target=self._drain, name="history-writer", daemon=True)
                self._writers = [writer for writer in self._writers if writer.is_alive()] + [self._thread]
                self._thread.start()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued search is written (at most ``timeout`` seconds); True when done."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._pending, timeout)

    def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """Write what is queued, wait for the writer thread to end (join it), then close the file (a
        later :meth:`record` opens it again).

        Waits at most ``timeout`` seconds in all (default :data:`CLOSE_SECONDS`, 10 s), so a stuck disk
        never holds a program's exit for longer: then a warning is logged and the file is left open
        to the thread still writing, a daemon thread that ends with the process. A search recorded
        while this waits keeps the file open too (its writer uses it).
        """
        deadline = time.monotonic() + timeout
        with self._lock:
            writers = list(self._writers)
            self._closing = True  # what is queued is written; pruning stops after its batch
            if self._tidying and self._store is not None:
                self._store.interrupt()  # a compaction would hold the exit: it is done another time
        for writer in writers:
            writer.join(max(0.0, deadline - time.monotonic()))
        if any(writer.is_alive() for writer in writers):
            log.warning("the history writer did not finish within %g s; the history file is left open", timeout)
            return
        with self._lock:
            if self._thread is not None:  # recorded meanwhile: that writer still uses the file
                return
            store, self._store = self._store, None
        if store is not None:
            store.close()

    def _drain(self) -> None:
        """The writer thread: write the queue in order, then, while nothing is queued and nobody
        closes, prune and compact the file a batch at a time; end when there is nothing left to do."""
        while True:
            with self._lock:
                if not self._pending and (self._closing or not self._tidy):
                    self._thread = None
                    self._idle.notify_all()
                    return
                self._tidying = not self._pending
                if self._pending:
                    result, started_at = self._pending[0]  # stays queued until written: flush() waits for it
            if self._tidying:
                self._tidy_step()
                with self._lock:
                    self._tidying = False
                continue
            self._write(result, started_at)
            with self._lock:
                self._pending.popleft()
                if not self._pending:
                    self._idle.notify_all()

    def _tidy_step(self) -> None:
        """One step of keeping the file small and its statistics complete, off the search's path:
        prune one batch of the oldest searches beyond ``max_entries`` (:meth:`HistoryStore.prune`);
        once none is left, give one batch of searches stored before schema v4 their runs
        (:meth:`HistoryStore.backfill`); then compact the file when much of it is free
        (:meth:`HistoryStore.reclaim`). A failure ends the tidying (logged; an interrupted compaction
        is tried again after the next search)."""
        store = self._store
        if store is None:
            self._tidy = False
            return
        try:
            if store.prune() or store.backfill():
                return
            freed = store.reclaim()
            if freed:
                log.info("the history file was compacted: %d bytes given back", freed)
        except HistoryError as exc:
            log.warning("the history file was not pruned, backfilled or compacted: %s", exc)
        finally:
            if (notice := store.take_notice()) is not None:
                self._tell(notice)
        self._tidy = False

    def _write(self, result: SearchResult, started_at: datetime) -> None:
        try:
            if self._store is None:
                self._store = HistoryStore(self.path, max_entries=self.max_entries, busy_timeout=RECORD_BUSY_SECONDS)
            self._store.add(result, created_at=started_at)
            self._tidy = True  # add() prunes at most one batch; the rest comes after
        except HistoryError as exc:
            self._problem(str(exc))
            return
        except Exception as exc:  # a bug here must not stop the writer thread silently
            log.exception("recording a search in the history failed")
            self._problem(f"{type(exc).__name__}: {exc}")
            return
        self._last_problem = None
        notice = self._store.take_notice()
        if notice is not None:
            self._tell(notice)

    def _problem(self, reason: str) -> None:
        """Tell why searches are not recorded, once per distinct reason (not after every search)."""
        message = f"A search was not recorded in the history: {reason}"
        if message != self._last_problem:
            self._last_problem = message
            log.warning("%s", message)
            self._tell(message)

    def _tell(self, message: str) -> None:
        if self.on_notice is None:
            return
        try:
            self.on_notice(message)
        except Exception:  # a front end's callback must not stop the writer thread
            log.exception("history notice callback failed")
