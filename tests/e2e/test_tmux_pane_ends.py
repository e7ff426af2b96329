"""In a real terminal: six model answers stream from the loopback fake and finish; every pane then
rests at its true end, its model line (the last thing in it) on screen (issue 29: they stopped 2-4
lines short until End was pressed)."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from tests.e2e.test_tmux_smoke import app_command, end_session, tmux, wait_for
from tests.fake_providers import FakeServer

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

TITLES = ("Perplexity", "OpenAI", "Grok", "Anthropic", "DeepSeek", "Gemini")
"""The pane titles of :data:`PROVIDERS`."""
PROVIDERS = ["perplexity", "openai", "grok", "anthropic", "deepseek", "gemini"]
SIZE = ("200", "32")
"""Six panes in a grid of 3 x 2 beside the provider list, each showing 10 lines: the fakes' answers
(9 to 14 lines at that width) outgrow them, as real answers outgrow the panes at 200x50."""


def model_line_shown(text: str) -> bool:
    """True when a pane's box shows its model line (``model <id> · tokens ...``), its last line."""
    return any(line.strip().startswith("model ") for line in text.splitlines())


def pane_text(screen: str, title: str) -> str:
    """The text inside the box of the pane titled ``title`` on a captured screen ("" if not shown)."""
    lines = screen.splitlines()
    for top, line in enumerate(lines):
        left = line.find(f"╭─ {title} ")
        if left < 0:
            continue
        right = line.find("╮", left)
        inside = []
        for row in lines[top + 1 :]:
            if row[left : left + 1] != "│":
                break
            inside.append(row[left + 1 : right])
        return "\n".join(inside)
    return ""


def test_finished_answers_rest_at_their_true_end(tmp_path: Path) -> None:
    session = f"wst-{uuid.uuid4().hex[:8]}"
    with FakeServer(token_delay=0.02) as server:
        config = server.write_config(tmp_path / "config.toml", providers=PROVIDERS)
        command = app_command(config, tmp_path, "sleep 30")
        tmux("new-session", "-d", "-s", session, "-x", SIZE[0], "-y", SIZE[1], command)
        try:
            wait_for(session, lambda s: "Ask the web" in s and "Perplexity" in s)
            tmux("send-keys", "-t", session, "python asyncio tutorial", "Enter")
            wait_for(session, lambda s: "streaming" in s)
            wait_for(session, lambda s: all("✓ done" in pane_text(s, title) for title in TITLES))

            def every_end_shown(screen: str) -> bool:  # the model line is the last thing in a pane
                return all(model_line_shown(pane_text(screen, title)) for title in TITLES)

            shown = wait_for(session, every_end_shown)
            for title in TITLES:
                assert "✓ done" in pane_text(shown, title), shown
        finally:
            end_session(session)
