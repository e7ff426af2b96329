"""Numbered sources and citations of one provider pane.

Every string comes from a provider, so it is sanitized and shown as :class:`Content` (never
parsed as markup). Sources are focusable so ``o`` / ``c`` on the pane act on the focused one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from websearch_tui.core.models import Citation, Source
from websearch_tui.core.text import canonical_url, format_age, host_of, sanitize
from websearch_tui.tui.safe import clean, plain
from websearch_tui.tui.widgets.stepping import SiblingStepper, release_focus

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


class SourceItem(SiblingStepper, Static, can_focus=True):
    """One numbered source; focus it and press ``o`` to open or ``c`` to copy its URL."""

    BINDINGS = [
        Binding("down", "step(1)", "Next source", show=False, id="source-next"),
        Binding("up", "step(-1)", "Previous source", show=False, id="source-previous"),
    ]

    DEFAULT_CSS = """
    SourceItem { height: auto; padding: 0 0 0 0; margin: 0 0 1 0; }
    """

    def __init__(self, index: int, source: Source, others: int = 0) -> None:
        super().__init__(render_source(index, source, others), markup=False)
        self.index = index
        self.source = source
        self.others = others

    def set_source(self, index: int, source: Source, others: int = 0) -> None:
        """Show ``source`` as number ``index``, found by ``others`` other providers too (no-op if unchanged)."""
        if (index, source, others) != (self.index, self.source, self.others):
            self.index, self.source, self.others = index, source, others
            self.update(render_source(index, source, others))

    @property
    def url(self) -> str:
        """The source URL as the provider sent it (checked again before opening or copying)."""
        return self.source.url


class SourceList(Vertical):
    """The numbered list of sources; :meth:`set_sources` updates it in place as sources arrive."""

    DEFAULT_CSS = """
    SourceList { height: auto; }
    """

    @property
    def items(self) -> list[SourceItem]:
        """The source widgets, in order."""
        return [child for child in self.children if isinstance(child, SourceItem)]

    def set_sources(self, sources: Sequence[Source], others: Mapping[str, int] | None = None) -> None:
        """Show ``sources`` numbered from 1, reusing existing items; ``others`` maps a canonical URL
        (:func:`~websearch_tui.core.text.canonical_url`) to how many other providers found that page."""
        items = self.items
        others = others or {}
        for index, source in enumerate(sources, start=1):
            count = others.get(canonical_url(source.url), 0)
            if index <= len(items):
                items[index - 1].set_source(index, source, count)
            else:
                self.mount(SourceItem(index, source, count))
        extras = items[len(sources) :]
        release_focus(extras, self)
        for extra in extras:
            extra.remove()


def render_citations(citations: Sequence[Citation]) -> Content:
    """Numbered citations: ``[i] title — host`` plus the cited text, indented."""
    lines: list[Content] = []
    for index, citation in enumerate(citations, start=1):
        title = plain(citation.title or citation.url, one_line=True, limit=TITLE_CHARS)
        host = host_of(sanitize(citation.url))
        line = Content.assemble(Content.styled(f"[{index}] ", "bold $accent"), title)
        if host:
            line = Content.assemble(line, " ", Content.styled(f"— {host}", "dim"))
        lines.append(line)
        cited = clean(citation.cited_text, one_line=True, limit=240)
        if cited:
            lines.append(Content.assemble("    ", Content.styled(f"“{cited}”", "italic dim")))
    return Content("\n").join(lines)


class CitationList(Static):
    """Citations linking the answer to sources (plain content, not focusable)."""

    DEFAULT_CSS = """
    CitationList { height: auto; }
    """

    def set_citations(self, citations: Sequence[Citation]) -> None:
        """Show ``citations`` (hidden when there are none)."""
        self.update(render_citations(citations))
        self.display = bool(citations)
