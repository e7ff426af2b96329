"""Command line front door: ``websearch-tui`` (TUI), ``search``, ``providers``, ``doctor``, ``keys``,
``config``, ``mcp``, ``completion``, ``history``, ``--version``.

Exit codes (:data:`EXIT_CODES`, also in ``--help``): 0 success (``search``: at least one provider
returned content), 1 every provider failed, a provider failed its ``doctor`` check, a key could not
be stored or deleted, the output could not be written, or ``history clear`` was declined, 2 bad
arguments, an unusable config file, an unknown history id or an unreadable history file (one line
on stderr), 130 interrupted.

Every command that prints data takes ``--format`` (``search``: text, json, markdown, llm;
``providers``, ``doctor`` and ``keys list``: text, json; ``config show``: toml, json).

A first argument that is neither an option of the program nor a subcommand is a query:
``websearch-tui "how does asyncio work"`` is ``websearch-tui search "how does asyncio work"`` (as
``llm "q"`` answers in the terminal); see :func:`implied_search`.

Only the TUI path imports Textual, only ``mcp`` imports the MCP SDK, only ``completion`` imports
shtab; ``search -p X`` imports only provider ``X``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import difflib
import functools
import gc
import json
import os
import re
import shlex
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from websearch_tui.cli.completion import SHELLS
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import safe_text
from websearch_tui.core.models import MAX_QUERY_CHARS, MAX_RESULTS_LIMIT, MODES, RECENCIES, AnswerDelta, Source
from websearch_tui.core.specs import KIND_LABELS, KIND_MEANINGS
from websearch_tui.core.text import sanitize
from websearch_tui.core.version import __version__

if TYPE_CHECKING:
    from websearch_tui.core.results import OnUpdate, ProviderOutcome, ProviderUpdate, SearchResult
    from websearch_tui.core.specs import CredentialSpec, ProviderSettings, ProviderSpec
    from websearch_tui.engine import doctor
    from websearch_tui.engine.engine import Engine
    from websearch_tui.history import HistoryEntry, HistoryStore
    from websearch_tui.secrets.credentials import CredentialSource, KeyStore
    from websearch_tui.settings.config import Config

PROG = "websearch-tui"
FORMATS = ("text", "json", "markdown", "llm")
COLOR_CHOICES = ("auto", "always", "never")
"""``search --color``: colour the text format's labels on a terminal, always, or never."""
DATA_FORMATS = ("text", "json")
"""``--format`` of ``providers`` and ``keys list``."""

EXIT_CODES = """\
exit codes:
  0    success (search: at least one provider returned results)
  1    every provider failed, a provider failed its `doctor` check, a key could not be stored or
       deleted, the output could not be written, or `history clear` was declined
  2    bad arguments, an unusable config file, an unknown history id or an unreadable history file
       (one line on stderr)
  130  interrupted (Ctrl+C; search still prints what had finished)"""

ENVIRONMENT = (
    ("WEBSEARCH_TUI_CONFIG", "the config file (--config wins)"),
    ("WEBSEARCH_TUI_KEY_FILE", "the unencrypted key file, used when no OS keyring works"),
    ("WEBSEARCH_TUI_LOG", "the log file"),
    ("WEBSEARCH_TUI_HISTORY", "the history file (wins over [history] path)"),
    ("WEBSEARCH_TUI_STATE", "the file the TUI remembers its last controls in, per config file"),
    ("WEBSEARCH_TUI_MCP_TOKEN", "the bearer token of `mcp --http`"),
    ("SEARXNG_ENDPOINT", "SearXNG's base_url when the config sets none"),
    ("CODEX_HOME", "where the Codex CLI keeps its login (default ~/.codex)"),
    ("DDGS_PROXY", "a proxy for DuckDuckGo (the ddgs library)"),
)
"""The environment variables the program reads besides provider keys, with what each sets."""


def _environment_help() -> str:
    """The ``environment:`` section of ``--help``: :data:`ENVIRONMENT`, then every provider key
    variable (from the registry, in lookup order)."""
    rows = [f"  {name.ljust(24)} {text}" for name, text in ENVIRONMENT]
    keys = [name for spec in SPECS.values() for credential in spec.credentials for name in credential.env_vars]
    listed = textwrap.fill(", ".join(dict.fromkeys(keys)), width=100, initial_indent="    ", subsequent_indent="    ")
    intro = "  provider keys (the first one set wins; `websearch-tui providers` shows where each key comes from):"
    return "\n".join(["environment:", *rows, intro, listed])


MAIN_DESCRIPTION = f"""\
Research the web across many search providers at once.

With no argument the terminal UI opens. A first argument that is not a command is a query, searched
as by `search`: {PROG} "how does asyncio work" prints the answers here. A query that starts
with a command's name needs `search`: {PROG} search history of rome."""

MAIN_EXAMPLES = f"""\
examples:
  {PROG}                                          open the terminal UI
  {PROG} search "rust 1.80 release notes"         ask the default providers (see `providers`)
  {PROG} "rust 1.80 release notes"                the same: a first word that is no command is a query
  {PROG} search -p brave,tavily --json "rust 1.80"
  echo "what is new in python 3.13" | {PROG} search - --format llm -o answer.txt
  {PROG} providers                                which providers are ready, and why not
  {PROG} doctor                                   does each ready provider work today?
  {PROG} keys set brave                           store a key in the OS keyring
  {PROG} completion bash > ~/.local/share/bash-completion/completions/{PROG}"""

SEARCH_EXAMPLES = f"""\
examples:
  {PROG} search "rust 1.80 release notes"
  {PROG} "rust 1.80 release notes"       the same (a query that is a command name needs `search`)
  {PROG} search "solar panel prices" --mode auto --recency month -n 5 --format llm
  {PROG} search -p brave,tavily --json "rust 1.80" -o rust.json
  {PROG} search --preset quick -p gemini "rust 1.80"    the preset's providers and gemini
  {PROG} search - --format markdown -o report.md < question.txt

formats:
  text      a status line per provider, then its answer, sources, citations (default)
  json      one document: per provider its status, timing, normalised response or error, and
            the merged source list; dates are ISO 8601 UTC (published_date)
  markdown  a readable report with a merged source table
  llm       the compact text agents read: one "# Label (id)" block per provider
            (--merged: the answers, then one de-duplicated source list)

providers:
  -p takes one id or several separated by commas, and may be repeated (-p brave,tavily -p exa).
  --preset NAME selects a named preset of the config's [presets]; with -p the search runs both
  (the preset's providers first, then the others named with -p). Neither: the config's selection.

terminal:
  While providers finish, a progress line ("3/6 done · waiting for ...") is shown on stderr when
  stderr is a terminal, and cleared at the end.
  With one provider, the text format on a terminal streams its answer as it arrives, then prints
  the status line, sources and the rest; piped or written with -o, the output is the same as ever
  (status line first), never streamed.
  --color auto (the default) colours the text format's own labels (provider names, status, [n]
  numbers, dim URLs) only when stdout is a terminal and NO_COLOR is not set; always and never
  override both. Provider text is never coloured, and json, markdown and llm never are."""


