"""The history store: round trips, listing, full-text search (CJK included), pruning, redaction,
concurrent writers, migration from an older schema, damaged and unreadable files, the recorder
thread and the engine's recording."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
import zlib
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, sample_result
from websearch_tui.core.errors import register_secret
from websearch_tui.core.models import AnswerDelta, Note, SearchRequest, Source, SourcesFound
from websearch_tui.core.results import ProviderOutcome, RunStatus
from websearch_tui.engine import engine as engine_module
from websearch_tui.engine.engine import Engine
from websearch_tui.formats.markdown import to_markdown
from websearch_tui.formats.text import to_text
from websearch_tui.history import HistoryError, HistoryRecorder, HistoryStore, UnknownEntry, schema
from websearch_tui.history.codec import encode, outcome_record

WHEN = datetime(2026, 5, 1, 14, 3, 5, 120000, tzinfo=timezone.utc)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite3"


@pytest.fixture
def store(path: Path):
    store = HistoryStore(path)
    yield store
    store.close()


def ids(entries) -> list[int]:
    return [entry.id for entry in entries]


def records(outcomes) -> list[dict]:
    """Outcomes as comparable data (a ProviderError compares by identity)."""
    return [outcome_record(outcome) for outcome in outcomes]


def test_a_stored_search_reads_back_exactly_as_it_ended(store: HistoryStore) -> None:
    result = dataclasses.replace(sample_result(), created_at=WHEN)  # the engine sets when it started
    entry_id = store.add(result, created_at=WHEN)
    stored = store.get(entry_id)
    assert records(stored.result.outcomes) == records(result.outcomes)  # every response field, error, timing
    assert stored.result.request == result.request
    assert stored.result.to_dict() == result.to_dict()
    assert to_markdown(stored.result) == to_markdown(result) and to_text(stored.result) == to_text(result)
    entry = stored.entry
    assert (entry.id, entry.created_at, entry.query, entry.mode) == (entry_id, WHEN, result.request.query, "compare")
    assert entry.to_dict() == {
        "id": entry_id,
        "query": "python asyncio tutorial",
        "created_at": "2026-05-01T14:03:05.120Z",
        "mode": "compare",
        "recency": "week",
        "max_results": 5,
        "providers": ["ddgs", "brave"],
        "counts": {"done": 1, "empty": 0, "failed": 1, "cancelled": 0, "skipped": 0},
    }


def test_auto_mode_keeps_the_winner_and_the_skipped_providers(store: HistoryStore) -> None:
    result = dataclasses.replace(
        sample_result(), mode="auto", providers=("brave", "ddgs", "exa"), winner="ddgs", created_at=WHEN
    )
    result.labels = {**result.labels, "exa": "Exa"}
    stored = store.get(store.add(result))
    assert stored.result.winner == "ddgs" and stored.result.statuses()["exa"] is RunStatus.SKIPPED
    assert stored.entry.counts()[RunStatus.SKIPPED] == 1
    assert stored.result.to_dict() == result.to_dict()


def test_entries_are_newest_first(store: HistoryStore) -> None:
    for query in ("first", "second", "third"):
        store.add(sample_result(query))
    assert [entry.query for entry in store.entries()] == ["third", "second", "first"]
    assert [entry.query for entry in store.entries(limit=2)] == ["third", "second"]
    assert store.count() == 3


def test_full_text_search_over_queries_answers_titles_snippets_and_urls(store: HistoryStore) -> None:
    asyncio_id = store.add(sample_result("python asyncio tutorial"))
    rust_id = store.add(sample_result("rust release notes", answer="Rust 1.80 stabilised LazyCell."))
    assert ids(store.search("lazycell")) == [rust_id]  # answer, case folded
    assert ids(store.search("realpython")) == [rust_id, asyncio_id]  # URL, both (ties: newest first)
    assert ids(store.search("event loop basics")) == [rust_id, asyncio_id]  # snippet
    assert ids(store.search("asyncio tut")) == [asyncio_id]  # every word, the last one a prefix
    assert ids(store.search("rust asyncio")) == [rust_id]  # both words: the query and a title
    assert store.search("zebra") == []


def test_a_match_in_the_query_ranks_first_and_newest_first_is_available(store: HistoryStore) -> None:
    for i in range(4):  # unrelated searches: a word found in every search carries no weight (bm25)
        store.add(sample_result(f"unrelated {i}"))
    in_query = store.add(sample_result("tokio runtime"))
    in_answer = store.add(sample_result("other question", answer="tokio is a runtime for Rust."))
    assert ids(store.search("tokio")) == [in_query, in_answer]
    assert ids(store.search("tokio", best_first=False)) == [in_answer, in_query]


def test_typed_operators_and_punctuation_are_plain_words(store: HistoryStore) -> None:
    entry_id = store.add(sample_result('C++ "NEAR" OR (x) -y'))
    assert ids(store.search('C++ "NEAR" OR (x) -y')) == [entry_id]
    assert ids(store.search("near*")) == [entry_id]
    with pytest.raises(HistoryError, match="nothing to search for"):
        store.search('  "*" -- ')


def test_full_text_search_finds_chinese_japanese_and_korean_substrings(store: HistoryStore) -> None:
    chinese = store.add(sample_result("Python 异步编程教程", answer="中国的天气预报说明天下雨。"))
    japanese = store.add(sample_result("非同期処理の入門", answer="東京の天気は晴れです。"))
    korean = store.add(sample_result("비동기 프로그래밍", answer="서울 날씨"))
    assert ids(store.search("异步编程")) == [chinese]  # the query, in the middle of a run
    assert ids(store.search("步编")) == [chinese]  # a pair that is not a word
    assert ids(store.search("编步")) == []  # the characters, but not in that order
    assert ids(store.search("中国")) == [chinese]  # a two-character word (a trigram index misses these)
    assert ids(store.search("天气预报")) == [chinese]
    assert sorted(ids(store.search("天"))) == [chinese, japanese]  # one character: 天气 and 天気
    assert ids(store.search("天気")) == [japanese]
    assert ids(store.search("同期")) == [japanese]
    assert ids(store.search("동기")) == [korean]
    assert ids(store.search("python 教程")) == [chinese]  # mixed scripts, every word
    assert store.search("天津") == []


def test_pruning_keeps_the_newest_and_forgets_the_rest_in_the_index(path: Path) -> None:
    store = HistoryStore(path, max_entries=3)
    added = [store.add(sample_result(f"query number{i}")) for i in range(5)]
    assert ids(store.entries()) == added[:1:-1]
    assert ids(store.search("query")) == added[:1:-1]
    with sqlite3.connect(path) as db:  # the pruned searches are gone from the index itself, not just hidden
        indexed = [row[0] for row in db.execute("SELECT rowid FROM search_index WHERE search_index MATCH 'number0'")]
    assert indexed == []
    store.close()


def test_delete_and_clear(store: HistoryStore, path: Path) -> None:
    first, second = store.add(sample_result("alpha query")), store.add(sample_result("beta query"))
    store.delete(first)
    assert ids(store.entries()) == [second] and ids(store.search("alpha")) == []
    with pytest.raises(UnknownEntry, match=f"no search with id {first} in the history file {path}"):
        store.get(first)
    with pytest.raises(UnknownEntry):
        store.delete(first)
    assert store.clear() == 1
    assert store.count() == 0 and store.search("beta") == []
    assert store.add(sample_result("gamma")) > second  # ids are never reused


def test_no_secret_reaches_the_file(path: Path) -> None:
    key = f"sk-history-{secrets.token_hex(12)}"
    register_secret(key)
    result = sample_result(f"why does {key} fail")
    ddgs = result.outcomes[0].response
    ddgs.answer = f"The server echoed Authorization: Bearer {key}."
    ddgs.sources = [Source(f"https://echo.example/?key={key}", f"Title {key}", f"snippet {key}", key, None, key)]
    ddgs.notes, ddgs.request_id, ddgs.model = [f"note {key}"], f"req-{key}", key
    result.outcomes[1].error.message = f"401: invalid key {key}"  # type: ignore[union-attr]
    result.error = f"All failed: {key}"
    store = HistoryStore(path)
    entry_id = store.add(result)
    stored = store.get(entry_id)
    store.close()
    files = [p for p in path.parent.iterdir() if p.name.startswith(path.name)]
    raw = b"".join(p.read_bytes() for p in files)
    with sqlite3.connect(path) as db:
        blobs = b"".join(zlib.decompress(row[0]) for row in db.execute("SELECT outcomes FROM searches"))
        columns = repr(db.execute("SELECT * FROM searches").fetchall())
    assert key.encode() not in raw and key.encode() not in blobs and key not in columns
    assert (
        b"***" in blobs and "***" in stored.entry.query and "***" in (stored.result.outcomes[0].response.answer or "")
    )


def test_stored_text_is_sanitized_when_read_back(store: HistoryStore, path: Path) -> None:
    entry_id = store.add(sample_result("plain"))
    with sqlite3.connect(path) as db:  # somebody wrote escape sequences into the file directly
        db.execute("UPDATE searches SET query = ? WHERE id = ?", ("evil\x1b]52;c;SGVsbG8=\x07 query\x1b[2J", entry_id))
    assert store.entries()[0].query == "evil query"
    assert store.get(entry_id).result.request.query == "evil query"


def test_a_newer_schema_is_refused_and_left_untouched(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    before = path.read_bytes()
    with pytest.raises(HistoryError, match="written by a newer websearch-tui.*schema version 99.*not changed"):
        HistoryStore(path)
    assert path.read_bytes() == before


def test_another_programs_database_is_refused_and_left_untouched(path: Path, tmp_path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes(body TEXT)")
        db.execute('CREATE TABLE "evil\x1b[2Jname"(x)')
        db.execute("INSERT INTO notes VALUES ('keep me')")
    before = path.read_bytes()
    with pytest.raises(HistoryError, match="is not a history: it is another program's SQLite database") as caught:
        HistoryStore(path)
    assert "notes" in str(caught.value) and "\x1b" not in str(caught.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no journal, nothing moved aside


def write_version_1(path: Path, queries: list[str]) -> None:
    """A history file as version 1 of the schema left it: the searches, no full-text index."""
    with sqlite3.connect(path) as db:
        schema.MIGRATIONS[0](db)
        for query in queries:
            columns = encode(sample_result(query), WHEN).columns
            names, marks = ", ".join(columns), ", ".join("?" for _ in columns)
            db.execute(f"INSERT INTO searches({names}) VALUES ({marks})", tuple(columns.values()))
        db.execute("PRAGMA user_version = 1")


def test_an_older_schema_is_migrated_and_its_searches_indexed(path: Path) -> None:
    write_version_1(path, ["old asyncio question", "old rust question"])
    store = HistoryStore(path)
    assert store.full_text
    assert [entry.query for entry in store.search("rust")] == ["old rust question"]
    assert [entry.query for entry in store.search("realpython")] == ["old rust question", "old asyncio question"]
    stored = store.get(1).result
    assert stored.to_dict() == dataclasses.replace(sample_result("old asyncio question"), created_at=WHEN).to_dict()
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == schema.LATEST


def test_a_damaged_row_neither_stops_the_index_nor_reads_back_as_a_crash(path: Path) -> None:
    write_version_1(path, ["old asyncio question", "old rust question"])
    records = [{"provider": "ddgs", "status": "done", "response": ["not", "a", "table"], "error": "text"}]
    with sqlite3.connect(path) as db:
        db.execute("UPDATE searches SET outcomes = ? WHERE id = 1", (zlib.compress(b"not json"),))
        db.execute("UPDATE searches SET outcomes = ? WHERE id = 2", (zlib.compress(json.dumps(records).encode()),))
    store = HistoryStore(path)  # the migration indexes what it can: each query at least
    assert [entry.query for entry in store.search("rust")] == ["old rust question"]
    for entry_id in (1, 2):
        with pytest.raises(HistoryError, match=f"search {entry_id} .* cannot be read"):
            store.get(entry_id)
    store.close()


def test_without_fts5_queries_are_still_searched_and_the_index_comes_later(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "INDEX_MODULE", "no_such_fts")  # an SQLite built without FTS5
    store = HistoryStore(path)
    assert not store.full_text
    store.add(sample_result("asyncio 100% guide"))
    store.add(sample_result("rust notes"))
    assert [entry.query for entry in store.search("ASYNCIO 100%")] == ["asyncio 100% guide"]
    assert store.search("realpython") == []  # answers and sources need the index
    store.close()
    monkeypatch.undo()
    store = HistoryStore(path)  # a library with FTS5: the index is built from what is stored
    assert store.full_text and len(store.search("realpython")) == 2
    store.close()


def damaged_files(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.damaged-*"))


def test_a_file_that_is_not_a_database_is_moved_aside_and_a_new_one_started(path: Path) -> None:
    garbage = b"this is not sqlite\n" * 500
    path.write_bytes(garbage)
    store = HistoryStore(path)
    (aside,) = [p for p in damaged_files(path) if not p.name.endswith(("-wal", "-shm"))]
    assert aside.read_bytes() == garbage  # nothing lost
    notice = store.take_notice()
    assert notice is not None and str(path) in notice and str(aside) in notice and "new history" in notice
    assert store.take_notice() is None
    assert store.add(sample_result()) == 1 and store.count() == 1
    store.close()


def test_damage_found_while_in_use_moves_the_file_aside_and_the_write_is_kept(path: Path) -> None:
    store = HistoryStore(path)
    for i in range(30):
        store.add(sample_result(f"search {i}", answer="word " * 2000))
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[8192:] = b"\xff" * (len(data) - 8192)  # header and schema intact, the tables destroyed
    path.write_bytes(bytes(data))
    store = HistoryStore(path)
    entry_id = store.add(sample_result("after the damage"))
    assert damaged_files(path) and store.take_notice() is not None
    assert [entry.query for entry in store.entries()] == ["after the damage"] and entry_id == 1
    store.close()


def test_an_unusable_path_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder.sqlite3"
    folder.mkdir()
    with pytest.raises(HistoryError, match=f"cannot .*history file {folder}"):
        HistoryStore(folder)
    assert folder.is_dir() and not damaged_files(folder)


WRITER = textwrap.dedent(
    """
    import sys, time
    from tests.helpers import sample_result
    from websearch_tui.history import HistoryStore
    store = HistoryStore(sys.argv[1])
    start = float(sys.argv[3])
    while time.time() < start:
        time.sleep(0.005)
    for i in range(40):
        store.add(sample_result(f"{sys.argv[2]} search {i}"))
    """
)


def test_two_processes_writing_at_once_both_succeed(path: Path) -> None:
    HistoryStore(path).close()
    start = f"{__import__('time').time() + 1.5}"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, start], cwd=REPO_ROOT, stderr=subprocess.PIPE)
        for name in ("alpha", "beta")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
    store = HistoryStore(path)
    queries = {entry.query for entry in store.entries(limit=100)}
    assert queries == {f"{name} search {i}" for name in ("alpha", "beta") for i in range(40)}
    assert len(store.search("alpha", limit=100)) == 40 and len(store.search("beta", limit=100)) == 40
    store.close()


def test_the_recorder_writes_in_order_on_its_own_thread_and_then_stops(path: Path) -> None:
    recorder = HistoryRecorder(path, max_entries=100)
    for i in range(5):
        recorder.record(sample_result(f"recorded {i}"), WHEN)
    assert recorder.flush(timeout=30)
    recorder.close()
    assert not [t for t in threading.enumerate() if t.name == "history-writer"]
    store = HistoryStore(path)
    assert [entry.query for entry in store.entries()] == [f"recorded {i}" for i in reversed(range(5))]
    assert store.entries()[0].created_at == WHEN
    store.close()


class LingeringRecorder(HistoryRecorder):
    """A recorder whose writer thread lives on a moment after the queue is empty (as on a busy machine)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, max_entries=100)
        self.writers: list[threading.Thread] = []

    def _drain(self) -> None:
        self.writers.append(threading.current_thread())
        super()._drain()
        time.sleep(0.5)


