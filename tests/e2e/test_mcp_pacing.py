"""A web_search call held back by a provider's client-side pacing says so: in its progress
notifications and in the provider's notes of the result (text and structured)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e import test_mcp_server as mcp_e2e
from tests.e2e.test_mcp_server import QUERY
from tests.fake_providers import FakeServer
from websearch_tui.engine.engine import Engine
from websearch_tui.mcp.tools import SearchTools
from websearch_tui.session import Session
from websearch_tui.settings.config import load_config

fake_server, fake_config = mcp_e2e.fake_server, mcp_e2e.fake_config  # the MCP server tests' fixtures


@pytest.fixture
def paced_config(fake_config: Path) -> Path:
    """The fake's config with Tavily paced to one request every 0.3 s."""
    text = fake_config.read_text().replace("[providers.tavily]\n", "[providers.tavily]\nmin_interval = 0.3\n", 1)
    fake_config.write_text(text)
    return fake_config


async def test_a_paced_call_says_it_was_held_back(fake_server: FakeServer, paced_config: Path) -> None:
    config = load_config(paced_config)
    tools = SearchTools(Session(config, Engine.from_config(config)))
    sent: list[str | None] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        sent.append(message)

    try:
        first = await tools.call("web_search", {"query": QUERY, "providers": ["tavily"]}, progress)
        # fresh: the first call's result would be reused from the history, and nothing sent
        second = await tools.call("web_search", {"query": QUERY, "providers": ["tavily"], "fresh": True}, progress)
    finally:
        await tools.aclose()
    assert sent[0] == "1/1 done: Tavily done" and len(sent) == 3
    assert (
        sent[1] is not None
        and sent[1].startswith("0/1 done: waiting 0.")
        and sent[1].endswith(" s: Tavily allows one search every 0.3 s")
    )
    assert sent[2] == "1/1 done: Tavily done"
    notes = [outcome["response"]["notes"] for outcome in second.structured_content["results"]]  # type: ignore[index]
    held = [note for note in notes[0] if note.startswith("Held back 0.")]
    assert held and "one request every 0.3 s" in held[0] and "[providers.tavily] min_interval" in held[0]
    assert held[0] in second.content[0].text  # type: ignore[union-attr]
    assert "Held back" not in first.content[0].text  # type: ignore[union-attr]
