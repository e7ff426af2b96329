"""The engine: the one way into a search for every front end (TUI, CLI, settings Test, the Python API).

:meth:`Engine.search` runs a request in its mode: ``compare`` (every selected provider at once) or
``auto`` (the seed fallback chain: one at a time until one returns renderable content).
:meth:`Engine.probe` runs the one small search of the settings screen's Test.

Each provider run is isolated: its events are reduced into its own response (once, here), every
failure becomes a :class:`ProviderError` on its own outcome, its deadline (config ``[search]
timeout``) covers all of its requests, and cancelling the caller cancels the run and closes its
connections. A user cancel is always reported as a cancel, never as a provider failure.

Front ends observe a search through ``on_update(update)``, called on the event loop with a
:class:`~websearch_tui.core.results.ProviderUpdate` for every status change, event and retry wait;
each carries the search's id and the provider's reduced response, so nothing is reduced twice.

Every search that ends, or is cancelled, is handed to the engine's :class:`SearchRecorder` (the
history, built from config ``[history]``), here and nowhere else, so every front end records the
same way; ``search(..., record=False)`` (``search --no-history``, the TUI's private mode) records
nothing, and :meth:`Engine.probe` never records.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.costs import Cost, cost_of
from websearch_tui.core.errors import (
    NO_PROVIDER_MESSAGE,
    ErrorKind,
    ProviderError,
    credential_origin,
    empty_message,
    nothing_found_message,
    register_secret,
)
from websearch_tui.core.models import Note, ResponseBuilder, SearchEvent, SearchRequest, SearchResponse
from websearch_tui.core.records import record
from websearch_tui.core.results import (
    PACED_NOTE_START,
    OnUpdate,
    ProviderOutcome,
    ProviderUpdate,
    RetryWait,
    RunStatus,
    SearchResult,
)
from websearch_tui.core.specs import DEFAULT_MAX_BODY_BYTES, ProviderSettings, ProviderSpec
from websearch_tui.engine.cache_keys import CacheKeys, cache_key, runs_keyless
from websearch_tui.providers import load_stream
from websearch_tui.providers.base import Clock, ProviderContext, ProviderState, Sleep
from websearch_tui.providers.transport.pacing import Pacer

if TYPE_CHECKING:
    import httpx

    from websearch_tui.secrets.credentials import KeyStore
    from websearch_tui.settings.config import Config, HistorySettings

log = logging.getLogger(__name__)

PROBE_QUERY = "test"
"""The query :meth:`Engine.probe` sends (one result)."""

_MIB = 1024 * 1024


@record(frozen=True)
class ResolvedCredentials:
    """A provider's credentials and where each came from.

    ``values``: credential name -> value (only those found). ``sources``: credential name -> the
    phrase completing "The key came from ..." (``"env BRAVE_API_KEY"``; see
    :func:`~websearch_tui.core.errors.credential_origin`); never a value.
    """

    values: Mapping[str, str]
    sources: Mapping[str, str] = field(default_factory=dict)
    problems: Mapping[str, str] = field(default_factory=dict)
    """credential name -> why its stored value was not used (a line break in an env var, ...),
    as a sentence naming where it is and what to do."""


CredentialResolver = Callable[[ProviderSpec], "Mapping[str, str] | ResolvedCredentials"]
"""Blocking ``spec -> {name: value}`` or ``spec -> ResolvedCredentials`` (when it knows the sources)."""


class CredentialRecord(Protocol):
    """Where one credential was found (``credentials.CredentialSource``): ``where`` is ``"env"``,
    ``"keyring"``, ``"file"`` or ``None`` (not found); ``env_var`` is set for ``"env"``; ``problem``
    says why a stored value was not used."""

    @property
    def problem(self) -> str | None:
        """Why the stored value was not used (``"contains control characters ..."``), or ``None``."""

    @property
    def name(self) -> str:
        """The credential's name (``"api_key"``)."""

    @property
    def where(self) -> str | None:
        """``"env"``, ``"keyring"``, ``"file"`` or ``None``."""

    @property
    def env_var(self) -> str | None:
        """The variable that set it, for ``"env"``."""


