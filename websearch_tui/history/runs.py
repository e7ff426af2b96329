"""One row per provider run: what the statistics, the cache lookup and the spend query read, so none
of them decodes a stored search.

:func:`run_rows` turns the outcomes of one search into :class:`RunRow` values (the ``runs`` table of
:mod:`websearch_tui.history.schema`): its status and timings, whether the provider streams tokens,
how many sources it returned, how many of them no other provider of the same search found (by
canonical URL, :func:`~websearch_tui.core.text.canonical_url`), how many of them other providers'
answers cited, what it cost and the key a later search may reuse it under.

Pure: ``core`` only, no I/O. Linear in the number of sources and citations of the search (plus the
cost of canonicalising each URL once).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.costs import plausible_usd
from websearch_tui.core.records import record
from websearch_tui.core.results import ProviderOutcome, RunStatus
from websearch_tui.core.text import canonical_url

COUNTED = frozenset({RunStatus.DONE, RunStatus.EMPTY, RunStatus.FAILED, RunStatus.CANCELLED})
"""The statuses of a run: an outcome in another status (none is stored today) gets no row."""
TIMED = frozenset({RunStatus.DONE, RunStatus.EMPTY})
"""A run's latency counts when it ended in one of these (an answer came, possibly empty) and its
request was sent: a failure's time says when it gave up, a cancel's when the user stopped it."""

RUN_COLUMNS = (
    "search_id",
    "provider",
    "started",
    "day",
    "status",
    "elapsed_ms",
    "first_event_ms",
    "streams",
    "timed",
    "sources",
    "unique_sources",
    "cited_by_others",
    "cost_usd",
    "cost_basis",
    "cached",
    "cache_key",
    "lead",
)
"""The ``runs`` columns :meth:`RunRow.values` gives, in its order."""


@record(frozen=True)
class RunRow:
    """One provider run of a stored search, as the ``runs`` table keeps it.

    Attributes:
        provider: the provider id.
        started: when the search started, seconds since the Unix epoch (UTC).
        day: the local ISO date it started on (``"2026-12-03"``), for per-day series.
        status: its final status (``"done"``, ``"empty"``, ``"failed"`` or ``"cancelled"``).
        elapsed_ms: how long the provider took, milliseconds: the run's time less its client-side
            pacing wait (``ProviderOutcome.paced_ms``), which is ours, not the provider's.
        first_event_ms: when its first event arrived, milliseconds after it sent (``None``: none).
        streams: the provider streams tokens (its catalogue capability), so ``first_event_ms`` is a
            time to first token.
        timed: its latency counts in percentiles: it ended done or empty and was sent (not cached).
        sources: how many sources it returned.
        unique_sources: how many of them no other provider of the search returned (canonical URL).
        cited_by_others: how many of them another provider's answer in the search cited.
        cost_usd: what it cost, US dollars (0 when cached; ``None``: not worked out, or a figure that
            is no plausible cost of one run, :func:`~websearch_tui.core.costs.plausible_usd`).
        cost_basis: where ``cost_usd`` comes from (:data:`~websearch_tui.core.costs.CostBasis`; ``None``
            without a cost).
        cached: its result was reused from an earlier search.
        cache_key: the key a later search may reuse it under (``None``: not reusable).
        lead: the first run of its search (counting these counts searches).
    """

    provider: str
    started: float
    day: str
    status: str
    elapsed_ms: int
    first_event_ms: int | None
    streams: bool
    timed: bool
    sources: int
    unique_sources: int
    cited_by_others: int
    cost_usd: float | None
    cost_basis: str | None
    cached: bool
    cache_key: str | None
    lead: bool

    def values(self, search_id: int) -> tuple[object, ...]:
        """The row's values in :data:`RUN_COLUMNS` order, for the search ``search_id`` (booleans as 0/1)."""
        return (
            search_id,
            self.provider,
            self.started,
            self.day,
            self.status,
            self.elapsed_ms,
            self.first_event_ms,
            int(self.streams),
            int(self.timed),
            self.sources,
            self.unique_sources,
            self.cited_by_others,
            self.cost_usd,
            self.cost_basis,
            int(self.cached),
            self.cache_key,
            int(self.lead),
        )


