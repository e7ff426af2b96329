"""What the cache costs a search before it sends anything (issue 26): the plan of a 6-provider search
(each provider's cache key, then one history lookup per provider) on a history of 10,000 (and
100,000) searches, and the budget check, through the real session, engine and store.

The history is built as ``benchmarks/stats.py`` builds it (6 providers a search, over a year), then
one real search of the benchmark's question is run and recorded (in-process providers that answer
at once, no HTTP), so its six results are in the history under the keys a new search asks for.

Printed, not asserted:

- ``plan_search`` of 6 providers: all hits (each hit reads back its stored search) and all misses;
- a whole search of 6 instant providers, answered from the history vs. sent (fresh): what the
  lookup adds to a search that runs, and what a fully cached search takes end to end;
- ``Session.budget_check`` with ``[budget] daily`` set (keys, lookups, spend, averages).

    python3 benchmarks/cache_lookup.py [--sizes 10000,100000] [--runs 20] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from stats import PROVIDERS, build  # noqa: E402

from websearch_tui.core.models import AnswerDelta, SearchRequest, Source, SourcesFound  # noqa: E402
from websearch_tui.engine import engine as engine_module  # noqa: E402
from websearch_tui.engine.engine import Engine  # noqa: E402
from websearch_tui.providers.base import ProviderContext  # noqa: E402
from websearch_tui.session import Session  # noqa: E402
from websearch_tui.session.cache import plan_search  # noqa: E402
from websearch_tui.settings.config import parse_config  # noqa: E402

QUESTION = "how do rust async runtimes differ"


async def instant(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
    """A provider that answers at once: a short answer and ten sources."""
    yield AnswerDelta(f"{ctx.spec.label} answers: " + "words " * 60)
    yield SourcesFound(
        tuple(Source(url=f"https://example.com/{ctx.spec.id}/{n}", title=f"Page {n}") for n in range(10))
    )


def session_for(path: Path, **tables: object) -> Session:
    """A session on the history ``path`` whose providers answer instantly with a key."""
    engine_module.load_stream = lambda provider_id: instant  # type: ignore[assignment]
    history = {"path": str(path), "max_entries": 1_000_000}  # no pruning: the file stays as built
    unpaced = {provider: {"min_interval": 0.0} for provider in PROVIDERS}  # Exa's 1 s would be measured
    config = parse_config({"history": history, "providers": unpaced, **tables}, path.parent / "config.toml")
    engine = Engine(resolve_credentials=lambda spec: {"api_key": "benchmark-key"})
    engine.reconfigure(config)
    return Session(config, engine)


def report(name: str, times: list[float]) -> None:
    p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
    print(f"  {name:52} median {statistics.median(times):7.2f} ms   p95 {p95:7.2f} ms   max {max(times):7.2f} ms")


async def figures(path: Path, runs: int) -> None:
    session = session_for(path)
    request = SearchRequest(QUESTION, providers=PROVIDERS)
    await session.search(request, fresh=True)  # the question's six results, recorded
    await asyncio.to_thread(session.history.count)  # written (opening flushes the recorder)

    def plan(query: str) -> int:
        asked = SearchRequest(query, providers=PROVIDERS)
        now = datetime.now(timezone.utc)
        found = plan_search(session.engine, session.history, session.config, asked, PROVIDERS, read=True, now=now)
        return len(found.reuse)

    for name, query in (("hits", QUESTION), ("misses", "a question nobody asked")):
        found = plan(query)
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            plan(query)
            times.append((time.perf_counter() - started) * 1000)
        report(f"plan_search, 6 providers, {name} ({found} reused)", times)

    for name, fresh in (("answered from the history", False), ("sent (fresh; providers instant)", True)):
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            await session.search(request, fresh=fresh, record=False)
            times.append((time.perf_counter() - started) * 1000)
        report(f"a whole 6-provider search, {name}", times)
    await session.aclose()

    budgeted = session_for(path, budget={"daily": 1000.0})
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await budgeted.budget_check(SearchRequest("a question nobody asked", providers=PROVIDERS))
        times.append((time.perf_counter() - started) * 1000)
    report("budget_check, 6 providers (lookups, spend, averages)", times)
    await budgeted.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="history sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="build the files in this folder once and reuse them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        for size in (int(size) for size in args.sizes.split(",") if size):
            path = folder / f"cache-{size}.sqlite3"
            if not path.exists():
                build(path, size)
            print(f"{size:,} searches of {len(PROVIDERS)} providers:")
            asyncio.run(figures(path, args.runs))


if __name__ == "__main__":
    main()
