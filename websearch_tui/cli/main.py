"""Command line front door: ``websearch-tui`` (TUI), ``search``, ``providers``, ``doctor``, ``fetch``,
``keys``, ``config``, ``mcp``, ``completion``, ``history``, ``stats``, ``--version``.

This module is the entry: :func:`main` parses the command line (:mod:`websearch_tui.cli.parser`)
and runs one command of :mod:`websearch_tui.cli.commands`; :func:`run` is the process's entry. The
terminal UI and the MCP server are front ends of their own, which the CLI never imports: the
launcher (:mod:`websearch_tui.__main__`, the ``websearch-tui`` command) hands them over as
:class:`~websearch_tui.cli.front_ends.FrontEnds`.

Exit codes (:data:`~websearch_tui.cli.parser.EXIT_CODES`, also in ``--help``): 0 success
(``search``: at least one provider returned content), 1 every provider failed, a provider failed its
``doctor`` check, a page could not be read (``fetch``), a key could not be stored or deleted, the
output could not be written, ``history clear`` was declined, or a ``search`` would pass a
``[budget]`` (refused, nothing sent; ``--over-budget`` runs it), 2 bad arguments, an unusable config
file, an unknown history id or an unreadable history file (one line on stderr), 130 interrupted.

Every command that prints data takes ``--format`` (``search``: text, json, markdown, llm;
``providers``, ``doctor``, ``keys list`` and ``stats``: text, json; ``fetch``: markdown, text, json; ``config
show``: toml, json).

A first argument that is neither an option of the program nor a subcommand is a query:
``websearch-tui "how does asyncio work"`` is ``websearch-tui search "how does asyncio work"`` (as
``llm "q"`` answers in the terminal); see :func:`implied_search`.

Only the TUI path imports Textual, only ``mcp`` imports the MCP SDK, only ``completion`` imports
shtab; ``search -p X`` imports only provider ``X``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, NoReturn

from websearch_tui.cli.common import PROG, UsageError, fail
from websearch_tui.cli.front_ends import NO_FRONT_ENDS, FrontEnds

if TYPE_CHECKING:
    import argparse

    from websearch_tui.cli.common import Arguments

UNUSED_OPTIONAL_IMPORTS = ("trio", "httpx._main")
"""Modules our dependencies import only if installed, which this program never uses: httpcore imports
trio (about 120 ms) to support trio event loops, httpx its command-line client (click, rich,
pygments: about 60 ms). Both fall back by design when the import fails (see :func:`_skip_unused_imports`)."""


def _skip_unused_imports() -> None:
    """Make :data:`UNUSED_OPTIONAL_IMPORTS` fail fast in this process (``None`` in ``sys.modules``
    makes ``import`` raise ImportError), so httpcore runs on asyncio only and httpx without its
    command-line client, as when those packages are not installed. Modules already imported are
    left alone."""
    for name in UNUSED_OPTIONAL_IMPORTS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def main(argv: Sequence[str] | None = None, *, front_ends: FrontEnds = NO_FRONT_ENDS) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``) with the front ends the launcher
    hands over (default: none, so ``tui`` and ``mcp`` fail with a usage error); returns the process
    exit code (see the module's docstring). Errors are one line on stderr, never a traceback."""
    _tolerant_output()
    _skip_unused_imports()
    try:
        return _run(list(sys.argv[1:] if argv is None else argv), front_ends)
    except UsageError as exc:
        return fail(str(exc), 2)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, and keep Python from complaining at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        return fail(f"cannot write the output: {exc.strerror or exc}", 1)


def _run(words: list[str], front_ends: FrontEnds) -> int:
    """Parse the command line ``words`` and run its command; returns its exit code. The terminal UI's
    own command line (:func:`terminal_ui_arguments`) is read without argparse.

    Raises:
        UsageError: bad arguments (and what the command raises).
    """
    plain = terminal_ui_arguments(words)
    if plain is not None:
        _prepare(plain)
        return _run_tui(plain, front_ends)
    from websearch_tui.cli.parser import build_parser, command_named

    parser = build_parser(only=command_named(words))  # only the parser of a command named
    args = parser.parse_args(implied_search(words, parser))
    _prepare(args)
    return _run_command(args, front_ends)


def terminal_ui_arguments(argv: Sequence[str]) -> SimpleNamespace | None:
    """The arguments the parser gives a command line that only opens the terminal UI, read without
    it: nothing, ``--config PATH`` with a PATH that is not an option, or ``--config=PATH``. ``None``
    for any other command line (argparse reads it). Importing argparse and building and running the
    ``tui`` parser cost about 14 M instructions of every start of the terminal UI (1% of its first
    frame)."""
    if not argv:
        return SimpleNamespace(config=None, command=None)
    if len(argv) == 2 and argv[0] == "--config" and not argv[1].startswith("-"):
        return SimpleNamespace(config=argv[1], command=None)
    if len(argv) == 1 and argv[0].startswith("--config="):
        return SimpleNamespace(config=argv[0].removeprefix("--config="), command=None)
    return None


