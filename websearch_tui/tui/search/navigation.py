"""Moving around the search screen: focus stops, panes to their tops or ends, the provider list, the
merged view, and making room for the panes. View code only; :class:`SearchScreen
<websearch_tui.tui.search.screen.SearchScreen>` builds on it (and declares the keys)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from textual import events
from textual.widget import Widget
from textual.widgets import Select

from websearch_tui.tui.common.links import copy_text
from websearch_tui.tui.common.provider_face import ProviderFace
from websearch_tui.tui.common.screen import AppScreen
from websearch_tui.tui.search.pane_area import COMFORTABLE_PANE_WIDTH, MERGED, PaneArea, choose_layout, pane_width
from websearch_tui.tui.search.query_input import QueryInput

if TYPE_CHECKING:
    from websearch_tui.tui.common.provider_selector import ProviderSelector
    from websearch_tui.tui.search.merged_view import MergedView
    from websearch_tui.tui.search.provider_pane import ProviderPane

PROVIDER_LIST = "providers"
"""The id of the provider list (its face, until the list mounts, has another: ``provider-face``)."""
LIST_WIDTH = 42
"""Columns the provider list (and its face) takes on the search screen."""


class PaneNavigation(AppScreen[None]):
    """The search screen's moving around: Tab stops, Tops / Ends, showing and hiding the provider list
    and the merged view, jumping from a merged row to its pane, copying a pane's answer."""

    _tabbed: tuple[Widget | None, Widget] | None = None
    """The last Tab's ``(focus it started from, stop it moved to)`` until the focus has reached that
    stop: Textual moves the focus after the key's handler (``focus()`` is queued), so a Tab that comes
    before then goes on from the stop the last one chose (a burst of Tabs moves a stop each)."""

    @property
    def query_input(self) -> QueryInput:
        """The query box."""
        return self.query_one("#query", QueryInput)

    @cached_property
    def pane_area(self) -> PaneArea:
        """The container of provider panes (composed once with the screen: looked up once, not for
        every streamed token).

        Raises:
            textual.css.query.NoMatches: before the screen is composed (nothing is remembered then).
        """
        return self.query_one("#panes", PaneArea)

    @property
    def selector(self) -> ProviderSelector:
        """The provider checklist. Until the first frame has been drawn, its face stands in for it (see
        :class:`~websearch_tui.tui.common.provider_face.ProviderFace`); asked for before the list has
        taken the face's place, it takes it at once (and is mounted in a moment)."""
        from websearch_tui.tui.common.provider_selector import ProviderSelector

        found = self.query(ProviderSelector)
        if found:
            return found.first()
        return next(face for face in self.query(ProviderFace) if not face.replaced).replace(PROVIDER_LIST)[0]

    def on_provider_face_row_clicked(self, message: ProviderFace.RowClicked) -> None:
        """A click on the provider list's face before the list took its place: the list takes it now
        and its row is highlighted, toggled and focused, as a click on the list does."""
        selector = self.selector
        selector.highlighted = message.index
        selector.toggle(selector.get_option_at_index(message.index).value)
        selector.focus()

    def _leave_panes(self) -> None:
        """The panes are about to be rebuilt: a focused widget inside them would be removed and leave
        focus on a detached widget (keys and bindings would then go nowhere), so focus the query, at
        once (``focus()`` would move it later, after code that asks where the focus is has run)."""
        if self.focused is not None and self.pane_area in self.focused.ancestors_with_self:
            self.set_focus(self.query_input)

    def _make_room_for(self, panes: int) -> bool:
        """Hide the provider list when that gives the panes a better layout (tabs -> grid -> columns)
        or widens panes that are cramped (narrower than :data:`COMFORTABLE_PANE_WIDTH`).

        Returns True when it was hidden now (F2 shows it again).
        """
        selector = self.selector
        area = self.pane_area.size
        if selector.has_class("-hidden") or not (area.width and area.height):
            return False  # hidden already, or not laid out yet (a search sent before the first layout)
        wider = area.width + (selector.outer_size.width or LIST_WIDTH)  # not laid out yet: just put in its face's place
        rank = {"columns": 0, "grid": 1, "tabs": 2}
        better = rank[choose_layout(panes, wider, area.height)[0]] < rank[choose_layout(panes, *area)[0]]
        now = pane_width(panes, *area)
        cramped = now < COMFORTABLE_PANE_WIDTH and pane_width(panes, wider, area.height) > now
        if not (better or cramped):
            return False
        selector.add_class("-hidden")
        if selector.has_focus:
            self.query_input.focus()
        return True

    def _stops(self) -> list[Widget]:
        stops: list[Widget] = [self.query_input, *self.query(Select)]
        if not self.selector.has_class("-hidden"):
            stops.append(self.selector)
        area = self.pane_area
        views: list[Widget] = [*area.panes, *([area.merged] if area.merged_shown else [])]
        if area.mode != "tabs":
            views = [view for view in views if not view.has_class("-hidden-tab")]
        return stops + views

    def action_cycle(self, delta: int) -> None:
        """Move focus to the next/previous control or provider pane (Tab / Shift+Tab)."""
        stops = self._stops()
        focused = self.focused
        if self._tabbed is not None and self._tabbed[0] is focused and self._tabbed[1] in stops:
            focused = self._tabbed[1]  # the last Tab's stop: its focus has not arrived yet
        current = -1
        for index, stop in enumerate(stops):
            if focused is not None and (focused is stop or stop in focused.ancestors):
                current = index
                break
        target = stops[(current + delta) % len(stops)] if current >= 0 or delta > 0 else stops[-1]
        self._tabbed = (self.focused, target)
        area = self.pane_area
        if target in area.panes:
            area.activate(target.provider_id)
            target.focus_target()
        elif area.merged_shown and target is area.merged:
            area.activate(MERGED)
            area.merged.focus_rows()
        else:
            target.focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focus has reached the stop the last Tab moved to: the next Tab goes on from the focus."""
        if self._tabbed is not None and self._tabbed[1] in event.widget.ancestors_with_self:
            self._tabbed = None

    def action_tops_ends(self) -> None:
        """Every pane to its top at once, to compare how the answers open (``t``); when every pane is
        at its top already, every pane back to its end (a streaming answer is followed again)."""
        panes = self.pane_area.panes
        if any(not pane.at_top for pane in panes):
            for pane in panes:
                pane.to_top()
        else:
            for pane in panes:
                pane.to_end()

    def action_toggle_providers(self) -> None:
        """Show or hide the provider list (focuses it when shown). Hiding the focused list moves the
        focus to the panes (the query box when there are none): a key typed next is a key, not text
        that replaces the selected query (``/`` then searched for "/")."""
        selector = self.selector
        selector.toggle_class("-hidden")
        if selector.has_class("-hidden"):
            if selector.has_focus:
                self._focus_panes()
        else:
            selector.focus()

    def action_focus_query(self) -> None:
        """Focus the query box."""
        self.query_input.focus()

    async def action_toggle_merged(self) -> None:
        """Show the merged view beside the panes (focusing its rows) or hide it again."""
        area = self.pane_area
        if await area.toggle_merged():
            area.activate(MERGED)
            area.merged.focus_rows()
        elif self.focused is None or area.merged in self.focused.ancestors_with_self:
            self._focus_panes()

    def _focus_panes(self) -> None:
        """Focus the visible pane (in tabs mode) or the first one; the query box when there is none."""
        area = self.pane_area
        pane = (area.pane(area.active) if area.active else None) or (area.panes[0] if area.panes else None)
        if pane is None:
            self.query_input.focus()
        else:
            pane.focus_target()

    def on_merged_view_jump(self, event: MergedView.Jump) -> None:
        """Enter on a merged row: show that source in the pane of the provider that ranked it best."""
        event.stop()
        pane = self.pane_area.pane(event.provider)
        if pane is None:
            return
        self.pane_area.activate(event.provider)
        if not pane.focus_source(event.url):
            pane.focus_target()

    def _focus_in_panes(self) -> bool:
        return self.focused is not None and self.pane_area in self.focused.ancestors

    def _keep_focus_in_panes(self) -> None:
        """Put the focus back on a pane if it left them (so ``[ [`` keeps stepping, never typing)."""
        if not self._focus_in_panes():
            self._focus_panes()

    def action_copy_answer(self) -> None:
        """Copy the answer of the focused pane (in tabs mode: the visible one) to the clipboard."""
        pane = self._focused_pane()
        if pane is None:
            self.notify("Move to a pane first (Tab), then copy its answer.", severity="warning", markup=False)
            return
        answer = (pane.response.answer or "").strip()
        if not answer:
            self.notify(f"{pane.spec.label} has no answer to copy.", severity="warning", markup=False)
            return
        copy_text(self.app, answer, f"{pane.spec.label}'s answer ({len(answer):,} characters)")

    def _focused_pane(self) -> ProviderPane | None:
        focused = self.focused
        area = self.pane_area
        for pane in area.panes:
            if focused is not None and pane in focused.ancestors_with_self:
                return pane
        if area.mode == "tabs" and area.active is not None:
            return area.pane(area.active)
        return area.panes[0] if len(area.panes) == 1 else None
