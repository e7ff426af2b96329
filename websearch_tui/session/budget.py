"""Budgets: ``[budget] daily`` and ``monthly`` (US dollars, local calendar day and month) and the check
that a search would not pass one, by estimate, before it sends anything.

:func:`over_budget` adds what the search is expected to cost (:func:`search_estimate`) to what the
history says was spent since the start of the local day or month
(:meth:`HistoryAccess.spent <websearch_tui.session.history.HistoryAccess.spent>`) and returns the
first budget that sum passes as a :class:`BudgetOverrun`, daily before monthly. A search that would
cost nothing never passes a budget, even one already spent.

The estimate counts only the providers that would send a billed request: not one whose result the
cache reuses, not one that runs keyless (no credential sent); in auto mode only the first provider
of the chain (it usually answers). A provider's expected cost is its average over its recent runs
in the history, when the history knows what they cost, else its price for a run of ``max_results``
results (:meth:`Price.typical <websearch_tui.core.costs.Price.typical>`: ``[providers.X] price``,
else the public price list), else 0.

What is spent is what the history recorded: searches in private mode or with ``--no-history`` are
not counted, and with the history off (or unreadable) nothing counts as spent, so only a single
search larger than a budget is refused then.

Blocking (SQLite, through the session's history): the session calls :func:`over_budget` in a worker
thread.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.costs import format_usd
from websearch_tui.core.records import record

if TYPE_CHECKING:
    from websearch_tui.core.models import SearchRequest
    from websearch_tui.session.cache import SearchPlan
    from websearch_tui.session.history import HistoryAccess
    from websearch_tui.settings.config import Config

log = logging.getLogger(__name__)

Period = Literal["daily", "monthly"]
"""A budget's period: the local calendar day or month."""

RECENT_DAYS = 30
"""How far back a provider's average cost per run is taken from (days)."""

_SPENT_WHEN = {"daily": "today", "monthly": "this month"}

OVER_BUDGET_OPTION = "--over-budget"
"""The CLI's way past a budget, named by :meth:`BudgetOverrun.message` by default."""


@record(frozen=True)
class BudgetOverrun:
    """A search that would pass a budget, by estimate.

    Attributes:
        period: ``"daily"`` or ``"monthly"``.
        limit: the budget, US dollars.
        spent: what the history says was spent in the period so far, US dollars.
        estimate: what the search is expected to cost, US dollars (above 0).
    """

    period: Period
    limit: float
    spent: float
    estimate: float

    def message(self, override: str | None = OVER_BUDGET_OPTION) -> str:
        """One line naming the budget, what was spent, the estimate and what to do: ``"This search
        would pass the daily budget of $2.00: $1.98 spent today, about $0.04 for this search. Run it
        anyway with --over-budget, or raise [budget] daily in the config file."`` (``override``: how
        this front end runs it anyway, ``None`` when it cannot)."""
        head = (
            f"This search would pass the {self.period} budget of {format_usd(self.limit)}: "
            f"{format_usd(self.spent)} spent {_SPENT_WHEN[self.period]}, "
            f"about {format_usd(self.estimate)} for this search."
        )
        raise_it = f"raise [budget] {self.period} in the config file"
        if override is None:
            return f"{head} Nothing was sent; to search, {raise_it}."
        return f"{head} Run it anyway with {override}, or {raise_it}."

    def to_dict(self) -> dict[str, object]:
        """``{"period", "limit_usd", "spent_usd", "estimate_usd"}`` (money rounded to 6 decimals)."""
        return {
            "period": self.period,
            "limit_usd": round(self.limit, 6),
            "spent_usd": round(self.spent, 6),
            "estimate_usd": round(self.estimate, 6),
        }


class OverBudget(Exception):
    """A search was refused because it would pass a budget (the Python API, unless
    ``over_budget=True``); ``overrun`` says which and by how much, the message what to do."""

    def __init__(self, overrun: BudgetOverrun, override: str | None = OVER_BUDGET_OPTION) -> None:
        super().__init__(overrun.message(override))
        self.overrun = overrun


