"""The reader view: one page's main content, read and shown inside the app.

Opened with ``v`` on a source, a citation or a merged row (:class:`~websearch_tui.tui.reader.request.ReadRequest`).
The page is read through the session (:meth:`Session.read_page <websearch_tui.session.Session.read_page>`:
the SSRF guard, ``[reader]`` limits, main-text extraction) in a worker, and shown as Markdown by our
answer widget (:class:`~websearch_tui.tui.reader.page_view.PageView`) under a header with its title,
site, author, date and final URL. While it loads the status line says "Reading <url>…"; a page that
cannot be read shows the reader's reason and message, nothing raw. A long page is shown in parts of
:data:`PART_CHARS` characters, and the status line says how much is shown (PgDn at the end, or ``m``,
shows the next part): it is never cut silently. ``/`` finds text in the page (Enter or ``n`` the next
match, ``N`` the previous; a match beyond the part shown brings in the text up to it), ``c`` copies the
selected text, or the passage in view, with the page's URL, ``o`` opens the page in the browser, Esc
goes back. Opened from a citation with a check, the check's passage is highlighted and scrolled into view.
"""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from websearch_tui.core.pages import Page, PageError
from websearch_tui.session import Session
from websearch_tui.tui.common.answer_view import AnswerView
from websearch_tui.tui.common.check_marks import check_summary
from websearch_tui.tui.common.keys_footer import KeysFooter
from websearch_tui.tui.common.links import copy_text, open_url_safely
from websearch_tui.tui.common.safe import clean, plain
from websearch_tui.tui.common.safe_input import SafeInput
from websearch_tui.tui.common.screen import AppScreen
from websearch_tui.tui.reader.locate import Hit, cut_point, passage_offset, text_find
from websearch_tui.tui.reader.page_view import PageView
from websearch_tui.tui.reader.request import ReadRequest

PART_CHARS = 40_000
"""How many characters of a page are shown at first, and added by each "more" (cut at a paragraph
break): rendering is done on the event loop, so a page of megabytes is shown a part at a time."""
TITLE_CHARS = 300
URL_CHARS = 400


class PageScroll(VerticalScroll):
    """The scrolling page: PgDn at its end asks for the next part of a long page (:class:`PageScroll.AtEnd`)."""

    class AtEnd(Message):
        """PgDn was pressed with the end of the text in view."""

    def action_page_down(self) -> None:
        """A page down; at the end, ask for more."""
        if self.scroll_y >= self.max_scroll_y:
            self.post_message(self.AtEnd())
        super().action_page_down()


