"""The TUI over real HTTP: model-native providers stream from the fake server into their panes."""

from __future__ import annotations

import pytest

from tests.fake_providers import FAKE_KEYS, FakeServer
from tests.tui.conftest import fixed_status, submit, wait_for_search
from websearch_tui.config import load_config
from websearch_tui.search.engine import Engine
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.widgets.provider_pane import ProviderPane
from websearch_tui.tui.widgets.source_list import CitationList

STREAMING = ("anthropic", "openai", "gemini")


@pytest.mark.parametrize("provider_id", STREAMING)
async def test_answer_grows_then_citations_appear(provider_id: str, tmp_path, monkeypatch) -> None:
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    with FakeServer(token_delay=0.04) as server:
        config = load_config(server.write_config(tmp_path / "config.toml", providers=[provider_id]))
        app = WebSearchApp(config, Engine.from_config(config), status_resolver=fixed_status)
        async with app.run_test(size=(120, 40)) as pilot:
            await submit(pilot, "python asyncio")
            pane = app.screen.query_one(f"#pane-{provider_id}", ProviderPane)
            lengths = []
            for _ in range(200):
                await pilot.pause(0.05)
                lengths.append(len(pane.answer.source))
                if pane.status != "running" and pane.status != "streaming":
                    break
            await wait_for_search(app, timeout=20)
            assert pane.status == "done", pane.response
            growing = [n for n in lengths if 0 < n < lengths[-1]]
            assert growing, lengths  # the pane showed part of the answer before the end
            assert pane.response.citations and pane.query_one(CitationList).visual.plain.strip()
            assert "docs.python.org" in pane.query_one(CitationList).visual.plain
