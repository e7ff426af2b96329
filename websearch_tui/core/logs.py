"""Logging to a file in the user state dir: every line sanitised, redacted and rate-limited.

Nothing is logged to the terminal by default (it would corrupt the TUI and clutter CLI output); the
MCP server adds stderr (:func:`stderr_handler`) and routes the libraries it runs on through the same
handlers (:func:`route`). The log file is ``websearch-tui.log`` in the platformdirs user log dir
(``~/.local/state/websearch-tui/log/`` on Linux); ``WEBSEARCH_TUI_LOG`` overrides the path.

Every handler made here formats with :class:`RedactingFormatter` (one formatter for the file and
the terminal: no escape sequence or control character of a request path, header or error body
reaches either, a message is one line, every registered secret is replaced) and filters through
one :class:`RepeatLimiter` (a line repeated in a flood, such as asyncio's "Too many open files",
is written a few times per window, then counted).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from websearch_tui.core.errors import redact
from websearch_tui.core.records import record
from websearch_tui.core.text import pattern, sanitize

LOG_ENV = "WEBSEARCH_TUI_LOG"
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
REPEAT_BURST = 5
"""Lines with the same logger, level and message template written per :data:`REPEAT_WINDOW`."""
REPEAT_WINDOW = 60.0
"""Seconds over which :data:`REPEAT_BURST` is counted."""
MAX_REPEAT_KEYS = 512
"""The most message templates :class:`RepeatLimiter` counts at once (the oldest window is dropped first)."""
_DROPPED = "repeats_dropped"
"""The record attribute :class:`RepeatLimiter` sets: lines like it left out since the last one written."""
_VERDICT = "repeat_verdict"
"""The record attribute holding :class:`RepeatLimiter`'s verdict (so each handler gets the same one)."""


class RedactingFormatter(logging.Formatter):
    """A formatter whose output is safe for a terminal and a log file: the message is sanitised
    (:func:`~websearch_tui.core.text.sanitize`: no escape sequences, C0/C1 controls, bidirectional
    controls or surrogates) and kept on one line (a newline in it is written ``\\n``, so untrusted
    text cannot forge a line), the traceback sanitised, and every registered secret in either is
    replaced (:func:`~websearch_tui.core.errors.redact`). Lines a :class:`RepeatLimiter` left out
    before this one are counted at its end. Linear in the record's length."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = sanitize(record.message).replace("\n", "\\n")
        dropped = getattr(record, _DROPPED, 0)
        if dropped:
            record.message += f" ({dropped} more like this not logged)"
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        return redact(sanitize(super().format(record)))


_NUMBER = r"[0-9]+"
TEMPLATE_CHARS = 200
"""How much of a message template tells two lines apart for :class:`RepeatLimiter`."""


def template(record: logging.LogRecord) -> str:
    """``record``'s message template for counting repeats: ``record.msg`` (before its arguments), its
    first :data:`TEMPLATE_CHARS` characters, every run of digits as ``#`` (a library that formats its
    message itself, as asyncio's exception handler does, puts times, ports and descriptors in it)."""
    return pattern(_NUMBER).sub("#", str(record.msg)[:TEMPLATE_CHARS])


@record
class _Window:
    """One message template's count: when its window began, records seen in it, records left out
    and not yet reported."""

    start: float
    seen: int = 0
    dropped: int = 0