def _prepare(args: Arguments) -> None:
    """Refuse arguments that are not text (:func:`_check_decodable`), then set up the log.

    Raises:
        UsageError: as :func:`_check_decodable`.
    """
    _check_decodable(args)
    from websearch_tui.core.logs import setup_logging

    setup_logging()


def _run_tui(args: Arguments, front_ends: FrontEnds) -> int:
    """The terminal UI (no command, or ``tui``) with ``args``; returns its exit code."""
    from websearch_tui.cli.commands import tui

    return tui.run(args, front_ends.tui)


def _run_command(args: argparse.Namespace, front_ends: FrontEnds) -> int:
    """Run the command ``args`` names (none: the terminal UI), importing only its module; returns its
    exit code."""
    command = args.command or "tui"
    if command == "search":
        from websearch_tui.cli.commands import search

        return search.run(args)
    if command == "tui":
        return _run_tui(args, front_ends)
    if command == "mcp":
        from websearch_tui.cli.commands import mcp

        return mcp.run(args, front_ends.mcp)
    if command == "config":
        from websearch_tui.cli.commands import config

        return config.run(args, front_ends.check_keymap)
    return _run_plain_command(command, args)


def _run_plain_command(command: str, args: argparse.Namespace) -> int:
    """Run ``command``, one that needs no front end (``providers``, ``doctor``, ``fetch``, ``keys``,
    ``completion``, ``history``, ``stats``), importing only its module; returns its exit code."""
    if command == "providers":
        from websearch_tui.cli.commands import providers

        return providers.run(args)
    if command == "doctor":
        from websearch_tui.cli.commands import doctor

        return doctor.run(args)
    if command == "fetch":
        from websearch_tui.cli.commands import fetch

        return fetch.run(args)
    if command == "keys":
        from websearch_tui.cli.commands import keys

        return keys.run(args)
    if command == "completion":
        from websearch_tui.cli.commands import completion

        return completion.run(args)
    if command == "stats":
        from websearch_tui.cli.commands import stats

        return stats.run(args)
    from websearch_tui.cli.commands import history

    return history.run(args)


def implied_search(argv: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """``argv`` with ``search`` put before a bare query, as ``llm "question"`` answers in the terminal.

    When the first argument after the program's own ``--config PATH`` is not a subcommand (nor
    ``-h``, ``--help`` or ``--version``) but a word, a lone ``-`` (the query on stdin) or an option of
    ``search`` (``-p brave "q"``), the arguments are ``search``'s. A query whose first word is a
    subcommand's name runs that subcommand: ask it with ``search``. No argument at all (the TUI), an
    option of no command and everything else are left as they are.

    Raises:
        UsageError: the whole command line is one word that looks like a mistyped subcommand
            (``serch``, ``histroy``): it is not sent anywhere; the message names the command and how
            to search for the word.
    """
    import argparse

    from websearch_tui.cli.parser import first_word

    args = list(argv)
    index = first_word(args)
    if index >= len(args):
        return args
    first = args[index]
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if first in commands:
        return args
    if first == "-" or not first.startswith("-") or _is_option_of(commands["search"], first):
        import difflib  # only to name the closest match of a mistake

        close = difflib.get_close_matches(first, list(commands), n=1, cutoff=0.85)
        if close and len(args) == index + 1 and first.isalpha():
            raise UsageError(
                f"unknown command {first!r} (did you mean {close[0]!r}?); to search for it: {PROG} search {first}"
            )
        return [*args[:index], "search", *args[index:]]
    return args


def _is_option_of(parser: argparse.ArgumentParser, token: str) -> bool:
    """True when ``token`` (``--format``, ``--format=json``, ``-n``, ``-n3``) is an option of
    ``parser`` other than ``-h``/``--help``."""
    options = set(parser._option_string_actions) - {"-h", "--help"}
    if token.split("=", 1)[0] in options:
        return True
    return not token.startswith("--") and token[:2] in options


def _tolerant_output() -> None:
    """Text a terminal's encoding cannot show is replaced (``?``) instead of ending the program with a
    traceback (``LANG=C``, a pipe with a strict encoding)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")


def _check_decodable(args: Arguments) -> None:
    """Refuse arguments whose bytes were not valid in the locale's encoding (Python keeps them as lone
    surrogates, which no provider could use).

    Raises:
        UsageError: naming the argument.
    """
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for text in values:
            if isinstance(text, str) and any("\udc80" <= ch <= "\udcff" for ch in text):
                where = "the query" if name == "query" else f"--{name.replace('_', '-')}"
                raise UsageError(f"{where} is not valid text in this terminal's encoding (UTF-8 expected)")


def run(front_ends: FrontEnds = NO_FRONT_ENDS) -> NoReturn:
    """The process's entry point (the launcher's ``websearch-tui`` and ``python -m websearch_tui``
    call it with their front ends): :func:`main`, then exit at once.

    Interpreter teardown frees every module and object one by one (about 0.1 s after a search),
    which a finished command does not need: the log and both output streams are flushed first.
    """
    code = main(front_ends=front_ends)
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
