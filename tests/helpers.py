"""Shared test helpers: shared-fixture lookup, provider contexts on httpx.MockTransport or against
the fake server (with the clock, sleep, jitter and per-provider state a test gives them), sleeps
that return at once, a recording MockTransport handler, event collection, expected seed messages."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.models import ResponseBuilder, SearchEvent, SearchRequest, SearchResponse
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import load_stream
from websearch_tui.providers.base import Clock, ProviderContext, ProviderState, Sleep

REPO_ROOT = Path(__file__).resolve().parents[1]
CHILD_PATH = {"PYTHONPATH": str(REPO_ROOT)}
"""For the environment of a child ``python -m websearch_tui``: this checkout first on its import path
(not whichever copy of the package happens to be installed)."""
SHARED_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures" / "providers"


EXTRA_FIXTURES_ENV = "WEBSEARCH_EXTRA_FIXTURES"
"""An environment variable naming one more folder laid out like ``SHARED_FIXTURES`` (``<provider>/<file>``),
for real payloads a developer keeps outside the repository."""


def find_fixture(relative: str) -> Path | None:
    """Path of ``../shared/fixtures/providers/<relative>``, else ``$WEBSEARCH_EXTRA_FIXTURES/<relative>``,
    else ``None``."""
    extra = os.environ.get(EXTRA_FIXTURES_ENV)
    for folder in (SHARED_FIXTURES, *((Path(extra),) if extra else ())):
        path = folder / relative
        if path.exists():
            return path
    return None


def shared_fixture(relative: str) -> Path:
    """:func:`find_fixture`, skipping the test when the fixture is in neither place."""
    path = find_fixture(relative)
    if path is None:
        pytest.skip(f"shared fixture {relative} not available")
    return path


async def no_wait(delay: float) -> None:
    """A ``sleep`` for contexts and engines that returns at once: retry waits and pacing take no time."""


class SleepLog(list[float]):
    """A ``sleep`` for contexts and engines that records each wait (seconds) and returns at once;
    the log itself is the list of waits (``assert sleeps == [1.0, 2.0]``)."""

    async def __call__(self, delay: float) -> None:
        self.append(delay)


def _context(
    *,
    timeout: float,
    clock: Clock = time.monotonic,
    sleep: Sleep = asyncio.sleep,
    rng: random.Random | None = None,
    state: ProviderState | None = None,
    **fields: Any,
) -> ProviderContext:
    """A ProviderContext with ``fields``, its deadline ``timeout`` seconds from now on ``clock``, and
    the given sleep, jitter source and per-provider state (default: real time, fresh ones)."""
    return ProviderContext(
        **fields,
        deadline=clock() + timeout,
        clock=clock,
        sleep=sleep,
        rng=rng or random.Random(),
        state=state or ProviderState(),
    )


def fake_ctx(
    provider_id: str,
    srv: Any,
    client: httpx.AsyncClient,
    *,
    key: str | None = None,
    options: dict[str, Any] | None = None,
    timeout: float = 20.0,
    **timing: Any,
) -> ProviderContext:
    """A ProviderContext pointed at the fake server ``srv`` (its plugin's ``config()`` table: endpoints,
    and any other key as an option), using the plugin's fake key unless ``key`` is given (providers
    that use a login, like Codex, get no key: point their environment at the fake login instead).
    ``timing`` may give ``clock``, ``sleep``, ``rng`` and ``state`` (default: real time, fresh state)."""
    from tests.fake_providers.routes import plugins

    module = plugins()[provider_id]
    spec = get_spec(provider_id)
    table = dict(module.config(srv.base_url))
    endpoints = {name: table.pop(name) for name in ("base_url", "mcp_url") if name in table}
    return _context(
        spec=spec,
        client=client,
        settings=ProviderSettings(**endpoints, options={**table, **(options or {})}),
        credentials={"api_key": key or next(iter(module.FAKE_KEYS.values()))} if spec.credentials else {},
        timeout=timeout,
        **timing,
    )


def missing_key_message(provider_id: str) -> str:
    """The seed message for a provider run without its API key."""
    spec = get_spec(provider_id)
    return f"{spec.label}: no API key. Set {spec.key_env_vars[0]} or add the key in Settings."


def auth_failed(provider_id: str, status: int = 401) -> str:
    """The seed message for a 401/403 reply."""
    return f"{get_spec(provider_id).label} authorization failed ({status}). Check API key or base URL."


def make_ctx(
    provider_id: str,
    handler: Callable[[httpx.Request], httpx.Response] | None = None,
    *,
    settings: ProviderSettings | None = None,
    credentials: dict[str, str] | None = None,
    timeout: float = 30.0,
    **timing: Any,
) -> ProviderContext:
    """A ProviderContext whose client answers every request with ``handler`` (no network);
    ``timing`` may give ``clock``, ``sleep``, ``rng`` and ``state`` (default: real time, fresh state)."""
    transport = httpx.MockTransport(handler or (lambda request: httpx.Response(599)))
    return _context(
        spec=get_spec(provider_id),
        client=httpx.AsyncClient(transport=transport),
        settings=settings or ProviderSettings(),
        credentials=credentials or {},
        timeout=timeout,
        **timing,
    )


async def collect(
    provider_id: str, request: SearchRequest, ctx: ProviderContext
) -> tuple[list[SearchEvent], SearchResponse]:
    """Run a provider's ``stream`` to the end; return its events and the reduced response."""
    builder = ResponseBuilder(provider_id)
    events: list[SearchEvent] = []
    async for event in load_stream(provider_id)(request, ctx):
        events.append(event)
        builder.apply(event)
    return events, builder.response


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    """An httpx.Response carrying ``body`` as JSON."""
    return httpx.Response(status, json=body, headers=headers)