DOCTOR_EXAMPLES = f"""\
examples:
  {PROG} doctor                        check every ready provider (see `providers`)
  {PROG} doctor brave gemini           check these two, ready or not
  {PROG} doctor --format json --timeout 20

Each check is one small live search ("test", 1 result), all at once; nothing goes to the history.
One line per provider: OK with latency and result count, or the failure's class, message and next
step. Classes: key rejected, no key, not configured, disabled, quota used up, model not found,
endpoint gone, rate limited, API changed, network, server error, bad request, protocol error,
no results.

json: {{"ok", "passed", "checked", "providers": [{{"provider", "label", "ok", "class", "class_label",
"latency_ms", "results", "message", "hint", "error_kind", "http_status", "retry_after_s"}}]}};
"class" is the stable id (ok, key_rejected, no_key, config, disabled, quota, model_not_found,
endpoint_gone, rate_limited, api_changed, network, server_error, bad_request, protocol,
no_results).

exit codes:
  0    every checked provider passed
  1    a provider failed, or none was named and none is ready
  2    bad arguments (an unknown provider id), an unusable config file"""


def _help_parser(
    commands: argparse._SubParsersAction[_Parser], name: str, *, help: str, description: str, epilog: str
) -> _Parser:
    """A subcommand whose ``--help`` keeps the line breaks of its description and epilog."""
    return commands.add_parser(
        name, help=help, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )


UNUSED_OPTIONAL_IMPORTS = ("trio", "httpx._main")
"""Modules our dependencies import only if installed, which this program never uses: httpcore imports
trio (about 120 ms) to support trio event loops, httpx its command-line client (click, rich,
pygments: about 60 ms). Both fall back by design when the import fails (see :func:`_skip_unused_imports`)."""


class UsageError(Exception):
    """Bad command-line input; the message is printed as one line and the exit code is 2."""


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (``websearch-tui: error: ...``) and exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = _Parser(
        prog=PROG,
        description=MAIN_DESCRIPTION,
        epilog=f"{MAIN_EXAMPLES}\n\n{_environment_help()}\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "--config", metavar="PATH", help="config file (default: $WEBSEARCH_TUI_CONFIG or the user config dir)"
    )
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    search = _help_parser(
        commands,
        "search",
        help="search headlessly and print the results",
        description="Send one query to the selected providers at once and print every answer and source.",
        epilog=f"{SEARCH_EXAMPLES}\n\n{EXIT_CODES}",
    )
    search.add_argument("query", nargs="+", help="the question or keywords; a lone - reads it from stdin")
    search.add_argument(
        "-p",
        "--provider",
        dest="providers",
        action="append",
        metavar="PROVIDER",
        help="provider id, or several separated by commas; repeat for more (default: the config's selection). "
        f"Ids: {', '.join(SPECS)}",
    )
    search.add_argument(
        "--preset",
        metavar="NAME",
        help="the providers of a [presets] entry of config.toml; with -p, those too (the union)",
    )
    search.add_argument("--mode", choices=MODES, help="compare: all at once; auto: first that answers")
    search.add_argument(
        "-n", "--max-results", type=_max_results, metavar="N", help=f"sources per provider, 1-{MAX_RESULTS_LIMIT}"
    )
    search.add_argument("--recency", choices=RECENCIES, help="only recent material")
    search.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    search.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")
    search.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the text format's labels: auto (on a terminal, unless NO_COLOR is set), always, never",
    )
    search.add_argument(
        "--merged",
        action="store_true",
        help="with --format llm: the answers, then one de-duplicated, ranked source list for all providers",
    )
    search.add_argument("--no-history", action="store_true", help="do not record this search in the history")
    search.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")
    _add_output_option(search)

    _add_providers_parser(commands)
    _add_doctor_parser(commands)

    tui = commands.add_parser("tui", help="open the terminal UI (the default)")
    tui.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")
    _add_keys_parser(commands)
    _add_config_parser(commands)
    _add_mcp_parser(commands)
    _add_completion_parser(commands)
    _add_history_parser(commands)
    return parser


def _add_output_option(search: argparse.ArgumentParser) -> None:
    search.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the output to FILE instead of stdout, all at once (an existing FILE is replaced only "
        "by a complete new one; nothing is written when there is nothing to print)",
    )


def _add_providers_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    kinds = "\n".join(f"  {KIND_LABELS[kind].ljust(6)} {meaning}" for kind, meaning in KIND_MEANINGS.items())
    providers = _help_parser(
        commands,
        "providers",
        help="list providers, their status and where their keys come from",
        description="Every provider: id, label, kind, key need, status, where its key comes from, default.",
        epilog=f"kinds:\n{kinds}",
    )
    _add_format_option(providers, DATA_FORMATS)
    providers.add_argument(
        "--json", dest="format", action="store_const", const="json", help="the same as --format json (deprecated)"
    )
    providers.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")


def _add_doctor_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    doctor = _help_parser(
        commands,
        "doctor",
        help="check that each provider works today (one small live search each)",
        description="Run one small live search per ready provider (or per PROVIDER named), all at once, and "
        "say for each whether it works and, if not, why and what to do.",
        epilog=DOCTOR_EXAMPLES,
    )
    doctor.add_argument(
        "providers", nargs="*", metavar="PROVIDER", help="provider ids (default: every ready or keyless provider)"
    )
    _add_format_option(doctor, DATA_FORMATS)
    doctor.add_argument(
        "--timeout", type=_timeout, metavar="SECONDS", help="deadline of each check (default: [search] timeout)"
    )
    doctor.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")


def _timeout(value: str) -> float:
    """A ``--timeout`` in seconds, more than 0 and at most 600."""
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {value!r}") from None
    if not 0 < seconds <= 600:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 600 seconds, not {value}")
    return seconds


def _add_format_option(parser: argparse.ArgumentParser, choices: Sequence[str]) -> None:
    parser.add_argument("--format", choices=choices, default=choices[0], help=f"output format (default: {choices[0]})")


def _add_completion_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    completion = _help_parser(
        commands,
        "completion",
        help="print a shell completion script (bash, zsh, fish)",
        description="Print the completion script for a shell: subcommands, options and provider ids.",
        epilog=f"""\
install:
  bash  {PROG} completion bash > ~/.local/share/bash-completion/completions/{PROG}
  zsh   {PROG} completion zsh > "${{fpath[1]}}/_{PROG}"   (or any directory in $fpath)
  fish  {PROG} completion fish > ~/.config/fish/completions/{PROG}.fish""",
    )
    completion.add_argument("shell", choices=SHELLS, help="the shell")


def _add_keys_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    keys = commands.add_parser("keys", help="store, delete and list API keys (OS keyring)")
    actions = keys.add_subparsers(dest="keys_command", metavar="{set,delete,list}", required=True)
    store = actions.add_parser("set", help="store a key in the OS keyring (prompted, or one line on stdin)")
    store.add_argument("provider", help="provider id")
    store.add_argument("--credential", metavar="NAME", help="which credential (default: the provider's API key)")
    store.add_argument(
        "--file", action="store_true", help="when no OS keyring is usable, store it in the unencrypted key file"
    )
    delete = actions.add_parser("delete", help="delete a stored key (keyring and key file)")
    delete.add_argument("provider", help="provider id")
    delete.add_argument("--credential", metavar="NAME", help="which credential (default: the provider's API key)")
    _add_format_option(
        actions.add_parser("list", help="where each provider credential comes from (never the value)"), DATA_FORMATS
    )


