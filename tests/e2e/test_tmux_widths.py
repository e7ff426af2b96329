"""In a real terminal: providers whose every payload string carries characters Rich and terminals measure
differently (the Hangul fillers U+3164, U+115F and U+FFA0, 0 cells to Rich and 2 or 1 in tmux; the VS16
heart; an unassigned code point; a toned thumbs-up, whose skin-tone modifier is 0 cells to Rich and 2 in
tmux) no longer push their text into the next pane: every pane row keeps its right border (issue 27:
8 of 23 rows lost theirs)."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from tests.e2e.test_tmux_pane_ends import pane_text
from tests.e2e.test_tmux_smoke import app_command, end_session, tmux, wait_for
from tests.fake_providers import FakeServer
from tests.fake_providers import faults as payload
from tests.fake_providers.routes import is_search_call, search_route

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

PROVIDERS = {"brave": "Brave Search", "tavily": "Tavily", "openai": "OpenAI", "perplexity": "Perplexity"}
"""Provider id -> pane title: a JSON search API, an agent API and two model answers (SSE)."""
WIDE = " \u3164\u3164\u3164\u115f\uffa0\u2764\ufe0f\u0378\U0001f44d\U0001f3fd "
"""What every space of the providers' payload strings becomes."""
BORDERS = ("│", "╮", "╯")


def test_width_disagreeing_characters_keep_every_pane_border(tmp_path: Path) -> None:
    session = f"wst-{uuid.uuid4().hex[:8]}"
    with FakeServer() as server:
        for provider in PROVIDERS:
            server.wrap(search_route(provider), payload.replace_text(" ", WIDE), when=is_search_call)
        config = server.write_config(tmp_path / "config.toml", providers=list(PROVIDERS))
        command = app_command(config, tmp_path, "sleep 30")
        tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", command)
        try:
            wait_for(session, lambda s: "Ask the web" in s and "Tavily" in s)
            tmux("send-keys", "-t", session, "python asyncio", "Enter")
            screen = wait_for(
                session, lambda s: all("✓ done" in pane_text(s, title) for title in PROVIDERS.values()), timeout=60
            )
            rows = [line.rstrip() for line in screen.splitlines() if line.startswith(("│", "╭", "╰"))]
            assert len(rows) > 30, screen
            broken = [row for row in rows if not row.endswith(BORDERS)]
            assert broken == [], "\n".join(broken)
            assert "\u3164" not in screen and "\U0001f3fd" not in screen
        finally:
            end_session(session)
