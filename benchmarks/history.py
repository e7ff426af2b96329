"""History at scale: 10,000 stored searches of 6 providers each, through the real store and the real TUI.

Each stored search is what a realistic fan-out leaves: three web engines with 10 sources each
(title, 20-40 word snippet, URL) and three model-native answers (150-300 words of Markdown, 5
sources, 5 citations, 3 related questions, 2 queries, model and usage); about a third of every
provider's sources are pages another provider found too. The text is English words drawn by
frequency from the standard library's docstrings, mixed with made-up names. Printed, not asserted
(targets from the issue in brackets):

- the database file's size after the searches are added [<= 200 MB];
- the store alone: listing the newest 200, a full-text search per keystroke (newest first), a
  best-match search (the CLI's), reading one search back;
- the real TUI (headless, 200 x 50, its garbage collector settled as ``websearch-tui`` settles it):
  F4 until the History screen lists its rows [<= 200 ms], one filter keystroke until the rows are
  updated [<= 50 ms], Enter on a row until all six panes show that search as it ended [<= 100 ms];
- big histories (``--big``, e.g. with ``--searches 50000``): a best-first search of the 80 most
  common words (wall time, and the growth of this process's peak RSS), and, on a copy of the file,
  the first prune to ``--prune-to`` searches: how long the add that starts it takes, the background
  batches that finish it (as the recorder runs them: count, longest), the compaction, and the
  file's size before and after.

    python3 benchmarks/history.py [--searches 10000] [--keep PATH] [--runs 20] [--big [--prune-to 10000]]

``--keep PATH`` builds the file at PATH once and reuses it on the next run.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import importlib
import inspect
import itertools
import os
import random
import re
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from websearch_tui.core.models import Citation, SearchRequest, SearchResponse, Source, Usage  # noqa: E402
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult  # noqa: E402
from websearch_tui.engine.engine import Engine  # noqa: E402
from websearch_tui.history import HistoryStore  # noqa: E402
from websearch_tui.settings.config import Config, SearchSettings  # noqa: E402

WEB = ("ddgs", "brave", "exa")
MODELS = ("perplexity", "anthropic", "openai")
LABELS = {"ddgs": "DuckDuckGo", "brave": "Brave Search", "exa": "Exa", "perplexity": "Perplexity"}
LABELS |= {"anthropic": "Anthropic", "openai": "OpenAI"}
DOC_MODULES = (
    "asyncio json sqlite3 http.client email argparse collections logging unittest typing pathlib os re "
    "subprocess threading socket ssl urllib.request decimal datetime functools itertools dataclasses "
    "textwrap zipfile tarfile csv shutil tempfile inspect string random statistics heapq bisect enum "
    "contextlib abc io"
).split()
FILTER_WORDS = ("asyncio", "event loop", "socket timeout", "decimal context", "zipfile", "thread")
SIZE = (200, 50)


class Corpus:
    """Text with the word frequencies of the standard library's docstrings, plus made-up names."""

    def __init__(self, seed: int = 7) -> None:
        warnings.simplefilter("ignore")
        docs = []
        for name in DOC_MODULES:
            module = importlib.import_module(name)
            texts = (getattr(getattr(module, attribute, None), "__doc__", None) for attribute in dir(module))
            docs += [text for text in texts if isinstance(text, str)]
        counts = collections.Counter(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]+", " ".join(docs)))
        self.rng = random.Random(seed)
        self.words = list(counts)
        self.weights = list(itertools.accumulate(counts.values()))
        syllables = "ka to ri en an ser vo lin mu pa te ro al es un ver sta de co pro ma li qu zy xi bo fe".split()
        self.names = ["".join(self.rng.choices(syllables, k=self.rng.randint(2, 4))) for _ in range(20000)]

    def words_(self, low: int, high: int) -> str:
        count = self.rng.randint(low, high)
        picked = self.rng.choices(self.words, cum_weights=self.weights, k=count)
        for i in range(count):
            if self.rng.random() < 0.12:
                picked[i] = self.rng.choice(self.names).capitalize()
        return " ".join(picked)

    def source(self) -> Source:
        host = self.rng.choice(self.names)
        path = "-".join(self.words_(2, 4).lower().split())
        return Source(
            f"https://{host}.example/{path}", self.words_(6, 10).title(), self.words_(20, 40), None, None, None
        )

    def answer(self) -> str:
        paragraphs = [self.words_(30, 60) + " [1]." for _ in range(self.rng.randint(3, 5))]
        items = [f"- **{self.words_(1, 2)}**: {self.words_(6, 12)}" for _ in range(3)]
        return "\n\n".join([*paragraphs[:2], "\n".join(items), *paragraphs[2:]])

    def result(self, search_id: int) -> SearchResult:
        query = self.words_(3, 6)
        shared = [self.source() for _ in range(12)]  # pages several providers find
        outcomes = []
        for pid in (*WEB, *MODELS):
            count = 10 if pid in WEB else 5
            sources = self.rng.sample(shared, count // 3) + [self.source() for _ in range(count - count // 3)]
            response = SearchResponse(provider=pid, sources=sources, elapsed_ms=1200, first_event_ms=300)
            if pid in MODELS:
                response.answer = self.answer()
                response.citations = [Citation(s.url, s.title, self.words_(8, 14)) for s in sources]
                response.related_questions = [self.words_(5, 8) + "?" for _ in range(3)]
                response.search_queries = [self.words_(3, 5) for _ in range(2)]
                response.model, response.usage = "model-x", Usage(1200, 350, None, 2)
            outcomes.append(ProviderOutcome(pid, RunStatus.DONE, response, None, 1200, 300))
        request = SearchRequest(query=query, providers=(*WEB, *MODELS))
        return SearchResult(request, "compare", search_id, request.providers, LABELS, outcomes)


def build(path: Path, searches: int) -> None:
    """Add ``searches`` searches to a new file at ``path`` (one transaction each, as the app does)."""
    corpus = Corpus()
    store = HistoryStore(path, max_entries=searches)
    started = time.perf_counter()
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for n in range(1, searches + 1):
        store.add(corpus.result(n), created_at=start + timedelta(minutes=n))
        if n % 1000 == 0:
            print(f"  {n:,} searches added ({time.perf_counter() - started:.0f} s)", flush=True)
    store.close()  # the last connection to close folds the WAL into the file


def file_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def timed(function, runs: int) -> list[float]:
    """Milliseconds of ``runs`` calls of ``function``."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return times


def report(name: str, times: list[float], target: float | None = None, cpu: list[float] | None = None) -> None:
    """One line: median, 95th percentile and worst wall time (and median CPU time of this process, all
    threads)."""
    goal = f"  [target <= {target:g} ms]" if target else ""
    used = f"   cpu median {statistics.median(cpu):6.1f} ms" if cpu else ""
    p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
    spread = f"median {statistics.median(times):7.1f} ms   p95 {p95:7.1f} ms   max {max(times):7.1f} ms"
    print(f"  {name:46} {spread}{used}{goal}")


def store_figures(path: Path, runs: int) -> None:
    store = HistoryStore(path)
    newest, count = store.entries(limit=1)[0].id, store.count()
    rng = random.Random(3)
    print(f"store ({count:,} searches):")
    report("newest 200", timed(lambda: store.entries(limit=200), runs))
    prefixes = [word[:n] for word in FILTER_WORDS for n in range(2, len(word) + 1)]
    keystrokes = [timed(lambda p=p: store.search(p, limit=200, best_first=False), 1)[0] for p in prefixes]
    report(f"search as typed, newest first ({len(prefixes)} prefixes)", keystrokes)
    report("search best match first (CLI)", [timed(lambda w=w: store.search(w, limit=20), 1)[0] for w in FILTER_WORDS])
    report("read one search back", timed(lambda: store.get(rng.randint(newest - count + 1, newest)), runs))
    store.close()


def peak_mb() -> float:
    """This process's peak resident set so far, in MB (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def common_words(count: int) -> str:
    """The ``count`` most frequent words of the corpus, most frequent first."""
    corpus = Corpus()
    frequency = [high - low for low, high in zip([0, *corpus.weights], corpus.weights, strict=False)]
    ranked = sorted(zip(corpus.words, frequency, strict=True), key=lambda pair: -pair[1])
    return " ".join(word for word, _ in ranked[:count])


def big_figures(path: Path, keep: int) -> None:
    """A search of 80 common words, then the first prune of a copy of ``path`` to ``keep`` searches."""
    text = common_words(80)
    store = HistoryStore(path)
    before = peak_mb()
    started = time.perf_counter()
    store.search(text, limit=20)
    print(f"big history ({store.count():,} searches):")
    print(
        f"  search of the 80 most common words, best first   {time.perf_counter() - started:7.2f} s   "
        f"peak RSS +{peak_mb() - before:.0f} MB"
    )
    store.close()
    copy = path.with_name(f"{path.name}.prune-copy")
    source, target = sqlite3.connect(path), sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.close()
    size = file_size(copy)
    store = HistoryStore(copy, max_entries=keep)
    before = peak_mb()
    started = time.perf_counter()
    store.add(Corpus(seed=11).result(0))
    added = time.perf_counter() - started
    batches, longest = 0, 0.0
    while True:  # what the recorder's writer thread does after the add, while nothing is queued
        step = time.perf_counter()
        more = store.prune()
        batches, longest = batches + 1, max(longest, time.perf_counter() - step)
        if not more:
            break
    pruned = time.perf_counter()
    freed = store.reclaim()
    compacted = time.perf_counter() - pruned
    store.close()
    print(
        f"  first prune to {keep:,}: the add took {added:.2f} s; then {batches} batches in "
        f"{pruned - started - added:.1f} s (longest {longest:.2f} s), compaction {compacted:.1f} s "
        f"({freed / 1e6:.0f} MB given back); peak RSS +{peak_mb() - before:.0f} MB; "
        f"file {size / 1e6:.0f} MB -> {file_size(copy) / 1e6:.0f} MB"
    )
    for leftover in copy.parent.glob(copy.name + "*"):
        leftover.unlink()


class Painted:
    """When the screen was next painted after a method of a widget or screen ran: the method is wrapped
    so that it schedules ``call_after_refresh`` on that widget (measurement only)."""

    def __init__(self) -> None:
        self.at: float | None = None

    def watch(self, cls: type, name: str) -> None:
        original = getattr(cls, name)

        def mark(widget) -> None:
            widget.call_after_refresh(lambda: setattr(self, "at", time.perf_counter()))

        if asyncio.iscoroutinefunction(original):

            async def wrapped(widget, *args):
                result = await original(widget, *args)
                mark(widget)
                return result
        else:

            def wrapped(widget, *args):
                result = original(widget, *args)
                mark(widget)
                return result

        setattr(cls, name, wrapped)


async def tui_figures(path: Path, runs: int) -> None:
    """F4, typing, Enter and [ through the real app, headless: from the key press until the screen that
    shows the result has been painted (wall), and this process's CPU time for the same span."""
    from websearch_tui.tui.app import WebSearchApp
    from websearch_tui.tui.history.rows import HistoryRows
    from websearch_tui.tui.history.screen import HistoryScreen
    from websearch_tui.tui.search.provider_pane import ProviderPane
    from websearch_tui.tui.search.screen import SearchScreen

    painted = Painted()
    painted.watch(HistoryRows, "set_entries")
    painted.watch(SearchScreen, "show_stored")
    config = Config(search=SearchSettings(providers=(*WEB, *MODELS)))
    tuned = {"tune_gc": True} if "tune_gc" in inspect.signature(WebSearchApp).parameters else {}  # as the real app
    engine = Engine(default_providers=(*WEB, *MODELS))
    app = WebSearchApp(config, engine, status_resolver=lambda spec, s: "ready", **tuned)
    figures = {name: ([], []) for name in ("open", "key", "reopen", "back")}
    rng = random.Random(5)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.5)

        async def press(key: str, figure: str) -> None:
            """Press ``key``; record the time until the next paint after the result was shown."""
            painted.at = None
            wall, cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)
            give_up = time.perf_counter() + 60
            while painted.at is None or any(not w.is_finished for w in app.workers):  # noqa: ASYNC110
                if time.perf_counter() > give_up:
                    raise SystemExit(f"{key!r} never showed its result")
                await asyncio.sleep(0.001)  # polling keeps the measurement tight
            figures[figure][0].append((painted.at - wall) * 1000)
            figures[figure][1].append((time.process_time() - cpu) * 1000)
            await pilot.pause()

        for run in range(runs):
            await press("f4", "open")
            screen = app.screen
            assert isinstance(screen, HistoryScreen) and len(screen.rows.entries) > 0
            for character in FILTER_WORDS[run % len(FILTER_WORDS)]:
                await press("space" if character == " " else character, "key")
            screen.filter_input.value = ""
            await pilot.pause(0.2)
            for _ in range(rng.randint(1, 40)):
                screen.rows.action_move(1)
            await press("enter", "reopen")
            assert all(pane.status == "done" for pane in app.screen.query(ProviderPane))
            if run:
                await press("alt+left", "back")
    print(f"TUI (headless {SIZE[0]}x{SIZE[1]}, key press until painted; {runs} runs):")
    targets = {"open": 200, "key": 50, "reopen": 100, "back": None}
    names = {
        "open": "F4 until the rows are painted",
        "key": f"a filter keystroke until the rows are painted ({len(figures['key'][0])})",
        "reopen": "Enter until six panes are painted",
        "back": "Alt+Left (back: no screen change) until painted",
    }
    for figure, (wall, cpu) in figures.items():
        report(names[figure], wall, targets[figure], cpu)