def local_day(started: float) -> str:
    """The local ISO date (``"2026-12-03"``) of ``started`` (seconds since the epoch), in this
    machine's time zone now."""
    return datetime.fromtimestamp(started).date().isoformat()


def streams(provider: str) -> bool:
    """Whether ``provider`` streams tokens (its catalogue capability; False for an unknown id)."""
    spec = SPECS.get(provider)
    return spec is not None and spec.capabilities.streams


def run_rows(
    outcomes: Sequence[ProviderOutcome],
    created_at: datetime,
    *,
    retry_of: Sequence[ProviderOutcome] | None = None,
) -> list[RunRow]:
    """The rows of a search that started at ``created_at`` (timezone-aware) and ended with
    ``outcomes``: one per outcome in a counted status (:data:`COUNTED`), in order; the first is the
    search's ``lead``, unless the search retries some providers of an earlier one (``retry_of``: that
    search's outcomes it did not run again, which its sources are compared with; it is not a search
    of its own, so none of its rows leads).

    Linear in the sources and citations of ``outcomes`` and ``retry_of``.
    """
    counted = [outcome for outcome in outcomes if outcome.status in COUNTED]
    keyed = {id(outcome): [canonical_url(source.url) for source in outcome.response.sources] for outcome in counted}
    beside = list(retry_of or ())
    finders = _providers_by_url(
        [(outcome.provider, keyed[id(outcome)]) for outcome in counted]
        + [(outcome.provider, [canonical_url(source.url) for source in outcome.response.sources]) for outcome in beside]
    )
    citers = _providers_by_url(
        (outcome.provider, [canonical_url(citation.url) for citation in outcome.response.citations if citation.url])
        for outcome in counted + beside
    )
    started = created_at.timestamp()
    day = local_day(started)
    rows = []
    for position, outcome in enumerate(counted):
        urls = keyed[id(outcome)]
        cost = outcome.cost if outcome.cost is not None and plausible_usd(outcome.cost.usd) else None
        cached = outcome.cached is not None
        rows.append(
            RunRow(
                provider=outcome.provider,
                started=started,
                day=day,
                status=outcome.status.value,
                elapsed_ms=max(0, int(outcome.elapsed_ms) - outcome.paced_ms),
                first_event_ms=_less(outcome.first_event_ms, outcome.paced_ms),
                streams=streams(outcome.provider),
                timed=outcome.status in TIMED and not cached,
                sources=len(urls),
                unique_sources=sum(1 for url in urls if _only(finders.get(url), outcome.provider)),
                cited_by_others=sum(1 for url in urls if _others(citers.get(url), outcome.provider)),
                cost_usd=0.0 if cached else (cost.usd if cost is not None else None),
                cost_basis="cached" if cached else (cost.basis if cost is not None else None),
                cached=cached,
                cache_key=outcome.cache_key,
                lead=position == 0 and retry_of is None,
            )
        )
    return rows


def _less(first_event_ms: int | None, paced_ms: int) -> int | None:
    """A time to first event counted from when the request was sent (after the pacing wait)."""
    return None if first_event_ms is None else max(0, first_event_ms - paced_ms)


def _providers_by_url(found: Iterable[tuple[str, Sequence[str]]]) -> dict[str, set[str]]:
    """Canonical URL -> the providers that have it, from ``(provider, canonical URLs)`` pairs."""
    providers: dict[str, set[str]] = {}
    for provider, urls in found:
        for url in urls:
            providers.setdefault(url, set()).add(provider)
    return providers


def _only(providers: set[str] | None, provider: str) -> bool:
    """True when ``provider`` is the only one in ``providers``."""
    return providers is not None and providers == {provider}


def _others(providers: set[str] | None, provider: str) -> bool:
    """True when ``providers`` holds a provider other than ``provider``."""
    return providers is not None and (len(providers) > 1 or provider not in providers)
