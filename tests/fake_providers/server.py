"""A loopback HTTP/1.1 server on asyncio streams, with full control over the bytes on the wire.

The server runs its own event loop in a daemon thread, so the same instance serves sync tests,
async tests (any event loop) and CLI subprocesses. Routes are keyed by ``(METHOD, path)``; a route
value is a :class:`FakeResponse`, a (sync or async) callable ``handler(request) -> FakeResponse``,
or a list of those served in order (the last one repeats).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip as gzip_module
import html
import inspect
import json
import socket
import sys
import threading
import traceback
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

Handler = Any  # FakeResponse | Callable[[FakeRequest], FakeResponse | Awaitable[FakeResponse]] | list[...]
Target = str | tuple[str, str]  # provider id, "/path" (any method) or (METHOD, "/path")
When = Callable[["FakeRequest"], bool] | None  # which requests a fault applies to (None: all)

_MAX_HEADER_BYTES = 256 * 1024


@dataclass
class FakeRequest:
    """One request as received: method, path, query params, lower-cased headers and raw body."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes = b""
    target: str = ""
    query_list: list[tuple[str, str]] = field(default_factory=list)
    server: FakeServer | None = field(default=None, repr=False, compare=False)

    def json(self) -> Any:
        """The body decoded as JSON (raises ``ValueError`` when it is not JSON)."""
        return json.loads(self.body)

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (invalid bytes replaced)."""
        return self.body.decode("utf-8", "replace")

    def form(self) -> dict[str, str]:
        """The body parsed as ``application/x-www-form-urlencoded`` (last value wins)."""
        return dict(parse_qsl(self.text, keep_blank_values=True))

    def header(self, name: str, default: str | None = None) -> str | None:
        """A header value by case-insensitive name."""
        return self.headers.get(name.lower(), default)

    def credential(self) -> str:
        """The credential header the request carried (``Authorization``, ``x-api-key``,
        ``X-Subscription-Token`` or ``x-goog-api-key``, value as sent), or ``"no credential"``."""
        for name in ("authorization", "x-api-key", "x-subscription-token", "x-goog-api-key"):
            if value := self.header(name):
                return value
        return "no credential"

    def bearer(self) -> str | None:
        """The token of an ``Authorization: Bearer <token>`` header, or None."""
        value = self.header("authorization") or ""
        scheme, _, token = value.partition(" ")
        if scheme.lower() != "bearer":
            return None
        return token.strip() or None


@dataclass
class FakeResponse:
    """What to send back, and how to send it.

    ``body`` may be bytes, str (sent as UTF-8, ``text/plain``) or any JSON-able value (serialised
    without ASCII escaping, ``application/json``); ``None`` means an empty body. An explicit
    ``content-type`` header wins. ``chunks`` replaces ``body`` with pieces written one by one, with
    a flush (and ``chunk_delay``) between them. ``delay`` waits before the status line. ``gzip``
    compresses the whole body; ``encoding`` compresses it otherwise: ``"deflate"`` (zlib-wrapped),
    ``"raw-deflate"`` (sent as ``deflate`` without the zlib header) or any other name, sent as that
    ``Content-Encoding`` with the body as it is (a coding the client never asked for).
    ``truncate_at`` announces the full length but closes the connection after that many body bytes
    (as sent: compressed bytes when compressed). ``chunked`` uses ``Transfer-Encoding: chunked``
    (one frame per chunk). With ``hold``, the body stops after ``hold_after`` pieces until that
    event is set (a test holds a stream mid-way, see :meth:`FakeServer.hold`).
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = b""
    chunks: list[bytes] | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    gzip: bool = False
    encoding: str | None = None
    truncate_at: int | None = None
    chunked: bool = False
    reason: str | None = None
    hold: threading.Event | None = None
    hold_after: int = 0

    def header(self, name: str) -> str | None:
        """A header value by case-insensitive name."""
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None

    def content_type(self) -> str | None:
        """The explicit content type, else the one implied by the body's Python type."""
        return self.header("content-type") or _encode_body(self.body)[1]

    def body_bytes(self) -> bytes:
        """The uncompressed body as one byte string (the chunks joined, when given)."""
        if self.chunks is not None:
            return b"".join(self.chunks)
        return _encode_body(self.body)[0]

    def pieces(self) -> list[bytes]:
        """The uncompressed body as the list of pieces that will be written."""
        return list(self.chunks) if self.chunks is not None else [self.body_bytes()]

    def with_body(self, data: bytes, chunks: list[bytes] | None = None) -> FakeResponse:
        """A copy with new raw body bytes (and optional chunking), keeping the content type."""
        headers = dict(self.headers)
        if self.header("content-type") is None and (ctype := self.content_type()):
            headers["Content-Type"] = ctype
        return replace(self, headers=headers, body=data, chunks=chunks)


