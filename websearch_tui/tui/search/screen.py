"""The main screen: query box, search controls, provider checklist and one pane per provider.

View code only: what a search does is the :class:`~websearch_tui.session.Session`'s (starting,
cancelling and retrying searches, their progress, private mode, the back/forward trail, reopening
from the history, provider readiness). The screen collects the query and the controls, lays out
one pane per provider and routes each update of the live search to its pane; it also exports what
it shows (``e``) and copies a pane's answer. Checking citations (``C``, ``[verify] auto``) and opening
the reader view (``v``) are :class:`~websearch_tui.tui.search.citation_checks.CitationChecks`'.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Select, Static
from textual.worker import WorkerCancelled

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import CitationsFound, RequestError, SearchRequest, SourcesFound
from websearch_tui.core.results import ProviderOutcome, ProviderUpdate, RunStatus, SearchResult
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.session import LiveSearch, NothingToRetry, Session, Shown, StatusResolver
from websearch_tui.session.session import ended_outcome, recency_notice, rerun_request
from websearch_tui.tui.common.keys_footer import KeysFooter
from websearch_tui.tui.common.provider_face import ProviderFace
from websearch_tui.tui.common.remembered import Controls, initial_controls, save_controls
from websearch_tui.tui.patches.compositor import use_span_compositor
from websearch_tui.tui.search.citation_checks import CHECK_BINDING, CitationChecks, tally_text
from websearch_tui.tui.search.navigation import LIST_WIDTH, PROVIDER_LIST
from websearch_tui.tui.search.pane_area import PaneArea
from websearch_tui.tui.search.query_input import QueryInput
from websearch_tui.tui.search.search_bar import COMPACT_WIDTH, SearchBar
from websearch_tui.tui.search.status_line import FLUSH_SECONDS

if TYPE_CHECKING:
    from textual.widgets import SelectionList

    from websearch_tui.settings.config import Config
    from websearch_tui.tui.history.screen import HistoryChoice
    from websearch_tui.tui.search.related_list import RelatedList

EMPTY_HINT = "Type a question, then press Enter."
IDLE_HINT = "Enter searches · ↑↓ history · Tab moves on · Esc cancels · F2 providers"
PRIVATE_MARK = "private: not recorded"


class MainRow(Horizontal):
    """The row under the hint: the provider list and the pane area, which cover it."""

    BLANK = True
    """Drawn as blank rows (no border, no content of its own: see
    :attr:`~websearch_tui.tui.search.pane_area.PaneGrid.BLANK`)."""


class SearchScreen(CitationChecks):
    """Search across the selected providers and watch each pane fill in.

    The screen owns the one search worker: it runs the session's live search in it and routes each
    :class:`~websearch_tui.core.results.ProviderUpdate` of that search to its provider's pane; when
    the search ends, the hint line shows its summary. Provider readiness is the session's.

    Args:
        session: the application (its config, engine, history, trail and readiness).
        status_resolver: the provider list's readiness instead of the session's (tests).
        clock: monotonic clock for elapsed times (tests pass a frozen one).
        remembered: the controls last used with this config file (selection, mode, recency, count),
            used instead of the config's defaults; every change is remembered again for this config
            file (in a thread).
        on_search_end: called with no argument each time a search has ended (cancelled too), after
            the screen shows it ended (the app's garbage collection policy).
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
            "ctrl+r",
            "search_fresh",
            "Fresh search",
            id="search-fresh",
            tooltip="Search again without reusing cached results: every provider is asked anew",
        ),
        Binding(
            "t",
            "tops_ends",
            "Tops / Ends",
            show=False,
            id="panes-tops-ends",
            tooltip="Every pane to its top, to compare the answers' openings; again: every pane back to its end",
        ),
        CHECK_BINDING,
    ]

    BLANK = True
    """Drawn as blank rows in its background (Textual's shortcut for a widget with no border and no
    content of its own): its rows (search bar, hint, main row, footer) cover it whatever its size, and
    a dialog above it draws the screen's composed picture, not the screen's own lines; its own lines
    went through the style pipeline in every full frame (the whole terminal's area)."""

    TYPED_KEY_ACTIONS = frozenset({"focus_query", "toggle_merged", "retry_failed", "tops_ends", "check_citations"})
    """Actions bound to a printable key: in a text field the key is typed instead, so there they are
    neither run nor shown in the footer."""
    FOOTER_FIRST = ("cancel", "quit", "help", "open_settings", "open_history", "retry_failed")
    """Actions the footer lists before all others, so a narrow terminal cuts the local keys, not these."""

    DEFAULT_CSS = f"""
    SearchScreen {{ layout: vertical; }}
    SearchScreen #search-bar {{ height: auto; }}
    SearchScreen #query {{ width: 1fr; }}
    SearchScreen #search-bar SelectCurrent {{ padding: 0 1; }}
    SearchScreen #hint-row {{ height: 1; }}
    SearchScreen #hint {{ width: 1fr; height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }}
    SearchScreen #record-state {{ width: auto; height: 1; padding: 0 1; color: $text-warning; text-style: bold; }}
    SearchScreen #main {{ height: 1fr; }}
    SearchScreen #providers, SearchScreen #provider-face {{ width: {LIST_WIDTH}; height: 1fr; }}
    SearchScreen #providers.-hidden, SearchScreen #provider-face.-hidden {{ display: none; }}
    """

    def __init__(
        self,
        session: Session,
        *,
        status_resolver: StatusResolver | None = None,
        clock: Callable[[], float] | None = None,
        remembered: Controls | None = None,
        on_search_end: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        use_span_compositor(self)  # draws a frame's changes, not the rectangle around them
        self.session = session
        self.status_resolver = status_resolver
        self.config = session.config  # the settings the controls and the list reflect
        self.clock = clock or time.monotonic
        self._remembered = remembered
        self._save_lock = asyncio.Lock()
        self._live: LiveSearch | None = None  # the search whose updates reach the panes
        self._pacing: Timer | None = None  # counts a pacing wait down in the hint line
        self._on_search_end = on_search_end

    # --- what the footer offers -----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer (in the footer, and for its key) only what works now: Cancel while a search runs or
        citations are checked, the :data:`TYPED_KEY_ACTIONS` outside text fields, Retry once a search
        has failed providers (and no citation is being checked), a fresh search once a search is on
        screen and none runs."""
        if action == "cancel":
            return self._searching or self.checking
        if action in self.TYPED_KEY_ACTIONS and isinstance(self.focused, Input):
            return False
        if action == "retry_failed":
            return not self._searching and not self.checking and bool(self._failed())
        if action == "search_fresh":
            return not self._searching and self.session.shown is not None
        return True

    @property
    def _searching(self) -> bool:
        """True while a provider of the search on screen is queued or running (False before the screen
        is composed: the footer asks at any time)."""
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

    def compose(self) -> ComposeResult:
        """Search bar, hint line (with the private mark), provider list and panes, footer."""
        controls = initial_controls(self.config, self._remembered)
        self._remembered = controls  # the controls on screen; a change is saved
        yield SearchBar(controls, compact=self.app.size.width < COMPACT_WIDTH, id="search-bar")
        with Horizontal(id="hint-row"):
            yield Static(IDLE_HINT, id="hint", markup=False)  # the private mark joins it when first shown
        with MainRow(id="main"):
            yield ProviderFace(
                list(SPECS.values()), controls.providers, presets=self.config.enabled_presets(), id="provider-face"
            )
            yield PaneArea(clock=self.clock, id="panes")
        yield KeysFooter(compact=True)

    class Started(Message):
        """The screen has put the real provider list and boxes in their faces' places (after the first
        frame): from now on it takes every key as it does later (the App hands it what was typed
        before, :mod:`~websearch_tui.tui.common.type_ahead`)."""

    async def on_mount(self) -> None:
        """Show panes for the initial selection, focus the query, name the selected providers that
        cannot honour the recency; once the first frame is drawn, put the real provider list and boxes
        in their faces' places (:meth:`_replace_faces`) and resolve provider readiness (it may import
        and ask the OS keyring, in a thread that would otherwise compete with the first frame for the
        interpreter)."""
        await self.pane_area.set_providers(self.selected_specs())
        self.query_input.focus()
        self._show_ignored_filters()
        self.call_after_refresh(self._replace_faces)
        self.call_after_refresh(self._load_statuses)

    async def _replace_faces(self) -> None:
        """The provider list (:meth:`mount_selector`), then the boxes
        (:meth:`~websearch_tui.tui.search.search_bar.SearchBar.mount_selects`) take their faces' places;
        then the screen says it has started (:class:`Started`)."""
        await self.mount_selector()
        await self.search_bar.mount_selects()
        if self.is_attached:
            self.post_message(self.Started())

    async def mount_selector(self) -> None:
        """Put the provider list in the place of the face the first frame drew (drawn in one update:
        nothing moves on screen), with the face's selection and readiness; does nothing once done (as
        when something asked for :attr:`selector` first). No ``SelectedChanged`` is reported for it:
        the selection did not change."""
        face = next((face for face in self.query(ProviderFace) if not face.replaced), None)
        if face is None or not self.is_attached:
            return
        with self.app.batch_update():
            _, steps = face.replace(PROVIDER_LIST)
            for step in steps:
                await step

    def on_resize(self, event: events.Resize) -> None:
        """Short or full labels in the search bar's boxes, for the new width (see :data:`COMPACT_WIDTH`)."""
        self.search_bar.compact(event.size.width < COMPACT_WIDTH)

    @property
    def search_bar(self) -> SearchBar:
        """The query box and the mode, recency and count boxes."""
        return self.query_one("#search-bar", SearchBar)

    def selected_specs(self) -> list[ProviderSpec]:
        """Selected providers: the configured order first, then the registry order."""
        face = next((face for face in self.query(ProviderFace) if not face.replaced), None)  # until the list mounts
        selected = set(face.selected if face is not None else self.selector.selected)
        order = [pid for pid in self.config.search.providers if pid in SPECS]
        order += [pid for pid in SPECS if pid not in order]
        return [SPECS[pid] for pid in order if pid in selected]

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
        self.selector.follow_config(previous, config)
        self.search_bar.follow_config(old, new)
        self._load_statuses()

    @work(group="status", exclusive=True, exit_on_error=False, description="provider readiness")
    async def _load_statuses(self) -> None:
        statuses = await asyncio.to_thread(self.session.readiness, resolver=self.status_resolver)
        for pid, status in statuses.items():
            self.selector.set_status(pid, status)

    # --- searching ----------------------------------------------------------------------

    @on(QueryInput.Submitted, "#query")
    async def _on_submit(self, event: QueryInput.Submitted) -> None:
        event.stop()
        await self.search(event.value)

    async def on_related_list_chosen(self, event: RelatedList.Chosen) -> None:
        """A related question was chosen: search it (the handler Textual names after the message)."""
        event.stop()
        self.query_input.value = event.question
        await self.search(event.question)

    async def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        """The provider list's selection is for the next search: before the first one the panes show it
        (idle); once a search is on screen its panes stay as they are until the next search runs.
        (Named, not ``@on``: Textual's selection list is imported with the list, after the first frame.)"""
        if event.selection_list.id != PROVIDER_LIST:
            return
        if self.session.shown is None:
            await self.pane_area.set_providers(self.selected_specs())
        self._show_ignored_filters()
        self._remember_controls()
        self.refresh_bindings()

    def _next_search_hint(self) -> str | None:
        """While a search is on screen and the selection differs from its panes: what the next search
        will run (the panes keep their results until then)."""
        if self.session.shown is None:
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
        controls = Controls(tuple(spec.id for spec in self.selected_specs()), *self.search_bar.controls())
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
        _, recency, _ = self.search_bar.controls()
        self.set_hint(recency_notice(self.selected_specs(), recency) or self._next_search_hint() or IDLE_HINT)

    def build_request(self, query: str) -> SearchRequest:
        """A :class:`SearchRequest` from ``query`` and the current controls.

        Raises:
            RequestError: the query or a control value is out of range.
        """
        mode, recency, count = self.search_bar.controls()
        providers = tuple(spec.id for spec in self.selected_specs())
        return SearchRequest(query=query, providers=providers, mode=mode, max_results=count, recency=recency)

    async def search(self, query: str, *, fresh: bool = False) -> None:
        """Start a search for ``query`` with the current controls (``fresh``: reuse no cached result);
        the previous search is cancelled first."""
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
        await self.run_search(request, fresh=fresh)

    async def action_search_fresh(self) -> None:
        """Search again for the query in the query box, with the current controls, reusing no cached
        result (``ctrl+r``): every provider is asked anew."""
        await self.search(self.query_input.value, fresh=True)

    async def run_search(self, request: SearchRequest, *, fresh: bool = False) -> None:
        """Start ``request`` live (its providers that are registered get panes); the previous search is
        cancelled first. It becomes the newest search of this session's trail. With ``fresh`` no
        provider's result is reused from the cache.

        When the search would pass a ``[budget]`` limit (by estimate: :meth:`Session.budget_check`), a
        dialog asks first; "Cancel" leaves everything as it is (the query stays in the box)."""
        if await self._ask_budget(request, fresh=fresh, then=partial(self._start_search, request, fresh=fresh)):
            await self._start_search(request, fresh=fresh)

    async def _ask_budget(self, request: SearchRequest, *, fresh: bool, then: Callable[[], Awaitable[None]]) -> bool:
        """True when ``request`` may run now; else the budget dialog is open, and ``then()`` runs once
        the user chooses "Search anyway"."""
        overrun = await self.session.budget_check(request, fresh=fresh)
        if overrun is None:
            return True
        from websearch_tui.tui.common.dialogs import budget_dialog  # a dialog is not in the first frame

        async def chosen(choice: str | None) -> None:
            if choice == "search":
                await then()
            else:
                self.set_hint("Not searched: it would go over your budget. The query is kept.")

        self.app.push_screen(budget_dialog(overrun.message('"Search anyway"')), chosen)
        return False

    async def _start_search(self, request: SearchRequest, *, fresh: bool) -> None:
        """Start ``request`` live, at once (see :meth:`run_search`)."""
        self.workers.cancel_group(self, "search")
        live = self._live = self.session.begin(request, fresh=fresh)  # providers: the request's, or the default ones
        specs = [SPECS[pid] for pid in live.result.providers if pid in SPECS]
        self.query_input.remember(request.query)
        self._leave_panes()
        tucked = self._make_room_for(len(specs))
        await self.pane_area.set_providers(specs)
        self.pane_area.reset_merged()
        await self.pane_area.restart(live.result.providers, limit=self.session.timeout)
        self.pane_area.refresh_merged()
        if live.result.mode == "auto":
            self.set_hint("Searching (auto: providers are tried in order until one answers)…")
        else:
            self.set_hint(f"Searching {len(specs)} provider{'s' if len(specs) != 1 else ''}…")
        self._search_worker(live)
        self.refresh_bindings()  # Cancel is offered while it runs
        if tucked:
            self.notify("Provider list hidden to make room for the panes; F2 shows it.", markup=False, timeout=4)

    @work(exclusive=True, group="search", exit_on_error=False, description="search")
    async def _search_worker(self, live: LiveSearch) -> None:
        """Run the session's ``live`` search (then, under ``[verify] auto``, check its citations); when
        it ends (cancelled too) and is still the one on screen, show its summary (and the citations'
        tally) and the merged view and badges as the search ended (not at the next refresh tick). A
        retry's summary is the whole search's (:meth:`Session.begin_retry`)."""
        verify = self.config.verify.auto
        checked = self.checks_callback(live.result, live.progress_text, lambda: live is self._live)
        try:
            await self.session.run(live, self._show_update, verify=verify, on_checked=checked)
        finally:
            if verify:
                self.checks_ended(live.result)
            if live is self._live and self.is_attached:
                tally = tally_text(live.shown) if verify else None
                cost = live.shown.cost_text()
                extras = [text for text in (cost and f"Cost {cost}", tally) if text]
                self.set_hint(" · ".join([live.summary_text(), *extras]))
                self.pane_area.refresh_merged()
                self.pane_area.refresh_tabs()
                self.refresh_bindings()
            if self._on_search_end is not None:
                self._on_search_end()

    def _failed(self) -> list[str]:
        """The providers of the search on screen whose run failed (and which still have a pane)."""
        area = self.pane_area
        failed = self.session.failed()
        return [pid for pid in failed if (pane := area.pane(pid)) is not None and pane.status == "failed"]

    async def action_retry_failed(self) -> None:
        """Run the providers that failed in the search on screen again (``R``): the same query and
        controls, in their own panes; the other panes keep what they show (:meth:`Session.begin_retry`).
        A retry reuses no cached result; over a ``[budget]`` limit a dialog asks first."""
        failed, shown = self._failed(), self.session.shown
        if not self._searching and failed and shown is not None:  # else _start_retry says why not
            request = dataclasses.replace(shown.result.request, providers=tuple(failed))
            if not await self._ask_budget(request, fresh=True, then=partial(self._start_retry, failed)):
                return
        await self._start_retry(failed)

    async def _start_retry(self, failed: list[str]) -> None:
        """Run the ``failed`` providers again at once (see :meth:`action_retry_failed`)."""
        try:
            if self._searching:
                raise NothingToRetry("wait for the search to end (or Esc)")
            live = self._live = self.session.begin_retry(failed)
        except NothingToRetry as why:
            self.notify(f"Nothing to retry now: {why}.", severity="warning", markup=False, timeout=4)
            return
        await self.pane_area.restart(live.result.providers, limit=self.session.timeout)
        self.set_hint(f"Retrying {', '.join(live.shown.label(pid) for pid in live.result.providers)}…")
        self._search_worker(live)
        self.refresh_bindings()

    def _show_update(self, update: ProviderUpdate) -> None:
        """Route one engine update of the current search to its provider's pane (auto mode: the
        provider being tried, or one whose reused result answers at once, becomes the visible tab)."""
        live = self._live
        if live is None or not live.owns(update):
            return
        pane = self.pane_area.pane(update.provider)
        if pane is None or not pane.is_attached:  # a pane removed while its run unwinds (quitting)
            return
        if live.result.mode == "auto" and update.status in (RunStatus.RUNNING, RunStatus.DONE):  # DONE: reused
            self.pane_area.activate(update.provider)
        pane.show(update)
        if isinstance(update.event, (SourcesFound, CitationsFound)):
            self.pane_area.note_sources(update.response)
        if update.paced is not None:  # held back by pacing: said where the user waits, counted down
            self._count_pacing_down()
        if update.final:
            pane.show_end(live.result.outcome(update.provider))  # its cost; a reused result, whole
            self.pane_area.note_sources(update.response)  # a reused result's sources come with its end
            self.set_hint(live.progress_text())  # as the CLI counts: "3/6 done · waiting for ..."

    def _count_pacing_down(self) -> None:
        """Show the search's progress in the hint line now, with each pacing wait ("waiting 0.8 s: Exa
        allows one search per second", :meth:`LiveSearch.progress_text`), and again every
        :data:`~websearch_tui.tui.search.status_line.FLUSH_SECONDS` until no provider waits; the
        line keeps its size, so a count costs no layout."""
        live = self._live
        if live is None or live.ended or not self.is_attached:
            self._stop_pacing_count()  # the search ended or was left while a provider waited
            return
        self.set_hint(live.progress_text(), layout=False)
        if self._pacing is None:
            self._pacing = self.set_interval(FLUSH_SECONDS, self._count_pacing_down)
        now = live.clock()
        if not any(end > now for end in live.paced.values()):
            self._stop_pacing_count()

    def _stop_pacing_count(self) -> None:
        """Stop counting a pacing wait down (nothing to do when no count runs)."""
        if self._pacing is not None:
            self._pacing.stop()
            self._pacing = None

    def on_unmount(self) -> None:
        """The screen is going away (the app quits): updates of a search still unwinding are dropped."""
        self._live = None

    def action_cancel(self) -> None:
        """Cancel the search in flight (the engine reports its unfinished runs ``cancelled``), or stop
        checking citations (those checked keep their marks)."""
        active, checking = self._searching, self.checking
        self.workers.cancel_group(self, "search")
        if active:
            self.set_hint("Search cancelled.")
        elif checking:
            self.set_hint("Citation check stopped; the citations checked so far keep their marks.")

    # --- history, back and forward, export ----------------------------------------------

    def action_open_history(self) -> None:
        """Open the History screen (F4); its choice is reopened or re-run here."""
        if not self.session.history.enabled:
            self.notify(
                "History is off ([history] enabled = false in the config file).", severity="warning", markup=False
            )
            return
        from websearch_tui.tui.history.screen import HistoryScreen  # first used here, not at start-up

        self.app.push_screen(HistoryScreen(self.session.history.store, self._after_history))

    async def _after_history(self, choice: HistoryChoice) -> None:
        """Re-run the chosen search live, or show it as it ended (the History screen is still in front)."""
        stored = choice.stored
        if choice.action == "rerun":  # asked live: no result is reused from the cache (Enter would)
            self._set_controls(stored.result)  # the providers it ran, also when its request named none
            await self.run_search(rerun_request(stored.result), fresh=True)
            return
        await self._stop_search()
        await self.show_stored(self.session.reopen(stored))

    async def action_back(self) -> None:
        """Show the previous search of this session as it ended, without searching again."""
        await self._step(self.session.back, "This is the first search of this session.")

    async def action_forward(self) -> None:
        """Show the next search of this session as it ended, without searching again."""
        await self._step(self.session.forward, "This is the newest search of this session.")

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
        self._live = None  # no live update is routed to these panes
        self.session.leave()
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
            await area.show_ended([ended_outcome(result, pane.provider_id) for pane in area.panes], marker)
            number, count = self.session.trail.position
            if shown.from_history:
                where = f"From the history, {when:%Y-%m-%d %H:%M}"
            else:
                where = f"Search {number} of {count} of this session, {when:%H:%M}"
            cost = result.cost_text()
            where += f" (cost {cost})" if cost else ""
            self.set_hint(f"{where} — offline. Enter runs it again live; [ and ] (Alt+←/→) go back and forward.")
        self.refresh_bindings()

    def _set_controls(self, result: SearchResult) -> None:
        """Set the controls and the provider selection to those ``result`` ran with (its providers,
        also when its request named none and the default selection ran), without rebuilding the panes."""
        from textual.widgets import SelectionList  # with the provider list (not for the first frame)

        with self.prevent(Select.Changed, SelectionList.SelectedChanged):
            self.search_bar.show_request(result.request)
            selector = self.selector
            wanted = [pid for pid in result.providers if pid in SPECS]
            if set(selector.selected) != set(wanted):  # unchanged, the list is not drawn again
                selector.deselect_all()
                for pid in wanted:
                    selector.select(pid)

    def shown_result(self) -> Shown | None:
        """The search on screen as it is now: ended runs as they ended, a run still going as far as it
        got (its current status and response), providers auto mode did not need left out."""
        shown = self.session.shown
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

    def action_toggle_private(self) -> None:
        """Private mode on or off (F5): while on, searches are not recorded in the history."""
        private = self.session.toggle_private()
        marks = self.query("#record-state")
        if marks:
            marks.first().display = private
        elif private:
            self.query_one("#hint-row").mount(Static(PRIVATE_MARK, id="record-state", markup=False))
        if private:
            self.notify("Private search: nothing you search now is recorded in the history.", markup=False)
        else:
            self.notify("Searches are recorded in the history again.", markup=False, timeout=3)
