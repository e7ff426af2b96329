"""Shared test helpers: shared-fixture lookup, provider contexts on httpx.MockTransport, event collection."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from websearch_tui.core.models import ResponseBuilder, SearchEvent, SearchRequest, SearchResponse
from websearch_tui.providers import get_spec, load_stream
from websearch_tui.providers.base import ProviderContext, ProviderSettings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures" / "providers"


def shared_fixture(relative: str) -> Path:
    """Path of ``../shared/fixtures/providers/<relative>``; skips the test when it is absent."""
    path = SHARED_FIXTURES / relative
    if not path.exists():
        pytest.skip(f"shared fixture {relative} not available")
    return path


def make_ctx(
    provider_id: str,
    handler: Callable[[httpx.Request], httpx.Response] | None = None,
    *,
    settings: ProviderSettings | None = None,
    credentials: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> ProviderContext:
    """A ProviderContext whose client answers every request with ``handler`` (no network)."""
    transport = httpx.MockTransport(handler or (lambda request: httpx.Response(599)))
    return ProviderContext(
        spec=get_spec(provider_id),
        client=httpx.AsyncClient(transport=transport),
        settings=settings or ProviderSettings(),
        credentials=credentials or {},
        deadline=time.monotonic() + timeout,
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
