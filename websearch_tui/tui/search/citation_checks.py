"""Checking citations and reading pages from the search screen. View code only: the checking is the
session's (:meth:`Session.verify <websearch_tui.session.Session.verify>`, or :meth:`Session.run
<websearch_tui.session.Session.run>` with ``verify`` under ``[verify] auto``); this shows it.

``C`` (and the palette's "Check citations") checks every citation of the search on screen against
the page it cites, in a worker; each pane shows its citations' marks and "4 of 5 citations check
out" as its provider's pages are done, the merged view the marks beside "cited by", and the hint
line "Checking citations: 1/3 providers", then the tally. ``v`` on a source, a citation or a merged
row opens the reader view (:class:`~websearch_tui.tui.reader.screen.ReaderScreen`).
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on, work
from textual.binding import Binding
from textual.widgets import Static

from websearch_tui.core.results import SearchResult
from websearch_tui.session import Session
from websearch_tui.tui.common.check_marks import tally_words, total_tally
from websearch_tui.tui.reader.request import ReadRequested
from websearch_tui.tui.search.navigation import PaneNavigation

CHECK_BINDING = Binding(
    "C",
    "check_citations",
    "Check citations",
    id="check-citations",
    tooltip="Read every cited page; mark each citation ✓ quoted, ✓ supported, ✗ not supported or ? unreadable",
)
"""``C``: :meth:`CitationChecks.action_check_citations` (the screen lists it after its own keys, so a
narrow footer drops it before them)."""


def tally_text(result: SearchResult) -> str | None:
    """``"4 of 5 citations check out"`` over every answer of ``result``; ``None`` when none was checked."""
    tally = total_tally(outcome.response for outcome in result.outcomes)
    return tally_words(*tally) if tally is not None else None


class CitationChecks(PaneNavigation):
    """The search screen's citation checks (``C``, bound by the screen: :data:`CHECK_BINDING`) and its
    way to the reader view (``v``)."""

    session: Session
    checking = False
    """True while citations are being checked (by ``C``, or after a search under ``[verify] auto``)."""

    def set_hint(self, text: str, *, layout: bool = True) -> None:
        """Show a short plain-text hint under the search bar (``layout=False``: no layout pass, for a
        line that changes ten times a second)."""
        self.query_one("#hint", Static).update(text, layout=layout)

    # --- checking ----------------------------------------------------------------------------

    def action_check_citations(self) -> None:
        """Check every citation of the search on screen against its page (``C``), in a worker."""
        shown = self.session.shown
        if self.checking:
            self.notify("The citations are being checked already (Esc stops).", markup=False, timeout=3)
        elif self.session.searching or self.pane_area.searching:
            self.notify(
                "Wait for the search to end (or Esc), then check its citations.", severity="warning", markup=False
            )
        elif shown is None:
            self.notify("Nothing to check yet: search first.", severity="warning", markup=False)
        elif not any(outcome.response.citations for outcome in shown.result.outcomes):
            self.notify("No answer on screen cites a page: nothing to check.", severity="warning", markup=False)
        else:
            self._check_worker(shown.result)

    @work(exclusive=True, group="search", exit_on_error=False, description="checking citations")
    async def _check_worker(self, result: SearchResult) -> None:
        """Check ``result``'s citations, showing each provider's as it is done. A new search, a retry or
        another search shown cancels it (the checks done so far stay); so does Esc."""
        checked: set[str] = set()
        citing = sum(1 for outcome in result.outcomes if outcome.response.citations)

        def progress(provider_id: str) -> None:
            checked.add(provider_id)
            self.provider_checked(provider_id)
            self.set_hint(f"Checking citations: {len(checked)}/{citing} providers")

        self.checks_started(result)
        self.set_hint(f"Checking citations: 0/{citing} providers")
        try:
            await self.session.verify(result, on_checked=progress)
        finally:
            self.checks_ended(result)  # cancelled: whoever cancelled it says what happens now
        self.set_hint(
            f"Citations checked: {tally_text(result) or 'none'}. v on a citation shows its page at the passage."
        )

    def checks_callback(
        self, result: SearchResult, progress: Callable[[], str], current: Callable[[], bool]
    ) -> Callable[[str | None], None]:
        """An ``on_checked`` for :meth:`Session.run` with ``verify``: ``None`` starts the checks of
        ``result``, a provider id shows that provider's; the hint shows ``progress()``. Nothing is
        shown once ``current()`` is False (another search is on screen)."""

        def checked(provider_id: str | None) -> None:
            if not current() or not self.is_attached:
                return
            if provider_id is None:
                self.checks_started(result)
            else:
                self.provider_checked(provider_id)
            self.set_hint(progress())

        return checked

    def checks_started(self, result: SearchResult) -> None:
        """Every pane whose answer cites pages says its citations are being checked."""
        self.checking = True
        for outcome in result.outcomes:
            pane = self.pane_area.pane(outcome.provider)
            if pane is not None and outcome.response.citations:
                pane.show_checks(checking=True)
        self.refresh_bindings()

    def provider_checked(self, provider_id: str) -> None:
        """``provider_id``'s citations are checked: its pane and the merged view show the marks."""
        pane = self.pane_area.pane(provider_id)
        if pane is None or not pane.is_attached:
            return
        pane.show_checks()
        self.pane_area.note_sources(pane.response)
        self.pane_area.refresh_merged()

    def checks_ended(self, result: SearchResult) -> None:
        """The checks of ``result`` ended (done or stopped): no pane says "checking" any more."""
        self.checking = False
        if not self.is_attached:
            return
        for outcome in result.outcomes:
            pane = self.pane_area.pane(outcome.provider)
            if pane is not None and pane.is_attached:
                pane.show_checks()
        self.refresh_bindings()

    # --- reading -----------------------------------------------------------------------------

    @on(ReadRequested)
    def _on_read(self, event: ReadRequested) -> None:
        """``v`` on a source, a citation or a merged row: read its page in the reader view."""
        event.stop()
        from websearch_tui.tui.reader.screen import ReaderScreen  # first used here, not at start-up

        self.app.push_screen(ReaderScreen(self.session, event.request))
