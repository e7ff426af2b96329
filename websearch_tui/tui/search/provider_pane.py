"""One provider's pane: status line, streamed answer, sources, citations (with their checks), related questions.

The pane is a view: it shows what the engine reports (:meth:`ProviderPane.show` takes each
:class:`~websearch_tui.core.results.ProviderUpdate` of the current search) and runs nothing itself.
The screen owns the search and hands each pane its updates; :meth:`ProviderPane.reset` prepares
it for a new search. The answer is an :class:`~websearch_tui.tui.common.answer_view.AnswerView`:
streamed text is queued per token and shown once per tick (:meth:`ProviderPane.tick`), and
:meth:`ProviderPane.show_answer` shows a whole answer at once (a stored outcome). Clearing and
appending are synchronous, so text from a cancelled search can never reach the next one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from textual.actions import SkipAction
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from websearch_tui.core.costs import Cost
from websearch_tui.core.errors import ProviderError
from websearch_tui.core.models import AnswerDelta, SearchResponse
from websearch_tui.core.results import ProviderOutcome, ProviderUpdate, RetryWait, RunStatus
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.formats.common import dropped_sources_text
from websearch_tui.tui.common.links import copy_source, open_source, open_url_safely
from websearch_tui.tui.common.safe import clean, plain
from websearch_tui.tui.patches.border_subtitle import set_border_subtitle
from websearch_tui.tui.patches.virtual_size import LayoutFreeVirtualSize
from websearch_tui.tui.reader.request import ReadRequest, ReadRequested
from websearch_tui.tui.search.status_line import ACTIVE, FINAL, FLUSH_SECONDS, PaneStatus, StatusLine, cached_text

if TYPE_CHECKING:
    from websearch_tui.tui.common.answer_view import AnswerView


class PaneBody(VerticalScroll, LayoutFreeVirtualSize):
    """The scrolling body of a pane, which can scroll as part of a layout already requested.

    Home and End jump to the top and the bottom (a place the user asked for is not animated to), and
    while :attr:`settle` is set it is called after every layout that changes the body's size or the
    height of what it holds.

    Its virtual size asks for no second layout and repaint each time its content grows
    (:class:`LayoutFreeVirtualSize`): the layout that made it grow already placed the children, and
    the scrollbars follow the new size on their own.
    """

    settle: Callable[[], None] | None = None
    """Called once the layout is done, after each layout that resizes the body or its content (an
    ended run's pane keeps its end in view while its last lines and sections are laid out)."""

    def scroll_with_layout(self, y: int, grow: int) -> None:
        """Scroll to line ``y`` in the layout about to happen, in which the content grows by ``grow``
        lines (clamped to what the grown content allows).

        The scroll offset is set without its watchers, as Textual's own anchoring does inside the
        compositor, so the coming layout draws the grown and scrolled body once; a plain
        ``scroll_to`` would be clamped to the old size and drawn in a frame of its own.
        """
        limit = self.virtual_size.height + grow - self.scrollable_content_region.height
        y = max(0, min(y, limit))
        if y == round(self.scroll_y):
            return
        self.set_reactive(VerticalScroll.scroll_y, float(y))
        self.set_reactive(VerticalScroll.scroll_target_y, float(y))
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = y

    def watch_virtual_size(self) -> None:
        """The content's height changed (in a layout): :attr:`settle`, once that layout is done."""
        if self.settle is not None:
            self.call_after_refresh(self.settle)

    def on_resize(self) -> None:
        """The body was resized: :attr:`settle`, once the layout is done."""
        if self.settle is not None:
            self.call_after_refresh(self.settle)

    def action_scroll_home(self) -> None:
        """Home: the top, at once."""
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        """End: the bottom, at once."""
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_end(animate=False)


class PaneParts:
    """The widgets of a :class:`ProviderPane`: its status line above its scrolling body (notes, answer,
    sources, citations, related questions, the queries it ran, the model line). Made when the pane
    first needs them (:attr:`ProviderPane._w`), not with the pane: 24 panes made at start-up, all
    but one behind tabs, cost about 300 widgets before the first paint otherwise. The modules of the
    answer view and the lists are imported here too: the first frame shows no pane's parts."""

    def __init__(self) -> None:
        from websearch_tui.tui.common.answer_view import AnswerView
        from websearch_tui.tui.search.related_list import RelatedList
        from websearch_tui.tui.search.source_list import CitationList, SourceList

        self.status_line = StatusLine(classes="pane-status")
        self.notes = Static(classes="notes", markup=False)
        self.answer = AnswerView(classes="answer")
        self.sources_title = Static("Sources", classes="section-title sources-title")
        self.sources = SourceList(classes="sources")
        self.citations_title = Static("Citations", classes="section-title citations-title")
        self.citations = CitationList(classes="citations")
        self.related_title = Static("Related", classes="section-title related-title")
        self.related = RelatedList(classes="related")
        self.queries = Static(classes="queries", markup=False)
        self.meta = Static(classes="meta", markup=False)
        self.body = PaneBody(
            self.notes,
            self.answer,
            self.sources_title,
            self.sources,
            self.citations_title,
            self.citations,
            self.related_title,
            self.related,
            self.queries,
            self.meta,
            classes="pane-body",
        )


class ProviderPane(Vertical):
    """The live view of one provider's run in the current search.

    Args:
        spec: the provider it shows.
        clock: monotonic clock for the elapsed time and the spinner (tests pass a frozen one).
    """

    BINDINGS = [
        Binding("z", "zoom", "Zoom", id="pane-zoom", tooltip="Fill the screen with this pane, or back (z or Esc)"),
        Binding("o", "open_source", "Open", id="pane-open-source", tooltip="Open the selected source"),
        Binding("c", "copy_source", "Copy URL", id="pane-copy-url", tooltip="Copy the selected source's URL"),
        Binding("s", "focus_sources", "Sources", id="pane-sources", tooltip="Move to the first source"),
        Binding("r", "focus_related", "Related", id="pane-related", tooltip="Move to the related questions"),
        Binding(
            "i", "focus_citations", "Citations", show=False, id="pane-citations", tooltip="Move to the first citation"
        ),
        Binding(
            "v",
            "read",
            "Read",
            id="pane-read",
            tooltip="Read the selected source or citation here, in the reader view (a checked citation at its passage)",
        ),
    ]

    ALLOW_MAXIMIZE = True
    """Textual's "Maximize" (and :meth:`action_zoom`) fills the screen with the whole pane, not just its body."""

    DEFAULT_CSS = """
    ProviderPane { height: 1fr; width: 1fr; min-width: 20; }
    ProviderPane > .pane-body { height: 1fr; padding: 0 1; scrollbar-gutter: stable; scrollbar-size-vertical: 1; }
    ProviderPane .section-title { margin: 1 0 0 0; text-style: bold; }
    ProviderPane AnswerView { margin: 0; padding: 0; }
    ProviderPane .notes, ProviderPane .queries, ProviderPane .meta { height: auto; }
    """

    def __init__(self, spec: ProviderSpec, *, clock: Callable[[], float] | None = None) -> None:
        super().__init__(id=f"pane-{spec.id}", classes="provider-pane")
        self.spec = spec
        self._clock = clock or time.monotonic
        self._response = SearchResponse(provider=spec.id)
        self._status = "idle"
        self._error: ProviderError | None = None
        self._started: float | None = None
        self._ended: float | None = None
        self._retry: RetryWait | None = None
        self._retry_until = 0.0
        self._paced_until: float | None = None
        self._following = False
        self._follow_y: float | None = None
        self._resting = False
        self._others: Mapping[str, int] = {}
        self._limit: float | None = None
        self._marker = ""
        self._checking = False
        self._cost: Cost | None = None
        self._cached = ""
        self.border_title = Content(spec.label)
        self._parts: PaneParts | None = None
        self._built = False

    @property
    def provider_id(self) -> str:
        """The provider this pane shows."""
        return self.spec.id

    @property
    def status(self) -> str:
        """``idle``, ``queued``, a :class:`RunStatus` value, or ``skipped``."""
        return self._status

    @property
    def response(self) -> SearchResponse:
        """The response the engine last reported for this pane's run (empty before one)."""
        return self._response

    @property
    def answer(self) -> AnswerView:
        """The answer view (its ``source`` is the Markdown shown, text not yet flushed included)."""
        return self._w.answer

    @property
    def is_active(self) -> bool:
        """True while a run is queued or in flight."""
        return self._status in ACTIVE

    @property
    def _w(self) -> PaneParts:
        """The pane's widgets, made (with the sections drawn from what the pane holds) the first
        time they are asked for: when the pane is first shown or a search starts on it (not when
        the screen is composed)."""
        if self._parts is None:
            self._parts = PaneParts()
            self._render_sections()
        return self._parts

    def build(self) -> None:
        """Mount the status line above the scrolling body, the first time the pane is shown; later
        calls do nothing.

        The widgets (:class:`PaneParts`) are made when first needed, and show every update while they
        are not mounted yet, so a pane that is never shown (a background tab) costs no widgets
        before its run reports, and no mounting, styling or layout at all; one shown later draws
        what its run has reported so far."""
        if not self._built:
            self._built = True
            self.mount(self._w.status_line, self._w.body)

    def _follow(self, grow: int | None = None) -> None:
        """Keep the end of the streaming answer in view until the user scrolls up.

        The answer sits above the sources, so following means "show the answer's last line"
        (:attr:`AnswerView.follow_line`), not "stick to the bottom of the pane" (which would show
        the sources instead). With ``grow`` (the answer is about to grow by that many lines) the
        scroll is part of that layout, so the pane is drawn once; without, it scrolls now (after a
        refresh, when the layout left it short).
        """
        if not self._following or self._status not in ACTIVE:
            return
        body = self.body
        moved_up = self._follow_y is not None and body.scroll_y < self._follow_y - 0.5
        if moved_up and body.scroll_y < body.max_scroll_y - 0.5:  # not just clamped by a re-layout
            self._following = False  # the user scrolled up: leave the view alone
            return
        answer = self.answer
        target = max(0, answer.virtual_region.y + answer.follow_line - body.scrollable_content_region.height)
        if grow is not None:
            body.scroll_with_layout(target, grow)
        elif target > body.scroll_y:
            body.scroll_to(y=target, animate=False, immediate=True)
        self._follow_y = body.scroll_y

    def _user_scrolled(self) -> bool:
        """True when the body is no longer where following (or resting) left it, and no layout explains
        the move (a body that got shorter clamps the offset)."""
        if self._follow_y is None:
            return False
        body = self.body
        y = body.scroll_y
        if abs(y - self._follow_y) < 0.5:
            return False
        return not (y < self._follow_y and y >= body.max_scroll_y - 0.5)

    def end_target(self) -> int:
        """Where the pane of an ended run rests (the line at the top of its view): its true end, the
        last of what follows the answer (sources, citations, related questions, the model line) in
        view, as a pane that followed its stream expects; ``t`` (Tops / Ends) shows every opening."""
        return max(0, self.body.max_scroll_y)

    def _rest(self, resting: bool) -> None:
        """Keep the pane at its end (:meth:`end_target`) through the layouts to come, or stop."""
        self._resting = resting
        self.body.settle = self._rest_at_end if resting else None

    def _rest_at_end(self) -> None:
        """Scroll a resting pane to its end; called after each layout that changes the body (its last
        text shown whole, its sections filled in, a resize). A pane the user scrolled stops resting."""
        if not self._resting:
            return
        if self._user_scrolled():
            self._rest(False)
            return
        body = self.body
        target = self.end_target()
        if target != round(body.scroll_y):
            body.scroll_to(y=target, animate=False, immediate=True)
        self._follow_y = body.scroll_y

    @property
    def at_top(self) -> bool:
        """True when the pane shows its top."""
        return round(self.body.scroll_y) == 0

    def to_top(self) -> None:
        """Show the top of the pane (the answer's opening) at once, and stay there: a streaming answer
        is not followed any more."""
        self._following = False
        self._rest(False)
        self.body.scroll_home(animate=False, immediate=True)

    def to_end(self) -> None:
        """Back to the end at once: a streaming answer is followed again; an ended run's pane rests at
        its end (:meth:`end_target`)."""
        self._follow_y = self.body.scroll_y
        if self.is_active:
            self._following = True
            self._follow()
        else:
            self._rest(True)
            self._rest_at_end()

    @property
    def body(self) -> PaneBody:
        """The scrolling body of the pane."""
        return self._w.body

    # --- runs -------------------------------------------------------------------------

    async def reset(self, *, limit: float | None = None) -> None:
        """Prepare the pane for a new search: no answer, no sections, ``queued``; ``limit`` is the run's
        time limit in seconds (shown as "searching 6.0s / 60s" while it runs)."""
        self._limit = limit
        self.answer.clear()
        self.answer.streaming = True
        self._response = SearchResponse(provider=self.spec.id)
        self._others = {}
        self._error = None
        self._started = self._ended = None
        self._retry = self._paced_until = None
        self._cost, self._cached = None, ""
        self._status = "queued"
        self._checking = False
        self._render_sections()
        self._refresh_status()
        self._rest(False)
        self.body.scroll_home(animate=False, immediate=True)
        self._following = True
        self._follow_y = None

    def show_answer(self, markdown: str) -> None:
        """Show ``markdown`` as the whole answer at once, replacing anything streamed so far (for an
        outcome shown as it ended; the status and the sections are left as they are)."""
        self.answer.update(markdown)
        self.answer.streaming = self._status in ACTIVE

    def show(self, update: ProviderUpdate) -> None:
        """Show one engine update of the current search (the screen drops other searches' updates).

        A streamed answer piece is queued for the next :meth:`tick` (which also refreshes the status
        line); any other event re-renders the sections from ``update.response``. A retry wait
        shows "retrying in Ns (reason)", and a pacing wait "waiting 0.8s (paced)", counting down,
        until the next update. Nothing changes once the run has ended.
        """
        if self._status in FINAL:
            return
        self._response = update.response
        if update.retry is not None:
            self._retry, self._retry_until = update.retry, self._clock() + update.retry.delay
        else:
            self._retry = None
        self._paced_until = self._clock() + update.paced if update.paced is not None else None
        if update.status.value != self._status:
            self._set_status(update.status.value, update.error)
        event = update.event
        if isinstance(event, AnswerDelta):
            self.answer.append(event.text)
            return
        if event is not None:
            self._render_sections()
        self._refresh_status()

    def show_end(self, outcome: ProviderOutcome | None) -> None:
        """The run of the current search has ended as ``outcome`` (the engine's; the screen passes it
        after the run's final :meth:`show`): its cost goes in the status line, and for a result reused
        from the history "cached · 12 min ago" instead of the elapsed time. A reused result arrives
        whole, in that one final update, so its answer and sections are shown here at once.
        ``None`` (no outcome recorded) changes nothing."""
        if outcome is None or outcome.provider != self.provider_id:
            return
        self._cost = outcome.cost
        if outcome.cached is not None:
            self._cached = cached_text(outcome.cached, live=True)
            self._response = outcome.response
            self.show_answer(outcome.response.answer or "")
            self._render_sections()
        self._refresh_status()

    async def show_outcome(self, outcome: ProviderOutcome, others: Mapping[str, int]) -> None:
        """Show a run that has ended, as it ended (a search reopened from the history or the session's
        back/forward): its whole answer at once, every section, its final status, error and elapsed
        time (``outcome.elapsed_ms``; none for a run that never started), what it cost (or, for a
        reused result, where it came from: "cached from <date>"), and the "+N" badges of
        ``others`` (as :meth:`set_agreement` takes them). Returns once it is on screen.

        The answer text is replaced whole (nothing of an earlier run stays queued), and every section
        is drawn once, straight from the old content to the new (no widget is mounted or removed)."""
        self._response, self._error, self._retry, self._paced_until = outcome.response, outcome.error, None, None
        self._status, self._others = outcome.status.value, dict(others)
        self._cost = outcome.cost
        self._cached = cached_text(outcome.cached, live=False) if outcome.cached is not None else ""
        self.show_answer(outcome.response.answer or "")
        never_started = outcome.status is RunStatus.SKIPPED or (
            outcome.status is RunStatus.CANCELLED and not outcome.elapsed_ms and outcome.first_event_ms is None
        )
        self._started, self._ended = (None, None) if never_started else (0.0, outcome.elapsed_ms / 1000)
        self._following = False
        self._rest(False)
        self._render_sections()
        self._refresh_status()
        self.body.scroll_home(animate=False, immediate=True)

    def mark(self, text: str) -> None:
        """Show ``text`` in the pane's bottom border (where the search on screen came from, such as
        ``from history · 2026-01-07 14:32``; "" for nothing), drawing only that line again
        (:func:`~websearch_tui.tui.patches.border_subtitle.set_border_subtitle`: Textual would draw
        the whole pane again, which cost a reopened search about a tenth of its time)."""
        if text == self._marker:
            return
        self._marker = text
        set_border_subtitle(self, text)

    def _set_status(self, status: str, error: ProviderError | None = None) -> None:
        now = self._clock()
        if status in ("running", "streaming") and self._started is None:
            self._started = now
        self._status = status
        if status in FINAL:
            self._ended = now if self._started is not None else None
            self._error = error
            self._retry = self._paced_until = None
            self.answer.streaming = False  # first: an ended answer is shown whole (AnswerView._worth_showing)
            self.answer.flush()
            if self._following and not self._user_scrolled():
                # Following ran at each tick, and ticks stop with the run: its last text, the layout it
                # may have waited for (the panes take turns) and the sections filled in at the end are
                # laid out after this, so the pane rests at its end through those layouts.
                self._rest(True)
                self.call_after_refresh(self._rest_at_end)

    async def rendered(self) -> None:
        """Make sure the whole answer of an ended run is shown (its last text flushed); does nothing
        while the run is still active."""
        if self._status in FINAL:
            self.answer.flush()

    @property
    def needs_layout(self) -> bool:
        """True when the pane is shown and its answer waits for a layout (see :meth:`tick`)."""
        return bool(self.display) and self.answer.layout_pending

    def tick(self, *, relayout: bool = True) -> bool:
        """Show the answer text queued since the last tick, advance the spinner, follow the answer;
        True when the answer needed (and got) a new layout. With ``relayout=False`` a layout the
        answer needs is put off to a later tick (see :meth:`AnswerView.flush`).

        Called every :data:`FLUSH_SECONDS` by the :class:`PaneArea` for all active panes at
        once, so several streaming panes cost one screen update per tick, not one each. A pane
        that is not displayed (a background tab) does nothing: its text waits until it is shown.
        """
        if not self.display:
            return False
        answer = self.answer
        height = answer.flush(relayout=relayout)
        self._refresh_status()
        if height is None:
            return False
        self._follow(grow=height - answer.size.height)
        self.call_after_refresh(self._follow)
        return True

    # --- rendering --------------------------------------------------------------------

    def _refresh_status(self) -> None:
        elapsed = None
        if self._started is not None:
            elapsed = max(0.0, (self._ended if self._ended is not None else self._clock()) - self._started)
        frame = int(self._clock() / FLUSH_SECONDS / 2) if self._status in ACTIVE else 0
        self.set_class(self._status == "failed", "-failed")
        self.set_class(self._status in ACTIVE, "-active")
        retry = self._retry
        retry_in = max(0, math.ceil(self._retry_until - self._clock())) if retry is not None else None
        paced_in = self._paced_until - self._clock() if self._paced_until is not None else None
        self._w.status_line.show(
            PaneStatus(
                self._status,
                elapsed,
                len(self.response.sources),
                self._error,
                frame,
                retry_in,
                retry.reason if retry is not None else "",
                self._limit,
                self._cost,
                self._cached,
                round(paced_in, 1) if paced_in is not None and paced_in > 0 else None,
            )
        )

    def _render_sections(self) -> None:
        r = self.response
        lines = [Content.assemble(("⚠ ", "$text-warning"), plain(n)) for n in r.notes]
        if r.dropped_sources:
            lines.append(Content.assemble(("⚠ ", "$text-warning"), dropped_sources_text(r.dropped_sources)))
        self._w.notes.update(Content("\n").join(lines))
        self._w.notes.display = bool(lines)
        self._w.sources_title.display = bool(r.sources)
        self._w.sources.set_sources(r.sources, self._others)
        self._render_citations()
        self._w.related_title.display = bool(r.related_questions)
        self._w.related.set_questions(r.related_questions)
        lines = [Content.styled("Searched:", "bold")] + [plain(q, one_line=True, limit=160) for q in r.search_queries]
        self._w.queries.update(Content("\n  ").join(lines))
        self._w.queries.display = bool(r.search_queries)
        self._w.meta.update(Content.styled(self._meta_text(r), "dim"))
        self._w.meta.display = bool(r.model or r.usage)

    def _render_citations(self) -> None:
        """The citations, with their checks, and the heading that counts how many check out."""
        from websearch_tui.tui.search.source_list import citations_heading  # imported by the parts already

        citations = self.response.citations
        self._w.citations_title.display = bool(citations)
        self._w.citations_title.update(citations_heading(self.response, checking=self._checking and bool(citations)))
        self._w.citations.set_citations(citations)

    def show_checks(self, *, checking: bool = False) -> None:
        """Show the citations' checks as the response has them now (the session attaches them), or,
        with ``checking``, that they are being checked."""
        self._checking = checking
        self._render_citations()

    @staticmethod
    def _meta_text(r: SearchResponse) -> str:
        parts = []
        if r.model:
            parts.append("model " + clean(r.model, one_line=True, limit=80))
        usage = r.usage
        if usage is not None:
            if usage.input_tokens is not None or usage.output_tokens is not None:
                parts.append(f"tokens {usage.input_tokens or 0} in / {usage.output_tokens or 0} out")
            elif usage.total_tokens is not None:
                parts.append(f"{usage.total_tokens} tokens")
            if usage.search_requests is not None:
                parts.append(f"{usage.search_requests} searches")
        return " · ".join(parts)

    # --- navigation and actions -------------------------------------------------------

    def set_agreement(self, others: Mapping[str, int]) -> None:
        """Show, after each source, how many other providers found the same page (``others``:
        canonical URL -> count, see :func:`~websearch_tui.core.text.canonical_url`)."""
        if others != self._others:
            self._others = dict(others)
            self._w.sources.set_sources(self.response.sources, self._others)

    def focus_source(self, url: str) -> bool:
        """Focus (and scroll to) the source of this pane that is the page ``url``; False if it has none."""
        index = self._w.sources.index_of(url)
        if index is None:
            return False
        self._w.sources.focus_row(index)
        return True

    def focus_target(self) -> None:
        """Focus the pane: its first source if it has one, else its body."""
        if self._w.sources.sources:
            self._w.sources.focus_row(0)
        else:
            self._w.body.focus()

    def _selected_url(self) -> str | None:
        """The URL of the source under the cursor while the sources have the focus, else of the first."""
        sources = self._w.sources
        source = sources.selected if sources.has_focus else next(iter(sources.sources), None)
        return source.url if source is not None else None

    def action_zoom(self) -> None:
        """Fill the screen with this pane (``z``), or put it back among the others (``z`` again, or Esc)."""
        screen = self.screen
        if screen.maximized is self:
            screen.minimize()
        else:
            screen.maximize(self, container=False)

    def action_open_source(self) -> None:
        """Open the selected source in the browser (http/https only)."""
        open_source(self.app, self._selected_url())

    def action_copy_source(self) -> None:
        """Copy the selected source's URL (http/https only)."""
        copy_source(self.app, self._selected_url())

    def action_focus_sources(self) -> None:
        """Focus the first source."""
        if self._w.sources.sources:
            self._w.sources.focus_row(0)

    def action_focus_citations(self) -> None:
        """Focus the first citation."""
        if self._w.citations.citations:
            self._w.citations.focus_row(0)

    def read_request(self) -> ReadRequest | None:
        """What ``v`` reads: the citation under the cursor while the citations have the focus, else the
        source under the cursor (the first source when the sources do not have the focus), else the
        first citation; ``None`` when the pane lists neither."""
        citations, sources = self._w.citations, self._w.sources
        citation = citations.selected if citations.has_focus else None
        if citation is None:
            source = sources.selected if sources.has_focus else next(iter(sources.sources), None)
            if source is not None:
                return ReadRequest(source.url, source.title)
            citation = next(iter(citations.citations), None)
        return ReadRequest(citation.url, citation.title, citation) if citation is not None else None

    def action_read(self) -> None:
        """Read the selected source or citation in the reader view (``v``)."""
        request = self.read_request()
        if request is None:
            self.notify("No source or citation to read.", severity="warning", markup=False)
        else:
            self.post_message(ReadRequested(request))

    def action_focus_related(self) -> None:
        """Focus the first related question."""
        if self._w.related.questions:
            self._w.related.focus_row(0)

    def on_answer_view_link_clicked(self, event: AnswerView.LinkClicked) -> None:
        """A link in the answer was clicked: open it (the handler Textual names after the message)."""
        event.stop()
        open_url_safely(self.app, event.href)
