"""Pilot tests of the session memory: reopening from the History screen (F4), back and forward,
export, copy, private mode and the controls remembered across restarts (fake streams, no network)."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest
from textual.widgets import Select

from tests.tui.conftest import fixed_status, submit, until, wait_for_search, workers_done
from tests.tui.test_search_screen import auth_failure, full_result
from websearch_tui.engine.engine import Engine
from websearch_tui.formats.markdown import to_markdown
from websearch_tui.history import HistoryRecorder, HistoryStore
from websearch_tui.settings.config import Config, HistorySettings, SearchSettings
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.common.line_list import LineList
from websearch_tui.tui.history.screen import HistoryScreen, HistoryTable
from websearch_tui.tui.search.export import ExportDialog
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.related_list import RelatedList

PROVIDERS = ("ddgs", "exa", "brave")


def frozen() -> float:
    """A clock that never moves: elapsed times read the same live and reopened."""
    return 100.0


@pytest.fixture
def history(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite3"


@pytest.fixture
def calls(fake_streams) -> list[str]:
    """Provider ids in the order their (fake) searches ran; ddgs and exa answer, brave fails."""
    ran: list[str] = []

    def counted(pid, stream):
        async def run(request, ctx):
            ran.append(pid)
            async for event in stream(request, ctx):
                yield event

        return run

    for pid, stream in (("ddgs", full_result), ("exa", full_result), ("brave", auth_failure)):
        fake_streams[pid] = counted(pid, stream)
    return ran


@pytest.fixture
def make_history_app(history: Path):
    """A WebSearchApp whose engine records into ``history`` (both on the frozen clock)."""

    def factory(providers: tuple[str, ...] = PROVIDERS) -> WebSearchApp:
        config = Config(search=SearchSettings(providers=providers, max_results=5, timeout=10))
        recorder = HistoryRecorder(history, max_entries=100)
        engine = Engine(default_providers=providers, timeout=10, clock=frozen, recorder=recorder)
        return WebSearchApp(config, engine, status_resolver=fixed_status, clock=frozen)

    return factory


def pane_view(pane: ProviderPane) -> list[tuple[str, str]]:
    """Everything a pane shows, widget by widget: each visible widget's rendered text, and the
    answer's Markdown source."""
    view = [("answer", pane.answer.source)]
    for widget in pane.walk_children():
        if isinstance(widget, LineList):
            text: str | None = "\n".join(row.plain for row in widget.rows)
        else:
            text = getattr(getattr(widget, "visual", None), "plain", None)
        if widget.display and text is not None:
            view.append((type(widget).__name__, text))
    return view


def screen_view(app: WebSearchApp) -> dict[str, list[tuple[str, str]]]:
    return {pane.provider_id: pane_view(pane) for pane in app.screen.query(ProviderPane)}


async def open_history(pilot) -> HistoryScreen:
    app = pilot.app
    await pilot.press("f4")
    await until(
        pilot, lambda: isinstance(app.screen, HistoryScreen), "the History screen is open", detail=lambda: app.screen
    )
    await workers_done(app)
    await pilot.pause()
    return app.screen


async def choose(pilot, key: str = "enter") -> None:
    """Press ``key`` on the History screen and wait for the search screen to show the result."""
    await pilot.press(key)
    await until(
        pilot,
        lambda: not isinstance(pilot.app.screen, HistoryScreen),
        "the History screen has closed",
        detail=lambda: pilot.app.screen,
    )
    await workers_done(pilot.app)
    await wait_for_search(pilot.app)
    await pilot.pause()


async def test_reopening_restores_every_pane_exactly_as_it_ended_offline(make_history_app, calls):
    app = make_history_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "rust release")
        await wait_for_search(app)
        live = screen_view(app)
        assert {pid: dict(view)["StatusLine"][:6] for pid, view in live.items()} == {
            "ddgs": "✓ done",
            "exa": "✓ done",
            "brave": "✗ fail",
        }
        await submit(pilot, "another question")
        await wait_for_search(app)
        assert screen_view(app) != live
        ran = len(calls)
        screen = await open_history(pilot)
        assert [entry.query for entry in screen.rows.entries] == ["another question", "rust release"]
        await pilot.press("down")
        await choose(pilot)
        assert screen_view(app) == live  # answer, sources, citations, related, queries, notes, status
        assert len(calls) == ran  # nothing was searched again
        panes = list(app.screen.query(ProviderPane))
        assert all(str(pane.border_subtitle).startswith("from history · ") for pane in panes)
        assert "From the history" in app.screen.query_one("#hint").visual.plain
        assert app.screen.query_input.value == "rust release"


