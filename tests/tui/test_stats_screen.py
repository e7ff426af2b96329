"""Pilot tests of the Stats screen (F6, palette "Statistics") over a history built here through the
real store: the provider rows, the period and provider selectors, the charts, the empty state, a
history that is off, the keymap, and a layout snapshot at 80x24."""

from __future__ import annotations

import os
import random
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from textual.widgets import DataTable, Select, Sparkline, Static

from tests.tui.conftest import fixed_status, until
from tests.tui.test_help_palette_keymap import run_palette
from tests.unit import test_cli_stats
from tests.unit.test_cli_stats import search
from websearch_tui.core.costs import Cost
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Citation, SearchRequest, SearchResponse, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.engine.engine import Engine
from websearch_tui.history import HistoryStore
from websearch_tui.settings.config import Config, HistorySettings, SearchSettings
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.stats import screen as stats_screen
from websearch_tui.tui.stats.screen import StatsScreen

SIZE = (120, 36)


recorded = test_cli_stats.recorded
"""The fixture of tests/unit/test_cli_stats.py: Exa and Brave 10 days ago (Brave failed), 1 day ago and now."""


@pytest.fixture
def history() -> Path:
    """The history file the app reads ($WEBSEARCH_TUI_HISTORY, see tests/conftest.py)."""
    return Path(os.environ["WEBSEARCH_TUI_HISTORY"])


def stats_screen_of(app: WebSearchApp) -> StatsScreen:
    screen = app.screen
    assert isinstance(screen, StatsScreen), screen
    return screen


async def open_by_key(pilot, key: str = "f6") -> StatsScreen:
    """Press ``key`` and wait until the Stats screen shows its figures (or its empty state)."""
    app = pilot.app
    await pilot.press(key)
    await until(
        pilot, lambda: isinstance(app.screen, StatsScreen), "the Stats screen is open", detail=lambda: app.screen
    )
    await shown(pilot)
    return stats_screen_of(app)


async def shown(pilot) -> None:
    """Wait until the Stats screen's load has ended and its charts (or its empty state) are shown."""

    def done() -> bool:
        screen = stats_screen_of(pilot.app)
        return not screen.pending and (figures_shown(screen) or screen.query_one("#stats-empty").display)

    await until(pilot, done, "the figures are shown")


def summary(screen: StatsScreen) -> str:
    return str(screen.query_one("#stats-summary", Static).visual)


def figures_shown(screen: StatsScreen) -> bool:
    """True when the table and the charts are shown, and not the empty state."""
    shown = [screen.query_one(selector).display for selector in ("#stats-table", "#stats-charts", "#stats-empty")]
    return shown == [True, True, False]


def rows(screen: StatsScreen) -> dict[str, list[str]]:
    """The table's rows by provider id, as plain cells."""
    table = screen.query_one("#stats-table", DataTable)
    return {str(key.value): [getattr(cell, "plain", str(cell)) for cell in table.get_row(key)] for key in table.rows}


async def test_f6_opens_the_figures_of_each_provider_and_escape_closes_it(make_app, fake_streams, recorded):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_key(pilot)
        assert summary(screen).startswith("3 searches since ")  # the last 30 days (the default period)
        table = rows(screen)
        assert set(table) == {"exa", "brave"}
        assert table["exa"][:3] == ["Exa", "3", "100%"] and "800 ms" in table["exa"]
        assert table["brave"][:5] == ["Brave Search", "3", "67%", "0%", "33%"]
        assert figures_shown(screen)
        assert sum(screen.query_one("#stats-searches", Sparkline).data or []) == 3
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, StatsScreen), "the Stats screen is closed")
        await open_by_key(pilot)
        await pilot.press("f6")  # the same key closes it
        await until(pilot, lambda: not isinstance(app.screen, StatsScreen), "F6 closed the Stats screen")


