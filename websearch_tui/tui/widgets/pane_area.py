"""Lays provider panes out side by side, in a two-row grid, or behind tabs when space runs out.

Panes are never re-parented when the layout changes (that would restart their Markdown streams):
the tab bar only decides which pane is visible.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Container, Vertical
from textual.content import Content
from textual.widgets import Static, Tab, Tabs

from websearch_tui.core.specs import ProviderSpec
from websearch_tui.tui.widgets.provider_pane import FLUSH_SECONDS, ProviderPane

MIN_PANE_WIDTH = 40
"""Narrowest column a pane gets before the layout switches to a grid or tabs."""
MIN_PANE_HEIGHT = 12
"""Lowest row a pane gets in the two-row grid."""


def choose_layout(count: int, width: int, height: int) -> tuple[str, int, int]:
    """``(mode, columns, rows)`` for ``count`` panes in a ``width`` x ``height`` area.

    ``mode`` is ``"columns"`` (one row), ``"grid"`` (two rows) or ``"tabs"`` (one visible pane).
    """
    if count <= 1 or count * MIN_PANE_WIDTH <= width:
        return "columns", max(count, 1), 1
    columns = math.ceil(count / 2)
    if columns * MIN_PANE_WIDTH <= width and height >= 2 * MIN_PANE_HEIGHT:
        return "grid", columns, 2
    return "tabs", 1, 1


class PaneArea(Vertical):
    """Holds one :class:`ProviderPane` per selected provider and adapts the layout on resize."""

    DEFAULT_CSS = """
    PaneArea { height: 1fr; }
    PaneArea > Tabs { display: none; }
    PaneArea.-tabs > Tabs { display: block; }
    PaneArea > #pane-grid { layout: grid; grid-size: 1 1; height: 1fr; }
    PaneArea.-tabs ProviderPane.-hidden-tab { display: none; }
    PaneArea > #no-panes { height: 1fr; content-align: center middle; }
    """

    def __init__(self, *, clock: Callable[[], float] | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock or time.monotonic
        self.mode = "columns"
        self._active: str | None = None
        self._by_id: dict[str, ProviderPane] = {}

    def on_mount(self) -> None:
        """Create the shared flush/spinner timer (paused until a run starts)."""
        self._ticker = self.set_interval(FLUSH_SECONDS, self._tick, pause=True)

    def wake(self) -> None:
        """Start ticking (call when a search starts); the timer pauses itself when all are idle."""
        self._ticker.resume()

    async def _tick(self) -> None:
        active = [pane for pane in self.panes if pane.is_active]
        if not active:
            self._ticker.pause()
            return
        with self.app.batch_update():
            for pane in active:
                await pane.tick()

    def compose(self) -> ComposeResult:
        """Tab bar (tabs mode only), the pane grid and an empty-state hint."""
        yield Tabs(id="pane-tabs")
        yield Container(id="pane-grid")
        yield Static("No provider selected. Press F2 to choose providers.", id="no-panes", markup=False)

    @property
    def panes(self) -> list[ProviderPane]:
        """The panes, in display order."""
        return [child for child in self.query_one("#pane-grid").children if isinstance(child, ProviderPane)]

    def pane(self, provider_id: str) -> ProviderPane | None:
        """The pane of ``provider_id``, if shown (a dictionary lookup: called for every streamed token)."""
        return self._by_id.get(provider_id)

    async def set_providers(self, specs: Sequence[ProviderSpec]) -> None:
        """Show exactly one pane per spec, in order, keeping panes that already exist."""
        grid = self.query_one("#pane-grid", Container)
        wanted = [spec.id for spec in specs]
        existing = {pane.provider_id: pane for pane in self.panes}
        for pid, pane in existing.items():
            if pid not in wanted:
                await pane.remove()
        for index, spec in enumerate(specs):
            kept = existing.get(spec.id)
            current = self.panes
            if kept is None:
                new = ProviderPane(spec, clock=self.clock)
                await grid.mount(new, before=index if index < len(current) else None)
            elif current.index(kept) != index:
                grid.move_child(kept, before=index)
        self._by_id = {pane.provider_id: pane for pane in self.panes}
        tabs = self.query_one(Tabs)
        await tabs.clear()
        for spec in specs:
            await tabs.add_tab(Tab(Content(spec.label), id=f"tab-{spec.id}"))
        if self._active not in wanted:
            self._active = wanted[0] if wanted else None
        if self._active:
            tabs.active = f"tab-{self._active}"
        self.query_one("#no-panes").display = not wanted
        grid.display = bool(wanted)
        self.relayout()

    def on_resize(self) -> None:
        """Re-choose the layout for the new size."""
        self.relayout()

    def relayout(self) -> None:
        """Apply :func:`choose_layout` to the current size and pane count."""
        panes = self.panes
        mode, columns, rows = choose_layout(len(panes), self.size.width, self.size.height)
        self.mode = mode
        grid = self.query_one("#pane-grid")
        grid.styles.grid_size_columns = columns
        grid.styles.grid_size_rows = rows
        self.set_class(mode == "tabs", "-tabs")
        for pane in panes:
            pane.set_class(mode == "tabs" and pane.provider_id != self._active, "-hidden-tab")

    def activate(self, provider_id: str) -> None:
        """Make ``provider_id`` the visible pane in tabs mode (remembered in other modes)."""
        self._active = provider_id
        tabs = self.query_one(Tabs)
        if tabs.active != f"tab-{provider_id}":
            tabs.active = f"tab-{provider_id}"
        self.relayout()

    @on(Tabs.TabActivated)
    def _on_tab(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab is not None and event.tab.id and event.tab.id.startswith("tab-"):
            self._active = event.tab.id[4:]
            self.relayout()
