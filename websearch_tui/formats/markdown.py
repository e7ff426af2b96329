"""The Markdown report of a search (``search --format markdown``, the TUI's export) and the escaping
that keeps provider text inert in it: pure, ``SearchResult`` in, ``str`` out."""

from __future__ import annotations

import html
import re
from datetime import timezone

from websearch_tui.core.errors import redact, safe_text
from websearch_tui.core.models import SearchResponse
from websearch_tui.core.results import SearchResult
from websearch_tui.core.text import host_of, markdown_literal, sanitize, truncate
from websearch_tui.formats.common import (
    checks_line,
    cost_total_line,
    dropped_sources_text,
    plural,
    status_line,
    when_published,
)
from websearch_tui.formats.llm import citation_views, same_as_sources, views_repeat_sources
from websearch_tui.providers.helpers.parse import markdown_quote

_LINK_SCHEMES = ("http", "https", "mailto")
_INLINE_DESTINATION = re.compile(r"\]\(\s*<?([^)\s>]{0,64})")
_REFERENCE_DEFINITION = re.compile(r"^( {0,3})(\[[^\]\n]{1,999}\]:[ \t]*<?)(\S{0,64})", re.MULTILINE)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
"""A character reference as CommonMark reads one (decimal, hexadecimal or named)."""
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


def _search_line(result: SearchResult) -> str:
    """The report's line under its title: when, mode, recency and count (``Searched
    2026-12-02T15:25:04Z · mode compare · recency week · up to 10 results per provider``)."""
    request = result.request
    parts = [f"mode {result.mode}", f"recency {request.recency or 'any'}"]
    parts.append(f"up to {plural(request.max_results, 'result')} per provider")
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
    entity-encoded or not) lose their link syntax, and a character reference a renderer would decode
    into a character :func:`~websearch_tui.core.text.sanitize` removes or replaces (``&#8238;``, a
    right-to-left override; ``&zwj;``; ``&#x3164;``) is removed. Linear in ``text``."""
    text = _ENTITY.sub(_inert_entity, sanitize(text)).replace("<", "&lt;").replace(">", "&gt;").replace("![", "\\![")
    text = _INLINE_DESTINATION.sub(_neutral_inline, text)
    return _REFERENCE_DEFINITION.sub(_neutral_definition, text)


def _inert_entity(match: re.Match[str]) -> str:
    """A character reference as it may stay in the report: unchanged when what it decodes to would
    pass :func:`~websearch_tui.core.text.sanitize` unchanged, else nothing."""
    reference = match.group()
    decoded = _decoded(reference)
    return reference if sanitize(decoded) == decoded else ""


def _decoded(reference: str) -> str:
    """The text a CommonMark renderer makes of a character reference: a numeric one is its code point
    whatever it is (``&#27;`` is ESC, which ``html.unescape`` drops as HTML5 says), U+FFFD for 0 or
    none; a named one as HTML5 names it."""
    if reference[1] != "#":
        return html.unescape(reference)
    code = int(reference[3:-1], 16) if reference[2] in "xX" else int(reference[2:-1])
    return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"


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
    """A Markdown report: the query, when and how it ran, the search's total cost for several providers
    (``Cost: ≈ $0.021``), then one ``##`` section per provider (its status line with its cost) with
    answer, sources, citations, ..."""
    lines: list[str] = [f"# {_md_escape(result.request.query)}", "", _search_line(result), ""]
    total = cost_total_line(result)
    if total:
        lines += [_md_escape(total, line_start=True), ""]
    for outcome in result.outcomes:
        response = outcome.response
        lines += [f"## {_md_escape(result.label(outcome.provider))}", "", f"*{_md_escape(status_line(outcome))}*", ""]
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
                when = when_published(source.published_date, source.date_text, source.age_seconds)
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
    """The lines of a response's citations in Markdown, by the rules of the plain-text report's
    (:mod:`websearch_tui.formats.text`): one sentence when they repeat the sources, else a numbered
    list, a listed source named by its number, a cited text that adds to the snippet on an indented
    line."""
    views = citation_views(response)
    if views_repeat_sources(views):
        return [same_as_sources(len(views), brackets=False)]  # our words: nothing to escape
    lines = [_md_escape(line) + "\n" for line in (checks_line(response),) if line]
    for index, view in enumerate(views, 1):
        citation = view.citation
        title = _md_escape(citation.title or citation.url)
        link = f"[{title}](<{_md_url(citation.url)}>)" if citation.url else title
        lines.append(f"{index}. {link}" + (f" — source {view.source}" if view.source is not None else ""))
        if view.quote:
            lines.append(f"   {_md_quote(view.quote)}")
        if citation.check is not None:
            lines.append(f"   {_md_escape(citation.check.summary())}")
            if citation.check.passage:
                lines.append(f"   {_md_quote(citation.check.passage)}")
    return lines


def _markdown_merged(result: SearchResult) -> list[str]:
    """The "Merged sources" table: rank, the linked title with host and age, who found it (rank in
    parentheses) and which answers cite it; nothing when the search found no source."""
    rows = result.merged_sources()
    if not rows:
        return []
    lines = ["## Merged sources", "", "| # | Source | Found by | Cited by |", "|---|---|---|---|"]
    for index, row in enumerate(rows, 1):
        meta = " · ".join(
            x for x in (host_of(row.link), when_published(row.published_date, row.date_text, row.age_seconds)) if x
        )
        found = ", ".join(f"{_cell(result.label(pid))} ({rank})" for pid, rank in row.ranks.items())
        if row.shared_indexes:
            found += f" — {row.shared_indexes}"
        cited = ", ".join(
            f"{_cell(result.label(pid))} [{', '.join(map(str, numbers))}]" for pid, numbers in row.cited_by.items()
        )
        source = f"[{_cell(row.title)}](<{_md_url(row.link)}>)" + (f" — {_cell(meta)}" if meta else "")
        lines.append(f"| {index} | {source} | {found or '–'} | {cited or '–'} |")
    return [*lines, ""]


def _cell(text: str) -> str:
    """Text for a Markdown table cell: escaped like other text, ``|`` included, on one line."""
    return _md_escape(text, table_cell=True)
