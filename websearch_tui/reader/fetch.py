"""Fetching one page: redirects followed by hand, the body read with a cap, failures as reasons.

:func:`fetch` sends ``GET`` through the reader's guarded client
(:func:`~websearch_tui.reader.transport.build_reader_client`), follows at most
:data:`MAX_REDIRECTS` redirects (each target checked by
:func:`~websearch_tui.reader.guard.check_url`; its address is checked when the connection is made),
refuses a loop, reads the body through the shared HTTP layer's
:func:`~websearch_tui.providers.transport.http.body_chunks` (gzip and deflate inflated a bounded
step at a time, so a decompression bomb stops at the cap) and returns a :class:`Fetched`: the bytes,
what they are (:class:`BodyKind`) and whether the cap cut them. Decoding and extraction come after,
off the event loop (:mod:`~websearch_tui.reader.charset`, :mod:`~websearch_tui.reader.extract`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

import httpx

from websearch_tui.core.pages import MIB, PageError, PageReason
from websearch_tui.providers.transport.http import body_chunks, unresolved_host
from websearch_tui.reader.guard import check_url

MAX_REDIRECTS = 5
"""Redirects followed for one page; one more is refused (``too_many_redirects``)."""
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
SNIFF_BYTES = 1024
"""How much of a body without a usable content type is looked at to tell HTML, PDF and text apart."""


class BodyKind(str, Enum):
    """What a body is read as."""

    HTML = "html"
    PDF = "pdf"
    TEXT = "text"


@dataclass(frozen=True)
class Fetched:
    """One page's body as it arrived.

    Attributes:
        url: the URL asked for.
        final_url: where the body came from, after redirects.
        status: the HTTP status (2xx).
        content_type: the media type (``"text/html"``; sniffed when the server gave none).
        charset: the ``charset`` of the ``Content-Type`` header, or ``None``.
        kind: how the body is read (:class:`BodyKind`).
        body: the bytes read, decompressed, at most ``max_bytes``.
        truncated: True when the body was longer and only its start was read.
    """

    url: str
    final_url: str
    status: int
    content_type: str
    charset: str | None
    kind: BodyKind
    body: bytes
    truncated: bool


async def fetch(client: httpx.AsyncClient, url: str, *, max_bytes: int) -> Fetched:
    """Fetch ``url`` with ``client`` (the reader's guarded client), following redirects by hand.

    Raises:
        PageError: ``bad_url`` (the URL or a redirect target is not a usable http(s) URL),
            ``blocked`` (an address the guard refuses), ``too_many_redirects`` (more than
            :data:`MAX_REDIRECTS`, or a loop), ``http_status`` (a 4xx or 5xx answer, or a redirect
            without a target), ``unsupported`` (not HTML, PDF or text; a content coding that was not
            asked for), ``too_large`` (a PDF longer than ``max_bytes``), ``timeout``, ``network``.
    """
    current = check_url(url)
    seen = {str(current)}
    while True:
        with _mapped(url, current):
            async with client.stream("GET", current) as response:
                if response.status_code not in REDIRECT_STATUSES:
                    return await _read(url, response, max_bytes)
                target = _redirect_target(url, current, response)
        if len(seen) > MAX_REDIRECTS:
            raise PageError(
                PageReason.TOO_MANY_REDIRECTS,
                f"{url} redirects more than {MAX_REDIRECTS} times (the last hop went to {target}); "
                "open the final address yourself if it is the page you want",
                url=url,
            )
        if str(target) in seen:
            raise PageError(
                PageReason.TOO_MANY_REDIRECTS,
                f"{url} redirects in a loop ({current} sends back to {target}); the site is misconfigured",
                url=url,
            )
        seen.add(str(target))
        current = target


def _redirect_target(url: str, current: httpx.URL, response: httpx.Response) -> httpx.URL:
    """Where a redirect ``response`` to ``current`` leads (relative targets resolved), checked.

    Raises:
        PageError: ``http_status`` for a redirect without a ``Location``, ``bad_url`` for a target
            that is not a usable http(s) URL.
    """
    location = response.headers.get("location", "").strip()
    if not location:
        raise PageError(
            PageReason.HTTP_STATUS,
            f"{current.host} answered HTTP {response.status_code} (a redirect) without saying where to",
            url=url,
            status=response.status_code,
        )
    try:
        target = current.join(location)
    except (httpx.InvalidURL, ValueError):
        raise PageError(
            PageReason.BAD_URL, f"{current.host} redirects to an unusable address: {location[:200]}", url=url
        ) from None
    return check_url(str(target))


async def _read(url: str, response: httpx.Response, max_bytes: int) -> Fetched:
    """The final answer: an error status refused, the body read (at most ``max_bytes``) and
    classified.

    Raises:
        PageError: ``http_status``, ``unsupported``, ``too_large`` (see :func:`fetch`).
    """
    status = response.status_code
    if not 200 <= status < 300:
        raise PageError(PageReason.HTTP_STATUS, status_message(response.url.host, status), url=url, status=status)
    media, charset = _content_type(response.headers.get("content-type", ""))
    declared = _kind_of(media)
    if declared is None and media not in _SNIFFED:
        raise PageError(
            PageReason.UNSUPPORTED,
            f"{response.url.host} sent {media}, not a page with text (HTML, plain text or PDF)",
            url=url,
            status=status,
        )
    if declared is BodyKind.PDF:
        _refuse_long_pdf(url, response, max_bytes)
    body, truncated = await read_body(response, max_bytes)
    kind = declared or _sniff(body)
    if kind is None:
        raise PageError(
            PageReason.UNSUPPORTED,
            f"{response.url.host} sent {media or 'a body without a content type'} that is not HTML, plain text or PDF",
            url=url,
            status=status,
        )
    if kind is BodyKind.PDF and truncated:
        raise _too_large_pdf(url, max_bytes)
    shown = media if declared is not None else _SNIFFED_TYPES[kind]
    return Fetched(url, str(response.url), status, shown, charset, kind, body, truncated)


_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
_SNIFFED = frozenset({"", "application/octet-stream", "binary/octet-stream", "application/unknown"})
"""Content types that say nothing: the body itself is looked at."""
_SNIFFED_TYPES = {BodyKind.HTML: "text/html", BodyKind.PDF: "application/pdf", BodyKind.TEXT: "text/plain"}
"""The content type a sniffed body is reported as."""


def _kind_of(media: str) -> BodyKind | None:
    """How a body of media type ``media`` is read (``None``: not a page, or unknown)."""
    if media in _HTML_TYPES:
        return BodyKind.HTML
    if media in _PDF_TYPES:
        return BodyKind.PDF
    if media.startswith("text/"):
        return BodyKind.TEXT
    return None


def _content_type(header: str) -> tuple[str, str | None]:
    """``(media type, charset or None)`` of a ``Content-Type`` header, both in lower case."""
    media, *parameters = header.split(";")
    charset = None
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip("\"'"):
            charset = value.strip().strip("\"'").lower()
    return media.strip().lower(), charset


def _sniff(body: bytes) -> BodyKind | None:
    """What a body without a usable content type is: a PDF by its signature, HTML by a tag among
    its first bytes, text when those are valid UTF-8 without NUL bytes; else ``None``."""
    head = body[:SNIFF_BYTES]
    if head.startswith(b"%PDF-"):
        return BodyKind.PDF
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<!--", b"<?xml")) or b"<html" in start:
        return BodyKind.HTML
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not only a character cut at the end of the sample
            return None
    return BodyKind.TEXT if b"\x00" not in head else None


def _refuse_long_pdf(url: str, response: httpx.Response, max_bytes: int) -> None:
    """Refuse a PDF whose ``Content-Length`` already says it is longer than ``max_bytes`` (a cut
    PDF cannot be read), before any of it is read.

    Raises:
        PageError: ``too_large``.
    """
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > max_bytes and "content-encoding" not in response.headers:
        raise _too_large_pdf(url, max_bytes)


def _too_large_pdf(url: str, max_bytes: int) -> PageError:
    return PageError(
        PageReason.TOO_LARGE,
        f"the PDF at {url} is larger than {max_bytes / MIB:g} MiB; raise [reader] max_bytes in config.toml to read it",
        url=url,
    )


async def read_body(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """The (decompressed) body, at most ``max_bytes`` of it, and whether there was more; reading
    stops at the cap, so an endless body or a decompression bomb costs at most ``max_bytes`` of
    memory (plus one inflate step).

    Raises:
        httpx.DecodingError: corrupt compressed data, or a content coding that was not asked for.
    """
    chunks: list[bytes] = []
    size = 0
    async for chunk in body_chunks(response):
        room = max_bytes - size
        if len(chunk) > room:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def status_message(host: str, status: int) -> str:
    """What an error status means for a reader, and what to do: ``"example.com answered HTTP 404:
    the page does not exist (any more); check the URL"``."""
    return f"{host} answered HTTP {status}: {_STATUS_MEANINGS.get(status) or _class_meaning(status)}"


_STATUS_MEANINGS = {
    401: "the page needs a login; open it in a browser",
    403: "the site refuses access (it may need a login, or block automated readers); open it in a browser",
    404: "the page does not exist; check the URL",
    410: "the page was removed; look for an archived copy",
    429: "the site is limiting requests; try again later",
    451: "the page is unavailable for legal reasons",
}


def _class_meaning(status: int) -> str:
    if status >= 500:
        return "the site had a server error; try again later"
    if status >= 400:
        return "the site refused the request; open it in a browser"
    return "an answer the reader does not follow; open it in a browser"


@contextlib.contextmanager
def _mapped(url: str, current: httpx.URL) -> Iterator[None]:
    """Within the block, an httpx failure becomes a :class:`PageError` (``timeout``, ``network``,
    ``unsupported`` for a body that cannot be decoded, ``bad_url`` for a URL httpx refuses)."""
    host = current.host
    try:
        yield
    except httpx.TimeoutException:
        raise PageError(PageReason.TIMEOUT, f"{host} did not answer in time; try again later", url=url) from None
    except httpx.DecodingError as exc:
        message = f"{host} sent a body that could not be decoded ({exc})"
        raise PageError(PageReason.UNSUPPORTED, message, url=url) from None
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        raise PageError(PageReason.BAD_URL, f"not a usable URL ({exc}): {current}", url=url) from None
    except httpx.TransportError as exc:
        raise PageError(PageReason.NETWORK, _network_message(host, exc), url=url) from None


def _network_message(host: str, exc: httpx.TransportError) -> str:
    """A connection failure in words: a name that does not resolve, a refused connection, a cut one."""
    if isinstance(exc, httpx.ConnectError) and unresolved_host(exc):
        return f"could not resolve {host}; check the URL"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect to {host} ({exc}); the site may be down"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"{host} broke off the answer ({exc}); try again later"
    return f"the connection to {host} failed ({type(exc).__name__}: {exc}); try again later"
