"""The application: what a user can do, whichever front end they use.

A :class:`Session` holds one config and one engine and owns everything a front end would otherwise
keep for itself: starting a search and cancelling it, retrying the providers that failed (their new
outcomes merged into the search on screen), the progress of the search in flight, private mode,
the back/forward trail of this session's searches, reopening a search from the history, the
history itself (:class:`~websearch_tui.session.history.HistoryAccess`) and every provider's
readiness. The TUI, the CLI, the MCP server and the Python API render what it holds and collect
input; none of them reaches into the engine's key store or recorder.

A search runs in two steps so that a front end can lay out its panes before the first update:
:meth:`Session.begin` (or :meth:`Session.begin_retry`) returns a :class:`LiveSearch` that knows
its search id and providers, and :meth:`Session.run` runs it. :meth:`Session.search` does both.

Before a search sends anything, :meth:`Session.run` reuses what the history holds for the same
question (the cache, :mod:`websearch_tui.session.cache`; not for a fresh search, a retry or in
private mode), and a front end may ask :meth:`Session.budget_check` whether it would pass a
configured budget (:mod:`websearch_tui.session.budget`). While a provider waits for its pacing slot,
:meth:`LiveSearch.progress_text` says so (``waiting 0.8 s: Exa allows one search per second``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import redact
from websearch_tui.core.models import SearchResponse
from websearch_tui.core.pages import PageError, PageReason, utc_now
from websearch_tui.core.records import record
from websearch_tui.core.results import ProviderOutcome, ProviderUpdate, RunStatus, SearchResult
from websearch_tui.core.specs import ProviderSettings, ProviderSpec
from websearch_tui.history import HistoryError, history_path
from websearch_tui.session.budget import BudgetOverrun, over_budget
from websearch_tui.session.cache import SearchPlan, plan_search
from websearch_tui.session.history import HistoryAccess
from websearch_tui.session.trail import SessionTrail, Shown

if TYPE_CHECKING:
    from websearch_tui.core.models import SearchRequest
    from websearch_tui.core.pages import Page
    from websearch_tui.engine.engine import Engine
    from websearch_tui.history import StoredSearch
    from websearch_tui.reader import Reader
    from websearch_tui.secrets.credentials import KeyStore
    from websearch_tui.settings.config import Config

log = logging.getLogger(__name__)

StatusResolver = Callable[[ProviderSpec, ProviderSettings], str]
"""Blocking ``(spec, settings) -> "ready" | "keyless" | "needs key" | ...``
(:data:`~websearch_tui.core.specs.READINESS`)."""

OnUpdate = Callable[[ProviderUpdate], None]
"""Called on the event loop with every update of a running search."""

ReadPage = Callable[[str], Awaitable["Page"]]
"""``read(url) -> Page``: how the citation check reads a page (raises ``PageError``)."""

VERIFY_CONCURRENCY = 4
"""The most pages the citation check reads at once, over all providers."""
OFFLINE_REASONS = frozenset({PageReason.NETWORK, PageReason.TIMEOUT})
"""The read failures after which a stale page kept in the history is returned instead (offline)."""


class NothingToRetry(Exception):
    """:meth:`Session.begin_retry` found nothing to run again; the message says why."""


def pace_text(interval: float) -> str:
    """How often a provider is searched at most, for a reader: ``"one search per second"`` (1 s),
    ``"two searches per second"`` (0.5 s), ``"10 searches per second"`` (0.1 s), ``"one search
    per minute"`` (60 s), else ``"one search every 2.5 s"`` (``interval`` in seconds, above 0)."""
    rate = 1 / interval if interval > 0 else 0.0
    if interval <= 1 and rate and abs(rate - round(rate)) < 1e-6:
        count = round(rate)
        return "one search per second" if count == 1 else f"{_COUNT_WORDS.get(count, str(count))} searches per second"
    if interval == 60:
        return "one search per minute"
    return f"one search every {interval:g} s"


_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


def pacing_notice(label: str, delay: float, interval: float) -> str:
    """What a provider held back by client-side pacing says where the user waits: ``"waiting 0.8 s:
    Exa allows one search per second"`` (``delay`` seconds left, shown to a tenth and at least 0.1;
    ``interval`` the seconds kept between its searches; without one, ``"waiting 0.8 s: Exa is
    paced"``)."""
    wait = f"waiting {max(delay, 0.1):.1f} s: {label}"
    return f"{wait} allows {pace_text(interval)}" if interval > 0 else f"{wait} is paced"