async def test_the_palette_opens_it(make_app, fake_streams, recorded):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_palette(pilot, "statistics", "Statistics")
        await until(pilot, lambda: isinstance(app.screen, StatsScreen), "the Stats screen is open")
        await shown(pilot)
        assert set(rows(stats_screen_of(app))) == {"exa", "brave"}


async def test_the_period_and_provider_selectors_narrow_the_figures(make_app, fake_streams, recorded):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_key(pilot)
        providers = screen.query_one("#stats-provider", Select)
        assert [str(prompt) for prompt, _ in providers._options] == ["All providers", "Brave Search", "Exa"]
        screen.query_one("#stats-period", Select).value = "7d"
        await until(pilot, lambda: summary(screen).startswith("2 searches since "), "the last 7 days are shown")
        assert rows(screen)["brave"][:5] == ["Brave Search", "2", "100%", "0%", "0%"]  # its failure was 10 days ago
        providers.value = "brave"
        await until(pilot, lambda: set(rows(screen)) == {"brave"}, "only Brave is shown", detail=lambda: rows(screen))
        assert summary(screen).startswith("2 searches that ran brave since ")
        assert [str(prompt) for prompt, _ in providers._options] == ["All providers", "Brave Search", "Exa"]  # kept
        screen.query_one("#stats-period", Select).value = "all"
        await until(pilot, lambda: rows(screen).get("brave", [""])[1:2] == ["3"], "all of Brave's runs are shown")


async def test_c_steps_the_left_chart_through_latency_outcomes_and_latency_per_day(make_app, fake_streams, recorded):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_key(pilot)

        def title() -> str:
            return str(screen.query_one("#stats-left-title", Static).visual)

        assert title() == "Latency (s)   p50   p95"
        await pilot.press("c")
        assert title().startswith("Outcomes (%)   done   empty   failed   cancelled")
        await pilot.press("c")
        assert title() == "Latency p50 per day (s)   Brave Search   Exa"
        await pilot.press("c")
        assert title().startswith("Latency (s)")
        assert str(screen.query_one("#stats-spend-title", Static).visual).startswith("Spend per day ($) · total $0.023")


async def test_without_a_history_file_it_says_so_and_creates_none(make_app, fake_streams, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_key(pilot)
        assert not figures_shown(screen) and screen.query_one("#stats-empty").display is True
        empty = str(screen.query_one("#stats-empty", Static).visual)
        assert empty.startswith(f"No history yet: {history} does not exist.")
        assert summary(screen) == "No searches recorded yet."
    assert not history.exists()


async def test_a_period_without_searches_says_so_and_how_to_see_more(make_app, fake_streams, history):
    store = HistoryStore(history)
    old = search(40)
    store.add(old, created_at=old.created_at)
    store.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_key(pilot)
        empty = str(screen.query_one("#stats-empty", Static).visual)
        assert empty.startswith("No searches recorded since ") and "Choose a longer period" in empty
        screen.query_one("#stats-period", Select).value = "all"
        await until(pilot, lambda: figures_shown(screen), "the whole history is shown")
        assert set(rows(screen)) == {"exa", "brave"}


async def test_a_history_that_is_off_is_said(fake_streams, recorded):
    config = Config(search=SearchSettings(providers=("ddgs",)), history=HistorySettings(enabled=False))
    app = WebSearchApp(config, Engine(default_providers=("ddgs",)), status_resolver=fixed_status)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_key(pilot)
        assert "the history is off" in str(screen.query_one("#stats-empty", Static).visual)
        assert summary(screen) == "The history cannot be read."


async def test_the_key_can_be_remapped(fake_streams, recorded):
    config = Config(search=SearchSettings(providers=("ddgs",)), keymap={"stats": "f9"})
    app = WebSearchApp(config, Engine(default_providers=("ddgs",)), status_resolver=fixed_status)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f6")
        await pilot.pause()
        assert not isinstance(app.screen, StatsScreen)
        screen = await open_by_key(pilot, "f9")
        assert set(rows(screen)) == {"exa", "brave"}


async def test_labels_are_plain_text_in_the_table_and_the_selector(make_app, fake_streams, history):
    store = HistoryStore(history)
    result = search(1)
    result.labels["exa"] = "[b]Exa[/b] \x1b[31mred\x1b[0m"
    store.add(result, created_at=result.created_at)
    store.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_key(pilot)
        label = rows(screen)["exa"][0]
        assert label == "[b]Exa[/b] red"  # shown as written, never as markup, without the escape sequence
        prompts = [str(prompt) for prompt, _ in screen.query_one("#stats-provider", Select)._options]
        assert "[b]Exa[/b] red" in prompts


# --- a layout snapshot at 80x24 --------------------------------------------------------------

FIXED_NOW = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)
PROFILES = {  # provider: (label, median ms, share failed, cost per run, first token ms or None)
    "ddgs": ("DuckDuckGo", 900, 0.10, 0.0, None),
    "brave": ("Brave Search", 600, 0.03, 0.005, None),
    "exa": ("Exa", 1500, 0.05, 0.007, None),
    "perplexity": ("Perplexity", 4200, 0.08, 0.006, 800),
    "tavily": ("Tavily", 1100, 0.15, 0.008, None),
}


