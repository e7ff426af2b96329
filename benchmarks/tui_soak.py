"""TUI soak: does the app's memory keep growing, search after search, and what does it keep?

The loopback fake runs in a child process. The real app (headless, ``App.run_test`` at 240x60)
runs ``--warmup`` searches, then ``--searches`` more, each typed into the query box over the six
providers of ``soak.py`` (Brave, Tavily, Exa, Perplexity, Anthropic, Gemini), waiting for each to
end and every pane to show it. The history file is a scratch one; the trail keeps its last 100
searches for back/forward, so a bounded app levels off once the trail is full. Printed, not
asserted:

- RSS after the warm-up, every ``--every`` searches, and at the end (after ``gc.collect()``), and
  the growth after the warm-up in MiB and KiB per search, with the load average;
- the Python object types whose live count grew most between the warm-up and the end
  (``gc.get_objects``), per search;
- the full collections of the cyclic garbage collector during the measured searches (the app's
  own, not the benchmark's): how many, and the CPU milliseconds each took (median and max);
- with ``--trace``: the top allocation sites that grew over the measured searches (tracemalloc).

    python3 benchmarks/tui_soak.py [--warmup 20] [--searches 200] [--every 50] [--trace]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._child import start_server  # noqa: E402
from benchmarks.soak import PROVIDERS, QUERY, TRACE_FRAMES, make_engine, report_growth, rss_mib, serve  # noqa: E402

SIZE = (240, 60)


def type_counts() -> collections.Counter[str]:
    """Live objects the collector tracks, by type name (after a full collection)."""
    gc.collect()
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects())


def report_types(before: collections.Counter[str], searches: int, top: int) -> None:
    """Print the ``top`` types whose live count grew most since ``before``, also per search."""
    grown = (type_counts() - before).most_common(top)
    print(f"\ntop {len(grown)} object types that grew after the warm-up (gc.get_objects):")
    for name, count in grown:
        print(f"  {count:+8d}  ({count / searches:+7.1f} per search)  {name}")


class FullCollections:
    """A ``gc.callbacks`` entry that keeps the CPU milliseconds (``ms``) of each full collection
    (generation 2) while ``counting`` (the benchmark turns it off around its own collections)."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self.counting = True
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        """Called by the collector at the start and the stop of each collection."""
        if info["generation"] != 2 or not self.counting:
            return
        if phase == "start":
            self._began = time.process_time()
        else:
            self.ms.append((time.process_time() - self._began) * 1000)

    def collect(self) -> None:
        """The benchmark's own full collection (not counted)."""
        self.counting = False
        gc.collect()
        self.counting = True

    def report(self, searches: int) -> None:
        """Print how many full collections ran and their median and max CPU time."""
        if not self.ms:
            print(f"full collections: none in {searches} searches")
            return
        print(f"full collections: {len(self.ms)} in {searches} searches,", end=" ")
        print(f"CPU median {statistics.median(self.ms):.0f} ms, max {max(self.ms):.0f} ms")


async def run(base_url: str, args: argparse.Namespace) -> None:
    """Drive the app through the searches and print the measurements."""
    from tests.tui.conftest import fixed_status, submit, wait_for_search
    from websearch_tui.settings.config import Config, SearchSettings
    from websearch_tui.tui.app import WebSearchApp

    config = Config(search=SearchSettings(providers=PROVIDERS, max_results=5, timeout=600))
    app = WebSearchApp(config, make_engine(base_url), status_resolver=fixed_status, tune_gc=True)
    full = FullCollections()

    async def searches(first: int, last: int) -> None:
        for number in range(first, last + 1):
            await submit(pilot, f"{QUERY} {number}")
            await wait_for_search(app)
            unfinished = [(p.provider_id, p.status) for p in app.screen.pane_area.panes if p.status != "done"]
            if unfinished:  # reported, not fatal: a loaded machine may cancel a run now and then
                print(f"search {number}: not done in {unfinished}")
            if args.every and number > args.warmup and (number - args.warmup) % args.every == 0:
                full.collect()
                print(f"RSS after {number:4} searches:  {rss_mib():7.1f} MiB  (load {os.getloadavg()[0]:.1f})")

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        began = time.perf_counter()
        await searches(1, args.warmup)
        gc.collect()
        warm = rss_mib()
        print(f"RSS after {args.warmup:3} warm-up:    {warm:7.1f} MiB  (load {os.getloadavg()[0]:.1f})")
        counts = type_counts()
        if args.trace:
            tracemalloc.start(TRACE_FRAMES)
        snapshot = tracemalloc.take_snapshot() if args.trace else None
        gc.callbacks.append(full)
        await searches(args.warmup + 1, args.warmup + args.searches)
        gc.callbacks.remove(full)
        gc.collect()
        end = rss_mib()
        took = time.perf_counter() - began
        print(f"RSS at end:              {end:7.1f} MiB  (load {os.getloadavg()[0]:.1f})")
        per = (end - warm) * 1024 / args.searches
        print(f"growth after warm-up:    {end - warm:+7.1f} MiB over {args.searches} searches", end=" ")
        print(f"({per:+.1f} KiB per search)")
        print(f"time: {took:.1f} s for {args.warmup + args.searches} searches x {len(PROVIDERS)} providers")
        full.report(args.searches)
        report_types(counts, args.searches, args.top)
        if snapshot is not None:
            report_growth(snapshot, args.top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--searches", type=int, default=200, help="searches measured after the warm-up")
    parser.add_argument("--every", type=int, default=50, help="print RSS every N searches after the warm-up")
    parser.add_argument("--trace", action="store_true", help="diff tracemalloc snapshots (much slower)")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    scratch = tempfile.mkdtemp(prefix="websearch-bench-")  # never the user's controls or history
    os.environ["WEBSEARCH_TUI_STATE"] = os.path.join(scratch, "state.json")
    os.environ["WEBSEARCH_TUI_HISTORY"] = os.path.join(scratch, "history.sqlite3")
    child, base_url = start_server(__file__)
    try:
        asyncio.run(run(base_url, args))
    finally:
        child.kill()
        child.wait()


if __name__ == "__main__":
    main()
