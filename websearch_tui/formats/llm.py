"""The LLM text format (the seed format) of a response, an outcome and a search, the merged view an
agent reads, and the citation views the reader formats (text, Markdown) share.

``to_llm_text`` follows PROVIDERS.md §1.13 exactly (oh-my-pi's ``formatForLLM``). All functions are
pure: ``SearchResponse``, ``ProviderOutcome`` or ``SearchResult`` in, ``str`` out.
"""

from __future__ import annotations

from websearch_tui.core.errors import empty_message, safe_text
from websearch_tui.core.merge import MergedSource
from websearch_tui.core.models import Citation, SearchResponse
from websearch_tui.core.records import record
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.core.text import canonical_url, truncate
from websearch_tui.formats.common import (
    age_text,
    checks_line,
    cost_part,
    cost_total_line,
    indented,
    plural,
    visible_outcomes,
    when_published,
)


def to_llm_text(response: SearchResponse) -> str:
    """One provider's response in the seed LLM text format (notes, answer, sources, citations, ...).

    PROVIDERS.md §1.13 byte for byte, with one deliberate difference: the continuation lines of a
    multi-line snippet or cited text are indented like its first line (the seed leaves them at the
    left margin, where they read as a new entry)."""
    return safe_text(_llm_text(response))


def _llm_text(response: SearchResponse) -> str:
    """:func:`to_llm_text` before :func:`~websearch_tui.core.errors.safe_text` (for a caller that makes
    the whole text it is part of safe once)."""
    return "\n".join(llm_parts(response, _seed_citation_parts(response)))


def llm_parts(response: SearchResponse, citation_parts: list[str], *, dated: bool = False) -> list[str]:
    """The parts (lines or blocks of lines) of :func:`to_llm_text` around ``citation_parts`` (its
    ``## Citations`` section); with ``dated`` a source's date precedes its age (``(2024-07-25 · 14mo
    ago)``, the reader's report)."""
    parts: list[str] = [f"Note: {note}" for note in response.notes]
    answer = (response.answer or "").strip()
    if answer:
        parts.append(answer)
        if response.sources:
            parts.append("\n## Sources")
            parts.append(plural(len(response.sources), "source"))
    for index, source in enumerate(response.sources, 1):
        if dated:
            age = when_published(source.published_date, source.date_text, source.age_seconds)
        else:
            age = age_text(source.date_text, source.age_seconds)
        parts.append(f"[{index}] {source.title}" + (f" ({age})" if age else ""))
        parts.append(f"    {source.url}")
        if source.snippet:
            parts.append(indented(truncate(source.snippet, 240)))
    parts += citation_parts
    if response.related_questions:
        parts.append("\n## Related")
        parts.append(plural(len(response.related_questions), "question"))
        parts.extend(f"- {question}" for question in response.related_questions)
    if response.search_queries:
        parts.append(f"Search queries: {len(response.search_queries)}")
        parts.extend(f"- {truncate(query, 120)}" for query in response.search_queries[:3])
    return parts


def _seed_citation_parts(response: SearchResponse) -> list[str]:
    """The seed's ``## Citations`` section: every citation with its URL and cited text."""
    if not response.citations:
        return []
    parts = ["\n## Citations", plural(len(response.citations), "citation")]
    parts += [line for line in (checks_line(response),) if line]
    for index, citation in enumerate(response.citations, 1):
        parts.append(f"[{index}] {citation.title or citation.url}")
        parts.append(f"    {citation.url}")
        if citation.cited_text:
            parts.append(indented(truncate(citation.cited_text, 240)))
        parts += check_parts(citation)
    return parts


@record(frozen=True)
class CitationView:
    """A citation as the reader formats (text, Markdown) show it: ``source`` is the 1-based number
    of the listed source at the same URL (``None`` when it is not listed); ``quote`` is its cited
    text unless that only repeats the source's snippet."""

    citation: Citation
    source: int | None
    quote: str | None


def citation_views(response: SearchResponse) -> list[CitationView]:
    """Every citation of ``response`` (order and numbering kept) as :class:`CitationView`."""
    numbers: dict[str, int] = {}
    for index, source in enumerate(response.sources, 1):
        numbers.setdefault(canonical_url(source.url), index)
    views = []
    for citation in response.citations:
        number = numbers.get(canonical_url(citation.url)) if citation.url else None
        snippet = response.sources[number - 1].snippet if number is not None else None
        quote = citation.cited_text if citation.cited_text and citation.cited_text != snippet else None
        views.append(CitationView(citation, number, quote))
    return views


def citations_repeat_sources(response: SearchResponse) -> bool:
    """True when the citations add nothing to the sources: citation ``i`` is source ``i`` for every
    ``i`` and no cited text says more than that source's snippet (Perplexity's lists, for one).
    The reader formats then print one line for them instead of a second copy."""
    return views_repeat_sources(citation_views(response))


def views_repeat_sources(views: list[CitationView]) -> bool:
    """:func:`citations_repeat_sources` of these views (never when a citation was checked: its
    verdict is news)."""
    return bool(views) and all(
        view.source == index and view.quote is None and view.citation.check is None
        for index, view in enumerate(views, 1)
    )


def check_parts(citation: Citation) -> list[str]:
    """The indented lines of a citation's check: its verdict and reason, then the passage it rests
    on (cut to 240 characters); none when it was not checked."""
    check = citation.check
    if check is None:
        return []
    parts = [f"    {check.summary()}"]
    if check.passage:
        parts.append(indented(f"page: {truncate(check.passage, 240)}"))
    return parts


