"""The statistics and the spend of a history, computed in SQL from ``runs`` and ``run_days``
(:mod:`websearch_tui.history.schema`), never by decoding a stored search.

A period starting at ``since`` is summed in two parts (:class:`Period`): the whole local days from
the day after ``since`` come from ``run_days`` (a few rows per day), the runs of ``since``'s own day
that started at or after it from ``runs`` (a range of its ``started`` index). Percentiles are exact
(nearest rank: the p-th percentile of n values is the ``ceil(p * n / 100)``-th smallest), each found
by walking a covering partial index in value order and stopping at that rank (``LIMIT 1 OFFSET k``):
at most the provider's timed runs are read, not sorted, and nothing is read into Python.

Measured (``benchmarks/stats.py``) on 100,000 searches of 6 providers over a year, on a shared 2-core
machine: opening the file and reading the last 7 days 11 ms, 30 days 34 ms, 90 days 72 ms, 365 days
125 ms, everything 105 ms, one provider's 30 days 8 ms; a first attempt summing and walking ``runs``
with no ``run_days`` and no choice of direction took about a second for everything.

Every function takes an open connection (the store's, under its lock) and raises
:class:`sqlite3.DatabaseError` as SQLite does.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime, time, timedelta

from websearch_tui.core.records import record
from websearch_tui.core.text import sanitize
from websearch_tui.history.schema import ROLLUP
from websearch_tui.history.stats import DayStats, ProviderStats, StatsReport

_NAMES = tuple(ROLLUP)
_STORED = ", ".join(_NAMES)
_SUMMED = ", ".join(f"total({expression.format(r='runs')})" for expression in ROLLUP.values())


@record(frozen=True)
class Measure:
    """A value percentiles are taken of: its column, the partial index walking it in value order, and
    the condition of that index (a run's value counts when it holds)."""

    column: str
    index: str
    condition: str


LATENCY = Measure("elapsed_ms", "runs_latency", "timed = 1")
"""A run's latency: timed runs (done or empty, and sent)."""
FIRST_EVENT = Measure("first_event_ms", "runs_first_event", "timed = 1 AND streams = 1 AND first_event_ms IS NOT NULL")
"""A streaming provider's time to first token: timed runs that received one."""
RANGE_SHARE = 8
"""A period holding fewer than 1 / this of a provider's values is read as a range of its start time
(``runs_timed``) and sorted here, instead of walking the value-ordered index, which reads most of
it whatever the period. Measured on 100,000 searches of 6 providers: the range costs about 0.7
microseconds a value, the walk about 50 ms for all six providers whatever the period; 30 days: range
27 ms, walk 55 ms; 90 days: range 93 ms, walk 52 ms."""
_RANGE = (  # one text of numbers, not one Python row per value
    "SELECT group_concat(elapsed_ms), group_concat(CASE WHEN streams = 1 THEN first_event_ms END) "
    "FROM runs INDEXED BY runs_timed WHERE provider = ? AND timed = 1 AND started >= ?"
)
_DAY_MEDIAN = (
    "SELECT elapsed_ms FROM runs INDEXED BY runs_day_latency WHERE provider = ? AND day = ? AND timed = 1 "
    "ORDER BY elapsed_ms LIMIT 1 OFFSET ?"
)
_NEWEST_LABELS = (
    "SELECT labels FROM searches WHERE id = "
    "(SELECT search_id FROM runs INDEXED BY runs_provider WHERE provider = ? ORDER BY started DESC LIMIT 1)"
)


@record(frozen=True)
class Period:
    """The runs counted: those that started at or after :attr:`since`.

    Attributes:
        since: seconds since the epoch (``-inf``: every run).
        whole_from: the first local day summed whole from ``run_days`` (``""``: every day).
        part_until: the runs started in ``[since, part_until)`` (``since``'s own day, when it is not
            a local midnight) are summed from ``runs``; ``None``: there is no such part.
    """

    since: float
    whole_from: str
    part_until: float | None


def period(since: datetime | None) -> Period:
    """The :class:`Period` of the runs started at or after ``since`` (timezone-aware; ``None``: all),
    split at the next local midnight."""
    if since is None:
        return Period(-math.inf, "", None)
    local = since.astimezone()
    if local.time() == time():
        return Period(since.timestamp(), local.date().isoformat(), None)
    next_day = local.date() + timedelta(days=1)
    midnight = datetime(next_day.year, next_day.month, next_day.day).timestamp()  # naive: local time
    return Period(since.timestamp(), next_day.isoformat(), midnight)


Sums = dict[str, float]
"""Column of :data:`~websearch_tui.history.schema.ROLLUP` -> its sum."""


def provider_days(db: sqlite3.Connection, span: Period, provider: str | None) -> dict[tuple[str, str], Sums]:
    """``(provider, local day) -> sums`` of the runs in ``span`` (of ``provider`` only, unless
    ``None``): the whole days from ``run_days``, the first, partial day from ``runs``."""
    only = " AND provider = ?" if provider is not None else ""
    extra: tuple[object, ...] = (provider,) if provider is not None else ()
    rows = db.execute(
        f"SELECT provider, day, {_STORED} FROM run_days WHERE day >= ?{only}", (span.whole_from, *extra)
    ).fetchall()
    if span.part_until is not None:  # "day < whole_from": a run is never counted twice
        rows += db.execute(
            f"SELECT provider, day, {_SUMMED} FROM runs WHERE started >= ? AND started < ? AND day < ?{only} "
            "GROUP BY provider, day",
            (span.since, span.part_until, span.whole_from, *extra),
        ).fetchall()
    sums: dict[tuple[str, str], Sums] = {}
    for provider_id, day, *values in rows:
        _add(sums.setdefault((provider_id, day), {}), zip(_NAMES, values, strict=True))
    return sums


def _add(into: Sums, values: Iterable[tuple[str, float]]) -> None:
    for name, value in values:
        into[name] = into.get(name, 0.0) + (value or 0.0)


def spent(db: sqlite3.Connection, since: datetime) -> float:
    """US dollars the runs started at or after ``since`` cost (cached runs and unknown costs: 0)."""
    total = sum(sums["spend_usd"] for sums in provider_days(db, period(since), None).values())
    return max(0.0, total)  # a sum kept by adding and subtracting may end a hair below 0


def nearest_rank(count: int, percent: int) -> int:
    """The 1-based rank of the ``percent``-th percentile among ``count`` values (nearest rank:
    ``ceil(percent * count / 100)``, at least 1)."""
    return max(1, (percent * count + 99) // 100)


def _at_rank(db: sqlite3.Connection, sql: str, arguments: tuple[object, ...], offset: int) -> int | None:
    row = db.execute(sql, (*arguments, offset)).fetchone()
    return int(row[0]) if row is not None else None


@record(frozen=True)
class Percentiles:
    """A provider's percentiles over a period, milliseconds (``None``: no value)."""

    latency_p50: int | None
    latency_p95: int | None
    first_event_p50: int | None


def percentiles(db: sqlite3.Connection, provider: str, span: Period, sums: Sums, whole: Sums) -> Percentiles:
    """``provider``'s latency p50 and p95 and time-to-first-token p50 over ``span`` (``sums``: its
    sums in the period, ``whole``: over the whole history), read the cheapest exact way:

    - a short period (fewer than 1 / :data:`RANGE_SHARE` of its values): the period's range of
      ``runs_timed`` read once as text and sorted here (7,000 values a provider for 30 days of
      100,000 searches over a year), all three taken from it;
    - otherwise each one by walking its value-ordered index from the nearer end to the rank
      (:func:`walk`), testing each value's start time only when the period is not the whole history.
    """
    timed, first_events = _int(sums["timed"]), _int(sums["first_events"])
    if span.since > -math.inf and timed * RANGE_SHARE < _int(whole["timed"]):
        elapsed, first = db.execute(_RANGE, (provider, span.since)).fetchone()
        latencies, firsts = _numbers(elapsed), _numbers(first)
        return Percentiles(_ranked(latencies, 50), _ranked(latencies, 95), _ranked(firsts, 50))
    return Percentiles(
        walk(db, LATENCY, provider, span, timed, 50),
        walk(db, LATENCY, provider, span, timed, 95),
        walk(db, FIRST_EVENT, provider, span, first_events, 50),
    )


def _numbers(text: str | None) -> list[int]:
    """The sorted integers of a ``group_concat`` (``None``: none)."""
    return sorted(map(int, text.split(","))) if text else []


def _ranked(values: list[int], percent: int) -> int | None:
    """The ``percent``-th percentile (nearest rank) of the sorted ``values``; ``None`` when empty."""
    return values[nearest_rank(len(values), percent) - 1] if values else None


def walk(db: sqlite3.Connection, measure: Measure, provider: str, span: Period, count: int, percent: int) -> int | None:
    """The ``percent``-th percentile (nearest rank) of ``provider``'s ``count`` values of ``measure``
    in ``span``, found by walking its index in value order from the nearer end and stopping at the
    rank (``LIMIT 1 OFFSET k``: about 0.1 microseconds a value here, three times that when each value's
    start time is tested); ``None`` when ``count`` is 0."""
    if count <= 0:
        return None
    rank = nearest_rank(count, percent)
    since = " AND started >= ?" if span.since > -math.inf else ""
    arguments: tuple[object, ...] = (provider, span.since) if since else (provider,)
    descending = rank > count - rank
    sql = (
        f"SELECT {measure.column} FROM runs INDEXED BY {measure.index} WHERE provider = ? AND {measure.condition}"
        f"{since} ORDER BY {measure.column}{' DESC' if descending else ''} LIMIT 1 OFFSET ?"
    )
    return _at_rank(db, sql, arguments, count - rank if descending else rank - 1)


def _totals(db: sqlite3.Connection, span: Period) -> dict[str, Sums]:
    """Provider id -> its sums over the whole history (for :func:`percentiles`' choice; empty when
    ``span`` is the whole history: not needed)."""
    if span.since == -math.inf:
        return {}
    rows = db.execute("SELECT provider, total(timed), total(first_events) FROM run_days GROUP BY provider")
    return {provider: {"timed": timed, "first_events": first} for provider, timed, first in rows}


def stats_report(db: sqlite3.Connection, since: datetime | None, provider: str | None) -> StatsReport:
    """The :class:`StatsReport` of the runs started at or after ``since`` (``None``: all), of every
    provider or only ``provider``."""
    span = period(since)
    cells = provider_days(db, span, provider)
    per_provider: dict[str, Sums] = defaultdict(dict)
    per_day: dict[str, Sums] = defaultdict(dict)
    day_cells: dict[str, dict[str, Sums]] = defaultdict(dict)
    for (provider_id, day), sums in sorted(cells.items()):
        _add(per_provider[provider_id], sums.items())
        _add(per_day[day], sums.items())
        day_cells[day][provider_id] = sums
    totals = _totals(db, span)
    providers = sorted(
        (
            _provider_stats(db, span, provider_id, sums, totals.get(provider_id, sums))
            for provider_id, sums in per_provider.items()
        ),
        key=lambda stats: (-stats.searches, stats.provider),
    )
    searched = "runs" if provider is not None else "searches"  # one provider: the searches that ran it
    days = tuple(
        DayStats(
            day=day,
            searches=_int(sums[searched]),
            spend_usd=max(0.0, sums["spend_usd"]),
            latency_p50_ms=_day_medians(db, span, day, day_cells[day]),
        )
        for day, sums in sorted(per_day.items())
    )
    return StatsReport(
        since=since,
        provider=provider,
        searches=sum(day.searches for day in days),
        spend_usd=max(0.0, sum(sums["spend_usd"] for sums in per_day.values())),
        providers=tuple(providers),
        days=days,
    )


def _provider_stats(db: sqlite3.Connection, span: Period, provider: str, sums: Sums, whole: Sums) -> ProviderStats:
    """One provider's figures: its sums in the period, and its percentiles (``whole``: its sums over
    the whole history)."""
    count = {name: _int(value) for name, value in sums.items() if name != "spend_usd"}
    sources, done = count["sources"], count["done"]
    found = percentiles(db, provider, span, sums, whole)
    return ProviderStats(
        provider=provider,
        label=_label(db, provider),
        searches=count["runs"],
        done=done,
        empty=count["empty"],
        failed=count["failed"],
        cancelled=count["cancelled"],
        cached=count["cached"],
        latency_p50_ms=found.latency_p50,
        latency_p95_ms=found.latency_p95,
        ttft_p50_ms=found.first_event_p50,
        sources_per_search=count["done_sources"] / done if done else None,
        unique_share=count["unique_sources"] / sources if sources else None,
        cited_by_others=count["cited_by_others"],
        cited_share=count["cited_by_others"] / sources if sources else None,
        spend_usd=max(0.0, sums["spend_usd"]),
    )


def _day_medians(db: sqlite3.Connection, span: Period, day: str, cells: Mapping[str, Sums]) -> dict[str, int]:
    """Provider id -> the median latency of its timed runs on ``day`` (``cells``: provider id -> its
    sums that day; providers without a timed run are absent). A whole day walks its range of
    ``runs_day_latency``; the period's first, partial day is read as a range of start times."""
    medians = {}
    partial = span.part_until is not None and day < span.whole_from
    for provider, sums in cells.items():
        count = _int(sums["timed"])
        if count <= 0:
            continue
        offset = nearest_rank(count, 50) - 1
        if partial:
            sql = (
                "SELECT elapsed_ms FROM runs INDEXED BY runs_timed WHERE provider = ? AND timed = 1 AND started >= ? "
                "AND started < ? AND day = ? ORDER BY elapsed_ms LIMIT 1 OFFSET ?"
            )
            median = _at_rank(db, sql, (provider, span.since, span.part_until, day), offset)
        else:
            median = _at_rank(db, _DAY_MEDIAN, (provider, day), offset)
        if median is not None:
            medians[provider] = median
    return medians


def _label(db: sqlite3.Connection, provider: str) -> str:
    """The display label ``provider`` had in its newest run (its id when that search has none)."""
    row = db.execute(_NEWEST_LABELS, (provider,)).fetchone()
    try:
        labels = json.loads(row[0]) if row is not None else {}
    except (TypeError, ValueError):
        labels = {}
    label = labels.get(provider) if isinstance(labels, dict) else None
    return sanitize(label) if isinstance(label, str) and label.strip() else provider


def _int(value: float) -> int:
    return int(round(value))
