"""The history file's schema, its version (``PRAGMA user_version``) and the forward migrations.

Version 1, the searches::

    searches(id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so an id always means one search
             created_at TEXT,    -- ISO 8601 UTC, "2026-05-01T14:03:05.120Z" (when the search started)
             query TEXT, mode TEXT, recency TEXT NULL, max_results INTEGER,
             providers TEXT,     -- JSON list of provider ids, in order
             labels TEXT,        -- JSON {provider id: display label}
             statuses TEXT,      -- JSON {provider id: final status}, skipped ones included
             request TEXT,       -- JSON of the other SearchRequest fields (providers, max_tokens, ...)
             winner TEXT NULL,   -- auto mode: the provider that answered
             error TEXT NULL,    -- the combined error when no provider returned content
             outcomes BLOB)      -- zlib JSON list of outcome records (websearch_tui.history.codec)

Version 2 adds ``search_index``, the full-text index over each search's query (column ``query``)
and its answers, source titles, snippets and URLs (column ``body``; see
:mod:`websearch_tui.history.index`): FTS5, ``unicode61`` with diacritics folded, contentless (the
text lives only in ``searches``, compressed), rowid = ``searches.id``. It keeps token positions
(``detail=full``): CJK text is matched as phrases of characters, and ``bm25`` ranks (a contentless
``detail=column`` index is a third smaller but ranks every match 0). The migration indexes
the searches already stored. Where SQLite was built without FTS5 the index is left out (searching
then matches queries only) and is created, with every stored search, once a library with FTS5
opens the file.

Version 3 adds ``pages``, the pages the app read (the reader view, the citation check, the MCP
``fetch_page`` tool), so a reopened search reads its sources offline::

    pages(id INTEGER PRIMARY KEY,       -- grows with every page stored: the oldest have the lowest ids
          url TEXT UNIQUE,              -- the URL asked for (redacted): a page read again replaces its row
          final_url TEXT,               -- where the content came from, after redirects (indexed)
          status INTEGER, title TEXT NULL, site TEXT NULL, author TEXT NULL,
          published_date TEXT NULL,     -- ISO date
          text BLOB,                    -- the Markdown, UTF-8, zlib-compressed
          word_count INTEGER, truncated INTEGER,   -- 0 or 1
          retrieved_at TEXT,            -- ISO 8601 UTC with microseconds, "2026-05-01T14:03:05.120000Z"
          content_sha256 TEXT, content_type TEXT)

(see :mod:`websearch_tui.history.pages`). The migration only creates the table.

Version 4 adds ``runs``, one row per provider run of each stored search (see
:mod:`websearch_tui.history.runs`), so the statistics, the cache lookup and the spend query never
decode a stored search::

    runs(search_id INTEGER,      -- searches.id (deleting a search deletes its runs: trigger)
         provider TEXT,
         started REAL,           -- the search's created_at, seconds since the Unix epoch (UTC)
         day TEXT,               -- its local ISO date when it was written, "2026-12-03"
         status TEXT,            -- done, empty, failed, cancelled
         elapsed_ms INTEGER, first_event_ms INTEGER NULL,
         streams INTEGER,        -- 0/1: the provider streams tokens (first_event_ms is a time to first token)
         timed INTEGER,          -- 0/1: its latency counts (done or empty, and sent: not cached)
         sources INTEGER, unique_sources INTEGER, cited_by_others INTEGER,
         cost_usd REAL NULL, cost_basis TEXT NULL,   -- NULL: not worked out (every search stored before v4)
         cached INTEGER,         -- 0/1: reused from an earlier search
         cache_key TEXT NULL,    -- the key a later search may reuse it under (NULL before v4)
         lead INTEGER)           -- 1 on the first run of each search: counting them counts searches

Its indexes make every query an index range: ``(search_id)`` for deleting, ``(cache_key, started)``
for the cache lookup, ``(started)`` for spend and the first, partial day of a period,
``(provider, started)`` for a provider's newest run, and four partial covering indexes over timed
runs for exact percentiles (see :mod:`websearch_tui.history.aggregate`): walked in value order
``(provider, elapsed_ms, started)``, ``(provider, day, elapsed_ms)`` and, for streaming providers,
``(provider, first_event_ms, started)``; read as a period's range ``(provider, started,
elapsed_ms, streams, first_event_ms)``. Beside it ``run_days``, one row per provider and local day
holding the sums the statistics need (:data:`ROLLUP`), kept by triggers on ``runs`` in the same
transaction as every insert and delete: counting 600,000 runs row by row took about a second here,
summing their 2,190 provider-days takes a few milliseconds.

The migration creates them empty, with ``runs_pending(below)``: the searches with an id below
``below`` (those stored before v4) have no runs yet. They are filled afterwards, newest first, in
batches of :data:`BACKFILL_BATCH` searches (:meth:`~websearch_tui.history.store.HistoryStore.backfill`:
their outcomes decoded with the codec, records stored before v4 having no cost or cache key, NULL;
the rows worked out outside the write lock, written in a short transaction), by the recorder's
writer thread after a search and, for what is left, by the first statistics read. Measured
(``benchmarks/stats.py``, real encoded searches, a shared 2-core machine): opening a v3 file of
10,000 searches takes 7 ms and of 100,000 35 ms; their backfill 24 s and 252 s (2.4-2.5 ms a search:
canonical URLs of every source and citation ~60 %, decoding ~25 %), in batches of at most 1 s.
Backfilling inside the migration instead held every front end and the write lock for all of it
(445 s for 100,000 searches, measured under heavier load).

:func:`migrate` runs in one ``BEGIN IMMEDIATE`` transaction, so two processes opening a new or older
file at once migrate it once. A file of a newer version than :data:`LATEST` is refused, never changed,
and so is another program's database (version 0 with tables of its own).
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime

from websearch_tui.core.text import sanitize, truncate
from websearch_tui.history.codec import RowError, decode_outcome, unpack
from websearch_tui.history.index import index_body, index_form
from websearch_tui.history.runs import run_rows

log = logging.getLogger(__name__)

LATEST = 4
"""The schema version this code writes."""
INDEX_MODULE = "fts5"
"""The SQLite module of the full-text index."""


class NewerSchema(Exception):
    """The file was written by a newer version of the program (``version`` > :data:`LATEST`)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"it has schema version {version}; this version of websearch-tui reads up to {LATEST}")
        self.version = version