def lookup_resolver(
    lookup: Callable[[ProviderSpec], tuple[Mapping[str, str], Sequence[CredentialRecord]]],
) -> Callable[[ProviderSpec], ResolvedCredentials]:
    """A :data:`CredentialResolver` over ``lookup`` (``KeyStore.lookup``: ``spec -> (values,
    [CredentialSource])``) that also reports where each credential came from."""

    def resolve(spec: ProviderSpec) -> ResolvedCredentials:
        values, records = lookup(spec)
        sources, problems = {}, {}
        for found in records:
            origin = credential_origin(found.where, f"{spec.id}:{found.name}", found.env_var)
            if origin is not None:
                sources[found.name] = origin
            if found.problem is not None:
                label = next((c.label for c in spec.credentials if c.name == found.name), found.name)
                problems[found.name] = (
                    f"{spec.label}: the {label} from {origin or 'its store'} {found.problem}, so it was not "
                    f"used; set it again (websearch-tui keys set {spec.id}, Settings, or the variable)."
                )
        return ResolvedCredentials(values, sources, problems)

    return resolve


class SearchRecorder(Protocol):
    """Where ended searches go (:class:`websearch_tui.history.HistoryRecorder`)."""

    def record(self, result: SearchResult, started_at: datetime) -> None:
        """Keep ``result``, started at ``started_at`` (UTC). Must return at once: the caller is the
        event loop at the end of a search."""

    def flush(self, timeout: float | None = None) -> bool:
        """Wait (blocking, at most ``timeout`` seconds) until what was recorded is written; True when it is."""

    def close(self) -> None:
        """Write what is pending and release the file (blocking; a later ``record`` reopens it)."""


HistoryNotice = Callable[[str], None]
"""``notice(message)``: the history has something to tell the user; may be called from any thread."""


def _no_credentials(spec: ProviderSpec) -> Mapping[str, str]:
    return {}


def _resolved(found: Mapping[str, str] | ResolvedCredentials) -> ResolvedCredentials:
    return found if isinstance(found, ResolvedCredentials) else ResolvedCredentials(found)


@record(frozen=True)
class _Run:
    """What one provider run uses besides the request: where updates go, its search id, the
    overrides of a probe (settings, credentials, deadline and body cap), the search's own
    provider options (``options``: provider id -> options laid over its configured ones), the
    outcomes to report instead of running (``reuse``: provider id -> a result reused from the
    history) and the cache keys worked out before the search (``keys``, with their credentials).
    A probe (``keyed`` False) gets no cache key."""

    search_id: int
    notify: OnUpdate
    settings: ProviderSettings | None = None
    credentials: Callable[[ProviderSpec], ResolvedCredentials] | None = None
    timeout: float | None = None
    max_body_bytes: int | None = None
    empty_is_failure: bool = False
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    reuse: Mapping[str, ProviderOutcome] = field(default_factory=dict)
    keys: CacheKeys | None = None
    keyed: bool = True


