"""Logging to a file in the user state dir, with every configured secret redacted.

Nothing is logged to the terminal (it would corrupt the TUI and clutter CLI output). The log
file is ``websearch-tui.log`` in the platformdirs user log dir (``~/.local/state/websearch-tui/log/``
on Linux); ``WEBSEARCH_TUI_LOG`` overrides the path.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

from websearch_tui.core.errors import redact

LOG_ENV = "WEBSEARCH_TUI_LOG"


class RedactingFormatter(logging.Formatter):
    """A formatter whose output (message and traceback) has every registered secret replaced."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def log_path() -> Path:
    """Where the log file goes: ``$WEBSEARCH_TUI_LOG`` or the user log dir."""
    env = os.environ.get(LOG_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_log_dir("websearch-tui", appauthor=False)) / "websearch-tui.log"


def setup_logging(level: int = logging.INFO) -> Path | None:
    """Send the ``websearch_tui`` logger to the rotating log file (1 MiB x 3); returns its path.

    When the file cannot be opened, logging is silenced instead (never printed to the terminal).
    """
    logger = logging.getLogger("websearch_tui")
    logger.setLevel(level)
    logger.propagate = False
    if logger.handlers:
        return None
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=1024 * 1024, backupCount=3, encoding="utf-8"
        )
    except OSError:
        logger.addHandler(logging.NullHandler())
        return None
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    return path
