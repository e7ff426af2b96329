"""Command line front door: ``websearch-tui`` (TUI), ``search``, ``providers``, ``keys``, ``config``,
``--version``.

Exit codes: 0 success (``search``: at least one provider returned content), 1 every provider
failed or a key could not be stored or deleted, 2 bad arguments or an unusable config file (one
line on stderr), 130 interrupted.

Only the TUI path imports Textual; ``search -p X`` imports only provider ``X``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from websearch_tui import __version__
from websearch_tui.core.models import MAX_RESULTS_LIMIT, MODES, RECENCIES

if TYPE_CHECKING:
    from websearch_tui.config import Config
    from websearch_tui.core.results import SearchResult
    from websearch_tui.core.specs import CredentialSpec, ProviderSettings, ProviderSpec
    from websearch_tui.credentials import CredentialSource
    from websearch_tui.search.engine import Engine

PROG = "websearch-tui"
FORMATS = ("text", "json", "markdown", "llm")
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
    search.add_argument(
        "--merged",
        action="store_true",
        help="with --format llm: the answers, then one de-duplicated, ranked source list for all providers",
    )
    search.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")

    providers = commands.add_parser("providers", help="list providers, their status and where their keys come from")
    providers.add_argument("--json", action="store_true", help="print JSON")
    providers.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")

    tui = commands.add_parser("tui", help="open the terminal UI (the default)")
    tui.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")
    _add_keys_parser(commands)
    _add_config_parser(commands)
    return parser


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
    actions.add_parser("list", help="where each provider credential comes from (never the value)")


def _add_config_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    config = commands.add_parser("config", help="show where the config file is, its effective settings, or check it")
    actions = config.add_subparsers(dest="config_command", metavar="{path,show,validate}", required=True)
    for name, text in (
        ("path", "print the config file path in use and whether it exists"),
        ("show", "print the effective settings as TOML, defaults included (never keys)"),
        ("validate", "check the config file: OK, or the first problem (exit 2)"),
    ):
        actions.add_parser(name, help=text).add_argument(
            "--config", metavar="PATH", default=argparse.SUPPRESS, help="config file"
        )


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
    _skip_unused_imports()
    try:
        args = build_parser().parse_args(argv)
        from websearch_tui.logs import setup_logging

        setup_logging()
        if args.command == "search":
            return _search(args)
        if args.command == "providers":
            return _providers(args)
        if args.command == "keys":
            return _keys(args)
        if args.command == "config":
            return _config(args)
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
    from websearch_tui.core.models import RequestError, SearchRequest
    from websearch_tui.search.engine import Engine

    providers = _check_providers(args.providers or ())
    if args.merged and args.format != "llm":
        raise UsageError("--merged goes with --format llm (json and markdown always include the merged sources)")
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
    engine = Engine.from_config(config)
    result = engine.prepare(request)
    try:
        asyncio.run(_run_search(engine, result))
    except KeyboardInterrupt:
        # Ctrl+C: every run was cancelled; print what had finished (the rest reads "cancelled")
        result.error = "interrupted"
        _print_result(result, args.format, merged=args.merged)
        return 130
    return _print_result(result, args.format, merged=args.merged)


async def _run_search(engine: Engine, result: SearchResult) -> None:
    try:
        await engine.search(result.request, result=result)
    finally:
        await engine.aclose()


def _print_result(result: SearchResult, output_format: str, *, merged: bool = False) -> int:
    """Print ``result`` in ``output_format``; return 0 when any provider succeeded, else 1.

    When every provider failed, the errors go to stderr (the summary's combined error last);
    ``json`` still prints its document (with an ``error`` object) and ``llm`` its blocks, whose
    failures read ``Error: <message>``. With ``merged``, ``llm`` prints the answers and one merged
    source list instead of one block per provider.
    """
    from websearch_tui.search import formats

    summary = result.summary()
    if output_format == "json":
        print(json.dumps(formats.to_json_document(result), ensure_ascii=False, indent=2))
        return 0 if result.ok else 1
    if output_format == "llm":
        document = formats.to_llm_merged(result) if merged else formats.to_llm_document(result)
        print(document or f"Error: {summary.error}")
    if not result.ok:
        errors = [(o.provider, o.error.message) for o in result.outcomes if o.error is not None]
        if len(errors) > 1:  # one failure is already the summary line below
            for provider_id, message in errors:
                print(f"{PROG}: {provider_id}: {message}", file=sys.stderr)
        return _fail(summary.error or "no provider returned results", 1)
    if output_format != "llm":
        render = {"text": formats.to_text, "markdown": formats.to_markdown}
        print(render[output_format](result))
    return 0


def _providers(args: argparse.Namespace) -> int:
    from websearch_tui import credentials
    from websearch_tui.core.specs import KIND_LABELS
    from websearch_tui.providers import SPECS

    config = _load_config(args)
    rows: list[dict[str, object]] = []
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
    header = ["PROVIDER", "LABEL", "KIND", "KEY", "STATUS", "KEY FROM", "DEFAULT"]
    columns = ("id", "label", "kind", "key", "status", "key_source")
    _print_table([header] + [[str(r[c]) for c in columns] + ["yes" if r["default"] else ""] for r in rows])
    return 0


def _key_need(spec: ProviderSpec) -> str:
    """``"login"`` (an existing login, Codex), ``"none"``, ``"optional"`` or ``"required"``."""
    if spec.login:
        return "login"
    if not spec.credentials:
        return "none"
    return "optional" if spec.keyless else "required"


def _key_source(spec: ProviderSpec, sources: Sequence[CredentialSource]) -> str:
    """Where a provider's credentials come from, for the ``providers`` table (never a value)."""
    if spec.login:
        from websearch_tui import credentials

        return "login file" if credentials.login_state(spec).ready else "no login"
    return ", ".join(s.describe() for s in sources if s.where) or ("-" if spec.keyless else "not set")


def _tui(args: argparse.Namespace) -> int:
    config = _load_config(args)
    from websearch_tui.tui.app import run_tui

    return run_tui(config)


# --- keys -------------------------------------------------------------------------------------


def _keys(args: argparse.Namespace) -> int:
    from websearch_tui import credentials

    if args.keys_command == "list":
        return _keys_list()
    spec, credential = _credential_of(args.provider, args.credential)
    try:
        if args.keys_command == "set":
            return _keys_set(spec, credential, allow_file=args.file)
        return _keys_delete(spec, credential)
    except credentials.KeyStoreError as exc:
        return _fail(str(exc), 1)


def _credential_of(provider_id: str, name: str | None) -> tuple[ProviderSpec, CredentialSpec]:
    """The provider and credential named on the command line (default: its first, the API key).

    Raises :class:`UsageError` (with a did-you-mean) for an unknown provider or credential, or a
    provider that takes no key.
    """
    from websearch_tui.providers import SPECS

    spec = SPECS[_check_providers([provider_id])[0]]
    if spec.login:
        raise UsageError(f"{spec.id} uses your existing {spec.label} login, not a stored key")
    if not spec.credentials:
        raise UsageError(f"{spec.id} needs no key")
    names = [c.name for c in spec.credentials]
    if name is None:
        return spec, spec.credentials[0]
    if name not in names:
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(f"{spec.id} has no credential {name!r}{hint}; its credentials: {', '.join(names)}")
    return spec, spec.credentials[names.index(name)]


def _keys_set(spec: ProviderSpec, credential: CredentialSpec, *, allow_file: bool) -> int:
    """``keys set``: read the value (no echo on a TTY), store it, and say where it went."""
    from websearch_tui import credentials

    if not allow_file:
        info = credentials.backend_info()
        if not info.usable:  # say so before asking for the key
            message = credentials.no_keyring_message(_first(credential.env_vars), f"backend: {info.name}")
            return _fail(f"{message} {_FILE_HINT}", 1)
    value = _read_secret(f"{spec.label} {credential.name}: ").strip()
    if not value:
        raise UsageError(f"no {credential.name} given for {spec.id}; nothing was stored")
    try:
        where = credentials.store_secret(spec.id, credential.name, value, allow_file=allow_file)
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


def _keys_delete(spec: ProviderSpec, credential: CredentialSpec) -> int:
    """``keys delete``: remove the stored credential from the keyring and the key file."""
    from websearch_tui import credentials

    removed = credentials.delete_secret(spec.id, credential.name)
    if removed:
        places = " and ".join({"keyring": "the OS keyring", "file": "the key file"}[where] for where in removed)
        print(f"Deleted {spec.id} {credential.name} from {places}.")
    else:
        print(f"No stored {credential.name} for {spec.id}; nothing was deleted.")
    _warn_env(credential, "is still set in the environment, so the provider keeps using it")
    return 0


def _keys_list() -> int:
    """``keys list``: provider, credential, where it is stored; then the keyring backend in use."""
    from websearch_tui import credentials
    from websearch_tui.providers import SPECS

    rows = [("PROVIDER", "CREDENTIAL", "STORED")]
    for spec in SPECS.values():
        rows += [(spec.id, s.name, s.describe()) for s in credentials.credential_sources(spec)]
    _print_table(rows)
    info = credentials.backend_info()
    print()
    if info.usable:
        print(f"Keyring: {info.name}")
    else:
        print(f"Keyring: not usable. {info.message} (`{PROG} keys set PROVIDER --file` confirms the key file.)")
    path = credentials.key_file_path()
    problem = credentials.key_file_problem()
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
    from websearch_tui.config import CONFIG_ENV, config_path

    if args.config_command == "path":
        path = config_path(args.config)
        origin = "--config" if args.config else f"${CONFIG_ENV}" if os.environ.get(CONFIG_ENV, "").strip() else None
        state = "exists" if path.exists() else "does not exist; the defaults apply"
        print(path)
        print(f"{state}{f' (set by {origin})' if origin else ''}", file=sys.stderr)
        return 0
    config = _load_config(args)
    if args.config_command == "show":
        print(_effective_toml(config), end="")
        return 0
    exists = config.path is not None and config.path.exists()
    print(f"OK: {config.path}" + ("" if exists else " (does not exist; the defaults apply)"))
    return 0


def _effective_toml(config: Config) -> str:
    """The effective settings as TOML: every ``[search]`` key and, per provider, its enabled state,
    endpoints, model and pacing with defaults filled in, plus the options set in the file.

    Keys never live in the config; URL passwords and secret-looking query values are masked anyway.
    """
    import tomlkit

    from websearch_tui.providers import SPECS

    document = tomlkit.document()
    document.add(tomlkit.comment(f"effective settings from {config.path} (defaults filled in; keys are never shown)"))
    search = config.search
    document["search"] = {
        "providers": list(search.providers),
        "mode": search.mode,
        "max_results": search.max_results,
        "recency": search.recency or "",
        "timeout": search.timeout,
        "max_body_mib": search.max_body_mib,
    }
    document["ui"] = {"theme": config.ui.theme or ""}
    providers = tomlkit.table(is_super_table=True)
    for spec in SPECS.values():
        providers[spec.id] = _provider_table(spec, config.settings_for(spec.id))
    document["providers"] = providers
    return tomlkit.dumps(document)


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
