"""Cancellation under load: all providers against the loopback fake, a search cancelled at random moments.

Every provider (all of ``SPECS``) runs against the fake server, whose answers drip slowly: bodies
and streams arrive in small chunks with a pause between them, and one provider's answers are held
longer than the cancel window, so every search is still running when it is cancelled. DuckDuckGo
runs in library mode, its blocking call (a real request to the fake's HTML endpoint) in a worker
thread, as the ``ddgs`` library does.

``Engine.search`` (compare mode) runs as a task and is cancelled at a seeded random moment, 50 times on one engine.
After each cancel: no asyncio task is left but the test's own, no thread is left beyond the
baseline (the event loop's idle executor workers aside; a worker thread gets a bounded wait to
finish its blocking call), no pooled connection is mid-request, every provider ended ``CANCELLED``
or ``DONE`` and none reported ``FAILED``. After ``aclose()`` the pool is empty.

httpcore 1.0.9 leaves a connection in its pool forever in two cancel windows, and the shared
client's pool repairs both; each is pinned down on its own, deterministically:

- a request cancelled after connecting but before sending (encode/httpcore#1093):
  :func:`test_cancel_between_connect_and_send_leaves_no_connection`;
- a response whose close is cancelled while it waits for the connection's state lock, e.g. just as
  a fully read body closes itself (encode/httpcore#1115): its request stays in the pool, owning an
  ``ACTIVE`` connection. This is what made the load test fail about once in ten runs on a busy
  2-core machine (an ``/exa/mcp`` connection, body read to the end):
  :func:`test_cancel_as_the_body_ends_leaves_no_connection` and
  :func:`test_a_second_cancel_while_a_held_response_closes_leaves_no_connection`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fake_providers import FAKE_KEYS, PROVIDERS, FakeServer
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.results import ProviderUpdate, RunStatus
from websearch_tui.core.specs import ProviderSettings, ProviderSpec
from websearch_tui.engine.engine import Engine
from websearch_tui.providers import ddgs
from websearch_tui.providers.transport.http import build_client, client_pools
from websearch_tui.settings.config import load_config

RUNS = 50
SEED = 6
DRIP_SECONDS = 0.01
"""Pause between two chunks of every body and stream (chunks of :data:`CHUNK_BYTES`)."""
CHUNK_BYTES = 256
HELD = ("/jina/", 5.0)
"""A path prefix whose answers are held this many seconds: no search can end before that."""
CANCEL_WINDOW = 0.5
"""Cancel moments are drawn from [0, CANCEL_WINDOW) after the search starts (less than the held time)."""
THREAD_GRACE = 10.0
"""Seconds a worker thread may take to finish its (uninterruptible) blocking call after a cancel."""
EXECUTOR_PREFIX = "asyncio_"
"""Name prefix of the event loop's default-executor workers (credential lookups); idle ones stay."""


def fake_credentials(spec: ProviderSpec) -> dict[str, str]:
    """The fake server's key for ``spec`` (from its env var names), without touching env or keyring."""
    for name in spec.key_env_vars:
        if name in FAKE_KEYS:
            return {spec.credentials[0].name: FAKE_KEYS[name]}
    return {}


def library_over_http(base_url: str) -> Callable[..., list[dict[str, Any]]]:
    """A stand-in for ``ddgs.DDGS().text``: a blocking POST to the fake's DuckDuckGo HTML endpoint,
    parsed into library-style rows (``title``, ``href``, ``body``)."""

    def text(query: str, timeout: int, **kwargs: Any) -> list[dict[str, Any]]:
        response = httpx.post(f"{base_url}/ddgs/html/", data={"q": query}, timeout=timeout)
        return [{"title": s.title, "href": s.url, "body": s.snippet} for s in ddgs.parse_results_page(response.text)]

    return text


@pytest.fixture
def slow_server() -> FakeServer:
    """The fake with every body and stream dripping in small chunks and one provider held back."""
    with FakeServer(token_delay=DRIP_SECONDS) as server:
        for provider in PROVIDERS:
            server.split(provider, every=CHUNK_BYTES, chunk_delay=DRIP_SECONDS)
        server.set_delay(HELD[1], HELD[0])
        yield server