@record(eq=False)
class LiveSearch:
    """A search started in this session: the engine's ``result`` (filled in as providers finish),
    the providers whose run has ended (``done``) and, for a retry, the search on screen it re-runs
    some providers of (``into``: their new outcomes replace the failed ones when it ends)."""

    result: SearchResult
    into: SearchResult | None = None
    done: set[str] = field(default_factory=set)
    ended: bool = False
    task: asyncio.Task[Any] | None = None
    """The task running it (:meth:`Session.run`), while it runs."""
    checking: set[str] | None = None
    """While its citations are checked: the providers whose citations are checked so far."""
    fresh: bool = False
    """Every provider sends its request: nothing is reused from the history (the cache)."""
    intervals: Mapping[str, float] = field(default_factory=dict)
    """Provider id -> seconds its pacing keeps between searches (0 or absent: not paced)."""
    clock: Callable[[], float] = time.monotonic
    """The monotonic clock (seconds) pacing waits are counted down with."""
    paced: dict[str, float] = field(default_factory=dict)
    """Provider id -> when (:attr:`clock`) the pacing wait it is in ends."""

    @property
    def search_id(self) -> int:
        """The engine's id for this search: every update it sends carries it."""
        return self.result.search_id

    @property
    def shown(self) -> SearchResult:
        """The search on screen: ``into`` for a retry, else ``result``."""
        return self.into if self.into is not None else self.result

    def owns(self, update: ProviderUpdate) -> bool:
        """True when ``update`` belongs to this search (a cancelled one may still be unwinding)."""
        return update.search_id == self.result.search_id

    def note(self, update: ProviderUpdate) -> None:
        """Count ``update`` toward the progress when it ends a provider's run of this search; keep
        when a pacing wait it starts ends (any later update of that provider ends the wait)."""
        if not self.owns(update):
            return
        if update.paced is not None:
            self.paced[update.provider] = self.clock() + update.paced
        else:
            self.paced.pop(update.provider, None)
        if update.final:
            self.done.add(update.provider)

    def pacing_notice(self, provider_id: str, delay: float) -> str:
        """``"waiting 0.8 s: Exa allows one search per second"`` for ``provider_id`` waiting ``delay``
        seconds for its pacing slot (:func:`pacing_notice`)."""
        return pacing_notice(self.result.label(provider_id), delay, self.intervals.get(provider_id, 0.0))

    def progress_text(self) -> str:
        """``"3/6 done · waiting for Exa, Kagi"``: as every front end shows the search in flight, with
        the providers held back by pacing first (``"0/2 done · waiting 0.8 s: Exa allows one search
        per second · waiting for Exa, Brave"``, the seconds left as of now); then, while citations
        are checked, ``"Checking citations: 1/3 providers"``."""
        if self.checking is not None:
            citing = sum(1 for o in self.result.outcomes if o.response.citations)
            return f"Checking citations: {len(self.checking)}/{citing} providers"
        line = self.result.progress_text(self.done)
        now = self.clock()
        waits = [self.pacing_notice(pid, end - now) for pid, end in self.paced.items() if end > now]
        if not waits:
            return line
        count, _, rest = line.partition(" · ")
        return " · ".join([count, *waits, *([rest] if rest else [])])

    def summary_text(self) -> str:
        """The ended search's one-line summary (for a retry: of the search on screen)."""
        return self.shown.summary().text()


