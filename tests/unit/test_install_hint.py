"""The MCP extra's install hint names the command for how this copy was installed (issue 29 #15)."""

from __future__ import annotations

import shlex
import sys

import pytest

from websearch_tui.cli.commands.mcp import mcp_install_hint


@pytest.mark.parametrize(
    ("prefix", "start"),
    [
        ("/home/ada/.local/share/pipx/venvs/websearch-tui", "pipx inject websearch-tui mcp uvicorn starlette"),
        ("/home/ada/.local/share/uv/tools/websearch-tui", "uv tool install --force --with mcp --with uvicorn"),
        ("C:\\Users\\ada\\AppData\\Roaming\\uv\\data\\tools\\websearch-tui", "uv tool install --force"),
        ("/home/ada/src/websearch-tui/.venv", f"{shlex.quote(sys.executable)} -m pip install 'websearch-tui[mcp]'"),
    ],
)
def test_the_hint_matches_the_installation(prefix: str, start: str) -> None:
    assert mcp_install_hint(prefix).startswith(start)
