"""How a search went: each provider's status and outcome, the live updates the engine sends while it
runs, and the end-of-search summary every front end prints.

Pure data over :mod:`websearch_tui.core.models`; the engine (:mod:`websearch_tui.engine.engine`)
fills these in, front ends and the history store only read them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import field
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from websearch_tui.core.costs import CachedFrom, Cost, CostBasis
from websearch_tui.core.errors import ProviderError, all_failed_message, empty_message, safe_document
from websearch_tui.core.merge import MergedSource, merge_responses
from websearch_tui.core.models import SearchEvent, SearchRequest, SearchResponse
from websearch_tui.core.records import record


class RunStatus(str, Enum):
    """Lifecycle of one provider's run in one search.

    ``QUEUED`` until it starts, ``RUNNING`` until its first event, ``STREAMING`` after; it ends
    ``DONE`` (renderable content), ``EMPTY`` (nothing renderable), ``FAILED``, ``CANCELLED`` (the user
    or a newer search stopped it) or ``SKIPPED`` (auto mode answered before reaching it).
    """

    QUEUED = "queued"
    RUNNING = "running"
    STREAMING = "streaming"
    DONE = "done"
    EMPTY = "empty"
    FAILED = "failed"
    CANCELLED = "cancelled"
    SKIPPED = "skipped"


ACTIVE_STATUSES = frozenset({RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.STREAMING})
FINAL_STATUSES = frozenset({RunStatus.DONE, RunStatus.EMPTY, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.SKIPPED})
SUMMARY_ORDER = (RunStatus.DONE, RunStatus.EMPTY, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.SKIPPED)
"""The order in which a summary counts final statuses."""


PACED_NOTE_START = "Held back "
"""How the note of a run held back by client-side pacing starts (the engine's ``paced_message``): a
result reused from the history drops it, since reusing it waited for nothing."""


@record(frozen=True)
class RetryWait:
    """A run waits ``delay`` seconds before resending a failed request.

    ``reason`` is the HTTP status (``"429"``, ``"503"``) or ``"timeout"`` / ``"network"``; ``attempt``
    counts retries from 1.
    """

    delay: float
    reason: str
    attempt: int


@record(frozen=True)
class ProviderUpdate:
    """One change in one provider's run of one search, as the engine reports it to a front end.

    Attributes:
        search_id: the search it belongs to (:attr:`SearchResult.search_id`); a front end drops
            updates of a search it no longer shows.
        provider: the provider id.
        status: the run's status after this change.
        response: the run's reduced response so far. It is the engine's live object: read it, never
            change it (the next update may show it grown).
        event: the event that was just folded into ``response``, its text sanitized (a streamed
            answer piece is an ``AnswerDelta``); ``None`` for a status change or a retry wait.
        error: why the run failed, with ``status`` ``FAILED``.
        retry: set while the run waits to resend a request; the next update without it ends the wait.
        paced: seconds the run waits for its client-side pacing slot before it sends (the update
            that starts the wait; ``event`` is the note saying why).
    """

    search_id: int
    provider: str
    status: RunStatus
    response: SearchResponse
    event: SearchEvent | None = None
    error: ProviderError | None = None
    retry: RetryWait | None = None
    paced: float | None = None

    @property
    def final(self) -> bool:
        """True when the run has ended (no further update of this provider in this search)."""
        return self.status in FINAL_STATUSES


OnUpdate = Callable[[ProviderUpdate], None]
"""``on_update(update)``: called on the event loop for every status change, event and retry wait."""


@record
class ProviderOutcome:
    """How one provider run ended.

    ``response`` holds whatever arrived (also the partial answer of a failed stream);
    ``elapsed_ms`` / ``first_event_ms`` are milliseconds since the run started; ``cost`` what the run
    cost (``None``: not worked out); ``cached`` where a result reused from the history came from
    (``None``: the request was sent); ``cache_key`` the hex digest naming what the run asked (provider,
    normalised query, controls, settings, key and endpoint) under which a later search may reuse it
    (``None``: not reusable; never shown); ``paced_ms`` the milliseconds of ``elapsed_ms`` it waited
    for its client-side pacing slot before sending (``[providers.X] min_interval``): the provider's
    own latency is ``elapsed_ms - paced_ms``.
    """

    provider: str
    status: RunStatus
    response: SearchResponse
    error: ProviderError | None = None
    elapsed_ms: int = 0
    first_event_ms: int | None = None
    cost: Cost | None = None
    cached: CachedFrom | None = None
    cache_key: str | None = None
    paced_ms: int = 0

    @property
    def ok(self) -> bool:
        """True when the run finished with renderable content."""
        return self.status is RunStatus.DONE

    def to_dict(self) -> dict[str, Any]:
        """``{"provider", "status", "elapsed_ms", "first_event_ms", "response", "error", "cost",
        "cached"}``: one entry of the JSON document's ``results``.

        ``response`` is the normalised response (also partial content of a failed stream, or ``None``
        when nothing arrived), with ``dropped_sources`` counting results left out for lack of a URL;
        ``error`` is ``{"kind", "message", "status"}`` or ``None``; ``cost`` is ``{"usd", "basis"}``
        (:meth:`Cost.to_dict <websearch_tui.core.costs.Cost.to_dict>`) or ``None`` when not worked
        out; ``cached`` is ``{"age_seconds", "search_id"}`` for a result reused from the history, else
        ``None``.
        """
        response = self.response
        has_content = self.status is not RunStatus.FAILED or response.is_renderable()
        return {
            "provider": self.provider,
            "status": self.status.value,
            "elapsed_ms": self.elapsed_ms,
            "first_event_ms": self.first_event_ms,
            "response": response.to_dict() if has_content else None,
            "error": self.error.to_dict() if self.error else None,
            "cost": self.cost.to_dict() if self.cost is not None else None,
            "cached": self.cached.to_dict() if self.cached is not None else None,
        }


@record(frozen=True)
class SearchSummary:
    """The end of a search in a few facts: how many providers ended in each final status (in
    :data:`SUMMARY_ORDER`, zero counts left out), the provider that answered in auto mode, the
    combined error when none returned content, and whether it was cancelled."""

    counts: Mapping[RunStatus, int]
    winner: str | None = None
    winner_label: str | None = None
    error: str | None = None
    cancelled: bool = False

    def text(self) -> str:
        """One line for a status bar: ``"Finished — answered by Exa — 1 done, 1 failed, 1 skipped."``."""
        head = "Cancelled" if self.cancelled else "Finished"
        if self.winner_label:
            head += f" — answered by {self.winner_label}"
        counts = ", ".join(f"{count} {status.value}" for status, count in self.counts.items())
        return f"{head} — {counts}." if counts else f"{head}."


@record
class SearchResult:
    """One search: what was asked, which providers it runs, and every outcome so far.

    Attributes:
        request: the request as validated.
        mode: ``"compare"`` or ``"auto"``.
        search_id: the engine's number for this search (>= 1; 0 for a result made by hand).
        providers: the provider ids it runs, in order.
        labels: provider id -> display label, so the result can be shown without the registry.
        outcomes: one per provider that ended, in the order they ended (compare mode: in
            ``providers`` order once the search is over); skipped providers have none.
        winner: in auto mode, the provider that answered.
        error: the combined message when no provider returned content (or why the search could not
            start, e.g. no provider selected); ``None`` otherwise.
        created_at: when the search started (timezone-aware; the engine sets it, the history keeps
            it), ``None`` for a result made by hand.
        retry_of: for a retry of some providers of an earlier search (``Session.begin_retry``), that
            search's outcomes it did not run again: the statistics compare this search's sources with
            theirs and do not count it as a search of its own; ``None`` for a search of its own. Not
            stored.
    """

    request: SearchRequest
    mode: str
    search_id: int = 0
    providers: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    outcomes: list[ProviderOutcome] = field(default_factory=list)
    winner: str | None = None
    error: str | None = None
    created_at: datetime | None = None
    retry_of: tuple[ProviderOutcome, ...] | None = None

    @property
    def ok(self) -> bool:
        """True when at least one provider produced renderable content."""
        return any(outcome.ok for outcome in self.outcomes)

    def label(self, provider_id: str) -> str:
        """The display label of ``provider_id`` (the id itself when unknown)."""
        return self.labels.get(provider_id, provider_id)

    def progress_text(self, done: Collection[str]) -> str:
        """How far the search has got, as every front end words it: ``"3/6 done · waiting for
        Perplexity, Gemini"`` (``done``: the providers whose run has ended; the others are waited for,
        in ``providers`` order)."""
        waiting = [self.label(pid) for pid in self.providers if pid not in done]
        line = f"{sum(1 for pid in self.providers if pid in done)}/{len(self.providers)} done"
        return f"{line} · waiting for {', '.join(waiting)}" if waiting else line

    def outcome(self, provider_id: str) -> ProviderOutcome | None:
        """The outcome of ``provider_id``, if its run has ended."""
        return next((o for o in self.outcomes if o.provider == provider_id), None)

    def statuses(self) -> dict[str, RunStatus]:
        """Provider id -> final status, in ``providers`` order; a provider without an outcome
        (auto mode stopped before it) is ``SKIPPED``."""
        ended = {o.provider: o.status for o in self.outcomes}
        ordered = {pid: ended.get(pid, RunStatus.SKIPPED) for pid in self.providers}
        return {**ordered, **{pid: status for pid, status in ended.items() if pid not in ordered}}

    def summary(self) -> SearchSummary:
        """Counts per final status, the auto-mode winner, the combined error and whether it was cancelled."""
        statuses = list(self.statuses().values())
        counts = {status: statuses.count(status) for status in SUMMARY_ORDER if status in statuses}
        return SearchSummary(
            counts=counts,
            winner=self.winner,
            winner_label=self.label(self.winner) if self.winner else None,
            error=None if self.ok else self.error or self.combined_error(),
            cancelled=RunStatus.CANCELLED in counts,
        )

    def failures(self) -> list[tuple[str, str]]:
        """``(provider id, reason)`` of every outcome, the reason its error's message or the empty
        answer's (what :meth:`combined_error` joins when nothing returned content)."""
        return [
            (o.provider, o.error.message if o.error else empty_message(self.label(o.provider))) for o in self.outcomes
        ]

    def merged_sources(self) -> list[MergedSource]:
        """Every source of the outcomes (partial ones of failed or cancelled runs included), merged
        and ranked (:func:`~websearch_tui.core.merge.merge_responses`)."""
        return merge_responses(outcome.response for outcome in self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        """The search as one JSON document, exactly the CLI's ``--format json`` (and the MCP tools'
        structured content): ``query``, ``created_at`` (when it started, ISO 8601 UTC to the
        millisecond; ``None`` for a result made by hand), ``mode``, ``max_results``, ``recency``,
        ``results`` (:meth:`ProviderOutcome.to_dict`, in order), ``merged`` (every source once,
        ranked: :meth:`MergedSource.to_dict <websearch_tui.core.merge.MergedSource.to_dict>`),
        ``winner`` in auto mode, ``cost_usd`` (:meth:`cost_usd`, rounded to 6 decimals) and ``error``
        (``{"message"}``) when nothing returned content. Every string is sanitised and redacted
        (:func:`~websearch_tui.core.errors.safe_document`)."""
        request = self.request
        created = self.created_at
        document: dict[str, Any] = {
            "query": request.query,
            "created_at": created.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            if created is not None
            else None,
            "mode": self.mode,
            "max_results": request.max_results,
            "recency": request.recency,
            "results": [outcome.to_dict() for outcome in self.outcomes],
            "merged": [row.to_dict() for row in self.merged_sources()],
            "cost_usd": round(self.cost_usd(), 6),
        }
        if self.mode == "auto":
            document["winner"] = self.winner
        if not self.ok:
            document["error"] = {"message": self.summary().error or "No provider returned results."}
        cleaned: dict[str, Any] = safe_document(document)
        return cleaned

    def cost_usd(self) -> float:
        """What the search cost, in US dollars: the sum of its outcomes' costs (unknown ones count 0)."""
        return sum(outcome.cost.usd for outcome in self.outcomes if outcome.cost is not None)

    def cost_text(self) -> str:
        """The search's cost in one phrase, as every front end words it: ``"≈ $0.021"`` (an estimate
        is part of it), ``"$0.0123"`` (every figure reported by its provider), ``"$0 · 3 cached"``
        (results reused from the history count $0 and are counted), ``"≥ $0.004 (no price for
        Kagi)"`` when a provider's price is not known (``"unknown (no price for Kagi)"`` with nothing
        else spent); ``""`` when no outcome has a cost and none was reused (nothing ended yet, or
        costs were not worked out)."""
        cached = sum(1 for o in self.outcomes if o.cached is not None)
        sent = [(o, o.cost) for o in self.outcomes if o.cost is not None and o.cached is None]
        if not sent and not cached:
            return ""
        total = sum(cost.usd for _, cost in sent)
        unknown = [self.label(o.provider) for o, cost in sent if cost.basis == "unknown"]
        bases = {cost.basis for _, cost in sent if cost.usd > 0}  # a $0 failure makes no total an estimate
        basis: CostBasis = "estimated" if "estimated" in bases else "reported" if "reported" in bases else "keyless"
        amount = Cost(total, basis).text()
        if unknown:
            known = f"≥ {amount.removeprefix('≈ ')}" if total > 0 else "unknown"
            amount = f"{known} (no price for {', '.join(unknown)})"
        return f"{amount} · {cached} cached" if cached else amount

    def combined_error(self) -> str | None:
        """The seed message for "nothing returned content": one failure's message as it is, several
        as ``"All web search providers failed: <id>: <reason>; ..."``; ``None`` when no provider ended."""
        failures = self.failures()
        if not failures:
            return None
        return failures[0][1] if len(failures) == 1 else all_failed_message(failures)
