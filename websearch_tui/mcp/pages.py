"""What the MCP ``fetch_page`` tool needs besides its body in :mod:`websearch_tui.mcp.tools`: its
input schema and argument checks, the part of a long page one call returns, and the pages read
lately (so paging through a long page reads it once).

A call returns at most ``max_chars`` characters of the page's text from ``start``, cut at a
paragraph break (else a space) when one is in the part's second half, with the page's total length
and the ``start`` of the next part (``None`` at the end).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from websearch_tui.core.errors import safe_document
from websearch_tui.core.pages import Page, utc_now
from websearch_tui.core.text import MAX_URL_CHARS

DEFAULT_MAX_CHARS = 20_000
"""Characters of text one ``fetch_page`` call returns unless ``max_chars`` says otherwise."""
MAX_CHARS_RANGE = (500, 100_000)
PAGES_KEPT = 8
"""Pages kept for paging (the most recently read), each for at most ``[reader] max_age`` seconds."""

FETCH_PAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "minLength": 1, "maxLength": MAX_URL_CHARS},
        "start": {"type": "integer", "minimum": 0, "description": "next_start of the previous part."},
        "max_chars": {"type": "integer", "minimum": MAX_CHARS_RANGE[0], "maximum": MAX_CHARS_RANGE[1]},
    },
    "required": ["url"],
    "additionalProperties": False,
}
FETCH_PAGE_DESCRIPTION = (
    "Read a web page: its main text as Markdown, with title, site, author, date. "
    "A long page comes in parts: call again with start=next_start."
)


class ArgumentError(ValueError):
    """A ``fetch_page`` argument is missing or wrong; the message says which and what it takes."""


@dataclass(frozen=True)
class PageRequest:
    """A checked ``fetch_page`` call: ``url``, ``start`` (characters) and ``max_chars``."""

    url: str
    start: int = 0
    max_chars: int = DEFAULT_MAX_CHARS

    @classmethod
    def of(cls, arguments: Mapping[str, Any]) -> PageRequest:
        """The call's arguments, checked (``null`` means "not given").

        Raises:
            ArgumentError: an unknown argument, a missing or empty ``url``, a ``start`` that is not a
                whole number of 0 or more, a ``max_chars`` out of :data:`MAX_CHARS_RANGE`.
        """
        unknown = sorted(set(arguments) - set(FETCH_PAGE_SCHEMA["properties"]))
        if unknown:
            raise ArgumentError(f"fetch_page takes url, start and max_chars (got {', '.join(map(repr, unknown))})")
        url = arguments.get("url")
        if not isinstance(url, str) or not url.strip() or len(url) > MAX_URL_CHARS:
            raise ArgumentError(f"url is required: an http or https URL of at most {MAX_URL_CHARS} characters")
        start = _whole(arguments, "start", 0)
        max_chars = _whole(arguments, "max_chars", DEFAULT_MAX_CHARS)
        low, high = MAX_CHARS_RANGE
        if start < 0 or not low <= max_chars <= high:
            raise ArgumentError(f"start must be 0 or more and max_chars from {low:,} to {high:,}")
        return cls(url.strip(), start, max_chars)


def _whole(arguments: Mapping[str, Any], name: str, default: int) -> int:
    value = arguments.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"{name} must be a whole number, not {value!r}")
    return value


@dataclass(frozen=True)
class PagePart:
    """The part of a page's text one call returns: ``text[start:end]`` of ``total`` characters;
    ``next_start`` is ``end``, or ``None`` when the part reaches the end."""

    start: int
    end: int
    total: int
    text: str

    @property
    def next_start(self) -> int | None:
        """Where the next part starts, ``None`` after the last part."""
        return self.end if self.end < self.total else None

    @classmethod
    def of(cls, text: str, start: int, max_chars: int) -> PagePart:
        """At most ``max_chars`` characters of ``text`` from ``start``, ending at a paragraph break
        (else a space) in the second half of that span when the text goes on after it.

        Raises:
            ArgumentError: ``start`` is past the end of the text.
        """
        total = len(text)
        if start >= total and total:
            raise ArgumentError(f"start {start} is past the end of the text ({total:,} characters)")
        end = min(total, start + max_chars)
        if end < total:
            half = start + max_chars // 2
            cut = text.rfind("\n\n", half, end)
            cut = cut if cut >= 0 else text.rfind(" ", half, end)
            end = cut + 1 if cut >= 0 else end
        return cls(start, end, total, text[start:end])

    def document(self, page: Page) -> dict[str, Any]:
        """The structured content: the page's fields (:meth:`Page.to_dict`) with this part as
        ``text``, and ``start``, ``next_start``, ``total_chars``; every string sanitised and redacted."""
        fields = {**page.to_dict(), "text": self.text}
        document: dict[str, Any] = safe_document(
            {**fields, "start": self.start, "next_start": self.next_start, "total_chars": self.total}
        )
        return document

    def note(self) -> str:
        """Where this part is in the page: ``"Characters 0-20,000 of 54,321; the rest: fetch_page with
        start=20000."`` (the whole text: ``"The whole text: 1,234 characters."``)."""
        if self.start == 0 and self.next_start is None:
            return f"The whole text: {self.total:,} characters."
        rest = f"the rest: fetch_page with start={self.next_start}." if self.next_start is not None else "the end."
        return f"Characters {self.start:,}-{self.end:,} of {self.total:,}; {rest}"


class RecentPages:
    """The pages read lately, by the URL asked for: at most :data:`PAGES_KEPT` (the least recently
    used is dropped first), each while younger than ``max_age`` seconds (``[reader] max_age``; 0:
    none is kept)."""

    def __init__(self, max_age: float, size: int = PAGES_KEPT) -> None:
        self.max_age = max_age
        self.size = size
        self._pages: OrderedDict[str, Page] = OrderedDict()

    def get(self, url: str) -> Page | None:
        """The page read for ``url`` when it is still fresh, else ``None`` (a stale one is dropped)."""
        page = self._pages.get(url)
        if page is None:
            return None
        if (utc_now() - page.retrieved_at).total_seconds() >= self.max_age:
            del self._pages[url]
            return None
        self._pages.move_to_end(url)
        return page

    def put(self, url: str, page: Page) -> None:
        """Keep ``page`` as read for ``url``."""
        self._pages[url] = page
        self._pages.move_to_end(url)
        while len(self._pages) > self.size:
            self._pages.popitem(last=False)
