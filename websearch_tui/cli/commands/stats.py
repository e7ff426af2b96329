"""``websearch-tui stats [--since 30d|12h|2w|2026-11-01|all] [--provider ID] [--format text|json]``: what
the history says about each provider (searches, outcome rates, latency, time to first token, sources,
unique share, citations by others, spend) and per day (searches, spend), read through
:class:`~websearch_tui.session.HistoryAccess` and printed by :mod:`websearch_tui.formats.stats`.

Reading never creates the history file; without one the command says so (on stderr; ``--format
json`` still prints an empty report) and succeeds.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING, TextIO

from websearch_tui.cli.common import UsageError, load_config, warn
from websearch_tui.core.text import single_line

if TYPE_CHECKING:
    from websearch_tui.history.stats import StatsReport
    from websearch_tui.session import HistoryAccess


def run(args: argparse.Namespace) -> int:
    """Print the statistics of the history on stdout as ``--format`` says; 0 when printed (also for
    an empty or missing history).

    Raises:
        UsageError: a bad ``--since`` or an unknown ``--provider`` (naming what is accepted), an
            unusable config file, an unreadable history file.
    """
    from websearch_tui.formats.stats import to_stats_json, to_stats_text
    from websearch_tui.history import HistoryError, history_path
    from websearch_tui.session import HistoryAccess

    since = since_of(args.since, datetime.now(timezone.utc))
    provider = provider_of(args.provider)
    config = load_config(args)
    history = HistoryAccess(history_path(config.history.path))  # readable also while recording is off
    try:
        report = _report(history, since, provider)
    except HistoryError as exc:
        raise UsageError(str(exc)) from None
    finally:
        warn([notice] if (notice := history.take_notice()) else [])  # a damaged file moved aside, ...
        history.close()
    if report is None:
        print(
            single_line(f"No history yet: {history.path} does not exist (every search you run is recorded there)."),
            file=sys.stderr,
        )
        if args.format != "json":
            return 0
        from websearch_tui.history.stats import StatsReport

        report = StatsReport.empty(since, provider)
    print(to_stats_json(report) if args.format == "json" else to_stats_text(report))
    return 0


def _report(history: HistoryAccess, since: datetime | None, provider: str | None) -> StatsReport | None:
    """The report of ``history``; ``None`` when its file does not exist.

    Raises:
        HistoryError: the file cannot be read.
    """
    if history.open() is None:
        return None
    progress = BackfillProgress(sys.stderr)
    try:
        return history.stats(since, provider, progress=progress)
    finally:
        progress.end()


class BackfillProgress:
    """Says on ``stream`` how many older searches are still being counted in: the first call prints
    :func:`~websearch_tui.formats.stats.backfill_text`; on a terminal each later call rewrites that
    line in place; :meth:`end` ends the line (nothing at all when no search had to be counted)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False
        self.width = 0

    def __call__(self, left: int) -> None:
        """``left``: searches still to count (> 0)."""
        if self.shown and not self.stream.isatty():
            return
        from websearch_tui.formats.stats import backfill_text

        line = backfill_text(left)
        self.stream.write(f"\r{line.ljust(self.width)}" if self.shown else line)  # a shorter count covers the last
        self.stream.flush()
        self.shown, self.width = True, len(line)

    def end(self) -> None:
        """Finish the progress line, if one was written."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def since_of(text: str | None, now: datetime) -> datetime | None:
    """``--since`` as the period's start (:func:`~websearch_tui.formats.stats.parse_since`); ``None``
    (the whole history) when not given.

    Raises:
        UsageError: naming the forms accepted.
    """
    from websearch_tui.formats.stats import PeriodError, parse_since

    try:
        return parse_since(text or "", now)
    except PeriodError as exc:
        raise UsageError(str(exc)) from None


def provider_of(text: str | None) -> str | None:
    """``--provider`` as a known provider id (lower-cased), ``None`` when not given.

    Raises:
        UsageError: an unknown id, naming the closest one and every known id.
    """
    if text is None:
        return None
    from websearch_tui.core.catalogue import SPECS

    provider = text.strip().lower()
    if provider in SPECS:
        return provider
    close = difflib.get_close_matches(provider, list(SPECS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UsageError(f"unknown provider {single_line(text)!r}{hint}; known ids: {', '.join(SPECS)}")
