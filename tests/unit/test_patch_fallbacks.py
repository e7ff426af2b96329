"""Each patch of a library's internals, with what it relies on taken away (as a new release could):
the library's own behaviour stays, nothing breaks, and one warning says so."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import httpcore
import pytest
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from websearch_tui.core import internals
from websearch_tui.providers.transport import http, pool_repair
from websearch_tui.tui.common.line_list import wrapped_height
from websearch_tui.tui.patches import (
    border_subtitle,
    compositor,
    kept_lines,
    loop_signals,
    ordered_input,
    styles_cache,
    virtual_size,
    watchers,
    wrap_count,
)
from websearch_tui.tui.patches.border_subtitle import set_border_subtitle
from websearch_tui.tui.patches.compositor import SpanCompositor, use_span_compositor
from websearch_tui.tui.patches.ordered_input import OrderedInput


@pytest.fixture(autouse=True)
def warnings(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """The warnings logged by the patches in this test (none reported yet in it). A CLI run earlier in
    this process may have sent the package's log to a file only (``propagate`` off): put it back."""
    monkeypatch.setattr(internals, "_reported", set())
    monkeypatch.setattr(logging.getLogger("websearch_tui"), "propagate", True)
    caplog.set_level(logging.WARNING, logger="websearch_tui")
    return caplog


def said(caplog: pytest.LogCaptureFixture, patch: str) -> int:
    """How many warnings say that ``patch`` is off."""
    return sum(record.getMessage().startswith(f"{patch} is off") for record in caplog.records)


def test_the_pool_repair_leaves_httpcores_pool_when_its_internals_are_gone(monkeypatch, warnings) -> None:
    assert pool_repair.repair_pool(fresh := httpcore.AsyncConnectionPool())
    assert type(fresh) is pool_repair.ReclaimingPool
    monkeypatch.delattr(httpcore.AsyncConnectionPool, "_close_connections")
    pools = [httpcore.AsyncConnectionPool() for _ in range(2)]
    assert [pool_repair.repair_pool(pool) for pool in pools] == [False, False]
    assert {type(pool) for pool in pools} == {httpcore.AsyncConnectionPool}
    assert said(warnings, pool_repair.PATCH) == 1
    assert "_close_connections" in warnings.text
    client = http.build_client()  # the shared client is still built, on httpcore's own pool
    assert [type(pool) for pool in http.client_pools(client)] == [httpcore.AsyncConnectionPool]


def test_the_pool_repair_leaves_the_pool_when_httpcores_private_module_is_gone(monkeypatch, warnings) -> None:
    monkeypatch.setattr(pool_repair, "_STREAM_MISSING", "httpcore._async.connection_pool.PoolByteStream")
    pool = httpcore.AsyncConnectionPool()
    assert not pool_repair.repair_pool(pool)
    assert type(pool) is httpcore.AsyncConnectionPool
    assert said(warnings, pool_repair.PATCH) == 1


def test_a_screen_keeps_textuals_compositor_when_its_internals_are_gone(monkeypatch, warnings) -> None:
    assert use_span_compositor(screen := Screen())
    assert type(screen._compositor) is SpanCompositor
    monkeypatch.delattr(Compositor, "cuts")
    screens = [Screen(), Screen()]
    assert [use_span_compositor(screen) for screen in screens] == [False, False]
    assert {type(screen._compositor) for screen in screens} == {Compositor}
    assert said(warnings, compositor.PATCH) == 1 and "cuts" in warnings.text


class Boxed(Static):
    """A bordered widget with an attribute the border-subtitle patch can be pointed at by mistake."""

    DEFAULT_CSS = "Boxed { border: round white; height: 5; }"
    _probe: Content | None = None


class Boxes(Screen[None]):
    """One bordered widget, on a screen that asks for the span compositor (as the search screen does)."""

    def __init__(self) -> None:
        super().__init__()
        self.installed = use_span_compositor(self)

    def compose(self) -> ComposeResult:
        yield Boxed("inside")


class Host(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Boxes())


async def test_without_textuals_compositor_module_the_app_still_draws(monkeypatch, warnings) -> None:
    monkeypatch.setattr(compositor, "_MODULE_MISSING", "textual._compositor")
    app = Host()
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, Boxes) and app.screen.installed is False
        assert type(app.screen._compositor) is Compositor
        assert "inside" in app.export_screenshot()
    assert said(warnings, compositor.PATCH) == 1


@pytest.mark.parametrize("storage", ["_gone", "_probe"])
async def test_a_border_subtitle_is_shown_when_textual_stores_it_elsewhere(monkeypatch, warnings, storage) -> None:
    """``_gone``: the widget has no such attribute; ``_probe``: it has one, but the getter does not
    read it. Either way the subtitle is set through Textual's setter (the whole widget repainted)."""
    app = Host()
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        box = app.screen.query_one(Boxed)
        set_border_subtitle(box, "first")
        await pilot.pause()
        assert "first" in app.export_screenshot()
        monkeypatch.setattr(border_subtitle, "STORAGE", storage)
        for text in ("from history · 2024-03-01 10:00", "from history · 2024-03-02 11:00"):
            set_border_subtitle(box, text)
            await pilot.pause()
            shown = app.export_screenshot().replace("&#160;", " ")
            assert box.border_subtitle == text and text in shown
        assert "2024-03-01" not in shown and "first" not in shown
    assert said(warnings, border_subtitle.PATCH) == 1


