"""How a search becomes a stored row, and a stored row a search again.

A search is one row of the ``searches`` table (:mod:`websearch_tui.history.schema`): plain columns
for what a list shows (query, time, mode, providers, each provider's final status) and ``outcomes``,
the zlib-compressed JSON list of every provider's outcome record::

    {"provider": "exa", "status": "done", "elapsed_ms": 1234, "first_event_ms": 210,
     "response": {<SearchResponse.to_dict()>}, "error": {"kind", "message", "status"} | null,
     "cost": {"usd", "basis"} | null, "cached": {"search_id", "created_at", "age_seconds"} | null,
     "cache_key": "<hex digest>" | null, "paced_ms": 0}

``cost`` (US dollars unrounded, so a search's total adds up as it did), ``cached``, ``cache_key`` and
``paced_ms`` (the pacing wait inside ``elapsed_ms``) came with the issue-26 records; an older record
without them reads back with ``None`` for each (``paced_ms`` 0), as does one whose value is malformed
(a cost or a reuse is never made up).

Every string of a row passes :func:`~websearch_tui.core.errors.redact` before it is written, so no
configured secret reaches the file. A stored row is read back as untrusted input: every string is
sanitized again (:func:`~websearch_tui.core.text.sanitize`) and a malformed row raises
:class:`RowError` instead of building a broken search.
"""

from __future__ import annotations

import dataclasses
import json
import math
import zlib
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, TypeVar, get_args

from websearch_tui.core.checks import CitationCheck, Verdict
from websearch_tui.core.costs import CachedFrom, Cost, CostBasis, plausible_usd
from websearch_tui.core.errors import ErrorKind, ProviderError, map_strings, redact_document
from websearch_tui.core.models import Citation, SearchRequest, SearchResponse, Source, Usage, as_plain
from websearch_tui.core.records import record
from websearch_tui.core.results import SUMMARY_ORDER, ProviderOutcome, RunStatus, SearchResult
from websearch_tui.core.text import pattern, sanitize
from websearch_tui.history.index import index_body

_T = TypeVar("_T")
ENTRY_COLUMNS = "id, created_at, query, mode, recency, max_results, providers, labels, statuses"
"""The columns :func:`decode_entry` reads, in its order."""
RESULT_COLUMNS = f"{ENTRY_COLUMNS}, request, winner, error, outcomes"
"""The columns :func:`decode_result` reads, in its order."""
_HEX = r"[0-9a-f]{16,128}"
"""A stored cache key: a lower-case hex digest."""


class RowError(ValueError):
    """A stored row cannot be read back (damaged or written by something else); the message says why."""


