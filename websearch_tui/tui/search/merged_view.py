"""The merged view: every source of the search once, ranked, with who found it and which answers cite it.

Rows come from :class:`~websearch_tui.core.merge.SourceMerger` (reciprocal rank fusion over each
provider's order plus a weight per citing answer). Each row shows the title, the domain and age,
``found by 3 · Brave Search, Tavily, Exa`` (``found by 3 (2 indexes) · ...`` when some of them share
one search index) and ``cited by Perplexity [2]`` (with each checked
citation's mark: ``cited by Perplexity [2] ✓ quoted``); ``o`` / ``c`` open or copy the highlighted
source, ``v`` reads it in the reader view, Enter posts :class:`MergedView.Jump` (the screen shows that
source in the pane of the provider that ranked it best), and the filter narrows the rows by domain or text.
Provider text reaches the screen only as sanitized :class:`Content`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import on
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from websearch_tui.core.merge import MergedSource
from websearch_tui.core.models import Citation
from websearch_tui.core.text import host_of
from websearch_tui.tui.common.check_marks import check_mark
from websearch_tui.tui.common.links import copy_source, open_source
from websearch_tui.tui.common.safe import clean, plain
from websearch_tui.tui.common.safe_input import SafeInput
from websearch_tui.tui.reader.request import ReadRequest, ReadRequested

Labeller = Callable[[str], str]
"""Provider id -> display label."""
CitationLookup = Callable[[str, int], "Citation | None"]
"""``(provider id, citation number from 1)`` -> that provider's citation, if it has one so numbered."""


def no_citation(provider_id: str, number: int) -> Citation | None:
    """A :data:`CitationLookup` that knows no citation."""
    return None


def cited_content(row: MergedSource, label: Labeller, citation: CitationLookup = no_citation) -> Content:
    """``cited by Perplexity [2], Gemini [1, 3]``; a checked citation's number followed by its mark
    (``Perplexity [2] ✓ quoted``)."""
    groups = []
    for pid, numbers in row.cited_by.items():
        checks = [found.check if (found := citation(pid, number)) is not None else None for number in numbers]
        name = clean(label(pid), one_line=True)
        if not any(checks):
            groups.append(Content.styled(f"{name} [{', '.join(map(str, numbers))}]", "$text-success"))
            continue
        pieces: list[Content | str] = [Content.styled(name, "$text-success")]
        for number, check in zip(numbers, checks, strict=True):
            pieces += [" ", Content.styled(f"[{number}]", "$text-success")]
            if check is not None:
                pieces += [" ", check_mark(check)]
        groups.append(Content.assemble(*pieces))
    return Content.assemble(Content.styled("cited by ", "$text-success"), Content(", ").join(groups))


