"""The history store: every recorded search in one SQLite file, listed, searched, read back, deleted;
and the pages the app read (:meth:`HistoryStore.add_page`, :meth:`HistoryStore.page`), kept so a
reopened search reads its sources offline.

The file is ``history.sqlite3`` in the platformdirs user data dir (``~/.local/share/websearch-tui/``
on Linux); ``$WEBSEARCH_TUI_HISTORY`` or config ``[history] path`` names another (:func:`history_path`).
It is created readable only by the user, in WAL mode (readers never wait for a writer; two app
instances writing at once both succeed: each write is one ``BEGIN IMMEDIATE`` transaction and
waits up to ``busy_timeout`` seconds, :data:`BUSY_TIMEOUT_SECONDS` unless told, for the other),
with ``secure_delete`` on (a deleted search's pages are overwritten).

A file that is not a database or is damaged is never lost and never crashes the program. Damage
found while using it is first taken for damage to the full-text index, which holds nothing of its
own: the index is rebuilt from the ``searches`` table and the operation runs again. When that does
not help (or the file cannot be opened at all), the file is renamed
``history.sqlite3.damaged-<UTC time>`` (its ``-wal`` beside it) and a new file is started. Either
way :attr:`HistoryStore.notice` says what was done. A file that cannot be opened at all (no permission, a folder)
or was written by a newer version raises :class:`HistoryError` and is left as it is.

Every method blocks on disk I/O (front ends call them from a thread) and may be called from any
thread: one lock serialises them.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from websearch_tui.core.errors import redact
from websearch_tui.core.pages import DEFAULT_MAX_BYTES, Page
from websearch_tui.core.results import SearchResult
from websearch_tui.core.text import sanitize, truncate
from websearch_tui.history.codec import (
    ENTRY_COLUMNS,
    RESULT_COLUMNS,
    HistoryEntry,
    Reused,
    RowError,
    StoredSearch,
    decode_entry,
    decode_result,
    encode,
    unpack,
)
from websearch_tui.history.index import index_body, index_form, match_expression, query_words
from websearch_tui.history.pages import PAGE_COLUMNS, decode_page, encode_page, text_bytes
from websearch_tui.history.paths import BUSY_TIMEOUT_SECONDS, HistoryError, UnknownEntry
from websearch_tui.history.runs import RUN_COLUMNS, run_rows
from websearch_tui.history.schema import (
    BACKFILL_BATCH,
    ForeignFile,
    NewerSchema,
    backfill_values,
    check_version,
    drop_index,
    has_index,
    migrate,
    pending_below,
    reset_runs,
)

if TYPE_CHECKING:
    from websearch_tui.history.stats import StatsReport

log = logging.getLogger(__name__)
_T = TypeVar("_T")

QUERY_WEIGHT = 4.0
"""bm25 weight of a match in the query against one in the answers and sources (1.0)."""
RANKED_MATCHES = 1_000
"""A best-first search ranks (bm25) the newest this many matches, not every match: ranking costs
per match, and common words match nearly every stored search."""
PRUNE_BATCH = 200
"""The most searches one transaction prunes (:meth:`HistoryStore.prune`): each needs its indexed
text rebuilt to be taken out of the full-text index, so a large prune runs as many short ones."""
RECLAIM_SHARE = 0.25
""":meth:`HistoryStore.reclaim` compacts the file when at least this share of it is free pages, or
when the searches pruned since the last compaction are at least this share of those kept."""


MAX_PAGES = 2_000
"""The most pages the file keeps: storing one more drops the least recently stored."""
MAX_PAGES_BYTES = 256 * 1024 * 1024
"""The most bytes the kept pages' compressed texts may take together (256 MiB): past it the least
recently stored pages are dropped (the newest is always kept)."""

_REUSABLE = (  # newest first; ties (one second) by the later search
    "SELECT search_id, provider FROM runs WHERE cache_key = ? AND started >= ? AND status = 'done' AND cached = 0 "
    "ORDER BY started DESC, search_id DESC LIMIT 1"
)
_AVERAGE_COST = (  # the provider's newest answered runs (runs_provider walks them newest first), sent with a known cost
    "SELECT avg(cost_usd) FROM (SELECT cost_usd, cost_basis, cached FROM runs WHERE provider = ? AND started >= ? "
    "AND status IN ('done', 'empty') ORDER BY started DESC LIMIT ?) "
    "WHERE cached = 0 AND cost_basis IN ('reported', 'estimated')"
)
AVERAGE_RUNS = 20
"""How many of a provider's newest runs :meth:`HistoryStore.average_cost` averages."""
_INSERT_RUN = f"INSERT INTO runs({', '.join(RUN_COLUMNS)}) VALUES ({', '.join('?' for _ in RUN_COLUMNS)})"

