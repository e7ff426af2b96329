"""The argument parser of ``websearch-tui``: every command, option, choice and help text (the
examples, the environment variables and the exit codes ``--help`` shows), and the option types that
check a value as it is parsed. Building it imports no command.

Bad input raises :class:`~websearch_tui.cli.common.UsageError` (one line on stderr, exit 2) instead of
argparse's usage text.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from typing import NoReturn

from websearch_tui.cli.common import PROG, UsageError
from websearch_tui.cli.completion import SHELLS
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import MAX_RESULTS_LIMIT, MODES, RECENCIES
from websearch_tui.core.specs import KIND_LABELS, KIND_MEANINGS
from websearch_tui.core.version import __version__

FORMATS = ("text", "json", "markdown", "llm")
"""``--format`` of ``search`` and ``history show``."""
COLOR_CHOICES = ("auto", "always", "never")
"""``search --color``: colour the text format's labels on a terminal, always, or never."""
DATA_FORMATS = ("text", "json")
"""``--format`` of ``providers`` and ``keys list``."""
PAGE_FORMATS = ("markdown", "text", "json")
"""``--format`` of ``fetch``."""

EXIT_CODES = """\
exit codes:
  0    success (search: at least one provider returned results)
  1    every provider failed, a provider failed its `doctor` check, a page could not be read
       (`fetch`), a key could not be stored or deleted, the output could not be written,
       `history clear` was declined, or a search was refused because it would pass a [budget]
       (nothing sent; --over-budget runs it)
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
  {PROG} search --verify -p perplexity "when was rust 1.80 released"   and check its citations

formats:
  text      a status line per provider, then its answer, sources, citations (default)
  json      one document: per provider its status, timing, normalised response or error, and
            the merged source list; dates are ISO 8601 UTC (published_date)
  markdown  a readable report with a merged source table
  llm       the compact text agents read: one "# Label (id)" block per provider
            (--merged: the answers, then one de-duplicated source list)

citations:
  --verify reads each cited page once (the reader's SSRF guard and limits apply: [reader] in
  config.toml) and marks every citation: quoted (the cited text is on the page), supported (a
  passage states it, with every number, date and name of the claim), not supported (the closest
  passage and what differs), unreadable (why). Every format shows the marks; json puts them in each
  citation's "check".

providers:
  -p takes one id or several separated by commas, and may be repeated (-p brave,tavily -p exa).
  --preset NAME selects a named preset (built in: scholar, community; or the config's [presets],
  whose own preset of the same name wins); with -p the search runs both
  (the preset's providers first, then the others named with -p). Neither: the config's selection.

terminal:
  While providers finish, a progress line ("3/6 done · waiting for ...") is shown on stderr when
  stderr is a terminal, and cleared at the end; a provider held back by pacing says so there
  ("waiting 0.8 s: Exa allows one search per second").
  With one provider, the text format on a terminal streams its answer as it arrives, then prints
  the status line, sources and the rest; piped or written with -o, the output is the same as ever
  (status line first), never streamed.
  --color auto (the default) colours the text format's own labels (provider names, status, [n]
  numbers, dim URLs) only when stdout is a terminal and NO_COLOR is not set; always and never
  override both. Provider text is never coloured, and json, markdown and llm never are.

cache and budgets:
  A provider that answered the same query with the same controls and settings (and the same key
  and endpoint) within [cache] ttl (default 1 hour; [providers.X] cache_ttl; 0: off) is not asked
  again: its stored result is reused, marked cached, at $0. Only results that ended done are
  reused. --fresh asks every provider again; --no-history still reuses but records nothing.
  With [budget] daily or monthly set, a search that would pass it by estimate is refused (exit 1,
  nothing sent) unless --over-budget."""


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


FETCH_EXAMPLES = f"""\
examples:
  {PROG} fetch https://docs.python.org/3/whatsnew/3.13.html
  {PROG} fetch https://example.com/report.pdf --format text -o report.txt
  {PROG} fetch https://example.com/article --format json

The page's main content is extracted (trafilatura, readability-lxml when that finds nothing, pypdf
for PDFs): navigation, ads and footers left out; headings, lists, tables and links kept.

formats:
  markdown  the title, a "site · author · date" line, the final URL, then the text (default)
  text      the same without Markdown markup
  json      {{"url", "final_url", "status", "title", "site", "author", "published_date", "text",
            "word_count", "truncated", "retrieved_at", "content_sha256", "content_type"}}

safety and limits ([reader] in config.toml):
  Only http and https URLs without credentials. No connection to a loopback, private, link-local,
  unique-local or cloud-metadata address (checked on the address a name resolves to, for every
  redirect) unless allow_private lists the host. At most 5 redirects; at most max_bytes of body
  (default 5 MiB; a longer page is read up to there and marked truncated) within timeout seconds.

exit codes:
  0    the page was read and printed
  1    it could not be read; the reason on stderr: blocked, http_status, too_large, no_main_text,
       timeout, network, unsupported, bad_url or too_many_redirects
  2    bad arguments, an unusable config file"""