def row_content(index: int, row: MergedSource, label: Labeller, citation: CitationLookup = no_citation) -> Content:
    """The two or three lines of one merged row: ``[i] title``, ``domain · age · found by N · labels``
    (``found by N (M indexes)`` when they share indexes: :attr:`MergedSource.found_by`)
    and, when answers cite it, ``cited by Label [n], ...`` (see :func:`cited_content`)."""
    from websearch_tui.tui.search.source_list import TITLE_CHARS, age_text  # its lists are not in the first frame

    title = plain(row.title, "bold", one_line=True, limit=TITLE_CHARS)
    found = f"{row.found_by} · {', '.join(label(pid) for pid in row.ranks)}" if row.ranks else ""
    details = [part for part in (host_of(row.link), age_text(row.date_text, row.age_seconds), found) if part]
    parts: list[Content | str] = [Content.styled(f"[{index}] ", "bold $accent"), title]
    if details:
        parts += ["\n    ", Content.styled(clean(" · ".join(details), one_line=True), "dim")]
    if row.cited_by:
        parts += ["\n    ", cited_content(row, label, citation)]
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
        citation: a provider's citation by number (for the marks of checked citations, and the
            passage ``v`` opens the reader at).
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
        Binding(
            "v",
            "read",
            "Read",
            id="merged-read",
            tooltip="Read the highlighted source in the reader view (at a checked citation's passage)",
        ),
    ]

    DEFAULT_CSS = """
    MergedView { height: 1fr; width: 1fr; min-width: 20; }
    MergedView > #merged-filter { margin: 0 0 0 0; }
    MergedView > #merged-summary { height: 1; padding: 0 1; color: $text-muted; }
    MergedView > OptionList { height: 1fr; border: none; padding: 0 1; }
    """

    def __init__(self, label: Labeller, *, citation: CitationLookup = no_citation, id: str | None = None) -> None:
        super().__init__(id=id, classes="merged-view")
        self._label = label
        self._citation = citation
        self._rows: list[MergedSource] = []
        self._shown: list[MergedSource] = []
        self._shown_key: list[tuple[dict[str, object], tuple[object, ...]]] = []
        self.border_title = Content("Merged")

    def _build(self) -> None:
        """Mount the filter, the summary line and the rows, the first time rows are shown (the view is
        shown): a start, and a session that never shows the view, mount none of them."""
        if not self.children:
            self.mount(
                SafeInput(placeholder="Filter by domain or text", id="merged-filter", compact=True),
                Static(Content("No sources yet."), id="merged-summary"),
                OptionList(id="merged-rows", markup=False),
            )

    @property
    def rows(self) -> list[MergedSource]:
        """The rows shown now (after the filter), best first."""
        return list(self._shown)

    def show_rows(self, rows: Sequence[MergedSource]) -> None:
        """Show ``rows`` (best first), keeping the filter and the highlighted source."""
        self._rows = list(rows)
        self._build()
        self._refill()

    def _refill(self) -> None:
        needle = self.query_one("#merged-filter", Input).value.strip()
        shown = [row for row in self._rows if matches(row, needle)]
        options = self.query_one("#merged-rows", OptionList)
        highlighted = self._highlighted()
        key = [(r.to_dict(), self._verdicts(r)) for r in shown]
        if key != self._shown_key:
            self._shown, self._shown_key = shown, key
            options.set_options(
                Option(row_content(i, row, self._label, self._citation), id=row.url) for i, row in enumerate(shown, 1)
            )
            ids = [row.url for row in shown]
            if highlighted is not None and highlighted.url in ids:
                options.highlighted = ids.index(highlighted.url)
        agreed = sum(1 for row in self._rows if len(row.ranks) > 1)
        cited = sum(1 for row in self._rows if row.cited_by)
        summary = f"{len(self._rows)} sources · {agreed} found by several providers · {cited} cited"
        if needle:
            summary = f"{len(shown)} of {summary}"
        self.query_one("#merged-summary", Static).update(plain(summary) if self._rows else plain("No sources yet."))

    def _verdicts(self, row: MergedSource) -> tuple[object, ...]:
        """The verdicts of the checked citations of ``row`` (a row is drawn again when they change)."""
        found = (self._citation(pid, n) for pid, numbers in row.cited_by.items() for n in numbers)
        return tuple(c.check.verdict if c is not None and c.check is not None else None for c in found)

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

    def action_read(self) -> None:
        """Read the highlighted source in the reader view (``v``): at the passage of the first of its
        citations whose check found one (else of the first one checked)."""
        row = self._highlighted()
        if row is None:
            self.notify("No source to read.", severity="warning", markup=False)
            return
        found = [self._citation(pid, n) for pid, numbers in row.cited_by.items() for n in numbers]
        checked = [c for c in found if c is not None and c.check is not None]
        citation = next((c for c in checked if c.check is not None and c.check.passage), None)
        self.post_message(ReadRequested(ReadRequest(row.link, row.title, citation or next(iter(checked), None))))

    def action_copy_source(self) -> None:
        """Copy the highlighted source's URL (http/https only)."""
        copy_source(self.app, self._highlighted_link())
