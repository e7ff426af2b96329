"""Output formats of a search: LLM text (the seed format), Markdown, plain text and JSON.

``to_llm_text`` follows PROVIDERS.md §1.13 exactly (oh-my-pi's ``formatForLLM``). The other
formats are ours. All functions are pure: ``SearchResult`` in, ``str`` or ``dict`` out.
"""

from __future__ import annotations

import json
from typing import Any

from websearch_tui.core.merge import MergedSource, merge_responses
from websearch_tui.core.models import SearchResponse
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.core.text import format_age, host_of, truncate


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _age_text(published_date: str | None, age: int | None) -> str:
    return format_age(age) or (published_date or "")


def dropped_sources_text(count: int) -> str:
    """The remark for ``count`` (>= 1) results left out for lack of a URL:
    ``"2 results without a usable URL were dropped."``."""
    verb = "was" if count == 1 else "were"
    return f"{_plural(count, 'result')} without a usable URL {verb} dropped."


def to_llm_text(response: SearchResponse) -> str:
    """One provider's response in the seed LLM text format (notes, answer, sources, citations, ...)."""
    parts: list[str] = [f"Note: {note}" for note in response.notes]
    answer = (response.answer or "").strip()
    if answer:
        parts.append(answer)
        if response.sources:
            parts.append("\n## Sources")
            parts.append(_plural(len(response.sources), "source"))
    for index, source in enumerate(response.sources, 1):
        age = _age_text(source.published_date, source.age_seconds)
        parts.append(f"[{index}] {source.title}" + (f" ({age})" if age else ""))
        parts.append(f"    {source.url}")
        if source.snippet:
            parts.append(f"    {truncate(source.snippet, 240)}")
    if response.citations:
        parts.append("\n## Citations")
        parts.append(_plural(len(response.citations), "citation"))
        for index, citation in enumerate(response.citations, 1):
            parts.append(f"[{index}] {citation.title or citation.url}")
            parts.append(f"    {citation.url}")
            if citation.cited_text:
                parts.append(f"    {truncate(citation.cited_text, 240)}")
    if response.related_questions:
        parts.append("\n## Related")
        parts.append(_plural(len(response.related_questions), "question"))
        parts.extend(f"- {question}" for question in response.related_questions)
    if response.search_queries:
        parts.append(f"Search queries: {len(response.search_queries)}")
        parts.extend(f"- {truncate(query, 120)}" for query in response.search_queries[:3])
    return "\n".join(parts)


def outcome_llm_text(outcome: ProviderOutcome) -> str:
    """The LLM text of an outcome: the response, or ``Error: <message>`` when it failed."""
    if outcome.error is not None:
        return f"Error: {outcome.error.message}"
    return to_llm_text(outcome.response)


def _status_line(outcome: ProviderOutcome) -> str:
    seconds = f"{outcome.elapsed_ms / 1000:.1f}s"
    if outcome.error is not None:
        return f"{outcome.status.value} ({outcome.error.kind.value}) after {seconds}: {outcome.error.message}"
    return f"{outcome.status.value} in {seconds}, {_plural(len(outcome.response.sources), 'source')}"


def _visible(result: SearchResult) -> list[ProviderOutcome]:
    """For the LLM format: in auto mode only the winner (or every failure when none won)."""
    if result.mode == "auto" and result.winner:
        return [o for o in result.outcomes if o.provider == result.winner]
    return result.outcomes


def to_llm_document(result: SearchResult) -> str:
    """Every shown provider as ``# <Label> (<id>)`` followed by its LLM text block."""
    blocks = [f"# {result.label(o.provider)} ({o.provider})\n{outcome_llm_text(o)}" for o in _visible(result)]
    return "\n\n".join(blocks)


def merged_sources(result: SearchResult) -> list[MergedSource]:
    """Every source of the search's outcomes (partial ones of failed or cancelled runs included),
    merged and ranked (:func:`~websearch_tui.core.merge.merge_responses`)."""
    return merge_responses(outcome.response for outcome in result.outcomes)