@record(frozen=True)
class HistoryEntry:
    """One stored search as a list shows it.

    Attributes:
        id: its number in the store (>= 1, never reused).
        created_at: when the search started, timezone-aware UTC.
        query: the query (sanitized).
        mode: ``"compare"`` or ``"auto"``.
        recency: ``"day"`` ... ``"year"`` or ``None``.
        max_results: sources asked per provider.
        providers: the provider ids it ran, in order.
        labels: provider id -> display label when it ran.
        statuses: provider id -> final :class:`RunStatus` (``SKIPPED`` for those auto mode did not need).
    """

    id: int
    created_at: datetime
    query: str
    mode: str
    recency: str | None
    max_results: int
    providers: tuple[str, ...]
    labels: Mapping[str, str]
    statuses: Mapping[str, RunStatus]

    def counts(self) -> dict[RunStatus, int]:
        """How many providers ended in each final status, in :data:`SUMMARY_ORDER` (zeros included)."""
        values = list(self.statuses.values())
        return {status: values.count(status) for status in SUMMARY_ORDER}

    def label(self, provider_id: str) -> str:
        """The display label of ``provider_id`` (the id when unknown)."""
        return self.labels.get(provider_id, provider_id)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"id", "query", "created_at" (ISO 8601 UTC), "mode", "recency", "max_results",
        "providers", "counts": {"done": n, "empty": n, "failed": n, "cancelled": n, "skipped": n}}``."""
        return {
            "id": self.id,
            "query": self.query,
            "created_at": iso_utc(self.created_at),
            "mode": self.mode,
            "recency": self.recency,
            "max_results": self.max_results,
            "providers": list(self.providers),
            "counts": {status.value: count for status, count in self.counts().items()},
        }


@record(frozen=True)
class StoredSearch:
    """A stored search: its list entry and the :class:`SearchResult` as it ended (its ``search_id`` is 0)."""

    entry: HistoryEntry
    result: SearchResult


@record(frozen=True)
class Reused:
    """A provider's result the cache may reuse: the outcome as stored in search ``search_id``.

    Attributes:
        search_id: the history id of the search that ran it.
        created_at: when that search started (timezone-aware UTC).
        outcome: the provider's outcome as stored (decoded from the search's row: not a second copy).
    """

    search_id: int
    created_at: datetime
    outcome: ProviderOutcome


@record(frozen=True)
class EncodedSearch:
    """A search ready to insert: the ``searches`` column values (already redacted) and the indexed body."""

    columns: Mapping[str, object]
    body: str


def iso_utc(moment: datetime) -> str:
    """``moment`` as ISO 8601 UTC with milliseconds: ``"2026-05-01T14:03:05.120Z"``."""
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def outcome_record(outcome: ProviderOutcome) -> dict[str, Any]:
    """The stored record of one outcome (see the module docstring), not yet redacted."""
    return {
        "provider": outcome.provider,
        "status": outcome.status.value,
        "elapsed_ms": outcome.elapsed_ms,
        "first_event_ms": outcome.first_event_ms,
        "response": outcome.response.to_dict(),
        "error": outcome.error.to_dict() if outcome.error is not None else None,
        "cost": {"usd": outcome.cost.usd, "basis": outcome.cost.basis} if outcome.cost is not None else None,
        "cached": _cached_record(outcome.cached) if outcome.cached is not None else None,
        "cache_key": outcome.cache_key,
        "paced_ms": outcome.paced_ms,
    }


def _cached_record(cached: CachedFrom) -> dict[str, Any]:
    """The stored form of where a reused result came from: ``{"search_id", "created_at" (ISO 8601
    UTC), "age_seconds"}`` (the age as it was when reused, so the record reads back as it was shown)."""
    return {"search_id": cached.search_id, "created_at": iso_utc(cached.created_at), "age_seconds": cached.age_seconds}


def encode(result: SearchResult, created_at: datetime) -> EncodedSearch:
    """The row of ``result`` (every string redacted) and its indexed body."""
    request = as_plain(result.request)
    del request["query"]  # the query column holds it
    request["providers"] = list(result.request.providers)
    redacted = redact_document(  # one search for secrets over every string of the row
        {
            "outcomes": [outcome_record(outcome) for outcome in result.outcomes],
            "query": result.request.query,
            "labels": dict(result.labels),
            "request": request,
            "error": result.error or None,
        }
    )
    outcomes = redacted["outcomes"]
    columns: dict[str, object] = {
        "created_at": iso_utc(created_at),
        "query": redacted["query"],
        "mode": result.mode,
        "recency": result.request.recency,
        "max_results": result.request.max_results,
        "providers": _json(list(result.providers)),
        "labels": _json(redacted["labels"]),
        "statuses": _json({pid: status.value for pid, status in result.statuses().items()}),
        "request": _json(redacted["request"]),
        "winner": result.winner,
        "error": redacted["error"],
        "outcomes": pack(outcomes),
    }
    return EncodedSearch(columns, index_body(outcomes))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def pack(outcomes: Sequence[Mapping[str, Any]]) -> bytes:
    """The ``outcomes`` column: compact JSON of the outcome records, zlib-compressed."""
    return zlib.compress(_json(list(outcomes)).encode("utf-8"), 6)


def unpack(blob: object) -> list[dict[str, Any]]:
    """The outcome records of an ``outcomes`` column, exactly as stored (not sanitized).

    Raises:
        RowError: the column is not compressed JSON of a list of objects.
    """
    try:
        records = json.loads(zlib.decompress(blob))  # type: ignore[arg-type]
    except (TypeError, ValueError, zlib.error) as exc:
        raise RowError(f"its provider results cannot be read ({exc})") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise RowError("its provider results are not a list of records")
    return records


def decode_entry(row: Sequence[Any]) -> HistoryEntry:
    """The :class:`HistoryEntry` of a row of :data:`ENTRY_COLUMNS`.

    Raises:
        RowError: a column is missing or malformed.
    """
    try:
        entry_id, created_at, query, mode, recency, max_results, providers, labels, statuses = row[:9]
        provider_ids = tuple(sanitize(p) for p in _loads(providers, list))
        return HistoryEntry(
            id=int(entry_id),
            created_at=datetime.fromisoformat(str(created_at).replace("Z", "+00:00")),
            query=sanitize(query),
            mode=sanitize(mode),
            recency=sanitize(recency) if recency else None,
            max_results=int(max_results),
            providers=provider_ids,
            labels={sanitize(k): sanitize(v) for k, v in _loads(labels, dict).items()},
            statuses={sanitize(k): RunStatus(v) for k, v in _loads(statuses, dict).items()},
        )
    except (TypeError, ValueError) as exc:
        raise RowError(f"it is not a readable search ({exc})") from None


def decode_result(row: Sequence[Any]) -> StoredSearch:
    """The :class:`StoredSearch` of a row of :data:`RESULT_COLUMNS`, every string sanitized.

    Raises:
        RowError: a column is missing or malformed.
    """
    entry = decode_entry(row)
    request_json, winner, error, blob = row[9:13]
    try:
        fields = _known(SearchRequest, map_strings(_loads(request_json, dict), sanitize))
        request = SearchRequest(**{**fields, "query": entry.query})
        outcomes = [_outcome(map_strings(record, sanitize)) for record in unpack(blob)]
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # AttributeError: a list where a table was
        raise RowError(f"it is not a readable search ({exc})") from None
    result = SearchResult(
        request=request,
        mode=entry.mode,
        providers=entry.providers,
        labels=dict(entry.labels),
        outcomes=outcomes,
        winner=sanitize(winner) if winner else None,
        error=sanitize(error) if error else None,
        created_at=entry.created_at,
    )
    return StoredSearch(entry, result)


def _loads(text: object, kind: type[_T]) -> _T:
    value = json.loads(text)  # type: ignore[arg-type]
    if not isinstance(value, kind):
        raise ValueError(f"expected a JSON {kind.__name__}")
    return value


def _known(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """The items of ``data`` that are fields of the dataclass ``cls`` (a newer or older record may
    have more or fewer; missing ones take their defaults)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {key: value for key, value in data.items() if key in names}


