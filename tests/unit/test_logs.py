"""The log's one formatter and its repeat limiter (core/logs.py): every line sanitised, on one line and
redacted; a flood of one line written a few times per window, then counted."""

from __future__ import annotations

import io
import logging
import random
from collections.abc import Iterator

import pytest

from websearch_tui.core.errors import register_secret
from websearch_tui.core.logs import REPEAT_BURST, RedactingFormatter, RepeatLimiter, route, stderr_handler

ATTACK = (
    "/mcp\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x1b\\\x1b[2J\x1b[H\x9b31m\x9d0;title\x9c\x90dcs\x9c"
    "\r\nwebsearch-tui mcp: WARNING server stopped"
)
"""OSC 52 (clipboard), a window title, clear screen, 8-bit CSI/OSC/DCS and a forged line."""


def record(message: str, *args: object, name: str = "websearch_tui.mcp.gate") -> logging.LogRecord:
    return logging.LogRecord(name, logging.WARNING, __file__, 1, message, args, None)


def assert_plain(line: str) -> None:
    """No control character but tab in ``line`` (so no escape sequence and no second line)."""
    assert not [char for char in line if (char < " " and char != "\t") or "\x7f" <= char <= "\x9f"], repr(line)


def test_a_log_line_is_sanitised_kept_on_one_line_and_redacted() -> None:
    secret = "sk-test-" + "q" * 32
    register_secret(secret)
    line = RedactingFormatter("%(levelname)s %(message)s").format(
        record("refused %s %s from %s: %s", "POST", ATTACK, "127.0.0.1:5", f"token {secret}")
    )
    assert_plain(line)
    assert secret not in line
    assert line.startswith("WARNING refused POST /mcp") and "\\nwebsearch-tui mcp: WARNING server stopped" in line


def test_a_traceback_is_sanitised_too() -> None:
    try:
        raise ValueError(ATTACK)
    except ValueError:
        entry = logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "failed", (), __import__("sys").exc_info())
    text = RedactingFormatter("%(message)s").format(entry)
    assert "Traceback" in text and "ValueError" in text
    assert not any(char in text for char in "\x1b\x07\x9b\x9d\x9c\x90")


def test_random_control_text_never_reaches_the_line() -> None:
    """Fuzz-style: messages of random code points biased towards controls and escape introducers."""
    rng = random.Random(27)
    alphabet = [chr(code) for code in (*range(0, 0x20), *range(0x7F, 0xA0), 0x2028, 0xD800)] + list("[]\\;P_^X0a ")
    formatter = RedactingFormatter("%(message)s")
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        assert_plain(formatter.format(record("%s", text)))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_repeats_are_limited_per_window_then_counted() -> None:
    clock = Clock()
    limiter = RepeatLimiter(burst=REPEAT_BURST, window=60.0, clock=clock)
    passed = [limiter.filter(record("socket.accept() out of system resource")) for _ in range(100)]
    assert passed.count(True) == REPEAT_BURST and passed[:REPEAT_BURST] == [True] * REPEAT_BURST
    assert limiter.filter(record("another line"))
    clock.now = 61.0
    later = record("socket.accept() out of system resource")
    assert limiter.filter(later)
    assert RedactingFormatter("%(message)s").format(later) == (
        f"socket.accept() out of system resource ({100 - REPEAT_BURST} more like this not logged)"
    )


def test_numbers_in_a_preformatted_message_do_not_make_it_new() -> None:
    """asyncio formats its exception handler's lines itself: a flood differs only in times and descriptors."""
    limiter = RepeatLimiter(burst=2, window=60.0, clock=Clock())
    lines = [f"Exception in callback _start_serving()\nhandle: <TimerHandle when={3606 + n / 7}>" for n in range(50)]
    assert [limiter.filter(record(line)) for line in lines].count(True) == 2
    assert limiter.filter(record("Exception in callback something_else()"))


def test_one_limiter_judges_a_record_once_for_every_handler() -> None:
    limiter = RepeatLimiter(burst=2, window=60.0, clock=Clock())
    streams = [io.StringIO(), io.StringIO()]
    logger = logging.getLogger("websearch_tui.test_logs.shared")
    logger.propagate = False
    for stream in streams:
        handler = logging.StreamHandler(stream)
        handler.addFilter(limiter)
        logger.addHandler(handler)
    try:
        for _ in range(5):
            logger.warning("same")
    finally:
        logger.handlers.clear()
    assert [stream.getvalue() for stream in streams] == ["same\nsame\n"] * 2


@pytest.fixture
def library_logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger("websearch_tui_test_library")
    yield logger
    logger.handlers.clear()
    logger.propagate = True


def test_a_routed_library_logger_writes_through_the_formatter(
    library_logger: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    route([library_logger.name], stderr_handler("lib: %(message)s"))
    library_logger.warning("Invalid Host header: %s", "evil\x9b2J\x1b]52;c;eA==\x07host")
    err = capsys.readouterr().err
    assert err == "lib: Invalid Host header: evilhost\n"


def test_the_log_file_is_created_at_the_first_record_only(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that logs nothing leaves no file (and never imports logging.handlers); the first record
    creates it, formatted and redacted like any other line; a file that cannot be created drops
    records instead of raising."""
    from websearch_tui.core.logs import FILE_FORMAT, LOG_ENV, FileOnDemand

    path = tmp_path / "state" / "websearch-tui.log"
    monkeypatch.setenv(LOG_ENV, str(path))
    handler = FileOnDemand()
    handler.setFormatter(RedactingFormatter(FILE_FORMAT))
    assert not path.parent.exists()
    secret = "sk-file-" + "z" * 32
    register_secret(secret)
    handler.handle(record("first line %s\nforged", secret))
    handler.flush()
    text = path.read_text(encoding="utf-8")
    assert text.endswith(" WARNING websearch_tui.mcp.gate: first line ***\\nforged\n")  # one line, redacted
    handler.close()
    (tmp_path / "blocked").write_text("a file where the log dir would go")
    monkeypatch.setenv(LOG_ENV, str(tmp_path / "blocked" / "websearch-tui.log"))
    dropped = FileOnDemand()
    dropped.handle(record("nowhere to go"))  # NotADirectoryError inside: dropped, not raised
    dropped.handle(record("still nowhere"))