class ReaderScreen(AppScreen[None]):
    """Read ``request``'s page (see the module docstring).

    Args:
        session: reads the page (:meth:`Session.read_page`).
        request: the page, what the provider called it, and the citation that opened it (if any).
    """

    BINDINGS = [
        Binding(
            "escape", "close", "Back", id="reader-close", tooltip="Back to the search (Esc in the find box closes it)"
        ),
        Binding("slash", "find", "Find", id="reader-find", tooltip="Find text in the page; Enter or n: the next match"),
        Binding("n", "find_next(1)", "Next match", id="reader-find-next", tooltip="The next match of the text found"),
        Binding("N", "find_next(-1)", "Previous match", show=False, id="reader-find-previous"),
        Binding(
            "c",
            "copy",
            "Copy",
            id="reader-copy",
            tooltip="Copy the selected text or, with nothing selected, the passage in view, with the page's URL",
        ),
        Binding("o", "open", "Open", id="reader-open", tooltip="Open the page in the browser"),
        Binding(
            "m", "more", "More", id="reader-more", tooltip="Show the next part of a long page (PgDn at its end too)"
        ),
    ]

    TYPED_KEY_ACTIONS = frozenset({"find", "find_next", "copy", "open", "more"})
    """Actions on printable keys: in the find box the key is typed instead (and not offered in the footer)."""

    DEFAULT_CSS = """
    ReaderScreen { layout: vertical; }
    ReaderScreen #reader-head { height: auto; padding: 0 1; background: $boost; }
    ReaderScreen #reader-title { text-style: bold; }
    ReaderScreen #reader-meta, ReaderScreen #reader-url { color: $text-muted; }
    ReaderScreen #reader-check { height: auto; }
    ReaderScreen #reader-status { height: auto; padding: 0 1; color: $text-muted; }
    ReaderScreen #reader-status.-error { color: $text-error; }
    ReaderScreen #reader-find-row { height: auto; display: none; }
    ReaderScreen #reader-find-row.-shown { display: block; }
    ReaderScreen #reader-find { width: 1fr; }
    ReaderScreen #reader-found { width: auto; padding: 0 1; color: $text-muted; }
    ReaderScreen #reader-body { height: 1fr; padding: 0 1; }
    """

    def __init__(self, session: Session, request: ReadRequest) -> None:
        super().__init__()
        self.session = session
        self.request = request
        self.page: Page | None = None
        """The page once read."""
        self.error: PageError | None = None
        """Why it could not be read, when it could not."""
        self._shown = 0
        self._notes: list[str] = []
        self._status = f"Reading {clean(request.url, one_line=True, limit=URL_CHARS)}…"

    # --- composition ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """The header (title, site · author · date, URL, the citation's check), the status line, the
        find box (hidden), the page and the footer."""
        request = self.request
        with Vertical(id="reader-head"):
            yield Static(self._title_text(request.title or request.url), id="reader-title")
            yield Static(Content(""), id="reader-meta")
            yield Static(plain(request.url, one_line=True, limit=URL_CHARS), id="reader-url")
            yield Static(self._check_text(), id="reader-check")
        yield Static(plain(self._status), id="reader-status")
        with Horizontal(id="reader-find-row"):
            yield SafeInput(
                placeholder="Find in the page (Enter: next match, Esc: close)", id="reader-find", compact=True
            )
            yield Static(Content(""), id="reader-found")
        with PageScroll(id="reader-body"):
            yield PageView(id="reader-page")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        """Focus the page and start reading it."""
        self.body.focus()
        self.query_one("#reader-meta").display = False
        self.query_one("#reader-check").display = self._check_text().plain != ""
        self._read()

    @property
    def body(self) -> PageScroll:
        """The scrolling page."""
        return self.query_one("#reader-body", PageScroll)

    @property
    def page_view(self) -> PageView:
        """The page's text."""
        return self.query_one("#reader-page", PageView)

    @property
    def find_input(self) -> Input:
        """The find box."""
        return self.query_one("#reader-find", Input)

    @property
    def status_text(self) -> str:
        """The status line's text (plain)."""
        return self._status

    @staticmethod
    def _title_text(title: str) -> Content:
        return plain(title, "bold", one_line=True, limit=TITLE_CHARS)

    def _check_text(self) -> Content:
        """The citation's check and what the answer claimed with it (empty when no citation opened it)."""
        citation = self.request.citation
        if citation is None:
            return Content("")
        lines: list[Content] = []
        if citation.check is not None:
            lines.append(check_summary(citation.check, limit=None))
        cited = clean(citation.cited_text, one_line=True, limit=600)
        if cited:
            lines.append(Content.assemble(Content.styled("Cited for: ", "dim"), Content.styled(f"“{cited}”", "italic")))
        return Content("\n").join(lines)

    # --- reading ---------------------------------------------------------------------------

    @work(exclusive=True, group="read", exit_on_error=False, description="reading a page")
    async def _read(self) -> None:
        """Read the page and show it, or why it could not be read."""
        try:
            page = await self.session.read_page(self.request.url)
        except PageError as exc:
            self._show_error(exc)
            return
        except Exception:
            self._set_status("Could not read the page: an internal error (details in the log file).", error=True)
            raise
        await self._show_page(page)

    def _show_error(self, error: PageError) -> None:
        self.error = error
        reason = error.reason.value.replace("_", " ")
        self._set_status(f"Could not read the page ({reason}): {error.message}", error=True)

    async def _show_page(self, page: Page) -> None:
        """Show ``page``: its facts in the header, its first part (up to the check's passage when that
        lies further) in the view, the passage highlighted and scrolled into view."""
        self.page = page
        self.query_one("#reader-title", Static).update(self._title_text(page.title or self.request.title or page.url))
        meta = [part for part in (page.site, page.author, page.published_date) if part]
        self.query_one("#reader-meta", Static).update(plain(" · ".join(meta), one_line=True, limit=URL_CHARS))
        self.query_one("#reader-meta").display = bool(meta)
        self.query_one("#reader-url", Static).update(plain(page.final_url, one_line=True, limit=URL_CHARS))
        passage = self._passage()
        start: int | None = None
        if passage and len(page.text) > PART_CHARS:
            start = await asyncio.to_thread(passage_offset, page.text, passage)
        self._shown = cut_point(page.text, 0, max(PART_CHARS, (start or 0) + PART_CHARS // 2))
        view = self.page_view
        view.show_text(page.text[: self._shown])
        view.set_passage(passage)
        self._show_extent()
        if passage:
            self.call_after_refresh(self._go_to_passage)

    def _passage(self) -> str | None:
        citation = self.request.citation
        return citation.check.passage if citation is not None and citation.check is not None else None

    def _go_to_passage(self) -> None:
        hits = self.page_view.passage_hits
        if hits:
            self.scroll_to_hit(hits[0], center=True)
            self._notes = ["The cited passage is highlighted."]
        else:
            self._notes = ["The cited passage was not found in the text as shown."]
        self._show_extent()

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self._status = text
        status = self.query_one("#reader-status", Static)
        status.update(plain(text))
        status.set_class(error, "-error")

    def _show_extent(self) -> None:
        """Say how much of the page is shown (and whether the reader read all of it)."""
        page = self.page
        if page is None:
            return
        total = len(page.text)
        if self._shown < total:
            parts = [f"Showing the first {self._shown:,} of {total:,} characters; PgDn at the end (or m) shows more."]
        else:
            parts = [f"{page.word_count:,} words · {total:,} characters."]
        if page.truncated:
            parts.append("The page is longer than the reader reads ([reader] max_bytes): only its start was read.")
        self._set_status(" ".join(parts + self._notes))

    @property
    def more(self) -> bool:
        """True while part of the page's text is not shown yet."""
        return self.page is not None and self._shown < len(self.page.text)

    def show_more(self, until: int = 0) -> bool:
        """Show the next part of the page (at least up to character ``until``); False when all of it
        is shown already."""
        page = self.page
        if page is None or not self.more:
            return False
        end = cut_point(page.text, self._shown, max(PART_CHARS, until - self._shown + PART_CHARS // 2))
        self.page_view.add_text(page.text[self._shown : end])
        self._shown = end
        self._show_extent()
        self.refresh_bindings()
        return True

    @on(PageScroll.AtEnd)
    def _on_end(self, event: PageScroll.AtEnd) -> None:
        event.stop()
        self.show_more()

    def action_more(self) -> None:
        """Show the next part of a long page (``m``)."""
        if not self.show_more():
            self.notify("The whole page is shown.", markup=False, timeout=2)

    # --- finding -----------------------------------------------------------------------------

    def action_find(self) -> None:
        """Show the find box and focus it (``/``)."""
        self.query_one("#reader-find-row").add_class("-shown")
        self.find_input.focus()

    @on(Input.Changed, "#reader-find")
    def _on_find_changed(self, event: Input.Changed) -> None:
        """Find as the term is typed: the first match from the top of the view on is current."""
        event.stop()
        view = self.page_view
        view.set_term(event.value.strip())
        self._go_to_match(self._first_in_view())

    @on(Input.Submitted, "#reader-find")
    def _on_find_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_find_next(1)

    def action_find_next(self, step: int) -> None:
        """The next match (``n``, Enter in the find box; ``N``: the previous), wrapping around; a match
        in the part of a long page not shown yet brings the text in up to it."""
        view = self.page_view
        if not view.term:
            self.action_find()
            return
        matches = view.matches
        if view.current is None:
            index = self._first_in_view() if step > 0 else len(matches) - 1
        else:
            index = view.current + step
        if step > 0 and (index is None or index >= len(matches)) and self._more_has(view.term):
            index = len(matches)
        elif matches and index is not None and not 0 <= index < len(matches):
            self.notify("Search wrapped around.", markup=False, timeout=2)
        self._go_to_match(index)

    def _more_has(self, term: str) -> bool:
        """Bring in the text up to the next place ``term`` is in the part not shown; False when it is
        not there."""
        page = self.page
        if page is None or not self.more:
            return False
        found = text_find(page.text, term, self._shown)
        return found is not None and self.show_more(found + len(term))

    def _first_in_view(self) -> int | None:
        """The index of the first match at or below the top of the view (else the first)."""
        matches = self.page_view.matches
        if not matches:
            return None
        top = round(self.body.scroll_y) - self.page_view.virtual_region.y
        return next((index for index, hit in enumerate(matches) if hit.line >= top), 0)

    def _go_to_match(self, index: int | None) -> None:
        """Make match ``index`` current, scroll it into view and say which it is."""
        view = self.page_view
        hit = view.select(index)
        count = len(view.matches)
        found = self.query_one("#reader-found", Static)
        if not view.term:
            found.update(Content(""))
        elif hit is None or view.current is None:
            found.update(plain("no match" + (" in the part shown" if self.more else "")))
        else:
            found.update(plain(f"{view.current + 1} of {count}" + ("+" if self.more else "")))
            self.call_after_refresh(self.scroll_to_hit, hit)

    def scroll_to_hit(self, hit: Hit, *, center: bool = False) -> None:
        """Scroll line ``hit.line`` of the page into view (a third down the view, or centred)."""
        body = self.body
        y = self.page_view.virtual_region.y + hit.line
        height = body.scrollable_content_region.height
        top = round(body.scroll_y)
        if center or not top <= y < top + height:
            body.scroll_to(y=max(0, y - (height // 2 if center else height // 3)), animate=False, immediate=True)

    # --- copying, opening, closing -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The printable keys type in the find box; ``m`` is offered while part of the page is not shown."""
        if action in self.TYPED_KEY_ACTIONS and isinstance(self.focused, Input):
            return False
        if action == "more":
            return self.more
        return True

    def _url(self) -> str:
        return self.page.final_url if self.page is not None else self.request.url

    def action_copy(self) -> None:
        """Copy the selected text or, with nothing selected, the lines in view, with the page's URL."""
        selected = (self.get_selected_text() or "").strip()
        if selected:
            what = "the selected text"
        else:
            view = self.page_view
            top = max(0, round(self.body.scroll_y) - view.virtual_region.y)
            lines = list(view.plain_lines())[top : top + self.body.scrollable_content_region.height]
            selected = "\n".join(line.rstrip() for line in lines).strip()
            what = "the passage in view"
        if not selected:
            self.notify("Nothing to copy yet.", severity="warning", markup=False)
            return
        text = f"{selected}\n\n{clean(self._url(), one_line=True)}"
        copy_text(self.app, text, f"{what} ({len(selected):,} characters) with its URL")

    def action_open(self) -> None:
        """Open the page in the browser."""
        open_url_safely(self.app, self._url())

    @on(AnswerView.LinkClicked)
    def _on_link(self, event: AnswerView.LinkClicked) -> None:
        event.stop()
        open_url_safely(self.app, event.href)

    def action_close(self) -> None:
        """Esc: close the find box when it has the focus, else go back."""
        if self.find_input.has_focus:
            self.query_one("#reader-find-row").remove_class("-shown")
            self.body.focus()
            return
        self.dismiss(None)