@pytest.fixture
def engine(slow_server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    """An engine with every provider pointed at the slow fake (no client-side pacing, so 50 searches
    in a row are not spaced out), DuckDuckGo in threaded library mode."""
    monkeypatch.setenv("CODEX_HOME", FAKE_KEYS["CODEX_HOME"])
    monkeypatch.setattr(ddgs, "_library_text", library_over_http(slow_server.base_url))
    config = load_config(slow_server.write_config(tmp_path / "config.toml"))
    settings = {pid: dataclasses.replace(config.settings_for(pid), min_interval=0.0) for pid in SPECS}
    settings["ddgs"] = ProviderSettings(min_interval=0.0)  # no base_url: the library path, in a thread
    return Engine(settings=settings, default_providers=tuple(SPECS), timeout=60, resolve_credentials=fake_credentials)


def leftover_threads(baseline: set[threading.Thread]) -> list[threading.Thread]:
    """Live threads that were not running at the baseline, the loop's executor workers aside."""
    return [t for t in threading.enumerate() if t not in baseline and not t.name.startswith(EXECUTOR_PREFIX)]


async def threads_settled(baseline: set[threading.Thread]) -> list[threading.Thread]:
    """Wait (at most :data:`THREAD_GRACE` s) for threads beyond the baseline to end; those still alive."""
    give_up = time.monotonic() + THREAD_GRACE
    while leftover_threads(baseline) and time.monotonic() < give_up:
        await asyncio.sleep(0.05)
    return leftover_threads(baseline)


def busy_connections(engine: Engine) -> list[Any]:
    """Pooled connections of the engine's client that are neither idle nor closed: mid-request, or
    left behind by a cancel (encode/httpcore#1093 and #1115, which the shared client's pool repairs).
    Nothing is left to settle when a cancelled search returns: the pool's bookkeeping is synchronous
    once the cancelled request unwinds, so this is checked at once, without waiting."""
    return [c for pool in client_pools(engine.client) for c in pool.connections if not (c.is_idle() or c.is_closed())]


async def cancelled_search(engine: Engine, delay: float) -> dict[str, list[RunStatus]]:
    """Start a compare search over every provider, cancel it after ``delay`` s and wait for it to
    end; returns the statuses each provider reported through ``on_update``, in order."""
    statuses: dict[str, list[RunStatus]] = defaultdict(list)

    def on_update(update: ProviderUpdate) -> None:
        if update.event is None and update.retry is None:
            statuses[update.provider].append(update.status)

    task = asyncio.create_task(
        engine.search(SearchRequest("python asyncio tutorial", providers=tuple(SPECS)), on_update)
    )
    await asyncio.sleep(delay)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return statuses


async def test_random_cancels_leave_nothing_behind(engine: Engine) -> None:
    warm = await engine.search(SearchRequest("python asyncio tutorial", providers=tuple(SPECS)))
    assert [o.provider for o in warm.outcomes if o.status is not RunStatus.DONE] == [], [o.error for o in warm.outcomes]
    own = asyncio.current_task()
    baseline = set(threading.enumerate())
    moments = random.Random(SEED).sample(range(int(CANCEL_WINDOW * 1000)), RUNS - 1) + [0]  # 0: before any run started
    for run, millis in enumerate(moments):
        statuses = await cancelled_search(engine, millis / 1000)
        where = f"run {run}, cancelled after {millis} ms"
        await asyncio.sleep(0)
        assert asyncio.all_tasks() == {own}, (where, asyncio.all_tasks() - {own})
        assert busy_connections(engine) == [], (where, unsettled(client_pools(engine.client)[0]))
        assert set(statuses) == set(SPECS), where
        failed = {pid: s for pid, s in statuses.items() if RunStatus.FAILED in s}
        assert failed == {}, where
        finals = {pid: s[-1] for pid, s in statuses.items()}
        assert set(finals.values()) <= {RunStatus.CANCELLED, RunStatus.DONE}, (where, finals)
        assert finals["jina"] is RunStatus.CANCELLED, where  # held past the window: always still running
        assert await threads_settled(baseline) == [], where
    pools = client_pools(engine.client)
    await engine.aclose()
    assert all(pool.connections == [] for pool in pools)
    assert not [t for t in threading.enumerate() if t.name == "ddgs-search"]


class CancelAfterConnect:
    """An httpcore network backend that cancels the connecting task right after its TCP connection
    is made: the request is then cancelled between connecting and sending, deterministically."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend

    async def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        stream = await self.backend.connect_tcp(*args, **kwargs)
        asyncio.current_task().cancel()
        return stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)


async def test_cancel_between_connect_and_send_leaves_no_connection() -> None:
    """The shared client's pool must not keep a connection that a cancelled request opened but never used."""
    with FakeServer() as server:
        client = build_client()
        [pool] = client_pools(client)  # the plain-http pool (the TLS one is built on a first https request)
        pool._network_backend = CancelAfterConnect(pool._network_backend)
        try:
            task = asyncio.create_task(client.get(server.url("brave")))
            with pytest.raises(asyncio.CancelledError):
                await task
            assert [c.info() for c in pool.connections] == []
        finally:
            await client.aclose()  # before the server stops: it would find the leftover connection open


def cancel_at(step: str) -> Callable[[str, dict[str, Any]], Any]:
    """An httpcore ``trace`` extension that cancels the request's task when httpcore reaches ``step``
    (e.g. ``"http11.response_closed.started"``): the cancel then lands at httpcore's next await,
    exactly as a cancel that arrives at that moment from outside would."""

    async def trace(event: str, info: dict[str, Any]) -> None:
        if event == step:
            asyncio.current_task().cancel()

    return trace


def unsettled(pool: Any) -> list[str]:
    """The pool's requests and its connections that are neither idle nor closed, described: after a
    cancelled request has returned there must be none."""
    requests = [f"request {r.request.url.target!r} on {r.connection!r}" for r in pool._requests]
    return requests + [c.info() for c in pool.connections if not (c.is_idle() or c.is_closed())]


async def test_cancel_as_the_body_ends_leaves_no_connection() -> None:
    """The load test's window (seen as ``ACTIVE`` connections whose body was read to the end): the
    body has arrived, the response closes itself and the cancel lands while httpcore waits for the
    connection's state lock to mark it idle. httpcore 1.0.9 then never removes the request from the
    pool (encode/httpcore#1115); the shared client's pool finishes that bookkeeping."""
    with FakeServer() as server:
        client = build_client()
        [pool] = client_pools(client)
        try:
            hook = cancel_at("http11.response_closed.started")
            task = asyncio.create_task(client.get(server.url("brave"), extensions={"trace": hook}))
            with pytest.raises(asyncio.CancelledError):
                await task
            assert unsettled(pool) == []
            assert (await client.get(server.url("brave"))).status_code == 404  # still served (no route there)
            assert unsettled(pool) == []
        finally:
            await client.aclose()


async def test_a_second_cancel_while_a_held_response_closes_leaves_no_connection() -> None:
    """A response whose body the fake server holds back is being read when the first cancel lands in
    the reader's own code; closing the response then meets a second cancel (a double cancel, as a
    task group or a second Escape sends) in httpcore's shielded close. The connection must not stay
    in the pool as ``ACTIVE``, owned by a request that will never finish (encode/httpx#3782)."""
    with FakeServer() as server:
        server.split("brave", every=16, chunk_delay=30.0)  # the first piece, then the body is held
        client = build_client()
        [pool] = client_pools(client)
        first_piece = asyncio.Event()

        async def read_slowly() -> None:
            hook = cancel_at("http11.response_closed.started")  # the second cancel
            async with client.stream("GET", server.url("brave"), extensions={"trace": hook}) as response:
                async for _ in response.aiter_raw():
                    first_piece.set()
                    await asyncio.Event().wait()  # the reader's own work, where the first cancel lands

        try:
            task = asyncio.create_task(read_slowly())
            await first_piece.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert unsettled(pool) == []
        finally:
            await client.aclose()