def _citation(data: Mapping[str, Any]) -> Citation:
    """A stored citation, with its check when it was checked (an unknown verdict drops the check)."""
    citation = Citation(**_known(Citation, data))
    check = data.get("check")
    if not isinstance(check, Mapping):
        return dataclasses.replace(citation, check=None)
    try:
        verdict = Verdict(check.get("verdict"))
    except ValueError:
        return dataclasses.replace(citation, check=None)
    text = {key: value if isinstance(value, str) else None for key, value in check.items()}
    stored = CitationCheck(
        verdict,
        passage=text.get("passage"),
        reason=text.get("reason"),
        final_url=text.get("final_url"),
        retrieved_at=text.get("retrieved_at"),
        content_sha256=text.get("content_sha256"),
    )
    return dataclasses.replace(citation, check=stored)


def _outcome(record: Mapping[str, Any]) -> ProviderOutcome:
    data = record.get("response") or {"provider": record["provider"]}
    response = SearchResponse(**_known(SearchResponse, data))
    response.sources = [Source(**_known(Source, s)) for s in data.get("sources") or []]
    response.citations = [_citation(c) for c in data.get("citations") or []]
    response.usage = Usage(**_known(Usage, data["usage"])) if data.get("usage") else None
    error = record.get("error")
    return ProviderOutcome(
        provider=record["provider"],
        status=RunStatus(record["status"]),
        response=response,
        error=_error(record["provider"], error) if error else None,
        elapsed_ms=int(record.get("elapsed_ms") or 0),
        first_event_ms=record.get("first_event_ms"),
        cost=_cost(record.get("cost")),
        cached=_cached(record.get("cached")),
        cache_key=key if isinstance(key := record.get("cache_key"), str) and pattern(_HEX).fullmatch(key) else None,
        paced_ms=paced if isinstance(paced := record.get("paced_ms"), int) and paced > 0 else 0,
    )


def _cost(data: object) -> Cost | None:
    """A stored cost: ``{"usd": 0..$100 (plausible_usd), "basis": one of CostBasis}``; ``None`` when
    absent or malformed."""
    if not isinstance(data, Mapping):
        return None
    usd, basis = data.get("usd"), data.get("basis")
    if not plausible_usd(usd):
        return None
    for known in get_args(CostBasis):
        if basis == known:
            return Cost(float(usd), known)
    return None


def _cached(data: object) -> CachedFrom | None:
    """A stored reuse record (:func:`_cached_record`); ``None`` when absent or malformed."""
    if not isinstance(data, Mapping):
        return None
    search_id, created, age = data.get("search_id"), data.get("created_at"), data.get("age_seconds")
    if isinstance(search_id, bool) or not isinstance(search_id, int) or search_id < 1:
        return None
    if isinstance(age, bool) or not isinstance(age, (int, float)) or not 0 <= age < math.inf:
        return None
    try:
        moment = datetime.fromisoformat(str(created).replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return CachedFrom(search_id, moment, float(age))


def _error(provider: str, data: Mapping[str, Any]) -> ProviderError:
    try:
        kind = ErrorKind(data.get("kind"))
    except ValueError:  # a kind a later version added
        kind = ErrorKind.PROTOCOL
    return ProviderError(provider, kind, str(data.get("message") or ""), status=data.get("status"))


def decode_outcome(record: Mapping[str, Any]) -> ProviderOutcome:
    """The :class:`ProviderOutcome` of one stored outcome record (an item of :func:`unpack`), its
    strings as stored: not sanitized, so only for counting and measuring (the ``runs`` backfill);
    :func:`decode_result` is the way to read a search to show it.

    Raises:
        RowError: the record is malformed.
    """
    try:
        return _outcome(record)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise RowError(f"it is not a readable provider result ({exc})") from None
