"""Where the history file is, and the errors of the history: what a program needs of the history
before it opens the file, without importing the store (SQLite, the codecs): the TUI's first frame
makes the engine's recorder and the session's history access, which open the file only when a
search is recorded or the history is read (:mod:`websearch_tui.history.store`)."""

from __future__ import annotations

import os
from pathlib import Path

HISTORY_ENV = "WEBSEARCH_TUI_HISTORY"
FILE_NAME = "history.sqlite3"
BUSY_TIMEOUT_SECONDS = 10.0
"""How long a write waits for another process's write to finish."""


class HistoryError(Exception):
    """The history cannot do what was asked; ``str(error)`` is one line naming the file and what to do."""


class UnknownEntry(HistoryError):
    """No stored search has that id."""


def default_history_path() -> Path:
    """``history.sqlite3`` in the platformdirs user data directory."""
    import platformdirs

    return Path(platformdirs.user_data_dir("websearch-tui", appauthor=False)) / FILE_NAME


def history_path(configured: str | None = None) -> Path:
    """Where the history file is: ``$WEBSEARCH_TUI_HISTORY``, else ``configured`` (config ``[history]
    path``), else :func:`default_history_path`; ``~`` is expanded."""
    env = os.environ.get(HISTORY_ENV, "").strip()
    chosen = env or (configured or "").strip()
    return Path(chosen).expanduser() if chosen else default_history_path()
