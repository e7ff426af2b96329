"""Smoke test in a real terminal: the app in tmux, against the fake server, typed at like a person."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.fake_providers import FAKE_KEYS, FakeServer

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


TMUX_SOCKET = f"websearch-tui-tests-{os.getpid()}"
"""This process's own tmux server (``tmux -L``): tests in parallel processes, and the developer's own
tmux, never share a server; no tmux.conf is read."""


def tmux(*args: str) -> str:
    """Run ``tmux <args>`` on this process's own server (:data:`TMUX_SOCKET`); its stdout."""
    argv = ["tmux", "-L", TMUX_SOCKET, "-f", os.devnull, *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout


def end_session(session: str) -> None:
    """Kill ``session`` and this process's tmux server, and remove the server's socket file (tmux
    leaves it behind)."""
    tmux("kill-session", "-t", session)
    tmux("kill-server")
    folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
    (folder / TMUX_SOCKET).unlink(missing_ok=True)


def wait_for(session: str, predicate, timeout: float = 30.0) -> str:
    """Capture the pane until ``predicate(screen)`` holds; return the last screen."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", session)
        if predicate(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"screen never matched; last screen:\n{screen}")


def app_command(config: Path, folder: Path, after: str) -> str:
    """The shell command that runs the app with ``config``, the fake keys and its files in ``folder``
    (no keyring), then ``after``; for ``tmux new-session``."""
    env = {
        **FAKE_KEYS,
        "WEBSEARCH_TUI_CONFIG": str(config),
        "WEBSEARCH_TUI_LOG": str(folder / "log.txt"),
        "WEBSEARCH_TUI_HISTORY": str(folder / "history.sqlite3"),
        "WEBSEARCH_TUI_STATE": str(folder / "state.json"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "TERM": "xterm-256color",
    }
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    # COLUMNS/LINES can leak in from the test runner's environment and would pin Textual to 80x24
    return f"env -u COLUMNS -u LINES {exports} {shlex.quote(sys.executable)} -m websearch_tui; {after}"


def test_query_fills_panes_and_ctrl_c_quits(tmp_path: Path) -> None:
    session = f"wst-{uuid.uuid4().hex[:8]}"
    with FakeServer(token_delay=0.1) as server:
        config = server.write_config(tmp_path / "config.toml", providers=["ddgs", "brave", "perplexity"])
        command = app_command(config, tmp_path, "echo EXITED $?; sleep 30")
        tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "45", command)
        try:
            wait_for(session, lambda s: "Ask the web" in s and "Perplexity" in s)
            tmux("send-keys", "-t", session, "python asyncio tutorial", "Enter")
            wait_for(session, lambda s: "streaming" in s and "asyncio is Python" in s)  # answer arriving
            done = wait_for(session, lambda s: "Finished" in s and "streaming" not in s)
            assert "Brave Search" in done and "DuckDuckGo" in done
            assert done.count("✓ done") == 3
            assert "superfastpython.com" in done  # a DuckDuckGo source reached the screen
            for key in FAKE_KEYS.values():
                assert key not in done
            tmux("send-keys", "-t", session, "C-c")
            exited = wait_for(session, lambda s: "EXITED" in s)
            assert "EXITED 0" in exited and "Traceback" not in exited
        finally:
            end_session(session)
