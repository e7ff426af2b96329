"""Pages kept in the history (schema version 3): stored and read back exactly, by the URL asked for
or the final URL, replaced when read again, redacted and sanitised, capped in number, in bytes and
at the reader's cap, cleared with the history, migrated into from version 2; and the MCP
``fetch_page`` tool reading a kept page without the network."""

from __future__ import annotations

import dataclasses
import sqlite3
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.helpers import sample_result
from websearch_tui.core.errors import register_secret
from websearch_tui.core.pages import Page, utc_now
from websearch_tui.history import HistoryStore, schema
from websearch_tui.history import pages as page_codec
from websearch_tui.history.codec import encode
from websearch_tui.history.store import MAX_PAGES, MAX_PAGES_BYTES

WHEN = datetime(2026, 5, 1, 14, 3, 5, 123456, tzinfo=timezone.utc)
TEXT = (
    "# Tides\n\nThe tide at **Brest** rises 7 m twice a day.\n\n| port | range |\n|---|---|\n| Brest | 7 m |\n\n"
    "Voir aussi : [marées](https://fr.example/marées) — 潮汐 🌊\n"
)


def make_page(url: str = "https://example.com/tides", **changes: object) -> Page:
    """A page with every field set (the reader's kind of page)."""
    page = Page(
        url=url,
        final_url=url.replace("example.com", "www.example.com"),
        status=200,
        title="Tides of Brittany",
        site="Example",
        author="A. Marin",
        published_date="2024-05-01",
        text=TEXT,
        word_count=len(TEXT.split()),
        truncated=False,
        retrieved_at=WHEN,
        content_sha256="ab" * 32,
        content_type="text/html",
    )
    return dataclasses.replace(page, **changes)  # type: ignore[arg-type]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite3"


@pytest.fixture
def store(path: Path):
    store = HistoryStore(path)
    yield store
    store.close()


def test_a_page_is_stored_and_read_back_exactly(store: HistoryStore) -> None:
    page = make_page()
    assert store.add_page(page)
    kept = store.page(page.url)
    assert kept == dataclasses.replace(page, from_history=True)  # every field, the time to the microsecond
    assert kept is not None and kept.retrieved_at.tzinfo is not None and kept.to_dict() == page.to_dict()
    assert store.page(page.final_url) == kept  # found by where its content came from too
    assert store.page("https://example.com/other") is None
    assert store.page_count() == 1


def test_optional_fields_and_a_truncated_pdf_read_back_too(store: HistoryStore) -> None:
    page = make_page(
        title=None, site=None, author=None, published_date=None, truncated=True, content_type="application/pdf"
    )
    store.add_page(page)
    assert store.page(page.url) == dataclasses.replace(page, from_history=True)


def test_a_page_read_again_replaces_its_row(store: HistoryStore) -> None:
    store.add_page(make_page())
    later = make_page(text="The tide rises 8 m.", word_count=5, retrieved_at=WHEN + timedelta(hours=1))
    store.add_page(later)
    assert store.page_count() == 1
    assert store.page(later.url) == dataclasses.replace(later, from_history=True)


def test_the_url_asked_for_wins_over_another_pages_final_url(store: HistoryStore) -> None:
    redirected = make_page("https://short.example/t", final_url="https://example.com/tides", title="Via a redirect")
    direct = make_page("https://example.com/tides", final_url="https://example.com/tides", title="Direct")
    store.add_page(direct)
    store.add_page(redirected)  # newer, and its final URL is the other page's URL
    found = store.page("https://example.com/tides")
    assert found is not None and found.title == "Direct"
    found = store.page("https://short.example/t")
    assert found is not None and found.title == "Via a redirect"