def to_llm_merged(result: SearchResult) -> str:
    """What an agent wants from a fan-out: each shown provider's answer (or ``Error: <message>``)
    under ``# <Label> (<id>)``, then one de-duplicated, ranked source list in the seed's source shape
    plus one ``found by ... · cited by ...`` line per source. Providers with neither an answer nor an
    error (search engines) appear only through their sources."""
    blocks = []
    for outcome in _visible(result):
        answer = (outcome.response.answer or "").strip()
        text = f"Error: {outcome.error.message}" if outcome.error is not None else answer
        if text:
            blocks.append(f"# {result.label(outcome.provider)} ({outcome.provider})\n{text}")
    rows = merged_sources(result)
    providers = {pid for row in rows for pid in row.ranks}
    lines = [f"# Merged sources\n{_plural(len(rows), 'source')} from {_plural(len(providers), 'provider')}"]
    for index, row in enumerate(rows, 1):
        age = _age_text(row.published_date, row.age_seconds)
        lines.append(f"[{index}] {row.title}" + (f" ({age})" if age else ""))
        lines.append(f"    {row.link}")
        if row.snippet:
            lines.append(f"    {truncate(row.snippet, 240)}")
        lines.append(f"    {_provenance(row)}")
    blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _provenance(row: MergedSource) -> str:
    """``"found by brave #1, exa #3 · cited by perplexity [2]"`` (ids, for agents)."""
    parts = []
    if row.ranks:
        parts.append("found by " + ", ".join(f"{pid} #{rank}" for pid, rank in row.ranks.items()))
    if row.cited_by:
        cited = ", ".join(f"{pid} [{', '.join(map(str, numbers))}]" for pid, numbers in row.cited_by.items())
        parts.append(f"cited by {cited}")
    return " · ".join(parts)


def to_text(result: SearchResult) -> str:
    """A readable plain-text report: a status line per provider, a ``Note:`` line when results
    without a URL were dropped, then its LLM text block."""
    blocks = []
    for outcome in result.outcomes:  # auto mode too: the failures before the winner are shown
        header = f"== {result.label(outcome.provider)} ({outcome.provider}): {_status_line(outcome)}"
        dropped = outcome.response.dropped_sources
        if dropped:
            header += f"\nNote: {dropped_sources_text(dropped)}"
        blocks.append(f"{header}\n{to_llm_text(outcome.response)}".rstrip())  # partial content of a failure too
    return "\n\n".join(blocks)


def _md_escape(text: str) -> str:
    """Escape Markdown link brackets and HTML (provider text must not become markup in a renderer)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _md_html_escape(text: str) -> str:
    """An answer stays Markdown, but raw HTML in it is shown as text, never rendered."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def to_markdown(result: SearchResult) -> str:
    """A Markdown report: one ``##`` section per provider with answer, sources, citations, ..."""
    lines: list[str] = [f"# {_md_escape(result.request.query)}", ""]
    for outcome in result.outcomes:
        response = outcome.response
        lines += [f"## {result.label(outcome.provider)}", "", f"*{_md_escape(_status_line(outcome))}*", ""]
        notes = [_md_escape(note) for note in response.notes]
        if response.dropped_sources:
            notes.append(dropped_sources_text(response.dropped_sources))
        if notes:  # the blank line ends the quote (an answer right after it would join the quote)
            lines += [f"> Note: {note}" for note in notes] + [""]
        answer = (response.answer or "").strip()
        if answer:
            lines += [_md_html_escape(answer), ""]
        if response.sources:
            lines += ["### Sources", ""]
            for index, source in enumerate(response.sources, 1):
                meta = " · ".join(
                    x for x in (host_of(source.url), _age_text(source.published_date, source.age_seconds)) if x
                )
                lines.append(f"{index}. [{_md_escape(source.title)}](<{source.url}>) — {meta}")
                if source.snippet:
                    lines.append(f"   {_md_escape(truncate(' '.join(source.snippet.split()), 300))}")
            lines.append("")
        if response.citations:
            lines += ["### Citations", ""]
            lines += [f"{i}. [{_md_escape(c.title)}](<{c.url}>)" for i, c in enumerate(response.citations, 1)]
            lines.append("")
        if response.related_questions:
            lines += ["### Related", ""] + [f"- {_md_escape(q)}" for q in response.related_questions] + [""]
        if response.search_queries:
            lines += ["### Search queries", ""] + [f"- {_md_escape(q)}" for q in response.search_queries] + [""]
    lines += _markdown_merged(result)
    return "\n".join(lines).rstrip() + "\n"


