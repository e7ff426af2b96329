"""Parsing helpers shared by the providers: the JSON search ones (Brave, Tavily, SearXNG, Exa, ...)
and the streaming model-native ones (the source selection).

Everything that turns an untrusted provider row into our types goes through here, so the
normalisation rules of PROVIDERS.md §1.6 live in one place:

- :func:`make_source` builds a :class:`Source` from raw fields (URL checked, text cleaned, age computed)
  or returns ``None`` for a row without a usable URL; :func:`sources_from` does it for a list of rows
  and :func:`collect_sources` for rows already built, both returning a :class:`SourceList` that counts
  the rows dropped for lack of a URL (``SourcesFound`` picks that count up, through
  :func:`limit_sources`, so the engine and front ends can report it);
- :func:`first_text` / :func:`answer_text` pick and clean optional text fields;
  :func:`markdown_quote` turns a span of a Markdown answer into the plain text of a quote;
- :func:`clamp_count` applies the count rule of §1.3;
- :func:`start_date` gives the ``YYYY-MM-DD`` lower bound of a recency window (§1.4);
- :func:`find_message` / :func:`api_error_describer` turn provider error bodies into messages;
- :func:`text_list` / :func:`join_texts` clean lists of strings (suggestions, excerpts, warnings);
- :class:`SourceSelection` is the one rule for which sources are listed (the first ``max_results``
  plus every cited one), kept incrementally as a streamed answer adds sources and citations;
  :func:`limit_sources` applies it to a whole list at once (keeping the dropped count);
- :func:`int_field` / :func:`usage_from` read counts and token usage;
- :func:`choice_option` validates a string option against its allowed values.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

from websearch_tui.core.costs import plausible_usd
from websearch_tui.core.errors import excerpt
from websearch_tui.core.models import SearchEvent, Source, SourcesFound, Usage
from websearch_tui.core.text import (
    age_seconds,
    canonical_url,
    iso_utc,
    pattern,
    plain_text,
    safe_url,
    sanitize,
    truncate,
)

RECENCY_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
"""Length in days of each recency window (PROVIDERS.md §1.4: month = 30 days, year = 365)."""


class SourceList(list[Source]):
    """Parsed sources in provider order, plus ``dropped``: how many provider rows were left out
    because they had no usable URL. Behaves as a plain ``list`` otherwise (appending keeps the count)."""

    def __init__(self, sources: Iterable[Source] = (), dropped: int = 0) -> None:
        super().__init__(sources)
        self.dropped = dropped


class SourceTuple(tuple[Source, ...]):
    """The tuple :func:`limit_sources` returns: a plain tuple of sources that keeps the ``dropped``
    count of the list it was cut from (so ``SourcesFound(limit_sources(parsed, n))`` reports it)."""

    dropped: int

    def __new__(cls, sources: Iterable[Source] = (), dropped: int = 0) -> SourceTuple:
        made = super().__new__(cls, sources)
        made.dropped = dropped
        return made


def collect_sources(candidates: Iterable[Source | None]) -> SourceList:
    """The sources among ``candidates`` (results of :func:`make_source`), in order, each ``None``
    counted as a dropped row."""
    sources = SourceList()
    for candidate in candidates:
        if candidate is None:
            sources.dropped += 1
        else:
            sources.append(candidate)
    return sources


def make_source(
    url: object,
    title: object = None,
    snippet: object = None,
    published: object = None,
    author: object = None,
    *,
    snippet_limit: int | None = None,
    now: datetime | None = None,
) -> Source | None:
    """Build a normalised :class:`Source` from raw provider values, or ``None`` without a usable URL.

    ``url`` must be an absolute http(s) URL (:func:`safe_url`); ``title`` is tag-stripped and
    whitespace-collapsed and falls back to the URL; ``snippet`` (a string, or a list of strings
    joined with blank lines) is tag-stripped and optionally truncated to ``snippet_limit``
    characters; ``published`` is kept as sent (cleaned) in ``published_text`` and read as a date
    (:func:`~websearch_tui.core.text.parse_date`; a relative age counts back from ``now``) for
    ``published_date`` (ISO 8601 UTC) and ``age_seconds``; ``author`` values such as ``null``/``N/A``
    become ``None``.
    """
    clean_url = safe_url(url)
    if clean_url is None:
        return None
    if isinstance(snippet, (list, tuple)):
        snippet = join_texts(snippet, "\n\n")
    text = plain_text(snippet)
    if text and snippet_limit:
        text = truncate(text, snippet_limit)
    date = plain_text(published, collapse=True)
    now = now or datetime.now(timezone.utc)
    return Source(
        url=clean_url,
        title=plain_text(title, collapse=True) or clean_url,
        snippet=text,
        published_date=iso_utc(date, now),
        age_seconds=age_seconds(date, now),
        author=plain_text(author, collapse=True),
        published_text=date,
    )


MARKDOWN_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\((https?://[^\s()<>]+(?:\([^\s()<>]*\)[^\s()<>]*)*)\)")
"""A Markdown link ``[text](http(s)://url)``, a URL with balanced parentheses (Wikipedia's) included;
group 1 is the text, group 2 the URL. Linear: the URL part's repeats each start with ``(``."""
_LINE_MARKERS = r"(?m)^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+•][ \t]+|\d{1,3}[.)][ \t]+)"
_INLINE_MARKUP = (
    r"`([^`\n]{1,500})`"  # a code span: its code
    r"|!?\[([^\[\]\n]{1,300})\]\([^()\s]{0,2048}(?:\([^()\s]{0,2048}\)[^()\s]{0,2048}){0,4}\)"  # link, image: text
    r"|(?<![\w*])\*{1,3}(?=\S)|(?<=\S)\*{1,3}(?![\w*])"  # emphasis stars that open or close (not "2 * 3", "a*b")
    r"|(?<![\w_])_{1,3}(?=\S)|(?<=\S)_{1,3}(?![\w_])"  # the same with underscores (not snake_case)
    r"|~~"  # strikethrough
)


def markdown_quote(value: object) -> str | None:
    """The plain text of a span of a Markdown answer, for a citation's ``cited_text``: heading,
    quote and list markers at line starts dropped, links and images replaced by their text, code
    spans by their code, emphasis and strikethrough markers removed, then :func:`plain_text` with
    whitespace collapsed (``"**asyncio** is [the](https://x) *loop*"`` -> ``"asyncio is the loop"``).
    ``None`` when nothing is left or ``value`` is not a string. Linear in the text."""
    if not isinstance(value, str):
        return None
    text = pattern(_INLINE_MARKUP).sub(_inline_text, pattern(_LINE_MARKERS).sub("", value))
    return plain_text(text, collapse=True)


def _inline_text(match: re.Match[str]) -> str:
    return match.group(1) or match.group(2) or ""


Field = str | Callable[[Mapping[str, Any]], object] | None
"""How :func:`sources_from` reads one field of a row: a key, a function of the row, or ``None``."""


def sources_from(
    rows: object,
    *,
    url: Field,
    title: Field,
    snippet: Field,
    date: Field = None,
    author: Field = None,
    snippet_limit: int | None = None,
) -> SourceList:
    """Sources from a list of provider rows, in order, via :func:`make_source`.

    ``rows`` that is not a list gives an empty list; items that are not mappings and rows without a
    usable URL are dropped, and counted in the result's ``dropped``. Each field is a key (``"title"``
    reads ``row.get("title")``), a function of the row (for fallbacks such as
    ``lambda r: r.get("date") or r.get("published")``), or ``None``.
    """
    return collect_sources(
        make_source(*(_field(row, f) for f in (url, title, snippet, date, author)), snippet_limit=snippet_limit)
        if isinstance(row, Mapping)
        else None
        for row in as_list(rows)
    )


def _field(row: Mapping[str, Any], field: Field) -> object:
    if field is None:
        return None
    return row.get(field) if isinstance(field, str) else field(row)


def first_text(row: object, *names: str) -> str | None:
    """The first value of ``row`` among ``names`` that is a non-blank string (returned as sent)."""
    for name in names:
        value = as_dict(row).get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def answer_text(value: object) -> str | None:
    """``value`` sanitized (control characters removed, markdown kept) and stripped when it is a
    string with visible text; ``None`` otherwise."""
    return (sanitize(value).strip() or None) if isinstance(value, str) else None


def clamp_count(value: object, default: int, maximum: int | None) -> int:
    """Upstream count per PROVIDERS.md §1.3: floor to int, then ``min(maximum, max(1, n))``.

    Booleans, non-numbers, zero and negative values give ``default``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    try:
        number = int(value)
    except (OverflowError, ValueError):
        return default
    if number <= 0:
        return default
    return number if maximum is None else min(maximum, number)


def start_date(recency: str | None, now: datetime | None = None) -> str | None:
    """``YYYY-MM-DD`` (UTC) of ``today - N days`` for a recency window, or ``None`` when unset."""
    days = RECENCY_DAYS.get(recency or "")
    if days is None:
        return None
    moment = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return (moment - timedelta(days=days)).strftime("%Y-%m-%d")


def text_list(value: object, *, limit: int | None = None) -> list[str]:
    """Clean, de-duplicated, non-empty strings from a list (anything else gives ``[]``)."""
    if not isinstance(value, (list, tuple)):
        return []
    seen: dict[str, None] = {}
    for item in value:
        text = plain_text(item, collapse=True)
        if text and text not in seen:
            seen[text] = None
    items = list(seen)
    return items[:limit] if limit is not None else items


def join_texts(parts: Iterable[object], separator: str) -> str | None:
    """Join the non-empty, de-duplicated string parts with ``separator`` (``None`` when none)."""
    seen: dict[str, None] = {}
    for part in parts:
        if isinstance(part, str) and part.strip() and part.strip() not in seen:
            seen[part.strip()] = None
    return separator.join(seen) if seen else None


class SourceSelection:
    """The sources of one answer as they arrive, cut to ``max_results`` but keeping every cited one.

    The rule (PROVIDERS.md §1.3): sources are de-duplicated by canonical URL (provider order, the
    first one kept), the first ``max_results`` are listed, and so is every later one whose URL a
    citation names (citations are never truncated, so what they point at stays listed). A citation
    may name a URL before its source arrives.

    Kept incrementally for streamed answers: :meth:`add` and :meth:`cite` cost O(what they are
    given), :meth:`sources_event` O(1) when nothing changed and O(selection) when it did; nothing
    re-scans the sources or citations seen so far.

    Attributes:
        max_results: how many sources are listed whether cited or not.
        fill_titles: a repeat of a kept source whose title is only its URL gives it its title (and
            a snippet it lacks): for parsers that make a source from a citation that carries no
            title before the search result naming it arrives (Responses).
        dropped: provider rows left out for lack of a usable URL, carried by :meth:`selection`
            (see :class:`SourceTuple`).
    """

    def __init__(self, max_results: int, *, fill_titles: bool = False) -> None:
        self.max_results = max_results
        self.fill_titles = fill_titles
        self.dropped = 0
        self._sources: list[Source] = []
        self._positions: dict[str, int] = {}  # canonical URL -> index in _sources
        self._cited: set[str] = set()  # canonical URLs
        self._cited_beyond: list[int] = []  # sorted indices >= max_results of cited sources
        self._changed = False

    @property
    def sources(self) -> list[Source]:
        """Every distinct source added so far, in provider order (listed or not; do not modify)."""
        return self._sources

    def add(self, sources: Iterable[Source]) -> None:
        """Add sources in provider order; a repeat (same canonical URL) keeps the first one."""
        for source in sources:
            key = canonical_url(source.url)
            index = self._positions.get(key)
            if index is not None:
                if self.fill_titles:
                    self._fill(index, key, source)
                continue
            index = self._positions[key] = len(self._sources)
            self._sources.append(source)
            if index < self.max_results:
                self._changed = True
            elif key in self._cited:
                self._cited_beyond.append(index)  # the largest index so far: the list stays sorted
                self._changed = True

    def cite(self, urls: Iterable[str]) -> None:
        """Mark ``urls`` as cited (blank ones are ignored): their sources stay listed."""
        for url in urls:
            key = canonical_url(url) if url else ""
            if key and key not in self._cited:
                self._cited.add(key)
                self._list_beyond(key, listed=True)

    def cite_only(self, urls: Iterable[str]) -> None:
        """Make ``urls`` the whole set of cited URLs (for a provider whose citations arrive as
        snapshots that may also lose an entry). O(len(urls) + the URLs cited before)."""
        keys = {canonical_url(url) for url in urls if url}
        for key in self._cited - keys:
            self._list_beyond(key, listed=False)
        for key in keys - self._cited:
            self._list_beyond(key, listed=True)
        self._cited = keys

    def selection(self) -> SourceTuple:
        """The listed sources: the first ``max_results``, then the cited later ones, in provider order."""
        beyond = (self._sources[index] for index in self._cited_beyond)
        return SourceTuple([*self._sources[: self.max_results], *beyond], self.dropped)

    def sources_event(self) -> list[SearchEvent]:
        """``[SourcesFound(selection, replace=True)]`` when the selection changed since the last
        call (or, the first time, since it was created empty), else ``[]``."""
        if not self._changed:
            return []
        self._changed = False
        return [SourcesFound(self.selection(), replace=True)]

    def _list_beyond(self, key: str, *, listed: bool) -> None:
        """List (or stop listing) the source of ``key`` when it lies beyond ``max_results``."""
        index = self._positions.get(key)
        if index is None or index < self.max_results:
            return
        if listed:
            bisect.insort(self._cited_beyond, index)
        else:
            self._cited_beyond.remove(index)
        self._changed = True

    def _fill(self, index: int, key: str, source: Source) -> None:
        kept = self._sources[index]
        if kept.title == kept.url and source.title != source.url:
            self._sources[index] = replace(kept, title=source.title, snippet=kept.snippet or source.snippet)
            if index < self.max_results or key in self._cited:
                self._changed = True


def limit_sources(sources: Sequence[Source], max_results: int, cited_urls: Iterable[str] = ()) -> SourceTuple:
    """``sources`` cut by the :class:`SourceSelection` rule: de-duplicated by canonical URL
    (provider order), the first ``max_results``, plus every later one whose URL is in ``cited_urls``.
    The result keeps the ``dropped`` count of ``sources`` (0 for a plain sequence); sources cut by
    the limit are not counted as dropped."""
    selection = SourceSelection(max_results)
    selection.cite(cited_urls)
    selection.add(sources)
    selection.dropped = getattr(sources, "dropped", 0)
    return selection.selection()


def int_field(mapping: object, *names: str, minimum: int | None = None) -> int | None:
    """The first value of ``mapping`` among ``names`` that is an ``int`` (booleans are not) and, when
    ``minimum`` is given, at least ``minimum``; ``None`` when there is none (or ``mapping`` is not a
    dict)."""
    row = as_dict(mapping)
    for name in names:
        value = row.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and (minimum is None or value >= minimum):
            return value
    return None


def cost_field(mapping: object, name: str) -> float | None:
    """The US dollar amount ``mapping[name]`` when it is a plausible cost of one run (a number from
    0 to $100, not a boolean: :func:`~websearch_tui.core.costs.plausible_usd`); ``None`` otherwise
    (also when ``mapping`` is not a dict). For a cost a provider reports with its answer (Exa's
    ``costDollars.total``, Valyu's ``total_deduction_dollars``)."""
    value = as_dict(mapping).get(name)
    return float(value) if plausible_usd(value) else None


UsageField = str | int | None
"""How :func:`usage_from` gets one count: a key of the raw usage object, a count already read
elsewhere (an ``int``, e.g. from a nested object), or ``None``."""


def usage_from(
    raw: object,
    *,
    input: UsageField = None,  # noqa: A002 - mirrors Usage.input_tokens
    output: UsageField = None,
    total: UsageField = None,
    searches: UsageField = None,
) -> Usage | None:
    """A :class:`Usage` from a provider usage object, or ``None`` when no count is known.

    Each count is read with :func:`int_field` (non-negative ints only) when given as a key, taken as
    is when given as an ``int``; ``raw`` that is not a dict reads as ``{}``.
    """

    def count(spec: UsageField) -> int | None:
        if isinstance(spec, str):
            return int_field(raw, spec, minimum=0)
        return spec if isinstance(spec, int) and not isinstance(spec, bool) else None

    usage = Usage(
        input_tokens=count(input),
        output_tokens=count(output),
        total_tokens=count(total),
        search_requests=count(searches),
    )
    return usage if usage != Usage() else None


def choice_option(value: object, choices: Sequence[str], default: str, name: str) -> tuple[str, list[str]]:
    """``(choice, notes)`` for a string option that must be one of ``choices`` (case-insensitive).

    A valid value gives itself lower-cased and no note; anything else gives ``default`` and the note
    ``"<name> <value!r> is not one of <a, b, c>; used <default>."`` (``name`` such as
    ``"OpenAI search_context_size"``).
    """
    if isinstance(value, str) and value.lower() in choices:
        return value.lower(), []
    return default, [f"{name} {value!r} is not one of {', '.join(choices)}; used {default}."]


def as_dict(value: object) -> dict[str, Any]:
    """``value`` if it is a dict, else an empty dict (for optional nested objects)."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """``value`` if it is a list, else an empty list (for optional arrays that may be ``null``)."""
    return value if isinstance(value, list) else []


def find_message(value: object, keys: Sequence[str] = ("message", "detail", "error"), _depth: int = 0) -> str | None:
    """The first non-empty string found under ``keys`` (in order), searching nested objects.

    ``{"detail": {"error": "x"}}`` gives ``"x"``; a bare string gives itself; FastAPI-style
    ``detail`` lists of ``{"msg": ...}`` give their messages joined with ``"; "``.
    """
    if _depth > 5:
        return None
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list):
        found = [m for m in (find_message(item, (*keys, "msg"), _depth + 1) for item in value) if m]
        return "; ".join(found) or None
    if isinstance(value, dict):
        for key in keys:
            if key in value:
                message = find_message(value[key], keys, _depth + 1)
                if message:
                    return message
    return None


def api_error_describer(
    prefix: str, extract: Callable[[Any], str | None] | None = None
) -> Callable[[int, str, Any], str]:
    """An ``transport.http`` error describer giving ``"<prefix> (<status>): <message>"``.

    ``extract(parsed_json)`` picks the message out of a JSON error body (default
    :func:`find_message`); when it finds nothing, a redacted excerpt of the raw body is used.
    """
    pick = extract or find_message

    def describe(status: int, text: str, parsed: Any) -> str:
        message = pick(parsed) if parsed is not None else None
        return f"{prefix} ({status}): {excerpt(message or text, 500) or 'no details'}"

    return describe


def header(response_headers: Any, *names: str) -> str | None:
    """The first non-empty header among ``names`` (case-insensitive), cleaned; else ``None``."""
    for name in names:
        value = plain_text(response_headers.get(name), collapse=True)
        if value:
            return value
    return None


def code_text(code: object) -> str | None:
    """A business error code as clean text (``1701`` and ``"1701"`` both give ``"1701"``);
    ``None`` for an absent, boolean or blank code."""
    if code is None or isinstance(code, bool):
        return None
    return plain_text(str(code), collapse=True)
