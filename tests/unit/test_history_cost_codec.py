"""A stored outcome record keeps what the run cost, where a reused result came from and its cache key;
older records (without them) and malformed values read back as ``None``."""

from __future__ import annotations

import dataclasses
import json
import zlib
from datetime import datetime, timezone
from typing import Any

import pytest

from tests.helpers import sample_result
from websearch_tui.core.costs import CachedFrom, Cost
from websearch_tui.core.results import SearchResult
from websearch_tui.history.codec import decode_outcome, decode_result, encode, outcome_record, unpack

WHEN = datetime(2026, 12, 3, 9, 30, tzinfo=timezone.utc)
KEY = "9f2c" * 16


def row(result: SearchResult, outcomes: list[dict[str, Any]] | None = None) -> tuple[Any, ...]:
    """The stored row of ``result`` as :func:`decode_result` reads it (id 7), its outcome records
    replaced by ``outcomes`` when given."""
    columns = dict(encode(result, WHEN).columns)
    if outcomes is not None:
        columns["outcomes"] = zlib.compress(json.dumps(outcomes).encode())
    names = ("created_at", "query", "mode", "recency", "max_results", "providers", "labels", "statuses")
    return (
        7,
        *(columns[name] for name in names),
        columns["request"],
        columns["winner"],
        columns["error"],
        columns["outcomes"],
    )


def with_costs() -> SearchResult:
    result = sample_result()
    first, second = result.outcomes
    cached = CachedFrom(41, datetime(2026, 12, 3, 9, 18, 0, 500000, tzinfo=timezone.utc), 720.25)
    outcomes = [
        dataclasses.replace(first, cost=Cost(0.0, "cached"), cached=cached, cache_key=KEY),
        dataclasses.replace(second, cost=Cost(0.00412345, "estimated")),
    ]
    return dataclasses.replace(result, outcomes=outcomes, created_at=WHEN)


def test_cost_cached_and_cache_key_round_trip() -> None:
    result = with_costs()
    stored = decode_result(row(result)).result
    first, second = stored.outcomes
    assert first.cost == Cost(0.0, "cached") and first.cache_key == KEY
    assert first.cached == CachedFrom(41, datetime(2026, 12, 3, 9, 18, 0, 500000, tzinfo=timezone.utc), 720.25)
    assert second.cost == Cost(0.00412345, "estimated") and second.cached is None and second.cache_key is None
    assert [outcome_record(o) for o in stored.outcomes] == [outcome_record(o) for o in result.outcomes]
    assert stored.to_dict()["cost_usd"] == result.to_dict()["cost_usd"] == 0.004123


def test_the_record_shape() -> None:
    first, second = (outcome_record(o) for o in with_costs().outcomes)
    assert first["cost"] == {"usd": 0.0, "basis": "cached"}
    assert first["cached"] == {"search_id": 41, "created_at": "2026-12-03T09:18:00.500Z", "age_seconds": 720.25}
    assert first["cache_key"] == KEY
    assert (second["cached"], second["cache_key"]) == (None, None)


def test_an_older_record_reads_back_without_them() -> None:
    records = unpack(encode(sample_result(), WHEN).columns["outcomes"])
    for record in records:
        for name in ("cost", "cached", "cache_key"):
            record.pop(name)
    stored = decode_result(row(sample_result(), records)).result
    assert all(o.cost is None and o.cached is None and o.cache_key is None for o in stored.outcomes)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("cost", {"usd": -1, "basis": "estimated"}),
        ("cost", {"usd": "0.1", "basis": "estimated"}),
        ("cost", {"usd": True, "basis": "estimated"}),
        ("cost", {"usd": 0.1, "basis": "guessed"}),
        ("cost", [0.1, "estimated"]),
        ("cached", {"search_id": 0, "created_at": "2026-12-03T09:18:00Z", "age_seconds": 1}),
        ("cached", {"search_id": 3, "created_at": "yesterday", "age_seconds": 1}),
        ("cached", {"search_id": 3, "created_at": "2026-12-03T09:18:00", "age_seconds": 1}),  # no zone
        ("cached", {"search_id": 3, "created_at": "2026-12-03T09:18:00Z", "age_seconds": -5}),
        ("cached", "41"),
        ("cache_key", "not a digest"),
        ("cache_key", 12345),
        ("cache_key", "ABCDEF0123456789"),
    ],
)
def test_a_malformed_value_reads_back_as_none(name: str, value: Any) -> None:
    record = outcome_record(with_costs().outcomes[0])
    record[name] = value
    assert getattr(decode_outcome(record), name) is None