def _markdown_merged(result: SearchResult) -> list[str]:
    """The "Merged sources" table: rank, the linked title with host and age, who found it (rank in
    parentheses) and which answers cite it; nothing when the search found no source."""
    rows = merged_sources(result)
    if not rows:
        return []
    lines = ["## Merged sources", "", "| # | Source | Found by | Cited by |", "|---|---|---|---|"]
    for index, row in enumerate(rows, 1):
        meta = " · ".join(x for x in (host_of(row.link), _age_text(row.published_date, row.age_seconds)) if x)
        found = ", ".join(f"{_cell(result.label(pid))} ({rank})" for pid, rank in row.ranks.items())
        cited = ", ".join(
            f"{_cell(result.label(pid))} [{', '.join(map(str, numbers))}]" for pid, numbers in row.cited_by.items()
        )
        source = f"[{_cell(row.title)}](<{row.link}>)" + (f" — {_cell(meta)}" if meta else "")
        lines.append(f"| {index} | {source} | {found or '–'} | {cited or '–'} |")
    return [*lines, ""]


def _cell(text: str) -> str:
    """Text for a Markdown table cell: escaped like other text, ``|`` escaped, on one line."""
    return _md_escape(" ".join(text.split())).replace("|", "\\|")


def outcome_to_dict(outcome: ProviderOutcome) -> dict[str, Any]:
    """``{"provider", "status", "elapsed_ms", "first_event_ms", "response", "error"}``.

    ``response`` is the normalised response (also partial content of a failed stream, or ``None``
    when nothing arrived), with ``dropped_sources`` counting results left out for lack of a URL;
    ``error`` is ``{"kind", "message", "status"}`` or ``None``.
    """
    response = outcome.response
    has_content = outcome.status is not RunStatus.FAILED or response.is_renderable()
    return {
        "provider": outcome.provider,
        "status": outcome.status.value,
        "elapsed_ms": outcome.elapsed_ms,
        "first_event_ms": outcome.first_event_ms,
        "response": response.to_dict() if has_content else None,
        "error": outcome.error.to_dict() if outcome.error else None,
    }


def to_json_document(result: SearchResult) -> dict[str, Any]:
    """The CLI's JSON document: query, mode, winner (auto), error (all failed), per-provider
    ``results`` and ``merged``: every source once, ranked (see :meth:`MergedSource.to_dict`)."""
    request = result.request
    document: dict[str, Any] = {
        "query": request.query,
        "mode": result.mode,
        "max_results": request.max_results,
        "recency": request.recency,
        "results": [outcome_to_dict(o) for o in result.outcomes],
        "merged": [row.to_dict() for row in merged_sources(result)],
    }
    if result.mode == "auto":
        document["winner"] = result.winner
    if not result.ok:
        document["error"] = {"message": result.summary().error or "No provider returned results."}
    return document


def to_json(result: SearchResult) -> str:
    """:func:`to_json_document` as the CLI prints it: indented, non-ASCII text as it is."""
    return json.dumps(to_json_document(result), ensure_ascii=False, indent=2)