def _add_config_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    config = commands.add_parser("config", help="show where the config file is, its effective settings, or check it")
    actions = config.add_subparsers(dest="config_command", metavar="{path,show,validate}", required=True)
    for name, text in (
        ("path", "print the config file path in use and whether it exists"),
        ("show", "print the effective settings as TOML (or JSON), defaults included (never keys)"),
        ("validate", "check the config file: OK, or the first problem (exit 2)"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")
        if name == "show":
            _add_format_option(action, ("toml", "json"))


def _add_mcp_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    mcp = commands.add_parser(
        "mcp", help="serve web_search and list_providers to agents over MCP (stdio; --http: Streamable HTTP)"
    )
    mcp.add_argument("--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio")
    mcp.add_argument("--host", help="address to listen on with --http (default: 127.0.0.1)")
    mcp.add_argument("--port", type=int, help="port to listen on with --http (default: 8765; 0: any free port)")
    mcp.add_argument(
        "--token-file",
        metavar="PATH",
        help="file whose first line is the bearer token (at least 32 characters; or $WEBSEARCH_TUI_MCP_TOKEN); "
        "required for an address that is not loopback",
    )
    mcp.add_argument(
        "--allowed-host",
        dest="allowed_hosts",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name clients use to reach the server (Host header check); repeat for several",
    )
    mcp.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")


def _max_results(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 1 to {MAX_RESULTS_LIMIT}, not {value!r}"
        ) from None
    if not 1 <= number <= MAX_RESULTS_LIMIT:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_RESULTS_LIMIT}, not {number}")
    return number


def _skip_unused_imports() -> None:
    """Make :data:`UNUSED_OPTIONAL_IMPORTS` fail fast in this process (``None`` in ``sys.modules``
    makes ``import`` raise ImportError), so httpcore runs on asyncio only and httpx without its
    command-line client, as when those packages are not installed. Modules already imported are
    left alone."""
    for name in UNUSED_OPTIONAL_IMPORTS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    _tolerant_output()
    _skip_unused_imports()
    try:
        parser = build_parser()
        args = parser.parse_args(implied_search(sys.argv[1:] if argv is None else argv, parser))
        _check_decodable(args)
        from websearch_tui.core.logs import setup_logging

        setup_logging()
        if args.command == "search":
            return _search(args)
        if args.command == "providers":
            return _providers(args)
        if args.command == "doctor":
            return _doctor(args)
        if args.command == "keys":
            return _keys(args)
        if args.command == "config":
            return _config(args)
        if args.command == "mcp":
            return _mcp(args)
        if args.command == "completion":
            return _completion(args)
        if args.command == "history":
            return _history(args)
        return _tui(args)
    except UsageError as exc:
        return _fail(str(exc), 2)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, and keep Python from complaining at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        return _fail(f"cannot write the output: {exc.strerror or exc}", 1)


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
    args = list(argv)
    index = 0
    while index < len(args) and (args[index] == "--config" or args[index].startswith("--config=")):
        index += 2 if args[index] == "--config" else 1
    if index >= len(args):
        return args
    first = args[index]
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if first in commands:
        return args
    if first == "-" or not first.startswith("-") or _is_option_of(commands["search"], first):
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


def _check_decodable(args: argparse.Namespace) -> None:
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


def run() -> NoReturn:
    """The program's entry point (``websearch-tui``, ``python -m websearch_tui``): :func:`main`, then
    exit at once.

    Interpreter teardown frees every module and object one by one (about 0.1 s after a search),
    which a finished command does not need: the log and both output streams are flushed first.
    """
    code = main()
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _fail(message: str, code: int) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


def _load_config(args: argparse.Namespace) -> Config:
    from websearch_tui.settings.config import ConfigError, load_config

    try:
        return load_config(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _check_providers(ids: Sequence[str]) -> tuple[str, ...]:
    """``ids`` checked as :func:`websearch_tui.engine.requests.check_providers`; raises :class:`UsageError`."""
    from websearch_tui.core.models import RequestError
    from websearch_tui.engine.requests import check_providers

    try:
        return check_providers(ids)
    except RequestError as exc:
        raise UsageError(str(exc)) from None


def _check_merged(args: argparse.Namespace) -> None:
    if args.merged and args.format != "llm":
        raise UsageError("--merged goes with --format llm (json and markdown always include the merged sources)")


def _search(args: argparse.Namespace) -> int:
    from websearch_tui.core.models import RequestError
    from websearch_tui.engine.engine import Engine
    from websearch_tui.engine.requests import build_request

    providers = _check_providers(_provider_ids(args.providers or ()))
    _check_merged(args)
    output = _output_path(args.output)
    config = _load_config(args)
    if args.preset is not None:
        providers = tuple(dict.fromkeys([*_preset_providers(config, args.preset), *providers]))
    try:
        request = build_request(
            config,
            _query_text(args.query),
            providers=providers,
            mode=args.mode,
            max_results=args.max_results,
            recency=args.recency,
        )
    except RequestError as exc:
        raise UsageError(str(exc)) from None
    engine = Engine.from_config(config)
    notices: list[str] = []
    engine.history_notice = notices.append
    result = engine.prepare(request)
    progress = Progress.on_terminal(result, sys.stderr)
    stream = AnswerStream(result, sys.stdout, progress) if streams_answer(args.format, result, output) else None
    color = use_color(args.color, sys.stdout if output is None else None)
    try:
        asyncio.run(_run_search(engine, result, progress, record=not args.no_history, on_update=stream))
    except KeyboardInterrupt:
        # Ctrl+C: every run was cancelled; print what had finished (the rest reads "cancelled")
        result.error = "interrupted"
        _print_result(result, args.format, merged=args.merged, output=output, color=color, stream=stream)
        _warn(notices)
        return 130
    code = _print_result(result, args.format, merged=args.merged, output=output, color=color, stream=stream)
    _warn(notices)
    return code


def _provider_ids(values: Sequence[str]) -> list[str]:
    """The provider ids of every ``-p``: each value split at commas (``-p brave,tavily``), blanks
    around them dropped.

    Raises:
        UsageError: a ``-p`` value with no id in it (``-p ,``).
    """
    ids: list[str] = []
    for value in values:
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if not parts:
            raise UsageError(f"-p {value!r} names no provider; give one or more ids separated by commas")
        ids += parts
    return ids


def _preset_providers(config: Config, name: str) -> tuple[str, ...]:
    """The provider ids of the ``[presets]`` entry ``name``, without those the config switches off.

    Raises:
        UsageError: no such preset, naming the closest one and listing them all (or saying the
            config has none).
    """
    presets = config.enabled_presets()
    if name in presets:
        return presets[name]
    where = config.path or "the config file"
    if not presets:
        raise UsageError(
            f'unknown preset {name!r}: {where} has no [presets] (add one, e.g. quick = ["brave", "tavily"])'
        )
    close = difflib.get_close_matches(name, list(presets), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UsageError(f"unknown preset {name!r}{hint}; the presets in {where}: {', '.join(presets)}")


def _query_text(words: Sequence[str]) -> str:
    """The query: the words joined by spaces, or for a lone ``-`` what stdin holds (read to its end).

    Raises:
        UsageError: stdin is missing, empty, not text in the locale's encoding, or far longer than
            a query may be (more than four times :data:`MAX_QUERY_CHARS` characters).
    """
    if list(words) != ["-"]:
        return " ".join(words)
    stdin = sys.stdin
    if stdin is None:
        raise UsageError("the query is '-' (read it from stdin) but there is no stdin")
    if stdin.isatty():
        print(f"{PROG}: reading the query from stdin; end it with Ctrl+D", file=sys.stderr)
    limit = 4 * MAX_QUERY_CHARS
    try:
        text = stdin.read(limit + 1)
    except UnicodeDecodeError:
        text = "\udcff"  # reported below, as for an argument
    if any("\udc80" <= ch <= "\udcff" for ch in text):
        raise UsageError("the query on stdin is not valid text in this terminal's encoding (UTF-8 expected)")
    if len(text) > limit:
        raise UsageError(f"the query on stdin is longer than {MAX_QUERY_CHARS} characters")
    if not text.strip():
        raise UsageError("the query on stdin is empty; pipe the question in, or give it as an argument")
    return text


def _output_path(value: str | None) -> Path | None:
    """The file ``-o`` names, checked before the search runs (``None``: stdout; ``-`` means stdout
    too). A symbolic link is followed, so its target is what gets replaced.

    Raises:
        UsageError: the path is a directory, its directory does not exist, or it cannot be written there.
    """
    if value is None or value == "-":
        return None
    path = Path(os.path.realpath(value))
    if path.is_dir():
        raise UsageError(f"--output {value}: that is a directory; name a file")
    if not path.parent.is_dir():
        raise UsageError(f"--output {value}: the directory {path.parent} does not exist; create it or name another")
    if not os.access(path.parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"--output {value}: no permission to write {path}")
    return path


async def _run_search(
    engine: Engine, result: SearchResult, progress: Progress | None, *, record: bool, on_update: OnUpdate | None = None
) -> None:
    """Run the prepared search, reporting to ``on_update`` (default: ``progress``); the progress line
    is cleared and the engine closed at the end, also when cancelled."""
    try:
        await engine.search(result.request, on_update or progress, result=result, record=record)
    finally:
        if progress is not None:
            progress.clear()
        await engine.aclose()  # also writes the search to the history


def _warn(messages: Sequence[str]) -> None:
    for message in messages:
        print(f"{PROG}: warning: {message}", file=sys.stderr)


class Progress:
    """The stderr line ``3/6 done · waiting for Perplexity, Gemini`` while a search runs, rewritten in
    place (carriage return and padding, no escape sequences) as providers finish, cut to the
    terminal's width and cleared by :meth:`clear`. It is an ``on_update`` callback for
    :meth:`~websearch_tui.engine.engine.Engine.search`.

    Args:
        result: the prepared search (its id, providers and labels).
        stream: where the line goes (stderr).
        width: the terminal's width in columns; the line stays one character shorter.
    """

    def __init__(self, result: SearchResult, stream: TextIO, width: int = 80) -> None:
        self._result = result
        self._stream = stream
        self._width = max(20, width)
        self._done: set[str] = set()
        self._shown = ""

    @classmethod
    def on_terminal(cls, result: SearchResult, stream: TextIO | None) -> Progress | None:
        """A progress line for ``stream`` when it is a terminal, else ``None`` (a pipe or a file never
        gets one)."""
        if stream is None or not stream.isatty():
            return None
        try:
            width = os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError):
            width = 0
        return cls(result, stream, width or 80)  # a terminal that reports no size: 80 columns

    def __call__(self, update: ProviderUpdate) -> None:
        """Count ``update`` (an :data:`~websearch_tui.core.results.OnUpdate` callback) and redraw."""
        if update.search_id != self._result.search_id:
            return
        if update.final:
            self._done.add(update.provider)
        self._show(self.text())

    def text(self) -> str:
        """The line as it reads now, cut to the width."""
        from websearch_tui.core.text import truncate

        return truncate(self._result.progress_text(self._done), self._width - 1)

    def clear(self) -> None:
        """Erase the line (the cursor ends at the start of the empty line)."""
        if self._shown:
            self._stream.write("\r" + " " * len(self._shown) + "\r")
            self._stream.flush()
            self._shown = ""

    def _show(self, line: str) -> None:
        if line != self._shown:
            self._stream.write("\r" + line.ljust(len(self._shown)))
            self._stream.flush()
            self._shown = line


def _print_result(
    result: SearchResult,
    output_format: str,
    *,
    merged: bool = False,
    output: Path | None = None,
    color: bool = False,
    stream: AnswerStream | None = None,
) -> int:
    """Print ``result`` in ``output_format`` (to ``output`` instead of stdout when given, in one
    atomic write); return 0 when any provider succeeded, else 1.

    When every provider failed, the errors go to stderr, each once: one line per provider and a last
    line naming them (a single failure: its message alone);
    ``json`` still prints its document (with an ``error`` object) and ``llm`` its blocks, whose
    failures read ``Error: <message>``; ``text`` and ``markdown`` print nothing (an ``output`` file is
    then left as it was). With ``merged``, ``llm`` prints the answers and one merged source list
    instead of one block per provider. The text format gets its labels coloured with ``color``, and
    after an answer ``stream`` printed, only what it has not shown (:func:`terminal_text`).
    """
    document = _render(result, output_format, merged=merged)
    streamed = stream.text if stream is not None else None
    if document is not None and output_format == "text" and (color or streamed is not None):
        document = terminal_text(result, document, color=color, streamed=streamed)
    elif streamed is not None and not streamed.endswith("\n"):
        document = ""  # end the streamed answer's line
    if document is not None:
        _emit(document + "\n", output)
    if result.ok:
        return 0
    error = result.summary().error or "no provider returned results"
    joined = error == result.combined_error()  # "All web search providers failed: <id>: <reason>; ..."
    errors = result.failures() if joined else [(o.provider, o.error.message) for o in result.outcomes if o.error]
    if len(errors) > 1:  # one failure is the last line alone
        for provider_id, message in errors:
            print(f"{PROG}: {provider_id}: {message}", file=sys.stderr)
        if joined:  # the lines above already say what the joined message would repeat
            from websearch_tui.core.errors import all_failed_summary

            error = all_failed_summary([provider_id for provider_id, _ in errors])
    return _fail(error, 1)


# --- the text format on a terminal: colour and a streamed answer ---------------------------------

_STYLES = {
    "label": "1",
    "id": "2",
    "heading": "1",
    "number": "36",
    "url": "2",
    "done": "32",
    "empty": "33",
    "cancelled": "33",
    "failed": "31",
}
"""SGR parameters of what the text format colours: our own labels only, never provider text."""
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def use_color(choice: str, stream: TextIO | None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the text format is coloured: ``never`` and ``always`` as said (``always`` wins over
    ``NO_COLOR``, as https://no-color.org asks of an explicit option); ``auto`` only when ``stream``
    is a terminal, ``NO_COLOR`` is unset or empty and ``TERM`` is not ``dumb`` (a pipe or a file
    never gets an escape sequence)."""
    if choice != "auto":
        return choice == "always"
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR", "") or env.get("TERM") == "dumb":
        return False
    return stream is not None and stream.isatty()


def streams_answer(output_format: str, result: SearchResult, output: Path | None, stdout: TextIO | None = None) -> bool:
    """Whether the answer is printed as it arrives: the text format, one provider, and stdout (not
    ``-o``) a terminal. Piped or written to a file, the output is never streamed, so it is the same
    as ever."""
    stream = sys.stdout if stdout is None else stdout
    return (
        output_format == "text"
        and len(result.providers) == 1
        and output is None
        and stream is not None
        and stream.isatty()
    )


class AnswerStream:
    """Writes the answer of a search's only provider to a terminal as it arrives: an ``on_update``
    callback for :meth:`~websearch_tui.engine.engine.Engine.search`. Each piece is sanitized again
    here (no escape sequence or control character reaches the terminal; the engine already
    sanitized and redacted it) and leading blank space is skipped. Until the first piece, updates
    go to ``progress``; the first piece clears its line.

    Args:
        result: the prepared search.
        stream: the terminal (stdout).
        progress: the stderr progress line, if any.
    """

    def __init__(self, result: SearchResult, stream: TextIO, progress: Progress | None = None) -> None:
        self._result = result
        self._stream = stream
        self._progress = progress
        self._pieces: list[str] = []

    @property
    def text(self) -> str | None:
        """What was written so far, or ``None`` when nothing was."""
        return "".join(self._pieces) if self._pieces else None

    def __call__(self, update: ProviderUpdate) -> None:
        """Write the answer piece ``update`` carries, if any; otherwise pass it to the progress line
        while no piece has been written."""
        if update.search_id != self._result.search_id:
            return
        piece = sanitize(update.event.text) if isinstance(update.event, AnswerDelta) else ""
        if not self._pieces:
            piece = piece.lstrip()
            if not piece:
                if self._progress is not None:
                    self._progress(update)
                return
            if self._progress is not None:
                self._progress.clear()
        if piece:
            self._pieces.append(piece)
            self._stream.write(piece)
            self._stream.flush()


def terminal_text(result: SearchResult, plain: str, *, color: bool, streamed: str | None = None) -> str:
    """The text format ``plain`` of ``result`` for a terminal: with ``color``, the status line's
    provider label, id and status, the ``## Sources`` heading, the sources' ``[n]`` and their URLs
    styled (found by the layout of each provider's block, never by reading provider text); after
    ``streamed`` (the answer already printed), a blank line and the block without that answer (the
    whole block when the final answer differs). Stripped of its escape sequences the result is
    ``plain`` (or, after ``streamed``, what follows the answer); when a block is not laid out as
    expected it is left plain."""
    from websearch_tui.formats.text import to_text

    blocks = [(outcome, to_text(dataclasses.replace(result, outcomes=[outcome]))) for outcome in result.outcomes]
    lead = "" if streamed is None else "\n" if streamed.endswith("\n") else "\n\n"
    if "\n\n".join(block for _, block in blocks) != plain:
        return lead + plain
    painted = []
    for outcome, block in blocks:
        layout = _block_layout(outcome, block)
        if layout is None:
            painted.append(_paint_header(block, result, outcome) if color else block)
            continue
        head, answer, tail = layout
        if color:
            head, tail = _paint_header(head, result, outcome), _paint_sources(tail, outcome.response.sources)
        if streamed is not None and len(blocks) == 1 and safe_text(streamed.strip()) == answer:
            answer, tail = "", tail[1:]  # shown already: the status line, then a blank line and the rest
        painted.append((head + answer + tail).rstrip("\n"))
    text = "\n\n".join(painted)
    if streamed is None and _SGR.sub("", text) != plain:  # styling never changes the text: if it would, none
        return plain
    return lead + text


def _block_layout(outcome: ProviderOutcome, block: str) -> tuple[str, str, str] | None:
    """``(head, answer, tail)`` of one provider's text block, ``head + answer + tail == block``:
    the status line and notes, the answer, then the sources and the rest; ``None`` for a failed
    provider (its status line holds the error message) or a block laid out otherwise."""
    from websearch_tui.formats.common import dropped_sources_text

    if outcome.error is not None:
        return None
    response = outcome.response
    head = block.split("\n", 1)[0]
    if response.dropped_sources:
        head += f"\nNote: {dropped_sources_text(response.dropped_sources)}"
    head = safe_text(head + "\n" + "".join(f"Note: {note}\n" for note in response.notes))
    answer = safe_text((response.answer or "").strip())
    if not block.startswith(head + answer):
        return None
    return head, answer, block[len(head) + len(answer) :]


def _paint(text: str, style: str) -> str:
    code = _STYLES.get(style)
    return f"\x1b[{code}m{text}\x1b[0m" if code else text


def _paint_header(text: str, result: SearchResult, outcome: ProviderOutcome) -> str:
    """``text``, which opens with a block's status line, with its label, id and status styled."""

    label, provider, status = safe_text(result.label(outcome.provider)), outcome.provider, outcome.status.value
    lead = f"== {label} ({provider}): {status}"
    if not text.startswith(lead):
        return text
    styled = f"== {_paint(label, 'label')} {_paint(f'({provider})', 'id')}: {_paint(status, status)}"
    return styled + text[len(lead) :]


def _paint_sources(tail: str, sources: Sequence[Source]) -> str:
    """The part of a block after its answer with the ``## Sources`` heading, each source's ``[n]`` and
    its URL line styled; a source is styled only where its ``[n] <title>`` line and ``    <url>``
    line are found in order (the lines between two sources are the first one's indented snippet)."""

    lines = tail.split("\n")
    index = 0
    if lines[:3] == ["", "", "## Sources"]:
        lines[2] = _paint("## Sources", "heading")
        index = 4  # after the count line
    for number, source in enumerate(sources, 1):
        while number > 1 and index < len(lines) and (not lines[index] or lines[index].startswith("    ")):
            index += 1
        mark, url = f"[{number}]", safe_text(source.url)
        if index + 1 >= len(lines) or lines[index + 1] != f"    {url}":
            break
        if not lines[index].startswith(f"{mark} {safe_text(source.title)}"):
            break
        lines[index] = _paint(mark, "number") + lines[index][len(mark) :]
        lines[index + 1] = "    " + _paint(url, "url")
        index += 2
    return "\n".join(lines)


def _render(result: SearchResult, output_format: str, *, merged: bool) -> str | None:
    """``result`` as ``output_format`` text, or ``None`` when that format prints nothing for it."""
    if output_format in ("text", "markdown") and not result.ok:
        return None
    return _document(result, output_format, merged=merged)


def _emit(text: str, output: Path | None) -> None:
    """``text`` on stdout, or as the whole new content of ``output`` (UTF-8, written atomically).

    Raises:
        OSError: the file could not be written (``main`` reports it; nothing was changed).
    """
    if output is None:
        sys.stdout.write(text)
        return
    from websearch_tui.core.files import write_atomically

    try:
        write_atomically(output, text.encode("utf-8"), mode=None, locked=False)
    except OSError as exc:
        raise OSError(exc.errno, f"{output}: {exc.strerror or exc}; nothing was written") from None


def _document(result: SearchResult, output_format: str, *, merged: bool = False) -> str:
    """What ``search --format output_format`` prints on stdout for ``result`` (``history show`` too)."""
    from websearch_tui.formats import json_document, llm, markdown, text

    if output_format == "json":
        return json_document.to_json(result)
    if output_format == "llm":
        document = llm.to_llm_merged(result) if merged else llm.to_llm_document(result)
        return document or f"Error: {result.summary().error}"
    render = {"text": text.to_text, "markdown": markdown.to_markdown}
    return render[output_format](result)


def _providers(args: argparse.Namespace) -> int:
    from websearch_tui.secrets import credentials

    config = _load_config(args)
    key_store = credentials.KeyStore()
    rows: list[dict[str, object]] = []
    for spec in SPECS.values():
        values, sources = key_store.lookup(spec)
        settings = config.settings_for(spec.id)
        rows.append(
            {
                "id": spec.id,
                "label": spec.label,
                "kind": KIND_LABELS[spec.kind],
                "key": spec.key_need,
                "status": credentials.provider_status(spec, settings, values),
                "key_source": _key_source(spec, sources),
                "key_env_vars": list(spec.key_env_vars),
                "default": spec.id in config.search.providers,
            }
        )
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    header = ["PROVIDER", "LABEL", "KIND", "KEY", "STATUS", "KEY FROM", "DEFAULT"]
    columns = ("id", "label", "kind", "key", "status", "key_source")
    _print_table([header] + [[str(r[c]) for c in columns] + ["yes" if r["default"] else ""] for r in rows])
    return 0


def _doctor(args: argparse.Namespace) -> int:
    """``doctor [PROVIDER...]``: one probe per provider (:mod:`websearch_tui.engine.doctor`); 0 when
    every check passed, 1 otherwise (also when nothing was named and nothing is ready)."""
    from websearch_tui.engine import doctor

    named = _doctor_providers(args.providers)
    engine = _doctor_engine(_load_config(args))
    checks = asyncio.run(_run_doctor(engine, named, args.timeout))
    if not checks:
        return _fail(doctor.NOTHING_READY, 1)
    print(doctor.to_json(checks) if args.format == "json" else doctor.to_text(checks))
    return 0 if all(check.ok for check in checks) else 1


def _doctor_providers(ids: Sequence[str]) -> tuple[str, ...]:
    """``ids`` checked as for ``search -p``; the error lists every valid id."""
    try:
        return _check_providers(ids)
    except UsageError as exc:
        message = str(exc)
        raise UsageError(message if "known:" in message else f"{message}; valid ids: {', '.join(SPECS)}") from None


def _doctor_engine(config: Config) -> Engine:
    """An engine for ``config`` that records nothing (its ``[history]`` switched off)."""
    from websearch_tui.engine.engine import Engine

    quiet = dataclasses.replace(config, history=dataclasses.replace(config.history, enabled=False))
    return Engine.from_config(quiet)


async def _run_doctor(engine: Engine, named: Sequence[str], timeout: float | None) -> list[doctor.Check]:
    from websearch_tui.engine import doctor

    try:
        return await doctor.run_checks(engine, named, timeout=timeout)
    finally:
        await engine.aclose()


def _key_source(spec: ProviderSpec, sources: Sequence[CredentialSource]) -> str:
    """Where a provider's credentials come from, for the ``providers`` table (never a value)."""
    if spec.key_need == "login":
        from websearch_tui.secrets import credentials

        return "login file" if credentials.login_state(spec).ready else "no login"
    return ", ".join(s.describe() for s in sources if s.where) or ("-" if spec.keyless else "not set")


def _completion(args: argparse.Namespace) -> int:
    """``completion SHELL``: print the completion script (:mod:`websearch_tui.cli.completion`)."""
    from websearch_tui.cli import completion

    try:
        text = completion.script(build_parser(), args.shell)
    except ModuleNotFoundError as exc:
        if exc.name != "shtab":
            raise
        return _fail("shell completion needs shtab: python3 -m pip install shtab", 1)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _tui(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "the terminal UI needs a terminal (stdin or stdout is not one); "
            'for a search without one run: websearch-tui search "your question"'
        )
    config = _load_config(args)
    # no cyclic collections while Textual is imported and the first screen is built: what is
    # allocated until then lives as long as the app; settle_gc collects once after the first paint,
    # freezes what is alive and turns the collector back on
    gc.disable()
    _check_keymap(config)
    from websearch_tui.tui.app import run_tui

    return run_tui(config)


def _check_keymap(config: Config) -> None:
    """A ``[keymap]`` id that no binding of the TUI has is a config error; Textual is imported only
    for a keymap that is not empty (see :func:`websearch_tui.tui.app.check_keymap`)."""
    if not config.keymap:
        return
    from websearch_tui.settings.config import ConfigError
    from websearch_tui.tui.app import check_keymap

    try:
        check_keymap(config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


MCP_PACKAGES = "mcp uvicorn starlette"
"""What the ``mcp`` extra adds (see pyproject.toml), for the install hints."""


def mcp_install_hint(prefix: str | None = None) -> str:
    """The command that adds the MCP server's packages to *this* installation (``prefix``: the
    environment's ``sys.prefix``, by default this one's): ``pipx inject websearch-tui ...`` for a
    pipx install, ``uv tool install --force --with ...`` for a uv tool, else ``<this python> -m pip
    install 'websearch-tui[mcp]'`` (with the checkout's form beside it)."""
    where = (prefix or sys.prefix).replace("\\", "/")
    if "/pipx/venvs/" in where:
        return f"pipx inject {PROG} {MCP_PACKAGES}"
    if "/uv/tools/" in where or "/uv/data/tools/" in where:  # Linux and macOS; Windows: %APPDATA%/uv/data/tools
        extras = " ".join(f"--with {name}" for name in MCP_PACKAGES.split())
        return f"uv tool install --force {extras} {PROG} (from a checkout: the checkout's path instead of {PROG})"
    python = shlex.quote(sys.executable or "python3")
    return f"{python} -m pip install '{PROG}[mcp]' (in a checkout: {python} -m pip install -e '.[mcp]')"


def _mcp(args: argparse.Namespace) -> int:
    """``mcp``: the MCP server over stdio, or Streamable HTTP with ``--http``, until the client closes
    stdin or the process gets SIGINT/SIGTERM."""
    http_only = [
        flag
        for flag, value in (("--host", args.host), ("--port", args.port), ("--token-file", args.token_file))
        if value is not None
    ]
    if not args.http and (http_only or args.allowed_hosts):
        raise UsageError(f"only valid with --http: {', '.join(http_only or ['--allowed-host'])}")
    config = _load_config(args)
    try:
        from websearch_tui.mcp import server as mcp_server
    except ModuleNotFoundError as exc:
        if (exc.name or "").startswith(PROG.replace("-", "_")):
            raise
        return _fail(f"the MCP server needs the MCP SDK (module {exc.name!r} is missing): {mcp_install_hint()}", 1)
    mcp_server.log_to_stderr()
    try:
        if not args.http:
            asyncio.run(mcp_server.serve_stdio(mcp_server.make_tools(config)))
            return 0
        options = mcp_server.http_options(
            args.host, args.port, token_file=args.token_file, allowed_hosts=args.allowed_hosts
        )
        announce = functools.partial(print, file=sys.stderr, flush=True)
        asyncio.run(mcp_server.serve_http(mcp_server.make_tools(config), options, announce))
    except mcp_server.ServeError as exc:
        raise UsageError(str(exc)) from None
    return 0


# --- keys -------------------------------------------------------------------------------------


def _keys(args: argparse.Namespace) -> int:
    from websearch_tui.secrets import credentials

    key_store = credentials.KeyStore()
    if args.keys_command == "list":
        return _keys_list(key_store, args.format)
    spec, credential = _credential_of(args.provider, args.credential)
    try:
        if args.keys_command == "set":
            return _keys_set(key_store, spec, credential, allow_file=args.file)
        return _keys_delete(key_store, spec, credential)
    except credentials.KeyStoreError as exc:
        return _fail(str(exc), 1)


def _credential_of(provider_id: str, name: str | None) -> tuple[ProviderSpec, CredentialSpec]:
    """The provider and credential named on the command line (default: its first, the API key).

    Raises :class:`UsageError` (with a did-you-mean) for an unknown provider or credential, or a
    provider that takes no key.
    """
    spec = SPECS[_check_providers([provider_id])[0]]
    if spec.key_need == "login":
        raise UsageError(f"{spec.id} uses your existing {spec.label} login, not a stored key")
    if spec.key_need == "none":
        raise UsageError(f"{spec.id} needs no key")
    names = [c.name for c in spec.credentials]
    if name is None:
        return spec, spec.credentials[0]
    if name not in names:
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(f"{spec.id} has no credential {name!r}{hint}; its credentials: {', '.join(names)}")
    return spec, spec.credentials[names.index(name)]


def _keys_set(key_store: KeyStore, spec: ProviderSpec, credential: CredentialSpec, *, allow_file: bool) -> int:
    """``keys set``: read the value (no echo on a TTY), store it as given, and say where it went."""
    from websearch_tui.secrets import credentials

    if not allow_file:
        info = credentials.backend_info()
        if not info.usable:  # say so before asking for the key
            message = credentials.no_keyring_message(_first(credential.env_vars), f"backend: {info.name}")
            return _fail(f"{message} {_FILE_HINT}", 1)
    value = _read_secret(f"{spec.label} {credential.name}: ").strip()
    if not value:
        raise UsageError(f"no {credential.name} given for {spec.id}; nothing was stored")
    try:
        where = key_store.store_one(spec, credential.name, value, allow_file=allow_file)
    except credentials.NoKeyringError as exc:
        return _fail(f"{exc} {_FILE_HINT}", 1)
    if where == "file":
        path = credentials.key_file_path()
        print(f"Stored {spec.id} {credential.name} in the key file {path} (NOT ENCRYPTED; readable only by you).")
    else:
        print(f"Stored {spec.id} {credential.name} in the OS keyring ({credentials.backend_info().name}).")
    _warn_env(credential, "is set in the environment and is used instead of the stored key")
    return 0


_FILE_HINT = "To store it in that file anyway, run the command again with --file."


def _first(names: Sequence[str]) -> str | None:
    return names[0] if names else None


def _read_secret(prompt: str) -> str:
    """The secret: typed without echo when stdin is a terminal, else the first line of stdin."""
    stdin = sys.stdin
    if stdin is not None and stdin.isatty():
        import getpass

        try:
            return getpass.getpass(prompt)
        except EOFError:
            return ""
    return stdin.readline() if stdin is not None else ""


def _warn_env(credential: CredentialSpec, text: str) -> None:
    """Warn on stderr when one of the credential's env vars is set (it wins over stored keys)."""
    for name in credential.env_vars:
        if os.environ.get(name, "").strip():
            print(f"{PROG}: warning: {name} {text}.", file=sys.stderr)
            return


def _keys_delete(key_store: KeyStore, spec: ProviderSpec, credential: CredentialSpec) -> int:
    """``keys delete``: remove the stored credential from the keyring and the key file."""
    removed = key_store.delete(spec, [credential.name])
    if removed:
        places = " and ".join({"keyring": "the OS keyring", "file": "the key file"}[where] for where in removed)
        print(f"Deleted {spec.id} {credential.name} from {places}.")
    else:
        print(f"No stored {credential.name} for {spec.id}; nothing was deleted.")
    _warn_env(credential, "is still set in the environment, so the provider keeps using it")
    return 0


def _keys_list(key_store: KeyStore, output_format: str = "text") -> int:
    """``keys list``: provider, credential, where it is stored; then the keyring backend in use and
    the key file. ``json``: ``{"credentials": [{"provider", "credential", "stored"}], "keyring":
    {"backend", "usable", "message"}, "key_file": {"path", "exists", "problem"}}`` (never a value)."""
    from websearch_tui.secrets import credentials

    stored = [(spec.id, s.name, s.describe()) for spec in SPECS.values() for s in key_store.sources(spec)]
    info = credentials.backend_info()
    path = credentials.key_file_path()
    problem = credentials.key_file_problem()
    if output_format == "json":
        document = {
            "credentials": [{"provider": pid, "credential": name, "stored": where} for pid, name, where in stored],
            "keyring": {"backend": info.name, "usable": info.usable, "message": info.message or None},
            "key_file": {"path": str(path), "exists": path.exists(), "problem": problem or None},
        }
        print(json.dumps(document, indent=2))
        return 0
    _print_table([("PROVIDER", "CREDENTIAL", "STORED"), *stored])
    print()
    if info.usable:
        print(f"Keyring: {info.name}")
    else:
        print(f"Keyring: not usable. {info.message} (`{PROG} keys set PROVIDER --file` confirms the key file.)")
    if problem:
        print(f"Key file: {problem}")
    elif path.exists():
        print(f"Key file: {path} (NOT ENCRYPTED)")
    return 0


def _print_table(rows: Sequence[Sequence[str]]) -> None:
    """Left-aligned columns two spaces apart; the first row is the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


# --- config -----------------------------------------------------------------------------------


def _config(args: argparse.Namespace) -> int:
    from websearch_tui.settings.config import CONFIG_ENV, config_path

    if args.config_command == "path":
        path = config_path(args.config)
        origin = "--config" if args.config else f"${CONFIG_ENV}" if os.environ.get(CONFIG_ENV, "").strip() else None
        state = "exists" if path.exists() else "does not exist; the defaults apply"
        print(path)
        print(f"{state}{f' (set by {origin})' if origin else ''}", file=sys.stderr)
        return 0
    config = _load_config(args)
    if args.config_command == "show":
        if args.format == "json":
            print(json.dumps(_effective_settings(config), indent=2))
        else:
            print(_effective_toml(config), end="")
        return 0
    _check_keymap(config)
    exists = config.path is not None and config.path.exists()
    print(f"OK: {config.path}" + ("" if exists else " (does not exist; the defaults apply)"))
    return 0


def _effective_toml(config: Config) -> str:
    """The effective settings as TOML: every ``[search]``, ``[ui]`` and ``[history]`` key, the
    ``[keymap]`` and, per provider, its enabled state, endpoints, model and pacing with defaults
    filled in, plus the options set in the file.

    Keys never live in the config; URL passwords and secret-looking query values are masked anyway.
    """
    import tomlkit

    settings = _effective_settings(config)
    document = tomlkit.document()
    document.add(tomlkit.comment(f"effective settings from {config.path} (defaults filled in; keys are never shown)"))
    document["search"] = settings["search"]
    document["ui"] = settings["ui"]
    document["history"] = settings["history"]
    document["presets"] = settings["presets"]
    document["keymap"] = settings["keymap"]
    providers = tomlkit.table(is_super_table=True)
    for provider_id, table in settings["providers"].items():
        providers[provider_id] = table
    document["providers"] = providers
    return tomlkit.dumps(document)


def _effective_settings(config: Config) -> dict[str, Any]:
    """The effective settings as plain data, ``{"search": {...}, "ui": {...}, "history": {...}, "presets": {name:
    [ids]}, "keymap": {id: keys}, "providers": {id: table}}`` (what ``config show`` prints as TOML or JSON; see
    :func:`_effective_toml`)."""
    search = config.search
    return {
        "search": {
            "providers": list(search.providers),
            "mode": search.mode,
            "max_results": search.max_results,
            "recency": search.recency or "",
            "timeout": search.timeout,
            "max_body_mib": search.max_body_mib,
        },
        "ui": {"theme": config.ui.theme or ""},
        "history": _history_settings(config),
        "presets": {name: list(ids) for name, ids in config.presets.items()},
        "keymap": dict(config.keymap),
        "providers": {spec.id: _provider_table(spec, config.settings_for(spec.id)) for spec in SPECS.values()},
    }


def _history_settings(config: Config) -> dict[str, object]:
    """The effective ``[history]`` table, with the file the history is kept in."""
    from websearch_tui.history import history_path

    history = config.history
    return {"enabled": history.enabled, "max_entries": history.max_entries, "path": str(history_path(history.path))}


def _provider_table(spec: ProviderSpec, settings: ProviderSettings) -> dict[str, object]:
    """One provider's effective ``[providers.<id>]`` table (``None`` values left out)."""
    table = {
        "enabled": settings.enabled is not False,
        "base_url": _mask_url(settings.base_url or spec.default_base_url),
        "mcp_url": _mask_url(settings.mcp_url or spec.default_mcp_url),
        "model": (settings.models[0] if settings.models else None) or settings.model or spec.default_model,
        "models": list(settings.models) or None,
        "min_interval": settings.min_interval if settings.min_interval is not None else spec.default_min_interval,
        **settings.options,
    }
    return {key: value for key, value in table.items() if value is not None}


_SECRET_PARAM = ("key", "token", "secret", "password", "auth", "signature")


def _mask_url(url: str | None) -> str | None:
    """``url`` with a user-info password (or a lone user-info token) and secret-looking query values
    replaced by ``***``."""
    if not url:
        return None
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password:
        parts = parts._replace(netloc=f"{parts.username}:***@{parts.netloc.rpartition('@')[2]}")
    elif "@" in parts.netloc:  # https://TOKEN@host: a user name alone is often a token
        parts = parts._replace(netloc=f"***@{parts.netloc.rpartition('@')[2]}")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if any(word in name.lower() for name, _ in pairs for word in _SECRET_PARAM):
        masked = [(k, "***" if any(word in k.lower() for word in _SECRET_PARAM) else v) for k, v in pairs]
        parts = parts._replace(query=urlencode(masked, safe="*"))
    return urlunsplit(parts)


# --- history ----------------------------------------------------------------------------------


def _add_history_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    history = commands.add_parser("history", help="list, show, search and delete the searches kept in the history")
    actions = history.add_subparsers(
        dest="history_command", metavar="{list,show,search,delete,clear}", required=True, parser_class=_Parser
    )
    listing = actions.add_parser("list", help="the stored searches, newest first")
    listing.add_argument("--limit", type=_limit, default=20, metavar="N", help="how many (default: 20)")
    listing.add_argument("--format", choices=DATA_FORMATS, default="text", help="output format (default: text)")
    show = actions.add_parser("show", help="print a stored search exactly as `search --format ...` printed it")
    show.add_argument("id", type=_entry_id, help="the search's id (from `history list`)")
    show.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    show.add_argument("--merged", action="store_true", help="with --format llm: the answers, then one source list")
    _add_output_option(show)
    find = actions.add_parser("search", help="full-text search of queries, answers and sources, best match first")
    find.add_argument("text", nargs="+", help="words to look for (every one must match)")
    find.add_argument("--limit", type=_limit, default=20, metavar="N", help="how many (default: 20)")
    find.add_argument("--format", choices=DATA_FORMATS, default="text", help="output format (default: text)")
    delete = actions.add_parser("delete", help="delete one stored search")
    delete.add_argument("id", type=_entry_id, help="the search's id (from `history list`)")
    clear = actions.add_parser("clear", help="delete every stored search (asks first)")
    clear.add_argument("--yes", action="store_true", help="do not ask")
    for parser in (listing, show, find, delete, clear):
        parser.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")


def _positive(value: str, what: str) -> int:
    """``value`` as a whole number of 1 or more; otherwise an argparse error saying it must be ``what``."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be {what}, not {value!r}")
    return number


def _entry_id(value: str) -> int:
    return _positive(value, f"a search id from `{PROG} history list` (a number)")


def _limit(value: str) -> int:
    return _positive(value, "a whole number of 1 or more")


def _history(args: argparse.Namespace) -> int:
    """``history list|show|search|delete|clear``; an unknown id or an unusable file is a usage error."""
    from websearch_tui.history import HistoryError, history_path

    config = _load_config(args)
    path = history_path(config.history.path)
    commands = {
        "list": _history_list,
        "show": _history_show,
        "search": _history_search,
        "delete": _history_delete,
        "clear": _history_clear,
    }
    try:
        return commands[args.history_command](args, path)
    except HistoryError as exc:
        raise UsageError(str(exc)) from None


def _history_store(path: Path) -> HistoryStore | None:
    """The history file, or ``None`` when it does not exist yet (nothing is created by reading)."""
    from websearch_tui.history import HistoryStore

    if not path.exists():
        return None
    store = HistoryStore(path)
    _warn([notice] if (notice := store.take_notice()) else [])
    return store


def _history_list(args: argparse.Namespace, path: Path) -> int:
    store = _history_store(path)
    return _print_entries(store.entries(limit=args.limit) if store else [], args.format, path)


def _history_search(args: argparse.Namespace, path: Path) -> int:
    from websearch_tui.history import HistoryError
    from websearch_tui.history.index import match_expression

    text = " ".join(args.text)
    if match_expression(text) is None:
        raise HistoryError(f"nothing to search for in {text!r}: give at least one word or number")
    store = _history_store(path)
    if store is not None and not store.full_text:
        _warn(["this SQLite has no full-text search (FTS5): only the queries were searched"])
    return _print_entries(store.search(text, limit=args.limit) if store else [], args.format, path)


def _print_entries(entries: Sequence[HistoryEntry], output_format: str, path: Path) -> int:
    """``history list`` / ``search`` output: a JSON list of :meth:`HistoryEntry.to_dict`, or a table."""
    if output_format == "json":
        print(json.dumps([entry.to_dict() for entry in entries], ensure_ascii=False, indent=2))
        return 0
    if not entries:
        print(f"No searches found in the history ({path}).", file=sys.stderr)
        return 0
    rows = [["ID", "WHEN", "QUERY", "PROVIDERS", "OUTCOMES"]]
    rows += [_entry_row(entry) for entry in entries]
    _print_table(rows)
    return 0


HISTORY_PROVIDER_CELLS = 34
"""The width of ``history list``'s PROVIDERS column, as on the TUI's History screen: the ids that
fit, then ``+N`` for the rest (:func:`~websearch_tui.core.columns.fit_labels`)."""


def _entry_row(entry: HistoryEntry) -> list[str]:
    """A table row: id, local start time, the query on one line (at most 60 characters), the provider
    ids that fit :data:`HISTORY_PROVIDER_CELLS` cells (then ``+N``) and the non-zero status counts."""
    from websearch_tui.core.columns import fit_labels
    from websearch_tui.core.text import truncate

    counts = ", ".join(f"{count} {status.value}" for status, count in entry.counts().items() if count)
    return [
        str(entry.id),
        entry.created_at.astimezone().strftime("%Y-%m-%d %H:%M"),
        truncate(" ".join(entry.query.split()), 60),
        fit_labels(entry.providers, HISTORY_PROVIDER_CELLS),
        counts,
    ]


def _history_show(args: argparse.Namespace, path: Path) -> int:
    from websearch_tui.history import UnknownEntry

    _check_merged(args)
    output = _output_path(args.output)
    store = _history_store(path)
    if store is None:
        raise UnknownEntry(f"no search with id {args.id}: the history file {path} does not exist yet")
    _emit(_document(store.get(args.id).result, args.format, merged=args.merged) + "\n", output)
    if output is not None:
        print(f"Wrote search {args.id} to {output}.", file=sys.stderr)
    return 0


def _history_delete(args: argparse.Namespace, path: Path) -> int:
    from websearch_tui.history import UnknownEntry

    store = _history_store(path)
    if store is None:
        raise UnknownEntry(f"no search with id {args.id}: the history file {path} does not exist yet")
    store.delete(args.id)
    print(f"Deleted search {args.id}.")
    return 0


def _history_clear(args: argparse.Namespace, path: Path) -> int:
    store = _history_store(path)
    count = store.count() if store else 0
    if store is None or not count:
        print(f"The history is already empty ({path}).")
        return 0
    if not args.yes:
        print(f"Delete all {count} searches in {path}? [y/N] ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline() if sys.stdin is not None else ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was deleted.", file=sys.stderr)
            return 1
    print(f"Deleted {store.clear()} searches.")
    return 0
