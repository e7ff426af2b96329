"""What the Zhipu (BigModel) family shares: Zhipu Web Search (REST) and Z.AI Web Search Prime (MCP).

- :data:`RECENCY_FILTERS`: our recency -> ``search_recency_filter``;
- :data:`CODE_KINDS` / :func:`code_kind`: business error codes -> :class:`ErrorKind`;
- :func:`error_envelope`: the ``{"error": {"code", "message"}}`` body (sent even with HTTP 200);
- :func:`parse_results`: result rows -> :class:`Source` (PROVIDERS.md §2.14, §2.16).
"""

from __future__ import annotations

from typing import Any

from websearch_tui.core.errors import ErrorKind, excerpt, kind_for_status, mentions_quota
from websearch_tui.core.models import Source
from websearch_tui.core.text import safe_url
from websearch_tui.providers._parse import as_dict, code_text, find_message, sources_from

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


def parse_results(rows: object) -> list[Source]:
    """Sources from Zhipu / Z.AI result rows.

    Row: ``{title, content | summary, link | url, media, publish_date | date, icon, refer}`` ->
    title (falls back to the URL), url (first http(s) one of ``link``/``url``; rows without one are
    dropped), snippet, published_date (``""`` -> None), author = ``media``.
    """
    return sources_from(
        rows,
        url=lambda row: next((u for u in (row.get("link"), row.get("url")) if safe_url(u)), None),
        title="title",
        snippet=lambda row: row.get("content") or row.get("summary"),
        date=lambda row: row.get("publish_date") or row.get("date"),
        author="media",
    )
