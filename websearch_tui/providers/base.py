"""The provider contract: what a provider receives when it runs, and the function it exposes.

A provider module exposes ``stream(request, ctx)``, returning an async generator of
:data:`~websearch_tui.core.models.SearchEvent` (see :class:`StreamFunction`), and nothing else that
the engine uses. Its static description, a
:class:`~websearch_tui.core.specs.ProviderSpec`, lives in the registry (``websearch_tui.providers``)
so listing providers never imports their modules. Everything a run may use arrives in its
:class:`ProviderContext`: the shared HTTP client, settings, credentials, the deadline, the clock and
sleep to use, and the per-provider state the engine keeps between searches (:class:`ProviderState`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from websearch_tui.core.errors import ErrorKind, ProviderError, missing_key_message
from websearch_tui.core.records import record
from websearch_tui.core.specs import DEFAULT_MAX_BODY_BYTES, ProviderSettings, ProviderSpec, asked_model

if TYPE_CHECKING:
    import httpx

    from websearch_tui.core.models import SearchEvent, SearchRequest

_S = TypeVar("_S")

RetryReporter = Callable[[float, str, int], None]
"""``report_retry(delay_s, reason, attempt)``: a retry is planned in ``delay_s`` seconds; ``reason`` is
the HTTP status (``"429"``, ``"503"``) or ``"timeout"`` / ``"network"``; ``attempt`` counts from 1."""

Clock = Callable[[], float]
"""A monotonic clock in seconds (``time.monotonic``; tests pass a fake)."""

Sleep = Callable[[float], Awaitable[None]]
"""Waits the given seconds (``asyncio.sleep``; tests pass one that returns at once or advances a fake clock)."""


def _ignore_retry(delay_s: float, reason: str, attempt: int) -> None:
    """The default :data:`RetryReporter`: nobody is watching."""


def _ignore_resend() -> None:
    """The default resend reporter: nobody is watching."""


class ProviderState:
    """What one provider keeps between its searches within one engine: MCP sessions, cool-downs,
    discovered tools. The engine owns one per provider and hands it to every run of that provider;
    a standalone context (tests, one-off calls) gets a fresh one.

    Each module keeps its own typed record: ``ctx.state.get(DdgsState)`` returns this provider's
    instance of ``DdgsState``, created with no arguments on first use.
    """

    def __init__(self) -> None:
        self._records: dict[type[Any], Any] = {}

    def get(self, kind: type[_S]) -> _S:
        """This provider's ``kind`` record, created by ``kind()`` the first time it is asked for."""
        record = self._records.get(kind)
        if record is None:
            record = self._records[kind] = kind()
        return record


@record
class ProviderContext:
    """Everything a provider run may use.

    Attributes:
        spec: the provider's :class:`ProviderSpec`.
        client: the shared ``httpx.AsyncClient`` (never closed by a provider).
        settings: its validated config table.
        credentials: resolved credential values by name (only those that were found).
        deadline: the ``clock()`` value after which the run is over (default: 60 s from now on
            ``time.monotonic``; give one with a clock of your own).
        credential_sources: where each found credential came from, by name, as a phrase that
            completes "The key came from ...": ``"env BRAVE_API_KEY"``, ``"the OS keyring (service
            websearch-tui, user brave:api_key)"``, ``"the key file"``. Never holds a value.
        max_body_bytes: the most bytes of one response body (or characters of one event stream)
            the shared HTTP layer reads before failing with ``protocol``.
        report_retry: called by the shared HTTP layer right before it waits to retry a request
            (see :data:`RetryReporter`); ``report_resend`` once the wait is over and the request is
            sent again. Both default to doing nothing.
        clock: the monotonic clock the deadline is measured on (seconds).
        sleep: how the run waits (retry backoff, pacing).
        rng: the source of retry jitter.
        state: the provider's :class:`ProviderState`, kept by the engine between searches.
    """

    spec: ProviderSpec
    client: httpx.AsyncClient
    settings: ProviderSettings = field(default_factory=ProviderSettings)
    credentials: Mapping[str, str] = field(default_factory=dict, repr=False)  # never in a traceback
    deadline: float = field(default_factory=lambda: time.monotonic() + 60.0)
    credential_sources: Mapping[str, str] = field(default_factory=dict)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    report_retry: RetryReporter = _ignore_retry
    report_resend: Callable[[], None] = _ignore_resend
    clock: Clock = time.monotonic
    sleep: Sleep = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random, repr=False)
    state: ProviderState = field(default_factory=ProviderState, repr=False)

    @property
    def api_key(self) -> str | None:
        """The first credential's value, if any."""
        return self.credentials.get(self.spec.credentials[0].name) if self.spec.credentials else None

    def key_origin(self) -> str | None:
        """The sentence naming where the API key came from (``"The key came from env BRAVE_API_KEY."``),
        or ``None`` when the provider has no key, none was found, or its source is unknown."""
        if not self.spec.credentials or not self.api_key:
            return None
        where = self.credential_sources.get(self.spec.credentials[0].name)
        return f"The key came from {where}." if where else None

    def require_api_key(self) -> str:
        """The API key, or raise ``ProviderError(kind=config)`` naming the env var to set, or saying
        that the key has a character that cannot be sent (not ASCII)."""
        key = self.api_key
        if not key:
            env = self.spec.key_env_vars[0] if self.spec.key_env_vars else "the provider's key"
            raise ProviderError(self.spec.id, ErrorKind.CONFIG, missing_key_message(self.spec.label, env))
        if not key.isascii():
            raise ProviderError(
                self.spec.id,
                ErrorKind.CONFIG,
                f"{self.spec.label}: the API key contains a character that is not plain ASCII (a pasted no-break "
                "space or typographic quote?); set it again.",
            )
        return key

    def base_url(self) -> str:
        """Configured ``base_url`` or the spec default; ``ProviderError(config)`` when neither exists."""
        url = self.settings.base_url or self.spec.default_base_url
        if not url:
            raise ProviderError(
                self.spec.id,
                ErrorKind.CONFIG,
                f"{self.spec.label}: no base_url configured (set [providers.{self.spec.id}] base_url).",
            )
        return url

    def mcp_url(self) -> str:
        """Configured ``mcp_url`` or the spec default."""
        return self.settings.mcp_url or self.spec.default_mcp_url or ""

    def model(self) -> str | None:
        """Configured model (first of ``models``, else ``model``) or the spec default."""
        return asked_model(self.spec, self.settings)

    def option(self, name: str, default: Any = None) -> Any:
        """A provider-specific option from config, or ``default``."""
        return self.settings.options.get(name, default)

    def remaining(self) -> float:
        """Seconds left before the deadline (may be <= 0)."""
        return self.deadline - self.clock()


class StreamFunction(Protocol):
    """Signature of a provider module's ``stream`` function: ``stream(request, ctx)`` returns an
    async generator (an ``async def`` with ``yield``, or a function returning one) that yields the
    search's events as they arrive and raises :class:`ProviderError` when it fails (after the events
    already yielded). A generator, not just an iterator: a consumer that stops early closes it with
    ``aclose()`` (``contextlib.aclosing``), which closes the HTTP stream behind it at once."""

    def __call__(self, request: SearchRequest, ctx: ProviderContext) -> AsyncGenerator[SearchEvent, None]: ...
