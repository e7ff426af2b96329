"""Lays provider panes out side by side, in a two-row grid, or behind tabs when space runs out.

Panes are never re-parented when the layout changes (that would restart their Markdown streams):
the tab bar only decides which pane is visible. A pane's contents are mounted when it is first shown
(:meth:`ProviderPane.build`), so panes behind tabs cost nothing at start-up. At a start (before the
area has a size) no pane is mounted: the first frame shows the area empty, and its first resize
mounts the panes it shows in their layout, with the tab bar in tabs mode, in one screen update (so
no pane moves once drawn); the panes behind tabs follow in small batches after that frame
(:data:`MOUNT_BATCH`). A pane not mounted yet is mounted as soon as anything asks for it
(:attr:`PaneArea.panes`, :meth:`PaneArea.pane`, showing its tab) and before any search, retry or
reopened search reaches the panes (:meth:`PaneArea.mount_pending`). The tab bar, the merged view and
the "no provider" hint are mounted when first needed, not for the first frame. The merged view (every
source once, ranked) takes one more place beside the panes, or one more tab, while it is shown
(:meth:`PaneArea.toggle_merged`); it and the panes' "+N" badges are refreshed from the area's
:class:`~websearch_tui.core.merge.SourceMerger` at most every :data:`MERGED_REFRESH_TICKS` ticks while
the search streams.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.containers import Container, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.widget import AwaitMount
from textual.widgets import Static

from websearch_tui.core.merge import SourceMerger
from websearch_tui.core.models import Citation, SearchResponse
from websearch_tui.core.results import ProviderOutcome
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.tui.common.input_first import input_first
from websearch_tui.tui.search.pane_tabs import TAB_CHROME, PaneTabs, tab_label
from websearch_tui.tui.search.status_line import FLUSH_SECONDS

if TYPE_CHECKING:
    from textual.widgets import Tabs

    from websearch_tui.tui.search.merged_view import MergedView
    from websearch_tui.tui.search.provider_pane import ProviderPane

MIN_PANE_WIDTH = 40
"""Narrowest column a pane gets before the layout switches to a grid or tabs."""
COMFORTABLE_PANE_WIDTH = 50
"""Panes narrower than this are cramped: the screen moves the provider list aside when that widens them."""
MIN_PANE_HEIGHT = 12
"""Lowest row a pane gets in the two-row grid."""
MERGED_REFRESH_TICKS = 4
"""The merged view and the badges are refreshed at most every 4 ticks (of ``FLUSH_SECONDS``) while panes stream."""
MERGED = "merged"
"""The tab id suffix and ``activate`` name of the merged view."""
MOUNT_BATCH = 8
"""Panes behind tabs not mounted at a start are mounted this many at a time, one batch per frame."""
NO_PANES = "No provider selected. Press F2 to choose providers."
"""The pane area's hint while no provider is selected."""


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


def pane_width(count: int, width: int, height: int) -> int:
    """The columns one of ``count`` panes gets in a ``width`` x ``height`` area (see :func:`choose_layout`)."""
    return width // choose_layout(count, width, height)[1]


class PaneGrid(Container):
    """The container the panes are laid out in (columns, grid or stacked behind tabs)."""

    BLANK = True
    """Drawn as blank rows (Textual's shortcut for a widget with no border and no content of its own):
    its panes cover it, and each of its rows went through the style pipeline before each full frame."""


