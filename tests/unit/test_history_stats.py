"""The history's runs (issue 26): one row per provider run, the statistics' arithmetic on a history
built here through the real store (rates, exact percentiles, time to first token for streaming
providers only, unique share, citations by other providers, spend, the per-day series, ``since``
and provider filters), the cache lookup's rules, spend, the v3 -> v4 migration, and deleting,
pruning and clearing taking their runs with them."""

from __future__ import annotations

import hashlib
import json
import math
import random
import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from websearch_tui.core.costs import CachedFrom, Cost
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Citation, SearchRequest, SearchResponse, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.history import HistoryRecorder, HistoryStore, schema
from websearch_tui.history import store as store_module
from websearch_tui.history.codec import encode
from websearch_tui.history.runs import run_rows
from websearch_tui.history.stats import ProviderStats, StatsReport
from websearch_tui.session.history import HistoryAccess

DONE, EMPTY, FAILED, CANCELLED = RunStatus.DONE, RunStatus.EMPTY, RunStatus.FAILED, RunStatus.CANCELLED
LABELS = {"brave": "Brave Search", "perplexity": "Perplexity", "exa": "Exa"}


def url(name: str) -> str:
    return f"https://{name}.example/page"


def key(name: str) -> str:
    """A cache key as the engine makes them: a hex digest."""
    return hashlib.sha256(name.encode()).hexdigest()


def outcome(
    provider: str,
    status: RunStatus = DONE,
    elapsed: int = 1000,
    *,
    first: int | None = None,
    sources: tuple[str, ...] = (),
    cited: tuple[str, ...] = (),
    cost: Cost | None = None,
    cached: CachedFrom | None = None,
    cache_key: str | None = None,
) -> ProviderOutcome:
    response = SearchResponse(
        provider=provider,
        answer="an answer" if status is DONE else None,
        sources=[Source(link, f"title of {link}") for link in sources],
        citations=[Citation(link, f"cited {link}") for link in cited],
    )
    error = ProviderError(provider, ErrorKind.NETWORK, "connection reset") if status is FAILED else None
    return ProviderOutcome(provider, status, response, error, elapsed, first, cost, cached, cache_key)


def search(*outcomes: ProviderOutcome, labels: dict[str, str] | None = None, query: str = "q") -> SearchResult:
    providers = tuple(item.provider for item in outcomes)
    request = SearchRequest(query=query, providers=providers)
    return SearchResult(request, "compare", 1, providers, labels or LABELS, list(outcomes))


