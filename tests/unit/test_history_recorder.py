"""The history recorder's one writer thread: it serves every search of a session, flushing and
closing still write everything queued, and tidying the file waits for a quiet moment."""

from __future__ import annotations

import secrets
import threading
from datetime import datetime, timezone
from pathlib import Path

from tests.helpers import sample_result
from websearch_tui.core.results import SearchResult
from websearch_tui.history import HistoryRecorder, HistoryStore
from websearch_tui.session.history import HistoryAccess

WHEN = datetime(2026, 5, 1, 14, 3, 5, tzinfo=timezone.utc)


class SpyRecorder(HistoryRecorder):
    """A recorder that notes the thread of each write, can hold its writes until ``release`` is set,
    and sets ``tidied`` when a tidying ends."""

    def __init__(self, path: Path, *, tidy_after: float = 30.0, hold: bool = False, max_entries: int = 100) -> None:
        super().__init__(path, max_entries=max_entries, tidy_after=tidy_after)
        self.writers: list[threading.Thread] = []
        self.writing = threading.Event()
        self.release = threading.Event()
        self.tidied = threading.Event()
        if not hold:
            self.release.set()

    def _write(self, result: SearchResult, started_at: datetime) -> bool:
        self.writers.append(threading.current_thread())
        self.writing.set()
        self.release.wait(30)
        return super()._write(result, started_at)

    def _tidy_step(self) -> bool:
        done = super()._tidy_step()
        if done:
            self.tidied.set()
        return done


def writer_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "history-writer"]


def stored_queries(path: Path) -> list[str]:
    """The queries the file holds, oldest first."""
    store = HistoryStore(path)
    try:
        return [entry.query for entry in reversed(store.entries(limit=1000))]
    finally:
        store.close()


def test_one_writer_thread_serves_every_search_until_close(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    recorder = SpyRecorder(path)
    for i in range(3):
        recorder.record(sample_result(f"first {i}"), WHEN)
    assert recorder.flush(timeout=30)
    (writer,) = set(recorder.writers)
    assert writer.is_alive()  # it waits for the next search rather than end
    for i in range(2):
        recorder.record(sample_result(f"later {i}"), WHEN)
        assert recorder.flush(timeout=30)
    assert set(recorder.writers) == {writer} and len(recorder.writers) == 5
    recorder.close()
    assert not writer.is_alive() and writer not in writer_threads()
    assert stored_queries(path) == ["first 0", "first 1", "first 2", "later 0", "later 1"]


def test_flushing_waits_for_everything_queued_and_readers_see_it(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    recorder = HistoryRecorder(path, max_entries=100)
    for i in range(40):
        recorder.record(sample_result(f"burst {i}"), WHEN)
    access = HistoryAccess(path, recorder=recorder, flush_seconds=30)  # what every front end reads through
    try:
        assert [entry.query for entry in access.entries(limit=100)] == [f"burst {i}" for i in reversed(range(40))]
    finally:
        access.close()
        recorder.close()


def test_a_search_recorded_while_closing_is_written_before_the_writer_ends(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    recorder = SpyRecorder(path, hold=True)
    recorder.record(sample_result("before close"), WHEN)
    assert recorder.writing.wait(30)  # the writer holds the first search
    closing = threading.Thread(target=recorder.close)
    closing.start()
    recorder.record(sample_result("during close"), WHEN)
    recorder.release.set()
    closing.join(30)
    assert not closing.is_alive()
    assert not any(writer.is_alive() for writer in recorder.writers)
    assert stored_queries(path) == ["before close", "during close"]


def test_a_search_recorded_after_close_starts_a_new_writer(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    recorder = SpyRecorder(path)
    recorder.record(sample_result("first session"), WHEN)
    recorder.close()
    recorder.record(sample_result("after close"), WHEN)
    assert recorder.flush(timeout=30)
    recorder.close()
    first, second = recorder.writers
    assert first is not second and not second.is_alive()
    assert stored_queries(path) == ["first session", "after close"]


def test_a_burst_of_searches_is_written_without_tidying_between_them(tmp_path: Path) -> None:
    recorder = SpyRecorder(tmp_path / "history.sqlite3", tidy_after=30)
    for i in range(5):
        recorder.record(sample_result(f"burst {i}"), WHEN)
    assert recorder.flush(timeout=30)
    assert not recorder.tidied.is_set()  # not quiet for 30 s yet
    recorder.close()  # closing never waits for a tidying
    assert not recorder.tidied.is_set()


def test_once_quiet_the_writer_prunes_and_compacts_the_file(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    store = HistoryStore(path)
    for n in range(30):
        store.add(sample_result(f"query {n}", answer=secrets.token_hex(4000)))
    store.close()
    size = path.stat().st_size
    recorder = SpyRecorder(path, tidy_after=0.05, max_entries=5)
    recorder.record(sample_result("the newest"), WHEN)
    assert recorder.tidied.wait(60)
    recorder.close()
    store = HistoryStore(path)
    assert store.count() == 5 and store.entries()[0].query == "the newest"
    store.close()
    assert path.stat().st_size < size / 2