class PaneArea(Vertical):
    """Holds one :class:`ProviderPane` per selected provider and adapts the layout on resize."""

    BLANK = True
    """Drawn as blank rows (no border, no content of its own: see :attr:`PaneGrid.BLANK`)."""

    DEFAULT_CSS = """
    PaneArea { height: 1fr; }
    PaneArea > PaneTabs { display: none; }
    PaneArea.-tabs > PaneTabs { display: block; }
    PaneArea > #pane-grid { layout: grid; grid-size: 1 1; height: 1fr; }
    PaneArea.-tabs ProviderPane.-hidden-tab, PaneArea.-tabs MergedView.-hidden-tab { display: none; }
    PaneArea MergedView.-off { display: none; }
    PaneArea > #no-panes { height: 1fr; content-align: center middle; }
    """

    def __init__(self, *, clock: Callable[[], float] | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock or time.monotonic
        self.mode = "columns"
        self._active: str | None = None
        self._by_id: dict[str, ProviderPane] = {}
        self.merger = SourceMerger()
        self._merged_dirty = False
        self._ticks = 0
        self._next_layout = 0
        self._unmade: list[ProviderSpec] = []  # a start's providers, their panes not made yet (see _make_panes)
        self._pending: list[ProviderPane] = []  # made, in display order after the mounted ones, not mounted yet
        self._mounting: AwaitMount | None = None  # the last mount of pending panes
        self._tabs_stale = False  # a start put the tabs off until the area has a size
        self._bar: PaneTabs | None = None  # the tab bar, mounted by the first _sync_tabs
        self._merged: MergedView | None = None  # mounted when first shown
        self._tabs_lock = asyncio.Lock()  # one _sync_tabs at a time (the first resize's and the screen's)

    def on_mount(self) -> None:
        """Create the shared flush/spinner timer (paused until a run starts)."""
        self._ticker = self.set_interval(FLUSH_SECONDS, self._tick, pause=True)

    def wake(self) -> None:
        """Start ticking (call when a search starts); the timer pauses itself when all are idle."""
        self._ticker.resume()

    def _tick(self) -> None:
        """Show every streaming pane's new text in one screen update; a tick in which an answer
        outgrew its laid-out lines lays out that pane alone (the panes take turns), and the others
        show their text at the next tick.

        Textual draws one frame's changes as the rectangle around all of them, so a layout (which
        redraws the pane that grew and scrolls it) drawn with the other panes' new lines and status
        lines covered every pane, and was a long frame several times a second; alone, it covers
        one pane.

        While a key typed waits for its echo the tick is put off until the echo has been drawn, and
        then runs in this area's turn (:mod:`~websearch_tui.tui.common.input_first`).
        """
        gate = input_first(self.app)
        if gate is not None and gate.defer(self, self._tick):
            return
        active = [pane for pane in self._all_panes() if pane.is_active]
        self._ticks += 1
        self.refresh_tabs()
        if not active:
            self.refresh_merged()
            self._ticker.pause()
            return
        waiting = self._waiting_for_layout(active)
        with self.app.batch_update():
            if waiting is not None:
                waiting.tick(relayout=True)
                return
            for pane in active:
                pane.tick(relayout=False)
            if self._ticks % MERGED_REFRESH_TICKS == 0:
                self.refresh_merged()

    def _waiting_for_layout(self, active: list[ProviderPane]) -> ProviderPane | None:
        """The pane whose answer gets its layout this tick, taking turns (see :meth:`_tick`)."""
        count = len(active)
        for offset in range(count):
            pane = active[(self._next_layout + offset) % count]
            if pane.needs_layout:
                self._next_layout = (self._next_layout + offset + 1) % count
                return pane
        return None

    # --- the merged view ------------------------------------------------------------------

    @property
    def merged(self) -> MergedView:
        """The merged view (mounted when first shown, then present even while hidden).

        Raises:
            textual.css.query.NoMatches: it has never been shown.
        """
        if self._merged is None:
            raise NoMatches("the merged view has not been shown yet")
        return self._merged

    @property
    def merged_shown(self) -> bool:
        """True while the merged view takes a place beside the panes (or a tab)."""
        return self._merged is not None and not self._merged.has_class("-off")

    def reset_merged(self) -> None:
        """Forget the previous search's sources (a new search starts); the view and badges follow at
        the next :meth:`refresh_merged`."""
        self.merger = SourceMerger()
        self._merged_dirty = True

    def note_sources(self, response: SearchResponse) -> None:
        """``response`` (one provider's, so far) has new sources or citations: fold it into the merger;
        the view and badges follow at the next refresh."""
        self.merger.update(response)
        self._merged_dirty = True

    def refresh_merged(self) -> None:
        """Show the merger's rows in the merged view (when shown) and the "+N" badges in every pane,
        if anything changed since the last refresh."""
        if not self._merged_dirty:
            return
        self._merged_dirty = False
        if self.merged_shown:
            self.merged.show_rows(self.merger.rows)
        agreements = self.agreements()
        for pane in self.panes:
            pane.set_agreement(agreements.get(pane.provider_id, {}))

    async def restart(self, provider_ids: Sequence[str], *, limit: float) -> None:
        """Clear the panes of ``provider_ids`` for a run about to start (``limit``: its timeout, in
        seconds, for the elapsed-time display) and wake the refresh timer. Every pane is mounted
        first, so none of the run's updates finds a pane outside the screen."""
        await self.mount_pending()
        for pid in provider_ids:
            pane = self.pane(pid)
            if pane is not None:
                await pane.reset(limit=limit)
                pane.mark("")
        self.wake()

    async def show_ended(self, outcomes: Sequence[ProviderOutcome], marker: str) -> None:
        """Fill every pane with its provider's outcome in ``outcomes`` (in pane order) as the search
        ended, with the merged view and the badges, each pane marked with ``marker`` (where it comes
        from and when). The panes are filled together, so the screen is laid out once."""
        await self.mount_pending()
        self.reset_merged()
        for outcome in outcomes:
            self.note_sources(outcome.response)
        badges = self.agreements()
        await asyncio.gather(
            *(pane.show_outcome(o, badges.get(o.provider, {})) for pane, o in zip(self.panes, outcomes, strict=True))
        )
        for pane in self.panes:
            pane.mark(marker)
        self.refresh_merged()
        self.refresh_tabs()

    def agreements(self) -> dict[str, dict[str, int]]:
        """Provider id -> the "+N" badges of its pane as the merger has them now: canonical URL -> how
        many other providers found that page (only pages another provider found too)."""
        badges: dict[str, dict[str, int]] = {}
        for row in self.merger.rows:
            if len(row.ranks) > 1:
                for pid in row.ranks:
                    badges.setdefault(pid, {})[row.url] = len(row.ranks) - 1
        return badges

    async def toggle_merged(self) -> bool:
        """Show or hide the merged view; returns True when it is shown now."""
        await self.mount_pending()
        if self._merged is None:
            from websearch_tui.tui.search.merged_view import MergedView

            self._merged = MergedView(self._label, citation=self.citation, id="merged-view")
            await self.query_one("#pane-grid").mount(self._merged.set_classes("merged-view -off"))
        merged = self._merged
        merged.toggle_class("-off")
        shown = self.merged_shown
        if shown:
            self._merged_dirty = True
            self.refresh_merged()
            merged.show_rows(self.merger.rows)
        elif self._active == MERGED:
            self._active = self.panes[0].provider_id if self.panes else None
        await self._sync_tabs()
        self.relayout()
        return shown

    def compose(self) -> ComposeResult:
        """The pane grid (the tab bar, the merged view and the empty-state hint come when needed)."""
        yield PaneGrid(id="pane-grid")

    async def _show_no_panes(self, shown: bool) -> None:
        """Show the "no provider" hint (mounted the first time) instead of the grid, or the grid."""
        if not self.is_attached:
            return  # the app closes
        hint = self.query("#no-panes")
        if shown and not hint:
            await self.mount(Static(NO_PANES, id="no-panes", markup=False))
        elif hint:
            hint.first().display = shown
        self.query_one("#pane-grid").display = not shown

    def _label(self, provider_id: str) -> str:
        pane = self._by_id.get(provider_id)
        return pane.spec.label if pane is not None else provider_id

    def citation(self, provider_id: str, number: int) -> Citation | None:
        """Citation ``number`` (from 1) of ``provider_id``'s pane as it shows it now, if there is one."""
        pane = self._by_id.get(provider_id)
        citations = pane.response.citations if pane is not None else []
        return citations[number - 1] if 0 < number <= len(citations) else None

    @property
    def panes(self) -> list[ProviderPane]:
        """The panes, in display order (any not mounted yet are mounted now: see :meth:`mount_pending`)."""
        self._mount_now()
        return self._all_panes()

    def _all_panes(self) -> list[ProviderPane]:
        """The panes, in display order, those not mounted yet included (and left so; made now if a start
        left them unmade: see :meth:`_make_panes`)."""
        self._make_panes()
        grid = self.query_one("#pane-grid")
        mounted = [child for child in grid.children if child is not self._merged]  # the grid holds panes and it
        return cast("list[ProviderPane]", mounted) + self._pending

    def _make_panes(self) -> None:
        """Make the panes a start left as providers (:meth:`_start`), not mounted: at the area's first
        resize, or as soon as anything asks for a pane (importing the pane's module, which the first
        frame does without)."""
        if not self._unmade:
            return
        from websearch_tui.tui.search.provider_pane import ProviderPane

        self._pending = [ProviderPane(spec, clock=self.clock) for spec in self._unmade]
        self._unmade = []
        self._by_id = {pane.provider_id: pane for pane in self._pending}

    def _mount_now(self, count: int | None = None) -> None:
        """Mount the first ``count`` panes not mounted yet (all by default), at once: they are in the
        screen when this returns, and their mount completes later (:meth:`mount_pending` awaits it).
        Each is hidden first if its tab is not the active one, so it is styled once."""
        self._make_panes()
        pending = self._pending[:count]
        del self._pending[:count]
        if pending:
            for pane in pending:
                pane.set_class(self.mode == "tabs" and pane.provider_id != self._active, "-hidden-tab")
            self._mounting = self.query_one("#pane-grid").mount_all(pending, before=self._merged)

    async def mount_pending(self) -> None:
        """Mount every pane not mounted yet (see the module's docstring), and return once each is."""
        self._mount_now()
        if self._mounting is not None:
            await self._mounting

    async def _mount_batch(self) -> None:
        """Mount the next :data:`MOUNT_BATCH` panes not mounted yet (behind tabs: nothing changes on
        screen), and the next batch after the next frame (none once the app closes)."""
        if not self._pending or not self.is_attached:
            return
        self._mount_now(MOUNT_BATCH)
        if self._mounting is not None:
            await self._mounting
        if self._pending:
            self.call_after_refresh(self._mount_batch)

    @property
    def searching(self) -> bool:
        """True while a pane's run is queued or in flight."""
        return any(pane.is_active for pane in self._by_id.values())

    def pane(self, provider_id: str) -> ProviderPane | None:
        """The pane of ``provider_id``, if shown (a dictionary lookup: called for every streamed token;
        panes not mounted yet are mounted now)."""
        if self._pending or self._unmade:
            self._mount_now()
        return self._by_id.get(provider_id)

    async def set_providers(self, specs: Sequence[ProviderSpec]) -> None:
        """Show exactly one pane per spec, in order (before the merged view), keeping panes that already
        exist. At a start (the area has no size yet) the panes are made and none is mounted: the first
        resize mounts them, and makes the tabs (see the module's docstring)."""
        grid = self.query_one("#pane-grid", Container)
        wanted = [spec.id for spec in specs]
        if not self.size.width and not self._all_panes():
            await self._start(specs)
            return
        from websearch_tui.tui.search.provider_pane import ProviderPane

        await self.mount_pending()
        existing = {}
        for pane in self.panes:
            if pane.provider_id in wanted:
                existing[pane.provider_id] = pane
            else:
                await pane.remove()
        if not existing:  # a start (or every pane replaced): one mount for all of them
            await grid.mount_all([ProviderPane(spec, clock=self.clock) for spec in specs], before=self._merged)
        else:
            for index, spec in enumerate(specs):
                kept = existing.get(spec.id)
                current = self.panes
                place = current[index] if index < len(current) else self._merged
                if kept is None:
                    await grid.mount(ProviderPane(spec, clock=self.clock), before=place)
                elif current.index(kept) != index:  # it comes later, so a pane is at index
                    grid.move_child(kept, before=current[index])
        self._by_id = {pane.provider_id: pane for pane in self.panes}
        if self._active not in wanted and self._active != MERGED:
            self._active = wanted[0] if wanted else None
        await self._sync_tabs()
        await self._show_no_panes(not wanted)
        self.relayout()

    async def _start(self, specs: Sequence[ProviderSpec]) -> None:
        """The first panes, before the area has a size: neither made nor mounted (the first frame shows
        the area empty); :meth:`on_resize` makes them and mounts them where the layout puts them."""
        self._unmade = list(specs)
        self._active = specs[0].id if specs else None
        self._tabs_stale = bool(specs)
        if not specs or self.query("#no-panes"):  # (the hint, shown by an empty start, hidden again)
            await self._show_no_panes(not specs)

    async def _sync_tabs(self) -> None:
        """One tab per pane, plus "Merged" while the merged view is shown; the tabs are made again only
        when that list changes (not at every search over the same panes). One call at a time: the
        first resize (which makes the tabs after a start) may meet a change of the selection."""
        async with self._tabs_lock:
            await self._sync_tabs_now()

    async def _sync_tabs_now(self) -> None:
        from textual.widgets import Tab  # with the tabs (not for the first frame)

        from websearch_tui.tui.search.status_tab import StatusTab

        self._tabs_stale = False
        if not self.is_attached:
            return  # the app closes before its first resize ended
        if self._bar is None:
            self._bar = PaneTabs(id="tab-bar")
            await self.mount(self._bar, before=self.query_one("#pane-grid"))
        tabs = await self._bar.ensure()
        panes = self._all_panes()
        wanted = [f"tab-{pane.provider_id}" for pane in panes] + ([f"tab-{MERGED}"] if self.merged_shown else [])
        if [tab.id for tab in tabs.query(Tab)] != wanted:
            try:
                await tabs.clear()
            except NoMatches:  # the tabs' own parts are gone: the app closed before its first resize ended
                return
            if not tabs.is_attached:
                return  # the same, once they were cleared (add_tab would refuse to mount)
            labels = self._tab_labels()
            new: list[Tab] = [
                StatusTab(labels[f"tab-{pane.provider_id}"], id=f"tab-{pane.provider_id}") for pane in panes
            ]
            if self.merged_shown:
                new.append(Tab(Content("Merged"), id=f"tab-{MERGED}"))
            # add_tab mounts when called (Textual 8.2), so the tabs keep this order; they are awaited at once
            added = await asyncio.gather(*(tabs.add_tab(tab) for tab in new), return_exceptions=True)
            if new and not tabs.query(Tab):
                return  # nothing mounted: the tab bar is being removed (the app closes before its first resize ends)
            for outcome in added:
                if isinstance(outcome, BaseException):
                    raise outcome
            self._bar.call_after_refresh(self._bar.show_overflow)  # the counter of cut-off tabs, once they are laid out
        if self._active:
            tabs.active = f"tab-{self._active}"

    def _tab_labels(self) -> dict[str, Content]:
        """Tab id -> the label of each pane's tab (see :func:`~websearch_tui.tui.search.pane_tabs.tab_label`):
        with the panes' source counts when every label fits in the area's width with them, else without."""
        panes = self._all_panes()
        frame = int(self.clock() / FLUSH_SECONDS / 2)  # the panes' spinner frame
        labels = {}
        for count in (True, False):
            labels = {
                f"tab-{p.provider_id}": tab_label(p.spec.label, p.status, len(p.response.sources), frame, count=count)
                for p in panes
            }
            width = sum(label.cell_length + TAB_CHROME for label in labels.values())
            if width + (len("Merged") + TAB_CHROME if self.merged_shown else 0) <= self.size.width:
                break
        return labels

    def refresh_tabs(self) -> None:
        """Show each pane's status (and source count) in its tab, in tabs mode (called every tick while
        panes run, and when a search ends or is shown from the history)."""
        if self.mode == "tabs" and self._bar is not None:
            self._bar.show_labels(self._tab_labels())

    async def on_resize(self) -> None:
        """Re-choose the layout for the new size. The first resize after a start also mounts the panes
        it shows and makes the tabs, drawn in one screen update (nothing drawn before moves), and the
        panes behind tabs in batches after this frame. Nothing once the app closes."""
        if not self.is_attached:
            return
        with self.app.batch_update():
            self.relayout()
            if self._tabs_stale:
                await self._sync_tabs()
        if self._pending:
            self.call_after_refresh(self._mount_batch)

    def relayout(self) -> None:
        """Apply :func:`choose_layout` to the current size and pane count (the merged view counts
        as a pane while shown), and build the panes it shows (:meth:`ProviderPane.build`: a pane
        behind a tab is built when its tab is first shown). Before the area has a size there is
        nothing to choose: its first :meth:`on_resize` lays it out (so a start does not restyle
        every pane for tabs, then again for columns)."""
        if not self.size.width:
            return
        panes = self._all_panes()
        count = len(panes) + (1 if self.merged_shown else 0)
        mode, columns, rows = choose_layout(count, self.size.width, self.size.height)
        self.mode = mode
        grid = self.query_one("#pane-grid")
        grid.styles.grid_size_columns = columns
        grid.styles.grid_size_rows = rows
        self.set_class(mode == "tabs", "-tabs")
        self.refresh_tabs()
        shown = [pane for pane in self._pending if mode != "tabs" or pane.provider_id == self._active]
        if shown:  # panes not mounted yet are to be shown: those up to the last of them are mounted
            self._mount_now(self._pending.index(shown[-1]) + 1)
        for pane in panes:
            hidden = mode == "tabs" and pane.provider_id != self._active
            pane.set_class(hidden, "-hidden-tab")
            if not hidden:
                pane.build()
        if self._merged is not None:
            self._merged.set_class(mode == "tabs" and self._active != MERGED, "-hidden-tab")

    @property
    def active(self) -> str | None:
        """The provider id (or :data:`MERGED`) shown in tabs mode (remembered in other modes)."""
        return self._active

    def activate(self, provider_id: str) -> None:
        """Make ``provider_id`` (or :data:`MERGED`) the visible pane in tabs mode (remembered in other modes)."""
        self._active = provider_id
        if self._bar is not None:  # else the tabs, when made, show it active
            self._bar.set_active(f"tab-{provider_id}")
        self.relayout()

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        """A tab was chosen: its pane (or the merged view) is the one shown."""
        event.stop()
        if event.tab is not None and event.tab.id and event.tab.id.startswith("tab-"):
            self._active = event.tab.id[4:]
            self.relayout()
