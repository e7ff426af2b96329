"""Statistics at scale: the Stats screen's figures, the cache lookup and the spend query on 10,000 and
100,000 stored searches of 6 providers each, through the real store and schema (issue 26).

Each history is built in bulk for speed, through the real schema: a store creates the file (schema
v4), then the searches go in one transaction, each a row of ``searches`` (one of 60 realistic encoded
results, see ``benchmarks/history.py``'s corpus, under its own time; the full-text index is left
empty: nothing here searches text) and its six ``runs`` rows, inserted with the schema's triggers
keeping ``run_days`` as the store does. The runs are realistic: over the last 365 days, three web
engines (DuckDuckGo keyless, Brave priced per request, Exa reporting its cost) and three streaming
model-native providers (priced per token), each with its own latency (log-normal), time to first
token, failure, empty and cancel rates, sources, unique and cited shares; 8 % of runs reused from the
cache, a query repeated now and then.

Printed, not asserted (the issue's target in brackets):

- opening the file, then ``stats()`` over everything, over the last 30 days (``--since 30d``) and
  for one provider [the Stats screen opens in < 300 ms on 100,000 searches];
- ``reusable()`` (a hit and a miss) and ``spent()`` (today, this month);
- adding one search (its six runs rows written in the same transaction);
- the v3 -> v4 migration of a file of real encoded searches (``--migrate 10000,100000``): opening it,
  then the backfill of its runs batch by batch as the recorder runs it; and, for comparison, what
  decoding every stored search for each report would cost (measured on 2,000, scaled).

    python3 benchmarks/stats.py [--sizes 10000,100000] [--migrate 10000,100000] [--runs 10] [--keep DIR]

``--keep DIR`` builds the files there once and reuses them on the next run.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from history import MODELS, WEB, Corpus, timed  # noqa: E402

from websearch_tui.history import HistoryStore, schema  # noqa: E402
from websearch_tui.history.codec import RESULT_COLUMNS, decode_result, encode  # noqa: E402
from websearch_tui.history.runs import RUN_COLUMNS, local_day, run_rows  # noqa: E402

PROVIDERS = (*WEB, *MODELS)
DAYS = 365
POOL = 60


@dataclass(frozen=True)
class Profile:
    """How one provider behaves: median latency (ms), share of failed / empty / cancelled runs,
    sources per answer, and its cost per run (USD) and cost basis."""

    latency_ms: float
    failed: float
    empty: float
    cancelled: float
    sources: int
    cost: float
    basis: str


PROFILES = {
    "ddgs": Profile(900, 0.08, 0.03, 0.01, 10, 0.0, "keyless"),
    "brave": Profile(600, 0.02, 0.02, 0.01, 10, 0.005, "estimated"),
    "exa": Profile(1500, 0.03, 0.01, 0.01, 10, 0.007, "reported"),
    "perplexity": Profile(4000, 0.04, 0.01, 0.02, 5, 0.006, "estimated"),
    "anthropic": Profile(9000, 0.05, 0.01, 0.03, 5, 0.012, "estimated"),
    "openai": Profile(7000, 0.06, 0.02, 0.03, 5, 0.010, "estimated"),
}
STREAMING = frozenset(MODELS)
CACHED_SHARE = 0.08


def pool(size: int) -> list[tuple[object, ...]]:
    """``size`` realistic searches as ``searches`` column values (without ``created_at``)."""
    corpus = Corpus()
    now = datetime.now(timezone.utc)
    rows = []
    for n in range(size):
        columns = dict(encode(corpus.result(n), now).columns)
        del columns["created_at"]
        rows.append(tuple(columns.values()))
    return rows


def search_columns() -> list[str]:
    columns = list(encode(Corpus().result(0), datetime.now(timezone.utc)).columns)
    columns.remove("created_at")
    return columns


def run_values(rng: random.Random, search_id: int, started: float, query: int) -> list[tuple[object, ...]]:
    """The six ``runs`` rows of one search (in :data:`RUN_COLUMNS` order)."""
    day = local_day(started)
    rows = []
    for position, provider in enumerate(PROVIDERS):
        profile = PROFILES[provider]
        draw = rng.random()
        status = (
            "failed"
            if draw < profile.failed
            else "empty"
            if draw < profile.failed + profile.empty
            else "cancelled"
            if draw < profile.failed + profile.empty + profile.cancelled
            else "done"
        )
        cached = status == "done" and rng.random() < CACHED_SHARE
        elapsed = 0 if cached else int(rng.lognormvariate(math.log(profile.latency_ms), 0.5))
        streams = provider in STREAMING
        first_event = None if cached or status == "failed" else int(elapsed * rng.uniform(0.15, 0.45))
        sources = profile.sources if status == "done" else 0
        unique = sum(rng.random() < 0.6 for _ in range(sources))
        cited = sum(rng.random() < (0.25 if provider in WEB else 0.1) for _ in range(sources))
        cost = 0.0 if cached else profile.cost * (rng.uniform(0.7, 1.6) if streams else 1.0)
        key = hashlib.sha256(f"{provider}\0{query}".encode()).hexdigest()
        rows.append(
            (
                search_id,
                provider,
                started,
                day,
                status,
                elapsed,
                first_event,
                int(streams),
                int(status in ("done", "empty") and not cached),
                sources,
                unique,
                cited,
                cost,
                "cached" if cached else profile.basis,
                int(cached),
                key,
                int(position == 0),
            )
        )
    return rows


def build(path: Path, searches: int) -> None:
    """A v4 history of ``searches`` searches over the last :data:`DAYS` days, written in bulk."""
    HistoryStore(path).close()  # the real schema, empty
    rng = random.Random(searches)
    rows, names = pool(POOL), search_columns()
    insert_search = f"INSERT INTO searches(id, created_at, {', '.join(names)}) VALUES (?, ?{', ?' * len(names)})"
    insert_run = f"INSERT INTO runs({', '.join(RUN_COLUMNS)}) VALUES ({', '.join('?' for _ in RUN_COLUMNS)})"
    end = datetime.now(timezone.utc)
    start = end - timedelta(days=DAYS)
    step = (end - start) / searches
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    for n in range(1, searches + 1):
        moment = start + step * n
        created = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        db.execute(insert_search, (n, created, *rows[n % POOL]))
        query = rng.randrange(searches // 4) if rng.random() < 0.3 else n + searches
        db.executemany(insert_run, run_values(rng, n, moment.timestamp(), query))
    db.execute("COMMIT")
    db.execute("ANALYZE")
    db.close()


def build_v3(path: Path, searches: int) -> None:
    """A version 3 history (no runs) of ``searches`` real encoded searches, for the migration."""
    corpus = Corpus(seed=3)
    encoded = [encode(corpus.result(n), datetime.now(timezone.utc)).columns for n in range(min(searches, 400))]
    names = [name for name in encoded[0] if name != "created_at"]
    insert = f"INSERT INTO searches(created_at, {', '.join(names)}) VALUES (?{', ?' * len(names)})"
    start = datetime.now(timezone.utc) - timedelta(days=DAYS)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    for step in schema.MIGRATIONS[:3]:
        step(db)
    for n in range(searches):  # the pool in order: its 24,000 URLs cycle through canonical_url's cache
        created = (start + timedelta(seconds=n * DAYS * 86400 / searches)).isoformat(timespec="milliseconds")
        columns = encoded[n % len(encoded)]
        db.execute(insert, (created.replace("+00:00", "Z"), *(columns[name] for name in names)))
    db.execute("PRAGMA user_version = 3")
    db.execute("COMMIT")
    db.close()


def report(name: str, times: list[float], target: float | None = None) -> float:
    """One line: median, 95th percentile and worst; returns the median."""
    goal = f"  [target < {target:g} ms]" if target else ""
    p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
    median = statistics.median(times)
    print(f"  {name:44} median {median:8.1f} ms   p95 {p95:8.1f} ms   max {max(times):8.1f} ms{goal}")
    return median


def figures(path: Path, runs: int) -> dict[str, float]:
    """Time the store's statistics, cache lookup and spend on ``path``; returns the medians by name."""
    medians = {}
    opened = []
    for _ in range(runs):
        started = time.perf_counter()
        HistoryStore(path).close()
        opened.append((time.perf_counter() - started) * 1000)
    medians["open"] = report("open the file", opened)
    store = HistoryStore(path)
    now = datetime.now(timezone.utc)
    month = datetime.now().astimezone() - timedelta(days=30)
    today = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    first_open = []
    for _ in range(runs):  # what the Stats screen does: open, then the report
        started = time.perf_counter()
        fresh = HistoryStore(path)
        fresh.stats(month)
        fresh.close()
        first_open.append((time.perf_counter() - started) * 1000)
    medians["screen"] = report("open + stats(--since 30d) (the Stats screen)", first_open, 300)
    medians["all"] = report("stats() over everything", timed(lambda: store.stats(), runs), 300)
    medians["30d"] = report("stats(--since 30d)", timed(lambda: store.stats(month), runs), 300)
    medians["one"] = report("stats(--provider exa)", timed(lambda: store.stats(provider="exa"), runs))
    medians["day"] = report(
        "stats(--since 1d): a long index walk", timed(lambda: store.stats(now - timedelta(1)), runs)
    )
    hit = hashlib.sha256(f"exa\0{1}".encode()).hexdigest()
    found = store.reusable(hit, now - timedelta(days=DAYS + 1))
    medians["hit"] = report(
        f"reusable(): a hit ({'found' if found else 'NOT found'})",
        timed(lambda: store.reusable(hit, now - timedelta(days=DAYS + 1)), runs),
    )
    medians["miss"] = report("reusable(): a miss", timed(lambda: store.reusable("0" * 64, now - timedelta(1)), runs))
    medians["today"] = report("spent(today)", timed(lambda: store.spent(today), runs))
    medians["month"] = report("spent(last 30 days)", timed(lambda: store.spent(month), runs))
    corpus = Corpus(seed=9)
    results = [corpus.result(n) for n in range(runs)]
    medians["add"] = report(
        "add one search (6 providers, runs rows too)", timed(lambda: store.add(results.pop()), runs)
    )
    report_all = store.stats()
    print(
        f"  ({report_all.searches:,} searches, ${report_all.spend_usd:,.2f}, {len(report_all.days)} days; "
        + ", ".join(f"{p.provider} p50 {p.latency_p50_ms} ms" for p in report_all.providers[:3])
        + ")"
    )
    store.close()
    return medians