async def test_each_pane_marks_where_its_search_came_from_in_its_bottom_border(make_history_app, calls, history):
    """A reopened search's panes say "from history · <when>" in their bottom border, and reopening
    another one redraws that border line with the new date (only that line is drawn again)."""
    app = make_history_app(("ddgs", "exa"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "asyncio")
        await wait_for_search(app)
        app.engine.recorder.flush(10)
        store = HistoryStore(history)
        stored = store.get(store.entries()[0].id)
        for day in (1, 2):
            store.add(stored.result, created_at=datetime(2024, 3, day, 10 + day, tzinfo=timezone.utc))
        store.close()
        shown: list[str] = []
        for row in (1, 2):
            screen = await open_history(pilot)
            shown.append(f"from history · {screen.rows.entries[row].created_at.astimezone():%Y-%m-%d %H:%M}")
            for _ in range(row):
                await pilot.press("down")
            await choose(pilot)
            text = app.export_screenshot().replace("&#160;", " ")
            assert text.count(shown[-1]) == 2  # in both panes
        assert shown[0] != shown[1] and shown[0] not in text  # the earlier date was drawn over
        assert all(str(pane.border_subtitle) == shown[1] for pane in app.screen.query(ProviderPane))


async def test_the_filter_searches_answers_and_r_runs_it_again_live(make_history_app, calls, history):
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        for query in ("first topic", "second topic", "third topic"):
            await submit(pilot, query)
            await wait_for_search(app)
        screen = await open_history(pilot)
        assert len(screen.rows.entries) == 3
        screen.filter_input.value = "second"
        await pilot.pause()
        await workers_done(app)
        assert [entry.query for entry in screen.rows.entries] == ["second topic"]
        screen.filter_input.value = "alpha snippet"  # text of a source, in every search
        await pilot.pause()
        await workers_done(app)
        assert len(screen.rows.entries) == 3
        screen.rows.focus()
        await pilot.pause()
        ran = len(calls)
        await choose(pilot, "r")
        assert len(calls) == ran + 1  # searched again, live
        assert app.screen.query_one("#pane-ddgs", ProviderPane).status == "done"
        app.engine.recorder.flush(10)
        assert HistoryStore(history).count() == 4


async def test_delete_asks_first(make_history_app, calls, history):
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        for query in ("keep me", "delete me"):
            await submit(pilot, query)
            await wait_for_search(app)
        screen = await open_history(pilot)
        screen.rows.focus()
        await pilot.press("delete")
        await pilot.pause()
        await pilot.press("escape")  # the question: no
        await pilot.pause()
        assert HistoryStore(history).count() == 2
        await pilot.press("delete")
        await pilot.pause()
        await pilot.click("#choice-delete")
        await workers_done(app)
        await until(pilot, lambda: len(screen.rows.entries) == 1, "one row is left", detail=lambda: screen.rows.entries)
        assert [entry.query for entry in HistoryStore(history).entries()] == ["keep me"]


async def test_typing_in_the_list_goes_to_the_filter(make_history_app, calls):
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        await submit(pilot, "something")
        await wait_for_search(app)
        screen = await open_history(pilot)
        screen.query_one(HistoryTable).focus()
        await pilot.press("s", "o")
        assert screen.filter_input.value == "so" and screen.filter_input.has_focus


async def test_back_and_forward_restore_earlier_panes_without_searching(make_history_app, calls):
    app = make_history_app(("ddgs", "exa"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "asyncio")
        await wait_for_search(app)
        first = screen_view(app)
        app.screen.query_one("#pane-ddgs", ProviderPane).query_one(RelatedList).focus()
        await pilot.press("enter")  # follow the related question
        await wait_for_search(app)
        assert app.screen.query_input.value == "What about beta?"
        second = screen_view(app)
        ran = len(calls)
        app.screen.query_one("#pane-exa", ProviderPane).focus_target()
        await pilot.press("left_square_bracket")
        await wait_for_search(app)
        assert screen_view(app) == first and app.screen.query_input.value == "asyncio"
        assert "Search 1 of 2 of this session" in app.screen.query_one("#hint").visual.plain
        await pilot.press("left_square_bracket")  # already the first
        await pilot.press("alt+right")
        await wait_for_search(app)
        assert screen_view(app) == second
        assert len(calls) == ran


async def test_going_back_stops_a_running_search_and_keeps_what_it_found(make_history_app, fake_streams, calls):
    import asyncio

    from websearch_tui.core.models import AnswerDelta

    async def slow(request, ctx):
        yield AnswerDelta("partial ")
        await asyncio.Event().wait()

    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        await submit(pilot, "done one")
        await wait_for_search(app)
        fake_streams["ddgs"] = slow
        await submit(pilot, "slow one")
        pane = app.screen.query_one("#pane-ddgs", ProviderPane)
        await until(pilot, lambda: pane.status == "streaming", "the slow search streams", detail=lambda: pane.status)
        await pilot.press("alt+left")
        await wait_for_search(app)
        assert app.screen.query_input.value == "done one"
        await pilot.press("alt+right")
        await wait_for_search(app)
        pane = app.screen.query_one("#pane-ddgs", ProviderPane)
        assert pane.status == "cancelled" and pane.answer.source == "partial "


async def test_export_writes_markdown_and_json(make_history_app, calls, tmp_path):
    app = make_history_app(("ddgs", "brave"))
    async with app.run_test(size=(160, 40)) as pilot:
        await submit(pilot, "rust release")
        await wait_for_search(app)
        app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()
        shown = app.screen.shown_result()
        await pilot.press("e")
        await until(
            pilot, lambda: isinstance(app.screen, ExportDialog), "the export dialog is open", detail=lambda: app.screen
        )
        dialog = app.screen
        assert Path(dialog.path_input.value).name.startswith("rust-release-")
        assert dialog.path_input.value.endswith(".md")
        target = tmp_path / "report.md"
        dialog.path_input.value = str(target)
        await pilot.press("enter")
        await workers_done(app)
        await until(pilot, lambda: not isinstance(app.screen, ExportDialog), "the export dialog has closed")
        assert target.read_text(encoding="utf-8") == to_markdown(shown.result)
        await pilot.press("e")
        await until(
            pilot, lambda: isinstance(app.screen, ExportDialog), "the export dialog is open", detail=lambda: app.screen
        )
        dialog = app.screen
        dialog.query_one("#export-format", Select).value = "json"
        await pilot.pause()
        assert dialog.path_input.value.endswith(".json")  # the default follows the format
        dialog.path_input.value = str(target)  # exists: the first Save only warns
        await pilot.press("enter")
        await pilot.pause()
        assert "exists" in dialog.query_one("#export-message").visual.plain
        assert target.read_text(encoding="utf-8") == to_markdown(shown.result)
        await pilot.press("enter")
        await workers_done(app)
        await until(pilot, lambda: not isinstance(app.screen, ExportDialog), "the export dialog has closed")
        assert json.loads(target.read_text(encoding="utf-8")) == to_document(shown.result)


def to_document(result):
    return json.loads(json.dumps(result.to_dict()))


async def test_export_shows_a_failed_write_and_stays_open(make_history_app, calls, tmp_path):
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        await submit(pilot, "q")
        await wait_for_search(app)
        app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()
        await pilot.press("e")
        await until(
            pilot, lambda: isinstance(app.screen, ExportDialog), "the export dialog is open", detail=lambda: app.screen
        )
        blocker = tmp_path / "not-a-folder"
        blocker.write_text("x")
        app.screen.path_input.value = str(blocker / "out.md")
        await pilot.press("enter")
        await workers_done(app)
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        assert "Cannot write" in app.screen.query_one("#export-message").visual.plain


async def open_export(app, pilot):
    """Search, then open the export dialog; returns it."""
    await submit(pilot, "q")
    await wait_for_search(app)
    app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()
    await pilot.press("e")
    await until(
        pilot, lambda: isinstance(app.screen, ExportDialog), "the export dialog is open", detail=lambda: app.screen
    )
    return app.screen


async def test_export_over_a_symlink_replaces_its_target_as_search_o_does(make_history_app, calls, tmp_path):
    target = tmp_path / "report.md"
    target.write_text("old report\n")
    link = tmp_path / "latest.md"
    link.symlink_to(target)
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        dialog = await open_export(app, pilot)
        shown = app.screen_stack[-2].shown_result()
        dialog.path_input.value = str(link)
        await pilot.press("enter")  # exists: the first Save only warns
        await pilot.press("enter")
        await workers_done(app)
        await until(pilot, lambda: not isinstance(app.screen, ExportDialog), "the export dialog has closed")
    assert link.is_symlink() and link.readlink() == target
    assert target.read_text(encoding="utf-8") == to_markdown(shown.result)


async def test_export_into_a_fifo_writes_into_it_or_says_nothing_reads_it(make_history_app, calls, tmp_path):
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        dialog = await open_export(app, pilot)
        dialog.path_input.value = str(fifo)
        await pilot.press("enter")  # nothing reads it: said at once, the dialog stays
        await workers_done(app)
        await pilot.pause()
        assert app.screen is dialog
        assert "nothing is reading that FIFO" in dialog.query_one("#export-message").visual.plain
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        await pilot.press("enter")  # a FIFO is written into, never "replaced": no second Save
        await workers_done(app)
        await until(pilot, lambda: app.screen is not dialog, "the export dialog has closed")
    written = os.read(reader, 1 << 16)  # the whole report is in the FIFO's buffer
    os.close(reader)
    assert written.startswith(b"# q") and stat.S_ISFIFO(fifo.stat().st_mode)


async def test_export_errors_show_a_path_with_escapes_as_plain_text(make_history_app, calls, tmp_path, monkeypatch):
    folder = tmp_path / "\x1b]0;title\x07\x1b[31mred"
    folder.mkdir()
    monkeypatch.chdir(folder)  # the default path is in the current directory
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        dialog = await open_export(app, pilot)
        os.mkdir(dialog.path_input.value)  # a folder where the file would go
        await pilot.press("enter")
        await pilot.pause()
        shown = dialog.query_one("#export-message").visual.plain
    assert shown.startswith(f"{tmp_path}/red/q-") and shown.endswith(".md is a folder; add a file name.")


async def test_private_search_records_nothing(make_history_app, calls, history):
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("f5")
        mark = app.screen.query_one("#record-state")
        assert mark.display and "private" in mark.visual.plain
        await submit(pilot, "a private question")
        await wait_for_search(app)
        app.engine.recorder.flush(10)
        assert not history.exists() or HistoryStore(history).count() == 0
        await pilot.press("f5")
        assert not mark.display
        await submit(pilot, "a public question")
        await wait_for_search(app)
        app.engine.recorder.flush(10)
        assert [entry.query for entry in HistoryStore(history).entries()] == ["a public question"]


async def test_copy_answer_copies_the_focused_panes_answer(make_history_app, calls, monkeypatch):
    copied: list[str] = []
    monkeypatch.setattr("pyperclip.copy", copied.append)
    app = make_history_app(("ddgs", "exa"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "rust release")
        await wait_for_search(app)
        app.screen.action_copy_answer()  # focus is in the query box: which pane?
        assert app.clipboard == "" and copied == []
        app.screen.query_one("#pane-exa", ProviderPane).focus_target()
        await pilot.pause()
        app.screen.action_copy_answer()
        await workers_done(app)
        await pilot.pause()
        answer = "Answer about **rust release**."
        assert app.clipboard == answer and copied == [answer]  # the terminal (OSC 52) and the system clipboard
        assert f"Copied Exa's answer ({len(answer)} characters) to the clipboard." in [
            n.message for n in app._notifications
        ]


async def test_the_controls_are_remembered_across_restarts(make_history_app, calls):
    app = make_history_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()  # the boxes are Selects once the first frame is drawn
        app.screen.selector.deselect("exa")
        app.screen.selector.select("brave")
        app.screen.query_one("#mode", Select).value = "auto"
        app.screen.query_one("#recency", Select).value = "month"
        app.screen.query_one("#count", Select).value = 7
        await pilot.pause()
        await workers_done(app)
    app = make_history_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert [spec.id for spec in app.screen.selected_specs()] == ["ddgs", "brave"]
        values = [app.screen.query_one(f"#{name}", Select).value for name in ("mode", "recency", "count")]
        assert values == ["auto", "month", 7]


async def test_history_off_says_so(fake_streams):
    config = Config(search=SearchSettings(providers=("ddgs",)), history=HistorySettings(enabled=False))
    app = WebSearchApp(config, Engine.from_config(config), status_resolver=fixed_status)
    async with app.run_test(size=(120, 36)) as pilot:
        assert app.engine.recorder is None
        await pilot.press("f4")
        await pilot.pause()
        assert not isinstance(app.screen, HistoryScreen)
        assert any("History is off" in notification.message for notification in app._notifications)


async def test_rows_move_with_keys_and_clicks_and_fit_wide_text(make_history_app, calls):
    app = make_history_app(("ddgs",))
    async with app.run_test(size=(160, 40)) as pilot:
        for query in ("one", "two", "异步编程教程 很长的问题", "four"):
            await submit(pilot, query)
            await wait_for_search(app)
        screen = await open_history(pilot)
        rows = screen.rows
        assert [entry.query for entry in rows.entries] == ["four", "异步编程教程 很长的问题", "two", "one"]
        await pilot.press("down", "down", "up")  # in the filter: they move the cursor
        assert rows.cursor == 1 and screen.filter_input.has_focus
        assert all(rows.render_line(y).cell_length == rows.size.width for y in range(6))  # CJK is two cells wide
        rows.focus()
        await pilot.press("end")
        assert rows.cursor == 3
        await pilot.press("home")
        assert rows.cursor == 0
        await pilot.click("#history-list", offset=(5, 2))
        assert rows.cursor == 2
        await pilot.click("#history-list", offset=(5, 2))  # again: reopen it
        await until(
            pilot,
            lambda: not isinstance(app.screen, HistoryScreen),
            "the History screen has closed",
            detail=lambda: app.screen,
        )
        await workers_done(app)
        assert app.screen.query_input.value == "two"


async def test_stepping_back_keeps_the_focus_among_the_panes_when_they_are_rebuilt(make_history_app, calls):
    """Going back to a search with other providers rebuilds the panes; the focus used to fall into the
    query box (text selected), so the next ``[`` replaced the query."""
    app = make_history_app(("ddgs", "exa"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "asyncio")
        await wait_for_search(app)
        app.screen.selector.deselect("exa")
        await submit(pilot, "rust")
        await wait_for_search(app)
        app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()
        await pilot.pause()
        await pilot.press("left_square_bracket")
        await wait_for_search(app)
        assert [pane.provider_id for pane in app.screen.query(ProviderPane)] == ["ddgs", "exa"]
        await until(
            pilot,
            lambda: app.screen.pane_area in app.focused.ancestors,
            "the focus is on a pane",
            detail=lambda: app.focused,
        )
        await pilot.press("left_square_bracket", "right_square_bracket")  # the first already; then forward
        await wait_for_search(app)
        await until(
            pilot,
            lambda: app.screen.pane_area in app.focused.ancestors,
            "the focus is on a pane",
            detail=lambda: app.focused,
        )
        assert app.screen.query_input.value == "rust"


async def test_closing_the_merged_view_gives_the_focus_to_a_pane_not_the_query_box(make_history_app, calls):
    app = make_history_app(("ddgs", "exa"))
    async with app.run_test(size=(200, 50)) as pilot:
        await submit(pilot, "asyncio")
        await wait_for_search(app)
        app.screen.query_one("#pane-ddgs", ProviderPane).focus_target()
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("x")  # a key that types in the query box, had the focus gone there
        assert app.screen.query_input.value == "asyncio"
        assert app.screen.pane_area in app.focused.ancestors
