"""Issue 28 (first paint): what the first frame does not need happens after it.

The first frame is the first screen update Textual draws (``App._display`` with something to draw,
outside a batch). These tests look at what has been imported, made or asked for by then, not at
timings (``benchmarks/first_paint.py`` measures those).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Select, Static

from tests.tui.conftest import FakeStream, fixed_status, submit, until, wait_for_search
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import AnswerDelta, SearchRequest, SearchResponse, Source, SourcesFound
from websearch_tui.core.results import ProviderOutcome, RunStatus
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.common.provider_face import ProviderFace
from websearch_tui.tui.common.provider_selector import ProviderSelector
from websearch_tui.tui.search.merged_view import MergedView
from websearch_tui.tui.search.pane_area import PaneArea
from websearch_tui.tui.search.pane_tabs import PaneTabs
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.search_bar import SearchBar, SelectFace

ROOT = Path(__file__).resolve().parents[2]

FIRST_FRAME_MODULES = """
import asyncio, json, sys
from pathlib import Path
from textual.app import App
from websearch_tui.engine.engine import Engine
from websearch_tui.settings.config import load_config
from websearch_tui.tui.app import WebSearchApp

seen = []
display = App._display

def first_frame(self, screen, renderable):
    if renderable is not None and not self._batch_count and not seen:
        seen.append(sorted(sys.modules))
    display(self, screen, renderable)

App._display = first_frame
config = load_config(Path(sys.argv[1]))

async def main():
    app = WebSearchApp(config, Engine.from_config(config))
    async with app.run_test(size=(240, 60)) as pilot:
        await pilot.pause()
        app.exit()

asyncio.run(main())
print(json.dumps(seen[0] if seen else None))
"""
"""Starts the real app (its own readiness, from the key store) headless with the config file in
``argv[1]`` and prints the names of the modules imported when its first frame was drawn."""

NOT_BEFORE_THE_FIRST_FRAME = (
    "keyring",  # the key store, for the provider list's readiness
    "websearch_tui.tui.common.link_dialog",  # and with it Textual's text area
    "textual.widgets._text_area",
    "websearch_tui.tui.settings.screen",
    "websearch_tui.tui.stats.screen",
    "websearch_tui.tui.history.screen",
    "websearch_tui.tui.help.screen",
    "websearch_tui.tui.reader.screen",
    "websearch_tui.tui.search.export",
    "websearch_tui.tui.common.dialogs",  # the budget dialog, shown only before a search
    "textual.widgets._tabs",  # the tab bar's tabs are made at the pane area's first resize
    "websearch_tui.tui.search.status_tab",
    "textual.widgets._selection_list",  # the provider list: its face draws the first frame
    "websearch_tui.tui.common.provider_selector",
    "websearch_tui.tui.bindings",  # the key table: the Help screen, the palette, a [keymap] check
    "websearch_tui.tui.search.provider_pane",  # the panes are made at the pane area's first resize
    "websearch_tui.tui.search.merged_view",  # mounted when first shown
    "websearch_tui.tui.common.answer_view",  # a pane's parts (answer, lists) are made once it is shown
    "websearch_tui.tui.common.markdown_lines",
    "websearch_tui.tui.common.line_list",
    "websearch_tui.tui.search.source_list",
    "websearch_tui.tui.search.related_list",
    "hashlib",  # the cache keys' digests, at the first search
    "html",  # entities decoded in provider text and error pages
    "sqlite3",  # the history file, opened at the first search recorded or history read
    "websearch_tui.history.store",
    "websearch_tui.history.codec",
    "websearch_tui.core.prices",  # the price table: a run's cost, a budget's estimate
)


def test_the_first_frame_imports_no_key_store_dialog_or_other_screen(tmp_path: Path) -> None:
    """24 providers selected: when the first frame is drawn, neither the keyring (readiness is
    resolved after it) nor a screen or dialog not on it has been imported."""
    from tests.fake_providers import config_toml

    config = tmp_path / "config.toml"
    config.write_text(config_toml("http://127.0.0.1:9", providers=list(SPECS)[:24]), encoding="utf-8")
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "WEBSEARCH_TUI_HISTORY": str(tmp_path / "history.sqlite3"),
        "WEBSEARCH_TUI_STATE": str(tmp_path / "state.json"),
        "WEBSEARCH_TUI_LOG": str(tmp_path / "log.txt"),
    }
    run = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_MODULES, str(config)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    modules = json.loads(run.stdout.strip().splitlines()[-1])
    assert modules is not None, "no frame was drawn"
    assert "websearch_tui.tui.search.screen" in modules  # the frame was the search screen's
    early = [name for name in NOT_BEFORE_THE_FIRST_FRAME if name in modules]
    assert early == []


def count_frames(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list holding how many frames the app has drawn so far (counted from now on)."""
    frames = [0]
    display = App._display

    def counted(self: App[object], screen: object, renderable: object) -> None:
        if renderable is not None and not self._batch_count:
            frames[0] += 1
        display(self, screen, renderable)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_display", counted)
    return frames


