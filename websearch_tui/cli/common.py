"""What every command of the CLI shares: the program's name, :class:`UsageError`, one-line errors and
warnings on stderr, the config file, provider ids checked, and plain tables."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from websearch_tui.core.text import single_line

if TYPE_CHECKING:
    import argparse
    from types import SimpleNamespace

    from websearch_tui.settings.config import Config

    Arguments = argparse.Namespace | SimpleNamespace
    """A command's arguments: argparse's, or the terminal UI's read without it
    (:func:`websearch_tui.cli.main.terminal_ui_arguments`)."""

PROG = "websearch-tui"
"""The program's name, as the user types it and as every message starts."""


class UsageError(Exception):
    """Bad command-line input; the message is printed as one line and the exit code is 2."""


def fail(message: str, code: int) -> int:
    """Print ``websearch-tui: error: <message>`` on stderr as one plain line
    (:func:`~websearch_tui.core.text.single_line`); returns ``code`` (the exit code)."""
    print(f"{PROG}: error: {single_line(message)}", file=sys.stderr)
    return code


def warn(messages: Sequence[str]) -> None:
    """Print each message as ``websearch-tui: warning: <message>`` on stderr, one plain line each."""
    for message in messages:
        print(f"{PROG}: warning: {single_line(message)}", file=sys.stderr)


@contextlib.contextmanager
def config_errors_as_usage() -> Iterator[None]:
    """Within the block, a :class:`~websearch_tui.settings.config.ConfigError` becomes a
    :class:`UsageError` with the same message (one line, exit 2)."""
    from websearch_tui.settings.config import ConfigError

    try:
        yield
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def load_config(args: Arguments) -> Config:
    """The config file ``args.config`` names (``None``: the default one).

    Raises:
        UsageError: the file is unusable (the message names it and the problem).
    """
    from websearch_tui.settings.config import load_config as load

    with config_errors_as_usage():
        return load(args.config)


def check_providers(ids: Sequence[str]) -> tuple[str, ...]:
    """``ids`` checked as :func:`websearch_tui.engine.requests.check_providers` (canonical ids, in order).

    Raises:
        UsageError: an unknown id (the message names the known ones).
    """
    from websearch_tui.core.models import RequestError
    from websearch_tui.engine.requests import check_providers as check

    try:
        return check(ids)
    except RequestError as exc:
        raise UsageError(str(exc)) from None


def print_table(rows: Sequence[Sequence[str]]) -> None:
    """Print ``rows`` on stdout as left-aligned columns two spaces apart; the first row is the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
