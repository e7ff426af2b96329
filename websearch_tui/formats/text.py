"""The plain-text report of a search (``search --format text``): pure, ``SearchResult`` in, ``str`` out."""

from __future__ import annotations

from websearch_tui.core.errors import safe_text
from websearch_tui.core.models import SearchResponse
from websearch_tui.core.results import SearchResult
from websearch_tui.core.text import truncate
from websearch_tui.formats.common import (
    checks_line,
    cost_total_line,
    dropped_sources_text,
    indented,
    plural,
    status_line,
)
from websearch_tui.formats.llm import check_parts, citation_views, llm_parts, same_as_sources, views_repeat_sources


def to_text(result: SearchResult) -> str:
    """A readable plain-text report: a status line per provider (with what its run cost), a ``Note:``
    line when results without a URL were dropped, then its LLM text block, whose citations say only
    what the sources do not (:func:`_reader_citation_parts`); last, for several providers, the
    search's total (``Cost: ≈ $0.021``, :func:`~websearch_tui.formats.common.cost_total_line`)."""
    blocks = []
    for outcome in result.outcomes:  # auto mode too: the failures before the winner are shown
        header = f"== {result.label(outcome.provider)} ({outcome.provider}): {status_line(outcome)}"
        dropped = outcome.response.dropped_sources
        if dropped:
            header += f"\nNote: {dropped_sources_text(dropped)}"
        body = "\n".join(llm_parts(outcome.response, _reader_citation_parts(outcome.response), dated=True))
        blocks.append(f"{header}\n{body}".rstrip())  # partial content of a failure too
    total = cost_total_line(result)
    return safe_text("\n\n".join([*blocks, total] if total else blocks))


def _reader_citation_parts(response: SearchResponse) -> list[str]:
    """The ``## Citations`` section of the plain-text report: one line when the citations repeat the
    sources (:func:`~websearch_tui.formats.llm.citations_repeat_sources`); else each citation, a
    listed source by its number (``[2] Title (source [3])``) and with its cited text only when that
    adds to the snippet."""
    views = citation_views(response)
    if not views:
        return []
    if views_repeat_sources(views):
        return ["\n## Citations", same_as_sources(len(views))]
    parts = ["\n## Citations", plural(len(views), "citation")]
    parts += [line for line in (checks_line(response),) if line]
    for index, view in enumerate(views, 1):
        citation = view.citation
        if view.source is not None:
            parts.append(f"[{index}] {citation.title or citation.url} (source [{view.source}])")
        else:
            parts.append(f"[{index}] {citation.title or citation.url}")
            if citation.url:
                parts.append(f"    {citation.url}")
        if view.quote:
            parts.append(indented(truncate(view.quote, 240)))
        parts += check_parts(citation)
    return parts
