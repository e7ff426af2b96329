"""The main screen: query box, search controls, provider checklist and one pane per provider.

Besides running searches it keeps this session's searches (:class:`~websearch_tui.session.trail.SessionTrail`)
for going back and forward offline, reopens searches from the history (F4), exports what it shows
(``e``), copies a pane's answer, and has a private mode in which nothing is recorded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from contextlib import suppress
from datetime import datetime, timezone
from typing import TYPE_CHECKING, TypeVar

from rich.cells import cell_len
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Input, Select, SelectionList, Static
from textual.worker import WorkerCancelled

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import (
    MAX_RESULTS_LIMIT,
    CitationsFound,
    RequestError,
    SearchRequest,
    SearchResponse,
    SourcesFound,
)
from websearch_tui.core.results import ProviderOutcome, ProviderUpdate, RunStatus, SearchResult
from websearch_tui.core.specs import ProviderSettings, ProviderSpec
from websearch_tui.engine.engine import Engine
from websearch_tui.session.trail import SessionTrail, Shown
from websearch_tui.tui.common.keys_footer import KeysFooter
from websearch_tui.tui.common.links import copy_text
from websearch_tui.tui.common.provider_selector import ProviderSelector
from websearch_tui.tui.common.remembered import Controls, save_controls
from websearch_tui.tui.common.screen import AppScreen
from websearch_tui.tui.patches.compositor import SpanCompositor
from websearch_tui.tui.search.merged_view import MergedView
from websearch_tui.tui.search.pane_area import (
    COMFORTABLE_PANE_WIDTH,
    MERGED,
    PaneArea,
    choose_layout,
    pane_width,
)
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.query_input import QueryInput
from websearch_tui.tui.search.related_list import RelatedList

if TYPE_CHECKING:
    from websearch_tui.history import HistoryStore
    from websearch_tui.settings.config import Config
    from websearch_tui.tui.history.screen import HistoryChoice

T = TypeVar("T")
StatusResolver = Callable[[ProviderSpec, ProviderSettings], str]
"""Blocking ``(spec, settings) -> "ready" | "keyless" | "needs key" | ...``; run in a thread."""

RECENCY_OPTIONS = [
    ("any time", "any"),
    ("past day", "day"),
    ("past week", "week"),
    ("past month", "month"),
    ("past year", "year"),
]
MODE_OPTIONS = [("compare", "compare"), ("auto", "auto")]
COUNT_OPTIONS = [(f"{n} result{'s' if n != 1 else ''}", n) for n in range(1, MAX_RESULTS_LIMIT + 1)]
COMPACT_RECENCY_OPTIONS = [("any", "any"), ("day", "day"), ("week", "week"), ("month", "month"), ("year", "year")]
COMPACT_COUNT_OPTIONS = [(str(n), n) for n in range(1, MAX_RESULTS_LIMIT + 1)]
COMPACT_WIDTH = 100
"""Below this many columns the recency and count boxes show short labels (``week``, ``10``), so the
query box keeps room for a question."""
SELECT_CHROME = 6
"""Columns a search-bar Select takes besides its label: border (2), padding (2) and the arrow (2)."""
EMPTY_HINT = "Type a question, then press Enter."
IDLE_HINT = "Enter searches · ↑↓ history · Tab moves on · Esc cancels · F2 providers"
PRIVATE_MARK = "private: not recorded"


class SearchScreen(AppScreen[None]):
    """Search across the selected providers and watch each pane fill in.

    The screen owns the one search worker: it asks the engine for a search, and routes each
    :class:`~websearch_tui.core.results.ProviderUpdate` of the current search (by its search id) to
    that provider's pane; when the search ends, the hint line shows the engine's summary.
    Provider readiness comes from ``status_resolver``, by default the engine's key store
    (:meth:`KeyStore.status <websearch_tui.secrets.credentials.KeyStore.status>`).

    Args:
        config, engine, status_resolver, clock: as :class:`~websearch_tui.tui.app.WebSearchApp`.
        remembered: the controls last used with this config file (selection, mode, recency, count),
            used instead of the config's defaults; every change is remembered again for this config
            file (in a thread).
        open_history: blocking; the history store (called in a thread; ``None``: history is off).
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="search-cancel", tooltip="Cancel every search in flight"),
        Binding(
            "tab",
            "cycle(1)",
            "Next field or pane",
            show=False,
            id="pane-next",
            tooltip="Query box, mode, recency and count boxes, provider list, then each pane",
        ),
        Binding(
            "shift+tab",
            "cycle(-1)",
            "Previous field or pane",
            show=False,
            id="pane-previous",
            tooltip="Back the same way",
        ),
        Binding("f2", "toggle_providers", "Providers", id="toggle-providers", tooltip="Show or hide providers"),
        Binding("slash", "focus_query", "Query", id="focus-query", tooltip="Focus the query box"),
        Binding(
            "m", "toggle_merged", "Merged", id="toggle-merged", tooltip="Every source once, ranked, with who found it"
        ),
        Binding("f4", "open_history", "History", id="open-history", tooltip="Every search you ran, offline"),
        Binding("f5", "toggle_private", "Private", show=False, id="toggle-private", tooltip="Record nothing"),
        Binding("alt+left,left_square_bracket", "back", "Back", show=False, id="trail-back", tooltip="Earlier search"),
        Binding("alt+right,right_square_bracket", "forward", "Forward", show=False, id="trail-forward"),
        Binding("e", "export", "Export", show=False, id="export", tooltip="Save what is on screen to a file"),
        Binding("R", "retry_failed", "Retry failed", id="retry-failed", tooltip="Run the failed providers again"),
        Binding(
            "t",
            "tops_ends",
            "Tops / Ends",
            show=False,
            id="panes-tops-ends",
            tooltip="Every pane to its top, to compare the answers' openings; again: every pane back to its end",
        ),
    ]

    TYPED_KEY_ACTIONS = frozenset({"focus_query", "toggle_merged", "retry_failed", "tops_ends"})
    """Actions bound to a printable key: in a text field the key is typed instead, so there they are
    neither run nor shown in the footer."""
    FOOTER_FIRST = ("cancel", "quit", "help", "open_settings", "open_history", "retry_failed")
    """Actions the footer lists before all others, so a narrow terminal cuts the local keys, not these."""

    DEFAULT_CSS = """
    SearchScreen { layout: vertical; }
    SearchScreen #search-bar { height: auto; }
    SearchScreen #query { width: 1fr; }
    SearchScreen #search-bar SelectCurrent { padding: 0 1; }
    SearchScreen #hint-row { height: 1; }
    SearchScreen #hint { width: 1fr; height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    SearchScreen #record-state { width: auto; height: 1; padding: 0 1; color: $text-warning; text-style: bold; }
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
        remembered: Controls | None = None,
        open_history: Callable[[], HistoryStore] | None = None,
    ) -> None:
        super().__init__()
        self._compositor = SpanCompositor()  # draws a frame's changes, not the rectangle around them
        self.config = config
        self.engine = engine
        self.status_resolver = status_resolver
        self.clock = clock or time.monotonic
        self.open_history = open_history
        self.private = False
        self._remembered = remembered
        self._save_lock = asyncio.Lock()
        self._trail = SessionTrail()
        self._search_id = 0
        self._auto = False
        self._compact: bool | None = None
        self._progress: tuple[SearchResult, set[str]] | None = None

    # --- what the footer offers -----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer (in the footer, and for its key) only what works now: Cancel while a search runs,
        the :data:`TYPED_KEY_ACTIONS` outside text fields, Retry once a search has failed providers."""
        if action == "cancel":
            return self._searching
        if action in self.TYPED_KEY_ACTIONS and isinstance(self.focused, Input):
            return False
        if action == "retry_failed":
            return not self._searching and bool(self._failed())
        return True

    @property
    def _searching(self) -> bool:
        """True while a provider of the search on screen is queued or running (False before the panes
        are mounted and after they are gone: the footer asks at any time)."""
        try:
            return self.pane_area.searching
        except NoMatches:
            return False

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual's active bindings, :data:`FOOTER_FIRST` first, in its order (the footer shows them so)."""
        bindings = super().active_bindings
        order = self.FOOTER_FIRST
        chosen = [(key, b) for key, b in bindings.items() if b.binding.action in order]
        first = dict(sorted(chosen, key=lambda item: order.index(item[1].binding.action)))
        return {**first, **{key: b for key, b in bindings.items() if key not in first}}

    # --- composition --------------------------------------------------------------------

    def _initial_controls(self) -> Controls:
        """The remembered controls (their providers that are still known and enabled), else the config's."""
        search = self.config.search
        remembered = self._remembered
        if remembered is not None:
            kept = tuple(pid for pid in remembered.providers if pid in SPECS and self.config.is_enabled(pid))
            if kept:
                return dataclasses.replace(remembered, providers=kept)
        return Controls(tuple(self.config.default_selection()), search.mode, search.recency, search.max_results)

    def compose(self) -> ComposeResult:
        """Search bar, hint line (with the private mark), provider list and panes, footer."""
        controls = self._initial_controls()
        recency = controls.recency if controls.recency in {v for _, v in RECENCY_OPTIONS} else "any"
        count = min(max(int(controls.max_results), 1), MAX_RESULTS_LIMIT)
        mode = controls.mode if controls.mode in ("compare", "auto") else "compare"
        self._remembered = controls  # the controls on screen; a change is saved
        self._compact = compact = self.app.size.width < COMPACT_WIDTH
        with Horizontal(id="search-bar"):
            yield QueryInput(placeholder="Ask the web anything…", id="query")
            yield _control(MODE_OPTIONS, mode, id="mode", tooltip="Search mode")
            recency_options = COMPACT_RECENCY_OPTIONS if compact else RECENCY_OPTIONS
            yield _control(recency_options, recency, id="recency", tooltip="Recency")
            yield _control(
                COMPACT_COUNT_OPTIONS if compact else COUNT_OPTIONS, count, id="count", tooltip="Results per provider"
            )
        with Horizontal(id="hint-row"):
            yield Static(IDLE_HINT, id="hint", markup=False)
            yield Static(PRIVATE_MARK, id="record-state", markup=False).set_styles("display: none;")
        with Horizontal(id="main"):
            yield ProviderSelector(
                list(SPECS.values()), list(controls.providers), presets=self.config.enabled_presets(), id="providers"
            )
            yield PaneArea(clock=self.clock, id="panes")
        yield KeysFooter(compact=True)

    async def on_mount(self) -> None:
        """Show panes for the initial selection, focus the query, resolve provider readiness."""
        await self.pane_area.set_providers(self.selected_specs())
        self.query_input.focus()
        self._load_statuses()

    def on_resize(self, event: events.Resize) -> None:
        """Short or full labels in the search bar's boxes, for the new width (see :data:`COMPACT_WIDTH`)."""
        self._compact_controls(event.size.width < COMPACT_WIDTH)

    def _compact_controls(self, compact: bool) -> None:
        """Short labels in the recency and count boxes (``week``, ``10``), or the full ones; the values
        stay (no change is reported or remembered)."""
        if compact == self._compact:
            return
        self._compact = compact
        with self.prevent(Select.Changed):
            _relabel(self.query_one("#recency", Select), COMPACT_RECENCY_OPTIONS if compact else RECENCY_OPTIONS)
            _relabel(self.query_one("#count", Select), COMPACT_COUNT_OPTIONS if compact else COUNT_OPTIONS)

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
        selector.presets = config.enabled_presets()
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

    @on(RelatedList.Chosen)
    async def _on_related(self, event: RelatedList.Chosen) -> None:
        event.stop()
        self.query_input.value = event.question
        await self.search(event.question)

    @on(SelectionList.SelectedChanged, "#providers")
    async def _on_selection(self) -> None:
        """The selection is for the next search: before the first one the panes show it (idle); once a
        search is on screen its panes stay as they are until the next search runs."""
        if self._trail.current is None:
            await self.pane_area.set_providers(self.selected_specs())
        self._show_ignored_filters()
        self._remember_controls()
        self.refresh_bindings()

    def _next_search_hint(self) -> str | None:
        """While a search is on screen and the selection differs from its panes: what the next search
        will run (the panes keep their results until then)."""
        if self._trail.current is None:
            return None
        specs = self.selected_specs()
        if [spec.id for spec in specs] == [pane.provider_id for pane in self.pane_area.panes]:
            return None
        if not specs:
            return "No provider selected for the next search (F2 shows the list); the panes keep these results."
        names = ", ".join(spec.label for spec in specs)
        return f"Next search: {names} (Enter runs it; the panes keep these results until then)."

    @on(Select.Changed, "#recency")
    def _on_recency(self) -> None:
        self._show_ignored_filters()

    @on(Select.Changed, "#mode, #recency, #count")
    def _on_control(self) -> None:
        self._remember_controls()

    def _remember_controls(self) -> None:
        """Remember the current controls for the next start (when they changed)."""
        mode, recency, count = (self.query_one(f"#{name}", Select).value for name in ("mode", "recency", "count"))
        controls = Controls(
            tuple(spec.id for spec in self.selected_specs()),
            mode if isinstance(mode, str) else "compare",
            recency if isinstance(recency, str) and recency != "any" else None,
            count if isinstance(count, int) else 10,
        )
        if controls != self._remembered:
            self._remembered = controls
            self._save_controls()

    @work(group="remember", exit_on_error=False, description="remembering the search controls")
    async def _save_controls(self) -> None:
        """Write the newest remembered controls (one write at a time, so the last change is the one kept)."""
        async with self._save_lock:
            if self._remembered is not None:
                await asyncio.to_thread(save_controls, self._remembered, config_file=self.config.path)

    def _show_ignored_filters(self) -> None:
        """Before sending: name the selected providers that cannot honour the chosen recency."""
        recency = self.query_one("#recency", Select).value
        if not isinstance(recency, str) or recency == "any":
            self.set_hint(self._next_search_hint() or IDLE_HINT)
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
        """Start a search for ``query`` with the current controls; the previous search is cancelled first."""
        if not query.strip():
            self.set_hint(EMPTY_HINT)
            return
        if not self.selected_specs():
            self.set_hint("Select at least one provider first (F2 shows the list).")
            return
        try:
            request = self.build_request(query)
        except RequestError as exc:
            self.set_hint(str(exc))
            return
        await self.run_search(request)

    async def run_search(self, request: SearchRequest) -> None:
        """Start ``request`` live (its providers that are registered get panes); the previous search is
        cancelled first. It becomes the newest search of this session's trail."""
        result = self.engine.prepare(request)  # its providers: the request's, or the default selection
        specs = [SPECS[pid] for pid in result.providers if pid in SPECS]
        self.query_input.remember(request.query)
        self._leave_panes()
        self.workers.cancel_group(self, "search")
        self._search_id, self._auto = result.search_id, result.mode == "auto"
        self._progress = (result, set())
        self._trail.push(Shown(result, datetime.now(timezone.utc)))
        tucked = self._make_room_for(len(specs))
        await self.pane_area.set_providers(specs)
        self.pane_area.reset_merged()
        for pane in self.pane_area.panes:
            await pane.reset(limit=self.engine.timeout)
            pane.mark("")
        self.pane_area.refresh_merged()
        self.pane_area.wake()
        if self._auto:
            self.set_hint("Searching (auto: providers are tried in order until one answers)…")
        else:
            self.set_hint(f"Searching {len(specs)} provider{'s' if len(specs) != 1 else ''}…")
        self._search_worker(result)
        self.refresh_bindings()  # Cancel is offered while it runs
        if tucked:
            self.notify("Provider list hidden to make room for the panes; F2 shows it.", markup=False, timeout=4)

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
        if selector.has_class("-hidden"):
            return False
        area = self.pane_area.size
        wider = area.width + selector.outer_size.width
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

    @work(exclusive=True, group="search", exit_on_error=False, description="search")
    async def _search_worker(self, result: SearchResult, into: SearchResult | None = None) -> None:
        """Run the search; when it ends (cancelled too) and is still the current one, show its summary
        and the merged view and badges as the search ended (not at the next refresh tick).

        ``into``: ``result`` re-runs some of ``into``'s providers (:meth:`action_retry_failed`); their
        new outcomes replace the old ones in ``into``, and the summary is ``into``'s."""
        try:
            await self.engine.search(result.request, self._show_update, result=result, record=not self.private)
        finally:
            if into is not None:
                _merge_outcomes(into, result)
            if result.search_id == self._search_id and self.is_attached:
                self.set_hint((into or result).summary().text())
                self.pane_area.refresh_merged()
                self.pane_area.refresh_tabs()
                self.refresh_bindings()

    def _failed(self) -> list[str]:
        """The providers of the search on screen whose run failed (and which still have a pane)."""
        shown = self._trail.current
        if shown is None:
            return []
        area = self.pane_area
        return [
            o.provider
            for o in shown.result.outcomes
            if o.status is RunStatus.FAILED and (pane := area.pane(o.provider)) is not None and pane.status == "failed"
        ]

    async def action_retry_failed(self) -> None:
        """Run the providers that failed in the search on screen again (``R``): the same query and
        controls, in their own panes; the other panes keep what they show. The retry is a search of
        its own for the engine (and the history); on screen its outcomes replace the failures."""
        failed = self._failed()
        shown = self._trail.current
        if self._searching or shown is None or not failed:
            why = "wait for the search to end (or Esc)" if self._searching else "no provider on screen failed"
            self.notify(f"Nothing to retry now: {why}.", severity="warning", markup=False, timeout=4)
            return
        into = shown.result
        retry = self.engine.prepare(dataclasses.replace(into.request, providers=tuple(failed)))
        into.outcomes = [o for o in into.outcomes if o.provider not in failed]
        self._search_id, self._auto = retry.search_id, retry.mode == "auto"
        self._progress = (retry, set())
        for pid in failed:
            pane = self.pane_area.pane(pid)
            if pane is not None:
                await pane.reset(limit=self.engine.timeout)
                pane.mark("")
        self.pane_area.wake()
        self.set_hint(f"Retrying {', '.join(into.label(pid) for pid in failed)}…")
        self._search_worker(retry, into)
        self.refresh_bindings()

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
        if update.final and self._progress is not None and self._progress[0].search_id == update.search_id:
            result, done = self._progress
            done.add(update.provider)
            self.set_hint(result.progress_text(done))  # as the CLI counts: "3/6 done · waiting for ..."

    def on_unmount(self) -> None:
        """The screen is going away (the app quits): updates of a search still unwinding are dropped."""
        self._search_id = 0

    def action_cancel(self) -> None:
        """Cancel the search in flight; the engine reports its unfinished runs ``cancelled``."""
        active = self._searching
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

    # --- history, back and forward, export ----------------------------------------------

    def action_open_history(self) -> None:
        """Open the History screen (F4); its choice is reopened or re-run here."""
        if self.open_history is None:
            self.notify(
                "History is off ([history] enabled = false in the config file).", severity="warning", markup=False
            )
            return
        from websearch_tui.tui.history.screen import HistoryScreen  # first used here, not at start-up

        self.app.push_screen(HistoryScreen(self.open_history, self._after_history))

    async def _after_history(self, choice: HistoryChoice) -> None:
        """Re-run the chosen search live, or show it as it ended (the History screen is still in front)."""
        stored = choice.stored
        if choice.action == "rerun":
            self._set_controls(stored.result)  # the providers it ran, also when its request named none
            await self.run_search(dataclasses.replace(stored.result.request, providers=stored.result.providers))
            return
        shown = Shown(stored.result, stored.entry.created_at, from_history=True)
        self._trail.push(shown)
        await self.show_stored(shown)

    async def action_back(self) -> None:
        """Show the previous search of this session as it ended, without searching again."""
        await self._step(self._trail.back, "This is the first search of this session.")

    async def action_forward(self) -> None:
        """Show the next search of this session as it ended, without searching again."""
        await self._step(self._trail.forward, "This is the newest search of this session.")

    async def _step(self, move: Callable[[], Shown | None], at_end: str) -> None:
        await self._stop_search()  # first: a search still running ends (cancelled) before it is left
        shown = move()
        if shown is None:
            self.notify(at_end, markup=False, timeout=3)
            return
        in_panes = self._focus_in_panes()
        await self.show_stored(shown)
        if in_panes:  # the panes may have been rebuilt (the focus then moves on later): stay among them
            self.call_after_refresh(self._keep_focus_in_panes)

    def _focus_in_panes(self) -> bool:
        return self.focused is not None and self.pane_area in self.focused.ancestors

    def _keep_focus_in_panes(self) -> None:
        """Put the focus back on a pane if it left them (so ``[ [`` keeps stepping, never typing)."""
        if not self._focus_in_panes():
            self._focus_panes()

    async def _stop_search(self) -> None:
        """Cancel the search in flight and wait until the engine has recorded how each run ended."""
        running = [w for w in self.workers if w.group == "search" and w.node is self and not w.is_finished]
        self.workers.cancel_group(self, "search")
        for worker in running:
            with suppress(WorkerCancelled):
                await worker.wait()

    async def show_stored(self, shown: Shown) -> None:
        """Show a search as it ended, offline: its query and controls, and every pane (answer, sources,
        citations, related questions, queries, notes, status) marked with where it came from and when.

        The panes are filled together inside one batch, so the screen is laid out and painted once."""
        await self._stop_search()
        result = shown.result
        self._search_id, self._auto = 0, result.mode == "auto"  # no live update is routed to these panes
        when = shown.started_at.astimezone()
        marker = f"from history · {when:%Y-%m-%d %H:%M}" if shown.from_history else f"earlier · {when:%H:%M}"
        area = self.pane_area
        with self.app.batch_update():
            self._set_controls(result)
            self.query_input.value = result.request.query
            self._leave_panes()
            specs = [SPECS[pid] for pid in result.providers if pid in SPECS]
            self._make_room_for(len(specs))
            if [pane.provider_id for pane in area.panes] != [spec.id for spec in specs]:
                await area.set_providers(specs)
            area.reset_merged()
            outcomes = [_ended(result, pane.provider_id) for pane in area.panes]
            for outcome in outcomes:
                area.note_sources(outcome.response)
            badges = area.agreements()
            await asyncio.gather(
                *(
                    pane.show_outcome(o, badges.get(o.provider, {}))
                    for pane, o in zip(area.panes, outcomes, strict=True)
                )
            )
            for pane in area.panes:
                pane.mark(marker)
            area.refresh_merged()
            area.refresh_tabs()
            number, count = self._trail.position
            if shown.from_history:
                where = f"From the history, {when:%Y-%m-%d %H:%M}"
            else:
                where = f"Search {number} of {count} of this session, {when:%H:%M}"
            self.set_hint(f"{where} — offline. Enter runs it again live; [ and ] (Alt+←/→) go back and forward.")
        self.refresh_bindings()

    def _set_controls(self, result: SearchResult) -> None:
        """Set the controls and the provider selection to those ``result`` ran with (its providers,
        also when its request named none and the default selection ran), without rebuilding the panes."""
        request = result.request
        with self.prevent(Select.Changed, SelectionList.SelectedChanged):
            self.query_one("#mode", Select).value = request.mode
            self.query_one("#recency", Select).value = request.recency or "any"
            self.query_one("#count", Select).value = min(max(request.max_results, 1), MAX_RESULTS_LIMIT)
            selector = self.selector
            wanted = [pid for pid in result.providers if pid in SPECS]
            if set(selector.selected) != set(wanted):  # unchanged, the list is not drawn again
                selector.deselect_all()
                for pid in wanted:
                    selector.select(pid)

    def shown_result(self) -> Shown | None:
        """The search on screen as it is now: ended runs as they ended, a run still going as far as it
        got (its current status and response), providers auto mode did not need left out."""
        shown = self._trail.current
        if shown is None:
            return None
        outcomes = []
        for pid in shown.result.providers:
            outcome = shown.result.outcome(pid)
            pane = self.pane_area.pane(pid)
            if outcome is None and pane is not None and pane.status not in ("idle", "skipped"):
                outcome = ProviderOutcome(pid, RunStatus(pane.status), pane.response)
            if outcome is not None:
                outcomes.append(outcome)
        return dataclasses.replace(shown, result=dataclasses.replace(shown.result, outcomes=outcomes))

    def action_export(self) -> None:
        """Export what is on screen (``e``): a Markdown report or the JSON document, to a file you confirm."""
        shown = self.shown_result()
        if shown is None:
            self.notify("Nothing to export yet: search first.", severity="warning", markup=False)
            return
        from websearch_tui.tui.search.export import ExportDialog  # first used here, not at start-up

        self.app.push_screen(ExportDialog(shown.result, shown.started_at), self._after_export)

    def _after_export(self, path: object) -> None:
        if path is not None:
            self.notify(f"Exported to {path}", markup=False, timeout=5)

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

    def action_toggle_private(self) -> None:
        """Private mode on or off (F5): while on, searches are not recorded in the history."""
        self.private = not self.private
        self.query_one("#record-state", Static).display = self.private
        if self.private:
            self.notify("Private search: nothing you search now is recorded in the history.", markup=False)
        else:
            self.notify("Searches are recorded in the history again.", markup=False, timeout=3)


