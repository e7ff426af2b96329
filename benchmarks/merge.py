"""Merged view cost: 24 providers x 20 sources, a full merge and one provider's incremental update.

The pages overlap the way a real fan-out does (each provider's list mixes pages others found, with
tracking parameters, fragments and trailing slashes, and pages only it found); every fourth
provider's answer cites three of its sources. Prints the median and worst time of a full merge
(24 responses folded from nothing, then read in rank order) and of one update (one provider's
list grows by one source, then the rows are read), against a 60 Hz frame (16.7 ms). Not a
pass/fail test.

    python3 benchmarks/merge.py [--providers 24] [--sources 20] [--runs 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from websearch_tui.core.merge import SourceMerger  # noqa: E402
from websearch_tui.core.models import Citation, SearchResponse, Source  # noqa: E402

FRAME_MS = 1000 / 60


def responses(providers: int, sources: int, seed: int = 7) -> list[SearchResponse]:
    """``providers`` responses of ``sources`` sources each over a shared pool of pages."""
    rng = random.Random(seed)
    pool = [f"https://site{i % 40}.example/docs/page-{i}" for i in range(sources * 4)]
    spellings = ("", "/", "#section", "?utm_source=search", "?fbclid=abc")
    out = []
    for p in range(providers):
        urls = rng.sample(pool, sources - 5) + [f"https://only-{p}.example/{i}" for i in range(5)]
        items = [Source(url + rng.choice(spellings), f"Title of {url}", "snippet " * 20) for url in urls]
        citations = [Citation(items[i].url, items[i].title) for i in (0, 2, 5)] if p % 4 == 0 else []
        out.append(SearchResponse(provider=f"p{p}", sources=items, citations=citations))
    return out


def full_merge(batch: list[SearchResponse]) -> float:
    """Milliseconds to fold every response into a new merger and read the ranked rows."""
    started = time.perf_counter()
    merger = SourceMerger()
    for response in batch:
        merger.update(response)
    assert merger.rows
    return (time.perf_counter() - started) * 1000


def incremental(batch: list[SearchResponse]) -> float:
    """Milliseconds for one provider's update (its list grows by one source) and reading the rows."""
    merger = SourceMerger()
    for response in batch:
        merger.update(response)
    merger.rows  # noqa: B018 - the view has read the rows before the update arrives
    grown = batch[3]
    grown = SearchResponse(grown.provider, sources=[*grown.sources, Source("https://new.example/x", "New")])
    started = time.perf_counter()
    merger.update(grown)
    assert merger.rows
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", type=int, default=24)
    parser.add_argument("--sources", type=int, default=20)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    batch = responses(args.providers, args.sources)
    rows = len({row.url for row in _merged(batch)})
    print(f"{args.providers} providers x {args.sources} sources -> {rows} merged rows; {args.runs} runs each")
    for name, measure in (("full merge", full_merge), ("one incremental update", incremental)):
        times = [measure(batch) for _ in range(args.runs)]
        median, worst = statistics.median(times), max(times)
        print(f"{name:24} median {median:6.2f} ms  max {worst:6.2f} ms  ({median / FRAME_MS:.2f} of a 60 Hz frame)")


def _merged(batch: list[SearchResponse]) -> list[object]:
    merger = SourceMerger()
    for response in batch:
        merger.update(response)
    return list(merger.rows)


if __name__ == "__main__":
    main()
