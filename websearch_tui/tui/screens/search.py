"""The main screen: query box, search controls, provider checklist and one pane per provider."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Footer, Select, SelectionList, Static

from websearch_tui.core.models import MAX_RESULTS_LIMIT, CitationsFound, RequestError, SearchRequest, SourcesFound
from websearch_tui.core.results import ProviderUpdate, RunStatus, SearchResult
from websearch_tui.core.specs import ProviderSettings, ProviderSpec
from websearch_tui.providers import SPECS
from websearch_tui.search.engine import Engine
from websearch_tui.tui.screens.base import AppScreen
from websearch_tui.tui.widgets.merged_view import MergedView
from websearch_tui.tui.widgets.pane_area import MERGED, PaneArea, choose_layout
from websearch_tui.tui.widgets.provider_pane import ProviderPane
from websearch_tui.tui.widgets.provider_selector import ProviderSelector
from websearch_tui.tui.widgets.query_input import QueryInput
from websearch_tui.tui.widgets.related_list import RelatedItem

if TYPE_CHECKING:
    from websearch_tui.config import Config

StatusResolver = Callable[[ProviderSpec, ProviderSettings], str]
"""Blocking ``(spec, settings) -> "ready" | "keyless" | "missing key" | ...``; run in a thread."""

RECENCY_OPTIONS = [
    ("any time", "any"),
    ("past day", "day"),
    ("past week", "week"),
    ("past month", "month"),
    ("past year", "year"),
]
MODE_OPTIONS = [("compare", "compare"), ("auto", "auto")]
EMPTY_HINT = "Type a question, then press Enter."
IDLE_HINT = "Enter searches · ↑/↓ history · Tab moves between panes · Esc cancels · F2 providers"


class SearchScreen(AppScreen[None]):
    """Search across the selected providers and watch each pane fill in.

    The screen owns the one search worker: it asks the engine for a search, and routes each
    :class:`~websearch_tui.core.results.ProviderUpdate` of the current search (by its search id) to
    that provider's pane; when the search ends, the hint line shows the engine's summary.
    Provider readiness comes from ``status_resolver``, by default the engine's key store
    (:meth:`KeyStore.status <websearch_tui.credentials.KeyStore.status>`).
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="search-cancel", tooltip="Cancel every search in flight"),
        Binding("tab", "cycle(1)", "Next pane", id="pane-next", tooltip="Move to the next pane"),
        Binding("shift+tab", "cycle(-1)", "Prev pane", id="pane-previous", tooltip="Move to the previous pane"),
        Binding("f2", "toggle_providers", "Providers", id="toggle-providers", tooltip="Show or hide providers"),
        Binding("slash", "focus_query", "Query", id="focus-query", tooltip="Focus the query box"),
        Binding(
            "m", "toggle_merged", "Merged", id="toggle-merged", tooltip="Every source once, ranked, with who found it"
        ),
    ]

    DEFAULT_CSS = """
    SearchScreen { layout: vertical; }
    SearchScreen #search-bar { height: auto; }
    SearchScreen #query { width: 1fr; }
    SearchScreen #mode { width: 15; }
    SearchScreen #recency { width: 17; }
    SearchScreen #count { width: 18; }
    SearchScreen #hint { height: 1; padding: 0 1; }
    SearchScreen #main { height: 1fr; }
    SearchScreen #providers { width: 42; height: 1fr; }
    SearchScreen #providers.-hidden { display: none; }
    """

    def __init__(
        self,
        config: Config,
        engine: Engine,
        *,
        status_resolver: StatusResolver | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__()
        self.config = config
        self.engine = engine
        self.status_resolver = status_resolver
        self.clock = clock or time.monotonic
        self._search_id = 0
        self._auto = False

    # --- composition --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Search bar, hint line, provider list and panes, footer."""
        search = self.config.search
        recency = search.recency if search.recency in {v for _, v in RECENCY_OPTIONS} else "any"
        count = min(max(int(search.max_results), 1), MAX_RESULTS_LIMIT)
        mode = search.mode if search.mode in ("compare", "auto") else "compare"
        with Horizontal(id="search-bar"):
            yield QueryInput(placeholder="Ask the web anything…", id="query")
            yield Select(MODE_OPTIONS, value=mode, allow_blank=False, id="mode", tooltip="Search mode")
            yield Select(RECENCY_OPTIONS, value=recency, allow_blank=False, id="recency", tooltip="Recency")
            yield Select(
                [(f"{n} result{'s' if n != 1 else ''}", n) for n in range(1, MAX_RESULTS_LIMIT + 1)],
                value=count,
                allow_blank=False,
                id="count",
                tooltip="Results per provider",
            )
        yield Static(IDLE_HINT, id="hint", markup=False)
        with Horizontal(id="main"):
            yield ProviderSelector(list(SPECS.values()), self.config.default_selection(), id="providers")
            yield PaneArea(clock=self.clock, id="panes")
        yield Footer()

    async def on_mount(self) -> None:
        """Show panes for the initial selection, focus the query, resolve provider readiness."""
        await self.pane_area.set_providers(self.selected_specs())
        self.query_input.focus()
        self._load_statuses()

    @property
    def query_input(self) -> QueryInput:
        """The query box."""
        return self.query_one("#query", QueryInput)

    @property
    def pane_area(self) -> PaneArea:
        """The container of provider panes."""
        return self.query_one("#panes", PaneArea)

    @property
    def selector(self) -> ProviderSelector:
        """The provider checklist."""
        return self.query_one("#providers", ProviderSelector)

    def selected_specs(self) -> list[ProviderSpec]:
        """Selected providers: the configured order first, then the registry order."""
        selected = set(self.selector.selected)
        order = [pid for pid in self.config.search.providers if pid in SPECS]
        order += [pid for pid in SPECS if pid not in order]
        return [SPECS[pid] for pid in order if pid in selected]

    def set_hint(self, text: str) -> None:
        """Show a short plain-text hint under the search bar."""
        self.query_one("#hint", Static).update(text)

    def refresh_statuses(self) -> None:
        """Resolve every provider's readiness again (after a key was stored or deleted)."""
        self._load_statuses()

    def apply_config(self, config: Config) -> None:
        """Use newly saved settings: a changed default selection or control default replaces the
        current one, newly disabled providers are unselected, re-enabled providers of the default
        selection are selected again (as on a fresh start), and readiness is resolved again."""
        previous = self.config
        old, new = previous.search, config.search
        self.config = config
        selector = self.selector
        if new.providers != old.providers:
            selector.deselect_all()
            for pid in config.default_selection():
                selector.select(pid)
        for pid in config.default_selection():
            if not previous.is_enabled(pid):
                selector.select(pid)
        for pid in list(selector.selected):
            if not config.is_enabled(pid):
                selector.deselect(pid)
        if new.mode != old.mode:
            self.query_one("#mode", Select).value = new.mode
        if new.recency != old.recency:
            self.query_one("#recency", Select).value = new.recency or "any"
        if new.max_results != old.max_results:
            self.query_one("#count", Select).value = min(max(new.max_results, 1), MAX_RESULTS_LIMIT)
        self._load_statuses()

    @work(group="status", exclusive=True, exit_on_error=False, description="provider readiness")
    async def _load_statuses(self) -> None:
        resolver = self.status_resolver or self.engine.key_store.status
        specs = list(SPECS.values())
        config = self.config

        def resolve_all() -> dict[str, str]:
            statuses = {}
            for spec in specs:
                try:
                    statuses[spec.id] = resolver(spec, config.settings_for(spec.id))
                except Exception:  # readiness is informative only; never block the UI on it
                    statuses[spec.id] = "unknown"
            return statuses

        statuses = await asyncio.to_thread(resolve_all)
        for pid, status in statuses.items():
            self.selector.set_status(pid, status)

    # --- searching ----------------------------------------------------------------------

    @on(QueryInput.Submitted, "#query")
    async def _on_submit(self, event: QueryInput.Submitted) -> None:
        event.stop()
        await self.search(event.value)

    @on(RelatedItem.Chosen)
    async def _on_related(self, event: RelatedItem.Chosen) -> None:
        event.stop()
        self.query_input.value = event.question
        await self.search(event.question)

    @on(SelectionList.SelectedChanged, "#providers")
    async def _on_selection(self) -> None:
        await self.pane_area.set_providers(self.selected_specs())
        self._show_ignored_filters()

    @on(Select.Changed, "#recency")
    def _on_recency(self) -> None:
        self._show_ignored_filters()

    def _show_ignored_filters(self) -> None:
        """Before sending: name the selected providers that cannot honour the chosen recency."""
        recency = self.query_one("#recency", Select).value
        if not isinstance(recency, str) or recency == "any":
            self.set_hint(IDLE_HINT)
            return
        specs = self.selected_specs()
        ignoring = [spec.label for spec in specs if not spec.capabilities.recency]
        prompting = [spec.label for spec in specs if spec.capabilities.recency_in_prompt]
        parts = []
        if ignoring:
            parts.append(f"ignored by {', '.join(ignoring)}")
        if prompting:
            parts.append(f"only asked in the prompt by {', '.join(prompting)}")
        if parts:
            self.set_hint(f"Recency '{recency}' is {'; '.join(parts)} (results are not date-filtered).")
        else:
            self.set_hint(f"Recency '{recency}' applies to every selected provider.")

    def build_request(self, query: str) -> SearchRequest:
        """A :class:`SearchRequest` from ``query`` and the current controls.

        Raises:
            RequestError: the query or a control value is out of range.
        """
        mode = self.query_one("#mode", Select).value
        recency = self.query_one("#recency", Select).value
        count = self.query_one("#count", Select).value
        return SearchRequest(
            query=query,
            providers=tuple(spec.id for spec in self.selected_specs()),
            mode=mode if isinstance(mode, str) else "compare",
            max_results=count if isinstance(count, int) else 10,
            recency=recency if isinstance(recency, str) and recency != "any" else None,
        )

    async def search(self, query: str) -> None:
        """Start a search for ``query``; the previous search is cancelled first."""
        if not query.strip():
            self.set_hint(EMPTY_HINT)
            return
        specs = self.selected_specs()
        if not specs:
            self.set_hint("Select at least one provider first (F2 shows the list).")
            return
        try:
            request = self.build_request(query)
        except RequestError as exc:
            self.set_hint(str(exc))
            return
        self.query_input.remember(request.query)
        if self.focused is not None and self.pane_area in self.focused.ancestors_with_self:
            # the panes are about to be rebuilt; a focused widget inside them would be removed and
            # leave focus on a detached widget (keys and bindings would then go nowhere)
            self.query_input.focus()
        self.workers.cancel_group(self, "search")
        result = self.engine.prepare(request)
        self._search_id, self._auto = result.search_id, result.mode == "auto"
        tucked = self._make_room_for(len(specs))
        await self.pane_area.set_providers(specs)
        self.pane_area.reset_merged()
        for pane in self.pane_area.panes:
            await pane.reset()
        self.pane_area.wake()
        if self._auto:
            self.set_hint("Searching (auto: providers are tried in order until one answers)…")
        else:
            self.set_hint(f"Searching {len(specs)} provider{'s' if len(specs) != 1 else ''}…")
        self._search_worker(result)
        if tucked:
            self.notify("Provider list hidden to make room for the panes; F2 shows it.", markup=False, timeout=4)

    def _make_room_for(self, panes: int) -> bool:
        """Hide the provider list when that gives the panes a better layout (tabs -> grid -> columns).

        Returns True when it was hidden now (F2 shows it again).
        """
        selector = self.selector
        if selector.has_class("-hidden"):
            return False
        area = self.pane_area.size
        rank = {"columns": 0, "grid": 1, "tabs": 2}
        now = choose_layout(panes, area.width, area.height)[0]
        wider = choose_layout(panes, area.width + selector.outer_size.width, area.height)[0]
        if rank[wider] >= rank[now]:
            return False
        selector.add_class("-hidden")
        if selector.has_focus:
            self.query_input.focus()
        return True

    @work(exclusive=True, group="search", exit_on_error=False, description="search")
    async def _search_worker(self, result: SearchResult) -> None:
        """Run the search; when it ends (cancelled too) and is still the current one, show its summary."""
        try:
            await self.engine.search(result.request, self._show_update, result=result)
        finally:
            if result.search_id == self._search_id and self.is_attached:
                self.set_hint(result.summary().text())

    def _show_update(self, update: ProviderUpdate) -> None:
        """Route one engine update of the current search to its provider's pane (auto mode: the
        provider being tried becomes the visible tab)."""
        if update.search_id != self._search_id:
            return
        pane = self.pane_area.pane(update.provider)
        if pane is None or not pane.is_attached:  # a pane removed while its run unwinds (quitting)
            return
        if self._auto and update.status is RunStatus.RUNNING:
            self.pane_area.activate(update.provider)
        pane.show(update)
        if isinstance(update.event, (SourcesFound, CitationsFound)):
            self.pane_area.note_sources(update.response)

    def on_unmount(self) -> None:
        """The screen is going away (the app quits): updates of a search still unwinding are dropped."""
        self._search_id = 0

    def action_cancel(self) -> None:
        """Cancel the search in flight; the engine reports its unfinished runs ``cancelled``."""
        active = any(pane.is_active for pane in self.pane_area.panes)
        self.workers.cancel_group(self, "search")
        if active:
            self.set_hint("Search cancelled.")

    # --- navigation ---------------------------------------------------------------------

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
        current = -1
        for index, stop in enumerate(stops):
            if focused is not None and (focused is stop or stop in focused.ancestors):
                current = index
                break
        target = stops[(current + delta) % len(stops)] if current >= 0 or delta > 0 else stops[-1]
        if isinstance(target, ProviderPane):
            self.pane_area.activate(target.provider_id)
            target.focus_target()
        elif isinstance(target, MergedView):
            self.pane_area.activate(MERGED)
            target.focus_rows()
        else:
            target.focus()

    def action_toggle_providers(self) -> None:
        """Show or hide the provider list (focuses it when shown)."""
        selector = self.selector
        selector.toggle_class("-hidden")
        if selector.has_class("-hidden"):
            if selector.has_focus:
                self.query_input.focus()
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
            self.query_input.focus()

    @on(MergedView.Jump)
    def _on_jump(self, event: MergedView.Jump) -> None:
        """Enter on a merged row: show that source in the pane of the provider that ranked it best."""
        event.stop()
        pane = self.pane_area.pane(event.provider)
        if pane is None:
            return
        self.pane_area.activate(event.provider)
        if not pane.focus_source(event.url):
            pane.focus_target()
