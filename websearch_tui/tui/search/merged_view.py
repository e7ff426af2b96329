"""The merged view: every source of the search once, ranked, with who found it and which answers cite it.

Rows come from :class:`~websearch_tui.core.merge.SourceMerger` (reciprocal rank fusion over each
provider's order plus a weight per citing answer). Each row shows the title, the domain and age,
``found by 3 · Brave Search, Tavily, Exa`` and ``cited by Perplexity [2]``; ``o`` / ``c`` open or
copy the highlighted source, Enter posts :class:`MergedView.Jump` (the screen shows that source in
the pane of the provider that ranked it best), and the filter narrows the rows by domain or text.
Provider text reaches the screen only as sanitized :class:`Content`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from websearch_tui.core.merge import MergedSource
from websearch_tui.core.text import host_of
from websearch_tui.tui.common.links import copy_source, open_source
from websearch_tui.tui.common.safe import clean, plain
from websearch_tui.tui.common.safe_input import SafeInput
from websearch_tui.tui.search.source_list import TITLE_CHARS, age_text

Labeller = Callable[[str], str]
"""Provider id -> display label."""


def row_content(index: int, row: MergedSource, label: Labeller) -> Content:
    """The two or three lines of one merged row: ``[i] title``, ``domain · age · found by N · labels``
    and, when answers cite it, ``cited by Label [n], ...``."""
    title = plain(row.title, "bold", one_line=True, limit=TITLE_CHARS)
    found = f"found by {len(row.ranks)} · {', '.join(label(pid) for pid in row.ranks)}" if row.ranks else ""
    details = [part for part in (host_of(row.link), age_text(row.date_text, row.age_seconds), found) if part]
    parts: list[Content | str] = [Content.styled(f"[{index}] ", "bold $accent"), title]
    if details:
        parts += ["\n    ", Content.styled(clean(" · ".join(details), one_line=True), "dim")]
    if row.cited_by:
        cited = ", ".join(f"{label(pid)} [{', '.join(map(str, numbers))}]" for pid, numbers in row.cited_by.items())
        parts += ["\n    ", Content.styled(f"cited by {clean(cited, one_line=True)}", "$text-success")]
    return Content.assemble(*parts)


def matches(row: MergedSource, needle: str) -> bool:
    """True when ``needle`` (case-folded) is in the row's domain, URL, title or snippet."""
    if not needle:
        return True
    haystack = " ".join((host_of(row.link), row.link, row.title, row.snippet or "")).casefold()
    return needle.casefold() in haystack


class MergedView(Vertical):
    """One ranked list of every source of the current search (see the module docstring).

    Args:
        label: provider id -> display label.
    """

    class Jump(Message):
        """Show ``url`` in the pane of ``provider`` (the provider that ranked it best)."""

        def __init__(self, url: str, provider: str) -> None:
            super().__init__()
            self.url = url
            self.provider = provider

    BINDINGS = [
        Binding("o", "open_source", "Open source", id="merged-open-source", tooltip="Open the highlighted source"),
        Binding("c", "copy_source", "Copy URL", id="merged-copy-url", tooltip="Copy the highlighted source's URL"),
    ]

    DEFAULT_CSS = """
    MergedView { height: 1fr; width: 1fr; min-width: 20; }
    MergedView > #merged-filter { margin: 0 0 0 0; }
    MergedView > #merged-summary { height: 1; padding: 0 1; color: $text-muted; }
    MergedView > OptionList { height: 1fr; border: none; padding: 0 1; }
    """

    def __init__(self, label: Labeller, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="merged-view")
        self._label = label
        self._rows: list[MergedSource] = []
        self._shown: list[MergedSource] = []
        self.border_title = Content("Merged")

    def compose(self) -> ComposeResult:
        """Filter, summary line, the rows."""
        yield SafeInput(placeholder="Filter by domain or text", id="merged-filter", compact=True)
        yield Static(Content("No sources yet."), id="merged-summary")
        yield OptionList(id="merged-rows", markup=False)

    @property
    def rows(self) -> list[MergedSource]:
        """The rows shown now (after the filter), best first."""
        return list(self._shown)

    def show_rows(self, rows: Sequence[MergedSource]) -> None:
        """Show ``rows`` (best first), keeping the filter and the highlighted source."""
        self._rows = list(rows)
        self._refill()

    def _refill(self) -> None:
        needle = self.query_one("#merged-filter", Input).value.strip()
        shown = [row for row in self._rows if matches(row, needle)]
        options = self.query_one("#merged-rows", OptionList)
        highlighted = self._highlighted()
        if [r.to_dict() for r in shown] != [r.to_dict() for r in self._shown]:
            self._shown = shown
            options.set_options(Option(row_content(i, row, self._label), id=row.url) for i, row in enumerate(shown, 1))
            ids = [row.url for row in shown]
            if highlighted is not None and highlighted.url in ids:
                options.highlighted = ids.index(highlighted.url)
        agreed = sum(1 for row in self._rows if len(row.ranks) > 1)
        cited = sum(1 for row in self._rows if row.cited_by)
        summary = f"{len(self._rows)} sources · {agreed} found by several providers · {cited} cited"
        if needle:
            summary = f"{len(shown)} of {summary}"
        self.query_one("#merged-summary", Static).update(plain(summary) if self._rows else plain("No sources yet."))

    def _highlighted(self) -> MergedSource | None:
        index = self.query_one("#merged-rows", OptionList).highlighted
        return self._shown[index] if index is not None and 0 <= index < len(self._shown) else None

    @on(Input.Changed, "#merged-filter")
    def _on_filter(self, event: Input.Changed) -> None:
        event.stop()
        self._refill()

    @on(Input.Submitted, "#merged-filter")
    def _on_filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#merged-rows", OptionList).focus()

    @on(OptionList.OptionSelected, "#merged-rows")
    def _on_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self._shown[event.option_index]
        if row.ranks:
            self.post_message(self.Jump(row.link, next(iter(row.ranks))))
        else:
            self.notify("Only answers cite this source; no pane lists it.", markup=False, timeout=3)

    def focus_rows(self) -> None:
        """Focus the row list (the first row highlighted)."""
        options = self.query_one("#merged-rows", OptionList)
        options.focus()
        if options.highlighted is None and options.option_count:
            options.highlighted = 0

    def _highlighted_link(self) -> str | None:
        row = self._highlighted()
        return row.link if row is not None else None

    def action_open_source(self) -> None:
        """Open the highlighted source in the browser (http/https only)."""
        open_source(self.app, self._highlighted_link())

    def action_copy_source(self) -> None:
        """Copy the highlighted source's URL (http/https only)."""
        copy_source(self.app, self._highlighted_link())