class ForeignFile(Exception):
    """The file is another program's SQLite database: version 0, yet it holds tables (``tables``,
    their names). A file of ours is never left at version 0 with tables (:func:`migrate` creates
    them and sets the version in one transaction)."""

    def __init__(self, tables: list[str]) -> None:
        shown = ", ".join(truncate(sanitize(name), 40) for name in tables[:5])
        more = f" and {len(tables) - 5} more" if len(tables) > 5 else ""
        super().__init__(f"it is another program's SQLite database (tables {shown}{more})")
        self.tables = tables


def _create_searches(db: sqlite3.Connection) -> None:
    """Version 0 -> 1: the ``searches`` table."""
    db.execute(
        """CREATE TABLE searches (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            query TEXT NOT NULL,
            mode TEXT NOT NULL,
            recency TEXT,
            max_results INTEGER NOT NULL,
            providers TEXT NOT NULL,
            labels TEXT NOT NULL,
            statuses TEXT NOT NULL,
            request TEXT NOT NULL,
            winner TEXT,
            error TEXT,
            outcomes BLOB NOT NULL
        )"""
    )


def has_index(db: sqlite3.Connection) -> bool:
    """True when the file has its full-text index."""
    found = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'search_index'").fetchone()
    return found is not None


def create_index(db: sqlite3.Connection) -> bool:
    """Version 1 -> 2 (and later opens, while it is missing): create the full-text index and index every
    stored search. Returns False, changing nothing, when this SQLite has no FTS5."""
    try:
        db.execute(
            f"CREATE VIRTUAL TABLE search_index USING {INDEX_MODULE}(query, body, content='', "
            "tokenize='unicode61 remove_diacritics 2')"
        )
    except sqlite3.OperationalError as exc:
        if "no such module" not in str(exc):
            raise
        log.warning("SQLite %s has no FTS5: history search matches queries only", sqlite3.sqlite_version)
        return False
    for entry_id, query, blob in db.execute("SELECT id, query, outcomes FROM searches"):  # row by row: bounded memory
        try:
            body = index_body(unpack(blob))
        except (RowError, AttributeError, TypeError, KeyError) as exc:  # one damaged row: its query is still found
            log.warning("history search %s: its outcomes cannot be indexed (%s)", entry_id, exc)
            body = ""
        db.execute("INSERT INTO search_index(rowid, query, body) VALUES (?, ?, ?)", (entry_id, index_form(query), body))
    return True