def _control(options: list[tuple[str, T]], value: T, *, id: str, tooltip: str) -> Select[T]:
    """A search-bar Select just wide enough for its longest option on one line."""
    width = max(cell_len(label) for label, _ in options) + SELECT_CHROME
    return Select(options, value=value, allow_blank=False, id=id, tooltip=tooltip).set_styles(f"width: {width};")


def _relabel(select: Select[T], options: list[tuple[str, T]]) -> None:
    """Give ``select`` other labels for the same values (its value kept) and fit its width to them."""
    value = select.value
    select.set_options(options)
    select.value = value
    select.styles.width = max(cell_len(label) for label, _ in options) + SELECT_CHROME


def _merge_outcomes(into: SearchResult, retried: SearchResult) -> None:
    """Put ``retried``'s outcomes into ``into`` in place of the same providers' (in ``into``'s order)."""
    again = {o.provider for o in retried.outcomes}
    outcomes = [o for o in into.outcomes if o.provider not in again] + retried.outcomes
    order = {pid: index for index, pid in enumerate(into.providers)}
    into.outcomes = sorted(outcomes, key=lambda o: order.get(o.provider, len(order)))
    into.winner = into.winner or retried.winner
    into.error = None if into.ok else into.combined_error()


def _ended(result: SearchResult, provider_id: str) -> ProviderOutcome:
    """How ``provider_id``'s run in ``result`` ended (``SKIPPED`` when auto mode stopped before it)."""
    outcome = result.outcome(provider_id)
    return outcome or ProviderOutcome(provider_id, RunStatus.SKIPPED, SearchResponse(provider_id))
