"""Soak: many searches through one Engine; does memory, or the task and thread count, keep growing?

The loopback fake runs in a child process (so it does not compete with the engine for the GIL).
One Engine (one shared HTTP client, no client-side pacing) runs ``--searches`` compare searches
over six providers of every kind: Brave and Tavily (JSON), Exa (keyless MCP), Perplexity, Anthropic
and Gemini (streamed answers; Gemini also resolves its grounding redirects). Printed, not asserted:

- RSS at start (imports done), after ``--warmup`` searches, every ``--every`` searches, and at the end;
- growth after the warm-up, in MiB and KiB per search; total and per-search wall time;
- asyncio tasks and threads alive at the end, and the pool's connections;
- with ``--trace``: the top allocation sites that grew between the warm-up and the end (tracemalloc).

    python3 benchmarks/soak.py [--searches 200] [--warmup 10] [--every 50] [--trace]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import os
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._child import start_server  # noqa: E402
from tests.fake_providers import FAKE_KEYS, FakeServer, config_toml  # noqa: E402
from websearch_tui.core.catalogue import SPECS  # noqa: E402
from websearch_tui.core.models import SearchRequest  # noqa: E402
from websearch_tui.core.specs import ProviderSpec  # noqa: E402
from websearch_tui.engine.engine import Engine  # noqa: E402
from websearch_tui.settings.config import load_config  # noqa: E402

PROVIDERS = ("brave", "tavily", "exa", "perplexity", "anthropic", "gemini")
QUERY = "python asyncio tutorial"
TRACE_FRAMES = 8
"""Frames kept per allocation with ``--trace`` (more makes tracing much slower)."""


def rss_mib() -> float:
    """Resident set size of this process in MiB (``VmRSS`` of ``/proc/self/status``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def fake_credentials(spec: ProviderSpec) -> dict[str, str]:
    """The fake server's key for ``spec`` (looked up by its env var names)."""
    names = [name for name in spec.key_env_vars if name in FAKE_KEYS]
    return {spec.credentials[0].name: FAKE_KEYS[names[0]]} if names else {}


def make_engine(base_url: str) -> Engine:
    """An Engine with the six providers pointed at the fake, pacing off (``min_interval = 0``)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_text(config_toml(base_url), encoding="utf-8")
        config = load_config(path)
    settings = {pid: dataclasses.replace(config.settings_for(pid), min_interval=0.0) for pid in SPECS}
    return Engine(settings=settings, default_providers=PROVIDERS, timeout=60, resolve_credentials=fake_credentials)


async def search(engine: Engine, elapsed: dict[str, list[int]]) -> None:
    """One compare search, each provider's ``elapsed_ms`` appended to ``elapsed``; exits when a
    provider does not finish ``DONE`` (the numbers would lie)."""
    result = await engine.search(SearchRequest(QUERY, providers=PROVIDERS, max_results=5))
    failed = [f"{o.provider}: {o.error.message if o.error else o.status.value}" for o in result.outcomes if not o.ok]
    if failed:
        raise SystemExit(f"a search did not complete: {failed}")
    for outcome in result.outcomes:
        elapsed[outcome.provider].append(outcome.elapsed_ms)


async def run_searches(engine: Engine, first: int, last: int, every: int, elapsed: dict[str, list[int]]) -> None:
    """Searches number ``first`` to ``last`` (1-based); RSS printed after every ``every``-th one."""
    for number in range(first, last + 1):
        await search(engine, elapsed)
        if every and number % every == 0 and number != last:
            gc.collect()
            print(f"RSS after {number:4} searches:  {rss_mib():7.1f} MiB")


async def soak(base_url: str, args: argparse.Namespace) -> None:
    """Run the searches and print the measurements."""
    gc.collect()
    start = rss_mib()
    print(f"RSS at start:            {start:7.1f} MiB")
    engine = make_engine(base_url)
    elapsed: dict[str, list[int]] = {pid: [] for pid in PROVIDERS}
    began = time.perf_counter()
    await run_searches(engine, 1, args.warmup, 0, elapsed)
    gc.collect()
    warm = rss_mib()
    print(f"RSS after {args.warmup:3} warm-up:    {warm:7.1f} MiB")
    if args.trace:
        tracemalloc.start(TRACE_FRAMES)
    before = tracemalloc.take_snapshot() if args.trace else None
    steady = time.perf_counter()
    await run_searches(engine, args.warmup + 1, args.searches, args.every, elapsed)
    gc.collect()
    end, finished = rss_mib(), time.perf_counter()
    measured = args.searches - args.warmup
    print(f"RSS at end:              {end:7.1f} MiB")
    print(f"growth after warm-up:    {end - warm:+7.1f} MiB  ({(end - warm) * 1024 / measured:+.1f} KiB per search)")
    print(f"growth since start:      {end - start:+7.1f} MiB")
    per_search = (finished - steady) / measured * 1000
    print(f"time: {finished - began:.1f} s for {args.searches} searches x {len(PROVIDERS)} providers", end=" ")
    print(f"({per_search:.0f} ms per search after the warm-up)")
    print("median provider time (ms): " + ", ".join(f"{p} {statistics.median(ms):.0f}" for p, ms in elapsed.items()))
    await report_leftovers(engine)
    if before is not None:
        report_growth(before, args.trace_top)


async def report_leftovers(engine: Engine) -> None:
    """Close the engine, then print the asyncio tasks, threads and pooled connections still there."""
    from websearch_tui.providers.transport.http import client_pools

    pools = client_pools(engine.client)
    print(f"pools before aclose(): {pools}")
    await engine.aclose()
    await asyncio.sleep(0)
    tasks = len(asyncio.all_tasks()) - 1  # the runner's own task
    names = sorted(t.name for t in threading.enumerate())
    print(f"at end: {tasks} asyncio task(s) besides the runner; {len(names)} thread(s): {', '.join(names)}")
    print(f"pool connections after aclose(): {sum(len(pool.connections) for pool in pools)}")


def report_growth(before: tracemalloc.Snapshot, top: int) -> None:
    """Print the ``top`` allocation sites (innermost frames) that grew since ``before``."""
    stats = tracemalloc.take_snapshot().compare_to(before, "traceback")[:top]
    print(f"\ntop {len(stats)} allocation sites that grew after the warm-up (tracemalloc):")
    for stat in stats:
        print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks")
        for frame in list(stat.traceback)[::-1][:3]:
            print(f"        {frame.filename}:{frame.lineno}")


def serve(port: int) -> None:
    """Child process: the fake server with its default routes, until killed."""
    FakeServer(port=port).serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=200, help="searches in all, warm-up included")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--every", type=int, default=50, help="print RSS every N searches after the warm-up")
    parser.add_argument("--trace", action="store_true", help="diff tracemalloc snapshots (slower)")
    parser.add_argument("--trace-top", type=int, default=10)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    child, base_url = start_server(__file__)
    try:
        asyncio.run(soak(base_url, args))
    finally:
        child.kill()
        child.wait()


if __name__ == "__main__":
    main()
