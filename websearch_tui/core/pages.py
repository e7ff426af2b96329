"""Pages read from the web: what the reader returns, why it may fail, and its settings.

- :class:`Page`: one page's main content as Markdown, with its facts (addresses, HTTP status,
  title, site, author, date, size, digest); ``to_dict()`` is the JSON the CLI and MCP give.
- :class:`PageError`: a page that could not be read, with a :class:`PageReason` and a message that
  says what happened and what to do.
- :class:`ReaderSettings`: the ``[reader]`` table of ``config.toml``.

Core: no HTTP, no UI. The reader itself (fetching, the address guard, extraction) is
:mod:`websearch_tui.reader`.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from websearch_tui.core.errors import safe_text
from websearch_tui.core.records import record
from websearch_tui.core.text import pattern, truncate

MIB = 1024 * 1024
DEFAULT_MAX_BYTES = 5 * MIB
"""The most body bytes read from one page (after decompression) unless ``[reader] max_bytes`` says
otherwise: 5 MiB."""
MAX_BYTES_RANGE = (64 * 1024, 100 * MIB)
"""The values ``[reader] max_bytes`` may take, in bytes (64 KiB to 100 MiB)."""
DEFAULT_TIMEOUT = 30.0
"""Seconds one page may take to arrive (connecting, every redirect, the whole body)."""
TIMEOUT_RANGE = (1.0, 600.0)
DEFAULT_MAX_AGE = 86_400.0
"""Seconds after which a stored copy of a page is stale and the page is fetched again (one day)."""
MAX_AGE_RANGE = (0.0, 365 * 86_400.0)
MAX_MESSAGE_CHARS = 1000
"""The longest :class:`PageError` message kept (a hostile URL or header cannot make it longer)."""


class PageReason(str, Enum):
    """Why a page could not be read (the ``reason`` of a :class:`PageError`)."""

    BLOCKED = "blocked"
    """The address is not public (loopback, private, link-local, metadata, ...) and not allowed."""
    HTTP_STATUS = "http_status"
    """The server answered with an error status (4xx, 5xx) or a redirect without a target."""
    TOO_LARGE = "too_large"
    """The page is bigger than the reader takes (a PDF past ``max_bytes``, too many HTML elements)."""
    NO_MAIN_TEXT = "no_main_text"
    """The page arrived but no main text was found in it (empty, all boilerplate, a scanned PDF)."""
    TIMEOUT = "timeout"
    """The page did not arrive, or its text could not be extracted, in time."""
    NETWORK = "network"
    """The host could not be resolved or reached, or the connection broke."""
    UNSUPPORTED = "unsupported"
    """Not a page with text (an image, an archive, an encrypted PDF, an unknown content coding)."""
    BAD_URL = "bad_url"
    """The URL is not an absolute http(s) URL without credentials."""
    TOO_MANY_REDIRECTS = "too_many_redirects"
    """More redirects than the reader follows, or a redirect loop."""


class PageError(Exception):
    """A page could not be read.

    Attributes:
        reason: the :class:`PageReason`.
        message: what happened and what to do, sanitised (no escapes or control characters),
            secrets redacted, at most :data:`MAX_MESSAGE_CHARS` characters; also ``str(error)``.
        url: the URL that was asked for, when known.
        status: the HTTP status received, when one was.
    """

    def __init__(
        self, reason: PageReason | str, message: str, *, url: str | None = None, status: int | None = None
    ) -> None:
        self.reason = PageReason(reason)
        self.message = truncate(safe_text(message), MAX_MESSAGE_CHARS)
        self.url = url
        self.status = status
        super().__init__(self.message)

    @property
    def line(self) -> str:
        """The reason and the message on one line, as the CLI and the MCP tool show it:
        ``"http_status: example.com answered HTTP 404: the page does not exist; check the URL"``
        (a message that starts with its reason already, ``"blocked: ..."``, as it is)."""
        reason = self.reason.value
        return self.message if self.message.startswith(f"{reason}:") else f"{reason}: {self.message}"


@record(frozen=True)
class Page:
    """One page as the reader found it.

    Attributes:
        url: the URL that was asked for.
        final_url: where the content came from, after redirects.
        status: the final HTTP status (2xx).
        title: the page's title, or ``None``.
        site: the site's name (the page's own, else its host without ``www.``), or ``None``.
        author: the author(s) the page names, or ``None``.
        published_date: the publication date as an ISO date (``"2024-05-01"``), or ``None``.
        text: the main content as Markdown (headings, lists, tables and links kept), sanitised.
        word_count: the number of whitespace-separated words in ``text``.
        truncated: True when the body was longer than ``max_bytes`` and only its start was read.
        retrieved_at: when the body was received (UTC, aware).
        content_sha256: the SHA-256 of the body bytes read (after decompression), hex.
        content_type: the media type it came as (``"text/html"``, ``"application/pdf"``, ...).
        from_history: True when this is the copy kept in the history (read earlier, at
            ``retrieved_at``), not a read just made; not part of :meth:`to_dict`.
    """

    url: str
    final_url: str
    status: int
    title: str | None
    site: str | None
    author: str | None
    published_date: str | None
    text: str
    word_count: int
    truncated: bool
    retrieved_at: datetime
    content_sha256: str
    content_type: str
    from_history: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The page as JSON-ready data: every field but ``from_history``, ``retrieved_at`` as ISO 8601
        UTC with ``Z`` (``"2026-12-02T18:00:00Z"``)."""
        moment = self.retrieved_at.astimezone(timezone.utc).replace(microsecond=0, tzinfo=None)
        return {
            "url": self.url,
            "final_url": self.final_url,
            "status": self.status,
            "title": self.title,
            "site": self.site,
            "author": self.author,
            "published_date": self.published_date,
            "text": self.text,
            "word_count": self.word_count,
            "truncated": self.truncated,
            "retrieved_at": moment.isoformat() + "Z",
            "content_sha256": self.content_sha256,
            "content_type": self.content_type,
        }