def newest_reusable_key(path: Path) -> str:
    """The cache key of a run a lookup finds: sent (not cached), done, a hundred runs from the newest."""
    db = sqlite3.connect(path)
    row = db.execute(
        "SELECT cache_key FROM runs WHERE status = 'done' AND cached = 0 ORDER BY started DESC LIMIT 1 OFFSET 100"
    ).fetchone()
    db.close()
    return str(row[0])


def migration(folder: Path, searches: int) -> float:
    """The v3 -> v4 migration of ``searches`` stored searches: opening the file (the migration itself),
    then the backfill of their runs batch by batch, as the recorder runs it (count, longest batch);
    returns the backfill's seconds."""
    path = folder / f"v3-{searches}.sqlite3"
    for old in folder.glob(path.name + "*"):
        old.unlink()
    build_v3(path, searches)
    started = time.perf_counter()
    store = HistoryStore(path)
    opened = time.perf_counter() - started
    batches, longest, started = 0, 0.0, time.perf_counter()
    while True:
        step = time.perf_counter()
        more = store.backfill()
        batches, longest = batches + 1, max(longest, time.perf_counter() - step)
        if not more:
            break
    backfilled = time.perf_counter() - started
    count = store.stats().searches
    store.close()
    print(
        f"  {searches:,} searches: opening (the migration) {opened * 1000:.0f} ms; backfill {backfilled:.1f} s in "
        f"{batches} batches (longest {longest:.2f} s; {backfilled / searches * 1000:.2f} ms each; {count:,} counted)"
    )
    return backfilled