Reply = httpx.Response | Callable[[httpx.Request], httpx.Response]


class Recorder:
    """An ``httpx.MockTransport`` handler that records every request and answers from a script.

    - ``Recorder()``: every request gets ``200`` with the JSON body ``{}``.
    - ``Recorder(response)``: every request gets that ``httpx.Response``.
    - ``Recorder(first, second, ...)``: the n-th request gets the n-th reply; once the script runs
      out, the last reply answers every further request.
    - ``Recorder(reply)`` with a callable: every request gets ``reply(request)``; callables and
      responses can be mixed in a script. A callable that needs the JSON body reads
      ``json.loads(request.content)``.

    The same ``httpx.Response`` object is handed out again when a reply repeats; use a callable
    to build a fresh response (e.g. a streaming body) per request.

    ``requests`` holds every request in order; ``body(i)``, ``params(i)`` and ``headers(i)`` read
    the i-th one (negative indexes count from the end), ``bodies`` all JSON bodies.
    """

    def __init__(self, *replies: Reply) -> None:
        self.replies: list[Reply] = list(replies) or [json_response({})]
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
        return reply if isinstance(reply, httpx.Response) else reply(request)

    def body(self, index: int = 0) -> Any:
        """The JSON body of the ``index``-th request."""
        return json.loads(self.requests[index].content)

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies of all requests, in order."""
        return [json.loads(request.content) for request in self.requests]

    def params(self, index: int = 0) -> httpx.QueryParams:
        """The query parameters of the ``index``-th request."""
        return self.requests[index].url.params

    def headers(self, index: int = 0) -> httpx.Headers:
        """The headers of the ``index``-th request (case-insensitive)."""
        return self.requests[index].headers


def count_canonical_urls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of the source selection's ``canonical_url`` (in ``providers._parse``) from
    now on: the returned one-item list holds the count. A measure of work that does not depend on
    the machine's load."""
    from websearch_tui.providers.helpers import parse

    calls = [0]
    real = parse.canonical_url

    def counting(url: str) -> str:
        calls[0] += 1
        return real(url)

    monkeypatch.setattr(parse, "canonical_url", counting)
    return calls


def finishes_within(work: Callable[[], object], *, seconds: float) -> bool:
    """A hang guard (not a speed test): run ``work`` in a thread; False if it is still busy after ``seconds``."""
    done = threading.Event()

    def run() -> None:
        work()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done.wait(seconds)


