"""What the history says about each provider: how often it answers, how fast, how much it finds that
no other provider found, how often others cite it, what it cost; and the same over time, per day.

:class:`StatsReport` is what :meth:`~websearch_tui.history.store.HistoryStore.stats` returns (the
Stats screen and ``websearch-tui stats`` read it); :meth:`StatsReport.to_dict` is the JSON of
``stats --format json``. Only statistics import this module (recording or reusing a search does
not).

Pure data: no I/O. Figures come from the ``runs`` table (:mod:`websearch_tui.history.schema`),
one row per provider run of each stored search.

Units: times in milliseconds, money in US dollars, shares in 0..1, days as local ISO dates
(``"2026-12-03"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from datetime import datetime
from typing import Any

from websearch_tui.core.records import record
from websearch_tui.core.results import RunStatus
from websearch_tui.history.codec import iso_utc

COUNTED_STATUSES = (RunStatus.DONE, RunStatus.EMPTY, RunStatus.FAILED, RunStatus.CANCELLED)
"""The final statuses a provider's runs are counted in (a run skipped by auto mode is not a run)."""


@record(frozen=True)
class ProviderStats:
    """One provider's figures over the runs a report covers.

    Attributes:
        provider: the provider id.
        label: its display label (the one it had in its newest run).
        searches: runs counted (every final status but skipped; cached runs included); the
            status rates (:meth:`rate`) are over the runs :attr:`sent`.
        done, empty, failed, cancelled: runs that ended in that status.
        cached: runs whose result was reused from an earlier search (also counted in their status).
        latency_p50_ms, latency_p95_ms: median and 95th percentile of the run's elapsed time less
            its client-side pacing wait (the provider's own time), milliseconds (nearest rank), over
            the runs sent (not cached) that ended done or empty (a failure's time says when it gave
            up, a cancel's when the user stopped it); ``None`` when there is none.
        ttft_p50_ms: median time to the first event (the first token), milliseconds, over the runs
            sent that received one; only for a provider that streams tokens, ``None`` otherwise.
        sources_per_search: mean sources per run that ended done; ``None`` without such runs.
        unique_share: the share (0..1) of its sources (canonical URLs) that no other provider in the
            same search found; ``None`` when it returned no source.
        cited_by_others: how many of its sources other providers' answers in the same search cited.
        cited_share: ``cited_by_others`` over its sources (0..1); ``None`` when it returned no source.
        spend_usd: what its runs cost, US dollars (cached runs and unknown prices count 0).
    """

    provider: str
    label: str
    searches: int
    done: int
    empty: int
    failed: int
    cancelled: int
    cached: int
    latency_p50_ms: int | None
    latency_p95_ms: int | None
    ttft_p50_ms: int | None
    sources_per_search: float | None
    unique_share: float | None
    cited_by_others: int
    cited_share: float | None
    spend_usd: float

    def count(self, status: RunStatus) -> int:
        """How many runs ended in ``status`` (0 for a status not counted, such as skipped)."""
        return {
            RunStatus.DONE: self.done,
            RunStatus.EMPTY: self.empty,
            RunStatus.FAILED: self.failed,
            RunStatus.CANCELLED: self.cancelled,
        }.get(status, 0)

    @property
    def sent(self) -> int:
        """Runs whose request was sent (not reused from an earlier search)."""
        return self.searches - self.cached

    def rate(self, status: RunStatus) -> float | None:
        """The share (0..1) of the runs sent (:attr:`sent`) that ended in ``status``: how the provider
        answers when asked (a reused result, always done, would flatter it); ``None`` when none was sent."""
        reused = self.cached if status is RunStatus.DONE else 0
        return (self.count(status) - reused) / self.sent if self.sent else None

    @property
    def cached_rate(self) -> float | None:
        """The share (0..1) of runs whose result was reused; ``None`` when it has no run."""
        return self.cached / self.searches if self.searches else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every attribute, plus ``"rates": {"done": 0.9, "empty": ..., "failed": ...,
        "cancelled": ..., "cached": ...}`` (``None`` without runs); money rounded to 6 decimals,
        shares to 4."""
        return {
            "provider": self.provider,
            "label": self.label,
            "searches": self.searches,
            "done": self.done,
            "empty": self.empty,
            "failed": self.failed,
            "cancelled": self.cancelled,
            "cached": self.cached,
            "rates": {
                **{status.value: _share(self.rate(status)) for status in COUNTED_STATUSES},
                "cached": _share(self.cached_rate),
            },
            "latency_p50_ms": self.latency_p50_ms,
            "latency_p95_ms": self.latency_p95_ms,
            "ttft_p50_ms": self.ttft_p50_ms,
            "sources_per_search": _share(self.sources_per_search),
            "unique_share": _share(self.unique_share),
            "cited_by_others": self.cited_by_others,
            "cited_share": _share(self.cited_share),
            "spend_usd": round(self.spend_usd, 6),
        }


@record(frozen=True)
class DayStats:
    """One day of the history (local time).

    Attributes:
        day: the local ISO date, ``"2026-12-03"``.
        searches: searches started that day (each search once, however many providers it ran).
        spend_usd: what that day's runs cost, US dollars.
        latency_p50_ms: provider id -> median elapsed time (ms, nearest rank) of its runs sent that day
            that ended done or empty (a provider without such a run that day is absent).
    """

    day: str
    searches: int
    spend_usd: float
    latency_p50_ms: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"day", "searches", "spend_usd", "latency_p50_ms": {provider: ms}}``."""
        return {
            "day": self.day,
            "searches": self.searches,
            "spend_usd": round(self.spend_usd, 6),
            "latency_p50_ms": dict(self.latency_p50_ms),
        }


@record(frozen=True)
class StatsReport:
    """The statistics of a history, over the searches started at or after ``since``.

    Attributes:
        since: the start of the period (timezone-aware), ``None`` for the whole history.
        provider: the only provider counted, ``None`` for all.
        searches: searches in the period with at least one provider run (with ``provider``: those
            that ran it).
        spend_usd: what they cost, US dollars (with ``provider``: its runs only).
        providers: one :class:`ProviderStats` per provider that ran, most runs first (ties by id).
        days: one :class:`DayStats` per local day with a search, oldest first (days without a search
            are absent: a chart fills them with zeros).
    """

    since: datetime | None
    provider: str | None
    searches: int
    spend_usd: float
    providers: tuple[ProviderStats, ...]
    days: tuple[DayStats, ...]

    @classmethod
    def empty(cls, since: datetime | None = None, provider: str | None = None) -> StatsReport:
        """The report of a period (or history) without any search."""
        return cls(since=since, provider=provider, searches=0, spend_usd=0.0, providers=(), days=())

    def of(self, provider: str) -> ProviderStats | None:
        """The figures of ``provider``; ``None`` when it did not run in the period."""
        return next((stats for stats in self.providers if stats.provider == provider), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``stats --format json``): ``{"since": "2026-11-03T00:00:00.000Z" | null,
        "provider": "exa" | null, "searches": 1200, "spend_usd": 4.21, "providers":
        [<ProviderStats.to_dict()>, ...], "days": [<DayStats.to_dict()>, ...]}``."""
        return {
            "since": iso_utc(self.since) if self.since is not None else None,
            "provider": self.provider,
            "searches": self.searches,
            "spend_usd": round(self.spend_usd, 6),
            "providers": [stats.to_dict() for stats in self.providers],
            "days": [day.to_dict() for day in self.days],
        }


def _share(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None
