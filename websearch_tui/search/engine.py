"""The engine: runs providers for a request, in ``compare`` (fan-out) or ``auto`` (fallback) mode.

Each provider run is isolated: its events are folded into its own response, every failure
becomes a :class:`ProviderError` on its own outcome, its deadline (config ``search.timeout``)
covers all of its requests, and cancelling the caller cancels the run and closes its
connections. A user cancel is always reported as a cancel, never as a provider failure.

Front ends observe runs through an ``on_update(provider_id, update)`` callback that receives
:class:`StatusChanged`, :class:`EventReceived` and :class:`Retrying` values on the event loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

import httpx

from websearch_tui.core.errors import (
    NO_PROVIDER_MESSAGE,
    ErrorKind,
    ProviderError,
    all_failed_message,
    credential_origin,
    empty_message,
)
from websearch_tui.core.models import Note, ResponseBuilder, SearchEvent, SearchRequest, SearchResponse
from websearch_tui.core.specs import DEFAULT_MAX_BODY_BYTES, ProviderSettings, ProviderSpec
from websearch_tui.providers import SPECS, get_spec, load_stream
from websearch_tui.providers._pace import Pacer
from websearch_tui.providers.base import Clock, ProviderContext, ProviderState, Sleep

log = logging.getLogger(__name__)


class RunStatus(str, Enum):
    """Lifecycle of one provider run."""

    QUEUED = "queued"
    RUNNING = "running"
    STREAMING = "streaming"
    DONE = "done"
    EMPTY = "empty"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class StatusChanged:
    """A run changed status; ``error`` is set for ``FAILED``."""

    status: RunStatus
    error: ProviderError | None = None


@dataclass(frozen=True)
class EventReceived:
    """A provider yielded ``event`` (already applied to the run's response)."""

    event: SearchEvent


@dataclass(frozen=True)
class Retrying:
    """The run is waiting ``delay`` seconds before resending a failed request.

    ``reason`` is the HTTP status (``"429"``, ``"503"``) or ``"timeout"`` / ``"network"``; ``attempt``
    is the retry's number (from 1). When the wait is over the run's current status (``RUNNING`` or
    ``STREAMING``) is sent again as a :class:`StatusChanged`.
    """

    delay: float
    reason: str
    attempt: int


RunUpdate = StatusChanged | EventReceived | Retrying
OnUpdate = Callable[[str, RunUpdate], None]
"""``on_update(provider_id, update)``: called on the event loop for every status change, event and retry wait."""


@dataclass
class ProviderOutcome:
    """How one provider run ended.

    ``response`` holds whatever arrived (also the partial answer of a failed stream);
    ``elapsed_ms`` / ``first_event_ms`` are milliseconds since the run started.
    """

    provider: str
    status: RunStatus
    response: SearchResponse
    error: ProviderError | None = None
    elapsed_ms: int = 0
    first_event_ms: int | None = None

    @property
    def ok(self) -> bool:
        """True when the run finished with renderable content."""
        return self.status is RunStatus.DONE


@dataclass
class SearchResult:
    """All outcomes of one search. In ``auto`` mode ``winner`` is the provider that answered and
    ``error`` the combined message when none did."""

    request: SearchRequest
    mode: str
    outcomes: list[ProviderOutcome] = field(default_factory=list)
    winner: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when at least one provider produced renderable content."""
        return any(outcome.ok for outcome in self.outcomes)


@dataclass(frozen=True)
class ResolvedCredentials:
    """A provider's credentials and where each came from.

    ``values``: credential name -> value (only those found). ``sources``: credential name -> the
    phrase completing "The key came from ..." (``"env BRAVE_API_KEY"``; see
    :func:`~websearch_tui.core.errors.credential_origin`); never a value.
    """

    values: Mapping[str, str]
    sources: Mapping[str, str] = field(default_factory=dict)


CredentialResolver = Callable[[ProviderSpec], Mapping[str, str] | ResolvedCredentials]
"""Blocking ``spec -> {name: value}`` or ``spec -> ResolvedCredentials`` (when it knows the sources)."""


class CredentialRecord(Protocol):
    """Where one credential was found (``credentials.CredentialSource``): ``where`` is ``"env"``,
    ``"keyring"``, ``"file"`` or ``None`` (not found); ``env_var`` is set for ``"env"``."""

    name: str
    where: str | None
    env_var: str | None


def lookup_resolver(
    lookup: Callable[[ProviderSpec], tuple[Mapping[str, str], Sequence[CredentialRecord]]],
) -> Callable[[ProviderSpec], ResolvedCredentials]:
    """A :data:`CredentialResolver` over ``lookup`` (``credentials.lookup``: ``spec -> (values,
    [CredentialSource])``) that also reports where each credential came from."""

    def resolve(spec: ProviderSpec) -> ResolvedCredentials:
        values, records = lookup(spec)
        sources = {}
        for record in records:
            origin = credential_origin(record.where, f"{spec.id}:{record.name}", record.env_var)
            if origin is not None:
                sources[record.name] = origin
        return ResolvedCredentials(values, sources)

    return resolve


def _no_credentials(spec: ProviderSpec) -> Mapping[str, str]:
    return {}


def _resolved(found: Mapping[str, str] | ResolvedCredentials) -> ResolvedCredentials:
    return found if isinstance(found, ResolvedCredentials) else ResolvedCredentials(found)


class Engine:
    """Runs providers. Create one per application; ``aclose()`` closes its HTTP client.

    Args:
        settings: ``[providers.<id>]`` tables by id (missing ids use defaults).
        default_providers: the selection used when a request names none.
        timeout: per-provider deadline in seconds.
        resolve_credentials: blocking ``spec -> {credential name: value}`` or ``spec ->``
            :class:`ResolvedCredentials` (then a 401/403 message names where the key came from);
            called in a thread.
        client: an ``httpx.AsyncClient`` to share (the engine builds one if omitted).
        max_body_bytes: the most bytes of one response body or event stream a provider reads
            (config ``[search] max_body_mib``).
    """

    def __init__(
        self,
        *,
        settings: Mapping[str, ProviderSettings] | None = None,
        default_providers: Sequence[str] = ("ddgs", "exa", "parallel"),
        timeout: float = 60.0,
        resolve_credentials: CredentialResolver = _no_credentials,
        client: httpx.AsyncClient | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = dict(settings or {})
        self.default_providers = tuple(default_providers)
        self.timeout = timeout
        self.resolve_credentials = resolve_credentials
        self.max_body_bytes = max_body_bytes
        self._client = client
        self.clock = clock
        self.sleep = sleep
        self.rng = rng or random.Random()
        self._pacers: dict[str, Pacer] = {}
        self._states: dict[str, ProviderState] = {}
        self._model_turns: dict[str, int] = {}

    @property
    def client(self) -> httpx.AsyncClient:
        """The shared HTTP client, created on first use."""
        if self._client is None:
            from websearch_tui.providers._http import build_client

            self._client = build_client()
        return self._client

    async def aclose(self) -> None:
        """Close the shared HTTP client and its connections."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def selection(self, request: SearchRequest) -> list[str]:
        """Provider ids the request runs, in order (its own list, else the default selection).

        Raises:
            ValueError: for an id that is not a registered provider (before anything runs).
        """
        ids = list(request.providers or self.default_providers)
        unknown = [pid for pid in ids if pid not in SPECS]
        if unknown:
            raise ValueError(f"unknown provider(s): {', '.join(unknown)}")
        return ids

    async def search(
        self, request: SearchRequest, on_update: OnUpdate | None = None, result: SearchResult | None = None
    ) -> SearchResult:
        """Run ``request`` in its mode (``compare`` or ``auto``).

        ``result``, when given, is filled in as providers finish (cancelled runs included), so a
        caller that is interrupted still holds every outcome that was reached.
        """
        if request.mode == "auto":
            return await self.auto(request, on_update, result)
        return await self.compare(request, on_update, result)

    async def compare(
        self, request: SearchRequest, on_update: OnUpdate | None = None, result: SearchResult | None = None
    ) -> SearchResult:
        """Run every selected provider concurrently; each outcome is independent of the others.

        Outcomes end in selection order. Cancelling the caller cancels every run and waits for
        them to finish (their outcomes, ``CANCELLED`` for the unfinished, are in ``result``).
        """
        ids = self.selection(request)
        result = result or SearchResult(request=request, mode="compare")
        if not ids:
            result.error = NO_PROVIDER_MESSAGE
            return result
        runs = [self.run_provider(pid, request, on_update, record=result.outcomes.append) for pid in ids]
        try:
            result.outcomes = await _run_all(runs)
        except asyncio.CancelledError:
            _cancel_unstarted(ids, result, on_update)
            raise
        if not result.ok:
            result.error = _combined_error(result.outcomes)
        return result

    async def auto(
        self, request: SearchRequest, on_update: OnUpdate | None = None, result: SearchResult | None = None
    ) -> SearchResult:
        """Try providers one at a time until one returns renderable content.

        The chain is the request's providers in order (else the default selection). An empty
        response counts as a failure; a user cancel propagates as ``CancelledError`` at once.
        """
        result = result or SearchResult(request=request, mode="auto")
        ids = self.selection(request)
        if not ids:
            result.error = NO_PROVIDER_MESSAGE
            return result
        for pid in ids:
            outcome = await self.run_provider(
                pid, request, on_update, empty_is_failure=True, record=result.outcomes.append
            )
            if outcome.ok:
                result.winner = pid
                return result
        result.error = _combined_error(result.outcomes)
        return result

    async def run_provider(
        self,
        provider_id: str,
        request: SearchRequest,
        on_update: OnUpdate | None = None,
        *,
        empty_is_failure: bool = False,
        record: Callable[[ProviderOutcome], None] | None = None,
    ) -> ProviderOutcome:
        """Run one provider to completion, within its deadline; never raises except on cancel.

        With ``empty_is_failure`` (auto mode) a response without renderable content ends as
        ``FAILED`` with the seed message ``"<Label> returned no renderable search content."``.
        An ``auth`` failure gets the sentence naming where the key came from, when known.
        Unexpected exceptions become ``protocol`` failures naming the exception class (logged with
        their traceback, redacted by the log formatter). Retry waits of the shared HTTP layer are
        reported as :class:`Retrying`. An ``on_update`` callback that raises is logged and
        otherwise ignored. ``record`` receives the final outcome, also when the run is cancelled.

        Raises:
            asyncio.CancelledError: when the caller is cancelled (after reporting ``CANCELLED``).
        """
        notify = _guarded(on_update)
        spec = SPECS[provider_id]
        started = self.clock()
        builder = ResponseBuilder(provider_id)
        first_event: list[float] = []
        contexts: list[ProviderContext] = []  # the run's context, once its credentials are resolved
        notify(provider_id, StatusChanged(RunStatus.RUNNING))

        async def consume() -> None:
            credentials = _resolved(await asyncio.to_thread(self.resolve_credentials, spec))
            ctx = self._context(spec, credentials, started + self.timeout, notify, first_event)
            contexts.append(ctx)
            await self._pacer(spec).wait(ctx)
            recency_note = _recency_note(request, spec)
            if recency_note is not None:
                builder.apply(recency_note)
                notify(provider_id, EventReceived(recency_note))
            async for event in load_stream(provider_id)(request, ctx):
                if not first_event:
                    first_event.append(self.clock())
                    notify(provider_id, StatusChanged(RunStatus.STREAMING))
                builder.apply(event)
                notify(provider_id, EventReceived(event))

        error: ProviderError | None = None
        try:
            await asyncio.wait_for(consume(), timeout=self.timeout)
        except asyncio.CancelledError:
            cancelled = self._outcome(provider_id, RunStatus.CANCELLED, builder, None, started, first_event)
            if record is not None:
                record(cancelled)
            notify(provider_id, StatusChanged(RunStatus.CANCELLED))
            raise
        except asyncio.TimeoutError:
            error = ProviderError(
                provider_id, ErrorKind.TIMEOUT, f"{spec.label} did not finish within {self.timeout:g} s."
            )
        except ProviderError as exc:
            error = _with_key_origin(exc, contexts)
        except Exception as exc:  # a provider bug must never take the app down
            log.exception("unexpected error in provider %s", provider_id)
            error = ProviderError(
                provider_id, ErrorKind.PROTOCOL, f"Unexpected error in {spec.label}: {type(exc).__name__}: {exc}"
            )
        kept = len(builder.response.sources)
        if kept > request.max_results:
            kept_note = Note(f"Kept {kept} sources (limit {request.max_results}) because the answer cites them.")
            builder.apply(kept_note)
            notify(provider_id, EventReceived(kept_note))
        if error is None and not builder.response.is_renderable() and empty_is_failure:
            error = ProviderError(provider_id, ErrorKind.EMPTY, empty_message(spec.label), status=204)
        if error is not None:
            status = RunStatus.FAILED
        else:
            status = RunStatus.DONE if builder.response.is_renderable() else RunStatus.EMPTY
        outcome = self._outcome(provider_id, status, builder, error, started, first_event)
        if record is not None:
            record(outcome)
        notify(provider_id, StatusChanged(status, error))
        return outcome

    def _context(
        self,
        spec: ProviderSpec,
        credentials: ResolvedCredentials,
        deadline: float,
        notify: OnUpdate,
        first_event: list[float],
    ) -> ProviderContext:
        """The context of one run: its settings, credentials, deadline and body cap; retry waits are
        reported as :class:`Retrying`, and the resend as the run's status again (``STREAMING`` once
        ``first_event`` holds a time, else ``RUNNING``)."""

        def retrying(delay: float, reason: str, attempt: int) -> None:
            notify(spec.id, Retrying(delay, reason, attempt))

        def resent() -> None:
            notify(spec.id, StatusChanged(RunStatus.STREAMING if first_event else RunStatus.RUNNING))

        return ProviderContext(
            spec=spec,
            client=self.client,
            settings=self._next_settings(spec.id),
            credentials=credentials.values,
            deadline=deadline,
            credential_sources=credentials.sources,
            max_body_bytes=self.max_body_bytes,
            report_retry=retrying,
            report_resend=resent,
            clock=self.clock,
            sleep=self.sleep,
            rng=self.rng,
            state=self._states.setdefault(spec.id, ProviderState()),
        )

    def _next_settings(self, provider_id: str) -> ProviderSettings:
        """The provider's settings for its next run; a ``models`` list is used round-robin
        (each run sees a different first model, which is the one it asks for)."""
        settings = self.settings.get(provider_id, ProviderSettings())
        if len(settings.models) < 2:
            return settings
        turn = self._model_turns.get(provider_id, 0)
        self._model_turns[provider_id] = turn + 1
        shift = turn % len(settings.models)
        return dataclasses.replace(settings, models=settings.models[shift:] + settings.models[:shift])

    def _pacer(self, spec: ProviderSpec) -> Pacer:
        """The provider's pacer: config ``min_interval`` or the spec default, seconds between searches.

        The interval is read on every run, so replacing ``settings`` (the settings screen) applies at once.
        """
        configured = self.settings.get(spec.id, ProviderSettings()).min_interval
        interval = configured if configured is not None else spec.default_min_interval
        pacer = self._pacers.get(spec.id)
        if pacer is None:
            pacer = self._pacers[spec.id] = Pacer(interval, clock=self.clock, sleep=self.sleep)
        pacer.interval = interval
        return pacer

    def _outcome(
        self,
        provider_id: str,
        status: RunStatus,
        builder: ResponseBuilder,
        error: ProviderError | None,
        started: float,
        first_event: list[float],
    ) -> ProviderOutcome:
        elapsed = int((self.clock() - started) * 1000)
        first = int((first_event[0] - started) * 1000) if first_event else None
        builder.response.elapsed_ms = elapsed
        builder.response.first_event_ms = first
        return ProviderOutcome(provider_id, status, builder.response, error, elapsed, first)


def recency_ignored_message(label: str) -> str:
    """The note for a provider that cannot filter by date when a recency was asked for."""
    return f"Recency is not supported by {label}; results are not filtered by date."


def _recency_note(request: SearchRequest, spec: ProviderSpec) -> Note | None:
    """What to tell the user, before any result, about how this provider applies the recency."""
    if not request.recency:
        return None
    if not spec.capabilities.recency:
        return Note(recency_ignored_message(spec.label))
    if spec.capabilities.recency_in_prompt:
        return Note(
            f"{spec.label} is asked in the prompt to use only the past {request.recency}; "
            "it has no date filter, so older pages may still be cited."
        )
    return None


def _with_key_origin(error: ProviderError, contexts: list[ProviderContext]) -> ProviderError:
    """``error`` with the sentence naming where the API key came from appended, for ``auth`` failures."""
    origin = contexts[0].key_origin() if contexts and error.kind is ErrorKind.AUTH else None
    return error.with_hint(origin) if origin and origin not in error.message else error


def _guarded(on_update: OnUpdate | None) -> OnUpdate:
    """``on_update`` wrapped so that an exception in a front end's callback never breaks a run."""
    if on_update is None:
        return lambda provider_id, update: None

    def notify(provider_id: str, update: RunUpdate) -> None:
        try:
            on_update(provider_id, update)
        except Exception:
            log.exception("on_update callback failed for %s", provider_id)

    return notify


def _cancel_unstarted(ids: Sequence[str], result: SearchResult, on_update: OnUpdate | None) -> None:
    """Record and report ``CANCELLED`` for providers whose run was cancelled before it began."""
    notify = _guarded(on_update)
    reported = {outcome.provider for outcome in result.outcomes}
    for provider_id in ids:
        if provider_id not in reported:
            result.outcomes.append(
                ProviderOutcome(provider_id, RunStatus.CANCELLED, SearchResponse(provider=provider_id))
            )
            notify(provider_id, StatusChanged(RunStatus.CANCELLED))


async def _run_all(runs: list[Coroutine[object, object, ProviderOutcome]]) -> list[ProviderOutcome]:
    """Await every run concurrently; if one raises (a cancel), cancel and await the rest first."""
    tasks = [asyncio.ensure_future(run) for run in runs]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _combined_error(outcomes: Sequence[ProviderOutcome]) -> str:
    failures = [
        (o.provider, o.error.message if o.error else empty_message(get_spec(o.provider).label)) for o in outcomes
    ]
    if len(failures) == 1:
        return failures[0][1]
    return all_failed_message(failures)