def _help_parser(
    commands: argparse._SubParsersAction[_Parser], name: str, *, help: str, description: str, epilog: str
) -> _Parser:
    """A subcommand whose ``--help`` keeps the line breaks of its description and epilog."""
    return commands.add_parser(
        name, help=help, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (``websearch-tui: error: ...``) and exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser for every subcommand, or with ``only`` (a name in :data:`COMMANDS`) for
    that one alone: a command line that names its command parses the same with either, and
    building the other twenty-odd parsers took about 5 ms of every start (argparse looks up a
    translation of its own texts for each)."""
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
    for name, add in _SUBCOMMANDS.items():
        if only is None or name == only:
            add(commands)
    return parser


def first_word(argv: Sequence[str]) -> int:
    """The index of the first argument of ``argv`` after the program's own ``--config PATH`` (or
    ``--config=PATH``) options: where a subcommand or a query starts (``len(argv)`` if none is there)."""
    index = 0
    while index < len(argv) and (argv[index] == "--config" or argv[index].startswith("--config=")):
        index += 2 if argv[index] == "--config" else 1
    return min(index, len(argv))


def command_named(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names at its :func:`first_word`, or ``None`` when that is no
    subcommand's name (a query, an option, nothing)."""
    index = first_word(argv)
    return argv[index] if index < len(argv) and argv[index] in COMMANDS else None


def _add_search_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``search``: the query, the providers, the format and the options of the run."""
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
        help="the providers of a preset (scholar, community, or a [presets] entry of config.toml); with -p, those too",
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
    search.add_argument(
        "--fresh",
        action="store_true",
        help="send every request again: reuse no result from the history ([cache] ttl)",
    )
    search.add_argument(
        "--over-budget",
        action="store_true",
        help="run the search even if, by estimate, it would pass a [budget] daily or monthly limit",
    )
    search.add_argument(
        "--verify",
        action="store_true",
        help="then check every citation against the page it cites (quoted, supported, not supported, unreadable)",
    )
    search.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")
    _add_output_option(search)


def _add_tui_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``tui``: the terminal UI, also what no command opens."""
    tui = commands.add_parser("tui", help="open the terminal UI (the default)")
    tui.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")


def _add_output_option(search: argparse.ArgumentParser) -> None:
    """``-o FILE`` of ``search`` and ``history show``."""
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


def _add_fetch_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    fetch = _help_parser(
        commands,
        "fetch",
        help="read one web page and print its main content (Markdown, text or JSON)",
        description="Fetch URL (safely: see below), extract its main content and print it.",
        epilog=FETCH_EXAMPLES,
    )
    fetch.add_argument("url", help="the page: an http or https URL")
    _add_format_option(fetch, PAGE_FORMATS)
    fetch.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")
    _add_output_option(fetch)


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
    """A ``--max-results`` count, from 1 to :data:`~websearch_tui.core.models.MAX_RESULTS_LIMIT`."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 1 to {MAX_RESULTS_LIMIT}, not {value!r}"
        ) from None
    if not 1 <= number <= MAX_RESULTS_LIMIT:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_RESULTS_LIMIT}, not {number}")
    return number


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


STATS_EPILOG = f"""\
examples:
  {PROG} stats                          every provider over the whole history
  {PROG} stats --since 30d              the last 30 days (12h, 2w, a date such as 2026-11-01, all)
  {PROG} stats --provider exa --format json

per provider: searches (runs; a result reused from the cache counts too), the share that ended done,
empty, failed, cancelled and that was reused (cached), latency p50 / p95 of the requests sent, time to
first token (TTFT, streaming providers), sources per search, unique share (its sources no other
provider in the same search found), how often other providers' answers cited its sources, spend
(US dollars: reported by the provider, else estimated from its price). Then searches and spend per
day. json: {{"since", "provider", "searches", "spend_usd", "providers": [...], "days": [...]}}.
Without a history file it says so and exits 0. The TUI shows the same figures as charts (F6).

exit codes:
  0    printed (also for an empty history)
  2    a bad --since, an unknown provider id, an unusable config or unreadable history file"""


def _add_stats_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    stats = _help_parser(
        commands,
        "stats",
        help="statistics of the history: outcome rates, latency, sources and spend per provider and per day",
        description="What the history says about each provider, and per day, over a period.",
        epilog=STATS_EPILOG,
    )
    stats.add_argument(
        "--since", metavar="PERIOD", help="only searches since: 12h, 30d, 2w, a date (2026-11-01), all (default: all)"
    )
    stats.add_argument("--provider", metavar="ID", help="only this provider's runs (and the searches that ran it)")
    _add_format_option(stats, DATA_FORMATS)
    stats.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")


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
    """A history entry id (1 or more)."""
    return _positive(value, f"a search id from `{PROG} history list` (a number)")


def _limit(value: str) -> int:
    """A ``--limit`` count (1 or more)."""
    return _positive(value, "a whole number of 1 or more")


_SUBCOMMANDS = {
    "search": _add_search_parser,
    "providers": _add_providers_parser,
    "doctor": _add_doctor_parser,
    "fetch": _add_fetch_parser,
    "tui": _add_tui_parser,
    "keys": _add_keys_parser,
    "config": _add_config_parser,
    "mcp": _add_mcp_parser,
    "completion": _add_completion_parser,
    "history": _add_history_parser,
    "stats": _add_stats_parser,
}
"""Each subcommand's parser builder, in the order ``--help`` lists them."""
COMMANDS = tuple(_SUBCOMMANDS)
"""The subcommands' names."""
