"""The statistics of a history as people read them (``websearch-tui stats``, the Stats screen): the
period a report covers, its figures as table cells, the aligned text table and the JSON document.

Pure: a :class:`~websearch_tui.history.stats.StatsReport` (and, for periods, the current time) in,
``str`` or ``dict`` out. Every provider label passes :func:`~websearch_tui.core.text.single_line`
before it is put in a cell, and the whole text through :func:`~websearch_tui.core.errors.safe_text`
(the JSON through :func:`~websearch_tui.core.errors.safe_document`), as the other formats do.

Units shown: times in ms under a second, else seconds (``"850 ms"``, ``"1.2 s"``); shares as whole
percentages; money as :func:`~websearch_tui.core.costs.format_usd` writes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from websearch_tui.core.columns import cell_width
from websearch_tui.core.costs import format_usd
from websearch_tui.core.errors import safe_document, safe_text
from websearch_tui.core.records import record
from websearch_tui.core.text import single_line, truncate
from websearch_tui.history.stats import COUNTED_STATUSES, DayStats, ProviderStats, StatsReport

NONE = "—"
"""A figure with nothing to measure (no run sent, no source returned)."""

_DURATION = re.compile(r"([0-9]{1,5})([hdw])")
_UNIT_HOURS = {"h": 1, "d": 24, "w": 24 * 7}
SINCE_FORMS = "a duration such as 12h, 30d or 2w, a date such as 2026-11-01, or all"
"""What ``--since`` accepts, for help and error texts."""


class PeriodError(ValueError):
    """A ``--since`` text that is no period; the message says what is accepted."""


def parse_since(text: str, now: datetime) -> datetime | None:
    """The start of the period ``text`` names, timezone-aware: ``"12h"``, ``"30d"``, ``"2w"`` (hours,
    days, weeks before ``now``, which must be timezone-aware), ``"2026-11-01"`` (that day's local
    midnight), or ``"all"`` / ``""`` (``None``: the whole history, also for a date or duration
    reaching before what the local time zone can hold).

    Raises:
        PeriodError: ``text`` is none of these, a duration of 0, or a date after ``now``.
    """
    text = text.strip().lower()
    if text in ("", "all"):
        return None
    match = _DURATION.fullmatch(text)
    if match is not None:
        count = int(match.group(1))
        if count == 0:
            raise PeriodError(f"--since {text} is an empty period: give {SINCE_FORMS}")
        try:
            return now - timedelta(hours=count * _UNIT_HOURS[match.group(2)])
        except OverflowError:  # before the year 1: the whole history
            return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise PeriodError(f"--since must be {SINCE_FORMS}, not {single_line(text)!r}") from None
    try:
        start = datetime(day.year, day.month, day.day).astimezone()  # local midnight, as the report's days
    except (OverflowError, ValueError, OSError):  # a day the local time zone cannot hold (0001-01-01)
        return None
    if start > now:
        raise PeriodError(f"--since {text} is in the future: give {SINCE_FORMS}")
    return start


def period_text(report: StatsReport) -> str:
    """``"since 2026-11-03 14:05"`` (local time; ``" 00:00"`` left out), or ``"in the whole history"``."""
    if report.since is None:
        return "in the whole history"
    local = report.since.astimezone()
    time = "" if (local.hour, local.minute) == (0, 0) else f" {local:%H:%M}"
    return f"since {local.date().isoformat()}{time}"  # isoformat: the year in four digits, as 0110


def summary_text(report: StatsReport) -> str:
    """One line over the figures: ``"1,234 searches since 2026-11-03 · $4.21 spent"`` (with a
    provider: ``"... that ran exa ..."``)."""
    searches = f"{report.searches:,} search{'' if report.searches == 1 else 'es'}"
    return f"{searches}{_ran(report)} {period_text(report)} · {format_usd(report.spend_usd)} spent"


def _ran(report: StatsReport) -> str:
    """``" that ran exa"`` for a report of one provider, else ``""``."""
    return f" that ran {single_line(report.provider)}" if report.provider else ""


def percent(share: float | None) -> str:
    """A share (0..1) as a whole percentage (``"93%"``; ``"<1%"`` for a share above 0 that rounds to
    0, ``">99%"`` for one below 1 that rounds to 100), :data:`NONE` for ``None``."""
    if share is None:
        return NONE
    shown = round(share * 100)
    if shown == 0 and share > 0:
        return "<1%"
    if shown == 100 and share < 1:
        return ">99%"
    return f"{shown}%"


def duration(ms: int | None) -> str:
    """Milliseconds as read: ``"850 ms"``, ``"1.2 s"``, ``"14 s"``; :data:`NONE` for ``None``."""
    if ms is None:
        return NONE
    if ms < 1000:
        return f"{ms} ms"
    return f"{ms / 1000:.1f} s" if ms < 10_000 else f"{ms / 1000:.0f} s"


LABEL_LIMIT = 32
"""The most characters of a provider label or id a table cell shows (a stored label is the history's,
and can be any length): longer ones end in "…"."""


def label_of(stats: ProviderStats) -> str:
    """The provider's label as one plain line of at most :data:`LABEL_LIMIT` characters (its id when
    the label is empty)."""
    return truncate(single_line(stats.label).strip() or single_line(stats.provider), LABEL_LIMIT)


@record(frozen=True)
class Column:
    """One column of a table: its ``header``, whether its cells are numbers (right-aligned) and the
    ``short`` header of a narrow table (the Stats screen's; default: ``header``)."""

    header: str
    numeric: bool = True
    short: str = ""

    @property
    def short_header(self) -> str:
        """:attr:`short`, else :attr:`header`."""
        return self.short or self.header


PROVIDER_COLUMNS = (
    Column("PROVIDER", numeric=False),
    Column("SEARCHES"),
    Column("DONE"),
    Column("EMPTY"),
    Column("FAILED"),
    Column("CANCELLED", short="CANC"),
    Column("CACHED"),
    Column("P50"),
    Column("P95"),
    Column("TTFT"),
    Column("SOURCES", short="SRC"),
    Column("UNIQUE"),
    Column("CITED BY OTHERS", short="CITED"),
    Column("SPEND"),
)
"""The per-provider columns, in order: what :func:`provider_cells` fills (DONE to CANCELLED are
:data:`~websearch_tui.history.stats.COUNTED_STATUSES`' shares of the runs). SOURCES is sources per
search; UNIQUE the share of its sources no other provider in the same search found; TTFT the median
time to the first token (streaming providers)."""

ID_COLUMN = Column("ID", numeric=False)
"""The text table's second column, the provider id (what ``--provider`` takes); the screen leaves it out."""


def provider_cells(stats: ProviderStats) -> list[str]:
    """One provider's row of :data:`PROVIDER_COLUMNS`, every cell a plain string."""
    cited = f"{stats.cited_by_others:,} ({percent(stats.cited_share)})" if stats.cited_share is not None else NONE
    return [
        label_of(stats),
        f"{stats.searches:,}",
        *(percent(stats.rate(status)) for status in COUNTED_STATUSES),
        percent(stats.cached_rate),
        duration(stats.latency_p50_ms),
        duration(stats.latency_p95_ms),
        duration(stats.ttft_p50_ms),
        f"{stats.sources_per_search:.1f}" if stats.sources_per_search is not None else NONE,
        percent(stats.unique_share),
        cited,
        format_usd(stats.spend_usd),
    ]


DAY_COLUMNS = (Column("DAY", numeric=False), Column("SEARCHES"), Column("SPEND"))
"""The per-day columns: what :func:`day_cells` fills."""


def day_cells(day: DayStats) -> list[str]:
    """One day's row of :data:`DAY_COLUMNS`."""
    return [day.day, f"{day.searches:,}", format_usd(day.spend_usd)]


def aligned(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[str]:
    """``rows`` under a header row as lines of columns two spaces apart, numbers right-aligned and
    text left-aligned, by terminal cells (a wide character counts 2); trailing spaces trimmed."""
    table = [[column.header for column in columns], *rows]
    widths = [max(cell_width(row[index]) for row in table) for index in range(len(columns))]
    lines = []
    for row in table:
        cells = []
        for cell, column, width in zip(row, columns, widths, strict=True):
            pad = " " * (width - cell_width(cell))
            cells.append(pad + cell if column.numeric else cell + pad)
        lines.append("  ".join(cells).rstrip())
    return lines


def filled_days(report: StatsReport, today: date) -> list[DayStats]:
    """Every local day from the period's first (``since``'s day, else the report's first day) to
    ``today``, oldest first: the report's days, and a zero :class:`DayStats` for a day without a
    search (what a chart over time plots). Empty when the report has no day and no ``since``."""
    known = {day.day: day for day in report.days}
    if report.since is not None:
        first = report.since.astimezone().date()
    elif report.days:
        first = date.fromisoformat(report.days[0].day)
    else:
        return []
    last = max(today, date.fromisoformat(report.days[-1].day)) if report.days else today
    count = (last - first).days + 1
    days = (first + timedelta(days=offset) for offset in range(max(count, 0)))
    return [known.get(day.isoformat()) or DayStats(day.isoformat(), 0, 0.0) for day in days]


def to_stats_text(report: StatsReport) -> str:
    """The text of ``stats --format text``: the summary line (:func:`summary_text`), the per-provider
    table (:data:`PROVIDER_COLUMNS` with :data:`ID_COLUMN`), then the searches and spend of each day
    with a search. A report without a search is one line (:func:`empty_text`)."""
    if not report.searches:
        return safe_text(empty_text(report))
    lines = [summary_text(report)]
    columns = (PROVIDER_COLUMNS[0], ID_COLUMN, *PROVIDER_COLUMNS[1:])
    lines += ["", *aligned(columns, [_text_row(stats) for stats in report.providers])]
    lines += ["", "Per day:", *aligned(DAY_COLUMNS, [day_cells(day) for day in report.days])]
    return safe_text("\n".join(lines))


def _text_row(stats: ProviderStats) -> list[str]:
    """:func:`provider_cells` with the provider id after the label (:data:`ID_COLUMN`)."""
    label, *figures = provider_cells(stats)
    return [label, truncate(single_line(stats.provider), LABEL_LIMIT), *figures]


def empty_text(report: StatsReport) -> str:
    """What a report without a search says: ``"No searches recorded yet."`` for the whole history,
    else ``"No searches recorded since 2026-11-03."`` (with a provider: ``"... that ran exa ..."``)."""
    when = "yet" if report.since is None else period_text(report)
    return f"No searches{_ran(report)} recorded {when}."


def to_stats_dict(report: StatsReport) -> dict[str, Any]:
    """The JSON document of ``stats --format json``: :meth:`StatsReport.to_dict` with every string
    sanitised and redacted."""
    document: dict[str, Any] = safe_document(report.to_dict())
    return document


def to_stats_json(report: StatsReport) -> str:
    """:func:`to_stats_dict` as indented JSON text (non-ASCII kept)."""
    return json.dumps(to_stats_dict(report), ensure_ascii=False, indent=2)


def backfill_text(left: int) -> str:
    """What a front end says while ``left`` searches stored before the statistics were kept (history
    schema v4) are counted in, once: ``"Counting 9,800 searches recorded by an earlier version
    (once)…"``."""
    return f"Counting {left:,} searches recorded by an earlier version (once)…"
