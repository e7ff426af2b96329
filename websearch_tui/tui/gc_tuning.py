"""The terminal UI's policy for Python's cyclic garbage collector, in one place.

- :func:`pause_gc` before Textual is imported (the launcher calls it when it starts the UI): what is
  allocated until the first screen is shown lives as long as the app, so collecting it only delays
  the first paint;
- :func:`settle_gc` once, after the first paint (the app calls it): one collection, everything alive
  frozen, the collector back on with :data:`GC_THRESHOLDS`;
- :func:`collect_after_search` each time a search has ended (the search screen calls it in the
  real app): one full collection.

Imports nothing but :mod:`gc`, so the launcher can pause the collector before anything else loads.
"""

from __future__ import annotations

import gc

GC_THRESHOLDS = (10_000, 2, 50)
"""Young objects are collected every 10,000 allocations (Python's default is 700), the middle
generation at every second young collection (default: tenth) and the oldest at every fiftieth
middle one (default: tenth). Textual leaves every strip that went through its compositor in a
reference cycle with its own caches, so a redrawn line leaves garbage only the collector frees:
over six streaming panes about 9,000 objects a second. Collected every 4 s (the default ratio at
these counts) they made 40-90 ms pauses and a full collection 300 ms; every 1.5 s they take
10-25 ms, and the full collection waits until 1,000,000 allocations have passed."""


def pause_gc() -> None:
    """Turn the cyclic collector off until :func:`settle_gc` turns it back on: call before Textual is
    imported and the first screen is built."""
    gc.disable()


def settle_gc() -> None:
    """Keep Python's cyclic garbage collector out of the frames of a long-running UI.

    A streaming frame allocates tens of thousands of short-lived objects (Textual's strips and
    their caches), so with the default thresholds full collections, each walking every object
    alive (Textual, Rich, httpx and the mounted widgets: 200,000 or more), ran several times a
    minute and took up to half a second each. Everything alive once the app is up is frozen (never
    collected, never walked again) and young collections run less often. Call once, after the
    first screen is shown; it also turns the collector on if it was off (:func:`pause_gc` turns it
    off while the app starts, so the first paint is not delayed by collections).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.enable()


def collect_after_search() -> None:
    """Free the lines a search drew and no longer shows, once it has ended: one full collection.

    A line on screen for longer than two young collections (most of an answer's, most sources')
    reaches the oldest generation, and a redrawn one is freed only by a full collection, which with
    :data:`GC_THRESHOLDS` waits for a million allocations and the oldest generation to grow by a
    quarter: meanwhile several searches' lines pile up (issue 28: 46 MiB more resident memory
    after 20 searches of six providers, every later peak kept by the allocator). A search's end is the
    moment they are garbage and nothing streams; the collection walks only what is not frozen
    (:func:`settle_gc`): mostly the trail and the panes' current lines.
    """
    gc.collect()