def test_a_page_is_redacted_when_written_and_sanitised_when_read(store: HistoryStore, path: Path) -> None:
    secret = "sk-test-0123456789abcdef"
    register_secret(secret)
    page = make_page(
        "https://example.com/leak?key=" + secret, text=f"The key {secret} was pasted here.", title=f"Key {secret}"
    )
    store.add_page(page)
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT url, title, text FROM pages").fetchone()
    stored = row[0] + row[1] + zlib.decompress(row[2]).decode()
    assert secret not in stored and "***" in row[0] and "The key *** was pasted here." in stored
    kept = store.page(page.url)  # the URL asked for is redacted the same way to look it up
    assert kept is not None and kept.text == "The key *** was pasted here." and kept.title == "Key ***"

    with sqlite3.connect(path) as db:  # somebody wrote escape sequences into the file directly
        evil = zlib.compress(b"# Title\x1b]52;c;SGVsbG8=\x07\n\nbody\x1b[2J text")
        db.execute("UPDATE pages SET title = ?, text = ?", ("evil\x1b[31m title\u202e", evil))
    kept = store.page(page.url)
    assert kept is not None and kept.title == "evil title" and kept.text == "# Title\n\nbody text"


def test_a_page_longer_than_the_readers_cap_is_not_stored(store: HistoryStore) -> None:
    page = make_page(text="é" * 600)  # 1,200 UTF-8 bytes
    assert not store.add_page(page, max_bytes=1_000)
    assert store.page(page.url) is None and store.page_count() == 0
    assert store.add_page(page, max_bytes=1_200)
    assert store.page(page.url) is not None


def test_the_oldest_pages_are_dropped_beyond_the_count_cap(path: Path) -> None:
    assert MAX_PAGES == 2_000 and MAX_PAGES_BYTES == 256 * 1024 * 1024
    default = HistoryStore(path)
    assert (default.max_pages, default.max_pages_bytes) == (MAX_PAGES, MAX_PAGES_BYTES)
    default.close()
    store = HistoryStore(path, max_pages=3)
    for number in range(5):
        store.add_page(make_page(f"https://example.com/{number}"))
    assert store.page_count() == 3
    assert [store.page(f"https://example.com/{n}") is not None for n in range(5)] == [False, False, True, True, True]
    store.add_page(make_page("https://example.com/2", title="read again"))  # now the most recently stored
    store.add_page(make_page("https://example.com/5"))
    kept = [n for n in range(6) if store.page(f"https://example.com/{n}") is not None]
    assert kept == [2, 4, 5]  # 3 was the least recently stored
    store.close()