def period_start(period: Period, now: datetime) -> datetime:
    """The start of the local calendar day or month holding ``now`` (timezone-aware), in local time
    with its own UTC offset (right across a daylight-saving change)."""
    local = now.astimezone()
    day = 1 if period == "monthly" else local.day
    return datetime(local.year, local.month, day).astimezone()


def provider_estimate(config: Config, request: SearchRequest, provider_id: str, average: float | None) -> float:
    """US dollars a billed run of ``provider_id`` for ``request`` is expected to cost: ``average``
    (its recent runs' mean, when known), else its price's :meth:`~websearch_tui.core.costs.Price.typical`
    for ``request.max_results`` results (``[providers.X] price``, else the public price of the model
    it would ask for), else 0."""
    if average is not None:
        return average
    from websearch_tui.core.prices import price_for  # the price table, at the first estimate

    price = price_for(SPECS[provider_id], config.settings_for(provider_id))
    return price.typical(request.max_results) if price is not None else 0.0


def billed(providers: Sequence[str], mode: str, plan: SearchPlan) -> list[str]:
    """The providers of a search over ``providers`` in ``mode`` expected to send a billed request:
    not reused (``plan.reuse``), not keyless (``plan.keys``; a provider whose credentials are not
    known counts as billed); in auto mode at most the chain's first provider."""
    keys = plan.keys
    sending = [
        pid
        for pid in (providers[:1] if mode == "auto" else providers)
        if pid not in plan.reuse and (keys is None or not keys.keyless(SPECS[pid]))
    ]
    return sending


def search_estimate(
    config: Config,
    history: HistoryAccess,
    request: SearchRequest,
    providers: Sequence[str],
    plan: SearchPlan,
    now: datetime,
) -> float:
    """US dollars the search is expected to cost: :func:`provider_estimate` summed over
    :func:`billed`, each with its average over the history's runs of the last :data:`RECENT_DAYS`
    days (:meth:`HistoryAccess.average_cost`; none while the history is off or unreadable)."""
    since = now - timedelta(days=RECENT_DAYS)
    return sum(
        provider_estimate(config, request, pid, _average(history, pid, since))
        for pid in billed(providers, request.mode, plan)
    )


def over_budget(
    config: Config,
    history: HistoryAccess,
    request: SearchRequest,
    providers: Sequence[str],
    plan: SearchPlan,
    *,
    now: datetime,
) -> BudgetOverrun | None:
    """The first ``[budget]`` (daily, then monthly) that the search of ``request`` over ``providers``
    with ``plan`` (what the cache reuses, who runs keyless) would pass at ``now``: what was spent in
    the period (:func:`spent_since`) plus :func:`search_estimate` above the limit. ``None`` when no
    budget is set (the history is not read), when the search would cost nothing, or when it fits."""
    budget = config.budget
    periods: tuple[tuple[Period, float | None], ...] = (("daily", budget.daily), ("monthly", budget.monthly))
    limits = [(period, limit) for period, limit in periods if limit is not None]
    if not limits:
        return None
    estimate = search_estimate(config, history, request, providers, plan, now)
    if estimate <= 0:
        return None
    for period, limit in limits:
        spent = spent_since(history, period_start(period, now))
        if spent + estimate > limit:
            return BudgetOverrun(period, limit, spent, estimate)
    return None


def spent_since(history: HistoryAccess, since: datetime) -> float:
    """US dollars the history says the searches started at or after ``since`` cost; 0 while the
    history is off or when it cannot be read (logged)."""
    if not history.enabled:
        return 0.0
    try:
        return history.spent(since)
    except Exception as exc:  # a budget informs; a broken history must not stop every search
        log.warning("the history could not be read for the spend so far: %s", exc)
        return 0.0


def _average(history: HistoryAccess, provider_id: str, since: datetime) -> float | None:
    """``provider_id``'s mean cost per run since ``since`` (:meth:`HistoryAccess.average_cost`), or
    ``None`` when unknown, the history is off or cannot be read (logged)."""
    if not history.enabled:
        return None
    try:
        return history.average_cost(provider_id, since)
    except Exception as exc:  # a budget informs; a broken history must not stop every search
        log.warning("the history could not be read for %s's average cost: %s", provider_id, exc)
        return None
