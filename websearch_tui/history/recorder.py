"""Recording searches without delaying them: the engine hands each ended search to a
:class:`HistoryRecorder`, which writes it to the history file on a thread of its own."""

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
from typing import TYPE_CHECKING

from websearch_tui.core.results import SearchResult
from websearch_tui.history.paths import BUSY_TIMEOUT_SECONDS, HistoryError

if TYPE_CHECKING:
    from websearch_tui.history.store import HistoryStore

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
TIDY_AFTER_SECONDS = 1.0
"""Seconds without a new search, after the last write, before the writer tidies the file (prunes,
backfills, compacts): a burst of searches (an agent's calls one after another) is written without
that work between them."""
_TIDY = object()
"""The writer's job when it tidies the file rather than write a search."""


class HistoryRecorder:
    """Writes ended searches to the history file, in order, on one ``history-writer`` thread.

    :meth:`record` only queues a snapshot and returns. The thread is started by the first search and
    then serves every later one (it waits, using no CPU, while nothing is queued), until :meth:`close`,
    which has it write what is queued, joins it (a bounded time, so nothing queued is lost when the
    process exits right after) and closes the file; a search recorded after that starts a new thread.
    The store is opened on first use. Once no search has come for ``tidy_after`` seconds after a
    write, the thread prunes and compacts the file a batch at a time (a search queued meanwhile is
    written first). A write waits at most :data:`RECORD_BUSY_SECONDS` for another process's lock on
    the file. A failure to write never reaches the search: it is logged and told once per reason
    through ``on_notice`` (called on the writer thread), which also hears when a damaged file was
    moved aside or its index rebuilt.

    Args:
        path: the history file.
        max_entries: the most searches the file keeps (the oldest are deleted).
        on_notice: where notices go (default: the log only).
        tidy_after: seconds of quiet before tidying (default :data:`TIDY_AFTER_SECONDS`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_entries: int,
        on_notice: Notice | None = None,
        tidy_after: float = TIDY_AFTER_SECONDS,
    ) -> None:
        self.path = Path(path)
        self.max_entries = max_entries
        self.on_notice = on_notice
        self.tidy_after = tidy_after
        self._pending: deque[tuple[SearchResult, datetime]] = deque()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # the queue emptied (flush waits for it)
        self._wake = threading.Condition(self._lock)  # a search was queued, or close() was called
        self._thread: threading.Thread | None = None
        self._store: HistoryStore | None = None
        self._last_problem: str | None = None
        self._tidy_at: float | None = None  # when to tidy (time.monotonic(); set by each write), None: not due
        self._tidying = False  # the writer thread is pruning or reclaiming now (close() may interrupt it)
        self._closing = False

    def record(self, result: SearchResult, started_at: datetime) -> None:
        """Queue ``result`` (which the engine no longer changes) to be stored as started at ``started_at``."""
        snapshot = dataclasses.replace(result, outcomes=list(result.outcomes), labels=dict(result.labels))
        with self._lock:
            self._pending.append((snapshot, started_at))
            if self._thread is None:
                self._closing = False
                self._thread = threading.Thread(target=self._drain, name="history-writer", daemon=True)
                self._thread.start()
            else:
                self._wake.notify()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued search is written (at most ``timeout`` seconds); True when done."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._pending, timeout)

    def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """Write what is queued, have the writer thread end and join it, then close the file (a later
        :meth:`record` starts a new thread, which opens it again).

        Waits at most ``timeout`` seconds in all (default :data:`CLOSE_SECONDS`, 10 s), so a stuck disk
        never holds a program's exit for longer: then a warning is logged and the file is left open
        to the thread still writing, a daemon thread that ends with the process (a later call joins it
        again). A search recorded while this waits is written before the thread ends.
        """
        deadline = time.monotonic() + timeout
        with self._lock:
            writer = self._thread
            self._closing = True  # what is queued is written; pruning stops after its batch
            self._wake.notify()
            if self._tidying and self._store is not None:
                self._store.interrupt()  # a compaction would hold the exit: it is done another time
        if writer is not None:
            writer.join(max(0.0, deadline - time.monotonic()))
            if writer.is_alive():
                log.warning("the history writer did not finish within %g s; the history file is left open", timeout)
                return
        with self._lock:
            if self._thread is not None:  # recorded after the writer ended: the new one uses the file
                return
            store, self._store = self._store, None
        if store is not None:
            store.close()

    def _drain(self) -> None:
        """The writer thread: write the queue in order; while nothing is queued, tidy the file a
        batch at a time once it has been quiet for ``tidy_after`` seconds, else wait; end when
        :meth:`close` asks and nothing is queued."""
        while True:
            with self._lock:
                job = self._next()
                if job is None:
                    self._thread = None
                    self._idle.notify_all()
                    return
                self._tidying = job is _TIDY
            if isinstance(job, tuple):
                written = self._write(*job)
                with self._lock:
                    self._pending.popleft()
                    if written:  # add() prunes at most one batch; the rest when tidying
                        self._tidy_at = time.monotonic() + self.tidy_after
                    if not self._pending:
                        self._idle.notify_all()
                continue
            done = self._tidy_step()
            with self._lock:
                self._tidying = False
                if done:
                    self._tidy_at = None

    def _next(self) -> tuple[SearchResult, datetime] | object | None:
        """What the writer does next (called holding the lock; waits on it while there is nothing to
        do): the oldest queued search (it stays queued until written: :meth:`flush` waits for it),
        :data:`_TIDY`, or ``None`` to end (closing, nothing queued)."""
        while True:
            if self._pending:
                return self._pending[0]
            if self._closing:
                return None
            if self._tidy_at is None:
                self._wake.wait()
                continue
            wait = self._tidy_at - time.monotonic()
            if wait <= 0:
                return _TIDY
            self._wake.wait(wait)

    def _tidy_step(self) -> bool:
        """One step of keeping the file small and its statistics complete, off the search's path:
        prune one batch of the oldest searches beyond ``max_entries`` (:meth:`HistoryStore.prune`);
        once none is left, give one batch of searches stored before schema v4 their runs
        (:meth:`HistoryStore.backfill`); then compact the file when much of it is free
        (:meth:`HistoryStore.reclaim`). True when the tidying is over: done, or failed (logged; an
        interrupted compaction is tried again after the next search)."""
        store = self._store
        if store is None:
            return True
        try:
            if store.prune() or store.backfill():
                return False
            with self._lock:
                if self._closing:  # close() came meanwhile: a compaction would hold the exit up
                    return True
            freed = store.reclaim()
            if freed:
                log.info("the history file was compacted: %d bytes given back", freed)
        except HistoryError as exc:
            log.warning("the history file was not pruned, backfilled or compacted: %s", exc)
        except Exception:  # a bug here must not stop the writer thread
            log.exception("tidying the history file failed")
        finally:
            if (notice := store.take_notice()) is not None:
                self._tell(notice)
        return True

    def _write(self, result: SearchResult, started_at: datetime) -> bool:
        """Store one search (opening the store on first use); True when it was stored."""
        try:
            if self._store is None:
                from websearch_tui.history.store import HistoryStore  # on the writer thread, at the first search

                self._store = HistoryStore(self.path, max_entries=self.max_entries, busy_timeout=RECORD_BUSY_SECONDS)
            self._store.add(result, created_at=started_at)
        except HistoryError as exc:
            self._problem(str(exc))
            return False
        except Exception as exc:  # a bug here must not stop the writer thread silently
            log.exception("recording a search in the history failed")
            self._problem(f"{type(exc).__name__}: {exc}")
            return False
        self._last_problem = None
        notice = self._store.take_notice()
        if notice is not None:
            self._tell(notice)
        return True

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
