"""``websearch-tui completion bash|zsh|fish``: print the shell's completion script, generated from the
CLI's own parser (:mod:`websearch_tui.cli.completion`; shtab is imported only here)."""

from __future__ import annotations

import argparse
import sys

from websearch_tui.cli.common import fail
from websearch_tui.cli.parser import build_parser


def run(args: argparse.Namespace) -> int:
    """``completion SHELL``: the script on stdout and 0, or 1 when shtab is not installed."""
    from websearch_tui.cli import completion

    try:
        text = completion.script(build_parser(), args.shell)
    except ModuleNotFoundError as exc:
        if exc.name != "shtab":
            raise
        return fail("shell completion needs shtab: python3 -m pip install shtab", 1)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