class Engine:
    """Runs searches. Create one per application (:meth:`from_config`); ``aclose()`` closes its HTTP
    client. It keeps, between searches, each provider's pacing, its model round-robin and its
    :class:`~websearch_tui.providers.base.ProviderState` (MCP sessions, cool-downs).

    Args:
        settings: ``[providers.<id>]`` tables by id (missing ids use defaults).
        default_providers: the selection used when a request names none.
        timeout: per-provider deadline in seconds.
        resolve_credentials: blocking ``spec -> {credential name: value}`` or ``spec ->``
            :class:`ResolvedCredentials` (then a 401/403 message names where the key came from);
            called in a thread.
        client: an ``httpx.AsyncClient`` to share (the engine builds one on first use if omitted).
        max_body_bytes: the most bytes of one response body or event stream a provider reads
            (config ``[search] max_body_mib``).
        clock, sleep, rng: the monotonic clock (seconds), the wait and the jitter source every run
            uses (tests pass fakes).
        key_store: the :class:`~websearch_tui.secrets.credentials.KeyStore` front ends share with this
            engine (:attr:`key_store`; :meth:`from_config` resolves credentials through it too).
        recorder: where ended searches are recorded (default: nowhere; :meth:`reconfigure` sets the
            history of config ``[history]``).

    Attributes:
        history_notice: called with what the history has to tell the user (a damaged file moved
            aside, searches not being recorded), from the history's writer thread; front ends set it.
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
        key_store: KeyStore | None = None,
        recorder: SearchRecorder | None = None,
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
        self._searches = 0
        self._key_store = key_store
        self.recorder = recorder
        self.history_notice: HistoryNotice | None = None
        self._history: HistorySettings | None = None
        self._closing: list[threading.Thread] = []  # closing the recorders reconfigure() replaced

    @classmethod
    def from_config(
        cls,
        config: Config,
        *,
        key_store: KeyStore | None = None,
        resolve_credentials: CredentialResolver | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> Engine:
        """An engine for ``config`` (see :meth:`reconfigure`) holding ``key_store`` (a new
        :class:`~websearch_tui.secrets.credentials.KeyStore` if omitted), which resolves credentials, and
        where each came from, unless ``resolve_credentials`` is given. Front ends reach the same
        store through :attr:`key_store`, so a locked keyring prompts once per application."""
        engine = cls(client=client, key_store=key_store)
        engine.resolve_credentials = resolve_credentials or lookup_resolver(engine.key_store.lookup)
        engine.reconfigure(config)
        return engine

    @property
    def key_store(self) -> KeyStore:
        """The key store of this application: credential lookups, readiness, storing and deleting
        keys (created on first use when none was given)."""
        if self._key_store is None:
            from websearch_tui.secrets.credentials import KeyStore

            self._key_store = KeyStore()
        return self._key_store

    def reconfigure(self, config: Config) -> None:
        """Use ``config`` from the next run on: provider tables (with endpoint env vars such as
        ``SEARXNG_ENDPOINT``), the default selection (:meth:`Config.default_selection`), the timeout,
        the body cap (``[search] max_body_mib``) and the history (``[history]``: a changed table closes
        the recorder in a thread of its own, after writing what it holds, and opens the new one;
        ``enabled = false`` leaves none). Pacing, sessions and the client are kept."""
        self.settings = {pid: config.settings_for(pid) for pid in SPECS}
        self.default_providers = tuple(config.default_selection())
        self.timeout = config.search.timeout
        self.max_body_bytes = int(config.search.max_body_mib * _MIB)
        if config.history != self._history:
            self._history = config.history
            if self.recorder is not None:  # writing what it holds may wait for the disk: not on the loop
                closing = threading.Thread(target=self.recorder.close, name="history-close")
                closing.start()
                self._closing.append(closing)
            self.recorder = self._history_recorder(config.history)

    def _history_recorder(self, history: HistorySettings) -> SearchRecorder | None:
        """The recorder of a ``[history]`` table (``None`` when disabled)."""
        if not history.enabled:
            return None
        from websearch_tui.history import HistoryRecorder, history_path

        path = history_path(history.path)
        return HistoryRecorder(path, max_entries=history.max_entries, on_notice=self._tell_history)

    def _tell_history(self, message: str) -> None:
        """Pass a history notice to the front end (``history_notice``), or log it when none listens."""
        if self.history_notice is not None:
            self.history_notice(message)
        else:
            log.warning("history: %s", message)

    @property
    def client(self) -> httpx.AsyncClient:
        """The shared HTTP client, created on first use."""
        if self._client is None:
            from websearch_tui.providers.transport.http import build_client

            self._client = build_client()
        return self._client

    async def aclose(self) -> None:
        """Close the shared HTTP client and its connections, and write what the history still holds
        (the recorder's close and those of recorders :meth:`reconfigure` replaced, each bounded)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self.recorder is not None:
            await asyncio.to_thread(self.recorder.close)
        closing, self._closing = self._closing, []
        for thread in closing:
            await asyncio.to_thread(thread.join)

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

    def prepare(self, request: SearchRequest) -> SearchResult:
        """A new, not yet started :class:`SearchResult` for ``request``: its search id (so a front end
        knows which updates are its own before the first arrives), providers and their labels.

        Raises:
            ValueError: as :meth:`selection`.
        """
        ids = self.selection(request)
        self._searches += 1
        return SearchResult(
            request=request,
            mode=request.mode,
            search_id=self._searches,
            providers=tuple(ids),
            labels={pid: SPECS[pid].label for pid in ids},
        )

    async def search(
        self,
        request: SearchRequest,
        on_update: OnUpdate | None = None,
        *,
        result: SearchResult | None = None,
        record: bool = True,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        reuse: Mapping[str, ProviderOutcome] | None = None,
        keys: CacheKeys | None = None,
    ) -> SearchResult:
        """Run ``request`` in its mode and return every outcome (``result.summary()`` sums it up).

        ``options`` (provider id -> ``{option: value}``) are provider options for this search only,
        laid over each named provider's configured ``options`` (the MCP tool's ``grok_search_mode``
        is ``{"grok": {"search_mode": "x"}}``); they are not validated here (each provider checks
        its own, as it does config values) and are not recorded with the search.

        ``reuse`` (provider id -> outcome) are results reused from the history (the session's cache):
        such a provider is not run and sends nothing; its outcome, as given, is reported at once (its
        ``QUEUED`` update, then a final ``DONE`` one carrying the response) and recorded with the
        search. In auto mode a reused provider in the chain answers without a request. ``keys``
        (:meth:`cache_keys`) are the providers' cache keys and the credentials they were worked out
        with: the runs use those credentials instead of looking them up again. Every outcome a run
        ends gets its :attr:`~websearch_tui.core.results.ProviderOutcome.cache_key` (from ``keys``,
        else worked out once its credentials are resolved).

        ``on_update`` receives a ``QUEUED`` update for every provider first, then each run's
        changes. ``result`` (from :meth:`prepare`) is filled in as providers finish, so a caller that
        is interrupted still holds every outcome reached; providers that had not finished are
        recorded ``CANCELLED`` before the cancel propagates. In auto mode, providers the chain did
        not need end ``SKIPPED`` (an update, no outcome). The ended (or cancelled) search goes to the
        :attr:`recorder` unless ``record`` is False; a search with no provider is not recorded.

        Raises:
            ValueError: as :meth:`selection` (only when ``result`` is not given).
            asyncio.CancelledError: when the caller is cancelled.
        """
        result = result or self.prepare(request)
        started_at = result.created_at = datetime.now(timezone.utc)
        notify = _guarded(on_update)
        for pid in result.providers:
            notify(ProviderUpdate(result.search_id, pid, RunStatus.QUEUED, SearchResponse(provider=pid)))
        if not result.providers:
            result.error = NO_PROVIDER_MESSAGE
            return result
        run = _Run(
            result.search_id,
            notify,
            empty_is_failure=result.mode == "auto",
            options=dict(options or {}),
            reuse=dict(reuse or {}),
            keys=keys,
        )
        try:
            if result.mode == "auto":
                await self._auto(result, run)
            else:
                await self._compare(result, run)
        except asyncio.CancelledError:
            _end_unfinished(result, run, RunStatus.CANCELLED, record=True)
            if record:
                self._record(result, started_at)
            raise
        _end_unfinished(result, run, RunStatus.SKIPPED, record=False)
        result.error = None if result.ok else result.combined_error()
        if record:
            self._record(result, started_at)
        return result

    def cache_keys(
        self,
        request: SearchRequest,
        providers: Sequence[str],
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> CacheKeys:
        """The cache key of each of ``providers`` for ``request`` (with the search's own provider
        ``options``; see :func:`~websearch_tui.engine.cache_keys.cache_key`), over each one's
        configured settings and the credentials the engine's resolver finds now. Blocking (the
        resolver may ask the OS keyring): call it in a thread. Pass the result to :meth:`search` so
        the runs use the same credentials and record the same keys.

        Raises:
            KeyError: a provider id that is not registered.
        """
        credentials = {pid: _resolved(self.resolve_credentials(SPECS[pid])) for pid in providers}
        keys = {pid: self._cache_key(pid, request, found, options or {}) for pid, found in credentials.items()}
        return CacheKeys(keys, credentials)

    def _cache_key(
        self,
        provider_id: str,
        request: SearchRequest,
        credentials: ResolvedCredentials,
        options: Mapping[str, Mapping[str, Any]],
    ) -> str:
        """The cache key of one run of ``provider_id`` (its configured settings, not a model turn)."""
        settings = self.settings.get(provider_id, ProviderSettings())
        return cache_key(SPECS[provider_id], request, settings, credentials.values, options.get(provider_id))

    def min_interval(self, provider_id: str) -> float:
        """Seconds client-side pacing keeps between two searches of ``provider_id`` in this process:
        config ``min_interval``, else the provider's default (0: not paced)."""
        configured = self.settings.get(provider_id, ProviderSettings()).min_interval
        return configured if configured is not None else SPECS[provider_id].default_min_interval

    def record(self, result: SearchResult) -> None:
        """Hand ``result``, ended and run with ``record=False``, to the history (as it is now: with
        what was added after it ended, such as citation checks). Returns at once; a recorder bug never
        raises here."""
        self._record(result, result.created_at or datetime.now(timezone.utc))

    def _record(self, result: SearchResult, started_at: datetime) -> None:
        """Hand an ended search to the recorder; a recorder bug never breaks the search."""
        if self.recorder is None:
            return
        try:
            self.recorder.record(result, started_at)
        except Exception:
            log.exception("recording search %s failed", result.search_id)

    async def probe(
        self,
        provider_id: str,
        settings: ProviderSettings,
        *,
        typed: Mapping[str, str] | None = None,
        timeout: float | None = None,
        max_body_bytes: int | None = None,
        on_update: OnUpdate | None = None,
    ) -> ProviderOutcome:
        """Run one small search (query :data:`PROBE_QUERY`, one result) of ``provider_id`` with
        ``settings`` instead of its configured table, and return its outcome (the settings Test).

        Credentials are the stored ones (the engine's resolver) overlaid with ``typed`` (credential
        name -> value, typed but not stored; secret ones are registered for redaction first).
        ``timeout`` (seconds) and ``max_body_bytes`` default to the engine's. Never raises for a
        provider failure: it is in ``outcome.error``.

        Raises:
            KeyError: ``provider_id`` is not a registered provider.
            asyncio.CancelledError: the caller was cancelled.
        """
        spec = SPECS[provider_id]
        typed = dict(typed or {})
        for credential in spec.credentials:
            if credential.secret:  # a user name is not a secret: redacting it would blank it everywhere
                register_secret(typed.get(credential.name))

        def resolve(spec: ProviderSpec) -> ResolvedCredentials:
            found = _resolved(self.resolve_credentials(spec))
            sources = {name: origin for name, origin in found.sources.items() if name not in typed}
            return ResolvedCredentials({**found.values, **typed}, sources)

        self._searches += 1
        request = SearchRequest(query=PROBE_QUERY, providers=(provider_id,), max_results=1)
        run = _Run(self._searches, _guarded(on_update), settings, resolve, timeout, max_body_bytes, keyed=False)
        return await self._run(provider_id, request, run)

    async def _compare(self, result: SearchResult, run: _Run) -> None:
        """Every provider at once; outcomes end in selection order."""
        runs = [self._run(pid, result.request, run, record=result.outcomes.append) for pid in result.providers]
        result.outcomes = await _run_all(runs)

    async def _auto(self, result: SearchResult, run: _Run) -> None:
        """One provider at a time until one returns renderable content (an empty answer is a failure)."""
        for pid in result.providers:
            outcome = await self._run(pid, result.request, run, record=result.outcomes.append)
            if outcome.ok:
                result.winner = pid
                return

    async def _run(
        self,
        provider_id: str,
        request: SearchRequest,
        run: _Run,
        *,
        record: Callable[[ProviderOutcome], None] | None = None,
    ) -> ProviderOutcome:
        """Run one provider to completion, within its deadline; never raises except on cancel.

        With ``run.empty_is_failure`` (auto mode) a response without renderable content ends as
        ``FAILED`` with the seed message ``"<Label> returned no renderable search content."``.
        An ``auth`` failure gets the sentence naming where the key came from, when known.
        Unexpected exceptions become ``protocol`` failures naming the exception class (logged with
        their traceback, redacted by the log formatter). ``record`` receives the final outcome,
        also when the run is cancelled, with its cache key (unless ``run`` is a probe). A provider
        in ``run.reuse`` is not run: its reused outcome is reported and recorded (:meth:`_reuse`).

        Raises:
            asyncio.CancelledError: when the caller is cancelled (after reporting ``CANCELLED``).
        """
        reused = run.reuse.get(provider_id)
        if reused is not None:
            return self._reuse(reused, run, record)
        spec = SPECS[provider_id]
        timeout = run.timeout or self.timeout
        started = self.clock()
        keyed = self._run_key(provider_id, request, run, record)
        record = keyed.record
        builder = ResponseBuilder(provider_id)
        tracker = _Tracker(run, provider_id, builder)
        contexts: list[ProviderContext] = []  # the run's context, once its credentials are resolved
        tracker.status(RunStatus.RUNNING)

        async def consume() -> None:
            credentials = await self._credentials(spec, run)
            keyed.resolved(credentials)
            for problem in credentials.problems.values():
                raise ProviderError(provider_id, ErrorKind.CONFIG, problem)
            ctx = self._context(spec, credentials, started + timeout, tracker, run)
            contexts.append(ctx)
            pacer = self._pacer(spec)
            before_slot = self.clock()
            await pacer.wait(ctx, lambda delay: tracker.paced(delay, paced_message(spec, delay, pacer.interval)))
            tracker.waited = self.clock() - before_slot
            recency_note = _recency_note(request, spec)
            if recency_note is not None:
                tracker.event(recency_note)
            async for event in load_stream(provider_id)(request, ctx):
                if tracker.first_event is None:
                    tracker.first_event = self.clock()
                    tracker.status(RunStatus.STREAMING)
                tracker.event(event)

        error: ProviderError | None = None
        try:
            await asyncio.wait_for(consume(), timeout=timeout)
        except asyncio.CancelledError:
            tracker.finish()
            cancelled = self._outcome(provider_id, RunStatus.CANCELLED, builder, None, started, tracker, contexts)
            if record is not None:
                record(cancelled)
            tracker.status(RunStatus.CANCELLED)
            raise
        except asyncio.TimeoutError:
            error = ProviderError(provider_id, ErrorKind.TIMEOUT, f"{spec.label} did not finish within {timeout:g} s.")
        except ProviderError as exc:
            error = _with_key_origin(exc, contexts)
        except Exception as exc:  # a provider bug must never take the app down
            log.exception("unexpected error in provider %s", provider_id)
            error = ProviderError(
                provider_id, ErrorKind.PROTOCOL, f"Unexpected error in {spec.label}: {type(exc).__name__}: {exc}"
            )
        tracker.finish()
        kept = len(builder.response.sources)
        if kept > request.max_results:
            tracker.event(Note(f"Kept {kept} sources (limit {request.max_results}) because the answer cites them."))
        if error is None and not builder.response.is_renderable() and run.empty_is_failure:
            error = ProviderError(provider_id, ErrorKind.EMPTY, empty_message(spec.label), status=204)
        if error is not None:
            status = RunStatus.FAILED
        else:
            status = RunStatus.DONE if builder.response.is_renderable() else RunStatus.EMPTY
        if status is RunStatus.EMPTY:  # a known shape with nothing in it (an unknown one failed above)
            tracker.event(Note(nothing_found_message(spec.label)))
        outcome = self._outcome(provider_id, status, builder, error, started, tracker, contexts)
        if record is not None:
            record(outcome)
        tracker.status(status, error)
        return outcome

    def _reuse(
        self, reused: ProviderOutcome, run: _Run, record: Callable[[ProviderOutcome], None] | None
    ) -> ProviderOutcome:
        """Report ``reused`` (a result reused from the history, its ``QUEUED`` update already sent)
        as the run's end, a final update carrying its response, and hand it to ``record``."""
        if record is not None:
            record(reused)
        run.notify(ProviderUpdate(run.search_id, reused.provider, reused.status, reused.response))
        return reused

    def _run_key(
        self,
        provider_id: str,
        request: SearchRequest,
        run: _Run,
        record: Callable[[ProviderOutcome], None] | None,
    ) -> _RunKey:
        """The cache key of one run: the one ``run.keys`` holds, else worked out once its credentials
        are resolved; none for a probe."""
        if not run.keyed:
            return _RunKey(None, None, record)
        known = run.keys.keys.get(provider_id) if run.keys is not None else None
        options = run.options

        def work_out(credentials: ResolvedCredentials) -> str:
            return self._cache_key(provider_id, request, credentials, options)

        return _RunKey(known, work_out, record)

    async def _credentials(self, spec: ProviderSpec, run: _Run) -> ResolvedCredentials:
        """The credentials of ``spec``'s run: those :meth:`cache_keys` resolved for this search, else
        the run's own resolver's (a probe's) or the engine's, in a thread."""
        known = run.keys.credentials.get(spec.id) if run.keys is not None and run.credentials is None else None
        if known is not None:
            return known
        resolve = run.credentials or self.resolve_credentials
        return _resolved(await asyncio.to_thread(resolve, spec))

    def _context(
        self,
        spec: ProviderSpec,
        credentials: ResolvedCredentials,
        deadline: float,
        tracker: _Tracker,
        run: _Run,
    ) -> ProviderContext:
        """The context of one run: its settings (with the search's own options for this provider on
        top), credentials, deadline, body cap, clock and state; retry waits and resends are reported
        through ``tracker``."""
        settings = run.settings if run.settings is not None else self._next_settings(spec.id)
        extra = run.options.get(spec.id)
        if extra:
            settings = dataclasses.replace(settings, options={**settings.options, **extra})
        return ProviderContext(
            spec=spec,
            client=self.client,
            settings=settings,
            credentials=credentials.values,
            deadline=deadline,
            credential_sources=credentials.sources,
            max_body_bytes=run.max_body_bytes or self.max_body_bytes,
            report_retry=tracker.retrying,
            report_resend=tracker.resent,
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
        """The provider's pacer: :meth:`min_interval` seconds between searches.

        The interval is read on every run, so :meth:`reconfigure` applies at once.
        """
        interval = self.min_interval(spec.id)
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
        tracker: _Tracker,
        contexts: Sequence[ProviderContext] = (),
    ) -> ProviderOutcome:
        """The run's end: its response with timings and what it cost (:meth:`_cost`); ``contexts``
        holds the run's context once its credentials were resolved (empty before)."""
        elapsed = int((self.clock() - started) * 1000)
        first = int((tracker.first_event - started) * 1000) if tracker.first_event is not None else None
        builder.response.elapsed_ms = elapsed
        builder.response.first_event_ms = first
        cost = self._cost(provider_id, status, builder.response, first is not None, contexts)
        paced = int(tracker.waited * 1000)
        return ProviderOutcome(provider_id, status, builder.response, error, elapsed, first, cost=cost, paced_ms=paced)

    def _cost(
        self,
        provider_id: str,
        status: RunStatus,
        response: SearchResponse,
        answered: bool,
        contexts: Sequence[ProviderContext],
    ) -> Cost:
        """What one run cost, worked out once at its end (never per token): the provider's reported
        figure, else $0 for a run of a provider that can run keyless and sent no credential
        (``"keyless"``, :func:`~websearch_tui.engine.cache_keys.runs_keyless`), else its price's
        estimate (:func:`~websearch_tui.core.prices.price_for`: ``[providers.X] price``, else the
        public price of the model it asked for), else an ``"unknown"`` $0.

        A run that failed or was cancelled before its first event costs $0 (``"estimated"``):
        providers bill answered requests, not errors (Brave, Linkup and Perplexity's price lists say
        so); a timeout or a cancel before the answer is counted the same way, although a provider
        that finished the work may still bill it. A run that ended after answering in part is
        estimated from what arrived.
        """
        ctx = contexts[0] if contexts else None
        spec = SPECS[provider_id]
        keyless = runs_keyless(spec, ctx.credentials if ctx is not None else {})
        if ctx is None or (not answered and status in (RunStatus.FAILED, RunStatus.CANCELLED)):
            return Cost(0.0, "keyless" if keyless else "estimated")
        from websearch_tui.core.prices import price_for  # the price table, at the first run that answered

        price = price_for(spec, ctx.settings)
        return cost_of(price, response, keyless=keyless)


class _RunKey:
    """One provider run's cache key and where its outcome goes: :meth:`record` sets the key on the
    outcome (when one is known) before handing it on.

    Args:
        key: the key worked out before the search (``None``: not yet).
        work_out: ``credentials -> key`` (``None``: the run gets no key, a probe).
        record: where the outcome goes next (``None``: nowhere).
    """

    def __init__(
        self,
        key: str | None,
        work_out: Callable[[ResolvedCredentials], str] | None,
        record: Callable[[ProviderOutcome], None] | None,
    ) -> None:
        self.key = key
        self._work_out = work_out
        self._record = record

    def resolved(self, credentials: ResolvedCredentials) -> None:
        """The run's credentials are known: work its key out, unless it is known already."""
        if self.key is None and self._work_out is not None:
            self.key = self._work_out(credentials)

    def record(self, outcome: ProviderOutcome) -> None:
        """Give ``outcome`` the run's key (if known) and hand it on."""
        if self.key is not None and self._work_out is not None:
            outcome.cache_key = self.key
        if self._record is not None:
            self._record(outcome)


class _Tracker:
    """One run's link to its front end: folds events into the run's response and reports each change
    as a :class:`ProviderUpdate` (the retry wait included)."""

    def __init__(self, run: _Run, provider_id: str, builder: ResponseBuilder) -> None:
        self._run = run
        self._provider = provider_id
        self._builder = builder
        self.current = RunStatus.RUNNING
        self.first_event: float | None = None
        self.waited = 0.0
        """Seconds the run waited for its pacing slot before it sent anything."""

    def _send(
        self,
        event: SearchEvent | None = None,
        error: ProviderError | None = None,
        retry: RetryWait | None = None,
        paced: float | None = None,
    ) -> None:
        update = ProviderUpdate(
            self._run.search_id, self._provider, self.current, self._builder.response, event, error, retry, paced
        )
        self._run.notify(update)

    def status(self, status: RunStatus, error: ProviderError | None = None) -> None:
        """The run's status changed (``error`` with ``FAILED``)."""
        self.current = status
        self._send(error=error)

    def event(self, event: SearchEvent) -> None:
        """Fold ``event`` into the response and report it (sanitized and redacted, as folded)."""
        self._send(self._builder.apply(event))

    def finish(self) -> None:
        """The stream ended: report the answer text the reducer held back, if any."""
        held = self._builder.finish()
        if held is not None:
            self._send(held)

    def paced(self, delay: float, note: str) -> None:
        """The run waits ``delay`` seconds for its pacing slot: ``note`` (why) is folded into the
        response and reported with the wait."""
        self._send(self._builder.apply(Note(note)), paced=delay)

    def retrying(self, delay: float, reason: str, attempt: int) -> None:
        """The shared HTTP layer waits ``delay`` seconds before resending (see ``RetryReporter``)."""
        self._send(retry=RetryWait(delay, reason, attempt))

    def resent(self) -> None:
        """The wait is over and the request is sent again: the current status, without the wait."""
        self._send()


def paced_message(spec: ProviderSpec, delay: float, interval: float) -> str:
    """The note of a run held back by client-side pacing (``delay`` and ``interval`` in seconds)."""
    return (
        f"{PACED_NOTE_START}{delay:.1f} s: {spec.label} is paced to one request every {interval:g} s "
        f"in this process ([providers.{spec.id}] min_interval)."
    )


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
        return lambda update: None

    def notify(update: ProviderUpdate) -> None:
        try:
            on_update(update)
        except Exception:
            log.exception("on_update callback failed for %s", update.provider)

    return notify


def _end_unfinished(result: SearchResult, run: _Run, status: RunStatus, *, record: bool) -> None:
    """Report ``status`` for the providers of ``result`` whose run never ended (cancelled before it
    began, or not reached by auto mode); with ``record`` also give each an outcome (with its cache
    key when ``run.keys`` knows it)."""
    ended = {outcome.provider for outcome in result.outcomes}
    keys = run.keys.keys if run.keys is not None else {}
    for pid in result.providers:
        if pid in ended:
            continue
        response = SearchResponse(provider=pid)
        if record:
            result.outcomes.append(ProviderOutcome(pid, status, response, cache_key=keys.get(pid)))
        run.notify(ProviderUpdate(result.search_id, pid, status, response))


async def _run_all(runs: list[Coroutine[object, object, ProviderOutcome]]) -> list[ProviderOutcome]:
    """Await every run concurrently; if one raises (a cancel), cancel and await the rest first."""
    tasks = [asyncio.ensure_future(run) for run in runs]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