def busy_search(rng: random.Random, when: datetime, number: int) -> SearchResult:
    """A five-provider search at ``when`` whose outcomes, timings, sources, citations and costs are
    drawn from :data:`PROFILES` with ``rng``."""
    pool = [f"https://site{n}.example/page" for n in range(12)]
    outcomes = []
    for provider, (_, median, failed, cost, first_token) in PROFILES.items():
        elapsed = int(median * rng.uniform(0.6, 2.2))
        if rng.random() < failed:
            error = ProviderError(provider, ErrorKind.RATE_LIMIT, "rate limited (429)", status=429)
            response = SearchResponse(provider=provider)
            outcomes.append(ProviderOutcome(provider, RunStatus.FAILED, response, error, elapsed // 3, None))
            continue
        urls = rng.sample(pool, rng.randint(3, 6)) + [f"https://{provider}.example/{number}"]
        sources = [Source(url, f"Page {url[8:14]}") for url in urls]
        citations = [Citation(url, "cited") for url in rng.sample(pool, 2)] if first_token else []
        response = SearchResponse(provider=provider, answer="An answer.", sources=sources, citations=citations)
        outcomes.append(
            ProviderOutcome(
                provider,
                RunStatus.DONE,
                response,
                None,
                elapsed,
                first_token and int(first_token * rng.uniform(0.7, 1.5)),
                cost=Cost(cost, "estimated" if cost else "keyless"),
            )
        )
    return SearchResult(
        request=SearchRequest(query=f"question {number}", providers=tuple(PROFILES)),
        mode="compare",
        search_id=number,
        providers=tuple(PROFILES),
        labels={pid: profile[0] for pid, profile in PROFILES.items()},
        outcomes=outcomes,
        created_at=when,
    )


def record_busy_history(path: Path, now: datetime, days: int = 30, seed: int = 26) -> int:
    """Record 0-5 searches a day over the ``days`` days before ``now`` (deterministic for ``seed``);
    returns how many."""
    rng = random.Random(seed)
    store = HistoryStore(path)
    count = 0
    for day in range(days, -1, -1):
        for _ in range(rng.randint(0, 5)):
            count += 1
            when = now - timedelta(days=day, hours=rng.uniform(0, 10))
            store.add(busy_search(rng, when, count), created_at=when)
    store.close()
    return count


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch):
    """Local time is UTC for this test (the screen's days and times are local)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_snapshot_at_80x24(snap_compare, make_app, fake_streams, history, utc, monkeypatch):
    record_busy_history(history, FIXED_NOW)
    monkeypatch.setattr(stats_screen, "utc_now", lambda: FIXED_NOW)

    async def run(pilot) -> None:
        await open_by_key(pilot)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run)