def utc_now() -> datetime:
    """The current time, UTC, aware (what :attr:`Page.retrieved_at` holds)."""
    return datetime.now(timezone.utc)


@record(frozen=True)
class ReaderSettings:
    """The ``[reader]`` table.

    Attributes:
        allow_private: hosts (names, IP addresses or networks such as ``"10.0.0.0/8"``) the reader
            may reach although they are not public addresses (loopback, private, link-local, ...).
        max_bytes: the most body bytes read from one page, after decompression
            (:data:`MAX_BYTES_RANGE`); a longer HTML or text page is read up to there and marked
            truncated, a longer PDF is refused.
        timeout: seconds one page may take to arrive (:data:`TIMEOUT_RANGE`).
        max_age: seconds after which a stored copy of a page is fetched again (:data:`MAX_AGE_RANGE`).
    """

    allow_private: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = DEFAULT_TIMEOUT
    max_age: float = DEFAULT_MAX_AGE


Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_HOST_NAME = r"(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?)*"
"""A host name in lower case: dot-separated labels of letters, digits, ``-`` and ``_`` (linear: each
label's characters are matched once)."""


def allowed_host(entry: str) -> str | Network:
    """One ``[reader] allow_private`` entry: an IP address (``"127.0.0.1"``, ``"::1"``, ``"[::1]"``)
    or network (``"10.0.0.0/8"``) as a :data:`Network` (an address is a network of one), else a host
    name in lower case without a trailing dot (``"intranet.example"``).

    Raises:
        ValueError: ``entry`` is none of those; the message says what is expected.
    """
    text = entry.strip().lower().rstrip(".")
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        pass
    if pattern(_HOST_NAME).fullmatch(text) and not text.replace(".", "").isdigit():
        return text
    raise ValueError(
        f'{entry!r} is not a host name, an IP address or a network (such as "127.0.0.1", "::1", '
        '"intranet.example" or "10.0.0.0/8")'
    )
