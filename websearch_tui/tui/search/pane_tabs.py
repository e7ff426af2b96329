"""The tab bar of the pane area in tabs mode: each tab shows its pane's status mark (and its number of
sources where every label fits), and a counter says how many tabs the bar cuts off on either side.

Provider labels are shown as plain :class:`~textual.content.Content` (never parsed as markup).
Textual's ``Tabs`` and the tabs themselves (:mod:`~websearch_tui.tui.search.status_tab`) are imported
when the tabs are first made, not for the first frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from textual.containers import Horizontal
from textual.content import Content
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Static

from websearch_tui.tui.search.status_line import MARK_STYLES, status_mark

if TYPE_CHECKING:
    from textual.widgets import Tab, Tabs

TAB_CHROME = 2
"""Cells a tab takes besides its label (Textual's ``Tab`` has a cell of padding on each side)."""


def tab_label(label: str, status: str, sources: int = 0, frame: int = 0, *, count: bool = True) -> Content:
    """A pane's tab label: its status mark (the spinner's frame ``frame`` while it runs, ✓ done,
    ✗ failed, ∅ empty, ⊘ cancelled), the provider's ``label`` as plain text and, with ``count``, its
    number of sources: ``✓ Brave Search · 10``."""
    mark = status_mark(status, frame)
    parts: list[Content] = []
    if mark:
        style = MARK_STYLES.get(status, "")
        # the space is part of the mark's run: some SVG renderers drop the spaces a run starts with
        parts.append(Content.styled(f"{mark} ", style) if style else Content(f"{mark} "))
    parts.append(Content(label))
    if count and sources:
        parts.append(Content(f" · {sources}"))
    return Content.assemble(*parts)


def overflow_text(left: int, right: int) -> str:
    """How many tabs are cut off on each side: ``◀ +3``, ``+5 ▶``, ``◀ +3 · +5 ▶``, or "" for none."""
    parts = []
    if left:
        parts.append(f"◀ +{left}")
    if right:
        parts.append(f"+{right} ▶")
    return " · ".join(parts)


class PaneTabs(Horizontal):
    """Textual's :class:`~textual.widgets.Tabs` (one tab per pane, the active one scrolled into view)
    and, at its right, a counter of the tabs it cuts off (``◀ +2 · +5 ▶``), shown only while some are.

    The bar is empty until its tabs are first made (:meth:`ensure`): at a start it is hidden until
    the pane area has a size, so the first frame mounts none of its widgets."""

    DEFAULT_CSS = """
    PaneTabs { height: 2; }
    PaneTabs > Tabs { width: 1fr; }
    PaneTabs > #tab-overflow { width: auto; height: 1; padding: 0 1; text-style: bold; color: $text-accent; }
    PaneTabs > #tab-overflow.-none { display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._overflow = ""

    async def ensure(self) -> Tabs:
        """The tabs, with the overflow counter (hidden while every tab is whole): mounted the first
        time (then the cut-off tabs are counted again whenever the tab row scrolls)."""
        from textual.widgets import Tabs

        found = self.query(Tabs)
        if found:
            return found.first()
        tabs = Tabs(id="pane-tabs")
        await self.mount_all([tabs, Static("", id="tab-overflow", classes="-none", markup=False)])
        scroller = self._scroller()
        if scroller is not None:
            self.watch(scroller, "scroll_x", self._on_scrolled, init=False)
        return tabs

    def _scroller(self) -> Widget | None:
        """The container Textual's ``Tabs`` scrolls its row of tabs in (None before the tabs are made)."""
        try:
            return self.query_one("#pane-tabs").query_one("#tabs-scroll")
        except NoMatches:
            return None

    def _tabs(self) -> list[Tab]:
        """The tabs in the bar, in order (none before they are first made). Queried by CSS type name:
        the ``Tab`` class is not imported until then; every tab of the bar is a ``Tab``."""
        return cast("list[Tab]", list(self.query("Tab")))

    def set_active(self, tab_id: str) -> None:
        """Make the tab ``tab_id`` the active one (nothing before that tab is made: the tabs take the
        active one then)."""
        for tabs in cast("list[Tabs]", list(self.query("#pane-tabs"))):
            if tabs.active != tab_id and tabs.query(f"#{tab_id}"):
                tabs.active = tab_id

    def _on_scrolled(self) -> None:
        self.show_overflow()

    def on_resize(self) -> None:
        """A new width cuts off other tabs: count them once the row is laid out."""
        self.call_after_refresh(self.show_overflow)

    @property
    def overflow(self) -> str:
        """The counter's text ("" while no tab is cut off)."""
        return self._overflow

    def show_labels(self, labels: Mapping[str, Content]) -> None:
        """Give each tab (by tab id) its label from ``labels``, drawing only those that changed; the
        counter follows once the row is laid out again."""
        changed = False
        for tab in self._tabs():
            label = labels.get(tab.id or "")
            if label is not None and label != tab.label:
                tab.label = label
                changed = True
        if changed:
            self.call_after_refresh(self.show_overflow)

    def cut_off(self) -> tuple[int, int]:
        """``(left, right)``: how many tabs the bar cuts off (wholly or in part) on each side."""
        scroller = self._scroller()
        if scroller is None or not scroller.size.width:
            return 0, 0
        start = round(scroller.scroll_x)
        end = start + scroller.size.width
        left = right = 0
        for tab in self._tabs():
            if not tab.display or not tab.size.width:
                continue
            region = tab.virtual_region  # in the scrolled row, from its start
            if region.x < start:
                left += 1
            elif region.right > end:
                right += 1
        return left, right

    def _unplaced(self) -> bool:
        """True while the bar is laid out but its row of tabs, or a tab in it, is not yet (just added)."""
        scroller = self._scroller()
        if scroller is None or not self.size.width:
            return False
        return not scroller.size.width or any(tab.display and not tab.size.width for tab in self._tabs())

    def show_overflow(self) -> None:
        """Show (or hide) the counter of cut-off tabs (once every tab is laid out)."""
        if not self.is_attached:
            return
        if self._unplaced():
            self.call_after_refresh(self.show_overflow)
            return
        text = overflow_text(*self.cut_off())
        if text == self._overflow:
            return
        self._overflow = text
        counter = self.query_one("#tab-overflow", Static)
        counter.update(text)
        counter.set_class(not text, "-none")
        self.call_after_refresh(self.show_overflow)  # the counter narrowed the row: count again