def _encode_body(body: Any) -> tuple[bytes, str | None]:
    if body is None:
        return b"", None
    if isinstance(body, bytes | bytearray | memoryview):
        return bytes(body), None
    if isinstance(body, str):
        return body.encode("utf-8"), "text/plain; charset=utf-8"
    return json.dumps(body, ensure_ascii=False).encode("utf-8"), "application/json"


# --------------------------------------------------------------------------- byte helpers


def _compressed(coding: str, data: bytes) -> bytes:
    """``data`` packed for ``Content-Encoding: coding`` (see :class:`FakeResponse`'s ``encoding``)."""
    if coding == "gzip":
        return gzip_module.compress(data)
    if coding in ("deflate", "raw-deflate"):
        packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS if coding == "deflate" else -zlib.MAX_WBITS)
        return packer.compress(data) + packer.flush()
    return data


def sse_frames(events: Iterable[Any], *, crlf: bool = False, done: bool = False) -> list[bytes]:
    """One framed SSE event per item, as bytes.

    An item is a JSON-able value (sent as one ``data:`` line), a str (each line becomes a ``data:``
    line), raw bytes (sent unchanged), or a tuple ``(event_name, data)`` which adds ``event: name``.
    ``done`` appends ``data: [DONE]``; ``crlf`` frames lines with ``\\r\\n`` instead of ``\\n``.
    """
    nl = "\r\n" if crlf else "\n"
    frames: list[bytes] = []
    for item in list(events) + (["[DONE]"] if done else []):
        if isinstance(item, bytes):
            frames.append(item)
            continue
        name, data = item if isinstance(item, tuple) else (None, item)
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        lines = ([f"event: {name}"] if name else []) + [f"data: {line}" for line in text.split("\n")]
        frames.append((nl.join(lines) + nl + nl).encode("utf-8"))
    return frames


def sse(events: Iterable[Any], *, crlf: bool = False, done: bool = False) -> bytes:
    """A complete ``text/event-stream`` body (see :func:`sse_frames` for the item forms)."""
    return b"".join(sse_frames(events, crlf=crlf, done=done))


def sse_response(
    events: Iterable[Any] | bytes,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    crlf: bool = False,
    done: bool = False,
    chunk_delay: float = 0.0,
) -> FakeResponse:
    """A chunked ``text/event-stream`` response writing one event per chunk (raw bytes: one chunk)."""
    chunks = [events] if isinstance(events, bytes) else sse_frames(events, crlf=crlf, done=done)
    all_headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **(headers or {})}
    return FakeResponse(status, all_headers, chunks=chunks, chunked=True, chunk_delay=chunk_delay)


def split_every(data: bytes, n: int) -> list[bytes]:
    """``data`` cut into pieces of ``n`` bytes (the last may be shorter)."""
    if n <= 0:
        raise ValueError("n must be positive")
    return [data[i : i + n] for i in range(0, len(data), n)] or [b""]


def split_at(data: bytes, offsets: Iterable[int]) -> list[bytes]:
    """``data`` cut at the given byte offsets (any offsets, including inside a UTF-8 character)."""
    cuts = sorted({o for o in offsets if 0 < o < len(data)})
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def utf8_split_offsets(data: bytes) -> list[int]:
    """Offsets that fall inside a multi-byte UTF-8 character (one per character, after its first byte)."""
    return [i for i, byte in enumerate(data) if 0x80 <= byte < 0xC0 and not 0x80 <= data[i - 1] < 0xC0]


