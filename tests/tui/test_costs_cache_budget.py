"""What a search cost, results reused from the cache, the fresh search, the budget question and the
pacing wait, on the search screen (pilot tests over fake provider streams; no network)."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timedelta, timezone

import pytest
from textual.widgets import Input, Select
from textual.widgets._footer import FooterKey

import websearch_tui.session.session as session_module
from tests.tui.conftest import fixed_status, submit, until, wait_for_search
from tests.tui.test_history_screen import choose, open_history
from tests.tui.test_search_screen import full_result, pane, status_text
from websearch_tui.core.costs import CachedFrom, Cost
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import SearchRequest, SearchResponse
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.engine.engine import Engine
from websearch_tui.settings.config import BudgetSettings, Config, SearchSettings
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.common.dialogs import ChoiceDialog
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.source_list import SourceList
from websearch_tui.tui.search.status_line import PaneStatus, cached_text, fit_lines, render_status

STARTED = datetime(2026, 1, 7, 14, 20, tzinfo=timezone.utc)


def frozen() -> float:
    """A clock that never moves: elapsed times and waits read as they started."""
    return 100.0


def outcome(
    provider: str,
    cost: Cost | None,
    *,
    status: RunStatus = RunStatus.DONE,
    cached: CachedFrom | None = None,
) -> ProviderOutcome:
    """An ended run of ``provider`` with ``cost`` (and, reused, ``cached``)."""
    return ProviderOutcome(provider, status, SearchResponse(provider, answer="x"), cost=cost, cached=cached)


def result_of(*outcomes: ProviderOutcome) -> SearchResult:
    """A search whose outcomes are ``outcomes``, with readable labels."""
    providers = tuple(o.provider for o in outcomes)
    labels = {"exa": "Exa", "kagi": "Kagi", "ddgs": "DuckDuckGo", "brave": "Brave Search"}
    return SearchResult(SearchRequest("q"), "compare", 1, providers, labels, list(outcomes))


# --- the words -----------------------------------------------------------------------------


def test_the_pane_status_says_what_an_ended_run_cost() -> None:
    done = PaneStatus("done", 1.25, 3, cost=Cost(0.004, "estimated"))
    assert render_status(done).plain == "✓ done · 1.2s · 3 sources · ≈ $0.004"
    assert render_status(PaneStatus("done", 0.5, 1, cost=Cost(0.0, "keyless"))).plain.endswith("1 source · $0")
    assert render_status(PaneStatus("done", 0.5, 1, cost=Cost(0.0123, "reported"))).plain.endswith("· $0.0123")
    assert render_status(PaneStatus("empty", 0.5, cost=Cost(0.001, "estimated"))).plain.endswith("· ≈ $0.001")
    assert render_status(PaneStatus("done", 0.5, 2)).plain == "✓ done · 0.5s · 2 sources"  # no cost worked out


def test_a_status_line_too_wide_for_its_pane_breaks_between_its_parts() -> None:
    """ "≈ $0.005" or "3 sources" is never cut in two: the line breaks after a separator."""
    line = render_status(PaneStatus("done", 12.5, 3, cost=Cost(0.005, "estimated")))
    assert fit_lines(line, 80) is line
    assert fit_lines(line, 36).plain == "✓ done · 12.5s · 3 sources ·\n≈ $0.005"
    assert fit_lines(line, 20).plain == "✓ done · 12.5s ·\n3 sources · ≈ $0.005"
    assert fit_lines(line, 0) is line  # no width yet


async def test_the_pane_breaks_its_status_line_between_parts_at_its_width(make_app, fake_streams):
    fake_streams["brave"] = full_result
    app = make_app(("brave",))
    async with app.run_test(size=(36, 30)) as pilot:  # a pane 32 cells wide inside
        await submit(pilot, "narrow")
        await wait_for_search(pilot.app)
        await pilot.pause()
        shown = status_text(app, "brave")
        assert shown.endswith("sources ·\n≈ $0.005"), shown
        app.screen.query_one("#providers").display = False
        await pilot.resize_terminal(80, 30)
        await pilot.pause()
        assert "\n" not in status_text(app, "brave")


def test_a_failed_run_names_its_cost_only_when_it_cost_something() -> None:
    error = ProviderError("exa", ErrorKind.SERVER, "Exa answered 500.", status=500)
    free = render_status(PaneStatus("failed", 0.5, error=error, cost=Cost(0.0, "estimated"))).plain
    paid = render_status(PaneStatus("failed", 0.5, error=error, cost=Cost(0.005, "estimated"))).plain
    assert free == "✗ failed (server): Exa answered 500."
    assert paid == "✗ failed (server) · ≈ $0.005: Exa answered 500."


def test_a_reused_result_says_where_it_came_from_instead_of_an_elapsed_time() -> None:
    cached = CachedFrom(41, STARTED, 12 * 60 + 5)
    state = PaneStatus("done", 0.0, 2, cost=Cost(0.0, "cached"), cached=cached_text(cached, live=True))
    assert render_status(state).plain == "✓ cached · 12 min ago · 2 sources"
    stored = cached_text(cached, live=False)
    assert stored == f"cached from {STARTED.astimezone():%Y-%m-%d %H:%M}"


def test_the_pacing_wait_is_said_while_the_run_waits_for_its_slot() -> None:
    state = PaneStatus("running", 0.2, paced_in=0.8, limit=60)
    assert render_status(state).plain == "⠋ waiting 0.8s (paced) · 0.2s / 60s"


def test_the_search_total_adds_the_costs_and_counts_the_reused_results() -> None:
    cached = CachedFrom(41, STARTED, 600)
    assert result_of().cost_text() == ""
    assert result_of(outcome("exa", None)).cost_text() == ""
    assert (
        result_of(outcome("exa", Cost(0.012, "reported")), outcome("kagi", Cost(0.009, "estimated"))).cost_text()
        == "≈ $0.021"
    )
    assert result_of(outcome("exa", Cost(0.0123, "reported"))).cost_text() == "$0.0123"
    assert result_of(outcome("ddgs", Cost(0.0, "keyless"))).cost_text() == "$0"
    three = [outcome(pid, Cost(0.0, "cached"), cached=cached) for pid in ("exa", "kagi", "ddgs")]
    assert result_of(*three, outcome("brave", Cost(0.005, "estimated"))).cost_text() == "≈ $0.005 · 3 cached"
    assert result_of(*three).cost_text() == "$0 · 3 cached"
    unknown = outcome("kagi", Cost(0.0, "unknown"))
    assert result_of(unknown, outcome("exa", Cost(0.004, "estimated"))).cost_text() == ("≥ $0.004 (no price for Kagi)")
    assert result_of(unknown).cost_text() == "unknown (no price for Kagi)"


# --- pacing ----------------------------------------------------------------------------------


async def test_a_paced_run_says_it_waits_in_its_pane_and_the_hint_line(make_app, fake_streams):
    """Exa paced to one search every 30 s: a second search right after the first waits for its slot;
    while it waits, its pane and the hint line say so; once the wait is over it runs as usual."""
    fake_streams["exa"] = full_result
    app = make_app(("exa",), clock=frozen)
    gate = asyncio.Event()
    waits: list[float] = []

    async def held(delay: float) -> None:
        waits.append(delay)
        await gate.wait()

    app.engine.sleep = held  # before the first search: the pacer is made with it
    app.engine.settings["exa"] = ProviderSettings(min_interval=30)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "first")
        await wait_for_search(app)
        assert not waits
        await submit(pilot, "second")
        await until(
            pilot,
            lambda: waits and "waiting" in status_text(app, "exa"),
            "the Exa pane says it waits for its pacing slot",
            detail=lambda: (waits, status_text(app, "exa")),
        )
        assert 20 < waits[0] <= 30
        assert f"waiting {round(waits[0], 1):.1f}s (paced)" in status_text(app, "exa")
        assert re.search(r"^0/1 done · waiting \d+\.\d s: Exa allows one search every 30 s", hint(app)), hint(app)
        gate.set()
        await wait_for_search(app)
        assert pane(app, "exa").status == "done"
        assert "waiting" not in status_text(app, "exa") and "waiting" not in hint(app)
        assert "Held back" in pane(app, "exa").query_one(".notes").visual.plain


async def test_leaving_a_paced_wait_stops_its_countdown(make_app, fake_streams):
    """Esc while Exa waits for its pacing slot: the search is cancelled and the hint line's countdown
    stops with it (it counted on, ten times a second, for the rest of the session)."""
    fake_streams["exa"] = full_result
    app = make_app(("exa",), clock=frozen)
    gate = asyncio.Event()

    async def held(delay: float) -> None:
        await gate.wait()

    app.engine.sleep = held
    app.engine.settings["exa"] = ProviderSettings(min_interval=30)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "first")
        await wait_for_search(app)
        await submit(pilot, "second")
        screen = app.screen
        await until(pilot, lambda: screen._pacing is not None, "the countdown runs while Exa waits")
        await pilot.press("escape")
        await wait_for_search(app)
        await until(pilot, lambda: screen._pacing is None, "the countdown stopped with the search")
        # a tick that finds the search already ended stops the count too (it ran on forever)
        screen._pacing = screen.set_interval(60, lambda: None)
        screen._count_pacing_down()
        assert screen._pacing is None
        gate.set()


# --- cost, cache, fresh search and budget, over the app ---------------------------------------


@pytest.fixture
def calls(fake_streams) -> list[str]:
    """Provider ids in the order their fake streams ran (ddgs keyless, brave keyed and billed); each
    answers with :func:`full_result`, brave fails instead while ``failing`` holds "brave"."""
    ran: list[str] = []

    def counted(pid: str):
        async def run(request, ctx):
            ran.append(pid)
            if pid in FAILING:
                raise ProviderError(pid, ErrorKind.SERVER, "Brave Search answered 503.", status=503)
            async for event in full_result(request, ctx):
                yield event

        return run

    FAILING.clear()
    for pid in ("ddgs", "brave"):
        fake_streams[pid] = counted(pid)
    return ran


FAILING: set[str] = set()
"""Provider ids whose fake (:func:`calls`) fails for now."""


@pytest.fixture
def make_cost_app(monkeypatch: pytest.MonkeyPatch):
    """A WebSearchApp over ``providers`` as the CLI would build it (:meth:`Engine.from_config`: the
    history recorded, the cache read from it, Brave's key from the environment), without pacing, with
    ``budget`` (daily US dollars)."""
    monkeypatch.setenv("BRAVE_API_KEY", "test-brave-key-0123456789")

    def factory(providers: tuple[str, ...] = ("ddgs", "brave"), *, budget: float | None = None) -> WebSearchApp:
        config = Config(
            search=SearchSettings(providers=providers, max_results=5, timeout=600),
            providers={pid: ProviderSettings(min_interval=0) for pid in providers},
            budget=BudgetSettings(daily=budget),
        )
        return WebSearchApp(config, Engine.from_config(config), status_resolver=fixed_status, clock=frozen)

    return factory


def hint(app: WebSearchApp) -> str:
    """The hint line's text."""
    return app.screen.query_one("#hint").visual.plain


async def search_and_wait(pilot, query: str) -> None:
    """Search ``query`` (Enter) and wait until it has ended and been written to the history."""
    await submit(pilot, query)
    await wait_for_search(pilot.app)
    await settle(pilot)


async def settle(pilot) -> None:
    """Wait until the search screen's search has ended and the history holds every search ended so far."""
    await wait_for_search(pilot.app)
    recorder = pilot.app.engine.recorder
    assert recorder is not None
    assert await asyncio.to_thread(recorder.flush, 10)
    await pilot.pause()


async def test_each_pane_and_the_hint_line_say_what_the_search_cost(make_cost_app, calls):
    app = make_cost_app()
    async with app.run_test(size=(160, 36)) as pilot:
        await search_and_wait(pilot, "rust release")
        assert calls == ["ddgs", "brave"] or calls == ["brave", "ddgs"]
        assert status_text(app, "ddgs") == "✓ done · 0.0s · 2 sources · $0"  # keyless
        assert status_text(app, "brave") == "✓ done · 0.0s · 2 sources · ≈ $0.005"  # $5 per 1,000 requests
        assert hint(app) == "Finished — 2 done. · Cost ≈ $0.005"


async def test_the_same_search_again_reuses_the_results_and_says_how_old_they_are(make_cost_app, calls, monkeypatch):
    """A second search for the same question 12 minutes later sends nothing: each pane says "cached ·
    12 min ago" where the elapsed time was, and the hint line counts the cached results at $0."""
    app = make_cost_app()
    async with app.run_test(size=(160, 36)) as pilot:
        await search_and_wait(pilot, "rust release")
        monkeypatch.setattr(session_module, "datetime", later(minutes=12, seconds=5))
        await search_and_wait(pilot, "Rust  release")  # the same question, written a little differently
        assert len(calls) == 2  # nothing sent the second time
        for pid in ("ddgs", "brave"):
            assert status_text(app, pid) == "✓ cached · 12 min ago · 2 sources"
            assert "Answer about **rust release**." in pane(app, pid).answer.source  # the reused answer, whole
            assert "Alpha page" in pane(app, pid).query_one(SourceList).rows[0].plain
        assert hint(app) == "Finished — 2 done. · Cost $0 · 2 cached"


async def test_the_fresh_search_key_asks_every_provider_again(make_cost_app, calls):
    app = make_cost_app()
    async with app.run_test(size=(160, 36)) as pilot:
        await search_and_wait(pilot, "rust release")
        await search_and_wait(pilot, "rust release")
        assert len(calls) == 2 and "cached" in status_text(app, "brave")
        assert "search_fresh" in footer_actions(app)
        await pilot.press("ctrl+r")  # in the query box too: ctrl+r types nothing
        await settle(pilot)
        assert len(calls) == 4
        assert status_text(app, "brave") == "✓ done · 0.0s · 2 sources · ≈ $0.005"
        assert hint(app) == "Finished — 2 done. · Cost ≈ $0.005"
        assert app.screen.query_one("#query", Input).value == "rust release"


async def test_retrying_a_failed_provider_never_reuses_a_cached_result(make_cost_app, calls):
    """Brave answered the question once (a cached result); a fresh search fails for it; R runs Brave
    again instead of showing the cached answer."""
    app = make_cost_app()
    async with app.run_test(size=(160, 36)) as pilot:
        await search_and_wait(pilot, "rust release")
        FAILING.add("brave")
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert pane(app, "brave").status == "failed"
        FAILING.clear()
        app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()  # R is typed in the query box
        await pilot.press("R")
        await settle(pilot)
        assert calls.count("brave") == 3
        assert status_text(app, "brave") == "✓ done · 0.0s · 2 sources · ≈ $0.005"


async def test_a_search_over_the_budget_asks_first_and_each_answer_does_what_it_says(make_cost_app, calls):
    """Brave's $0.005 would pass a daily budget of $0.001: a dialog asks. Cancel sends nothing and
    keeps the query; "Search anyway" runs it."""
    app = make_cost_app(budget=0.001)
    async with app.run_test(size=(160, 36)) as pilot:
        await submit(pilot, "rust release")
        dialog = await wait_for_dialog(pilot)
        body = dialog.query_one(".dialog-body").visual.plain
        assert "daily budget of $0.001" in body and "about $0.005 for this search" in body
        assert 'Run it anyway with "Search anyway"' in body
        assert dialog.focused is dialog.query_one("#choice-cancel")  # Enter does not spend by accident
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, ChoiceDialog), "the dialog has closed")
        await pilot.pause()
        assert calls == []
        assert "Not searched" in hint(app)
        assert app.screen.query_one("#query", Input).value == "rust release"
        await pilot.press("enter")  # asks again
        dialog = await wait_for_dialog(pilot)
        await pilot.click("#choice-search")
        await settle(pilot)
        assert sorted(calls) == ["brave", "ddgs"]
        assert hint(app) == "Finished — 2 done. · Cost ≈ $0.005"