def decoding_every_search(path: Path, searches: int) -> float:
    """Seconds decoding every stored search and computing its rows would take (2,000 measured, scaled)."""
    db = sqlite3.connect(path)
    rows = db.execute(f"SELECT {RESULT_COLUMNS} FROM searches LIMIT 2000").fetchall()
    db.close()
    started = time.perf_counter()
    for row in rows:
        stored = decode_result(row)
        run_rows(stored.result.outcomes, stored.entry.created_at)
    return (time.perf_counter() - started) / len(rows) * searches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="history sizes, comma-separated")
    parser.add_argument("--migrate", default="10000,100000", help="migration sizes ('' to skip)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="build the files in this folder once and reuse them")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",") if size]
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        medians = {}
        for size in sizes:
            path = folder / f"stats-{size}.sqlite3"
            if not path.exists():
                started = time.perf_counter()
                build(path, size)
                print(f"built {size:,} searches in {time.perf_counter() - started:.0f} s ({path})")
            megabytes = sum(p.stat().st_size for p in folder.glob(path.name + "*")) / 1e6
            print(f"{size:,} searches of {len(PROVIDERS)} providers ({megabytes:.0f} MB):")
            medians[size] = figures(path, args.runs)
        if len(sizes) > 1:
            small, big = sizes[0], sizes[-1]
            print(f"ratios {big:,} / {small:,} searches ({big / small:g}x the searches):")
            for name, label in (
                ("all", "stats() over everything"),
                ("30d", "stats(--since 30d)"),
                ("one", "one provider"),
            ):
                print(f"  {label:44} {medians[big][name] / medians[small][name]:6.1f}x")
        migrations = [int(size) for size in args.migrate.split(",") if size]
        if migrations:
            print("v3 -> v4 migration (real encoded searches; canonical URLs of every source and citation):")
            for size in migrations:
                seconds = migration(folder, size)
                decode = decoding_every_search(folder / f"v3-{size}.sqlite3", size)
                print(
                    f"    for comparison: decoding every stored search for one report would take {decode:.1f} s "
                    f"({decode / seconds:.1f}x the backfill, at every report)"
                )


if __name__ == "__main__":
    main()
