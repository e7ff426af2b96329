"""How a page the app read becomes a row of the ``pages`` table, and a row a :class:`Page` again.

A row holds every field of :class:`~websearch_tui.core.pages.Page` (see
:mod:`websearch_tui.history.schema`, version 3); the text (the Markdown) is stored UTF-8 and
zlib-compressed. As for searches (:mod:`websearch_tui.history.codec`), every string passes
:func:`~websearch_tui.core.errors.redact` before it is written, so no configured secret reaches the
file, and a stored row is read back as untrusted input: every string is sanitised again
(:func:`~websearch_tui.core.text.sanitize`), the text is decompressed up to
:data:`MAX_TEXT_BYTES` only, and a malformed row raises :class:`~websearch_tui.history.codec.RowError`.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from websearch_tui.core.errors import redact
from websearch_tui.core.pages import MAX_BYTES_RANGE, Page
from websearch_tui.core.text import sanitize
from websearch_tui.history.codec import RowError

PAGE_COLUMNS = tuple(field.name for field in dataclasses.fields(Page) if field.name != "from_history")
"""The ``pages`` columns :func:`encode_page` fills and :func:`decode_page` reads, in their order: every
field of :class:`~websearch_tui.core.pages.Page` but ``from_history`` (which only a read sets)."""
MAX_TEXT_BYTES = MAX_BYTES_RANGE[1]
"""The longest text, in UTF-8 bytes, a stored row may decompress to (the largest ``[reader]
max_bytes``, 100 MiB): a row that says more is damaged, not read."""


def text_bytes(page: Page) -> int:
    """The length of ``page``'s text in UTF-8 bytes (what the reader's ``max_bytes`` cap is compared with)."""
    return len(page.text.encode("utf-8", "surrogatepass"))


def stored_time(moment: datetime) -> str:
    """``moment`` as the ``retrieved_at`` column holds it: ISO 8601 UTC with microseconds and ``Z``
    (``"2026-05-01T14:03:05.120000Z"``; a naive ``moment`` is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _optional(text: str | None) -> str | None:
    return redact(text) if text is not None else None


def encode_page(page: Page) -> dict[str, object]:
    """The ``pages`` column values of ``page`` (:data:`PAGE_COLUMNS`, in order), every string redacted
    and the text compressed (zlib, level 6; blocking and CPU-bound: some 50 ms for 5 MB of text)."""
    return {
        "url": redact(page.url),
        "final_url": redact(page.final_url),
        "status": int(page.status),
        "title": _optional(page.title),
        "site": _optional(page.site),
        "author": _optional(page.author),
        "published_date": _optional(page.published_date),
        "text": zlib.compress(redact(page.text).encode("utf-8", "surrogatepass"), 6),
        "word_count": int(page.word_count),
        "truncated": int(bool(page.truncated)),
        "retrieved_at": stored_time(page.retrieved_at),
        "content_sha256": redact(page.content_sha256),
        "content_type": redact(page.content_type),
    }


def _inflate(blob: object) -> str:
    """The text of a ``text`` column: decompressed (at most :data:`MAX_TEXT_BYTES`) and decoded.

    Raises:
        RowError: not zlib data, longer than the cap, or not UTF-8.
    """
    if not isinstance(blob, bytes):
        raise RowError("its text is not compressed data")
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(blob, MAX_TEXT_BYTES + 1)
        if len(data) > MAX_TEXT_BYTES or inflater.unconsumed_tail:
            raise RowError(f"its text is longer than {MAX_TEXT_BYTES:,} bytes")
        data += inflater.flush()
        return data.decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise RowError(f"its text cannot be read ({exc})") from None


def _text(value: object, column: str) -> str:
    if not isinstance(value, str):
        raise RowError(f"its {column} is not text")
    return sanitize(value)


def _maybe(value: object, column: str) -> str | None:
    return None if value is None else _text(value, column)


def decode_page(row: Sequence[Any]) -> Page:
    """The :class:`Page` of a row of :data:`PAGE_COLUMNS`, every string sanitised, marked
    ``from_history``.

    Raises:
        RowError: a column is missing or malformed.
    """
    if len(row) != len(PAGE_COLUMNS):
        raise RowError(f"it has {len(row)} columns, not {len(PAGE_COLUMNS)}")
    url, final_url, status, title, site, author, published, blob, words, truncated, retrieved, digest, kind = row
    try:
        moment = datetime.fromisoformat(_text(retrieved, "retrieved_at").replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        numbers = [int(value) for value in (status, words, truncated)]
    except (TypeError, ValueError) as exc:
        raise RowError(f"it is not a readable page ({exc})") from None
    return Page(
        url=_text(url, "url"),
        final_url=_text(final_url, "final_url"),
        status=numbers[0],
        title=_maybe(title, "title"),
        site=_maybe(site, "site"),
        author=_maybe(author, "author"),
        published_date=_maybe(published, "published_date"),
        text=sanitize(_inflate(blob)),
        word_count=numbers[1],
        truncated=bool(numbers[2]),
        retrieved_at=moment.astimezone(timezone.utc),
        content_sha256=_text(digest, "content_sha256"),
        content_type=_text(kind, "content_type"),
        from_history=True,
    )