async def test_a_search_within_the_budget_or_costing_nothing_is_not_asked_about(make_cost_app, calls):
    app = make_cost_app(("ddgs",), budget=0.001)  # keyless: it costs nothing
    async with app.run_test(size=(160, 36)) as pilot:
        await search_and_wait(pilot, "rust release")
        assert calls == ["ddgs"] and not isinstance(app.screen, ChoiceDialog)


async def wait_for_dialog(pilot) -> ChoiceDialog:
    """Wait for the budget dialog and return it."""
    app = pilot.app
    await until(
        pilot, lambda: isinstance(app.screen, ChoiceDialog), "the budget dialog is open", detail=lambda: hint(app)
    )
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ChoiceDialog) and screen.id == "budget-dialog"
    return screen


def later(**delta: float) -> type[datetime]:
    """A ``datetime`` class whose ``now()`` is ``delta`` later than the real one's."""

    class Later(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return datetime.now(tz) + timedelta(**delta)

    return Later


def footer_actions(app: WebSearchApp) -> list[str]:
    """The actions of the keys the footer shows."""
    return [key.action for key in app.screen.query(FooterKey)]


async def test_a_search_shown_as_it_ended_keeps_its_costs_and_where_its_results_came_from(
    make_cost_app, calls, monkeypatch
):
    """Back, forward and the History screen show each pane's cost, and for a reused result the
    search it came from (an "ago" would count from the wrong moment), with the total in the hint."""
    app = make_cost_app()
    async with app.run_test(size=(160, 36)) as pilot:
        await search_and_wait(pilot, "rust release")
        monkeypatch.setattr(session_module, "datetime", later(minutes=12))
        await search_and_wait(pilot, "rust release")
        app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()  # [ and ] are typed in the query box
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert re.fullmatch(r"✓ done · \d+\.\ds · 2 sources · ≈ \$0\.005", status_text(app, "brave"))
        assert "(cost ≈ $0.005) — offline" in hint(app)
        await pilot.press("right_square_bracket")
        await pilot.pause()
        cached = re.compile(r"✓ cached from \d{4}-\d\d-\d\d \d\d:\d\d · 2 sources")
        assert cached.fullmatch(status_text(app, "brave")), status_text(app, "brave")
        assert "(cost $0 · 2 cached) — offline" in hint(app)
        await open_history(pilot)  # the newest search first
        await choose(pilot)
        assert cached.fullmatch(status_text(app, "brave")), status_text(app, "brave")
        assert status_text(app, "ddgs").startswith("✓ cached from ")
        assert "(cost $0 · 2 cached) — offline" in hint(app)


async def test_in_auto_mode_a_reused_answer_becomes_the_visible_tab(make_cost_app, calls, fake_streams):
    """Auto mode in tabs: Brave fails, DuckDuckGo answers. Asked again, Brave (not reusable: it failed)
    is tried and fails again, then DuckDuckGo's reused answer ends the chain and its tab is shown."""
    FAILING.add("brave")
    app = make_cost_app(("brave", "ddgs"))
    async with app.run_test(size=(70, 30)) as pilot:
        await pilot.pause()  # the boxes are Selects once the first frame is drawn
        app.screen.query_one("#mode", Select).value = "auto"
        await search_and_wait(pilot, "rust release")
        assert app.screen.pane_area.active == "ddgs"
        app.screen.pane_area.activate("brave")
        await search_and_wait(pilot, "rust release")
        assert calls == ["brave", "ddgs", "brave"]
        assert status_text(app, "ddgs").startswith("✓ cached · ")
        assert app.screen.pane_area.active == "ddgs"
