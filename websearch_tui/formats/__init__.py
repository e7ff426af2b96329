"""Output formats of a search: LLM text (the seed format), Markdown, plain text and JSON.

``to_llm_text`` follows PROVIDERS.md §1.13 exactly (oh-my-pi's ``formatForLLM``). The other
formats are ours. All functions are pure: ``SearchResult`` in, ``str`` or ``dict`` out.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from datetime import timezone
from typing import Any

from websearch_tui.core.errors import empty_message, redact, safe_text
from websearch_tui.core.merge import MergedSource, merge_responses
from websearch_tui.core.models import MODES, Citation, SearchResponse
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.core.text import canonical_url, format_age, host_of, markdown_literal, sanitize, truncate
from websearch_tui.providers.helpers.parse import markdown_quote


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _age_text(date_text: str | None, age: int | None) -> str:
    return format_age(age) or (date_text or "")


def _indented(text: str) -> str:
    """``text`` as a 4-space-indented block: every line indented, so a multi-line snippet stays
    under its source (blank lines stay empty)."""
    return "\n".join(f"    {line}" if line else "" for line in text.split("\n"))


def dropped_sources_text(count: int) -> str:
    """The remark for ``count`` (>= 1) results left out for lack of a URL:
    ``"2 results without a usable URL were dropped."``."""
    verb = "was" if count == 1 else "were"
    return f"{_plural(count, 'result')} without a usable URL {verb} dropped."


def _safe_tree(value: Any) -> Any:
    """``value`` (a JSON document of ours) with :func:`safe_text` applied to every string in it."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_text(key) if isinstance(key, str) else key: _safe_tree(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_safe_tree(item) for item in value]
    return value


def to_llm_text(response: SearchResponse) -> str:
    """One provider's response in the seed LLM text format (notes, answer, sources, citations, ...).

    PROVIDERS.md §1.13 byte for byte, with one deliberate difference: the continuation lines of a
    multi-line snippet or cited text are indented like its first line (the seed leaves them at the
    left margin, where they read as a new entry)."""
    return safe_text("\n".join(_llm_parts(response, _seed_citation_parts(response))))


def _llm_parts(response: SearchResponse, citation_parts: list[str], *, dated: bool = False) -> list[str]:
    """The parts of :func:`to_llm_text` around ``citation_parts`` (its ``## Citations`` section); with
    ``dated`` a source's date precedes its age (``(2024-07-25 · 14mo ago)``, the reader's report)."""
    parts: list[str] = [f"Note: {note}" for note in response.notes]
    answer = (response.answer or "").strip()
    if answer:
        parts.append(answer)
        if response.sources:
            parts.append("\n## Sources")
            parts.append(_plural(len(response.sources), "source"))
    for index, source in enumerate(response.sources, 1):
        if dated:
            age = _when(source.published_date, source.date_text, source.age_seconds)
        else:
            age = _age_text(source.date_text, source.age_seconds)
        parts.append(f"[{index}] {source.title}" + (f" ({age})" if age else ""))
        parts.append(f"    {source.url}")
        if source.snippet:
            parts.append(_indented(truncate(source.snippet, 240)))
    parts += citation_parts
    if response.related_questions:
        parts.append("\n## Related")
        parts.append(_plural(len(response.related_questions), "question"))
        parts.extend(f"- {question}" for question in response.related_questions)
    if response.search_queries:
        parts.append(f"Search queries: {len(response.search_queries)}")
        parts.extend(f"- {truncate(query, 120)}" for query in response.search_queries[:3])
    return parts


def _seed_citation_parts(response: SearchResponse) -> list[str]:
    """The seed's ``## Citations`` section: every citation with its URL and cited text."""
    if not response.citations:
        return []
    parts = ["\n## Citations", _plural(len(response.citations), "citation")]
    for index, citation in enumerate(response.citations, 1):
        parts.append(f"[{index}] {citation.title or citation.url}")
        parts.append(f"    {citation.url}")
        if citation.cited_text:
            parts.append(_indented(truncate(citation.cited_text, 240)))
    return parts