def same_as_sources(count: int, *, brackets: bool = True) -> str:
    """``"4 citations: sources [1]-[4], in the same order"`` (one: ``"1 citation: source [1]"``);
    without ``brackets`` (Markdown, where they are link syntax) ``sources 1-4``."""
    first, last = ("[1]", f"[{count}]") if brackets else ("1", str(count))
    numbers = f"source {first}" if count == 1 else f"sources {first}-{last}, in the same order"
    return f"{plural(count, 'citation')}: {numbers}"


def outcome_llm_text(outcome: ProviderOutcome, label: str | None = None) -> str:
    """The LLM text of an outcome: ``Error: <message>`` when it failed; else its response, opened
    by a ``Note:`` when the run was cancelled or came back empty, so a block is never blank.
    ``label`` names the provider in that note (default: its id)."""
    return safe_text(_outcome_text(outcome, label or outcome.provider))


def _outcome_text(outcome: ProviderOutcome, label: str) -> str:
    """:func:`outcome_llm_text` before :func:`~websearch_tui.core.errors.safe_text`."""
    if outcome.error is not None:
        return f"Error: {outcome.error.message}"
    note = _outcome_note(outcome, label)
    text = _llm_text(outcome.response)
    return f"Note: {note}\n{text}".rstrip("\n") if note else text


def _outcome_note(outcome: ProviderOutcome, label: str) -> str | None:
    """What the status of an outcome without an error says when the response alone would not:
    a cancel (partial or not), or an empty answer; ``None`` otherwise."""
    if outcome.status is RunStatus.CANCELLED:
        partial = outcome.response.is_renderable()
        return "Cancelled before it finished; what follows is partial." if partial else "Cancelled before it finished."
    if outcome.status is RunStatus.EMPTY:
        return empty_message(label)
    return None


def to_llm_document(result: SearchResult) -> str:
    """Every shown provider as ``# <Label> (<id>)`` (``· ≈ $0.004``, ``· cached · 12 min ago · $0``
    after it when known: :func:`_heading`) followed by its LLM text block; last, for several
    providers, the search's total (``Cost: ≈ $0.021``). The whole text is made safe once (an MCP
    call's text was searched for secrets twice, block by block and then whole)."""
    blocks = [f"{_heading(result, o)}\n{_outcome_text(o, result.label(o.provider))}" for o in visible_outcomes(result)]
    return safe_text("\n\n".join(_with_total(blocks, result)))


def _heading(result: SearchResult, outcome: ProviderOutcome) -> str:
    """``"# Brave Search (brave)"``, with what the run cost after it: ``"# Brave Search (brave) ·
    ≈ $0.005"`` (:func:`~websearch_tui.formats.common.cost_part`)."""
    cost = cost_part(outcome)
    heading = f"# {result.label(outcome.provider)} ({outcome.provider})"
    return f"{heading} · {cost}" if cost else heading


def _with_total(blocks: list[str], result: SearchResult) -> list[str]:
    """``blocks`` and, when there is one, the search's cost line (:func:`cost_total_line`) after them."""
    total = cost_total_line(result)
    return [*blocks, total] if total and blocks else blocks


def to_llm_merged(result: SearchResult) -> str:
    """What an agent wants from a fan-out: each shown provider's answer (or ``Error: <message>``)
    under ``# <Label> (<id>)``, then one de-duplicated, ranked source list in the seed's source shape
    plus one ``found by ... · cited by ...`` line per source. A cancelled provider's block says so
    (``Note: Cancelled before it finished.``, before any partial answer); providers with neither an
    answer, an error nor a cancel (search engines) appear only through their sources; a heading
    carries what the provider's run cost (:func:`_heading`), and the search's total closes the text."""
    blocks = []
    for outcome in visible_outcomes(result):
        answer = (outcome.response.answer or "").strip()
        text = f"Error: {outcome.error.message}" if outcome.error is not None else answer
        if outcome.status is RunStatus.CANCELLED:
            text = f"Note: {_outcome_note(outcome, result.label(outcome.provider))}\n{text}".rstrip("\n")
        if text:
            blocks.append(f"{_heading(result, outcome)}\n{text}")
    rows = result.merged_sources()
    providers = {pid for row in rows for pid in row.ranks}
    lines = [f"# Merged sources\n{plural(len(rows), 'source')} from {plural(len(providers), 'provider')}"]
    for index, row in enumerate(rows, 1):
        age = age_text(row.date_text, row.age_seconds)
        lines.append(f"[{index}] {row.title}" + (f" ({age})" if age else ""))
        lines.append(f"    {row.link}")
        if row.snippet:
            lines.append(indented(truncate(row.snippet, 240)))
        lines.append(f"    {_provenance(row)}")
    blocks.append("\n".join(lines))
    return safe_text("\n\n".join(_with_total(blocks, result)))


def _provenance(row: MergedSource) -> str:
    """``"found by brave #1, exa #3 · cited by perplexity [2]"`` (ids, for agents); ``found by
    openai #1, codex #2 (1 index)`` when the finders share search indexes."""
    parts = []
    if row.ranks:
        found = "found by " + ", ".join(f"{pid} #{rank}" for pid, rank in row.ranks.items())
        parts.append(f"{found} ({row.shared_indexes})" if row.shared_indexes else found)
    if row.cited_by:
        cited = ", ".join(f"{pid} [{', '.join(map(str, numbers))}]" for pid, numbers in row.cited_by.items())
        parts.append(f"cited by {cited}")
    return " · ".join(parts)
