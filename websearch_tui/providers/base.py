"""The provider contract: what a provider declares and what it receives when it runs.

A provider module exposes ``async def stream(request, ctx) -> AsyncIterator[SearchEvent]`` and
nothing else that the engine uses. Its static description, a :class:`ProviderSpec`, lives in the
registry (``websearch_tui.providers``) so listing providers never imports their modules.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from websearch_tui.core.errors import ErrorKind, ProviderError, missing_key_message

if TYPE_CHECKING:
    import httpx

    from websearch_tui.core.models import SearchEvent, SearchRequest

KIND_LABELS = {"conventional": "conventional", "agent": "agent search API", "model": "model-native"}
DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
"""Largest response body (or event stream) read by default: 8 MiB (config ``[search] max_body_mib``)."""

RetryReporter = Callable[[float, str, int], None]
"""``report_retry(delay_s, reason, attempt)``: a retry is planned in ``delay_s`` seconds; ``reason`` is
the HTTP status (``"429"``, ``"503"``) or ``"timeout"`` / ``"network"``; ``attempt`` counts from 1."""


def _ignore_retry(delay_s: float, reason: str, attempt: int) -> None:
    """The default :data:`RetryReporter`: nobody is watching."""


def _ignore_resend() -> None:
    """The default resend reporter: nobody is watching."""


@dataclass(frozen=True)
class CredentialSpec:
    """One credential a provider reads: env vars in lookup order, then keyring entry ``<id>:<name>``.

    ``secret`` values are redacted from every message; a user name is not a secret.
    """

    name: str
    env_vars: tuple[str, ...] = ()
    secret: bool = True


@dataclass(frozen=True)
class Capabilities:
    """What a provider honours or returns, shown before sending and in ``providers``.

    ``recency_in_prompt``: the date window is only asked for in the model's prompt (no native
    filter), so older pages can still be cited; the engine says so in a note.
    """

    recency: bool = False
    recency_in_prompt: bool = False
    count: bool = False
    answer: bool = False
    citations: bool = False
    related: bool = False
    queries: bool = False
    streams: bool = False


@dataclass(frozen=True)
class ProviderSpec:
    """Static description of a provider.

    Attributes:
        id: registry key, config table name and ``SearchResponse.provider``.
        label: human name used in messages (``"Brave Search"``).
        kind: ``"conventional" | "agent" | "model"`` (model = model-native answer with grounding).
        module: dotted module path implementing ``stream``; imported only when the provider runs.
        credentials: what it reads from env/keyring; the first one is the API key.
        keyless: runs without any credential (possibly on a keyless endpoint).
        default_base_url / default_mcp_url: endpoints used when config does not override them.
        options: provider-specific config keys and their Python types (validated on load).
        option_choices: the allowed values of string options that take one of a fixed set
            (``{"search_mode": ("web", "x", "both")}``); checked case-insensitively on load and
            offered as a choice in the settings screen.
        capabilities: see :class:`Capabilities`.
        needs_base_url: cannot run until ``base_url`` is configured (SearXNG).
        default_model: model used when config names none (model-native providers).
        default_min_interval: seconds between two searches of this provider in one process
            (client-side pacing; config ``min_interval`` overrides it).
        login: ``"module:function"`` returning an object with ``ready`` (bool) and ``reason``
            (str) for providers that use an existing login instead of a key (Codex).
    """

    id: str
    label: str
    kind: str
    module: str
    credentials: tuple[CredentialSpec, ...] = ()
    keyless: bool = False
    default_base_url: str | None = None
    default_mcp_url: str | None = None
    options: Mapping[str, type] = field(default_factory=dict)
    option_choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    capabilities: Capabilities = Capabilities()
    needs_base_url: bool = False
    default_model: str | None = None
    default_min_interval: float = 0.0
    login: str | None = None

    @property
    def key_env_vars(self) -> tuple[str, ...]:
        """Env var names of the API key credential (may be empty)."""
        return self.credentials[0].env_vars if self.credentials else ()


@dataclass(frozen=True)
class ProviderSettings:
    """One ``[providers.<id>]`` table from config.toml, validated.

    ``enabled`` is ``None`` when the file does not say; ``options`` holds the provider-specific
    keys declared in :attr:`ProviderSpec.options`; ``min_interval`` (seconds) is ``None`` when
    the file does not set it (the spec's default pacing applies).
    """

    enabled: bool | None = None
    base_url: str | None = None
    mcp_url: str | None = None
    model: str | None = None
    models: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    min_interval: float | None = None


@dataclass
class ProviderContext:
    """Everything a provider run may use.

    Attributes:
        spec: the provider's :class:`ProviderSpec`.
        client: the shared ``httpx.AsyncClient`` (never closed by a provider).
        settings: its validated config table.
        credentials: resolved credential values by name (only those that were found).
        deadline: ``time.monotonic()`` value after which the run is over.
        credential_sources: where each found credential came from, by name, as a phrase that
            completes "The key came from ...": ``"env BRAVE_API_KEY"``, ``"the OS keyring (service
            websearch-tui, user brave:api_key)"``, ``"the key file"``. Never holds a value.
        max_body_bytes: the most bytes of one response body (or characters of one event stream)
            the shared HTTP layer reads before failing with ``protocol``.
        report_retry: called by the shared HTTP layer right before it waits to retry a request
            (see :data:`RetryReporter`); ``report_resend`` once the wait is over and the request is
            sent again. Both default to doing nothing.
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
        return (
            (self.settings.models[0] if self.settings.models else None)
            or self.settings.model
            or self.spec.default_model
        )

    def option(self, name: str, default: Any = None) -> Any:
        """A provider-specific option from config, or ``default``."""
        return self.settings.options.get(name, default)

    def remaining(self) -> float:
        """Seconds left before the deadline (may be <= 0)."""
        return self.deadline - time.monotonic()


class StreamFunction(Protocol):
    """Signature of a provider module's ``stream`` function."""

    def __call__(self, request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]: ...
