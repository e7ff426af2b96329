"""What the Zhipu (BigModel) family shares: Zhipu Web Search (REST), Zhipu Chat Search and Z.AI Web
Search Prime (MCP).

- :data:`RECENCY_FILTERS`: our recency -> ``search_recency_filter``;
- :data:`CODE_KINDS` / :func:`code_kind`: business error codes -> :class:`ErrorKind`;
- :func:`error_envelope`: the ``{"error": {"code", "message"}}`` body (sent even with HTTP 200);
- :func:`error_describer` / :func:`with_code_kind` / :func:`envelope_error`: the wording and kind
  of those errors, with or without an HTTP error status;
- :func:`parse_results`: result rows -> :class:`Source` (PROVIDERS.md §2.14, §2.16);
- :func:`intent_queries`: the ``search_intent`` keywords, the searches the API ran.
"""

from __future__ import annotations

from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt, kind_for_status, mentions_quota
from websearch_tui.core.text import plain_text, safe_url
from websearch_tui.providers.helpers.parse import (
    SourceList,
    as_dict,
    as_list,
    code_text,
    find_message,
    sources_from,
    text_list,
)
from websearch_tui.providers.transport.http import ErrorDescriber

RECENCY_FILTERS = {"day": "oneDay", "week": "oneWeek", "month": "oneMonth", "year": "oneYear"}
"""Our recency -> Zhipu ``search_recency_filter`` (``noLimit`` = no filter, never sent)."""

CODE_KINDS: dict[str, ErrorKind] = {
    **dict.fromkeys(("1000", "1001", "1002", "1003", "1004"), ErrorKind.AUTH),
    "1113": ErrorKind.QUOTA,
    **dict.fromkeys(("1210", "1213", "1214"), ErrorKind.BAD_REQUEST),
    **dict.fromkeys(("1302", "1303", "1701"), ErrorKind.RATE_LIMIT),
    "1305": ErrorKind.SERVER,
    "1702": ErrorKind.CONFIG,
    "1703": ErrorKind.EMPTY,
}
"""Zhipu / Z.AI business error codes: 1000-1004 authentication, 1113 no balance or resource
package, 1210/1213/1214 bad parameters, 1302/1303 request concurrency/frequency, 1305 overloaded,
1701 search concurrency limit, 1702 no search engine available, 1703 engine returned no valid data."""


def code_kind(code: str, message: str = "") -> ErrorKind:
    """The :class:`ErrorKind` of a Zhipu / Z.AI business code (:data:`CODE_KINDS`); an HTTP-like
    code (400-599) is classified as a status; otherwise quota wording gives ``quota``, else ``server``."""
    if code in CODE_KINDS:
        return CODE_KINDS[code]
    if code.isdigit() and 400 <= int(code) <= 599:
        return kind_for_status(int(code), message)
    return ErrorKind.QUOTA if mentions_quota(message) else ErrorKind.SERVER


def error_envelope(parsed: Any) -> tuple[str, str] | None:
    """``(code, message)`` of a ``{"error": {"code": ..., "message": ...}}`` body, else ``None``.

    The code is returned as text (``1701`` and ``"1701"`` both give ``"1701"``; absent -> ``""``);
    a bare ``{"error": "text"}`` gives ``("", "text")``.
    """
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if error is None or error == {}:
        return None
    message = find_message(error, ("message", "msg", "error_message")) or "no message"
    return code_text(as_dict(error).get("code")) or "", excerpt(message, 500)


def error_describer(prefix: str, codes: list[str]) -> ErrorDescriber:
    """An ``transport.http`` describer for non-2xx replies: ``<prefix> (<status>, code <code>): <message>``
    (``<prefix> (<status>): <excerpt>`` without an envelope). Each envelope code it sees is appended
    to ``codes`` so :func:`with_code_kind` can correct the kind afterwards."""

    def describe(status: int, text: str, parsed: Any) -> str:
        envelope = error_envelope(parsed)
        if envelope is None:
            return f"{prefix} ({status}): {excerpt(plain_text(text, collapse=True) or '', 500) or 'no details'}"
        code, message = envelope
        codes.append(code)
        return f"{prefix} ({status}{f', code {code}' if code else ''}): {message}"

    return describe


def with_code_kind(error: ProviderError, codes: list[str]) -> ProviderError:
    """``error`` with its kind taken from the last business code seen (BigModel sends code 1113,
    no balance, with HTTP 429: that is ``quota``, not ``rate_limit``); 401/403 stay ``auth``."""
    kind = CODE_KINDS.get(codes[-1]) if codes else None
    if kind is None or kind is error.kind or error.kind is ErrorKind.AUTH or kind is ErrorKind.EMPTY:
        return error
    return ProviderError(error.provider, kind, error.message, status=error.status, retry_after=error.retry_after)


def envelope_error(provider_id: str, prefix: str, code: str, message: str) -> ProviderError:
    """``<prefix> (code <code>): <message>`` (``no code`` when absent) for an error envelope that
    came with HTTP 200; the kind from :func:`code_kind`."""
    shown = f"code {code}" if code else "no code"
    return ProviderError(provider_id, code_kind(code, message), f"{prefix} ({shown}): {message}")


def parse_results(rows: object) -> SourceList:
    """Sources from Zhipu / Z.AI result rows.

    Row: ``{title, content | summary, link | url, media, publish_date | date, icon, refer}`` ->
    title (falls back to the URL), url (first http(s) one of ``link``/``url``; rows without one are
    dropped), snippet, the date (``publish_date``/``date`` -> ``published_text`` and ISO
    ``published_date``; ``""`` -> None), author = ``media``.
    """
    return sources_from(
        rows,
        url=lambda row: next((u for u in (row.get("link"), row.get("url")) if safe_url(u)), None),
        title="title",
        snippet=lambda row: row.get("content") or row.get("summary"),
        date=lambda row: row.get("publish_date") or row.get("date"),
        author="media",
    )


def intent_queries(payload: object) -> list[str]:
    """The searches a Zhipu / Z.AI answer says it ran: the ``keywords`` of each ``search_intent``
    item (else its ``query``), cleaned and de-duplicated, in order. ``search_intent`` may be a list
    (as documented) or one object (as the official SDK types it); anything else gives ``[]``."""
    intents = as_dict(payload).get("search_intent")
    items = [intents] if isinstance(intents, dict) else as_list(intents)
    return text_list([as_dict(item).get("keywords") or as_dict(item).get("query") for item in items])
