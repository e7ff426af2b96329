"""Command line front door: ``websearch-tui`` (TUI), ``search``, ``providers``, ``--version``.

Exit codes: 0 success (``search``: at least one provider returned content), 1 every provider
failed, 2 bad arguments or an unusable config file (one line on stderr), 130 interrupted.

Only the TUI path imports Textual; ``search -p X`` imports only provider ``X``.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from websearch_tui import __version__
from websearch_tui.core.models import MAX_RESULTS_LIMIT, MODES, RECENCIES

PROG = "websearch-tui"
FORMATS = ("text", "json", "markdown", "llm")


class UsageError(Exception):
    """Bad command-line input; the message is printed as one line and the exit code is 2."""


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (``websearch-tui: error: ...``) and exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = _Parser(prog=PROG, description="Research the web across many search providers at once.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "--config", metavar="PATH", help="config file (default: $WEBSEARCH_TUI_CONFIG or the user config dir)"
    )
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    search = commands.add_parser("search", help="search headlessly and print the results")
    search.add_argument("query", nargs="+", help="the question or keywords")
    search.add_argument(
        "-p",
        "--provider",
        dest="providers",
        action="append",
        metavar="PROVIDER",
        help="provider id; repeat for several",
    )
    search.add_argument("--mode", choices=MODES, help="compare: all at once; auto: first that answers")
    search.add_argument(
        "--max-results", type=_max_results, metavar="N", help=f"sources per provider, 1-{MAX_RESULTS_LIMIT}"
    )
    search.add_argument("--recency", choices=RECENCIES, help="only recent material")
    search.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    search.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")

    providers = commands.add_parser("providers", help="list providers, their status and where their keys come from")
    providers.add_argument("--json", action="store_true", help="print JSON")
    providers.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")

    tui = commands.add_parser("tui", help="open the terminal UI (the default)")
    tui.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")
    return parser


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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    try:
        args = build_parser().parse_args(argv)
        from websearch_tui.logs import setup_logging

        setup_logging()
        if args.command == "search":
            return _search(args)
        if args.command == "providers":
            return _providers(args)
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


def _fail(message: str, code: int) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


def _load_config(args: argparse.Namespace):  # -> Config
    from websearch_tui.config import ConfigError, load_config

    try:
        return load_config(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _check_providers(ids: Sequence[str]) -> tuple[str, ...]:
    from websearch_tui.providers import SPECS

    ids = [provider_id.strip().lower() for provider_id in ids]
    for provider_id in ids:
        if provider_id not in SPECS:
            close = difflib.get_close_matches(provider_id, list(SPECS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; known: {', '.join(SPECS)}"
            raise UsageError(f"unknown provider {provider_id!r}{hint}")
    return tuple(dict.fromkeys(ids))


def _search(args: argparse.Namespace) -> int:
    from websearch_tui.config import build_engine
    from websearch_tui.core.models import RequestError, SearchRequest

    providers = _check_providers(args.providers or ())
    config = _load_config(args)
    try:
        request = SearchRequest(
            query=" ".join(args.query),
            providers=providers,
            mode=args.mode or config.search.mode,
            max_results=args.max_results or config.search.max_results,
            recency=args.recency or config.search.recency,
        )
    except RequestError as exc:
        raise UsageError(str(exc)) from None
    from websearch_tui.core.engine import SearchResult

    engine = build_engine(config)
    result = SearchResult(request=request, mode=request.mode)
    try:
        asyncio.run(_run_search(engine, request, result))
    except KeyboardInterrupt:
        # Ctrl+C: every run was cancelled; print what had finished (the rest reads "cancelled")
        result.error = "interrupted"
        _print_result(result, args.format)
        return 130
    return _print_result(result, args.format)


async def _run_search(engine, request, result) -> None:
    try:
        await engine.search(request, result=result)
    finally:
        await engine.aclose()


def _print_result(result, output_format: str) -> int:
    """Print ``result`` in ``output_format``; return 0 when any provider succeeded, else 1.

    When every provider failed, the errors go to stderr; ``json`` still prints its document (with
    an ``error`` object) and ``llm`` its blocks, whose failures read ``Error: <message>``.
    """
    from websearch_tui.core import formatting

    if output_format == "json":
        print(json.dumps(formatting.to_json_document(result), ensure_ascii=False, indent=2))
        return 0 if result.ok else 1
    if output_format == "llm":
        print(formatting.to_llm_document(result) or f"Error: {result.error}")
    if not result.ok:
        errors = [o for o in result.outcomes if o.error is not None]
        if len(errors) > 1:  # one failure is already the summary line below
            for outcome in errors:
                print(f"{PROG}: {outcome.provider}: {outcome.error.message}", file=sys.stderr)
        return _fail(result.error or "no provider returned results", 1)
    if output_format != "llm":
        render = {"text": formatting.to_text, "markdown": formatting.to_markdown}
        print(render[output_format](result))
    return 0


def _providers(args: argparse.Namespace) -> int:
    from websearch_tui import credentials
    from websearch_tui.providers import SPECS
    from websearch_tui.providers.base import KIND_LABELS

    config = _load_config(args)
    rows = []
    for spec in SPECS.values():
        values, sources = credentials.lookup(spec)
        settings = config.settings_for(spec.id)
        rows.append(
            {
                "id": spec.id,
                "label": spec.label,
                "kind": KIND_LABELS[spec.kind],
                "key": _key_need(spec),
                "status": credentials.provider_status(spec, settings, values),
                "key_source": _key_source(spec, sources),
                "key_env_vars": list(spec.key_env_vars),
                "default": spec.id in config.search.providers,
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    header = ("PROVIDER", "LABEL", "KIND", "KEY", "STATUS", "KEY FROM", "DEFAULT")
    table = [header] + [
        (r["id"], r["label"], r["kind"], r["key"], r["status"], r["key_source"], "yes" if r["default"] else "")
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    return 0


def _key_need(spec) -> str:  # ProviderSpec -> str
    """``"login"`` (an existing login, Codex), ``"none"``, ``"optional"`` or ``"required"``."""
    if spec.login:
        return "login"
    if not spec.credentials:
        return "none"
    return "optional" if spec.keyless else "required"


def _key_source(spec, sources) -> str:  # (ProviderSpec, [CredentialSource]) -> str
    """Where a provider's credentials come from, for the ``providers`` table (never a value)."""
    if spec.login:
        from websearch_tui import credentials

        return "login file" if credentials.login_state(spec).ready else "no login"
    return ", ".join(s.describe() for s in sources if s.where) or ("-" if spec.keyless else "not set")


def _tui(args: argparse.Namespace) -> int:
    config = _load_config(args)
    from websearch_tui.tui.app import run_tui

    return run_tui(config)