MAX_ID = 2**63 - 1
"""The largest id SQLite can hold: a larger one is simply not there (not an OverflowError)."""


def _is_damage(error: sqlite3.DatabaseError) -> bool:
    """True for "file is not a database" and "database disk image is malformed" (SQLite's NOTADB and
    CORRUPT, the only codes Python raises as a bare ``DatabaseError``), not for a lock or a permission."""
    return type(error) is sqlite3.DatabaseError


def _file_id(path: Path) -> tuple[int, int] | None:
    """``(device, inode)`` of ``path``, or ``None`` when it does not exist."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken at once (``BEGIN IMMEDIATE``: a concurrent writer waits its turn)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


_SPACE_PRAGMAS = ("freelist_count", "page_count", "page_size")


def _prefixed(columns: str, table: str) -> str:
    return ", ".join(f"{table}.{name.strip()}" for name in columns.split(","))


class HistoryStore:
    """The history file, opened (created and migrated when needed).

    Args:
        path: the file (see :func:`history_path`).
        max_entries: the most searches kept: adding one more deletes the oldest (``None``: no limit;
            the recorder passes config ``[history] max_entries``).
        max_pages: the most pages kept (:data:`MAX_PAGES`; ``None``: no limit).
        max_pages_bytes: the most bytes of compressed page text kept (:data:`MAX_PAGES_BYTES`;
            ``None``: no limit).
        busy_timeout: how long, in seconds, an operation waits for another process's write to
            finish before it fails (:class:`HistoryError` saying the file is locked).

    Attributes:
        notice: set when a damaged file was moved aside while opening or using it (the message to
            show once, see :meth:`take_notice`).
        full_text: False when this SQLite has no FTS5 (:meth:`search` then matches queries only).

    Raises:
        HistoryError: the file cannot be opened or created, or is of a newer schema version.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_entries: int | None = None,
        max_pages: int | None = MAX_PAGES,
        max_pages_bytes: int | None = MAX_PAGES_BYTES,
        busy_timeout: float = BUSY_TIMEOUT_SECONDS,
    ) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self._pruned = 0  # searches pruned since the last reclaim()
        self.max_entries = max_entries
        self.max_pages = max_pages
        self.max_pages_bytes = max_pages_bytes
        self.notice: str | None = None
        self.full_text = False
        self._lock = threading.Lock()
        self._file: tuple[int, int] | None = None
        self._db = self._open()

    # --- opening ------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        """Connect and migrate; a damaged file is moved aside and a new one started."""
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            if not _is_damage(exc):
                raise self._cannot_open(str(exc)) from None
            self._move_aside(exc)
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            raise self._cannot_open(str(exc)) from None

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))  # new files: readable by the user only
            self._file = _file_id(self.path)
        except OSError as exc:
            raise self._cannot_open(exc.strerror or str(exc)) from None
        db = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            check_version(db)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")  # WAL: a crash may lose the last search, never the file
            db.execute("PRAGMA secure_delete = ON")
            migrate(db)
            self.full_text = has_index(db)
        except NewerSchema as exc:
            db.close()
            raise HistoryError(
                f"the history file {self.path} was written by a newer websearch-tui ({exc}); it was not changed. "
                "Use that version, or set [history] path or $WEBSEARCH_TUI_HISTORY to another file."
            ) from None
        except ForeignFile as exc:
            db.close()
            raise HistoryError(
                f"the history file {self.path} is not a history: {exc}; it was not changed. "
                "Set [history] path or $WEBSEARCH_TUI_HISTORY to another file."
            ) from None
        except BaseException:
            db.close()
            raise
        return db

    def _cannot_open(self, reason: str) -> HistoryError:
        return HistoryError(
            f"cannot open the history file {self.path}: {reason}. Check that it is a file you can read and "
            "write, or set [history] path or $WEBSEARCH_TUI_HISTORY to another file."
        )

    def _move_aside(self, error: sqlite3.DatabaseError) -> None:
        """Rename the damaged file (and its ``-wal``/``-shm``) to ``<name>.damaged-<UTC time>`` and say so."""
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        number = 1
        while aside.exists():
            number += 1
            aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{number}")
        try:
            for suffix in ("", "-wal", "-shm"):
                source = Path(f"{self.path}{suffix}")
                if source.exists():
                    source.rename(f"{aside}{suffix}")
        except OSError as exc:
            raise HistoryError(
                f"the history file {self.path} is damaged ({error}) and could not be moved aside "
                f"({exc.strerror or exc}); move it away to start a new history"
            ) from None
        self.notice = (
            f"The history file {self.path} could not be read ({error}); it was kept as {aside} "
            "and a new history was started."
        )
        log.warning("%s", self.notice)

    def take_notice(self) -> str | None:
        """The pending :attr:`notice` (then cleared), or ``None``."""
        notice, self.notice = self.notice, None
        return notice

    def _run(self, operation: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``operation`` on the connection under the lock. When the path no longer names the file
        that was opened (another store moved it aside, or it was deleted) the path is opened again first.
        When ``operation`` finds the file damaged, the full-text index is rebuilt from the searches and
        ``operation`` runs again; when it still finds damage (or the index cannot be rebuilt), the file
        is moved aside and ``operation`` runs once more on a new one.

        Raises:
            HistoryError: a lock held too long by another process, a full disk, a read-only file, ...
        """
        with self._lock:
            if _file_id(self.path) != self._file:  # moved aside (by another store) or deleted: follow the path
                self._db.close()
                self._db = self._open()
            try:
                return operation(self._db)
            except sqlite3.DatabaseError as exc:
                if not _is_damage(exc):
                    raise self._failed(exc) from None
                damage = exc
            if self._rebuild_index(damage):
                try:
                    return operation(self._db)
                except sqlite3.DatabaseError as exc:
                    if not _is_damage(exc):
                        raise self._failed(exc) from None
                    damage = exc
            self._db.close()
            self._move_aside(damage)
            self._db = self._open()
            try:
                return operation(self._db)
            except sqlite3.DatabaseError as exc:
                raise self._failed(exc) from None

    def _failed(self, error: sqlite3.DatabaseError) -> HistoryError:
        """The :class:`HistoryError` for an operation that failed with ``error`` (not damage)."""
        if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
            return HistoryError(
                f"the history file {self.path} is locked by another process (waited {self.busy_timeout:g} s)"
            )
        return HistoryError(f"the history file {self.path}: {error}")

    def _rebuild_index(self, damage: sqlite3.DatabaseError) -> bool:
        """Drop the full-text index and index every stored search again, in one transaction; True when
        that worked (:attr:`notice` then says so), False when there is no index or the searches
        themselves cannot be read (nothing is changed)."""
        if not self.full_text:
            return False
        try:
            with _transaction(self._db):
                drop_index(self._db)
            self._db.close()
            self._db = self._connect()  # the schema read again; migrate() indexes every search
            count = int(self._db.execute("SELECT count(*) FROM searches").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            log.warning("the history's full-text index could not be rebuilt: %s", exc)
            return False
        self.notice = (
            f"The full-text index of the history file {self.path} was damaged ({damage}); it was rebuilt from "
            f"the {count:,} searches stored, and no search was lost."
        )
        log.warning("%s", self.notice)
        return True

    def close(self) -> None:
        """Close the file (the store cannot be used afterwards)."""
        with self._lock:
            self._db.close()

    # --- writing ------------------------------------------------------------------------

    def add(self, result: SearchResult, *, created_at: datetime | None = None) -> int:
        """Store ``result`` (every string redacted), started at ``created_at`` (default: the result's
        own ``created_at``, else now); the oldest searches beyond ``max_entries`` are deleted in the
        same transaction, at most :data:`PRUNE_BATCH` of them (:meth:`prune` deletes the rest). Returns
        its id.

        Raises:
            HistoryError: as :meth:`_run`.
        """
        started = created_at or result.created_at or datetime.now(timezone.utc)
        encoded = encode(result, started)
        names = ", ".join(encoded.columns)
        marks = ", ".join("?" for _ in encoded.columns)
        runs = run_rows(result.outcomes, started, retry_of=result.retry_of)

        def insert(db: sqlite3.Connection) -> int:
            with _transaction(db):
                cursor = db.execute(f"INSERT INTO searches({names}) VALUES ({marks})", tuple(encoded.columns.values()))
                entry_id = int(cursor.lastrowid or 0)
                db.executemany(_INSERT_RUN, [run.values(entry_id) for run in runs])
                if self.full_text:
                    db.execute(
                        "INSERT INTO search_index(rowid, query, body) VALUES (?, ?, ?)",
                        (entry_id, index_form(str(encoded.columns["query"])), encoded.body),
                    )
                self._prune(db)
            return entry_id

        return self._run(insert)

    def prune(self) -> bool:
        """Delete the oldest searches beyond ``max_entries`` (and their runs), at most :data:`PRUNE_BATCH` of them, in
        one transaction; True when more are left to delete (call again: the lock is free meanwhile).

        Raises:
            HistoryError: as :meth:`_run`.
        """

        def batch(db: sqlite3.Connection) -> bool:
            with _transaction(db):
                return self._prune(db)

        return self._run(batch)

    def _prune(self, db: sqlite3.Connection) -> bool:
        """Delete up to :data:`PRUNE_BATCH` of the searches beyond the newest ``max_entries``, oldest
        first, row by row (bounded memory); True when more are left."""
        if self.max_entries is None:
            return False
        newest_gone = db.execute(
            "SELECT id FROM searches ORDER BY id DESC LIMIT 1 OFFSET ?", (self.max_entries,)
        ).fetchone()
        if newest_gone is None:
            return False
        last = 0
        rows = db.execute(
            "SELECT id, query, outcomes FROM searches WHERE id <= ? ORDER BY id LIMIT ?", (newest_gone[0], PRUNE_BATCH)
        )
        for entry_id, query, blob in rows:
            self._unindex(db, entry_id, query, blob)
            last = entry_id
        self._pruned += db.execute("DELETE FROM searches WHERE id <= ?", (last,)).rowcount
        return last < int(newest_gone[0])

    def reclaim(self) -> int:
        """When free pages are at least :data:`RECLAIM_SHARE` of the file, or the searches pruned since
        the last call are at least that share of those kept, merge
        the full-text index into one segment (FTS5 ``optimize``: a contentless index keeps what was
        deleted until its segments merge, so after pruning 50,000 searches to 10,000 it held more than
        the searches themselves) and give the free pages back to the disk (``VACUUM``); returns the
        bytes given back (0: not worth it). Blocks for a while on a large file (about 35 s for 10,000
        searches on a busy machine), holding the write lock; :meth:`interrupt` stops it (nothing is lost).

        Raises:
            HistoryError: as :meth:`_run` (``interrupted`` included).
        """

        def compact(db: sqlite3.Connection) -> int:
            free, pages, size = (int(db.execute(f"PRAGMA {name}").fetchone()[0]) for name in _SPACE_PRAGMAS)
            kept = int(db.execute("SELECT count(*) FROM searches").fetchone()[0])
            if free < RECLAIM_SHARE * pages and self._pruned < RECLAIM_SHARE * max(kept, 1):
                return 0
            if self.full_text:
                db.execute("INSERT INTO search_index(search_index) VALUES ('optimize')")
            db.execute("VACUUM")
            self._pruned = 0
            return (pages - int(db.execute("PRAGMA page_count").fetchone()[0])) * size

        return self._run(compact)

    def interrupt(self) -> None:
        """Stop the operation running now (from another thread): it fails with :class:`HistoryError`
        and changes nothing. Does not wait for the lock."""
        self._db.interrupt()

    def _unindex(self, db: sqlite3.Connection, entry_id: int, query: str, blob: bytes) -> None:
        """Remove a search from the full-text index (a contentless index is given the indexed text again)."""
        if not self.full_text:
            return
        try:
            body = index_body(unpack(blob))
        except RowError:
            log.warning("history search %s cannot be read; it leaves a stale full-text entry", entry_id)
            return
        db.execute(
            "INSERT INTO search_index(search_index, rowid, query, body) VALUES ('delete', ?, ?, ?)",
            (entry_id, index_form(query), body),
        )

    def delete(self, entry_id: int) -> None:
        """Delete one search (and its runs: a trigger, in the same transaction).

        Raises:
            UnknownEntry: there is no search ``entry_id``.
            HistoryError: as :meth:`_run`.
        """

        if not 1 <= entry_id <= MAX_ID:
            raise self._unknown(entry_id)

        def remove(db: sqlite3.Connection) -> None:
            with _transaction(db):
                row = db.execute("SELECT query, outcomes FROM searches WHERE id = ?", (entry_id,)).fetchone()
                if row is None:
                    raise self._unknown(entry_id)
                self._unindex(db, entry_id, *row)
                db.execute("DELETE FROM searches WHERE id = ?", (entry_id,))

        self._run(remove)

    def clear(self) -> int:
        """Delete every search (and its runs) and every page kept, empty the index and compact the file;
        returns how many searches were deleted. Ids are not reused afterwards.

        Raises:
            HistoryError: as :meth:`_run`.
        """

        def remove_all(db: sqlite3.Connection) -> int:
            with _transaction(db):
                count = int(db.execute("SELECT count(*) FROM searches").fetchone()[0])
                reset_runs(db)
                db.execute("DELETE FROM searches")
                db.execute("DELETE FROM pages")
                if self.full_text:
                    db.execute("INSERT INTO search_index(search_index) VALUES ('delete-all')")
            db.execute("VACUUM")
            return count

        return self._run(remove_all)

    # --- pages --------------------------------------------------------------------------

    def add_page(self, page: Page, *, max_bytes: int = DEFAULT_MAX_BYTES) -> bool:
        """Keep ``page`` (every string redacted, the text compressed), replacing the page stored for
        the same URL; then drop the least recently stored pages beyond :attr:`max_pages` and
        :attr:`max_pages_bytes`, in the same transaction. A page whose text is longer than
        ``max_bytes`` UTF-8 bytes (the reader's ``[reader] max_bytes``) is not stored.

        Returns:
            True when it was stored, False when it was too long.

        Raises:
            HistoryError: as :meth:`_run`.
        """
        if text_bytes(page) > max_bytes:
            return False
        columns = encode_page(page)
        names, marks = ", ".join(columns), ", ".join("?" for _ in columns)

        def insert(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.execute(f"INSERT OR REPLACE INTO pages({names}) VALUES ({marks})", tuple(columns.values()))
                self._prune_pages(db)

        self._run(insert)
        return True

    def _prune_pages(self, db: sqlite3.Connection) -> None:
        """Delete the least recently stored pages beyond :attr:`max_pages` and :attr:`max_pages_bytes`
        (the newest page is always kept)."""
        if self.max_pages is None and self.max_pages_bytes is None:
            return
        most = self.max_pages if self.max_pages is not None else MAX_ID
        budget = self.max_pages_bytes if self.max_pages_bytes is not None else MAX_ID
        total = 0
        rows = db.execute("SELECT id, length(text) FROM pages ORDER BY id DESC").fetchall()
        for kept, (page_id, size) in enumerate(rows):
            total += int(size or 0)
            if kept and (kept >= most or total > budget):
                db.execute("DELETE FROM pages WHERE id <= ?", (page_id,))
                return

    def page(self, url: str) -> Page | None:
        """The page stored for ``url``: the one read for that URL, else the newest one whose content
        came from there (its final URL); ``from_history`` is True and ``retrieved_at`` says when it was
        read. ``None`` when none is stored (or its row cannot be read back: that is logged).

        Raises:
            HistoryError: as :meth:`_run`.
        """
        key = redact(url)
        columns = ", ".join(PAGE_COLUMNS)

        def find(db: sqlite3.Connection) -> Any:
            row = db.execute(f"SELECT {columns} FROM pages WHERE url = ?", (key,)).fetchone()
            if row is None:
                sql = f"SELECT {columns} FROM pages WHERE final_url = ? ORDER BY id DESC LIMIT 1"
                row = db.execute(sql, (key,)).fetchone()
            return row

        row = self._run(find)
        if row is None:
            return None
        try:
            return decode_page(row)
        except RowError as exc:
            log.warning("the page stored for %s cannot be read back: %s", truncate(sanitize(url), 200), exc)
            return None

    def page_count(self) -> int:
        """How many pages are stored."""
        return self._run(lambda db: int(db.execute("SELECT count(*) FROM pages").fetchone()[0]))

    # --- reading ------------------------------------------------------------------------

    def count(self) -> int:
        """How many searches are stored."""
        return self._run(lambda db: int(db.execute("SELECT count(*) FROM searches").fetchone()[0]))

    def entries(self, *, limit: int = 50) -> list[HistoryEntry]:
        """The newest ``limit`` searches, newest first (an unreadable row is left out and logged)."""
        sql = f"SELECT {ENTRY_COLUMNS} FROM searches ORDER BY id DESC LIMIT ?"
        return self._entries(sql, (limit,))

    def search(self, text: str, *, limit: int = 50, best_first: bool = True) -> list[HistoryEntry]:
        """Searches whose query, answers, source titles, snippets or URLs contain every word of ``text``
        (a word of three or more letters also matches longer words it begins; CJK text matches as
        substrings; see :func:`~websearch_tui.history.index.match_expression`), best match first (bm25,
        a match in the query counting :data:`QUERY_WEIGHT` times; ties newest first; among the newest
        :data:`RANKED_MATCHES` matches) or, with ``best_first=False``, newest first (fast enough for
        every keystroke). Only the first :data:`~websearch_tui.history.index.MAX_TERMS` terms are
        matched. Without FTS5 (:attr:`full_text` False) only queries are matched, newest first.

        Raises:
            HistoryError: ``text`` has no letter or digit; or as :meth:`_run`.
        """
        expression = match_expression(text)
        if expression is None:
            raise HistoryError(f"nothing to search for in {text!r}: give at least one word or number")
        if not self.full_text:
            return self._query_search(text, limit)
        columns = _prefixed(ENTRY_COLUMNS, "s")
        if best_first:  # bm25 of the newest RANKED_MATCHES only: the index stops walking there
            sql = (
                f"WITH hits(id, score) AS (SELECT rowid, bm25(search_index, {QUERY_WEIGHT}, 1.0) FROM search_index "
                "WHERE search_index MATCH ? ORDER BY rowid DESC LIMIT ?) "
                f"SELECT {columns} FROM hits JOIN searches s ON s.id = hits.id ORDER BY hits.score, s.id DESC LIMIT ?"
            )
            return self._entries(sql, (expression, RANKED_MATCHES, limit))
        sql = (  # the index walks rowids newest first and stops at the limit
            "WITH hits(id) AS (SELECT rowid FROM search_index WHERE search_index MATCH ? "
            f"ORDER BY rowid DESC LIMIT ?) SELECT {columns} FROM hits JOIN searches s ON s.id = hits.id "
            "ORDER BY s.id DESC"
        )
        return self._entries(sql, (expression, limit))

    def _query_search(self, text: str, limit: int) -> list[HistoryEntry]:
        """Without a full-text index: queries containing every word of ``text`` (ASCII case ignored)."""
        words = query_words(text)
        escaped = [word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for word in words]
        where = " AND ".join("query LIKE ? ESCAPE '\\'" for _ in words)
        sql = f"SELECT {ENTRY_COLUMNS} FROM searches WHERE {where} ORDER BY id DESC LIMIT ?"
        return self._entries(sql, (*(f"%{word}%" for word in escaped), limit))

    def _entries(self, sql: str, parameters: Sequence[Any]) -> list[HistoryEntry]:
        rows = self._run(lambda db: db.execute(sql, parameters).fetchall())
        entries = []
        for row in rows:
            try:
                entries.append(decode_entry(row))
            except RowError as exc:
                log.warning("history search %s left out: %s", row[0], exc)
        return entries

    def get(self, entry_id: int) -> StoredSearch:
        """The stored search ``entry_id``, with every provider's outcome as it ended.

        Raises:
            UnknownEntry: there is no search ``entry_id``.
            HistoryError: it cannot be read back (damaged row); or as :meth:`_run`.
        """
        if not 1 <= entry_id <= MAX_ID:
            raise self._unknown(entry_id)
        sql = f"SELECT {RESULT_COLUMNS} FROM searches WHERE id = ?"
        row = self._run(lambda db: db.execute(sql, (entry_id,)).fetchone())
        if row is None:
            raise self._unknown(entry_id)
        try:
            return decode_result(row)
        except RowError as exc:
            raise HistoryError(f"search {entry_id} in {self.path} cannot be read: {exc}") from None

    def _unknown(self, entry_id: int) -> UnknownEntry:
        return UnknownEntry(f"no search with id {entry_id} in the history file {self.path}")

    # --- cache, spend and statistics ----------------------------------------------------

    def backfill(self) -> bool:
        """Give the newest :data:`~websearch_tui.history.schema.BACKFILL_BATCH` searches stored before
        schema v4 their runs (:mod:`websearch_tui.history.schema`); True when more are left (call
        again: the lock is free meanwhile). The rows are worked out outside the lock and the write
        transaction; a batch another store wrote meanwhile is not written twice.

        Raises:
            HistoryError: as :meth:`_run`.
        """

        def read(db: sqlite3.Connection) -> tuple[int | None, list[Any]]:
            below = pending_below(db)
            if below is None:
                return None, []
            sql = "SELECT id, created_at, outcomes FROM searches WHERE id < ? ORDER BY id DESC LIMIT ?"
            return below, db.execute(sql, (below, BACKFILL_BATCH)).fetchall()

        below, batch = self._run(read)
        if below is None:
            return False
        values = backfill_values(batch)
        lowest = min((int(row[0]) for row in batch), default=0)

        def write(db: sqlite3.Connection) -> bool:
            with _transaction(db):
                if pending_below(db) != below:  # another store wrote this batch meanwhile
                    return pending_below(db) is not None
                kept = {
                    int(found)
                    for (found,) in db.execute("SELECT id FROM searches WHERE id >= ? AND id < ?", (lowest, below))
                }
                db.executemany(_INSERT_RUN, [row for row in values if row[0] in kept])
                if lowest and db.execute("SELECT 1 FROM searches WHERE id < ? LIMIT 1", (lowest,)).fetchone():
                    db.execute("UPDATE runs_pending SET below = ?", (lowest,))
                    return True
                db.execute("DELETE FROM runs_pending")
                return False

        return self._run(write)

    def reusable(self, cache_key: str, newer_than: datetime) -> Reused | None:
        """The newest stored run asked as ``cache_key`` (:attr:`ProviderOutcome.cache_key`) that ended
        done, was itself sent (not reused) and started at or after ``newer_than`` (timezone-aware):
        that search's outcome for the provider, decoded from its row. ``None`` when there is none (or
        its row cannot be read back: that is logged).

        Raises:
            HistoryError: as :meth:`_run`.
        """
        found = self._run(lambda db: db.execute(_REUSABLE, (cache_key, newer_than.timestamp())).fetchone())
        if found is None:
            return None
        search_id, provider = int(found[0]), str(found[1])
        try:
            stored = self.get(search_id)
        except HistoryError as exc:  # deleted meanwhile, or damaged
            log.warning("the cached result of search %s cannot be reused: %s", search_id, exc)
            return None
        outcome = stored.result.outcome(provider)
        return Reused(search_id, stored.entry.created_at, outcome) if outcome is not None else None

    def spent(self, since: datetime) -> float:
        """What the runs of searches started at or after ``since`` (timezone-aware) cost, US dollars.

        Raises:
            HistoryError: as :meth:`_run`.
        """
        from websearch_tui.history import aggregate  # statistics: not imported to record or reuse a search

        return self._run(lambda db: aggregate.spent(db, since))

    def average_cost(self, provider: str, since: datetime, *, runs: int = AVERAGE_RUNS) -> float | None:
        """US dollars ``provider``'s runs cost on average, over its newest ``runs`` runs started at or
        after ``since`` (timezone-aware) that answered (done or empty: a failure before the answer
        costs nothing and would pull the average toward $0), were sent (not reused) and whose cost
        is known (reported or estimated): what a budget expects its next run to cost. ``None`` when
        there is no such run. Reads at most ``runs`` answered rows (an index walk), however many
        keyless or unpriced runs the history holds.

        Raises:
            HistoryError: as :meth:`_run`.
        """
        row = self._run(lambda db: db.execute(_AVERAGE_COST, (provider, since.timestamp(), runs)).fetchone())
        return float(row[0]) if row is not None and row[0] is not None else None

    def unbackfilled(self) -> int:
        """How many searches stored before schema v4 have no runs yet (0 once :meth:`backfill` is done).

        Raises:
            HistoryError: as :meth:`_run`.
        """

        def count(db: sqlite3.Connection) -> int:
            below = pending_below(db)
            if below is None:
                return 0
            return int(db.execute("SELECT count(*) FROM searches WHERE id < ?", (below,)).fetchone()[0])

        return self._run(count)

    def stats(
        self,
        since: datetime | None = None,
        provider: str | None = None,
        *,
        progress: Callable[[int], None] | None = None,
    ) -> StatsReport:
        """The statistics of the searches started at or after ``since`` (``None``: all), of every
        provider or only ``provider`` (see :class:`~websearch_tui.history.stats.StatsReport`). Searches
        stored before schema v4 that have no runs yet are given theirs first (:meth:`backfill`: once,
        about 2.5 ms a search here; a running app's recorder does it in the background after its first
        search), and ``progress`` is told how many are left before each batch (not called when none is).

        Raises:
            HistoryError: as :meth:`_run`.
        """
        left = self.unbackfilled()
        while left:
            if progress is not None:
                progress(left)
            left = self.unbackfilled() if self.backfill() else 0
        from websearch_tui.history import aggregate

        return self._run(lambda db: aggregate.stats_report(db, since, provider))
