"""``websearch-tui search``: one query to the selected providers at once, every answer and source
printed (``--format`` text, json, markdown or llm; ``-o FILE``). On a terminal a progress line is
kept on stderr while providers finish, and the answer of a single provider is streamed as it
arrives (see :mod:`websearch_tui.cli.render` for the colours)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from websearch_tui.cli.common import PROG, UsageError, check_providers, fail, load_config, warn
from websearch_tui.cli.output import check_merged, document, emit, output_path
from websearch_tui.cli.render import terminal_text, use_color
from websearch_tui.core.catalogue import BUILTIN_PRESETS
from websearch_tui.core.models import MAX_QUERY_CHARS, AnswerDelta
from websearch_tui.core.text import sanitize

if TYPE_CHECKING:
    from websearch_tui.core.results import OnUpdate, ProviderUpdate, SearchResult
    from websearch_tui.session import BudgetOverrun, LiveSearch, Session
    from websearch_tui.settings.config import Config


def run(args: argparse.Namespace) -> int:
    """``search``: 0 when a provider returned content, 1 when every one failed or when the search
    would pass a ``[budget]`` (refused before anything is sent, unless ``--over-budget``; the message
    names the budget, the spend so far and the estimate), 130 when interrupted (what had finished is
    printed all the same). ``--fresh`` reuses no result from the history.

    Raises:
        UsageError: bad arguments (providers, preset, query, ``-o``), an unusable config file.
    """
    from websearch_tui.core.models import RequestError
    from websearch_tui.engine.requests import build_request
    from websearch_tui.session import Session

    providers = check_providers(_provider_ids(args.providers or ()))
    check_merged(args)
    output = output_path(args.output)
    config = load_config(args)
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
    session = Session.from_config(config)
    notices: list[str] = []
    session.history_notices(notices.append)
    live = session.begin(request, fresh=args.fresh)
    result = live.result
    progress = Progress.on_terminal(live, sys.stderr)
    stream = AnswerStream(result, sys.stdout, progress) if streams_answer(args.format, result, output) else None
    color = use_color(args.color, sys.stdout if output is None else None)
    try:
        search = _run_search(
            session,
            live,
            progress,
            record=not args.no_history,
            verify=args.verify,
            on_update=stream,
            budget=not args.over_budget,
        )
        overrun = asyncio.run(search)
    except KeyboardInterrupt:
        # Ctrl+C: every run was cancelled; print what had finished (the rest reads "cancelled")
        result.error = "interrupted"
        _print_result(result, args.format, merged=args.merged, output=output, color=color, stream=stream)
        warn(notices)
        return 130
    if overrun is not None:
        warn(notices)
        return fail(overrun.message(), 1)
    code = _print_result(result, args.format, merged=args.merged, output=output, color=color, stream=stream)
    warn(notices)
    warn([session.key_store.keyring_problem] if session.key_store.keyring_problem else [])
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
    """The provider ids of preset ``name`` (a built-in one or a ``[presets]`` entry, which wins),
    without those the config switches off.

    Raises:
        UsageError: no such preset, naming the closest one and listing them all (those of the
            config file, then the built-in ones).
    """
    presets = config.enabled_presets()
    if name in presets:
        return presets[name]
    where = config.path or "the config file"
    import difflib  # only to name the closest match of a mistake

    close = difflib.get_close_matches(name, list(presets), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    built_in = [preset for preset in BUILTIN_PRESETS if preset not in config.presets]
    groups = [f"{', '.join(config.presets)} (in {where})"] if config.presets else []
    if built_in:
        groups.append(f"{', '.join(built_in)} (built in)")
    raise UsageError(f"unknown preset {name!r}{hint}; the presets: {'; '.join(groups)}")


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


async def _run_search(
    session: Session,
    live: LiveSearch,
    progress: Progress | None,
    *,
    record: bool,
    verify: bool = False,
    on_update: OnUpdate | None = None,
    budget: bool = False,
) -> BudgetOverrun | None:
    """Run the session's ``live`` search, reporting to ``on_update`` (default: ``progress``), then with
    ``verify`` check its citations (the progress line says how far); the progress line is cleared
    and the session closed at the end, also when cancelled. With ``budget``, first the
    ``[budget]`` check (:meth:`Session.budget_check <websearch_tui.session.Session.budget_check>`):
    a search that would pass one is not run and its :class:`BudgetOverrun` returned (else ``None``)."""
    redraw = progress.redraw if progress is not None else None
    try:
        if budget:
            overrun = await session.budget_check(live.result.request, fresh=live.fresh)
            if overrun is not None:
                return overrun
        await session.run(live, on_update or progress, record=record, verify=verify, on_checked=redraw)
    finally:
        if progress is not None:
            progress.clear()
        await session.aclose()  # also writes the search to the history
    return None


class Progress:
    """The stderr line ``3/6 done · waiting for Perplexity, Gemini`` while a search runs, rewritten in
    place (carriage return and padding, no escape sequences) as providers finish, cut to the
    terminal's width and cleared by :meth:`clear`. It is an ``on_update`` callback for
    :meth:`Session.run <websearch_tui.session.Session.run>`, which counts the finished providers.

    Args:
        live: the session's search (its id, providers, labels and the providers done so far).
        stream: where the line goes (stderr).
        width: the terminal's width in columns; the line stays one character shorter.
    """

    def __init__(self, live: LiveSearch, stream: TextIO, width: int = 80) -> None:
        self._live = live
        self._stream = stream
        self._width = max(20, width)
        self._shown = ""

    @classmethod
    def on_terminal(cls, live: LiveSearch, stream: TextIO | None) -> Progress | None:
        """A progress line for ``stream`` when it is a terminal, else ``None`` (a pipe or a file never
        gets one)."""
        if stream is None or not stream.isatty():
            return None
        try:
            width = os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError):
            width = 0
        return cls(live, stream, width or 80)  # a terminal that reports no size: 80 columns

    def __call__(self, update: ProviderUpdate) -> None:
        """Redraw after ``update`` (an :data:`~websearch_tui.core.results.OnUpdate` callback)."""
        if self._live.owns(update):
            self._show(self.text())

    def redraw(self, *_: object) -> None:
        """Show the line as it reads now (the citation check calls this as each provider's are done)."""
        self._show(self.text())

    def text(self) -> str:
        """The line as it reads now, cut to the width."""
        from websearch_tui.core.text import truncate

        return truncate(self._live.progress_text(), self._width - 1)

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
    printed = _render(result, output_format, merged=merged)
    streamed = stream.text if stream is not None else None
    if printed is not None and output_format == "text" and (color or streamed is not None):
        printed = terminal_text(result, printed, color=color, streamed=streamed)
    elif streamed is not None and not streamed.endswith("\n"):
        printed = ""  # end the streamed answer's line
    if printed is not None:
        emit(printed + "\n", output)
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
    return fail(error, 1)


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
    callback for :meth:`Session.run <websearch_tui.session.Session.run>`. Each piece is sanitized again
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


def _render(result: SearchResult, output_format: str, *, merged: bool) -> str | None:
    """``result`` as ``output_format`` text, or ``None`` when that format prints nothing for it."""
    if output_format in ("text", "markdown") and not result.ok:
        return None
    return document(result, output_format, merged=merged)
