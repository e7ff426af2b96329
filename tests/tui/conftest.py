"""TUI test fixtures: fake provider streams (no HTTP), a config, an engine and the app factory."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import suppress
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerCancelled, WorkerState

import websearch_tui.engine.engine as engine_module
from websearch_tui.core.models import SearchEvent, SearchRequest
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.engine.engine import Engine
from websearch_tui.providers.base import ProviderContext
from websearch_tui.settings.config import Config, SearchSettings
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.search.provider_pane import ProviderPane

FakeStream = Callable[[SearchRequest, ProviderContext], AsyncIterator[SearchEvent]]


def fixed_status(spec: ProviderSpec, settings: object) -> str:
    """Deterministic provider readiness for tests."""
    if spec.id == "searxng":
        return "needs URL"
    return "keyless" if spec.keyless else "needs key"


@pytest.fixture
def fake_streams(monkeypatch: pytest.MonkeyPatch) -> dict[str, FakeStream]:
    """Provider id -> async generator function the engine runs instead of the real module."""
    streams: dict[str, FakeStream] = {}

    def load(provider_id: str) -> FakeStream:
        return streams[provider_id]

    monkeypatch.setattr(engine_module, "load_stream", load)
    return streams


NO_DEADLINE = 600.0
"""Seconds: a provider deadline no test run reaches, however loaded the machine."""


@pytest.fixture
def make_app() -> Callable[..., WebSearchApp]:
    """Build a :class:`WebSearchApp` over an engine whose providers are the fakes.

    The provider deadline (``timeout``) defaults to :data:`NO_DEADLINE`: a fake stream that waits
    for its test (a gate, a hang until Escape) must not fail as a timeout just because the machine is
    slow; a test of the deadline passes its own."""

    def factory(
        providers: tuple[str, ...] = ("ddgs", "exa"),
        *,
        mode: str = "compare",
        timeout: float = NO_DEADLINE,
        clock: Callable[[], float] | None = None,
        presets: dict[str, tuple[str, ...]] | None = None,
    ) -> WebSearchApp:
        search = SearchSettings(providers=providers, mode=mode, max_results=5, timeout=timeout)
        config = Config(search=search, presets=presets or {})
        engine = Engine(default_providers=providers, timeout=timeout)
        return WebSearchApp(config, engine, status_resolver=fixed_status, clock=clock)

    return factory


async def workers_done(app: WebSearchApp) -> None:
    """Wait for every worker the app has started so far to end (cancelled ones included)."""
    for worker in list(app.workers):
        while worker.state is WorkerState.PENDING:  # its task is created but has not run yet
            await asyncio.sleep(0)
        with suppress(WorkerCancelled):
            await worker.wait()


async def wait_for_search(app: WebSearchApp, timeout: float = 30.0) -> None:
    """Wait until the search worker has ended (cancelled included) and every pane has written the
    last of its answer (at most ``timeout`` seconds)."""

    async def wait() -> None:
        for worker in [w for w in app.workers if w.group == "search"]:
            with suppress(WorkerCancelled):
                await worker.wait()
        for pane in app.screen.query(ProviderPane):
            await pane.rendered()

    await asyncio.wait_for(wait(), timeout)


WAIT_LIMIT = 30.0
"""Seconds :func:`until` lets the app run before it fails: a hang guard, far above what any wait
takes even on a loaded machine (the wait ends as soon as its condition holds)."""
WAIT_SLICE = 0.01
"""Seconds :func:`until` lets timers, worker threads and the fake server move on between two checks,
once the app has handled everything queued."""


async def until(
    pilot: Pilot[Any],
    condition: Callable[[], object],
    what: str,
    *,
    detail: Callable[[], object] | None = None,
    timeout: float = WAIT_LIMIT,
) -> None:
    """Let the app run until ``condition()`` holds, for waiting on what the app shows or does instead
    of sleeping and hoping it is there by then.

    The condition is checked at once, then again each time the app has handled every message queued
    so far (``pilot.pause``) and :data:`WAIT_SLICE` has passed: it returns at the first check that
    holds. After ``timeout`` seconds it raises ``AssertionError`` saying it timed out waiting until
    ``what`` (a phrase such as ``"the History screen is open"``), with ``detail()`` (what was seen
    instead) when given.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            seen = f"; last seen: {detail()!r}" if detail is not None else ""
            raise AssertionError(f"timed out after {timeout:g} s waiting until {what}{seen}")
        await pilot.pause(WAIT_SLICE)


async def submit(pilot, text: str) -> None:
    """Type ``text`` into the query box and press Enter."""
    query = pilot.app.screen.query_one("#query", Input)
    query.focus()
    query.value = text
    await pilot.press("enter")
    await pilot.pause()


EDIT_KEYS = frozenset({"backspace", "delete", "home", "end", "left", "right", "up", "down", "enter", "ctrl+u"})
"""Keys the burst tests press by name."""
KEY_NAMES = {" ": "space", "!": "exclamation_mark", ",": "comma", ".": "full_stop"}
"""Textual's names of the printable keys the burst tests type (letters and digits are their own name)."""


def burst(app: App[object], *parts: str) -> None:
    """Deliver keys the way one read of the terminal does: every key is posted before any is handled.

    A part in :data:`EDIT_KEYS` is that one key; any other part is typed character by character.
    """
    for part in parts:
        if part in EDIT_KEYS:
            app.post_message(events.Key(part, None))
            continue
        for char in part:
            app.post_message(events.Key(KEY_NAMES.get(char, char), char))
