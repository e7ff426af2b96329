"""Cache keys: the one-way digest naming what a provider run asks, so a later search can tell that it
would ask the same thing and reuse the stored answer instead of sending the request again.

:func:`cache_key` is a SHA-256 hex digest (64 characters) over:

- the provider id;
- the normalised query (:func:`normalise_query`: sanitised, whitespace collapsed, case-folded);
- the request's controls that change results: ``recency``, ``max_results``, ``max_tokens``,
  ``temperature``, ``num_search_results`` (not ``mode``: compare and auto ask each provider the same);
- the provider's settings that change results: its ``options`` (with the search's own options laid
  over them), ``model`` (the spec default when unset) and ``models`` (as a set: the round-robin order
  does not change what any one run asks), the endpoints ``base_url`` and ``mcp_url`` (the spec
  defaults when unset); not ``enabled``, ``min_interval``, ``price`` or ``cache_ttl``;
- the credentials the run uses (every name and value, or none for a keyless run), so a changed key,
  or a keyless run after a keyed one, never reuses the other's answer.

The credentials are only ever folded into this digest: no key, nor any part of one, is stored or
shown; a password a person chose (:data:`STRETCHED`) is first stretched with scrypt, so the stored
digest does not let anyone holding the history file test guesses quickly. The digest is stored with
the run (``ProviderOutcome.cache_key``) and cannot be turned back into the key. A digest changes
with any of the inputs above, so reuse across a change of key, endpoint, model, option or control is
impossible by construction.

Pure functions over the request, the settings and resolved credentials: no I/O (the engine resolves
the credentials, in a thread, and hands them here).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from websearch_tui.core.records import record
from websearch_tui.core.text import sanitize

if TYPE_CHECKING:
    from websearch_tui.core.models import SearchRequest
    from websearch_tui.core.specs import ProviderSettings, ProviderSpec
    from websearch_tui.engine.engine import ResolvedCredentials

KEY_VERSION = 1
"""Part of every digest: raising it (when what a key covers changes) makes every stored key a miss."""


def normalise_query(query: str) -> str:
    """``query`` as the cache compares it: sanitised (:func:`~websearch_tui.core.text.sanitize`),
    Unicode NFC, runs of whitespace (line breaks included) made one space, stripped and case-folded.
    ``"  Rust\\n1.80 ÉTÉ "`` -> ``"rust 1.80 été"``. Linear."""
    return " ".join(unicodedata.normalize("NFC", sanitize(query)).split()).casefold()


def cache_key(
    spec: ProviderSpec,
    request: SearchRequest,
    settings: ProviderSettings,
    credentials: Mapping[str, str],
    options: Mapping[str, Any] | None = None,
) -> str:
    """The SHA-256 hex digest (64 lower-case hex characters) naming what a run of ``spec`` with
    ``settings`` (the configured table, before any round-robin turn of ``models``), the search's own
    ``options`` for this provider and ``credentials`` (credential name -> value, as resolved for the
    run) asks for ``request`` (see the module's docstring for what it covers). Deterministic: the
    same inputs give the same digest in every process."""
    asked = {
        "version": KEY_VERSION,
        "provider": spec.id,
        "query": normalise_query(request.query),
        "recency": request.recency,
        "max_results": request.max_results,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "num_search_results": request.num_search_results,
        "options": {**settings.options, **(options or {})},
        "model": settings.model or spec.default_model,
        "models": sorted(set(settings.models)),
        "base_url": settings.base_url or spec.default_base_url,
        "mcp_url": settings.mcp_url or spec.default_mcp_url,
    }
    import hashlib  # at the first search (hashlib starts OpenSSL's digests): not for the TUI's first frame

    digest = hashlib.sha256(json.dumps(asked, sort_keys=True, default=repr, ensure_ascii=False).encode())
    for name in sorted(credentials):  # each part length-prefixed: no two credential sets hash alike
        value = credentials[name].encode("utf-8", "surrogatepass")
        for data in (name.encode(), _stretched(spec.id, value) if name in STRETCHED else value):
            digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


STRETCHED = frozenset({"password"})
"""Credentials a person chose (an HTTP Basic password, SearXNG's): folded in through scrypt, so a
stored digest cannot be checked against guesses at SHA-256 speed. API keys are long random strings:
no guess reaches them, and they are folded in as they are."""


@functools.lru_cache(maxsize=16)
def _stretched(provider_id: str, value: bytes) -> bytes:
    """``value`` through scrypt (2**14 rounds, 16 MiB, about 0.1 s; once per process and value),
    salted with the provider id: what :func:`cache_key` folds in for a :data:`STRETCHED` credential."""
    import hashlib

    return hashlib.scrypt(value, salt=f"websearch-tui cache key {provider_id}".encode(), n=2**14, r=8, p=1, dklen=32)


def runs_keyless(spec: ProviderSpec, credentials: Mapping[str, str]) -> bool:
    """True when a run of ``spec`` with ``credentials`` (as resolved) is not billed: the provider
    reads no credential, or it can run without its optional key and none is set. A provider whose key
    is required (or that uses a login of its own, Codex) is billed: without its key the run fails
    before sending, and a budget counts it as it would run once the key is there."""
    return spec.key_need == "none" or (spec.key_need == "optional" and not any(credentials.values()))


@record(frozen=True)
class CacheKeys:
    """Each provider's cache key for one search, with the credentials they were worked out with
    (:meth:`Engine.cache_keys <websearch_tui.engine.engine.Engine.cache_keys>`): handed back to
    :meth:`Engine.search <websearch_tui.engine.engine.Engine.search>`, the runs use those credentials
    (looked up once per search) and record those keys.

    Attributes:
        keys: provider id -> :func:`cache_key`.
        credentials: provider id -> the credentials resolved for it (never shown: ``repr`` leaves
            them out).
    """

    keys: Mapping[str, str]
    credentials: Mapping[str, ResolvedCredentials] = field(default_factory=dict, repr=False)

    def keyless(self, spec: ProviderSpec) -> bool:
        """True when the run of ``spec`` would send no credential (:func:`runs_keyless`); a provider
        not looked up counts as keyed."""
        found = self.credentials.get(spec.id)
        return found is not None and runs_keyless(spec, found.values)