@dataclass(frozen=True)
class _CitationView:
    """A citation as the reader formats (text, Markdown) show it: ``source`` is the 1-based number
    of the listed source at the same URL (``None`` when it is not listed); ``quote`` is its cited
    text unless that only repeats the source's snippet."""

    citation: Citation
    source: int | None
    quote: str | None


def _citation_views(response: SearchResponse) -> list[_CitationView]:
    """Every citation of ``response`` (order and numbering kept) as :class:`_CitationView`."""
    numbers: dict[str, int] = {}
    for index, source in enumerate(response.sources, 1):
        numbers.setdefault(canonical_url(source.url), index)
    views = []
    for citation in response.citations:
        number = numbers.get(canonical_url(citation.url)) if citation.url else None
        snippet = response.sources[number - 1].snippet if number is not None else None
        quote = citation.cited_text if citation.cited_text and citation.cited_text != snippet else None
        views.append(_CitationView(citation, number, quote))
    return views


def citations_repeat_sources(response: SearchResponse) -> bool:
    """True when the citations add nothing to the sources: citation ``i`` is source ``i`` for every
    ``i`` and no cited text says more than that source's snippet (Perplexity's lists, for one).
    The reader formats then print one line for them instead of a second copy."""
    return _repeat(_citation_views(response))


def _repeat(views: list[_CitationView]) -> bool:
    """:func:`citations_repeat_sources` of these views."""
    return bool(views) and all(view.source == index and view.quote is None for index, view in enumerate(views, 1))


def _same_as_sources(count: int, *, brackets: bool = True) -> str:
    """``"4 citations: sources [1]-[4], in the same order"`` (one: ``"1 citation: source [1]"``);
    without ``brackets`` (Markdown, where they are link syntax) ``sources 1-4``."""
    first, last = ("[1]", f"[{count}]") if brackets else ("1", str(count))
    numbers = f"source {first}" if count == 1 else f"sources {first}-{last}, in the same order"
    return f"{_plural(count, 'citation')}: {numbers}"


def _reader_citation_parts(response: SearchResponse) -> list[str]:
    """The ``## Citations`` section of the plain-text report: one line when the citations repeat the
    sources (:func:`citations_repeat_sources`); else each citation, a listed source by its number
    (``[2] Title (source [3])``) and with its cited text only when that adds to the snippet."""
    views = _citation_views(response)
    if not views:
        return []
    if _repeat(views):
        return ["\n## Citations", _same_as_sources(len(views))]
    parts = ["\n## Citations", _plural(len(views), "citation")]
    for index, view in enumerate(views, 1):
        citation = view.citation
        if view.source is not None:
            parts.append(f"[{index}] {citation.title or citation.url} (source [{view.source}])")
        else:
            parts.append(f"[{index}] {citation.title or citation.url}")
            if citation.url:
                parts.append(f"    {citation.url}")
        if view.quote:
            parts.append(_indented(truncate(view.quote, 240)))
    return parts


def outcome_llm_text(outcome: ProviderOutcome, label: str | None = None) -> str:
    """The LLM text of an outcome: ``Error: <message>`` when it failed; else its response, opened
    by a ``Note:`` when the run was cancelled or came back empty, so a block is never blank.
    ``label`` names the provider in that note (default: its id)."""
    if outcome.error is not None:
        return safe_text(f"Error: {outcome.error.message}")
    note = _outcome_note(outcome, label or outcome.provider)
    text = to_llm_text(outcome.response)
    return safe_text(f"Note: {note}\n{text}".rstrip("\n")) if note else text