def test_close_joins_the_writer_thread(path: Path) -> None:
    """The program exits right after close() (os._exit): the writer must have ended by then."""
    recorder = LingeringRecorder(path)
    recorder.record(sample_result("joined"), WHEN)
    assert recorder.flush(timeout=30)
    recorder.close()
    assert recorder.writers and not any(writer.is_alive() for writer in recorder.writers)
    store = HistoryStore(path)
    assert [entry.query for entry in store.entries()] == ["joined"]
    store.close()


def test_close_gives_up_on_a_stuck_writer_after_its_timeout(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = threading.Event()
    recorder = HistoryRecorder(path, max_entries=100)
    monkeypatch.setattr(recorder, "_write", lambda result, started_at: disk.wait(30))
    recorder.record(sample_result("stuck"), WHEN)
    started = time.monotonic()
    recorder.close(timeout=0.2)
    assert time.monotonic() - started < 5  # bounded: the exit is not held by a stuck disk
    assert [t for t in threading.enumerate() if t.name == "history-writer" and t.is_alive()]
    disk.set()
    recorder.close()
    assert not [t for t in threading.enumerate() if t.name == "history-writer"]


def test_a_history_locked_by_another_process_is_given_up_soon_and_said(path: Path) -> None:
    HistoryStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing for longer than a recording waits
    notices: list[str] = []
    recorder = HistoryRecorder(path, max_entries=100, on_notice=notices.append)
    try:
        recorder.record(sample_result("while locked"), WHEN)
        recorder.close(timeout=5)  # waits at most this long; a recording gives up after 1 s
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert notices == [
        f"A search was not recorded in the history: the history file {path} is locked by another process (waited 1 s)"
    ]
    store = HistoryStore(path)
    assert store.count() == 0
    store.close()


def test_the_recorder_tells_a_failure_once_and_never_raises(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    notices: list[str] = []
    recorder = HistoryRecorder(folder, max_entries=100, on_notice=notices.append)
    for _ in range(3):
        recorder.record(sample_result(), WHEN)
    assert recorder.flush(timeout=30)
    recorder.close()
    assert len(notices) == 1 and notices[0].startswith("A search was not recorded in the history: cannot")


class ListRecorder:
    """A SearchRecorder that keeps what it is given."""

    def __init__(self) -> None:
        self.results: list = []

    def record(self, result, started_at) -> None:
        self.results.append((result, started_at))

    def close(self) -> None:
        pass


async def answer(request, ctx):
    yield AnswerDelta("an answer")
    yield SourcesFound((Source("https://example.com/", "Example"),))


async def hang(request, ctx):
    yield Note("started")
    await asyncio.Event().wait()


async def test_the_engine_records_ended_and_cancelled_searches_but_never_probes(monkeypatch) -> None:
    streams = {"ddgs": answer, "exa": hang, "parallel": answer}
    monkeypatch.setattr(engine_module, "load_stream", lambda pid: streams[pid])
    recorder = ListRecorder()
    engine = Engine(default_providers=("ddgs", "parallel"), recorder=recorder)
    before = datetime.now(timezone.utc)
    await engine.search(SearchRequest("finished"))
    await engine.search(SearchRequest("private"), record=False)
    task = asyncio.ensure_future(engine.search(SearchRequest("cancelled", providers=("ddgs", "exa"))))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await engine.probe("ddgs", engine.settings.get("ddgs", engine_module.ProviderSettings()))
    assert [r.request.query for r, _ in recorder.results] == ["finished", "cancelled"]
    finished, cancelled = recorder.results[0][0], recorder.results[1][0]
    assert finished.statuses() == {"ddgs": RunStatus.DONE, "parallel": RunStatus.DONE}
    assert cancelled.statuses() == {"ddgs": RunStatus.DONE, "exa": RunStatus.CANCELLED}
    assert cancelled.outcome("exa").response.notes == ["started"]  # what the cancelled run had found
    assert all(before <= started <= datetime.now(timezone.utc) for _, started in recorder.results)


async def test_the_engine_from_config_records_into_the_history_file(monkeypatch, tmp_path: Path) -> None:
    from websearch_tui.settings.config import Config, HistorySettings

    monkeypatch.setattr(engine_module, "load_stream", lambda pid: answer)
    engine = Engine.from_config(Config())
    await engine.search(SearchRequest("kept", providers=("ddgs",)))
    await engine.aclose()  # writes what is queued
    store = HistoryStore(tmp_path / "history.sqlite3")  # $WEBSEARCH_TUI_HISTORY (tests/conftest.py)
    assert [entry.query for entry in store.entries()] == ["kept"]
    store.close()
    engine.reconfigure(Config(history=HistorySettings(enabled=False)))
    assert engine.recorder is None


async def test_aclose_waits_for_the_recorder_reconfigure_replaced(monkeypatch, tmp_path: Path) -> None:
    """Settings that change [history] close the old recorder on a thread; quitting right after must
    still find the search written (the program exits with os._exit once aclose returns)."""
    from websearch_tui.settings.config import Config, HistorySettings

    real_close = HistoryRecorder.close

    def slow_close(self: HistoryRecorder, *args: float) -> None:
        time.sleep(0.3)
        real_close(self, *args)

    monkeypatch.setattr(HistoryRecorder, "close", slow_close)
    monkeypatch.setattr(engine_module, "load_stream", lambda pid: answer)
    engine = Engine.from_config(Config())
    await engine.search(SearchRequest("kept", providers=("ddgs",)))
    engine.reconfigure(Config(history=HistorySettings(enabled=False)))
    await engine.aclose()
    assert not [t for t in threading.enumerate() if t.name in ("history-close", "history-writer")]
    store = HistoryStore(tmp_path / "history.sqlite3")  # $WEBSEARCH_TUI_HISTORY (tests/conftest.py)
    assert [entry.query for entry in store.entries()] == ["kept"]
    store.close()


def test_outcomes_keep_partial_content_of_cancelled_runs(store: HistoryStore) -> None:
    result = sample_result()
    result.outcomes[1] = ProviderOutcome("brave", RunStatus.CANCELLED, result.outcomes[1].response, None, 80)
    stored = store.get(store.add(result))
    assert records([stored.result.outcome("brave")]) == records(result.outcomes[1:])


# --- big histories: bounded search, pruning in batches off the search's path, space given back ---


def test_a_search_matches_only_its_first_ten_terms_and_says_how_many_were_left_out() -> None:
    from websearch_tui.history.index import MAX_TERMS, match_expression, terms_left_out

    words = [f"word{n}" for n in range(80)]
    assert match_expression(" ".join(words)) == " ".join(f'"{word}"*' for word in words[:MAX_TERMS])
    assert terms_left_out(" ".join(words)) == 80 - MAX_TERMS
    assert terms_left_out("asyncio asyncio tutorial") == 0


def test_best_first_ranks_the_newest_matches_only(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from websearch_tui.history import store as store_module

    monkeypatch.setattr(store_module, "RANKED_MATCHES", 3)
    store = HistoryStore(path)
    best = store.add(sample_result("tulip tulip tulip", answer="tulip"))  # the best match, but the oldest
    newer = [store.add(sample_result(f"other {n}", answer="a tulip")) for n in range(4)]
    assert ids(store.search("tulip", limit=10)) == newer[:0:-1]  # the newest three, ranked
    assert best in ids(store.search("tulip", limit=10, best_first=False) + store.search("tulip tulip"))
    store.close()


def test_a_large_prune_runs_in_batches_after_the_add(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from websearch_tui.history import store as store_module

    store = HistoryStore(path)
    for n in range(10):
        store.add(sample_result(f"query number{n}"))
    store.close()
    monkeypatch.setattr(store_module, "PRUNE_BATCH", 2)
    store = HistoryStore(path, max_entries=3)
    newest = store.add(sample_result("query newest"))
    assert store.count() == 9  # the add deleted one batch, not all eight
    calls = 1
    while store.prune():
        calls += 1
    assert calls == 3 and store.count() == 3 and not store.prune()
    assert [entry.query for entry in store.entries()] == ["query newest", "query number9", "query number8"]
    assert ids(store.search("query")) == [newest, newest - 1, newest - 2]
    with sqlite3.connect(path) as db:  # the pruned searches are gone from the index itself
        assert db.execute("SELECT rowid FROM search_index WHERE search_index MATCH 'number0'").fetchall() == []
    store.close()


def test_reclaim_gives_space_back_only_when_much_is_free(path: Path) -> None:
    store = HistoryStore(path)
    for n in range(40):
        store.add(sample_result(f"query {n}", answer=secrets.token_hex(4000)))
    assert store.reclaim() == 0  # nothing free: not worth a VACUUM
    store.max_entries = 4
    while store.prune():
        pass
    store.close()  # the last connection to close folds the WAL into the file
    size = path.stat().st_size
    store = HistoryStore(path, max_entries=4)
    freed = store.reclaim()
    assert ids(store.search("query")) == [40, 39, 38, 37]
    store.close()
    assert freed > size / 2 and path.stat().st_size == size - freed