def test_the_oldest_pages_are_dropped_beyond_the_byte_cap_and_the_newest_is_kept(path: Path) -> None:
    noise = [" ".join(f"{n}-{i * 7919 % 10007}" for i in range(400)) for n in range(4)]  # compresses poorly
    sizes = [len(zlib.compress(text.encode(), 6)) for text in noise]
    store = HistoryStore(path, max_pages_bytes=sizes[0] + sizes[1] + sizes[2] // 2)
    for number, text in enumerate(noise[:3]):
        store.add_page(make_page(f"https://example.com/{number}", text=text))
    assert [store.page(f"https://example.com/{n}") is not None for n in range(3)] == [False, True, True]
    store.max_pages_bytes = 1  # smaller than any page: only the newest is left
    store.add_page(make_page("https://example.com/3", text=noise[3]))
    assert store.page_count() == 1 and store.page("https://example.com/3") is not None
    store.close()


def test_clearing_the_history_deletes_the_pages_too(store: HistoryStore) -> None:
    store.add(sample_result())
    store.add_page(make_page())
    assert store.clear() == 1
    assert store.page_count() == 0 and store.page(make_page().url) is None


def test_deleting_a_search_keeps_the_pages(store: HistoryStore) -> None:
    entry_id = store.add(sample_result())
    store.add_page(make_page())
    store.delete(entry_id)
    assert store.page_count() == 1


def test_a_damaged_page_row_reads_as_not_stored_and_is_replaced_by_the_next_read(
    store: HistoryStore, path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    page = make_page()
    store.add_page(page)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE pages SET text = ?", (b"not zlib",))
    assert store.page(page.url) is None
    assert "cannot be read back" in caplog.text
    store.add_page(page)
    assert store.page(page.url) == dataclasses.replace(page, from_history=True)
    for column, value in (("retrieved_at", "yesterday"), ("status", "two hundred"), ("title", b"\x00bytes")):
        with sqlite3.connect(path) as db:
            db.execute(f"UPDATE pages SET {column} = ?", (value,))
        assert store.page(page.url) is None, column
        store.add_page(page)


def test_a_stored_text_is_never_inflated_past_the_cap(
    store: HistoryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = make_page(text="a" * 5_000)
    store.add_page(page)
    monkeypatch.setattr(page_codec, "MAX_TEXT_BYTES", 4_096)  # a row claiming more is damaged
    assert store.page(page.url) is None
    monkeypatch.setattr(page_codec, "MAX_TEXT_BYTES", 5_000)
    found = store.page(page.url)
    assert found is not None and found.text == page.text


def write_version_2(path: Path, queries: list[str]) -> None:
    """A history file as version 2 of the schema left it: the searches and their index, no pages."""
    with sqlite3.connect(path) as db:
        schema.MIGRATIONS[0](db)
        for query in queries:
            columns = encode(sample_result(query), WHEN).columns
            names, marks = ", ".join(columns), ", ".join("?" for _ in columns)
            db.execute(f"INSERT INTO searches({names}) VALUES ({marks})", tuple(columns.values()))
        schema.create_index(db)
        db.execute("PRAGMA user_version = 2")


def test_a_version_2_file_gains_the_pages_table_and_keeps_its_searches(path: Path) -> None:
    write_version_2(path, ["old asyncio question", "old rust question"])
    store = HistoryStore(path)
    assert [entry.query for entry in store.search("rust")] == ["old rust question"]
    assert store.get(2).result.request.query == "old rust question"
    assert store.page_count() == 0
    page = make_page()
    assert store.add_page(page) and store.page(page.url) == dataclasses.replace(page, from_history=True)
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == schema.LATEST
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert {"searches", "search_index", "pages", "pages_final_url", "runs", "run_days"} <= names
    HistoryStore(path).close()  # opened again: nothing more to migrate


def test_a_version_2_file_without_fts5_is_migrated_too(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with sqlite3.connect(path) as db:
        schema.MIGRATIONS[0](db)
        db.execute("PRAGMA user_version = 2")  # written where SQLite had no FTS5: no index
    monkeypatch.setattr(schema, "INDEX_MODULE", "no_such_fts")
    store = HistoryStore(path)
    assert not store.full_text and store.add_page(make_page()) and store.page_count() == 1
    store.close()


def test_pages_written_by_one_store_are_read_by_another(path: Path) -> None:
    writer, reader = HistoryStore(path), HistoryStore(path)
    page = make_page(retrieved_at=utc_now())
    writer.add_page(page)
    assert reader.page(page.url) == dataclasses.replace(page, from_history=True)
    writer.close()
    reader.close()


async def test_the_mcp_fetch_page_tool_reads_a_kept_page_without_the_network(monkeypatch, tmp_path) -> None:
    from websearch_tui.engine.engine import Engine
    from websearch_tui.mcp.tools import SearchTools
    from websearch_tui.session import Session
    from websearch_tui.settings.config import parse_config

    class NoNetwork:
        async def read(self, url: str) -> Page:
            raise AssertionError(f"the network was used for {url}")

        async def aclose(self) -> None: ...

    monkeypatch.setattr(Session, "reader", property(lambda self: NoNetwork()))
    config = parse_config({"history": {"path": str(tmp_path / "history.sqlite3")}}, tmp_path / "config.toml")
    page = make_page(retrieved_at=utc_now() - timedelta(minutes=5))
    store = HistoryStore(tmp_path / "history.sqlite3")
    store.add_page(page)
    store.close()
    tools = SearchTools(Session(config, Engine(default_providers=())))

    async def progress(done: float, total: float | None, message: str | None) -> None: ...

    result = await tools.fetch_page({"url": page.url}, progress)
    assert not result.is_error and result.structured_content is not None
    assert result.structured_content["text"] == TEXT and result.structured_content["title"] == "Tides of Brittany"
    await tools.aclose()
