"""``websearch-tui`` with no command, or ``tui``: the checks before the terminal UI starts (a terminal
on stdin and stdout, a usable config file, the ``[keymap]`` ids), then the hand-over to the UI the
launcher gave the CLI (:class:`~websearch_tui.cli.front_ends.FrontEnds`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from websearch_tui.cli.common import PROG, UsageError, config_errors_as_usage, load_config
from websearch_tui.cli.front_ends import StartTui, missing

if TYPE_CHECKING:
    from websearch_tui.cli.common import Arguments


def run(args: Arguments, start: StartTui | None) -> int:
    """Start the terminal UI with ``start`` (``None``: this program has none); returns its exit code.

    Raises:
        UsageError: stdin or stdout is not a terminal, an unusable config file, a ``[keymap]`` id no
            binding has, or no terminal UI was handed over.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "the terminal UI needs a terminal (stdin or stdout is not one); "
            f'for a search without one run: {PROG} search "your question"'
        )
    config = load_config(args)
    if start is None:
        raise missing("terminal UI")
    with config_errors_as_usage():  # the keymap is checked before the UI starts
        return start(config)
