"""The Stats screen opened in the real app over a big history (issue 26: under 300 ms on 100,000 searches).

The histories are ``benchmarks/stats.py``'s (its ``build``: 6 providers over the last 365 days,
through the real schema). The app runs headless under Textual's pilot at 120x36 with the history
file in ``$WEBSEARCH_TUI_HISTORY``. Each opening is F6, timed twice: until the screen has painted
its figures (summary, searches per day, the table: the report read in its thread worker), and until
it has painted its two charts too (drawn right after); then Escape. Wall time and the process's CPU
time (the machine may be shared: CPU time is what the app itself spent). The first opening builds
the screen (and imports plotext); the app keeps it, so later openings only read and draw. Then the
same for each choice of the period selector and for one provider, on the open screen.

Printed, not asserted:

    python3 benchmarks/stats_screen.py [--sizes 10000,100000] [--runs 10] [--keep DIR]

``--keep DIR`` builds the files there once and reuses them (the same files as ``stats.py --keep DIR``).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from stats import build  # noqa: E402

from websearch_tui.engine.engine import Engine  # noqa: E402
from websearch_tui.settings.config import Config, SearchSettings  # noqa: E402
from websearch_tui.tui.app import WebSearchApp  # noqa: E402
from websearch_tui.tui.stats.screen import StatsScreen  # noqa: E402

SIZE = (120, 36)
LIMIT = 60.0
"""Seconds an opening may take before the benchmark gives up on it."""

CHANGES = (
    ("period: last 7 days", "#stats-period", "7d"),
    ("period: last 90 days", "#stats-period", "90d"),
    ("period: all (365 days)", "#stats-period", "all"),
    ("provider: exa (30 days)", "#stats-provider", "exa"),
)
"""The choices timed on the open screen: ``(name, selector, value)``; each is undone after."""

Timing = tuple[float, float, float, float]
"""Milliseconds: figures painted (wall, CPU), charts painted (wall, CPU)."""


class Marks:
    """When the screen last started drawing its charts (``perf_counter``, ``process_time``): right
    after the frame that painted its figures (it draws them after that refresh)."""

    def __init__(self) -> None:
        self.drawn: tuple[float, float] | None = None
        draw = StatsScreen._draw

        def drawn(screen: StatsScreen) -> None:
            self.drawn = (time.perf_counter(), time.process_time())
            draw(screen)

        StatsScreen._draw = drawn  # type: ignore[method-assign]


async def timed(pilot, marks: Marks, act: Callable[[], Awaitable[object]]) -> Timing:
    """Run ``act`` and time it until the figures, then the charts, are painted."""
    marks.drawn = None
    wall, cpu = time.perf_counter(), time.process_time()
    await act()
    deadline = time.monotonic() + LIMIT
    while marks.drawn is None:
        if time.monotonic() > deadline:
            raise TimeoutError("the Stats screen did not draw its charts")
        await pilot.pause(0.001)
    await pilot.pause()  # the frame with the charts
    figures_wall, figures_cpu = marks.drawn
    return (
        (figures_wall - wall) * 1000,
        (figures_cpu - cpu) * 1000,
        (time.perf_counter() - wall) * 1000,
        (time.process_time() - cpu) * 1000,
    )


async def open_times(runs: int) -> dict[str, list[Timing]]:
    """The timings of each opening (the first apart) and of each choice of :data:`CHANGES`."""
    from textual.widgets import Select

    marks = Marks()
    config = Config(search=SearchSettings(providers=("ddgs",)))
    app = WebSearchApp(config, Engine(default_providers=("ddgs",)), status_resolver=lambda spec, settings: "keyless")
    times: dict[str, list[Timing]] = {"first opening (builds the screen)": [], "opening (30 days, the default)": []}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        for run in range(runs + 1):
            timing = await timed(pilot, marks, lambda: pilot.press("f6"))
            times["first opening (builds the screen)" if run == 0 else "opening (30 days, the default)"].append(timing)
            if run == 1:
                for name, selector, value in CHANGES:
                    times[name] = []
                    select = app.screen.query_one(selector, Select)
                    default = "30d" if selector == "#stats-period" else ""
                    for _ in range(runs):
                        choose = functools.partial(_choose, select, value)
                        times[name].append(await timed(pilot, marks, choose))
                        await timed(pilot, marks, functools.partial(_choose, select, default))
            await pilot.press("escape")
            await pilot.pause()
    return times


async def _choose(select, value: str) -> None:
    select.value = value


def report(name: str, timings: list[Timing]) -> None:
    """One line: the medians of the four figures of :data:`Timing`, and the worst wall time."""
    figures, figures_cpu, charts, charts_cpu = (statistics.median(column) for column in zip(*timings, strict=True))
    worst = max(timing[2] for timing in timings)
    print(
        f"  {name:34} figures {figures:6.0f} ms (CPU {figures_cpu:4.0f})   charts {charts:6.0f} ms "
        f"(CPU {charts_cpu:4.0f})   worst {worst:6.0f} ms   ({len(timings)} runs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="history sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="build the files in this folder once and reuse them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        for size in [int(size) for size in args.sizes.split(",") if size]:
            path = folder / f"stats-{size}.sqlite3"
            if not path.exists():
                started = time.perf_counter()
                build(path, size)
                print(f"built {size:,} searches in {time.perf_counter() - started:.0f} s ({path})")
            os.environ["WEBSEARCH_TUI_HISTORY"] = str(path)
            print(f"{size:,} searches, the app at {SIZE[0]}x{SIZE[1]} [target: the figures in < 300 ms]:")
            for name, timings in asyncio.run(open_times(args.runs)).items():
                report(name, timings)


if __name__ == "__main__":
    main()
