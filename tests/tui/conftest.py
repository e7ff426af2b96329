"""TUI test fixtures: fake provider streams (no HTTP), a config, an engine and the app factory."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import suppress

import pytest
from textual import events
from textual.app import App
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


async def until(pilot, condition: Callable[[], object], rounds: int = 600) -> bool:
    """Wait until ``condition()`` holds, checking after each pilot pause (at most about 30 s, so a
    loaded machine is not a failure); returns whether it held. For waiting on what the screen shows,
    instead of sleeping and hoping it is there by then."""
    for _ in range(rounds):
        if condition():
            return True
        await pilot.pause(0.05)
    return bool(condition())


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