class Field(App[None]):
    def compose(self) -> ComposeResult:
        yield OrderedInput()


async def test_an_input_leaves_its_keys_to_textual_when_its_bindings_are_not_found(monkeypatch, warnings) -> None:
    monkeypatch.setattr(ordered_input, "BINDINGS", "_gone")
    app = Field()
    async with app.run_test() as pilot:
        field = app.query_one(OrderedInput)
        field.focus()
        for key in ("a", "b", "c", "backspace", "d", "home", "x"):
            await pilot.press(key)
        assert field.value == "xabd"  # each key waited for: Textual's own way gets the same result
    assert said(warnings, ordered_input.PATCH) == 1


def test_a_widget_keeps_textuals_virtual_size_when_it_is_no_reactive(monkeypatch, warnings) -> None:
    assert virtual_size.layout_free_virtual_size() is not None
    monkeypatch.setattr(Widget, "virtual_size", property(lambda self: Size(0, 0)))
    assert virtual_size.layout_free_virtual_size() is None
    assert virtual_size.layout_free_virtual_size() is None
    assert said(warnings, virtual_size.PATCH) == 1


@pytest.mark.parametrize(
    ("name", "replacement"),
    [("_size_updated", lambda self, size, virtual_size: True), ("_set_dirty", lambda self, region: None)],
    ids=["size_updated", "set_dirty"],
)
def test_kept_lines_is_off_with_one_warning_when_textuals_size_update_changed(
    monkeypatch, warnings, name, replacement
) -> None:
    assert kept_lines.kept_lines_problem() == ""
    monkeypatch.setattr(Widget, name, replacement)
    assert name in kept_lines.kept_lines_problem()
    assert kept_lines._supported() is False
    assert kept_lines._supported() is False
    assert said(warnings, kept_lines.PATCH) == 1


TEXTS = ["", "one line", "a longer line of words that wraps at least once\nand a second line", "x" * 50 + " tail"]


@pytest.mark.parametrize("divide", [None, lambda text, width: [0]], ids=["gone", "other signature"])
def test_wrapped_heights_are_textuals_own_when_rich_divide_line_cannot_be_used(monkeypatch, warnings, divide) -> None:
    expected = {(text, width): Content(text).get_height({}, width) for text in TEXTS for width in (1, 7, 20, 80)}
    assert {key: wrapped_height(Content(key[0]), key[1]) for key in expected} == expected
    assert said(warnings, wrap_count.PATCH) == 0
    monkeypatch.setattr(wrap_count, "divide_line", divide)
    assert {key: wrapped_height(Content(key[0]), key[1]) for key in expected} == expected
    assert said(warnings, wrap_count.PATCH) == 1


@pytest.mark.skipif(sys.platform == "win32", reason="loop signal handlers are Unix-only")
def test_a_loop_without_the_signal_table_counts_as_handling_no_sigint(monkeypatch, warnings) -> None:
    async def handled() -> list[bool]:
        loop = asyncio.get_running_loop()
        answers = [loop_signals.loop_handles_sigint()]
        loop.add_signal_handler(signal.SIGINT, lambda: None)
        try:
            answers.append(loop_signals.loop_handles_sigint())
            monkeypatch.setattr(loop_signals, "TABLE", "_gone")
            answers += [loop_signals.loop_handles_sigint(), loop_signals.loop_handles_sigint()]
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        return answers

    assert asyncio.run(handled()) == [False, True, False, False]
    assert said(warnings, loop_signals.PATCH) == 1
    assert not loop_signals.loop_handles_sigint()  # no loop running: nothing to ask


async def test_watchers_are_left_to_textual_when_it_keeps_them_elsewhere(monkeypatch, warnings) -> None:
    """Textual's watchers no longer where the patch looks: they are left as they are (Textual drops a
    removed node's watcher when the reactive next changes), and one warning says so."""
    app = Host()
    async with app.run_test(size=(40, 8)) as pilot:
        box = app.screen.query_one(Boxed)
        setattr(box, "__probe", ["not a dict"])
        monkeypatch.setattr(watchers, "STORAGE", "__probe")
        watchers.drop_removed_watchers(box)
        watchers.drop_removed_watchers(box)
        await pilot.pause()
        assert getattr(box, "__probe") == ["not a dict"]
    assert said(warnings, watchers.PATCH) == 1


def test_style_caches_are_left_to_textual_when_its_lru_cache_is_gone(monkeypatch, warnings) -> None:
    monkeypatch.setattr(styles_cache, "MODULE", "textual._no_such_module")
    styles_cache.release_style_caches()
    styles_cache.release_style_caches()
    assert said(warnings, styles_cache.PATCH) == 1