def local(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    """A local wall-clock time, timezone-aware."""
    return datetime(year, month, day, hour, minute).astimezone()


def estimated(usd: float) -> Cost:
    return Cost(usd, "estimated")


@pytest.fixture(params=["UTC", "Asia/Kolkata", "America/Sao_Paulo"])
def zone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run the test in a local time zone (days are local; Kolkata is +05:30, São Paulo -03:00)."""
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset is not available here")
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    yield request.param
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HistoryStore]:
    store = HistoryStore(tmp_path / "history.sqlite3")
    yield store
    store.close()


def add_four(store: HistoryStore) -> list[int]:
    """Four searches over three local days (10, 11 and 12 March 2026), three providers:

    A (10th 10:00): Brave done 1000 ms [u1 u2 u3] $0.005; Perplexity done 4000 ms (first token 800)
    [u1 u4] citing u2 and u4, $0.01 reported; Exa failed 300 ms.
    B (10th 16:00): Brave done 2000 ms [u5, U6 with a tracking parameter] $0.005; Perplexity empty
    6000 ms (first token 1000) $0.002; Exa done 1500 ms [u6] $0.007.
    C (11th 09:00): Brave reused from A (5 ms; its $0.005 must count 0) [u1 u2 u3]; Perplexity
    cancelled 700 ms (first token 300).
    D (12th 12:00): Brave done 3000 ms [u7], labelled "Brave (new)"; Exa done 500 ms [u7 u8] $0.007.
    """
    a = search(
        outcome("brave", DONE, 1000, first=100, sources=(url("u1"), url("u2"), url("u3")), cost=estimated(0.005)),
        outcome(
            "perplexity",
            DONE,
            4000,
            first=800,
            sources=(url("u1"), url("u4")),
            cited=(url("u2"), url("u4")),
            cost=Cost(0.01, "reported"),
        ),
        outcome("exa", FAILED, 300),
    )
    b = search(
        outcome(
            "brave", DONE, 2000, sources=(url("u5"), "https://U6.example/page/?utm_source=x"), cost=estimated(0.005)
        ),
        outcome("perplexity", EMPTY, 6000, first=1000, cost=estimated(0.002)),
        outcome("exa", DONE, 1500, sources=(url("u6"),), cost=estimated(0.007)),
    )
    reused = CachedFrom(1, local(2026, 3, 10, 10), 82800.0)
    c = search(
        outcome("brave", DONE, 5, sources=(url("u1"), url("u2"), url("u3")), cost=estimated(0.005), cached=reused),
        outcome("perplexity", CANCELLED, 700, first=300),
    )
    d = search(
        outcome("brave", DONE, 3000, sources=(url("u7"),), cost=estimated(0.005)),
        outcome("exa", DONE, 500, sources=(url("u7"), url("u8")), cost=estimated(0.007)),
        labels={**LABELS, "brave": "Brave (new)"},
    )
    times = (local(2026, 3, 10, 10), local(2026, 3, 10, 16), local(2026, 3, 11, 9), local(2026, 3, 12, 12))
    return [store.add(result, created_at=moment) for result, moment in zip((a, b, c, d), times, strict=True)]


def figures(stats: ProviderStats) -> tuple[object, ...]:
    return (
        stats.searches,
        stats.done,
        stats.empty,
        stats.failed,
        stats.cancelled,
        stats.cached,
        stats.latency_p50_ms,
        stats.latency_p95_ms,
        stats.ttft_p50_ms,
    )


def test_the_statistics_of_a_small_history_add_up(store: HistoryStore, zone: str) -> None:
    add_four(store)
    report = store.stats()
    assert (report.since, report.provider, report.searches) == (None, None, 4)
    assert report.spend_usd == pytest.approx(0.015 + 0.012 + 0.014)
    assert [stats.provider for stats in report.providers] == ["brave", "exa", "perplexity"]  # most runs first
    brave, exa, perplexity = report.providers
    # the reused run counts as a search, not in the latencies, and costs nothing
    assert figures(brave) == (4, 4, 0, 0, 0, 1, 2000, 3000, None)  # Brave does not stream: no first token
    assert brave.label == "Brave (new)"  # as its newest search labelled it
    assert brave.sources_per_search == pytest.approx(9 / 4)
    assert brave.unique_share == pytest.approx(6 / 9)  # u2 u3 | u5 | u1 u2 u3 (alone in C); u1 u6 u7 shared
    assert (brave.cited_by_others, brave.cited_share) == (1, pytest.approx(1 / 9))  # u2, cited by Perplexity
    assert brave.spend_usd == pytest.approx(0.015)
    assert brave.rate(DONE) == 1.0 and brave.cached_rate == 0.25 and brave.rate(RunStatus.SKIPPED) == 0.0
    # failed runs do not enter the latency; p50 of [500, 1500] is the first (nearest rank)
    assert figures(exa) == (3, 2, 0, 1, 0, 0, 500, 1500, None)
    assert exa.sources_per_search == pytest.approx(1.5) and exa.unique_share == pytest.approx(1 / 3)
    assert exa.spend_usd == pytest.approx(0.014) and exa.rate(FAILED) == pytest.approx(1 / 3)
    # an empty answer is timed, a cancelled run is not; time to first token for a streaming provider
    assert figures(perplexity) == (3, 1, 1, 0, 1, 0, 4000, 6000, 800)
    assert perplexity.sources_per_search == 2.0 and perplexity.unique_share == 0.5  # u4 alone, u1 shared
    assert (perplexity.cited_by_others, perplexity.cited_share) == (0, 0.0)  # its own citations do not count
    assert perplexity.spend_usd == pytest.approx(0.012)
    days = [(day.day, day.searches, round(day.spend_usd, 6), dict(day.latency_p50_ms)) for day in report.days]
    assert days == [
        ("2026-03-10", 2, 0.029, {"brave": 1000, "exa": 1500, "perplexity": 4000}),
        ("2026-03-11", 1, 0.0, {}),
        ("2026-03-12", 1, 0.012, {"brave": 3000, "exa": 500}),
    ]


def test_since_a_local_midnight_counts_whole_days(store: HistoryStore, zone: str) -> None:
    add_four(store)
    report = store.stats(local(2026, 3, 11))
    assert (report.searches, round(report.spend_usd, 6)) == (2, 0.012)
    assert {stats.provider: figures(stats) for stats in report.providers} == {
        "brave": (2, 2, 0, 0, 0, 1, 3000, 3000, None),
        "exa": (1, 1, 0, 0, 0, 0, 500, 500, None),
        "perplexity": (1, 0, 0, 0, 1, 0, None, None, None),
    }
    assert [day.day for day in report.days] == ["2026-03-11", "2026-03-12"]


def test_since_mid_day_counts_only_the_later_runs_of_that_day(store: HistoryStore, zone: str) -> None:
    add_four(store)
    report = store.stats(local(2026, 3, 10, 12))  # after A, before B
    assert report.searches == 3 and report.spend_usd == pytest.approx(0.014 + 0.012)
    first = report.days[0]
    assert (first.day, first.searches, round(first.spend_usd, 6)) == ("2026-03-10", 1, 0.014)
    assert dict(first.latency_p50_ms) == {"brave": 2000, "exa": 1500, "perplexity": 6000}
    brave = report.of("brave")
    assert brave is not None and figures(brave) == (3, 3, 0, 0, 0, 1, 2000, 3000, None)
    perplexity = report.of("perplexity")
    assert perplexity is not None and perplexity.ttft_p50_ms == 1000  # A's 800 is before the period


def test_one_provider(store: HistoryStore, zone: str) -> None:
    add_four(store)
    report = store.stats(provider="exa")
    assert [stats.provider for stats in report.providers] == ["exa"]
    assert (report.provider, report.searches, round(report.spend_usd, 6)) == ("exa", 3, 0.014)
    days = [(day.day, day.searches, round(day.spend_usd, 6), dict(day.latency_p50_ms)) for day in report.days]
    assert days == [("2026-03-10", 2, 0.007, {"exa": 1500}), ("2026-03-12", 1, 0.007, {"exa": 500})]
    later = store.stats(local(2026, 3, 10, 12), "exa")
    assert (later.searches, [day.day for day in later.days]) == (2, ["2026-03-10", "2026-03-12"])
    assert store.stats(provider="nobody") == StatsReport(None, "nobody", 0, 0.0, (), ())


def test_the_report_is_json_ready(store: HistoryStore) -> None:
    add_four(store)
    since = datetime(2026, 3, 1, tzinfo=timezone.utc)
    data = json.loads(json.dumps(store.stats(since).to_dict()))
    assert (data["since"], data["provider"], data["searches"]) == ("2026-03-01T00:00:00.000Z", None, 4)
    brave = data["providers"][0]
    assert brave["provider"] == "brave" and brave["rates"] == {
        "done": 1.0,
        "empty": 0.0,
        "failed": 0.0,
        "cancelled": 0.0,
        "cached": 0.25,
    }
    assert (brave["latency_p50_ms"], brave["ttft_p50_ms"], brave["unique_share"]) == (2000, None, 0.6667)
    assert data["days"][0]["latency_p50_ms"]["perplexity"] == 4000


def test_an_empty_history_has_an_empty_report(store: HistoryStore) -> None:
    assert store.stats() == StatsReport(None, None, 0, 0.0, (), ())
    assert store.spent(datetime(2026, 1, 1, tzinfo=timezone.utc)) == 0.0


def brute_percentile(values: list[int], percent: int) -> int | None:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(percent * len(ordered) / 100)) - 1] if ordered else None


def test_percentiles_are_exact_whichever_way_they_are_read(store: HistoryStore, zone: str) -> None:
    """300 searches over 60 days with random latencies: every percentile, over everything (index
    walks), over most of the history (walks testing start times), a short period (a range, sorted)
    and from a mid-day start (its partial first day), equals the one computed here from the list."""
    rng = random.Random(26)
    end = local(2026, 6, 30, 23)
    made = []
    for n in range(300):
        moment = end - timedelta(minutes=rng.randrange(60 * 24 * 60))
        outcomes = []
        for provider in ("brave", "perplexity", "exa"):
            status = rng.choice((DONE, DONE, DONE, EMPTY, FAILED, CANCELLED))
            elapsed = rng.choice((rng.randrange(50, 20000), 700))  # ties too
            first = rng.randrange(10, 900) if provider == "perplexity" and rng.random() < 0.9 else None
            cached = CachedFrom(1, moment, 60.0) if status is DONE and rng.random() < 0.1 else None
            outcomes.append(outcome(provider, status, elapsed, first=first, cached=cached))
        store.add(search(*outcomes, query=f"q{n}"), created_at=moment)
        made.append((moment, outcomes))
    for since in (None, end - timedelta(days=50), end - timedelta(days=3), local(2026, 6, 20, 13, 30)):
        report = store.stats(since)
        kept = [(moment, item) for moment, outcomes in made for item in outcomes if since is None or moment >= since]
        for stats in report.providers:
            mine = [item for _, item in kept if item.provider == stats.provider]
            timed = [item.elapsed_ms for item in mine if item.status in (DONE, EMPTY) and item.cached is None]
            firsts = [
                item.first_event_ms
                for item in mine
                if item.status in (DONE, EMPTY) and item.cached is None and item.first_event_ms is not None
            ]
            assert stats.searches == len(mine)
            assert stats.latency_p50_ms == brute_percentile(timed, 50), (since, stats.provider)
            assert stats.latency_p95_ms == brute_percentile(timed, 95), (since, stats.provider)
            expected_first = brute_percentile(firsts, 50) if stats.provider == "perplexity" else None
            assert stats.ttft_p50_ms == expected_first
        by_day: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for moment, item in kept:
            if item.status in (DONE, EMPTY) and item.cached is None:
                by_day[moment.astimezone().date().isoformat()][item.provider].append(item.elapsed_ms)
        medians = {day: {p: brute_percentile(v, 50) for p, v in providers.items()} for day, providers in by_day.items()}
        assert {day.day: dict(day.latency_p50_ms) for day in report.days if day.latency_p50_ms} == medians


# --- the rows ------------------------------------------------------------------------------


def test_run_rows_count_sources_by_canonical_url() -> None:
    result = search(
        outcome("brave", sources=("https://A.example/x/?utm_source=feed", url("b"), url("c")), cost=estimated(0.005)),
        outcome("perplexity", first=40, sources=("https://a.example/x",), cited=(url("b"), url("d"))),
        outcome("exa", FAILED, 90, sources=(url("c"),), cited=("https://C.example/page/",)),
    )
    moment = datetime(2026, 3, 10, 10, tzinfo=timezone.utc)
    brave, perplexity, exa = run_rows(result.outcomes, moment)
    assert (brave.sources, brave.unique_sources, brave.cited_by_others) == (3, 1, 2)  # b unique; b, c cited
    assert (perplexity.sources, perplexity.unique_sources, perplexity.cited_by_others) == (1, 0, 0)
    assert (exa.sources, exa.unique_sources, exa.cited_by_others) == (1, 0, 0)  # its own citation of c: not "others"
    assert (brave.lead, perplexity.lead, exa.lead) == (True, False, False)
    assert (brave.streams, perplexity.streams, exa.streams) == (False, True, False)
    assert (brave.timed, perplexity.timed, exa.timed) == (True, True, False)
    assert (brave.cost_usd, brave.cost_basis, perplexity.cost_usd, perplexity.cost_basis) == (
        0.005,
        "estimated",
        None,
        None,
    )
    assert brave.started == moment.timestamp() and brave.day == moment.astimezone().date().isoformat()


def test_a_retry_is_compared_with_the_search_it_retries_and_is_not_a_search_of_its_own(store: HistoryStore) -> None:
    first = search(
        outcome("brave", sources=(url("u1"), url("u2")), cited=()),
        outcome("exa", FAILED),
        outcome("perplexity", sources=(url("u3"),), cited=(url("u9"),)),
    )
    store.add(first, created_at=local(2026, 3, 10, 9))
    retry = search(outcome("exa", sources=(url("u1"), url("u9"))))
    retry.retry_of = (first.outcomes[0], first.outcomes[2])  # what the session keeps on screen
    (row,) = run_rows(retry.outcomes, local(2026, 3, 10, 9, 1), retry_of=retry.retry_of)
    # u1 brave found too, u9 only exa (perplexity cited it): compared with the search on screen
    assert (row.lead, row.sources, row.unique_sources, row.cited_by_others) == (False, 2, 1, 1)
    store.add(retry, created_at=local(2026, 3, 10, 9, 1))
    report = store.stats()
    exa = report.of("exa")
    assert report.searches == 1 and report.days[0].searches == 1  # the retry is part of the first search
    assert exa is not None and (exa.searches, exa.done, exa.failed, exa.unique_share) == (2, 1, 1, 0.5)


def test_the_average_cost_counts_answered_runs_sent_with_a_known_cost(store: HistoryStore) -> None:
    reused = CachedFrom(1, local(2026, 3, 10, 8), 60.0)
    store.add(search(outcome("brave", cost=estimated(0.01))), created_at=local(2026, 3, 10, 8))
    store.add(search(outcome("brave", cost=estimated(0.03))), created_at=local(2026, 3, 10, 9))
    for hour in (10, 11, 12):  # failures before any answer cost nothing: they must not pull the average down
        store.add(search(outcome("brave", FAILED, cost=estimated(0.0))), created_at=local(2026, 3, 10, hour))
    store.add(search(outcome("brave", cached=reused, cost=Cost(0.0, "cached"))), created_at=local(2026, 3, 10, 13))
    assert store.average_cost("brave", local(2026, 3, 1)) == pytest.approx(0.02)
    assert store.average_cost("brave", local(2026, 3, 10, 9)) == pytest.approx(0.03)
    assert store.average_cost("exa", local(2026, 3, 1)) is None


def test_a_cost_no_run_can_have_is_not_stored_as_spend() -> None:
    moment = datetime(2026, 3, 10, tzinfo=timezone.utc)
    outcomes = [outcome("exa", cost=Cost(-5.0, "reported")), outcome("brave", cost=Cost(math.inf, "estimated"))]
    assert [(row.cost_usd, row.cost_basis) for row in run_rows(outcomes, moment)] == [(None, None), (None, None)]


def test_a_runs_latency_leaves_out_its_pacing_wait() -> None:
    paced = replace(outcome("perplexity", elapsed=2500, first=1900), paced_ms=1800)
    (row,) = run_rows([paced], datetime(2026, 3, 10, tzinfo=timezone.utc))
    assert (row.elapsed_ms, row.first_event_ms) == (700, 100)  # what the provider took once it was asked


def test_a_reused_run_costs_nothing_and_is_not_timed() -> None:
    reused = CachedFrom(7, datetime(2026, 3, 10, tzinfo=timezone.utc), 30.0)
    (row,) = run_rows(
        [outcome("brave", elapsed=3, cost=estimated(0.005), cached=reused, cache_key=key("k"))],
        datetime(2026, 3, 10, 0, 5, tzinfo=timezone.utc),
    )
    assert (row.cached, row.timed, row.cost_usd, row.cost_basis, row.cache_key) == (
        True,
        False,
        0.0,
        "cached",
        key("k"),
    )


# --- the cache lookup and spend ------------------------------------------------------------


def test_reusable_finds_the_newest_done_run_sent_under_that_key(store: HistoryStore) -> None:
    now = datetime(2026, 3, 10, 12, tzinfo=timezone.utc)
    hour = timedelta(hours=1)
    k, other = key("brave|asyncio"), key("brave|rust")

    def add(status: RunStatus, age: timedelta, *, cached: bool = False, cache_key: str = k, name: str = "x") -> int:
        reused = CachedFrom(1, now - age, 1.0) if cached else None
        item = outcome("brave", status, 900, sources=(url(name),), cache_key=cache_key, cached=reused)
        return store.add(search(item, outcome("exa", DONE, cache_key=key(f"exa{name}"))), created_at=now - age)

    oldest = add(DONE, 2 * hour, name="oldest")
    newest = add(DONE, hour / 2, name="newest")
    add(FAILED, hour / 4)  # newer, but failed
    add(EMPTY, hour / 5)  # newer, but empty
    add(CANCELLED, hour / 6)
    add(DONE, hour / 8, cached=True)  # newer, but itself reused
    add(DONE, hour / 10, cache_key=other, name="other")  # another key
    add(DONE, hour, name="added-late-but-older")  # a higher id, started earlier: not the newest
    found = store.reusable(k, now - 3 * hour)
    assert found is not None and found.search_id == newest
    assert found.created_at == now - hour / 2
    assert found.outcome.provider == "brave" and found.outcome.status is DONE
    assert [source.url for source in found.outcome.response.sources] == [url("newest")]
    assert store.reusable(k, now - hour / 3) is None  # only older than the cutoff
    assert store.reusable(key("nobody"), now - 3 * hour) is None
    store.delete(newest)
    found = store.reusable(k, now - 3 * hour)
    assert found is not None and found.search_id != oldest  # the one added late, started an hour ago
    assert [source.url for source in found.outcome.response.sources] == [url("added-late-but-older")]


def test_spent_sums_the_costs_since_a_moment(store: HistoryStore, zone: str) -> None:
    add_four(store)
    assert store.spent(local(2026, 3, 1)) == pytest.approx(0.041)
    assert store.spent(local(2026, 3, 10, 12)) == pytest.approx(0.026)  # from B on (mid-day)
    assert store.spent(local(2026, 3, 11)) == pytest.approx(0.012)  # C's reused run costs 0
    assert store.spent(local(2026, 3, 12, 12, 1)) == 0.0


def test_history_access_reads_through_the_store_after_a_flush(tmp_path: Path) -> None:
    class Recorder:
        flushed = 0

        def flush(self, timeout: float | None = None) -> bool:
            self.flushed += 1
            return True

    recorder = Recorder()
    access = HistoryAccess(tmp_path / "history.sqlite3", recorder=recorder)  # type: ignore[arg-type]
    since = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert access.stats(since, "exa") == StatsReport(since, "exa", 0, 0.0, (), ())  # no file yet
    assert access.spent(since) == 0.0 and access.reusable(key("k"), since) is None
    assert not (tmp_path / "history.sqlite3").exists() and recorder.flushed == 3
    store = HistoryStore(tmp_path / "history.sqlite3")
    add_four(store)
    store.close()
    assert access.stats() == HistoryStore(tmp_path / "history.sqlite3").stats()
    assert access.spent(since) == pytest.approx(0.041)
    access.close()


# --- the schema ----------------------------------------------------------------------------


def runs_of(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT search_id, provider FROM runs ORDER BY search_id, provider").fetchall()


def runs_or_none(path: Path) -> list[tuple[object, ...]]:
    """:func:`runs_of`, or none while the file has no runs table yet (not migrated)."""
    try:
        return runs_of(path)
    except sqlite3.OperationalError:
        return []


def run_days(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT provider, day, runs, done, spend_usd FROM run_days ORDER BY 1, 2").fetchall()


def test_deleting_pruning_and_clearing_take_the_runs_with_them(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    store = HistoryStore(path)
    ids = add_four(store)
    store.delete(ids[1])  # B
    assert [row for row in runs_of(path) if row[0] == ids[1]] == []
    report = store.stats()
    assert report.searches == 3 and report.spend_usd == pytest.approx(0.015 + 0.012)
    assert [(day.day, day.searches) for day in report.days] == [("2026-03-10", 1), ("2026-03-11", 1), ("2026-03-12", 1)]
    exa = report.of("exa")
    assert exa is not None and (exa.searches, exa.latency_p50_ms) == (2, 500)
    store.clear()
    assert (runs_of(path), run_days(path), store.stats().searches) == ([], [], 0)
    add_four(store)  # the triggers are back
    assert store.stats().searches == 4 and len(runs_of(path)) == 10
    store.close()
    pruned = HistoryStore(tmp_path / "pruned.sqlite3", max_entries=2)
    ids = add_four(pruned)
    assert {row[0] for row in runs_of(tmp_path / "pruned.sqlite3")} == set(ids[2:])
    assert [(day.day, day.searches) for day in pruned.stats().days] == [("2026-03-11", 1), ("2026-03-12", 1)]
    assert [row[:4] for row in run_days(tmp_path / "pruned.sqlite3")] == [
        ("brave", "2026-03-11", 1, 1),
        ("brave", "2026-03-12", 1, 1),
        ("exa", "2026-03-12", 1, 1),
        ("perplexity", "2026-03-11", 1, 0),
    ]
    pruned.close()


def write_version_3(path: Path, results: list[tuple[SearchResult, datetime]], damaged: int | None = None) -> None:
    """A history file as version 3 of the schema left it: searches, their index and pages; no runs.
    ``damaged``: the position of a search whose outcomes are not readable."""
    with sqlite3.connect(path) as db:
        schema.MIGRATIONS[0](db)
        for position, (result, moment) in enumerate(results):
            columns = dict(encode(result, moment).columns)
            if position == damaged:
                columns["outcomes"] = b"not zlib"
            names, marks = ", ".join(columns), ", ".join("?" for _ in columns)
            db.execute(f"INSERT INTO searches({names}) VALUES ({marks})", tuple(columns.values()))
        schema.MIGRATIONS[1](db)
        schema.MIGRATIONS[2](db)
        db.execute("PRAGMA user_version = 3")


def test_a_version_3_file_gains_the_runs_of_its_searches(tmp_path: Path, zone: str) -> None:
    path = tmp_path / "history.sqlite3"
    old = [  # searches stored before costs and cache keys
        (
            search(
                outcome("brave", DONE, 1200, sources=(url("a"), url("b"))),
                outcome("exa", DONE, 800, sources=(url("a"),)),
            ),
            local(2026, 2, 1, 9),
        ),
        (search(outcome("brave", FAILED, 100), outcome("exa", DONE, 600)), local(2026, 2, 1, 18)),
        (search(outcome("brave", DONE, 999)), local(2026, 2, 2, 8)),
        (search(outcome("perplexity", DONE, 5000, first=700, sources=(url("c"),))), local(2026, 2, 3, 8)),
    ]
    write_version_3(path, old, damaged=2)
    store = HistoryStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == schema.LATEST == 4
        assert schema.pending_below(db) == 5 and runs_of(path) == []  # opening does not wait for the backfill
    store.add(search(outcome("brave", DONE, 10)), created_at=local(2026, 2, 4, 8))  # gets its runs at once
    assert runs_of(path) == [(5, "brave")]
    report = store.stats()  # backfills what is left first
    with sqlite3.connect(path) as db:
        counts = db.execute(
            "SELECT count(*), count(cost_usd), count(cost_basis), count(cache_key) FROM runs WHERE search_id < 5"
        ).fetchone()
        assert schema.pending_below(db) is None
    assert counts == (5, 0, 0, 0)  # the damaged search has no runs; old records: no cost, no key
    assert (report.searches, report.spend_usd) == (4, 0.0)
    brave, exa, perplexity = report.providers[0], report.of("exa"), report.of("perplexity")
    assert brave.provider == "brave" and figures(brave) == (3, 2, 0, 1, 0, 0, 10, 1200, None)
    assert brave.unique_share == 0.5 and exa is not None and exa.unique_share == 0.0
    assert perplexity is not None and perplexity.ttft_p50_ms == 700
    days = [(day.day, day.searches) for day in report.days]
    assert days == [("2026-02-01", 2), ("2026-02-03", 1), ("2026-02-04", 1)]
    assert store.reusable(key("anything"), local(2026, 1, 1)) is None
    assert store.count() == 5  # the damaged search is kept as it was
    store.close()
    HistoryStore(path).close()  # opened again: nothing more to migrate
    assert len(runs_of(path)) == 6


def test_the_backfill_goes_newest_first_in_batches_and_never_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.sqlite3"
    old = [(search(outcome("brave", DONE, 100 + n)), local(2026, 2, 1, n)) for n in range(7)]
    write_version_3(path, old)
    monkeypatch.setattr(store_module, "BACKFILL_BATCH", 3)
    first, second = HistoryStore(path), HistoryStore(path)
    assert first.backfill()  # searches 7, 6, 5
    assert [row[0] for row in runs_of(path)] == [5, 6, 7]
    first.delete(4)  # deleted before its turn: nothing to do for it
    compute = store_module.backfill_values

    def racing(rows):  # while the first store works its batch out, the second writes the same one
        if not racing.raced:
            racing.raced = True
            assert not second.backfill()  # the last batch: 3, 2, 1
        return compute(rows)

    racing.raced = False
    monkeypatch.setattr(store_module, "backfill_values", racing)
    assert not first.backfill()  # its batch was written meanwhile, and nothing is left
    assert [row[0] for row in runs_of(path)] == [1, 2, 3, 5, 6, 7]  # each once
    assert not first.backfill() and not second.backfill()
    with sqlite3.connect(path) as db:
        assert schema.pending_below(db) is None
    assert first.stats().searches == 6
    first.close()
    second.close()


def test_stats_say_how_many_older_searches_are_left_to_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "history.sqlite3"
    write_version_3(path, [(search(outcome("brave", DONE, 100 + n)), local(2026, 2, 1, n)) for n in range(7)])
    monkeypatch.setattr(store_module, "BACKFILL_BATCH", 3)
    store = HistoryStore(path)
    assert store.unbackfilled() == 7
    told: list[int] = []
    assert store.stats(progress=told.append).searches == 7
    assert told == [7, 4, 1] and store.unbackfilled() == 0
    assert store.stats(progress=told.append).searches == 7 and told == [7, 4, 1]  # nothing left: not called
    store.close()


def test_the_stats_command_says_it_is_counting_older_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from websearch_tui.cli.main import main

    path = tmp_path / "history.sqlite3"
    write_version_3(path, [(search(outcome("brave", DONE, 100 + n)), local(2026, 2, 1, n)) for n in range(4)])
    monkeypatch.setenv("WEBSEARCH_TUI_HISTORY", str(path))
    monkeypatch.setenv("WEBSEARCH_TUI_CONFIG", str(tmp_path / "config.toml"))
    assert main(["stats", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == "Counting 4 searches recorded by an earlier version (once)…\n"
    assert json.loads(out)["searches"] == 4
    assert main(["stats", "--format", "json"]) == 0
    assert capsys.readouterr().err == ""  # counted once


def test_the_recorder_backfills_after_a_search(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    write_version_3(path, [(search(outcome("exa", DONE, 100 + n)), local(2026, 2, 1, n)) for n in range(5)])
    recorder = HistoryRecorder(path, max_entries=100)
    recorder.record(search(outcome("brave", DONE, 50)), local(2026, 2, 2))
    deadline = time.monotonic() + 30
    while len(runs_or_none(path)) < 6 and time.monotonic() < deadline:
        time.sleep(0.02)
    recorder.close()
    assert [row[0] for row in runs_of(path)] == [1, 2, 3, 4, 5, 6]
    with sqlite3.connect(path) as db:
        assert schema.pending_below(db) is None