def drop_index(db: sqlite3.Connection) -> None:
    """Drop the full-text index (inside the caller's transaction). An index FTS5 cannot even open
    (its structure record damaged: "vtable constructor failed") cannot be dropped with ``DROP TABLE``;
    its shadow tables are dropped and its row deleted from the schema instead, after which the
    connection must be closed (its schema is stale) and the commit made first.

    Raises:
        sqlite3.DatabaseError: the schema itself is damaged.
    """
    try:
        db.execute("DROP TABLE search_index")
        return
    except sqlite3.DatabaseError as exc:
        log.warning("the full-text index cannot be opened (%s); it is removed table by table", exc)
    shadows = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'search^_index^_%' ESCAPE '^'"
    ).fetchall()
    for (name,) in shadows:
        db.execute(f'DROP TABLE "{name}"')
    db.execute("PRAGMA writable_schema = ON")
    try:
        db.execute("DELETE FROM sqlite_master WHERE type = 'table' AND name = 'search_index'")
    finally:
        db.execute("PRAGMA writable_schema = OFF")


def _create_pages(db: sqlite3.Connection) -> None:
    """Version 2 -> 3: the ``pages`` table (the pages read) and its index on ``final_url``."""
    db.execute(
        """CREATE TABLE pages (
            id INTEGER PRIMARY KEY,
            url TEXT NOT NULL UNIQUE,
            final_url TEXT NOT NULL,
            status INTEGER NOT NULL,
            title TEXT,
            site TEXT,
            author TEXT,
            published_date TEXT,
            text BLOB NOT NULL,
            word_count INTEGER NOT NULL,
            truncated INTEGER NOT NULL,
            retrieved_at TEXT NOT NULL,
            content_sha256 TEXT NOT NULL,
            content_type TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX pages_final_url ON pages(final_url)")


BACKFILL_BATCH = 200
"""How many searches stored before v4 one backfill step gives their runs (about a second of work
here, most of it outside the write lock)."""

ROLLUP: dict[str, str] = {
    "runs": "1",
    "searches": "{r}.lead",
    "done": "{r}.status = 'done'",
    "empty": "{r}.status = 'empty'",
    "failed": "{r}.status = 'failed'",
    "cancelled": "{r}.status = 'cancelled'",
    "cached": "{r}.cached",
    "timed": "{r}.timed",
    "first_events": "({r}.timed AND {r}.streams AND {r}.first_event_ms IS NOT NULL)",
    "done_sources": "(CASE WHEN {r}.status = 'done' THEN {r}.sources ELSE 0 END)",
    "sources": "{r}.sources",
    "unique_sources": "{r}.unique_sources",
    "cited_by_others": "{r}.cited_by_others",
    "spend_usd": "coalesce({r}.cost_usd, 0.0)",
}
"""The sums ``run_days`` keeps per provider and local day: column -> its value for one run, with
``{r}`` standing for the run (``NEW``, ``OLD`` or the ``runs`` table). ``runs`` counts them all,
``searches`` their searches (leads), ``timed`` those whose latency counts, ``first_events`` those of
them with a time to first token from a streaming provider, ``done_sources`` the sources of runs
that ended done; ``spend_usd`` is in US dollars (an unknown cost counts 0)."""

_RUN_INDEXES = (
    "CREATE INDEX runs_search ON runs(search_id)",
    "CREATE INDEX runs_cache ON runs(cache_key, started) WHERE cache_key IS NOT NULL",
    "CREATE INDEX runs_started ON runs(started)",
    "CREATE INDEX runs_provider ON runs(provider, started)",
    "CREATE INDEX runs_timed ON runs(provider, started, elapsed_ms, streams, first_event_ms) WHERE timed = 1",
    "CREATE INDEX runs_latency ON runs(provider, elapsed_ms, started) WHERE timed = 1",
    "CREATE INDEX runs_day_latency ON runs(provider, day, elapsed_ms) WHERE timed = 1",
    "CREATE INDEX runs_first_event ON runs(provider, first_event_ms, started) "
    "WHERE timed = 1 AND streams = 1 AND first_event_ms IS NOT NULL",
)


def _runs_tables(db: sqlite3.Connection) -> None:
    """Create ``runs`` and ``run_days`` (empty, no index, no trigger)."""
    db.execute(
        """CREATE TABLE runs (
            search_id INTEGER NOT NULL,
            provider TEXT NOT NULL,
            started REAL NOT NULL,
            day TEXT NOT NULL,
            status TEXT NOT NULL,
            elapsed_ms INTEGER NOT NULL,
            first_event_ms INTEGER,
            streams INTEGER NOT NULL,
            timed INTEGER NOT NULL,
            sources INTEGER NOT NULL,
            unique_sources INTEGER NOT NULL,
            cited_by_others INTEGER NOT NULL,
            cost_usd REAL,
            cost_basis TEXT,
            cached INTEGER NOT NULL,
            cache_key TEXT,
            lead INTEGER NOT NULL
        )"""
    )
    sums = ", ".join(f"{name} {'REAL' if name == 'spend_usd' else 'INTEGER'} NOT NULL" for name in ROLLUP)
    db.execute(
        f"CREATE TABLE run_days (provider TEXT NOT NULL, day TEXT NOT NULL, {sums}, "
        "PRIMARY KEY (provider, day)) WITHOUT ROWID"
    )


def _runs_triggers(db: sqlite3.Connection) -> None:
    """The triggers keeping ``run_days`` the sums of ``runs``, and deleting a search's runs with it."""
    names = ", ".join(ROLLUP)
    added = ", ".join(expression.format(r="NEW") for expression in ROLLUP.values())
    grown = ", ".join(f"{name} = {name} + excluded.{name}" for name in ROLLUP)
    shrunk = ", ".join(f"{name} = {name} - {expression.format(r='OLD')}" for name, expression in ROLLUP.items())
    db.execute(
        f"""CREATE TRIGGER runs_added AFTER INSERT ON runs BEGIN
            INSERT INTO run_days(provider, day, {names}) VALUES (NEW.provider, NEW.day, {added})
            ON CONFLICT(provider, day) DO UPDATE SET {grown};
        END"""
    )
    db.execute(
        f"""CREATE TRIGGER runs_removed AFTER DELETE ON runs BEGIN
            UPDATE run_days SET {shrunk} WHERE provider = OLD.provider AND day = OLD.day;
            DELETE FROM run_days WHERE provider = OLD.provider AND day = OLD.day AND runs <= 0;
        END"""
    )
    db.execute(
        "CREATE TRIGGER searches_removed AFTER DELETE ON searches BEGIN DELETE FROM runs WHERE search_id = OLD.id; END"
    )


def _create_runs(db: sqlite3.Connection) -> None:
    """Version 3 -> 4: ``runs`` and ``run_days`` with their indexes and triggers, and
    ``runs_pending`` naming the searches already stored (they are backfilled later)."""
    _runs_tables(db)
    for statement in _RUN_INDEXES:
        db.execute(statement)
    _runs_triggers(db)
    db.execute("CREATE TABLE runs_pending (below INTEGER NOT NULL)")
    db.execute("INSERT INTO runs_pending(below) SELECT max(id) + 1 FROM searches HAVING count(*) > 0")


def pending_below(db: sqlite3.Connection) -> int | None:
    """The searches with an id below this have no runs yet (``None``: every search has its runs)."""
    row = db.execute("SELECT below FROM runs_pending").fetchone()
    return int(row[0]) if row is not None else None


def backfill_values(rows: Iterable[tuple[int, object, object]]) -> list[tuple[object, ...]]:
    """The ``runs`` rows (:data:`~websearch_tui.history.runs.RUN_COLUMNS` order) of stored searches
    given as ``(id, created_at, outcomes)`` columns: their outcomes decoded with the codec (a record
    stored before v4 has no cost or cache key: NULL). A search whose row cannot be read gets none
    (logged). Pure computation: no database."""
    values: list[tuple[object, ...]] = []
    for entry_id, created_at, blob in rows:
        try:
            started = datetime.fromisoformat(str(created_at).replace("Z", "+00:00"))
            outcomes = [decode_outcome(record) for record in unpack(blob)]
        except (RowError, ValueError) as exc:
            log.warning("history search %s has no statistics: it cannot be read (%s)", entry_id, exc)
            continue
        outcomes = [dataclasses.replace(outcome, provider=sanitize(outcome.provider)) for outcome in outcomes]
        values += [row.values(entry_id) for row in run_rows(outcomes, started)]
    return values


def reset_runs(db: sqlite3.Connection) -> None:
    """Empty ``runs`` and ``run_days`` at once (inside the caller's transaction), by dropping and
    creating them again: deleting 600,000 runs row by row would run a trigger for each."""
    db.execute("DROP TRIGGER searches_removed")
    db.execute("DROP TABLE runs")  # its indexes and triggers go with it
    db.execute("DROP TABLE run_days")
    db.execute("DELETE FROM runs_pending")
    _runs_tables(db)
    for statement in _RUN_INDEXES:
        db.execute(statement)
    _runs_triggers(db)


MIGRATIONS: tuple[Callable[[sqlite3.Connection], object], ...] = (
    _create_searches,
    create_index,
    _create_pages,
    _create_runs,
)
"""``MIGRATIONS[n]`` upgrades a file of version ``n`` to ``n + 1``."""


def version(db: sqlite3.Connection) -> int:
    """The file's schema version (0 for a new, empty file)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def check_version(db: sqlite3.Connection) -> None:
    """Refuse a file of a newer version, or another program's database, before anything (even its
    journal mode) is changed.

    Raises:
        NewerSchema: its version is above :data:`LATEST`.
        ForeignFile: its version is 0 and it holds tables.
        sqlite3.DatabaseError: the file is not a database, or damaged.
    """
    current = version(db)
    if current > LATEST:
        raise NewerSchema(current)
    if current == 0:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'"
            )
        ]
        if tables:
            raise ForeignFile(tables)


def migrate(db: sqlite3.Connection) -> None:
    """Bring the file to :data:`LATEST` in one transaction (nothing to do: no transaction at all), then
    create the full-text index if it is missing and this SQLite has FTS5.

    ``db`` is in autocommit mode (``isolation_level=None``).

    Raises:
        NewerSchema: the file is of a newer version (it is not changed).
        sqlite3.DatabaseError: the file is not a database, or damaged.
    """
    current = version(db)
    if current > LATEST:
        raise NewerSchema(current)
    if current == LATEST and (has_index(db) or not fts5_available(db)):
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        current = version(db)  # again: another process may have migrated it meanwhile
        if current > LATEST:
            raise NewerSchema(current)
        for step in MIGRATIONS[current:]:
            step(db)
        db.execute(f"PRAGMA user_version = {LATEST}")
        if not has_index(db):
            create_index(db)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def fts5_available(db: sqlite3.Connection) -> bool:
    """True when this SQLite can create the full-text index (probed in the connection's temp schema,
    which takes no lock on the file)."""
    try:
        db.execute(f"CREATE VIRTUAL TABLE temp.index_probe USING {INDEX_MODULE}(x)")
    except sqlite3.OperationalError as exc:
        if "no such module" not in str(exc):
            raise
        return False
    db.execute("DROP TABLE temp.index_probe")
    return True
