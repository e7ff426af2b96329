"""The TUI over real HTTP: model-native providers stream from the fake server into their panes."""

from __future__ import annotations

import pytest

from tests.fake_providers import FAKE_KEYS, FakeServer
from tests.tui.conftest import fixed_status, submit, until, wait_for_search
from websearch_tui.engine.engine import Engine
from websearch_tui.settings.config import load_config
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.source_list import CitationList

STREAMING = ("anthropic", "openai", "gemini")


@pytest.mark.parametrize("provider_id", STREAMING)
async def test_answer_grows_then_citations_appear(provider_id: str, tmp_path, monkeypatch) -> None:
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    with FakeServer(token_delay=0.04) as server:
        release = server.hold(provider_id)  # the stream stops halfway until the test has looked
        config = load_config(server.write_config(tmp_path / "config.toml", providers=[provider_id]))
        app = WebSearchApp(config, Engine.from_config(config), status_resolver=fixed_status)
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                await submit(pilot, "python asyncio")
                pane = app.screen.query_one(f"#pane-{provider_id}", ProviderPane)

                def shown() -> int:
                    return len(pane.answer.source)

                await until(
                    pilot,
                    lambda: shown() > 0,
                    "the pane shows part of the answer",
                    detail=lambda: (pane.status, pane.response),
                )
                partial = shown()
                assert pane.status == "streaming"  # the pane shows part of the answer before the end
                release.set()
                await wait_for_search(app)
                assert pane.status == "done", pane.response
                assert shown() > partial
                shown = "\n".join(row.plain for row in pane.query_one(CitationList).rows)
                assert pane.response.citations and shown.strip()
                assert "docs.python.org" in shown
        finally:
            release.set()  # a failed check must not leave the fake's stream held
