"""The honest cache: a provider's finished result is reused, instead of sending the request again,
when the same provider answered the same question the same way recently.

Before a search runs, :func:`plan_search` works out each provider's cache key (the engine's
:meth:`~websearch_tui.engine.engine.Engine.cache_keys`: provider, normalised query, the controls and
settings that change results, the endpoint and the credentials, see
:mod:`websearch_tui.engine.cache_keys`) and, for every provider whose time to live
(:func:`cache_ttl`: ``[providers.X] cache_ttl``, else ``[cache] ttl``) is above 0, asks the history
for the newest run under that key that ended ``done`` within it
(:meth:`HistoryAccess.reusable <websearch_tui.session.history.HistoryAccess.reusable>`). The result
reused is read from the history store (the search that ran it), not from a second copy.

Rules (each is tested):

- only a run that ended ``done`` is reused: never a failed, empty, cancelled or partial one, nor a
  result that was itself reused (the history filters these; :func:`reused_outcome` checks again);
- a key or endpoint that changed is a different cache key, hence a miss;
- a reused outcome says so: ``cached`` (:class:`~websearch_tui.core.costs.CachedFrom`: the search it
  came from, when, how old), a ``"cached"`` cost of $0, the same cache key, no elapsed time; it is
  the provider's answer as it came, without the citation checks of the earlier search (a search with
  ``verify`` checks it again);
- nothing is read when the search is fresh (``search --fresh``, the TUI's fresh search, MCP
  ``fresh=true``, every retry of failed providers), in private mode (which also writes nothing), or
  while the history is off; a history that cannot be read means no reuse, never an error.

Blocking (the key store, SQLite): the session calls :func:`plan_search` in a worker thread.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from websearch_tui.core.costs import CachedFrom, Cost
from websearch_tui.core.records import record
from websearch_tui.core.results import PACED_NOTE_START, ProviderOutcome, RunStatus

if TYPE_CHECKING:
    from websearch_tui.core.models import SearchRequest
    from websearch_tui.engine.cache_keys import CacheKeys
    from websearch_tui.engine.engine import Engine
    from websearch_tui.history.codec import Reused
    from websearch_tui.session.history import HistoryAccess
    from websearch_tui.settings.config import Config

log = logging.getLogger(__name__)


@record(frozen=True)
class SearchPlan:
    """What a search will do before it runs: each provider's cache key (with the credentials it was
    worked out with; ``None`` when they could not be worked out, then each run looks its credentials
    up itself) and the results reused from the history (provider id -> outcome)."""

    keys: CacheKeys | None = None
    reuse: Mapping[str, ProviderOutcome] = field(default_factory=dict)


def cache_ttl(config: Config, provider_id: str) -> float:
    """Seconds a result of ``provider_id`` may be reused: ``[providers.X] cache_ttl``, else ``[cache]
    ttl`` (0: never)."""
    own = config.settings_for(provider_id).cache_ttl
    return own if own is not None else config.cache.ttl


def reused_outcome(found: Reused, key: str, now: datetime) -> ProviderOutcome | None:
    """The outcome a search reports for ``found`` (a stored run asked as ``key``) reused at ``now``
    (timezone-aware): the stored outcome with ``cached`` (its search, start, age in seconds), a
    ``"cached"`` cost of $0, ``key``, no elapsed time (nothing was sent), its citations unchecked
    and without the note saying the earlier run waited for its pacing slot (this one did not wait).
    ``None`` when it may not be reused: it did not end ``done``, it was itself reused, or it was
    asked under another key."""
    stored = found.outcome
    if stored.status is not RunStatus.DONE or stored.cached is not None or stored.cache_key not in (None, key):
        return None
    age = max(0.0, (now - found.created_at).total_seconds())
    citations = [dataclasses.replace(citation, check=None) for citation in stored.response.citations]
    notes = [note for note in stored.response.notes if not note.startswith(PACED_NOTE_START)]
    response = dataclasses.replace(stored.response, elapsed_ms=0, first_event_ms=None, citations=citations, notes=notes)
    return dataclasses.replace(
        stored,
        response=response,
        elapsed_ms=0,
        first_event_ms=None,
        paced_ms=0,
        cached=CachedFrom(found.search_id, found.created_at, age),
        cost=Cost(0.0, "cached"),
        cache_key=key,
    )


def plan_search(
    engine: Engine,
    history: HistoryAccess,
    config: Config,
    request: SearchRequest,
    providers: Sequence[str],
    *,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    read: bool,
    now: datetime,
) -> SearchPlan:
    """The plan of a search of ``request`` over ``providers`` (with the search's own provider
    ``options``) at ``now`` (timezone-aware): every provider's cache key, and with ``read`` (not
    fresh, not private) the results the history holds for them (:func:`reusable`). Never raises: keys
    that cannot be worked out give a plan without keys or reuse (logged). Blocking."""
    try:
        keys = engine.cache_keys(request, providers, options)
    except Exception:  # the key store is the runs' to report on: each then looks its keys up itself
        log.exception("the cache keys of a search could not be worked out")
        return SearchPlan()
    if not read:
        return SearchPlan(keys)
    return SearchPlan(keys, reusable(history, config, keys.keys, now))


def reusable(
    history: HistoryAccess, config: Config, keys: Mapping[str, str], now: datetime
) -> dict[str, ProviderOutcome]:
    """Provider id -> the result the history holds for it (:func:`reused_outcome`), for each provider
    of ``keys`` (provider id -> cache key) whose :func:`cache_ttl` is above 0. Nothing while the
    history is off; a history that cannot be read ends the lookup with what was found (logged).
    Blocking."""
    if not history.enabled:
        return {}
    reuse: dict[str, ProviderOutcome] = {}
    for provider_id, key in keys.items():
        ttl = cache_ttl(config, provider_id)
        if ttl <= 0:
            continue
        try:
            found = history.reusable(key, now - timedelta(seconds=ttl))
        except Exception as exc:  # the cache is an optimisation: a broken history only costs a request
            log.warning("the history could not be read for cached results: %s", exc)
            break
        outcome = reused_outcome(found, key, now) if found is not None else None
        if outcome is not None:
            reuse[provider_id] = outcome
    return reuse
