"""Damage confined to the history's full-text index, as a class (fuzz-style): random bytes written
over the FTS5 index's own rows (its segment leaves, its structure record, its averages), then each
way a history is used (the store's searches, add, delete; CLI ``history search``; MCP
``history_search``). No stored search may be lost or set aside: the index is rebuilt from the
searches table, and every path says so."""

from __future__ import annotations

import asyncio
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import sample_result
from websearch_tui.cli.main import main
from websearch_tui.engine.engine import Engine
from websearch_tui.history import HistoryStore
from websearch_tui.mcp.tools import SearchTools
from websearch_tui.session import Session
from websearch_tui.settings.config import Config

SEARCHES = 40
SEEDS = range(1, 9)
REBUILT = "was damaged"
"""Words of the notice a rebuilt index gives."""


def marker(n: int) -> str:
    """A word only search ``n`` holds (in its answer)."""
    return f"zq{n:03d}marker"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A history of :data:`SEARCHES` searches whose index spans many leaf blocks, built once."""
    path = tmp_path_factory.mktemp("template") / "history.sqlite3"
    words = random.Random(1)
    store = HistoryStore(path)
    for n in range(1, SEARCHES + 1):
        filler = " ".join(f"w{words.randrange(5000)}" for _ in range(300))
        store.add(sample_result(f"query {n}", answer=f"{marker(n)} {filler}"))
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


STRUCTURE = 10
"""The rowid of FTS5's structure record (the list of segments and their levels)."""
EVERY_LEAF = -1
"""The seed that damages every leaf of the index: any search meets the damage."""


def damage_index(path: Path, seed: int) -> str:
    """Write random bytes over index rows chosen by ``seed`` (:data:`EVERY_LEAF`: all its leaves);
    returns what was damaged."""
    rng = random.Random(seed)
    with sqlite3.connect(path) as db:
        rows = [row_id for (row_id,) in db.execute("SELECT id FROM search_index_data ORDER BY id")]
        leaves = [row_id for row_id in rows if row_id > STRUCTURE]
        kind = "every leaf" if seed == EVERY_LEAF else ["leaf", "leaf bytes", "structure", "leaves"][seed % 4]
        chosen = {"structure": [STRUCTURE], "leaves": rng.sample(leaves, 4), "every leaf": leaves}.get(
            kind, [rng.choice(leaves)]
        )
        for row_id in chosen:
            (block,) = db.execute("SELECT block FROM search_index_data WHERE id = ?", (row_id,)).fetchone()
            data = bytearray(block)
            if kind == "leaf bytes":
                for _ in range(8):
                    data[rng.randrange(len(data))] = rng.randrange(256)
            else:
                data[4:] = rng.randbytes(len(data) - 4)
            db.execute("UPDATE search_index_data SET block = ? WHERE id = ?", (bytes(data), row_id))
    return kind


@pytest.fixture
def damaged(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Path:
    """A copy of the template whose index is damaged by this case's seed; the tests' history file."""
    path = tmp_path / "history.sqlite3"
    shutil.copy(template, path)
    damage_index(path, request.param)
    monkeypatch.setenv("WEBSEARCH_TUI_HISTORY", str(path))
    return path


def set_aside(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.damaged-*"))


def all_kept(path: Path, expected: int, *, rebuilt: bool = True) -> None:
    """Nothing was set aside and every search is there; after a rebuild the index finds each by its
    own word (damage no read has met yet may still give wrong matches: SQLite cannot see it)."""
    assert set_aside(path) == []
    store = HistoryStore(path)
    try:
        assert store.count() == expected
        queries = {entry_id: f"query {entry_id}" for entry_id in (1, SEARCHES // 2, SEARCHES - 2)}
        for entry_id, query in queries.items():
            assert store.get(entry_id).result.request.query == query
            if rebuilt:
                assert [entry.query for entry in store.search(marker(entry_id))] == [query]
    finally:
        store.close()


def store_operation(name: str) -> Callable[[HistoryStore], object]:
    return {
        "search best first": lambda store: store.search("w1 w2 w3 query"),
        "search newest first": lambda store: store.search("w1 w2 w3 query", best_first=False),
        "add": lambda store: store.add(sample_result("after the damage")),
        "delete": lambda store: store.delete(SEARCHES - 1),
    }[name]


@pytest.mark.parametrize("damaged", SEEDS, indirect=True)
@pytest.mark.parametrize("operation", ["search best first", "search newest first", "add", "delete"])
def test_the_store_rebuilds_a_damaged_index_and_keeps_every_search(damaged: Path, operation: str) -> None:
    """The operation, then searches reading every leaf of the index (each search's own word, every
    three-character prefix of the filler words), so that the damage is met somewhere."""
    store = HistoryStore(damaged)
    store_operation(operation)(store)
    notices = [store.take_notice()]
    for probe in [marker(n) for n in range(1, SEARCHES + 1)] + [f"w{n}" for n in range(10, 100)]:
        store.search(probe)
        notices.append(store.take_notice())
    store.close()
    said = [notice for notice in notices if notice is not None]
    for notice in said:
        assert REBUILT in notice and "searches stored, and no search was lost" in notice
    expected = SEARCHES + {"add": 1, "delete": -1}.get(operation, 0)
    all_kept(damaged, expected, rebuilt=bool(said))


@pytest.mark.parametrize("damaged", [EVERY_LEAF], indirect=True)
def test_cli_history_search_says_the_index_was_rebuilt_and_show_still_works(
    damaged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "search", "w1", "w2", "w3", "query"]) == 0
    err = capsys.readouterr().err
    assert "websearch-tui: warning: The full-text index of the history file" in err and "no search was lost" in err
    assert main(["history", "show", "2", "--format", "json"]) == 0
    assert '"query": "query 2"' in capsys.readouterr().out
    all_kept(damaged, SEARCHES)


@pytest.mark.parametrize("damaged", [EVERY_LEAF], indirect=True)
def test_mcp_history_search_says_the_index_was_rebuilt(damaged: Path) -> None:
    tools = SearchTools(Session(Config(), Engine()))

    async def call() -> str:
        try:
            result = await tools.call("history_search", {"text": "w1 w2 w3 query"}, progress=_no_progress)
        finally:
            await tools.aclose()
        assert not result.is_error
        return str(result.content[0].text)  # type: ignore[union-attr]

    text = asyncio.run(call())
    assert text.startswith("Note: The full-text index of the history file") and "no search was lost" in text
    all_kept(damaged, SEARCHES)


async def _no_progress(done: float, total: float | None, message: str | None) -> None:
    return None


def test_damage_beyond_the_index_still_sets_the_file_aside_and_says_so(
    template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "history.sqlite3"
    shutil.copy(template, path)
    damage_index(path, EVERY_LEAF)
    with sqlite3.connect(path) as db:  # the searches' own rows too: the index cannot be rebuilt
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'searches'").fetchone()
        (size,) = db.execute("PRAGMA page_size").fetchone()
    data = bytearray(path.read_bytes())
    data[size * (root - 1) : size * root] = b"\xff" * size
    path.write_bytes(bytes(data))
    monkeypatch.setenv("WEBSEARCH_TUI_HISTORY", str(path))
    assert main(["history", "search", "w1", "w2", "w3", "query"]) == 0
    err = capsys.readouterr().err
    assert "websearch-tui: warning: The history file" in err and "it was kept as" in err
    assert set_aside(path)