def _outcome_note(outcome: ProviderOutcome, label: str) -> str | None:
    """What the status of an outcome without an error says when the response alone would not:
    a cancel (partial or not), or an empty answer; ``None`` otherwise."""
    if outcome.status is RunStatus.CANCELLED:
        partial = outcome.response.is_renderable()
        return "Cancelled before it finished; what follows is partial." if partial else "Cancelled before it finished."
    if outcome.status is RunStatus.EMPTY:
        return empty_message(label)
    return None


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
    blocks = [
        f"# {result.label(o.provider)} ({o.provider})\n{outcome_llm_text(o, result.label(o.provider))}"
        for o in _visible(result)
    ]
    return safe_text("\n\n".join(blocks))


def merged_sources(result: SearchResult) -> list[MergedSource]:
    """Every source of the search's outcomes (partial ones of failed or cancelled runs included),
    merged and ranked (:func:`~websearch_tui.core.merge.merge_responses`)."""
    return merge_responses(outcome.response for outcome in result.outcomes)


def to_llm_merged(result: SearchResult) -> str:
    """What an agent wants from a fan-out: each shown provider's answer (or ``Error: <message>``)
    under ``# <Label> (<id>)``, then one de-duplicated, ranked source list in the seed's source shape
    plus one ``found by ... · cited by ...`` line per source. A cancelled provider's block says so
    (``Note: Cancelled before it finished.``, before any partial answer); providers with neither an
    answer, an error nor a cancel (search engines) appear only through their sources."""
    blocks = []
    for outcome in _visible(result):
        answer = (outcome.response.answer or "").strip()
        text = f"Error: {outcome.error.message}" if outcome.error is not None else answer
        if outcome.status is RunStatus.CANCELLED:
            text = f"Note: {_outcome_note(outcome, result.label(outcome.provider))}\n{text}".rstrip("\n")
        if text:
            blocks.append(f"# {result.label(outcome.provider)} ({outcome.provider})\n{text}")
    rows = merged_sources(result)
    providers = {pid for row in rows for pid in row.ranks}
    lines = [f"# Merged sources\n{_plural(len(rows), 'source')} from {_plural(len(providers), 'provider')}"]
    for index, row in enumerate(rows, 1):
        age = _age_text(row.date_text, row.age_seconds)
        lines.append(f"[{index}] {row.title}" + (f" ({age})" if age else ""))
        lines.append(f"    {row.link}")
        if row.snippet:
            lines.append(_indented(truncate(row.snippet, 240)))
        lines.append(f"    {_provenance(row)}")
    blocks.append("\n".join(lines))
    return safe_text("\n\n".join(blocks))


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
    without a URL were dropped, then its LLM text block, whose citations say only what the sources
    do not (:func:`_reader_citation_parts`)."""
    blocks = []
    for outcome in result.outcomes:  # auto mode too: the failures before the winner are shown
        header = f"== {result.label(outcome.provider)} ({outcome.provider}): {_status_line(outcome)}"
        dropped = outcome.response.dropped_sources
        if dropped:
            header += f"\nNote: {dropped_sources_text(dropped)}"
        body = "\n".join(_llm_parts(outcome.response, _reader_citation_parts(outcome.response), dated=True))
        blocks.append(f"{header}\n{body}".rstrip())  # partial content of a failure too
    return safe_text("\n\n".join(blocks))


_LINK_SCHEMES = ("http", "https", "mailto")
_INLINE_DESTINATION = re.compile(r"\]\(\s*<?([^)\s>]{0,64})")
_REFERENCE_DEFINITION = re.compile(r"^( {0,3})(\[[^\]\n]{1,999}\]:[ \t]*<?)(\S{0,64})", re.MULTILINE)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]{0,31}):")


def _md_escape(text: str, *, line_start: bool = False, table_cell: bool = False) -> str:
    """Provider text as literal Markdown text on one line (:func:`~websearch_tui.core.text.markdown_literal`:
    only what would act is escaped, so ``__init__.py`` stays a name, a leading ``#`` never makes a
    heading and ``<``/``[`` never start HTML or a link, while ``docs.python.org`` keeps its dots).
    Secrets are redacted before any backslash is added (an escaped key would no longer match)."""
    flat = " ".join(redact(sanitize(text)).split())
    return markdown_literal(flat, line_start=line_start, table_cell=table_cell)


def _md_quote(text: str, limit: int = 300) -> str:
    """A snippet or cited text for an indented line of the report: the plain text of any Markdown a
    provider put in it (``## Setup **now**`` reads ``Setup now``), cut to ``limit`` characters."""
    plain = markdown_quote(text) or " ".join(text.split())
    return _md_escape(truncate(plain, limit), line_start=True)


def _when(published_date: str | None, date_text: str | None, age: int | None) -> str:
    """When a source was published, for a reader: its date and age (``2024-07-25 · 14mo ago``), else
    the provider's own text of it (``last Tuesday``); ``""`` when unknown."""
    day = published_date[:10] if published_date else ""
    return " · ".join(part for part in (day, format_age(age)) if part) or (date_text or "")


def _created_at(result: SearchResult) -> str | None:
    """When the search started, ISO 8601 UTC to the millisecond (as the history lists it), else ``None``."""
    moment = result.created_at
    if moment is None:
        return None
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _search_line(result: SearchResult) -> str:
    """The report's line under its title: when, mode, recency and count (``Searched
    2026-12-02T15:25:04Z · mode compare · recency week · up to 10 results per provider``)."""
    request = result.request
    parts = [f"mode {result.mode}", f"recency {request.recency or 'any'}"]
    parts.append(f"up to {_plural(request.max_results, 'result')} per provider")
    if result.created_at is not None:
        parts.insert(0, "Searched " + result.created_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    else:
        parts[0] = parts[0].capitalize()
    return " · ".join(parts)


def _md_url(url: str) -> str:
    """A link destination for ``(<url>)``: what would end it or be read as an escape (``<``, ``>``,
    ``\\``, whitespace) percent-encoded."""
    return url.replace("\\", "%5C").replace("<", "%3C").replace(">", "%3E").replace(" ", "%20")


def _md_answer(text: str) -> str:
    """An answer stays Markdown, but nothing in it can act in a renderer: raw HTML is shown as text,
    images become plain links (no remote image is fetched when the report is opened), and links or
    link definitions whose target is not http(s) or mailto (``javascript:``, ``file:``, ``data:``,
    entity-encoded or not) lose their link syntax. Linear in ``text``."""
    text = sanitize(text).replace("<", "&lt;").replace(">", "&gt;").replace("![", "\\![")
    text = _INLINE_DESTINATION.sub(_neutral_inline, text)
    return _REFERENCE_DEFINITION.sub(_neutral_definition, text)


def _neutral_inline(match: re.Match[str]) -> str:
    return match.group(0) if _allowed_target(match.group(1)) else "]\\(" + match.group(0)[2:]


def _neutral_definition(match: re.Match[str]) -> str:
    if _allowed_target(match.group(3)):
        return match.group(0)
    return f"{match.group(1)}\\{match.group(2)}{match.group(3)}"


def _allowed_target(target: str) -> bool:
    """True for a relative target or one whose scheme (after decoding entities) is http(s) or mailto."""
    scheme = _SCHEME.match("".join(html.unescape(target).split()))
    return scheme is None or scheme.group(1).lower() in _LINK_SCHEMES


def to_markdown(result: SearchResult) -> str:
    """A Markdown report: one ``##`` section per provider with answer, sources, citations, ..."""
    lines: list[str] = [f"# {_md_escape(result.request.query)}", "", _search_line(result), ""]
    for outcome in result.outcomes:
        response = outcome.response
        lines += [f"## {_md_escape(result.label(outcome.provider))}", "", f"*{_md_escape(_status_line(outcome))}*", ""]
        notes = [_md_escape(note) for note in response.notes]
        if response.dropped_sources:
            notes.append(dropped_sources_text(response.dropped_sources))
        if notes:  # the blank line ends the quote (an answer right after it would join the quote)
            lines += [f"> Note: {note}" for note in notes] + [""]
        answer = (response.answer or "").strip()
        if answer:
            lines += [_md_answer(answer), ""]
        if response.sources:
            lines += ["### Sources", ""]
            for index, source in enumerate(response.sources, 1):
                when = _when(source.published_date, source.date_text, source.age_seconds)
                meta = " · ".join(x for x in (host_of(source.url), when) if x)
                lines.append(f"{index}. [{_md_escape(source.title)}](<{_md_url(source.url)}>) — {_md_escape(meta)}")
                if source.snippet:
                    lines.append(f"   {_md_quote(source.snippet)}")
            lines.append("")
        if response.citations:
            lines += ["### Citations", "", *_markdown_citations(response), ""]
        if response.related_questions:
            related = [f"- {_md_escape(q, line_start=True)}" for q in response.related_questions]
            lines += ["### Related", "", *related, ""]
        if response.search_queries:
            queries = [f"- {_md_escape(q, line_start=True)}" for q in response.search_queries]
            lines += ["### Search queries", "", *queries, ""]
    lines += _markdown_merged(result)
    return safe_text("\n".join(lines).rstrip() + "\n")


def _markdown_citations(response: SearchResponse) -> list[str]:
    """The lines of a response's citations in Markdown, by the rules of :func:`_reader_citation_parts`:
    one sentence when they repeat the sources, else a numbered list, a listed source named by its
    number, a cited text that adds to the snippet on an indented line."""
    views = _citation_views(response)
    if _repeat(views):
        return [_same_as_sources(len(views), brackets=False)]  # our words: nothing to escape
    lines = []
    for index, view in enumerate(views, 1):
        citation = view.citation
        title = _md_escape(citation.title or citation.url)
        link = f"[{title}](<{_md_url(citation.url)}>)" if citation.url else title
        lines.append(f"{index}. {link}" + (f" — source {view.source}" if view.source is not None else ""))
        if view.quote:
            lines.append(f"   {_md_quote(view.quote)}")
    return lines


def _markdown_merged(result: SearchResult) -> list[str]:
    """The "Merged sources" table: rank, the linked title with host and age, who found it (rank in
    parentheses) and which answers cite it; nothing when the search found no source."""
    rows = merged_sources(result)
    if not rows:
        return []
    lines = ["## Merged sources", "", "| # | Source | Found by | Cited by |", "|---|---|---|---|"]
    for index, row in enumerate(rows, 1):
        meta = " · ".join(
            x for x in (host_of(row.link), _when(row.published_date, row.date_text, row.age_seconds)) if x
        )
        found = ", ".join(f"{_cell(result.label(pid))} ({rank})" for pid, rank in row.ranks.items())
        cited = ", ".join(
            f"{_cell(result.label(pid))} [{', '.join(map(str, numbers))}]" for pid, numbers in row.cited_by.items()
        )
        source = f"[{_cell(row.title)}](<{_md_url(row.link)}>)" + (f" — {_cell(meta)}" if meta else "")
        lines.append(f"| {index} | {source} | {found or '–'} | {cited or '–'} |")
    return [*lines, ""]


def _cell(text: str) -> str:
    """Text for a Markdown table cell: escaped like other text, ``|`` included, on one line."""
    return _md_escape(text, table_cell=True)


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
    """The CLI's JSON document: query, created_at (when the search started, ISO 8601 UTC; ``None``
    for a result made by hand), mode, max_results, recency, winner (auto), error (all failed),
    per-provider ``results`` and ``merged``: every source once, ranked (see :meth:`MergedSource.to_dict`)."""
    request = result.request
    document: dict[str, Any] = {
        "query": request.query,
        "created_at": _created_at(result),
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
    cleaned: dict[str, Any] = _safe_tree(document)
    return cleaned


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null``, in the short form (``"type": ["string", "null"]``)."""
    return {**schema, "type": [schema["type"], "null"]}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


_STRING = {"type": "string"}
_COUNT = {"type": "integer", "minimum": 0}
_NULLABLE_STRING = _ref("text")
_NULLABLE_COUNT = _ref("count")
_STRINGS = _ref("strings")
_DEFINITIONS: dict[str, Any] = {
    "text": _nullable(_STRING),
    "count": _nullable(_COUNT),
    "strings": {"type": "array", "items": _STRING},
    "date": {"type": ["string", "null"], "format": "date-time"},
    "source": {
        "type": "object",
        "properties": {
            "url": _STRING,
            "title": _STRING,
            "snippet": _NULLABLE_STRING,
            "published_date": _ref("date"),
            "age_seconds": _NULLABLE_COUNT,
            "author": _NULLABLE_STRING,
            "published_text": _NULLABLE_STRING,
        },
    },
    "citation": {
        "type": "object",
        "properties": {"url": _STRING, "title": _STRING, "cited_text": _NULLABLE_STRING},
    },
    "response": {
        "type": ["object", "null"],
        "properties": {
            "provider": _STRING,
            "answer": _NULLABLE_STRING,
            "sources": {"type": "array", "items": _ref("source")},
            "citations": {"type": "array", "items": _ref("citation")},
            "related_questions": _STRINGS,
            "search_queries": _STRINGS,
            "usage": {
                "type": ["object", "null"],
                "properties": {
                    **dict.fromkeys(
                        ("input_tokens", "output_tokens", "total_tokens", "search_requests"), _NULLABLE_COUNT
                    ),
                    "cost_usd": {"type": ["number", "null"], "minimum": 0},
                },
            },
            **dict.fromkeys(("model", "request_id", "auth_mode"), _NULLABLE_STRING),
            "notes": _STRINGS,
            "elapsed_ms": _NULLABLE_COUNT,
            "first_event_ms": _NULLABLE_COUNT,
            "dropped_sources": _COUNT,
        },
    },
    "outcome": {
        "type": "object",
        "required": ["provider", "status", "elapsed_ms", "response", "error"],
        "properties": {
            "provider": _STRING,
            "status": {"enum": [status.value for status in RunStatus]},
            "elapsed_ms": _COUNT,
            "first_event_ms": _NULLABLE_COUNT,
            "response": _ref("response"),
            "error": {
                "type": ["object", "null"],
                "properties": {"kind": _STRING, "message": _STRING, "status": {"type": ["integer", "null"]}},
            },
        },
    },
    "merged": {
        "type": "object",
        "properties": {
            "url": _STRING,
            "link": _STRING,
            "title": _STRING,
            "snippet": _NULLABLE_STRING,
            "published_date": _ref("date"),
            "published_text": _NULLABLE_STRING,
            "providers": _STRINGS,
            "ranks": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
            "cited_by": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 1}},
            },
            "score": {"type": "number", "minimum": 0},
        },
    },
}
JSON_DOCUMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["query", "mode", "max_results", "results", "merged"],
    "properties": {
        "query": _STRING,
        "created_at": _ref("date"),
        "mode": {"enum": list(MODES)},
        "max_results": {"type": "integer", "minimum": 1},
        "recency": _NULLABLE_STRING,
        "results": {"type": "array", "items": _ref("outcome")},
        "merged": {"type": "array", "items": _ref("merged")},
        "winner": _NULLABLE_STRING,
        "error": {"type": "object", "required": ["message"], "properties": {"message": _STRING}},
    },
    "$defs": _DEFINITIONS,
}
"""JSON Schema (2020-12) of :func:`to_json_document`: what ``search --format json`` prints and the MCP
``web_search`` tool's structured content. Each object is defined once under ``$defs`` and referenced,
with its fields' types only (no prose, no per-object ``required``): the MCP tool list is sent to an
agent on every turn, so it stays small. A field added to the document is added here too (the tests
validate real documents against it); objects stay open to new fields. Dates (``created_at``,
``published_date``) are ISO 8601 UTC."""


def to_json(result: SearchResult) -> str:
    """:func:`to_json_document` as the CLI prints it: indented, non-ASCII text as it is."""
    return json.dumps(to_json_document(result), ensure_ascii=False, indent=2)