async def markdown_floor(runs: int) -> None:
    """Reference: six bare Markdown widgets in a bare app, each given a new answer of the same size."""
    from textual.app import App, ComposeResult
    from textual.containers import Grid
    from textual.widgets import Markdown

    class Bare(App[None]):
        CSS = "Grid { grid-size: 3 2; }"

        def compose(self) -> ComposeResult:
            with Grid():
                yield from (Markdown() for _ in range(6))

    corpus, wall, cpu = Corpus(), [], []
    async with Bare().run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(runs):
            answers = [corpus.answer() for _ in range(6)]
            started, used = time.perf_counter(), time.process_time()
            done = asyncio.get_running_loop().create_future()
            with pilot.app.batch_update():
                await asyncio.gather(*(m.update(a) for m, a in zip(pilot.app.query(Markdown), answers, strict=True)))
            pilot.app.screen.call_after_refresh(lambda done=done: done.set_result(time.perf_counter()))
            painted = await done
            wall.append((painted - started) * 1000)
            cpu.append((time.process_time() - used) * 1000)
            await pilot.pause()
    report("reference: 6 bare Markdown widgets, new answers", wall, None, cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="build the file here once and reuse it")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--big", action="store_true", help="only the big-history figures")
    parser.add_argument("--prune-to", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.keep or Path(folder) / "history.sqlite3"
        os.environ["WEBSEARCH_TUI_HISTORY"] = str(path)  # the app opens this file
        os.environ["WEBSEARCH_TUI_STATE"] = str(Path(folder) / "state.json")  # never the user's
        if not path.exists():
            print(f"building {args.searches:,} searches of {len(WEB) + len(MODELS)} providers in {path} ...")
            build(path, args.searches)
        searches = HistoryStore(path).count()
        print(f"database: {file_size(path) / 1e6:.1f} MB for {searches:,} searches  [target <= 200 MB]")
        if args.big:
            big_figures(path, args.prune_to)
            return
        store_figures(path, args.runs)
        thresholds = gc.get_threshold()
        asyncio.run(tui_figures(path, args.runs))
        gc.unfreeze()  # the app settled the collector as the real one does; the bare reference runs without
        gc.set_threshold(*thresholds)
        asyncio.run(markdown_floor(args.runs))


if __name__ == "__main__":
    main()