def sample_result(query: str = "python asyncio tutorial", *, answer: str | None = None, search_id: int = 1):
    """A finished two-provider :class:`SearchResult` with every field a pane shows: DuckDuckGo done
    (answer, two sources, a citation, related questions, queries, a note, model, usage, request id,
    timings) and Brave failed (401, with the partial answer it streamed)."""
    from websearch_tui.core.errors import ErrorKind, ProviderError
    from websearch_tui.core.models import Citation, SearchResponse, Source, Usage
    from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult

    done = SearchResponse(
        provider="ddgs",
        answer=answer if answer is not None else f"About **{query}**: use `asyncio.run()` [1].",
        sources=[
            Source("https://docs.python.org/3/library/asyncio.html", "asyncio docs", "Event loop basics", None, 86400),
            Source("https://realpython.com/async-io-python/", "Async IO in Python", None, "July 25, 2024"),
        ],
        citations=[Citation("https://docs.python.org/3/library/asyncio.html", "asyncio docs", "use asyncio.run")],
        related_questions=["What is an event loop?"],
        search_queries=[f"{query} guide"],
        usage=Usage(input_tokens=12, output_tokens=34, search_requests=1),
        model="fake-model",
        request_id="req-123",
        notes=["Recency is not supported by DuckDuckGo; results are not filtered by date."],
        elapsed_ms=1234,
        first_event_ms=210,
        dropped_sources=1,
    )
    failed = SearchResponse(provider="brave", answer="partial", elapsed_ms=80)
    error = ProviderError(
        "brave", ErrorKind.AUTH, "Brave Search authorization failed (401). Check API key or base URL.", status=401
    )
    request = SearchRequest(query=query, providers=("ddgs", "brave"), max_results=5, recency="week")
    return SearchResult(
        request=request,
        mode="compare",
        search_id=search_id,
        providers=("ddgs", "brave"),
        labels={"ddgs": "DuckDuckGo", "brave": "Brave Search"},
        outcomes=[
            ProviderOutcome("ddgs", RunStatus.DONE, done, None, 1234, 210),
            ProviderOutcome("brave", RunStatus.FAILED, failed, error, 80, 40),
        ],
    )


def three_cli_providers(monkeypatch: pytest.MonkeyPatch, brave_source: Any) -> list[str]:
    """Replace the streams of three providers for CLI tests: brave answers with ``brave_source``,
    tavily fails with a rate limit, exa is empty. Returns the queries brave received."""
    from collections.abc import AsyncIterator

    from websearch_tui.core.errors import ErrorKind, ProviderError
    from websearch_tui.core.models import AnswerDelta, SourcesFound
    from websearch_tui.engine import engine as engine_module

    received: list[str] = []

    async def brave(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        received.append(request.query)
        yield SourcesFound((brave_source,))

    async def tavily(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        raise ProviderError("tavily", ErrorKind.RATE_LIMIT, "Tavily API error (429): slow down", status=429)
        yield  # pragma: no cover

    async def exa(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        if False:  # pragma: no cover
            yield AnswerDelta("")

    fakes = {"brave": brave, "tavily": tavily, "exa": exa}
    monkeypatch.setattr(engine_module, "load_stream", lambda pid: fakes[pid])
    return received


_held_ports: list[socket.socket] = []
"""The sockets :func:`closed_port_url` keeps bound (never listening) until the process ends."""


def closed_port_url() -> str:
    """``http://127.0.0.1:<port>`` of a port nothing listens on (connections are refused).

    The port stays bound by this process, never listening, until it exits: a port merely closed
    again could be taken meanwhile by another test's server (tests run in parallel processes), or
    picked as the source port of the very connection meant to be refused."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _held_ports.append(sock)
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextlib.contextmanager
def module_log(caplog: pytest.LogCaptureFixture, name: str, level: int = logging.WARNING) -> Iterator[None]:
    """Capture the ``name`` logger's records at ``level`` into ``caplog``, also when the app's logger
    no longer propagates to the root (``logs.setup_logging``, run by an earlier test, turns that off)."""
    logger = logging.getLogger(name)
    logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(level, logger=name):
            yield
    finally:
        logger.removeHandler(caplog.handler)