def sse_cut_offsets(data: bytes) -> list[int]:
    """Offsets that cut an SSE body everywhere a stream parser can go wrong: on both sides of every
    line-break byte (inside ``\\r\\n``, between the two breaks that end an event), inside every line's
    field name, just after its colon and in the middle of its value, and inside every multi-byte UTF-8
    character. A handful of cuts per line, where cutting every few bytes would mostly add cuts inside
    JSON text, which a parser buffers like any other."""
    cuts = set(utf8_split_offsets(data))
    start = 0
    for i, byte in enumerate(data):
        if byte not in (0x0A, 0x0D):
            continue
        cuts.update((i, i + 1))
        line = data[start:i]
        cuts.update(start + k for k in (2, line.find(b":") + 1, len(line) // 2) if 0 < k < len(line))
        start = i + 1
    return sorted(cut for cut in cuts if 0 < cut < len(data))


def sse_event_bounds(data: bytes) -> list[int]:
    """Byte offsets just after each blank line that ends an SSE event (``\\n\\n``, ``\\r\\n\\r\\n``, ``\\r\\r``)."""
    bounds, i = [], 0
    while i < len(data):
        for sep in (b"\r\n\r\n", b"\n\n", b"\r\r"):
            if data.startswith(sep, i):
                bounds.append(i + len(sep))
                i += len(sep)
                break
        else:
            i += 1
    return bounds


DATA_DIR = Path(__file__).with_name("data")
"""The fakes' payload files (``tests/fake_providers/data/<name>``)."""


@functools.cache
def _read_data(name: str) -> str:
    return (DATA_DIR / name).read_text(encoding="utf-8")


def load_text(name: str) -> str:
    """The data file ``data/<name>`` as text."""
    return _read_data(name)


def json_body_or_refusal(
    request: FakeRequest, validate: Callable[[Any], str | None], refuse: Callable[[int, str], FakeResponse]
) -> tuple[Any, FakeResponse | None]:
    """``(body, None)`` for a request whose JSON body passes ``validate`` (a problem's words, or
    ``None``), else ``(None, refuse(400, problem))``; a body that is not JSON is validated as ``None``."""
    try:
        body = request.json()
    except ValueError:
        body = None
    problem = validate(body)
    return (None, refuse(400, problem)) if problem else (body, None)


def load_data(name: str, query: str | None = None) -> Any:
    """A fresh copy of the JSON data file ``data/<name>``.

    With ``query``, every ``{query}`` inside a JSON string (a whole value or part of one, e.g.
    ``"{query} tutorial"``) is replaced by ``query``, JSON-escaped.
    """
    text = _read_data(name)
    if query is not None:
        text = text.replace("{query}", json.dumps(query)[1:-1])
    return json.loads(text)


def reason_phrase(status: int, default: str = "Error") -> str:
    """The standard reason phrase of ``status`` (``"Too Many Requests"``), else ``default``."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return default


def html_error_page(status: int, message: str | None = None) -> str:
    """A small nginx-style HTML error page for ``status``."""
    title = html.escape(f"{status} {reason_phrase(status)}")
    detail = f"<p>{html.escape(message)}</p>\n" if message else ""
    return (
        f"<!DOCTYPE html>\n<html>\n<head><title>{title}</title></head>\n<body>\n"
        f"<center><h1>{title}</h1></center>\n{detail}<hr><center>nginx</center>\n</body>\n</html>\n"
    )


# --------------------------------------------------------------------------- the server


class _Sequence:
    """Route value that serves its items in order; the last one repeats."""

    def __init__(self, items: Sequence[Handler]) -> None:
        if not items:
            raise ValueError("a response sequence needs at least one item")
        self.items = list(items)
        self.index = 0

    def next(self) -> Handler:
        item = self.items[min(self.index, len(self.items) - 1)]
        self.index += 1
        return item


async def _call(handler: Handler, request: FakeRequest) -> FakeResponse:
    while isinstance(handler, _Sequence):
        handler = handler.next()
    result = handler(request) if callable(handler) else handler
    if inspect.isawaitable(result):
        result = await result
    return result if isinstance(result, FakeResponse) else FakeResponse(200, body=result)


class FakeServer:
    """Loopback fake of the provider APIs (127.0.0.1, random port by default).

    Use ``with FakeServer() as srv:`` (or ``async with``), or ``start()``/``stop()``. Each provider
    is mounted under its own prefix (``/ddgs``, ``/exa``, ``/parallel``, ``/brave``, ``/tavily``,
    ``/searxng``, ``/perplexity``); point a provider at ``srv.url("brave")``.

    Knobs: ``delay`` (seconds before every status line), ``token_delay`` (seconds between streamed
    SSE tokens/events of the default streaming routes), :meth:`set_delay` per path prefix, and the
    fault helpers :meth:`fail`, :meth:`html_page`, :meth:`empty`, :meth:`hang`, :meth:`truncate`,
    :meth:`gzip`, :meth:`split`, :meth:`crlf`, :meth:`cut_stream`, :meth:`use` (named variants). Most
    take ``when=`` (a ``FakeRequest -> bool``) to fault only some requests of a route, e.g. only an
    MCP ``tools/call``; :meth:`wrap` with a function of ``.faults`` rewrites payloads.
    """

    def __init__(
        self,
        *,
        port: int = 0,
        delay: float = 0.0,
        token_delay: float = 0.0,
        default_routes: bool = True,
        verbose: bool = False,
    ) -> None:
        self.host = "127.0.0.1"
        self.port = port
        self.delay = delay
        self.token_delay = token_delay
        self.verbose = verbose
        self.errors: list[str] = []
        self._default_routes = default_routes
        self._routes: dict[tuple[str, str], Handler] = {}
        self._prefix_delays: dict[str, float] = {}
        self._requests: list[FakeRequest] = []
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self.reset()

    # ---- lifecycle

    def start(self) -> FakeServer:
        """Bind and serve in a daemon thread; returns once the port is known."""
        if self._thread is not None:
            return self
        ready = threading.Event()
        failure: list[BaseException] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, args=(ready, failure), name="fake-providers", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            self._thread.join(5)
            self._thread = None
            raise failure[0]
        return self

    def stop(self) -> None:
        """Stop serving, close open connections and join the thread."""
        if self._thread is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._thread = None

    def serve_forever(self) -> None:
        """Start (if needed) and block until KeyboardInterrupt, then stop."""
        self.start()
        try:
            while self._thread is not None and self._thread.is_alive():
                self._thread.join(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeServer:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    def _run(self, ready: threading.Event, failure: list[BaseException]) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)
        try:
            server = loop.run_until_complete(
                asyncio.start_server(self._serve_connection, self.host, self.port, limit=_MAX_HEADER_BYTES)
            )
        except BaseException as exc:  # noqa: BLE001 - reported to the starting thread
            failure.append(exc)
            ready.set()
            loop.close()
            return
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            for task in list(self._connections):
                task.cancel()
            loop.run_until_complete(asyncio.gather(*self._connections, return_exceptions=True))
            loop.run_until_complete(server.wait_closed())
            loop.close()

    # ---- addresses

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    def url(self, prefix: str = "") -> str:
        """Absolute URL for a provider prefix or path: ``url("brave")`` → ``http://127.0.0.1:P/brave``."""
        prefix = prefix.strip()
        return self.base_url + ("/" + prefix.lstrip("/") if prefix else "")

    # ---- routes

    def set(self, method: str, path: str, response: Handler) -> None:
        """Serve ``(method, path)`` with a FakeResponse, a handler, or a list served in order."""
        value = _Sequence(response) if isinstance(response, list | tuple) else response
        with self._lock:
            self._routes[(method.upper(), path)] = value

    def remove(self, method: str, path: str) -> None:
        """Drop a route (it then answers 404)."""
        with self._lock:
            self._routes.pop((method.upper(), path), None)

    def handler(self, method: str, path: str) -> Handler | None:
        """The current value of a route (e.g. the stateful MCP handler, to inspect its sessions)."""
        with self._lock:
            return self._routes.get((method.upper(), path))

    def routes(self) -> list[tuple[str, str]]:
        """All ``(method, path)`` keys currently served."""
        with self._lock:
            return sorted(self._routes)

    def reset(self) -> None:
        """Restore the default routes and knobs' per-prefix delays; clear recorded requests."""
        with self._lock:
            self._routes.clear()
            self._prefix_delays.clear()
            self._requests.clear()
            if self._default_routes:
                from .routes import default_routes

                for (method, path), value in default_routes().items():
                    self.set(method, path, value)

    def set_delay(self, seconds: float, prefix: str = "") -> None:
        """Delay every response whose path starts with ``prefix`` (``""``: all; adds to ``delay``)."""
        with self._lock:
            self._prefix_delays[prefix] = seconds

    # ---- recorded requests

    @property
    def requests(self) -> list[FakeRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str, method: str | None = None) -> list[FakeRequest]:
        """Recorded requests to one path (optionally one method)."""
        return [r for r in self.requests if r.path == path and (method is None or r.method == method.upper())]

    def last_request(self, path: str | None = None) -> FakeRequest:
        """The most recent request (to ``path`` when given); raises LookupError when there is none."""
        found = self.requests_to(path) if path else self.requests
        if not found:
            raise LookupError(f"no request recorded{' for ' + path if path else ''}")
        return found[-1]

    def clear_requests(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self._requests.clear()

    # ---- fault injection

    def resolve(self, target: Target) -> list[tuple[str, str]]:
        """Route keys for a provider id, a ``"/path"`` (every method) or a ``(METHOD, "/path")`` key."""
        from .routes import PROVIDERS

        with self._lock:
            if isinstance(target, tuple):
                return [(target[0].upper(), target[1])]
            if target in PROVIDERS:
                return [k for k in self._routes if k[1].startswith(f"/{target}/")]
            keys = [k for k in self._routes if k[1] == target]
        if not keys:
            raise KeyError(f"no route matches {target!r}")
        return keys

    def wrap(self, target: Target, transform: Callable[[FakeResponse], FakeResponse], *, when: When = None) -> None:
        """Pass every response of the target routes through ``transform`` (with ``when``: only the
        responses to requests for which ``when(request)`` is true; the others pass unchanged)."""
        for key in self.resolve(target):
            inner = self.handler(*key)

            async def wrapped(request: FakeRequest, _inner: Handler = inner) -> FakeResponse:
                response = await _call(_inner, request)
                return transform(response) if when is None or when(request) else response

            self.set(*key, wrapped)

    def _answer(self, target: Target, reply: Handler, when: When) -> None:
        """Answer ``reply`` (a FakeResponse or a handler) on the target routes; with ``when``, only to
        the requests it accepts (the route's own handler answers the others and never sees these)."""
        for key in self.resolve(target):
            if when is None:
                self.set(*key, reply)
                continue
            inner = self.handler(*key)

            async def chosen(request: FakeRequest, _inner: Handler = inner) -> FakeResponse:
                return await _call(reply if when(request) else _inner, request)

            self.set(*key, chosen)

    def fail(
        self,
        target: Target,
        status: int,
        *,
        retry_after: float | str | None = None,
        headers: dict[str, str] | None = None,
        body: Any = None,
        times: int | None = None,
        when: When = None,
        echo_key: bool = False,
    ) -> None:
        """Answer ``status`` with the provider's own error body (``times`` times, then the previous route;
        with ``when``, every time but only to the requests ``when`` accepts). With ``echo_key`` the
        error message repeats the credential the request carried, as careless APIs do (to prove that
        the client redacts it).

        Raises:
            ValueError: when ``times`` comes with ``when`` or ``echo_key``.
        """
        from .routes import error_response

        if times and (when is not None or echo_key):
            raise ValueError("fail() takes times, or when/echo_key, not both")
        for key in self.resolve(target):

            def reply(request: FakeRequest | None, _path: str = key[1]) -> FakeResponse:
                echoed = f"{reason_phrase(status)}: rejected {request.credential()}" if request else None
                response = error_response(_path, status, retry_after=retry_after, message=echoed)
                if body is not None:
                    response = replace(response, body=body)
                response.headers.update(headers or {})
                return response

            if times:
                self.set(*key, [reply(None)] * times + [self.handler(*key)])
            else:
                self._answer(key, reply if echo_key else reply(None), when)

    def html_page(self, target: Target, status: int = 200, *, when: When = None) -> None:
        """Answer an HTML error page (``text/html``) with ``status`` on a JSON endpoint."""
        page = FakeResponse(status, {"Content-Type": "text/html; charset=utf-8"}, html_error_page(status))
        self._answer(target, page, when)

    def empty(
        self, target: Target, status: int = 200, content_type: str | None = "application/json", *, when: When = None
    ) -> None:
        """Answer ``status`` with an empty body (and the given content type, if any)."""
        headers = {"Content-Type": content_type} if content_type else {}
        self._answer(target, FakeResponse(status, headers, b""), when)

    def hang(self, target: Target, seconds: float = 30.0, *, when: When = None) -> None:
        """Hold the target's answers ``seconds`` before the status line (a server that does not answer)."""
        self.wrap(target, lambda r: replace(r, delay=r.delay + seconds), when=when)

    def hold(self, target: Target, *, when: When = None) -> threading.Event:
        """Stop each multi-piece body of the target (a stream) halfway, after half of its pieces,
        until the returned event is set: a test sees the client in the middle of a stream for as
        long as it needs, instead of racing ``token_delay``."""
        release = threading.Event()

        def transform(r: FakeResponse) -> FakeResponse:
            pieces = len(r.pieces())
            return replace(r, hold=release, hold_after=pieces // 2) if pieces > 1 else r

        self.wrap(target, transform, when=when)
        return release

    def truncate(self, target: Target, at: int | None = None, *, when: When = None) -> None:
        """Close the connection after ``at`` body bytes (default: half) while announcing the full body
        (sent uncompressed, so the cut falls where it is meant to)."""

        def transform(r: FakeResponse) -> FakeResponse:
            return replace(r, gzip=False, truncate_at=len(r.body_bytes()) // 2 if at is None else at)

        self.wrap(target, transform, when=when)

    def gzip(self, target: Target, *, when: When = None) -> None:
        """Send the target's bodies with ``Content-Encoding: gzip``."""
        self.wrap(target, lambda r: replace(r, gzip=True), when=when)

    def split(
        self,
        target: Target,
        *,
        every: int | None = None,
        offsets: Iterable[int] | None = None,
        inside_utf8: bool = False,
        chunk_delay: float = 0.01,
    ) -> None:
        """Re-chunk the target's bodies: every N bytes, at offsets, and/or inside each multi-byte character.

        The small ``chunk_delay`` makes the pieces reach the client as separate reads.
        """
        fixed = list(offsets or [])

        def transform(response: FakeResponse) -> FakeResponse:
            data = response.body_bytes()
            cuts = fixed + (list(range(every, len(data), every)) if every else [])
            cuts += utf8_split_offsets(data) if inside_utf8 else []
            out = response.with_body(data, split_at(data, cuts))
            return replace(out, chunk_delay=max(response.chunk_delay, chunk_delay))

        self.wrap(target, transform)

    def crlf(self, target: Target) -> None:
        """Rewrite the target's bodies with ``\\r\\n`` line endings (SSE framing with CRLF)."""

        def convert(piece: bytes) -> bytes:
            return piece.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")

        self.wrap(target, lambda r: r.with_body(convert(r.body_bytes()), [convert(p) for p in r.pieces()]))

    def cut_stream(self, target: Target, after_events: int = 1, *, when: When = None) -> None:
        """Close an SSE stream in the middle of the event that follows ``after_events`` complete events
        (sent uncompressed, so the cut falls where it is meant to)."""

        def transform(response: FakeResponse) -> FakeResponse:
            data = response.body_bytes()
            bounds = [0, *sse_event_bounds(data), len(data)]
            start = bounds[min(after_events, len(bounds) - 2)]
            end = bounds[min(after_events + 1, len(bounds) - 1)]
            return replace(response, gzip=False, truncate_at=start + max(1, (end - start) // 2))

        self.wrap(target, transform, when=when)

    def use(self, provider: str, variant: str = "default", **options: Any) -> None:
        """Install a named variant of a provider's routes (see ``routes.VARIANTS``)."""
        from .routes import variant_routes

        for (method, path), value in variant_routes(provider, variant, **options).items():
            self.set(method, path, value)

    # ---- config for CLI runs

    def config_toml(self, **search: Any) -> str:
        """A websearch-tui ``config.toml`` pointing all seven providers at this server."""
        from .routes import config_toml

        return config_toml(self.base_url, **search)

    def write_config(self, path: str | Path, **search: Any) -> Path:
        """Write :meth:`config_toml` to ``path``; returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.config_toml(**search), encoding="utf-8")
        return path

    def env(self) -> dict[str, str]:
        """Fake API keys (env var → value) the default routes accept."""
        from .routes import FAKE_KEYS

        return dict(FAKE_KEYS)

    # ---- HTTP/1.1 on asyncio streams

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                with self._lock:
                    self._requests.append(request)
                response = await self._dispatch(request)
                if not await self._write_response(writer, request, response):
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _read_request(self, reader: asyncio.StreamReader) -> FakeRequest | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                headers[name] = f"{headers[name]}, {value.strip()}" if name in headers else value.strip()
        headers[":version"] = version
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = b""
            while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                body += await reader.readexactly(size + 2)
                body = body[:-2]
            await reader.readuntil(b"\r\n")  # trailer end (no trailers expected)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
        parts = urlsplit(target)
        query_list = parse_qsl(parts.query, keep_blank_values=True)
        return FakeRequest(
            method=method.upper(),
            path=parts.path,
            query=dict(query_list),
            headers=headers,
            body=body,
            target=target,
            query_list=query_list,
            server=self,
        )

    async def _dispatch(self, request: FakeRequest) -> FakeResponse:
        with self._lock:
            handler = self._routes.get((request.method, request.path))
            known_path = any(path == request.path for _, path in self._routes)
        if handler is None:
            status = 405 if known_path else 404
            return FakeResponse(status, body={"error": f"fake_providers: no route for {request.method} {request.path}"})
        try:
            return await _call(handler, request)
        except Exception:  # noqa: BLE001 - surfaced as a 500 and kept in self.errors
            text = traceback.format_exc()
            self.errors.append(text)
            return FakeResponse(500, body=f"fake_providers handler crashed:\n{text}")

    def _pre_delay(self, request: FakeRequest, response: FakeResponse) -> float:
        with self._lock:
            prefix_delay = sum(s for p, s in self._prefix_delays.items() if request.path.startswith(p))
        return self.delay + prefix_delay + response.delay

    async def _write_response(self, writer: asyncio.StreamWriter, request: FakeRequest, response: FakeResponse) -> bool:
        """Write one response; returns whether the connection may be reused."""
        if (pause := self._pre_delay(request, response)) > 0:
            await asyncio.sleep(pause)
        pieces = response.pieces()
        coding = "gzip" if response.gzip else response.encoding
        if coding:
            packed = _compressed(coding, b"".join(pieces))
            size = max(1, -(-len(packed) // len(pieces)))
            pieces = split_every(packed, size)
        total = sum(len(p) for p in pieces)
        no_body = request.method == "HEAD" or response.status in (204, 304) or response.status < 200

        keep_alive = (
            request.headers.get(":version") == "HTTP/1.1"
            and request.headers.get("connection", "").lower() != "close"
            and (response.header("connection") or "").lower() != "close"
            and response.truncate_at is None
        )
        headers: list[tuple[str, str]] = []
        if response.header("content-type") is None and (ctype := response.content_type()):
            headers.append(("Content-Type", ctype))
        if coding:
            headers.append(("Content-Encoding", "deflate" if coding == "raw-deflate" else coding))
        if not no_body and response.header("content-length") is None and response.header("transfer-encoding") is None:
            headers.append(("Transfer-Encoding", "chunked") if response.chunked else ("Content-Length", str(total)))
        headers.append(("Server", "fake-providers"))
        if response.header("connection") is None:
            headers.append(("Connection", "keep-alive" if keep_alive else "close"))
        headers.extend(response.headers.items())
        reason = response.reason if response.reason is not None else reason_phrase(response.status, "Unknown")
        head = f"HTTP/1.1 {response.status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
        writer.write(head.encode("latin-1"))
        await writer.drain()
        if self.verbose:
            print(f"{request.method} {request.target} -> {response.status}", file=sys.stderr, flush=True)
        if no_body:
            return keep_alive

        remaining = response.truncate_at
        for index, piece in enumerate(pieces):
            if index and response.chunk_delay > 0:
                await asyncio.sleep(response.chunk_delay)
            if response.hold is not None and index == response.hold_after:
                while not response.hold.is_set():  # until the test releases the rest
                    await asyncio.sleep(0.01)
            if remaining is not None:
                piece = piece[:remaining]
                remaining -= len(piece)
            if piece:
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece) if response.chunked else piece)
                await writer.drain()
            if remaining == 0:
                return False
        if response.chunked:
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        return keep_alive and remaining is None
