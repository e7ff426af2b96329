"""What a provider is, as data: :class:`ProviderSpec`, its :class:`Capabilities` and credentials, and
the validated ``[providers.<id>]`` table (:class:`ProviderSettings`).

The floor of the package: front ends, config and the registry read these without importing any
provider code. The runtime contract (what a provider receives when it runs) is
:mod:`websearch_tui.providers.base`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal

from websearch_tui.core.records import record

if TYPE_CHECKING:  # only an annotation: the catalogue imports this module on every start
    from websearch_tui.core.costs import Price

KIND_LABELS = {"conventional": "web", "agent": "agent", "model": "model"}
"""The one vocabulary for provider kinds, in every front end (``providers`` and its JSON, the MCP
``list_providers`` tool, the TUI's provider list and settings, the README): ``web`` (a search engine:
ranked links with short snippets), ``agent`` (a search API built for LLM agents: long excerpts,
summaries, MCP search servers), ``model`` (a model-native answer: an LLM that searches and writes a
cited answer). The keys are the internal :attr:`ProviderSpec.kind` ids, never shown."""
KIND_MEANINGS = {
    "conventional": "search engine: ranked links with short snippets",
    "agent": "search API built for agents: long excerpts, summaries",
    "model": "model-native: a model searches and writes a cited answer",
}
"""What each kind label means, for help texts (``providers --help``)."""
READY = "ready"
KEYLESS = "keyless"
NEEDS_KEY = "needs key"
NEEDS_URL = "needs URL"
NO_LOGIN = "no login"
DISABLED = "disabled"
READINESS = (READY, KEYLESS, NEEDS_KEY, NEEDS_URL, NO_LOGIN, DISABLED)
"""The one vocabulary for a provider's readiness, in every front end (``providers`` and its JSON, the
MCP ``list_providers`` tool, the TUI's provider list and settings, the README): ``ready`` (its key or
login is there), ``keyless`` (runs without one), ``needs key``, ``needs URL`` (a ``base_url`` to set),
``no login`` (an existing login it uses, e.g. Codex's, is missing) and ``disabled`` (in the config)."""
USABLE_READINESS = frozenset({READY, KEYLESS})
"""The readiness of a provider that can run now."""
DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
"""Largest response body (or event stream) read by default: 8 MiB (config ``[search] max_body_mib``)."""

UNKNOWN_INDEX = "unknown"
""":attr:`ProviderSpec.index` of a provider that does not say where its results come from."""

KeyNeed = Literal["login", "none", "optional", "required"]
"""What a provider needs to run: an existing login (Codex), nothing, a key it can do without (a
keyless endpoint), or a key."""

BASIC_AUTH = ("username", "password")
"""Credential names that form an HTTP Basic pair (RFC 7617): sent base64-encoded as UTF-8, so any
printable text is allowed; stored together and deleted together."""


@record(frozen=True)
class CredentialSpec:
    """One credential a provider reads: env vars in lookup order, then keyring entry ``<id>:<name>``.

    ``secret`` values are redacted from every message; a user name is not a secret.
    """

    name: str
    env_vars: tuple[str, ...] = ()
    secret: bool = True

    @property
    def label(self) -> str:
        """What messages and forms call it: ``"API key"`` for the usual key, else the name
        capitalized (``"Token"``, ``"Username"``)."""
        return "API key" if self.name == "api_key" else self.name.replace("_", " ").capitalize()


@record(frozen=True)
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


@record(frozen=True)
class ProviderSpec:
    """Static description of a provider.

    Attributes:
        id: registry key, config table name and ``SearchResponse.provider``.
        label: human name used in messages (``"Brave Search"``).
        kind: ``"conventional" | "agent" | "model"`` (model = model-native answer with grounding); an
            internal id: front ends show :data:`KIND_LABELS` (``web``, ``agent``, ``model``).
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
        index: the search index its results come from, as a reader is shown it (``"Google"``,
            ``"Bing-derived"``, ``"Brave's own index"``, ``"Exa's own crawl"``, ``"OpenAlex scholarly
            graph"``, ``"OpenAI web search"`` for a model whose backend is not published). Providers
            with the same value draw on one index (so five finding a page may be two indexes agreeing,
            :func:`websearch_tui.core.merge.index_count`); :data:`UNKNOWN_INDEX` is never shared.
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
    index: str = UNKNOWN_INDEX

    @property
    def index_key(self) -> str:
        """What two providers compare to know they share an index: :attr:`index`, except that an
        unknown index is the provider's own (``"unknown:<id>"``)."""
        return f"{UNKNOWN_INDEX}:{self.id}" if self.index == UNKNOWN_INDEX else self.index

    @property
    def key_env_vars(self) -> tuple[str, ...]:
        """Env var names of the API key credential (may be empty)."""
        return self.credentials[0].env_vars if self.credentials else ()

    @property
    def key_need(self) -> KeyNeed:
        """``"login"`` (it uses an existing login, :attr:`login`), ``"none"`` (it reads no
        credential), ``"optional"`` (it runs keyless without one) or ``"required"``."""
        if self.login:
            return "login"
        if not self.credentials:
            return "none"
        return "optional" if self.keyless else "required"

    @property
    def basic_auth(self) -> bool:
        """True when it reads an HTTP Basic pair (credentials named as in :data:`BASIC_AUTH`)."""
        names = {credential.name for credential in self.credentials}
        return all(name in names for name in BASIC_AUTH)


@record(frozen=True)
class ProviderSettings:
    """One ``[providers.<id>]`` table from config.toml, validated.

    ``enabled`` is ``None`` when the file does not say; ``options`` holds the provider-specific
    keys declared in :attr:`ProviderSpec.options`; ``min_interval`` (seconds) is ``None`` when
    the file does not set it (the spec's default pacing applies). ``price`` is the file's ``price =
    {...}`` (``None``: the public price list, :data:`~websearch_tui.core.prices.DEFAULT_PRICES`);
    ``cache_ttl`` the seconds a result of this provider may be reused (``None``: ``[cache] ttl``; 0: never).
    """

    enabled: bool | None = None
    base_url: str | None = None
    mcp_url: str | None = None
    model: str | None = None
    models: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    min_interval: float | None = None
    price: Price | None = None
    cache_ttl: float | None = None


def asked_model(spec: ProviderSpec, settings: ProviderSettings) -> str | None:
    """The model a run of ``spec`` with ``settings`` asks for: the first of ``models`` (the engine
    turns that list round per search), else ``model``, else the spec's default (``None``: no model)."""
    return (settings.models[0] if settings.models else None) or settings.model or spec.default_model