class Session:
    """One user's session of searches over ``engine`` with ``config``.

    Args:
        config: the loaded settings.
        engine: runs the providers and records ended searches; :meth:`aclose` closes it.
        trail: this session's searches for back and forward (default: an empty one of 100).
    """

    def __init__(
        self,
        config: Config,
        engine: Engine,
        *,
        trail: SessionTrail | None = None,
    ) -> None:
        self.config = config
        self.engine = engine
        self.private = False
        self.trail = trail or SessionTrail()
        self.history = HistoryAccess.of(config, engine.recorder)
        self._live: LiveSearch | None = None
        self._reader: Reader | None = None

    @classmethod
    def from_config(cls, config: Config, **kwargs: Any) -> Session:
        """A session with its own engine for ``config`` (keys from the environment, the OS keyring
        or the key file; the history as configured); keyword arguments as :class:`Session`."""
        from websearch_tui.engine.engine import Engine

        return cls(config, Engine.from_config(config), **kwargs)

    async def aclose(self) -> None:
        """Close the engine (its connections; the recorder writes what it holds), the page reader and
        the history file."""
        await self.engine.aclose()
        if self._reader is not None:
            await self._reader.aclose()
            self._reader = None
        await asyncio.to_thread(self.history.close)

    def use_config(self, config: Config) -> None:
        """Use newly saved settings: the engine's (providers, timeout, history recorder), the history
        file ``[history]`` names (the same :attr:`history` object follows it, releasing the previous
        file) and, from the next page read, the ``[reader]`` table."""
        self.config = config
        self.engine.reconfigure(config)
        self.history.retarget(
            history_path(config.history.path), enabled=config.history.enabled, recorder=self.engine.recorder
        )

    def history_notices(self, notice: Callable[[str], None] | None) -> None:
        """Tell ``notice`` (from any thread) what the history has to say: a damaged file moved aside,
        searches that could not be recorded (``None``: log them instead)."""
        self.engine.history_notice = notice

    # --- the catalogue and readiness ---------------------------------------------------------

    @property
    def key_store(self) -> KeyStore:
        """Where the keys are kept (the Settings screen stores and deletes through it)."""
        return self.engine.key_store

    @property
    def timeout(self) -> float:
        """Seconds a provider's run may take before it ends ``timeout``."""
        return self.engine.timeout

    def readiness(
        self,
        provider_ids: Sequence[str] | None = None,
        *,
        config: Config | None = None,
        resolver: StatusResolver | None = None,
    ) -> dict[str, str]:
        """Provider id -> readiness (``"ready"``, ``"keyless"``, ``"needs key"``, ``"disabled"``, ...)
        for ``provider_ids`` (default: every provider in catalogue order) under ``config`` (default:
        the session's; the Settings screen passes the one being edited), as the key store says
        (:meth:`KeyStore.status <websearch_tui.secrets.credentials.KeyStore.status>`) or ``resolver``.
        A resolver that fails says ``"unknown"``: readiness is informative and never stops anything.
        Blocking (the key store may ask the OS keyring): call it from a thread in async code."""
        resolve = resolver or self.engine.key_store.status
        config = config or self.config
        statuses = {}
        for pid in provider_ids if provider_ids is not None else SPECS:
            try:
                statuses[pid] = resolve(SPECS[pid], config.settings_for(pid))
            except Exception:  # informative only: one broken store never hides the others
                statuses[pid] = "unknown"
        return statuses

    async def probe(
        self, provider_id: str, config: Config, *, typed: Mapping[str, str], on_update: OnUpdate | None = None
    ) -> ProviderOutcome:
        """One small test search of ``provider_id`` with its settings in ``config`` (saved or not) and
        the stored keys overlaid with ``typed`` (never stored): the Settings screen's Test (see
        :meth:`Engine.probe <websearch_tui.engine.engine.Engine.probe>`; never raises for a provider
        failure, which is in ``outcome.error``)."""
        return await self.engine.probe(
            provider_id,
            config.settings_for(provider_id),
            typed=typed,
            timeout=config.search.timeout,
            max_body_bytes=int(config.search.max_body_mib * 1024 * 1024),
            on_update=on_update,
        )

    # --- searching ---------------------------------------------------------------------------

    @property
    def live(self) -> LiveSearch | None:
        """The search whose updates are routed to the screen (``None`` after :meth:`leave`)."""
        return self._live

    @property
    def searching(self) -> bool:
        """True while the live search (the one on screen) runs."""
        live = self._live
        return live is not None and live.task is not None and not live.task.done()

    def begin(self, request: SearchRequest, *, remember: bool = True, fresh: bool = False) -> LiveSearch:
        """A new search for ``request``, not started yet. With ``remember`` (a screen's searches) it
        becomes the live search and the newest one of the trail; without (the MCP server's and the
        Python API's calls, several at once) it is only returned. The previous live search, if still
        running, is the caller's to cancel first. With ``fresh`` every provider sends its request:
        nothing is reused from the history (``search --fresh``, MCP ``fresh=true``, the TUI's fresh
        search).

        Raises:
            ValueError: a provider id that is not registered (:meth:`Engine.prepare`).
        """
        live = self._live_search(self.engine.prepare(request), fresh=fresh)
        if remember:
            self._live = live
            self.trail.push(Shown(live.result, datetime.now(timezone.utc)))
        return live

    def failed(self) -> list[str]:
        """The providers of the search on screen whose run failed, in its order."""
        shown = self.trail.current
        if shown is None:
            return []
        return [o.provider for o in shown.result.outcomes if o.status is RunStatus.FAILED]

    def begin_retry(self, providers: Sequence[str] | None = None) -> LiveSearch:
        """Run ``providers`` (default: every one that failed) of the search on screen again, with its
        query and controls. It is a search of its own for the engine and the history; its outcomes
        replace the failed ones in the search on screen when it ends.

        Raises:
            NothingToRetry: a search is running, or no provider on screen failed.
        """
        shown = self.trail.current
        failed = [pid for pid in self.failed() if providers is None or pid in providers]
        if self.searching:
            raise NothingToRetry("wait for the search to end (or Esc)")
        if shown is None or not failed:
            raise NothingToRetry("no provider on screen failed")
        into = shown.result
        retry = self.engine.prepare(dataclasses.replace(into.request, providers=tuple(failed)))
        into.outcomes = [o for o in into.outcomes if o.provider not in failed]
        retry.retry_of = tuple(into.outcomes)
        self._live = self._live_search(retry, into=into, fresh=True)  # a retry always sends again
        return self._live

    def _live_search(self, result: SearchResult, *, into: SearchResult | None = None, fresh: bool) -> LiveSearch:
        """A :class:`LiveSearch` of ``result`` knowing each provider's pacing interval."""
        intervals = {pid: self.engine.min_interval(pid) for pid in result.providers}
        return LiveSearch(result, into=into, fresh=fresh, intervals=intervals)

    async def run(
        self,
        live: LiveSearch,
        on_update: OnUpdate | None = None,
        *,
        record: bool = True,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        verify: bool = False,
        on_checked: Callable[[str | None], None] | None = None,
    ) -> SearchResult:
        """Run ``live`` to its end and return the search on screen (:attr:`LiveSearch.shown`).

        First the cache: unless ``live`` is fresh or private mode is on, each provider whose result the
        history holds for the same question, within its time to live, is reused instead of run
        (:mod:`websearch_tui.session.cache`; the lookup runs in a worker thread). Every update is
        counted toward ``live``'s progress, then handed to ``on_update``. With
        ``verify`` every citation is then checked against its page (:meth:`verify`; ``live.checking``
        collects the providers done; ``on_checked(None)`` hears that checking starts, then
        ``on_checked(provider_id)`` of each provider done). The search is
        recorded in the history (with its checks) unless ``record`` is False or private mode is on.
        ``options``: provider options for this search only (:meth:`Engine.search`).

        Raises:
            asyncio.CancelledError: when cancelled (:meth:`cancel`); the runs that had not ended are
                ``cancelled`` in ``live.result`` (and merged, for a retry) before it propagates; a
                search cancelled while its citations are checked is recorded with the checks it has.
        """

        def update(event: ProviderUpdate) -> None:
            live.note(event)
            if on_update is not None:
                on_update(event)

        live.task = asyncio.current_task()
        record = record and not self.private
        try:
            plan = await self._plan(live, options, update)
            await self.engine.search(
                live.result.request,
                update,
                result=live.result,
                record=record and not verify,
                options=options,
                reuse=plan.reuse,
                keys=plan.keys,
            )
            if verify:
                await self._check(live, on_checked)
        finally:
            if verify and record and live.result.providers:
                self.engine.record(live.result)
            live.ended, live.task = True, None
            if live.into is not None:
                merge_outcomes(live.into, live.result)
        return live.shown

    async def _plan(
        self, live: LiveSearch, options: Mapping[str, Mapping[str, Any]] | None, update: OnUpdate
    ) -> SearchPlan:
        """``live``'s :class:`~websearch_tui.session.cache.SearchPlan` (cache keys, results reused),
        worked out in a worker thread; reading the history only when ``live`` is not fresh and
        private mode is off.

        Raises:
            asyncio.CancelledError: cancelled before anything was sent: every provider is reported
                ``cancelled`` (to ``update``, and as an outcome of ``live.result``) first.
        """
        result = live.result
        try:
            return await asyncio.to_thread(
                plan_search,
                self.engine,
                self.history,
                self.config,
                result.request,
                result.providers,
                options=options,
                read=not live.fresh and not self.private,
                now=datetime.now(timezone.utc),
            )
        except asyncio.CancelledError:
            for pid in result.providers:
                response = SearchResponse(provider=pid)
                result.outcomes.append(ProviderOutcome(pid, RunStatus.CANCELLED, response))
                update(ProviderUpdate(result.search_id, pid, RunStatus.CANCELLED, response))
            raise

    async def budget_check(
        self,
        request: SearchRequest,
        *,
        fresh: bool = False,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> BudgetOverrun | None:
        """Whether searching ``request`` now (``fresh`` and ``options`` as the search would run) would
        pass a ``[budget]`` (:func:`~websearch_tui.session.budget.over_budget`): the first budget it
        would pass, daily before monthly, or ``None``. Without a budget configured it is ``None`` at
        once, the history untouched. The estimate counts the providers that would send a billed
        request (not reused from the history, not keyless); the history is read in a worker thread,
        and one that is off or cannot be read counts as nothing spent. The TUI asks before such a
        search, the CLI refuses it unless ``--over-budget``, MCP answers a tool error.

        Raises:
            ValueError: a provider id that is not registered (as :meth:`begin`).
        """
        budget = self.config.budget
        if budget.daily is None and budget.monthly is None:
            return None
        providers = self.engine.selection(request)
        now = datetime.now(timezone.utc)
        read = not fresh and not self.private

        def check() -> BudgetOverrun | None:
            plan = plan_search(
                self.engine, self.history, self.config, request, providers, options=options, read=read, now=now
            )
            return over_budget(self.config, self.history, request, providers, plan, now=now)

        return await asyncio.to_thread(check)

    async def _check(self, live: LiveSearch, on_checked: Callable[[str | None], None] | None) -> None:
        """Check ``live``'s citations, counting the providers done in ``live.checking``."""
        checked = live.checking = set()

        def done(provider_id: str) -> None:
            checked.add(provider_id)
            if on_checked is not None:
                on_checked(provider_id)

        if on_checked is not None:
            on_checked(None)

        await self.verify(live.result, on_checked=done)

    async def search(
        self,
        request: SearchRequest,
        on_update: OnUpdate | None = None,
        *,
        record: bool = True,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        verify: bool = False,
        remember: bool = True,
        fresh: bool = False,
    ) -> SearchResult:
        """:meth:`begin` (``remember`` and ``fresh`` as there) and :meth:`run` in one: what the CLI,
        the MCP server and the Python API do.
        With ``verify``, every citation is then checked (:meth:`verify`) and the search is recorded
        with its checks.

        Raises:
            ValueError: as :meth:`begin`; asyncio.CancelledError: as :meth:`run` (a search cancelled
                while its citations are checked is recorded with the checks it has).
        """
        live = self.begin(request, remember=remember, fresh=fresh)
        return await self.run(live, on_update, record=record, options=options, verify=verify)

    def cancel(self) -> bool:
        """Cancel the live search (the one on screen) if it runs; True when there was one to cancel."""
        task = self._live.task if self._live is not None else None
        if task is None or task.done():
            return False
        task.cancel()
        return True

    def leave(self) -> None:
        """Stop routing updates to the screen: a search shown from the trail or the history is not live."""
        self._live = None

    # --- reading pages and checking citations ------------------------------------------------

    @property
    def reader(self) -> Reader:
        """The page reader of this session (``[reader]``: the SSRF guard's allowed hosts, the body
        cap, the timeout), created on first use and closed by :meth:`aclose`."""
        if self._reader is None:
            from websearch_tui.reader import Reader

            self._reader = Reader(self.config.reader)
        return self._reader

    @property
    def keeps_pages(self) -> bool:
        """True when pages read are kept in the history and read back from it: the history is on
        (``[history] enabled``) and private mode is off."""
        return self.history.enabled and not self.private

    async def read_page(self, url: str, *, fresh: bool = False) -> Page:
        """``url``'s main content: the copy kept in the history when there is one younger than
        ``[reader] max_age`` seconds (no network; its ``from_history`` is True and ``retrieved_at``
        says when it was read), else a read (:meth:`Reader.read <websearch_tui.reader.Reader.read>`)
        that is then kept in the history, replacing the older copy. ``fresh`` skips the kept copy
        (the page is read, then kept). When a read fails for the network (``network``, ``timeout``:
        :data:`OFFLINE_REASONS`) and an older copy is kept, that copy is returned instead (``fresh``:
        never).

        Pages are kept only while :attr:`keeps_pages` (the history on, private mode off): in private
        mode the history is neither read nor written. A kept copy is looked up by the URL as the
        reader normalises it (host in lower case, path percent-encoded), matching the URL it was read
        for or else its final URL. It is not used when the reader's address guard, as configured now,
        refuses its URL or final URL by what is known without the network (an IP address that is not
        public and not in ``[reader] allow_private``, a cloud metadata host name): the page is then
        read, and refused, as any other. The history file is read and written in a worker thread,
        never on the event loop; a history that cannot be read or written is logged and the page read
        from the network as if none were kept.

        Raises:
            PageError: the page cannot be read; the reason says why (blocked, HTTP status, ...).
        """
        stored: Page | None = None
        address = _reader_url(url)
        if self.keeps_pages and not fresh and address is not None:
            stored = await asyncio.to_thread(self._kept_page, address)
            if stored is not None and not self._may_reuse(stored):
                stored = None
            if stored is not None and self._young(stored):
                return stored
        try:
            page = await self.reader.read(url)
        except PageError as exc:
            if stored is not None and exc.reason in OFFLINE_REASONS:
                log.info("reading %s failed (%s): the copy kept in the history is used", redact(url), exc.reason.value)
                return stored
            raise
        if self.keeps_pages:  # private mode may have been turned on while the page was read
            await asyncio.to_thread(self._keep_page, page)
        return page

    def _young(self, page: Page) -> bool:
        """True when ``page`` was read less than ``[reader] max_age`` seconds ago (not in the future)."""
        age = (utc_now() - page.retrieved_at).total_seconds()
        return 0 <= age < self.config.reader.max_age

    def _may_reuse(self, page: Page) -> bool:
        """True unless the address guard, as ``[reader] allow_private`` says now, refuses ``page``'s
        URL or final URL by what is known offline (a literal address, a metadata host name): a copy
        read while a private host was allowed is not shown once it no longer is."""
        from websearch_tui.reader.guard import AddressPolicy, check_url

        try:
            policy = AddressPolicy(self.config.reader.allow_private)
            for url in {page.url, page.final_url}:
                host = check_url(url).host
                policy.check(host, [ipaddress.ip_address(host)] if _is_address(host) else [])
        except (PageError, ValueError):
            return False
        return True

    def _kept_page(self, url: str) -> Page | None:
        """The page the history keeps for ``url`` (blocking); ``None`` also when it cannot be read."""
        import sqlite3  # with the history's store, which reading a page opens

        try:
            return self.history.page(url)
        except (HistoryError, sqlite3.Error) as exc:  # closed meanwhile by aclose: sqlite3.ProgrammingError
            log.warning("a page kept in the history could not be read: %s", exc)
            return None

    def _keep_page(self, page: Page) -> None:
        """Keep ``page`` in the history (blocking); a failure is logged, never raised."""
        import sqlite3

        try:
            kept = self.history.add_page(page, max_bytes=self.config.reader.max_bytes)
        except (HistoryError, sqlite3.Error) as exc:
            log.warning("a page read was not kept in the history: %s", exc)
            return
        if not kept:
            log.info("%s is longer than [reader] max_bytes: not kept in the history", redact(page.url))

    async def verify(
        self,
        result: SearchResult,
        *,
        read: ReadPage | None = None,
        on_checked: Callable[[str], None] | None = None,
        concurrency: int = VERIFY_CONCURRENCY,
    ) -> None:
        """Check every citation of ``result`` against the page it cites and attach the
        :class:`~websearch_tui.core.checks.CitationCheck` to it (``citation.check``), provider by
        provider as each one's pages are read (``on_checked(provider_id)`` then). Each URL is read
        once for the whole search (``read``, default :meth:`read_page`: a page the history keeps,
        younger than ``[reader] max_age``, is not fetched again, so a reopened search is checked
        offline), at most ``concurrency`` pages at a time; matching runs in worker threads
        (:func:`websearch_tui.verify.verify_response`).

        Raises:
            asyncio.CancelledError: when cancelled (citations checked so far keep their checks).
        """
        from websearch_tui.verify.check import verify_response

        gate = asyncio.Semaphore(concurrency)
        pages: dict[str, asyncio.Future[Page]] = {}
        reader = read or self.read_page

        async def read_once(url: str) -> Page:
            if url not in pages:
                pages[url] = asyncio.ensure_future(_gated(gate, reader(url)))
            return await asyncio.shield(pages[url])

        async def check(outcome: ProviderOutcome) -> None:
            response = outcome.response
            checks = await verify_response(response, read_once, concurrency=concurrency)
            response.citations = [
                dataclasses.replace(citation, check=checks.get(index, citation.check))
                for index, citation in enumerate(response.citations)
            ]
            if on_checked is not None:
                on_checked(outcome.provider)

        try:
            await asyncio.gather(*(check(o) for o in result.outcomes if o.response.citations))
        finally:
            for future in pages.values():
                future.cancel()

    # --- the trail and the history -----------------------------------------------------------

    @property
    def shown(self) -> Shown | None:
        """The search on screen (the trail's current one)."""
        return self.trail.current

    def back(self) -> Shown | None:
        """The previous search of this session (``None`` at the first); it is on screen now."""
        return self.trail.back()

    def forward(self) -> Shown | None:
        """The next search of this session (``None`` at the newest); it is on screen now."""
        return self.trail.forward()

    def reopen(self, stored: StoredSearch) -> Shown:
        """A search from the history, shown as it ended (offline): the newest one of the trail."""
        shown = Shown(stored.result, stored.entry.created_at, from_history=True)
        self.trail.push(shown)
        self.leave()
        return shown

    def toggle_private(self) -> bool:
        """Private mode on or off; returns the new state. While on, nothing is recorded."""
        self.private = not self.private
        return self.private


def _reader_url(url: str) -> str | None:
    """``url`` as the reader normalises it (what a kept page's ``url`` holds), or ``None`` when the
    reader would refuse it (``bad_url``: the read then says why)."""
    from websearch_tui.reader.guard import check_url

    try:
        return str(check_url(url))
    except PageError:
        return None


def _is_address(host: str) -> bool:
    """True when ``host`` is an IP address rather than a name."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


async def _gated(gate: asyncio.Semaphore, read: Awaitable[Page]) -> Page:
    """``await read`` while holding one of ``gate``'s places."""
    async with gate:
        return await read


def rerun_request(result: SearchResult) -> SearchRequest:
    """``result``'s request with the providers it ran (also when its request named none and the
    default selection ran) that this version still knows: what running a past search again sends
    (none known: the default selection)."""
    return dataclasses.replace(result.request, providers=tuple(pid for pid in result.providers if pid in SPECS))


def merge_outcomes(into: SearchResult, retried: SearchResult) -> None:
    """Put ``retried``'s outcomes into ``into`` in place of the same providers' (in ``into``'s order);
    ``into``'s winner and error follow."""
    again = {o.provider for o in retried.outcomes}
    outcomes = [o for o in into.outcomes if o.provider not in again] + retried.outcomes
    order = {pid: index for index, pid in enumerate(into.providers)}
    into.outcomes = sorted(outcomes, key=lambda o: order.get(o.provider, len(order)))
    into.winner = into.winner or retried.winner
    into.error = None if into.ok else into.combined_error()


def ended_outcome(result: SearchResult, provider_id: str) -> ProviderOutcome:
    """How ``provider_id``'s run in ``result`` ended (``SKIPPED`` when auto mode stopped before it)."""
    outcome = result.outcome(provider_id)
    return outcome or ProviderOutcome(provider_id, RunStatus.SKIPPED, SearchResponse(provider_id))


def recency_notice(specs: Sequence[ProviderSpec], recency: str | None) -> str | None:
    """Before sending: which of ``specs`` cannot honour ``recency`` (``None`` for any time)."""
    if recency is None:
        return None
    ignoring = [spec.label for spec in specs if not spec.capabilities.recency]
    prompting = [spec.label for spec in specs if spec.capabilities.recency_in_prompt]
    parts = []
    if ignoring:
        parts.append(f"ignored by {', '.join(ignoring)}")
    if prompting:
        parts.append(f"only asked in the prompt by {', '.join(prompting)}")
    if parts:
        return f"Recency '{recency}' is {'; '.join(parts)} (results are not date-filtered)."
    return f"Recency '{recency}' applies to every selected provider."