async def test_provider_readiness_is_resolved_after_the_first_frame(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The provider list's readiness (which may ask the OS keyring, and imports it) is asked for once
    the first frame is on screen, and the list then shows it."""
    frames = count_frames(monkeypatch)
    asked_after: list[int] = []

    def resolver(spec: ProviderSpec, settings: object) -> str:
        asked_after.append(frames[0])
        return fixed_status(spec, settings)

    app = make_app(("ddgs", "exa"))
    app.status_resolver = resolver
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: len(asked_after) == len(SPECS))
        assert min(asked_after) >= 1
        selector = app.screen.query_one(ProviderSelector)
        await wait_for(pilot, lambda: selector.statuses.get("ddgs") == "keyless")


async def test_a_pane_behind_a_tab_makes_its_widgets_when_first_needed(make_app: Callable[..., WebSearchApp]) -> None:
    """Eight panes in tabs: only the pane on show has made its widgets by the first frame; another
    makes them when its tab is shown."""
    ids = tuple(list(SPECS)[:8])
    app = make_app(ids)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        panes = list(app.screen.query(ProviderPane))
        made = [pane.provider_id for pane in panes if pane._parts is not None]
        assert made == [ids[0]]
        app.screen.query_one("#panes").activate(ids[3])  # type: ignore[attr-defined]
        await pilot.pause()
        assert panes[3]._parts is not None
        assert panes[3].answer.is_mounted


async def wait_for(pilot: Pilot[object], condition: Callable[[], bool], tries: int = 200) -> None:
    """Let the app run until ``condition`` holds (fails the test after ``tries`` pauses)."""
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("the condition did not come true")


async def test_the_merged_view_is_mounted_with_its_filter_and_rows_when_first_shown(
    make_app: Callable[..., WebSearchApp],
) -> None:
    """The merged view is not in the screen until it is first shown; showing it mounts it after the
    panes, with its filter, summary and rows, and focuses its rows; hidden again, it stays mounted."""
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert not app.screen.query(MergedView)
        await app.screen.action_toggle_merged()  # type: ignore[attr-defined]
        await pilot.pause()
        merged = app.screen.query_one(MergedView)
        assert [child.id for child in merged.children] == ["merged-filter", "merged-summary", "merged-rows"]
        assert app.focused is merged.query_one("#merged-rows")
        assert [child.id for child in app.screen.query_one("#pane-grid").children] == [
            "pane-ddgs",
            "pane-exa",
            "merged-view",
        ]
        await app.screen.action_toggle_merged()  # type: ignore[attr-defined]
        await pilot.pause()
        assert app.screen.query_one(MergedView) is merged and not merged.display


TABS_SIZE = (100, 40)
"""A terminal in which 24 panes go behind tabs (the provider list shown)."""


async def test_the_first_frame_mounts_no_pane_and_no_tab_and_the_rest_follow_unasked(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """24 providers in tabs: the first frame has no pane and no tab bar in the screen (the pane area
    has no size yet); the tabs and then every other pane follow with nothing asked, hidden behind
    their tabs, and only the first pane is shown."""
    counts: list[tuple[int, int]] = []
    display = App._display

    def counted(self: App[object], screen: object, renderable: object) -> None:
        if renderable is not None and not self._batch_count and not counts:
            counts.append((len(self.screen.query(ProviderPane)), len(self.screen.query(PaneTabs))))
        display(self, screen, renderable)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_display", counted)
    ids = list(SPECS)[:24]
    app = make_app(tuple(ids))
    async with app.run_test(size=TABS_SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.screen.query(ProviderPane)) == 24)
        assert counts[0] == (0, 0)
        area = app.screen.query_one(PaneArea)
        assert area.mode == "tabs"
        assert [pane.provider_id for pane in app.screen.query(ProviderPane)] == ids
        assert [tab.id for tab in app.screen.query("StatusTab")] == [f"tab-{pid}" for pid in ids]
        shown = [pane.provider_id for pane in app.screen.query(ProviderPane) if pane.display]
        assert shown == [ids[0]]
        bar = app.screen.query_one(PaneTabs)
        await wait_for(pilot, lambda: bar.overflow.endswith("▶"))  # the tabs the bar cuts off are counted


def never_mount_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batches that mount the panes behind tabs after the first frame never come: every pane
    not mounted at the start stays so until something asks for it."""

    async def nothing(self: PaneArea) -> None:
        return None

    monkeypatch.setattr(PaneArea, "_mount_batch", nothing)


def own_answer(provider_id: str) -> FakeStream:
    """A stream that answers with its provider's id, in two pieces, then one source naming it."""

    async def stream(request: object, ctx: object):  # type: ignore[no-untyped-def]
        yield AnswerDelta(f"Answer of {provider_id}, ")
        yield AnswerDelta("whole.")
        yield SourcesFound((Source(f"https://{provider_id}.example/", f"Page of {provider_id}"),))

    return stream  # type: ignore[return-value]


async def test_a_search_before_the_hidden_panes_are_mounted_reaches_every_pane(
    make_app: Callable[..., WebSearchApp], fake_streams: dict[str, FakeStream], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search sent while panes behind tabs are not mounted yet loses nothing: every provider's
    answer and source reach its own pane."""
    never_mount_in_the_background(monkeypatch)
    ids = list(SPECS)[:24]
    for pid in ids:
        fake_streams[pid] = own_answer(pid)
    app = make_app(tuple(ids))
    async with app.run_test(size=TABS_SIZE) as pilot:
        await pilot.pause()
        assert len(app.screen.query(ProviderPane)) < 24  # the search below comes first
        await submit(pilot, "who answers")
        await wait_for_search(app)
        panes = {pane.provider_id: pane for pane in app.screen.query(ProviderPane)}
        assert list(panes) == ids
        for pid, pane in panes.items():
            assert pane.status == "done", pid
            assert pane.answer.source == f"Answer of {pid}, whole.", pid
            assert [source.url for source in pane.response.sources] == [f"https://{pid}.example/"], pid


async def test_a_search_shown_as_it_ended_before_the_hidden_panes_are_mounted_fills_every_pane(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search reopened (from the history, or back and forward) while panes behind tabs are not
    mounted yet fills every pane with its own outcome."""
    never_mount_in_the_background(monkeypatch)
    ids = list(SPECS)[:24]
    app = make_app(tuple(ids))
    async with app.run_test(size=TABS_SIZE) as pilot:
        await pilot.pause()
        area = app.screen.query_one(PaneArea)
        assert len(app.screen.query(ProviderPane)) < 24
        outcomes = [
            ProviderOutcome(pid, RunStatus.DONE, SearchResponse(provider=pid, answer=f"Stored answer of {pid}"))
            for pid in ids
        ]
        await area.show_ended(outcomes, "from history")
        await pilot.pause()
        panes = list(app.screen.query(ProviderPane))
        assert [pane.provider_id for pane in panes] == ids
        assert [pane.answer.source for pane in panes] == [f"Stored answer of {pid}" for pid in ids]
        assert all(pane.status == "done" for pane in panes)


async def test_a_tab_shown_before_its_pane_is_mounted_mounts_and_builds_it(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Showing the tab of a pane not mounted yet (a click, or Tab from pane to pane) mounts it and
    makes its widgets; it is the one pane shown."""
    never_mount_in_the_background(monkeypatch)
    ids = list(SPECS)[:24]
    app = make_app(tuple(ids))
    async with app.run_test(size=TABS_SIZE) as pilot:
        await pilot.pause()
        assert f"pane-{ids[20]}" not in {pane.id for pane in app.screen.query(ProviderPane)}
        app.screen.query_one(PaneArea).activate(ids[20])
        await pilot.pause()
        pane = app.screen.query_one(f"#pane-{ids[20]}", ProviderPane)
        assert pane.answer.is_mounted
        shown = [pane.provider_id for pane in app.screen.query(ProviderPane) if pane.display]
        assert shown == [ids[20]]


async def test_the_boxes_are_faces_in_the_first_frame_then_selects_that_keep_what_was_set(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first frame draws the mode, recency and count boxes as faces (one widget each); the real
    Selects take their places after it, with the values and the short labels (80 columns) the faces
    had, also values set while the faces were shown (a reopened search's controls)."""
    seen: list[tuple[list[str], tuple[str, str | None, int]]] = []
    display = App._display

    def first_frame(self: App[object], screen: object, renderable: object) -> None:
        if renderable is not None and not self._batch_count and not seen:
            bar = self.screen.query_one(SearchBar)
            boxes = [type(bar.query_one(f"#{name}")).__name__ for name in ("mode", "recency", "count")]
            bar.show_request(SearchRequest(query="q", mode="auto", recency="week", max_results=7))
            seen.append((boxes, bar.controls()))
        display(self, screen, renderable)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_display", first_frame)
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(80, 24)) as pilot:
        bar = app.screen.query_one(SearchBar)
        await wait_for(pilot, lambda: not app.screen.query(SelectFace) and not bar._swapping)  # every Select mounted
        assert seen == [(["SelectFace"] * 3, ("auto", "week", 7))]
        selects = [app.screen.query_one(f"#{name}", Select) for name in ("mode", "recency", "count")]
        assert [select.value for select in selects] == ["auto", "week", 7]
        assert [select.selection for select in selects] == ["auto", "week", 7]
        assert [child.id for child in app.screen.query_one(SearchBar).children] == ["query", "mode", "recency", "count"]
        assert app.screen.query_one(SearchBar).controls() == ("auto", "week", 7)
        recency = selects[1]
        await pilot.pause()
        assert recency.query_one("#label").visual.plain == "week"  # the short label, at 80 columns


async def test_the_first_frame_draws_the_provider_list_face_and_the_list_then_takes_its_place(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first frame shows the provider list's face; right after it the real list is in its place
    (first in its row), with the face's selection and the readiness resolved after that frame."""
    first: list[str] = []
    display = App._display

    def seen(self: App[object], screen: object, renderable: object) -> None:
        if renderable is not None and not self._batch_count and not first:
            first.append(" ".join(type(node).__name__ for node in self.screen.query("ProviderFace, ProviderSelector")))
        display(self, screen, renderable)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_display", seen)
    app = make_app(("ddgs", "exa", "brave"))
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: bool(app.screen.query(ProviderSelector)))
        assert first == ["ProviderFace"]
        assert not app.screen.query(ProviderFace)
        selector = app.screen.query_one(ProviderSelector)
        assert app.screen.query_one("#main").children[0] is selector
        assert sorted(selector.selected) == ["brave", "ddgs", "exa"]
        await wait_for(pilot, lambda: selector.statuses.get("ddgs") == "keyless")


def cells(strips: list[Strip]) -> list[list[tuple[str, Style]]]:
    """Each line's characters with their styles (without Textual's mouse metadata), for comparing
    what two widgets draw cell by cell."""
    return [
        [(char, seg.style.clear_meta_and_links() if seg.style else Style()) for seg in strip for char in seg.text]
        for strip in strips
    ]


class TwoLists(App[None]):
    """The provider list and its face side by side, each as the search screen sizes it (neither
    focused: on the search screen the query box has the focus)."""

    AUTO_FOCUS = None
    CSS = "Screen { layout: horizontal; } #providers, #face { width: 42; height: 1fr; border: round $panel-lighten-2; }"

    def __init__(self, selected: list[str]) -> None:
        super().__init__()
        self.selected = selected

    def compose(self) -> ComposeResult:
        specs = list(SPECS.values())
        yield ProviderSelector(specs, self.selected, id="providers")
        yield ProviderFace(specs, self.selected, id="face")


@pytest.mark.parametrize("height", [40, 20])  # every row fits; the rows scroll (a scrollbar)
async def test_the_face_draws_every_row_as_the_provider_list_does(height: int) -> None:
    """Every cell of the face (border, check boxes and marks, labels, kinds, readiness not resolved
    yet, the highlighted first row, the blank rows below) has the character and the style the
    provider list draws there before readiness is resolved (it is resolved after the first frame,
    into the list), also when the rows do not fit."""
    app = TwoLists(["ddgs", "exa", "brave"])
    async with app.run_test(size=(90, height)) as pilot:
        await pilot.pause()
        lists: list[Widget] = [app.query_one("#providers"), app.query_one("#face")]
        selector, face = (widget.render_lines(Region(0, 0, *widget.outer_size)) for widget in lists)
        assert cells(face) == cells(selector)
        assert lists[0].show_vertical_scrollbar == lists[1].show_vertical_scrollbar == (height == 20)


async def test_the_first_frame_draws_each_box_face_with_its_label_and_the_select_s_width(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the first frame each box's face shows the label of its value and is as wide as the Select that
    then takes its place (a face made before it was attached once had no label and the whole width)."""
    seen: list[list[tuple[int, list[str]]]] = []
    display = App._display

    def first_frame(self: App[object], screen: object, renderable: object) -> None:
        if renderable is not None and not self._batch_count and not seen:
            faces = [self.screen.query_one(f"#{name}", SelectFace) for name in ("mode", "recency", "count")]
            seen.append([(face.outer_size.width, face.visual.plain.split()[:1]) for face in faces])  # type: ignore[union-attr]
        display(self, screen, renderable)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_display", first_frame)
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 40)) as pilot:
        bar = app.screen.query_one(SearchBar)
        await wait_for(pilot, lambda: not app.screen.query(SelectFace) and not bar._swapping)
        await pilot.pause()
        selects = [app.screen.query_one(f"#{name}", Select) for name in ("mode", "recency", "count")]
        labels = [select.query_one("#label").visual.plain.split()[:1] for select in selects]  # type: ignore[union-attr]
        assert seen == [[(select.outer_size.width, label) for select, label in zip(selects, labels, strict=True)]]


async def test_the_rows_the_panes_and_the_list_cover_skip_the_style_pipeline(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search screen, the row holding the list and the pane area, the pane area and its grid have
    nothing of their own to draw (what they hold covers them): the first frame draws them as blank
    rows, without Textual's per-row style pipeline (which it ran for each of their rows: 225 of the
    353 rows of the frame at 240x60), and the list and the query box still go through it."""
    from textual._styles_cache import StylesCache

    styled: set[str] = set()
    frames: list[int] = []
    render_widget = StylesCache.render_widget

    def counted(self: StylesCache, widget: Widget, crop: Region) -> list[Strip]:
        if not frames:
            styled.add(widget.id or type(widget).__name__)
        return render_widget(self, widget, crop)

    display = App._display

    def first_frame(self: App[object], screen: object, renderable: object) -> None:
        if renderable is not None and not self._batch_count:
            frames.append(1)
        display(self, screen, renderable)  # type: ignore[arg-type]

    monkeypatch.setattr(StylesCache, "render_widget", counted)
    monkeypatch.setattr(App, "_display", first_frame)
    app = make_app(("ddgs", "exa"))
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: bool(frames))
        assert {"provider-face", "query"} <= styled
        assert not styled & {"SearchScreen", "main", "panes", "pane-grid"}


async def test_the_first_frame_mounts_nothing_hidden(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the first frame would not show is not in the screen when it is drawn (so it is neither
    styled nor restyled when the screen is shown): the panes (the area has no size yet), the tab bar,
    the merged view, the "no provider" hint and the private mark."""
    seen: list[list[str]] = []
    display = App._display
    hidden = "ProviderPane, PaneTabs, MergedView, #no-panes, #record-state"

    def first_frame(self: App[object], screen: object, renderable: object) -> None:
        if renderable is not None and not self._batch_count and not seen:
            seen.append([type(node).__name__ for node in self.screen.query(hidden)])
        display(self, screen, renderable)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_display", first_frame)
    app = make_app(("ddgs", "exa", "brave"))
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: bool(seen) and len(app.screen.query(ProviderPane)) == 3)
        assert seen == [[]]


def track_regions(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Region]]:
    """Widget id -> its region in each frame drawn (from now on) that showed it, for the panes and the
    tab bar."""
    regions: dict[str, list[Region]] = {}
    display = App._display

    def tracked(self: App[object], screen: object, renderable: object) -> None:
        if renderable is not None and not self._batch_count:
            for widget in self.screen.query("ProviderPane, PaneTabs"):
                if widget.region.area and widget.id:
                    regions.setdefault(widget.id, []).append(widget.region)
        display(self, screen, renderable)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_display", tracked)
    return regions


@pytest.mark.parametrize(
    ("count", "size", "mode"),
    [(2, (160, 40), "columns"), (6, (200, 50), "grid"), (24, TABS_SIZE, "tabs")],
)
async def test_no_pane_moves_once_drawn_at_start(
    make_app: Callable[..., WebSearchApp],
    monkeypatch: pytest.MonkeyPatch,
    count: int,
    size: tuple[int, int],
    mode: str,
) -> None:
    """From the first frame on, each pane (and the tab bar) is drawn where the layout puts it: none
    is drawn filling the area and then moved into a column or a grid cell, or pushed down when the
    tab bar arrives (the jump a user saw in the first half second)."""
    regions = track_regions(monkeypatch)
    ids = list(SPECS)[:count]
    app = make_app(tuple(ids))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: len(app.screen.query(ProviderPane)) == count)
        for _ in range(5):  # a few frames more, as the panes behind tabs and the real list arrive
            app.screen.refresh(layout=True)
            await pilot.pause(0.02)
        assert app.screen.query_one(PaneArea).mode == mode
        shown = ids if mode != "tabs" else [ids[0]]
        assert sorted(regions) == sorted([f"pane-{pid}" for pid in shown] + (["tab-bar"] if mode == "tabs" else []))
        moved = {name: places for name, places in regions.items() if len(set(places)) > 1}
        assert moved == {}


async def test_the_pane_area_says_when_no_provider_is_selected(make_app: Callable[..., WebSearchApp]) -> None:
    """With no provider selected the area shows its hint instead of panes; a provider selected, its
    pane replaces the hint; none selected again, the hint is back."""
    app = make_app(())
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        area = app.screen.query_one(PaneArea)
        hint = area.query_one("#no-panes", Static)
        assert hint.display and "No provider selected" in hint.visual.plain  # type: ignore[union-attr]
        assert not area.query_one("#pane-grid").display
        await area.set_providers([SPECS["ddgs"]])
        await pilot.pause()
        assert not hint.display and area.query_one("#pane-grid").display
        assert [pane.provider_id for pane in area.panes] == ["ddgs"]
        await area.set_providers([])
        await pilot.pause()
        assert hint.display and not area.query_one("#pane-grid").display


@pytest.mark.parametrize("when", ["before the tabs", "while the tab bar mounts", "at the first frame"])
async def test_the_app_closing_during_the_pane_area_s_first_resize_ends_cleanly(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """24 providers (tabs): the app asked to close before, while or as the first resize makes the tabs
    and mounts the panes closes without an error (they were mounted into a closing screen)."""
    app = make_app(tuple(list(SPECS)[:24]))
    sync, ensure, mount = PaneArea._sync_tabs_now, PaneTabs.ensure, PaneArea.on_mount

    async def closing_sync(area: PaneArea) -> None:
        if when == "before the tabs":
            area.app.exit()
            await asyncio.sleep(0)
        await sync(area)

    async def closing_ensure(bar: PaneTabs) -> object:
        if when == "while the tab bar mounts":
            bar.app.exit()
            await asyncio.sleep(0)
        return await ensure(bar)

    def closing_mount(area: PaneArea) -> None:
        mount(area)
        if when == "at the first frame":
            area.app.call_later(area.app.exit)

    monkeypatch.setattr(PaneArea, "_sync_tabs_now", closing_sync)
    monkeypatch.setattr(PaneTabs, "ensure", closing_ensure)
    monkeypatch.setattr(PaneArea, "on_mount", closing_mount)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: not app.is_running, "the app has closed")
    assert app._exception is None


async def test_providers_given_to_an_area_started_empty_before_its_first_resize_replace_the_hint(
    make_app: Callable[..., WebSearchApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No provider at the start (the hint), then one before the area has a size: the grid shows its pane."""
    app = make_app(())
    set_providers = PaneArea.set_providers

    async def then_one(area: PaneArea, specs: list[ProviderSpec]) -> None:
        await set_providers(area, specs)
        if not specs:
            await set_providers(area, [SPECS["ddgs"]])

    monkeypatch.setattr(PaneArea, "set_providers", then_one)
    async with app.run_test(size=(200, 40)) as pilot:
        area = app.screen.query_one(PaneArea)
        await until(pilot, lambda: [pane.provider_id for pane in area.panes] == ["ddgs"], "the pane is there")
        assert area.query_one("#pane-grid").display and not area.query_one("#no-panes").display
