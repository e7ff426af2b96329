"""Numbered sources and citations of one provider pane.

Every string comes from a provider, so it is sanitized and shown as :class:`Content` (never
parsed as markup). The sources and the citations are each one
:class:`~websearch_tui.tui.common.line_list.LineList` with a cursor, so ``o`` / ``c`` / ``v`` on the
pane act on the source under it, and Enter (or ``v``) on a citation reads its page. A checked
citation shows its mark (``✓ quoted``, ``✗ not supported``, ...) and the reason; the heading above
the citations says how many check out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.binding import Binding
from textual.content import Content

from websearch_tui.core.models import Citation, SearchResponse, Source
from websearch_tui.core.text import canonical_url, format_age, host_of, sanitize
from websearch_tui.tui.common.check_marks import check_summary, tally_words
from websearch_tui.tui.common.line_list import LineList
from websearch_tui.tui.common.safe import clean, plain
from websearch_tui.tui.reader.request import ReadRequest, ReadRequested

SNIPPET_CHARS = 300
TITLE_CHARS = 200


def age_text(published_date: str | None, age_seconds: int | None) -> str:
    """``format_age(age_seconds)`` or, failing that, the provider's raw date text (one line)."""
    return format_age(age_seconds) or clean(published_date, one_line=True, limit=40)


def source_age(source: Source) -> str:
    """The age of ``source`` as :func:`age_text` gives it."""
    return age_text(source.date_text, source.age_seconds)


def render_source(index: int, source: Source, others: int = 0) -> Content:
    """The three-line :class:`Content` of source number ``index`` (1-based); ``others`` (> 0) is how
    many other providers found the same page, shown as ``+2`` after the title."""
    title = plain(source.title or source.url, "bold", one_line=True, limit=TITLE_CHARS)
    details = [part for part in (host_of(sanitize(source.url)), source_age(source)) if part]
    parts: list[Content | str] = [Content.styled(f"[{index}] ", "bold $accent"), title]
    if others:
        parts.append(Content.styled(f" +{others}", "bold $text-success"))
    if details:
        parts += ["\n    ", Content.styled(" · ".join(details), "dim")]
    snippet = clean(source.snippet, one_line=True, limit=SNIPPET_CHARS)
    if snippet:
        parts += ["\n    ", Content(snippet)]
    return Content.assemble(*parts)


class SourceList(LineList):
    """The numbered sources of one pane (each as :func:`render_source` gives it), drawn by one widget;
    Up / Down move the cursor, and ``o`` / ``c`` on the pane act on the source under it.
    :meth:`set_sources` shows the sources as they arrive."""

    BINDINGS = [
        Binding("down", "step(1)", "Next source", show=False, id="source-next"),
        Binding("up", "step(-1)", "Previous source", show=False, id="source-previous"),
    ]

    GAP = 1

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._sources: tuple[Source, ...] = ()
        self._counts: tuple[int, ...] = ()

    @property
    def sources(self) -> tuple[Source, ...]:
        """The sources shown, in order."""
        return self._sources

    @property
    def selected(self) -> Source | None:
        """The source under the cursor (None when there is none)."""
        return self._sources[self.cursor] if self._sources else None

    def set_sources(self, sources: Sequence[Source], others: Mapping[str, int] | None = None) -> None:
        """Show ``sources`` numbered from 1 (nothing is drawn again when they and their counts are
        unchanged); ``others`` maps a canonical URL (:func:`~websearch_tui.core.text.canonical_url`) to
        how many other providers found that page."""
        counts = tuple(others.get(canonical_url(s.url), 0) for s in sources) if others else (0,) * len(sources)
        if (tuple(sources), counts) == (self._sources, self._counts):
            return
        self._sources, self._counts = tuple(sources), counts
        self.set_rows([render_source(i, s, n) for i, (s, n) in enumerate(zip(sources, counts, strict=True), start=1)])

    def index_of(self, url: str) -> int | None:
        """The index of the source that is the page ``url`` (compared canonically), if it is listed."""
        key = canonical_url(url)
        return next((i for i, source in enumerate(self._sources) if canonical_url(source.url) == key), None)


def render_citation(index: int, citation: Citation) -> Content:
    """Citation number ``index`` (1-based): ``[i] title — host``, then on indented lines the cited
    text and, once checked, the check's mark and reason (``✗ not supported: page says 3,000, claim
    says 30,000``)."""
    title = plain(citation.title or citation.url, one_line=True, limit=TITLE_CHARS)
    host = host_of(sanitize(citation.url))
    parts: list[Content | str] = [Content.styled(f"[{index}] ", "bold $accent"), title]
    if host:
        parts += [" ", Content.styled(f"— {host}", "dim")]
    cited = clean(citation.cited_text, one_line=True, limit=240)
    if cited:
        parts += ["\n    ", Content.styled(f"“{cited}”", "italic dim")]
    if citation.check is not None:
        parts += ["\n    ", check_summary(citation.check)]
    return Content.assemble(*parts)


def citations_heading(response: SearchResponse, *, checking: bool = False) -> Content:
    """The heading above a pane's citations: ``Citations``, then ``· checking against their pages…``
    while they are checked, or how many check out (``· 4 of 5 citations check out``)."""
    tally = response.check_tally()
    if checking:
        return Content.assemble("Citations", Content.styled(" · checking against their pages…", "dim"))
    if tally is None:
        return Content("Citations")
    style = "$text-success" if tally[0] == tally[1] else "$text-warning"
    return Content.assemble("Citations", Content.styled(f" · {tally_words(*tally)}", style))


class CitationList(LineList):
    """Citations linking the answer to sources, one row each (see :func:`render_citation`), drawn by
    one widget; Up / Down move the cursor, Enter reads the page of the citation under it (opened at
    its check's passage). Hidden when there are none."""

    BINDINGS = [
        Binding("enter", "read", "Read", id="citation-read", tooltip="Read the cited page, at the checked passage"),
        Binding("down", "step(1)", "Next citation", show=False, id="citation-next"),
        Binding("up", "step(-1)", "Previous citation", show=False, id="citation-previous"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._citations: tuple[Citation, ...] = ()

    @property
    def citations(self) -> tuple[Citation, ...]:
        """The citations shown, in order."""
        return self._citations

    @property
    def selected(self) -> Citation | None:
        """The citation under the cursor (None when there is none)."""
        return self._citations[self.cursor] if self._citations else None

    def set_citations(self, citations: Sequence[Citation]) -> None:
        """Show ``citations`` (hidden when there are none; nothing is drawn again when unchanged, a
        check that arrived included)."""
        if tuple(citations) != self._citations:
            self._citations = tuple(citations)
            self.set_rows([render_citation(i, citation) for i, citation in enumerate(citations, start=1)])
        self.display = bool(citations)

    def action_read(self) -> None:
        """Read the page of the citation under the cursor (:class:`ReadRequested`)."""
        citation = self.selected
        if citation is not None:
            self.post_message(ReadRequested(ReadRequest(citation.url, citation.title, citation)))
