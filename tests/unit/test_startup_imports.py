"""What importing the TUI's and the CLI's start-up modules leaves for later: records not made until
used (core.records), modules a command imports only when it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    """The last line ``code`` prints, run in a fresh interpreter from the repository's root."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return done.stdout.strip().splitlines()[-1]


def test_a_pane_s_status_record_is_made_when_a_pane_first_shows_one() -> None:
    code = (
        "from websearch_tui.core.records import _PENDING\n"
        "from websearch_tui.tui.search.status_line import PaneStatus\n"
        "waiting = PaneStatus in _PENDING\n"
        "PaneStatus('done', 1.5)\n"
        "print(waiting, PaneStatus in _PENDING)"
    )
    assert _run(code) == "True False"
