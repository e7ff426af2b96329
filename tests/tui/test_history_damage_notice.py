"""The History screen says when the history's full-text index was damaged and rebuilt (fake streams,
no network); the searches stay listed and found."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from tests.helpers import sample_result
from tests.tui.conftest import fixed_status, workers_done
from tests.tui.test_history_screen import open_history
from tests.unit.test_history_damage import EVERY_LEAF, damage_index, marker
from websearch_tui.engine.engine import Engine
from websearch_tui.history import HistoryStore
from websearch_tui.settings.config import Config
from websearch_tui.tui.app import WebSearchApp


def damaged_history() -> Path:
    """The tests' history file, holding 12 searches, its index damaged in every leaf."""
    path = Path(os.environ["WEBSEARCH_TUI_HISTORY"])
    store = HistoryStore(path)
    for n in range(1, 13):
        store.add(sample_result(f"query {n}", answer=f"{marker(n)} " + " ".join(f"w{n * k}" for k in range(300))))
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damage_index(path, EVERY_LEAF)
    return path


async def test_filtering_a_history_with_a_damaged_index_rebuilds_it_and_says_so(fake_streams: object) -> None:
    path = damaged_history()
    app = WebSearchApp(Config(), Engine(default_providers=("ddgs",)), status_resolver=fixed_status)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_history(pilot)
        assert len(screen.rows.entries) == 12
        screen.filter_input.value = marker(7)
        await pilot.pause()
        await workers_done(app)
        assert [entry.query for entry in screen.rows.entries] == ["query 7"]
        said = [n.message for n in app._notifications if "full-text index" in n.message]
        assert len(said) == 1 and "no search was lost" in said[0]
    assert not list(path.parent.glob(f"{path.name}.damaged-*"))