class RepeatLimiter(logging.Filter):
    """Lets through at most ``burst`` records with the same logger, level and message template
    (:func:`template`) in each ``window`` seconds; the first one let through
    after some were left out carries their count (``repeats_dropped``, written by
    :class:`RedactingFormatter`). One instance may filter several handlers: a record is judged once
    (the verdict is kept on it). At most :data:`MAX_REPEAT_KEYS` templates are counted.

    Args:
        burst: records per window and template.
        window: seconds.
        clock: the monotonic clock (seconds).
    """

    def __init__(
        self, burst: int = REPEAT_BURST, window: float = REPEAT_WINDOW, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self._burst, self._window, self._clock = burst, window, clock
        self._windows: dict[tuple[str, int, str], _Window] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """True when ``record`` is to be written (the same answer for every handler it reaches)."""
        verdict = record.__dict__.get(_VERDICT)
        if verdict is None:
            verdict = self._judge(record)
            setattr(record, _VERDICT, verdict)
        return bool(verdict)

    def _judge(self, record: logging.LogRecord) -> bool:
        key, now = (record.name, record.levelno, template(record)), self._clock()
        window = self._windows.get(key)
        if window is None or now - window.start >= self._window:
            if window is None and len(self._windows) >= MAX_REPEAT_KEYS:
                del self._windows[next(iter(self._windows))]  # the template counted longest ago
            window = _Window(now, dropped=window.dropped if window is not None else 0)
            self._windows.pop(key, None)
            self._windows[key] = window
        window.seen += 1
        if window.seen > self._burst:
            window.dropped += 1
            return False
        if window.dropped:
            setattr(record, _DROPPED, window.dropped)
            window.dropped = 0
        return True


REPEATS = RepeatLimiter()
"""The one limiter every handler made here shares."""


def _prepared(handler: logging.Handler, fmt: str) -> logging.Handler:
    """``handler`` with the :class:`RedactingFormatter` for ``fmt`` and the shared :data:`REPEATS`."""
    handler.setFormatter(RedactingFormatter(fmt))
    handler.addFilter(REPEATS)
    return handler


def log_path() -> Path:
    """Where the log file goes: ``$WEBSEARCH_TUI_LOG`` or the user log dir."""
    env = os.environ.get(LOG_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_log_dir("websearch-tui", appauthor=False)) / "websearch-tui.log"


class FileOnDemand(logging.Handler):
    """The rotating log file (:func:`log_path`, 1 MiB x 3), opened when the first record reaches it:
    a run that logs nothing (most searches) neither resolves the log dir, nor creates the file, nor
    imports :mod:`logging.handlers` (about 4 ms, and 4 more for platformdirs). When the file cannot
    be opened, records are dropped instead (never printed to the terminal). Records reach the file
    formatted and filtered as this handler is (:func:`setup_logging` gives it the
    :class:`RedactingFormatter` and the :data:`REPEATS` filter)."""

    def __init__(self) -> None:
        super().__init__()
        self._file: logging.Handler | None = None
        self._failed = False

    def emit(self, record: logging.LogRecord) -> None:
        """Write ``record`` to the file, opening it first if this is the first record."""
        file = self._file or self._open()
        if file is not None:
            file.emit(record)

    def _open(self) -> logging.Handler | None:
        if self._failed:
            return None
        import logging.handlers

        try:
            path = log_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = logging.handlers.RotatingFileHandler(
                path, maxBytes=1024 * 1024, backupCount=3, encoding="utf-8"
            )
        except OSError:
            self._failed = True
            return None
        self._file.setFormatter(self.formatter)
        return self._file

    def flush(self) -> None:
        """Flush the file, if it was opened."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Close the file, if it was opened (a record after this opens it again)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        super().close()


def setup_logging(level: int = logging.INFO) -> None:
    """Send the ``websearch_tui`` logger to the rotating log file (a :class:`FileOnDemand`: opened at
    the first record) instead of propagating; a second call changes only the level."""
    logger = logging.getLogger("websearch_tui")
    logger.setLevel(level)
    logger.propagate = False
    if not logger.handlers:
        logger.addHandler(_prepared(FileOnDemand(), FILE_FORMAT))


def stderr_handler(fmt: str, level: int = logging.WARNING) -> logging.Handler:
    """A handler writing records from ``level`` up to stderr, formatted with ``fmt`` by the
    :class:`RedactingFormatter` and filtered by :data:`REPEATS`, like the log file's."""
    handler = _prepared(logging.StreamHandler(sys.stderr), fmt)
    handler.setLevel(level)
    return handler


def route(names: Iterable[str], *extra: logging.Handler, level: int = logging.WARNING) -> None:
    """Send the loggers ``names`` (libraries': ``"asyncio"``, ``"uvicorn"``, ...) from ``level`` up
    to the log file :func:`setup_logging` opened and to ``extra`` handlers, instead of wherever they
    went (Python's last-resort stderr handler writes raw text); they stop propagating."""
    handlers = [*logging.getLogger("websearch_tui").handlers, *extra]
    for name in names:
        logger = logging.getLogger(name)
        logger.handlers = list(handlers)
        logger.setLevel(level)
        logger.propagate = False
