"""Serper, Linkup and Valyu (issue 30) in the real app over the loopback fake: each pane holds what
its API gave (Serper's knowledge-graph note, answer box, citation and related questions; Linkup's
sourced answer and its citations; Valyu's paper), and the merged view says which of them found and
cited the same page."""

from __future__ import annotations

import pytest
import tomlkit
from rich.text import Text
from textual.widgets import OptionList

from tests.fake_providers import FAKE_KEYS, FakeServer, config_toml
from tests.tui.conftest import fixed_status, submit, until, wait_for_search
from websearch_tui.engine.engine import Engine
from websearch_tui.settings.config import parse_config
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.search.merged_view import MergedView
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.source_list import SourceList

PROVIDERS = ("serper", "linkup", "valyu")


def merged_rows(app: WebSearchApp) -> list[str]:
    """The plain text of every row of the merged view."""
    options = app.screen.query_one("#merged-rows", OptionList)
    prompts = [options.get_option_at_index(i).prompt for i in range(options.option_count)]
    return [prompt.plain if isinstance(prompt, Text) else str(prompt) for prompt in prompts]


def shown_rows(pane: ProviderPane) -> list[str]:
    """The plain text of the pane's source rows."""
    return [row.plain for row in pane.query_one(SourceList).rows]


async def test_panes_and_merged_view(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SERPER_API_KEY", "LINKUP_API_KEY", "VALYU_API_KEY"):
        monkeypatch.setenv(name, FAKE_KEYS[name])
    with FakeServer() as server:
        config = parse_config(tomlkit.parse(config_toml(server.base_url, providers=list(PROVIDERS))).unwrap())
        app = WebSearchApp(config, Engine.from_config(config), status_resolver=fixed_status)
        async with app.run_test(size=(200, 60)) as pilot:
            await submit(pilot, "python asyncio")
            await wait_for_search(app, timeout=20)
            panes = {pid: app.screen.query_one(f"#pane-{pid}", ProviderPane) for pid in PROVIDERS}
            assert {pid: pane.status for pid, pane in panes.items()} == dict.fromkeys(PROVIDERS, "done")
            serper, linkup = panes["serper"].response, panes["linkup"].response
            assert serper.notes[0].startswith("Knowledge graph: Python (Programming language)")
            assert serper.answer == "asyncio is a library to write concurrent code using the async/await syntax."
            assert serper.related_questions[:2] == ["What is asyncio used for?", "Is asyncio faster than threading?"]
            assert len(linkup.citations) == 2 and linkup.answer
            assert any("Python Asyncio: The Complete Guide" in row for row in shown_rows(panes["serper"]))
            assert any("arxiv.org" in row for row in shown_rows(panes["valyu"]))
            panes["serper"].focus_target()  # `m` would be typed text in the query box
            await pilot.press("m")
            await pilot.pause()
            assert app.screen.query_one(MergedView).display
            await until(pilot, lambda: len(merged_rows(app)) == 4, "four merged rows", detail=lambda: merged_rows(app))
            first, second, paper, guide = merged_rows(app)
            assert first.splitlines() == [
                "[1] asyncio — Asynchronous I/O — Python 3 documentation",
                "    docs.python.org · found by 3 · Linkup, Serper, Valyu",
                "    cited by Linkup [1], Serper [1]",
            ]
            assert "found by 2 · Linkup, Serper" in second and "cited by Linkup [2]" in second
            assert "arxiv.org" in paper and "found by 1 · Valyu" in paper
            assert "found by 1 · Serper" in guide
