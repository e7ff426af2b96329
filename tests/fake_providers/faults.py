"""Payload rewrites for fault injection: functions ``FakeResponse -> FakeResponse`` applied to what a
route answered (see :meth:`.server.FakeServer.wrap`).

They understand the three body shapes the fakes send and keep each one's framing:

- a JSON body (``application/json`` or a body starting with ``{``/``[``);
- a ``text/event-stream`` body, whose ``data:`` payloads are rewritten event by event (one chunk per
  event, line endings and ``event:``/``id:`` lines kept);
- anything else (HTML, plain text), rewritten as a whole.

Inside JSON every value goes through a ``node`` function, members before the object that holds
them. A string that itself holds a JSON object or array (an MCP tool text, double-encoded or not) is
decoded, rewritten and encoded again, so the rewrite reaches the search payload wherever it is nested.
A JSON-RPC message (an object with ``jsonrpc``) only has its ``result`` rewritten: the envelope
(``id``, ``method``) is transport, not payload.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .server import FakeResponse, split_at, sse_event_bounds, sse_response, utf8_split_offsets

MARKUP_TITLE = "[bold red]x[/] \x1b[31mred\x1b]0;pwned\x07"
"""A hostile source title: Rich markup, an SGR colour escape and an OSC window-title escape."""
MARKUP_TITLE_SANITIZED = "[bold red]x[/] red"
"""What :data:`MARKUP_TITLE` must become once sanitized: the brackets kept literally, escapes gone."""
UNICODE_TITLE = (
    "tags\U000e0049\U000e0047\U000e004e\U000e004f\U000e0052\U000e0045 zero\u200bwidth soft\u00adhyphen"
    " fillers\u3164\u115f\uffa0 heart\u2764\ufe0f unassigned\u0378"
)
"""A source title of characters the screen and an agent's text must not carry: tag characters (an
invisible "IGNORE"), a zero-width space, a soft hyphen, the Hangul fillers (0 cells wide to Rich, 2
in tmux), the VS16 heart (2 cells in some terminals, 1 in others) and an unassigned code point."""
UNICODE_TITLE_SANITIZED = "tags zerowidth softhyphen fillers heart\u2764 unassigned\ufffd"
"""What :data:`UNICODE_TITLE` must become once sanitized: invisible characters gone, the unassigned
one replaced by U+FFFD."""
PAD_BLOCK = b"x" * (1024 * 1024)
"""One MiB of padding, shared by every padded response (a 50 MB body is 50 references to it)."""

Node = Callable[[Any], Any]
"""Rewrites one JSON value (an object or array whose members are already rewritten, a string that
holds no JSON, a number, a boolean or ``null``)."""
TextRewrite = Callable[[str], str]
"""Rewrites a whole non-JSON body or a non-JSON ``data:`` payload."""

_EVENT_SEPARATOR = re.compile(r"(\r\n\r\n|\n\n|\r\r)")
_LINE_END = re.compile(r"\r\n|\n|\r")
_HTML_ATTRIBUTE = re.compile(r'(=\s*")[^"]*(")')
_HTML_TEXT = re.compile(r">[^<]+<")


# --------------------------------------------------------------------------- body kinds


def is_sse(response: FakeResponse) -> bool:
    """True when the response is a ``text/event-stream``."""
    return "text/event-stream" in (response.content_type() or "").lower()


def is_json(response: FakeResponse, data: bytes) -> bool:
    """True when the response declares JSON or its body starts like a JSON object or array."""
    return "json" in (response.content_type() or "").lower() or data.lstrip()[:1] in (b"{", b"[")


def _nl(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


# --------------------------------------------------------------------------- the walker


def walk(value: Any, node: Node) -> Any:
    """``value`` with every JSON value passed through ``node``, innermost first (JSON-RPC envelopes
    and JSON held in strings handled as the module docstring says)."""
    if isinstance(value, dict):
        if "jsonrpc" in value:
            return {k: walk(v, node) if k == "result" else v for k, v in value.items()}
        return node({k: walk(v, node) for k, v in value.items()})
    if isinstance(value, list):
        return node([walk(item, node) for item in value])
    inner = embedded_json(value)
    if inner is not None:
        return json.dumps(walk(inner, node), ensure_ascii=False)
    return node(value)


def embedded_json(value: Any) -> Any:
    """What a string holding JSON holds: an object, a non-empty array of objects/arrays, or (for a
    double-encoded string) the inner JSON text; ``None`` for anything else (plain text such as an
    answer token ``"[1]"`` stays text)."""
    text = value.strip() if isinstance(value, str) else ""
    if text[:1] not in ("{", "[", '"'):
        return None
    try:
        inner = json.loads(text)
    except ValueError:
        return None
    if isinstance(inner, dict) or (
        inner and isinstance(inner, list) and all(isinstance(i, dict | list) for i in inner)
    ):
        return inner
    return inner if isinstance(inner, str) and embedded_json(inner) is not None else None


def _rewrite_data(data: str, node: Node, text: TextRewrite) -> str:
    try:
        payload = json.loads(data)
    except ValueError:
        return text(data)
    return json.dumps(walk(payload, node), ensure_ascii=False)


def _rewrite_event(event: str, node: Node, text: TextRewrite) -> str:
    lines = _LINE_END.split(event)
    data_lines = [line for line in lines if line.startswith("data:")]
    if not data_lines:
        return event
    data = "\n".join(line[5:].removeprefix(" ") for line in data_lines)
    new = f"data: {_rewrite_data(data, node, text)}"
    out: list[str] = []
    for line in lines:
        if not line.startswith("data:"):
            out.append(line)
        elif new:
            out.append(new)
            new = ""
    return _nl(event).join(out)


def _map_events(response: FakeResponse, change: TextRewrite) -> FakeResponse:
    """An event stream with every event's text (without its blank-line separator) passed through
    ``change``; one chunk per event."""
    parts = _EVENT_SEPARATOR.split(response.body_bytes().decode("utf-8"))
    chunks = [
        (change(event) + separator).encode("utf-8")
        for event, separator in zip(parts[0::2], [*parts[1::2], ""], strict=True)
        if event or separator
    ]
    return response.with_body(b"".join(chunks), chunks)


def rewrite(response: FakeResponse, node: Node, text: TextRewrite) -> FakeResponse:
    """A copy of ``response`` whose JSON payload values went through ``node`` and whose non-JSON text
    went through ``text`` (events stay one chunk each)."""
    if is_sse(response):
        return _map_events(response, lambda event: _rewrite_event(event, node, text))
    data = response.body_bytes()
    body = data.decode("utf-8")
    if is_json(response, data):
        return response.with_body(_rewrite_data(body, node, text).encode("utf-8"))
    return response.with_body(text(body).encode("utf-8"))


def _blank_html(text: str) -> str:
    """HTML with every attribute value and text node emptied (the markup equivalent of null fields)."""
    return _HTML_TEXT.sub("><", _HTML_ATTRIBUTE.sub(r"\1\2", text))


# --------------------------------------------------------------------------- the faults


def _null(value: Any) -> Any:
    return value if isinstance(value, dict | list) else None


def null_fields(response: FakeResponse) -> FakeResponse:
    """Every field of the payload ``null`` (nested objects and lists keep their shape, every leaf
    becomes ``null``); an HTML page gets every attribute value and text node emptied instead."""
    return rewrite(response, _null, _blank_html)


def replace_text(old: str, new: str) -> Callable[[FakeResponse], FakeResponse]:
    """A transform replacing ``old`` by ``new`` inside every payload string (and non-JSON body)."""

    def swap(value: Any) -> Any:
        return value.replace(old, new) if isinstance(value, str) else value

    return lambda response: rewrite(response, swap, swap)


def add_titles(title: str) -> Callable[[FakeResponse], FakeResponse]:
    """A transform giving every payload object that has a ``url`` but no ``title`` the ``title`` (for
    formats whose citations carry no title, such as xAI's ``url_citation``)."""

    def titled(value: Any) -> Any:
        return (
            {**value, "title": title} if isinstance(value, dict) and "url" in value and "title" not in value else value
        )

    return lambda response: rewrite(response, titled, lambda text: text)


def payload_strings(response: FakeResponse) -> list[str]:
    """Every payload string of ``response`` (the leaves :func:`rewrite` would see), in order."""
    found: list[str] = []

    def keep(value: Any) -> Any:
        if isinstance(value, str):
            found.append(value)
        return value

    rewrite(response, keep, keep)
    return found


def _break_json(text: str) -> str:
    """JSON text made invalid by a trailing comma before its last closing bracket."""
    end = max(text.rfind("}"), text.rfind("]"))
    return f"{text[:end]},{text[end:]}" if end >= 0 else text + "{"


def malformed(response: FakeResponse) -> FakeResponse:
    """The payload made invalid: a JSON body (or every JSON ``data:`` payload of a stream) gets a
    trailing comma before its last closing bracket; an HTML page has every ``<`` escaped as ``&lt;``
    (markup that no longer parses as tags)."""
    if is_sse(response):
        return _map_events(response, _break_event)
    data = response.body_bytes()
    if is_json(response, data):
        return response.with_body(_break_json(data.decode("utf-8")).encode("utf-8"))
    return response.with_body(data.replace(b"<", b"&lt;"))


def _break_event(event: str) -> str:
    lines = _LINE_END.split(event)
    broken = [
        f"data: {_break_json(line[5:].strip())}"
        if line.startswith("data:") and line[5:].strip()[:1] in ("{", "[")
        else line
        for line in lines
    ]
    return _nl(event).join(broken)


def empty_body(response: FakeResponse) -> FakeResponse:
    """The response with its status and headers (content type included) but no body at all."""
    return response.with_body(b"")


def truncated(response: FakeResponse) -> FakeResponse:
    """The connection closed mid-payload: a stream in the middle of its middle event, any other body
    halfway (the full length is still announced). The body is sent uncompressed, so the cut falls
    where it is meant to."""
    data = response.body_bytes()
    response = replace(response, gzip=False)
    bounds = [0, *sse_event_bounds(data)] if is_sse(response) else []
    if len(bounds) > 2:
        middle = len(bounds) // 2
        start, end = bounds[middle - 1], bounds[middle]
        return replace(response, truncate_at=start + max(1, (end - start) // 2))
    return replace(response, truncate_at=max(1, len(data) // 2))


def split_events(response: FakeResponse, chunk_delay: float = 0.001) -> FakeResponse:
    """Cut the body in the middle of every SSE event (a JSON or HTML body: into six pieces) and
    inside every multi-byte UTF-8 character, with ``chunk_delay`` seconds between the pieces."""
    data = response.body_bytes()
    bounds = [0, *sse_event_bounds(data)] if is_sse(response) else []
    if len(bounds) > 1:
        cuts = [(a + b) // 2 for a, b in zip(bounds, bounds[1:], strict=False)]
    else:
        step = max(1, len(data) // 6)
        cuts = list(range(step, len(data), step))
    out = response.with_body(data, split_at(data, cuts + utf8_split_offsets(data)))
    return replace(out, chunk_delay=max(response.chunk_delay, chunk_delay))


def crlf_json(response: FakeResponse) -> FakeResponse:
    """A JSON body pretty-printed with ``\\r\\n`` line endings (CRLF between tokens, as some servers
    send); other bodies get their ``\\n`` line endings turned into ``\\r\\n``."""
    data = response.body_bytes()
    if is_json(response, data) and not is_sse(response):
        pretty = json.dumps(json.loads(data), ensure_ascii=False, indent=2).replace("\n", "\r\n")
        return response.with_body(pretty.encode("utf-8"))

    def convert(piece: bytes) -> bytes:
        return piece.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")

    return response.with_body(convert(data), [convert(p) for p in response.pieces()])


def pad(response: FakeResponse, size: int) -> FakeResponse:
    """The response grown to about ``size`` bytes by padding *before* its payload, built lazily from
    :data:`PAD_BLOCK` (no ``size``-byte string is ever made; the body goes out uncompressed).

    JSON: a leading ``"padding"`` member (or array item); SSE: leading 1 MiB ``ping`` events
    (``{"type": "ping", "padding": ...}``, a type every stream parser ignores); anything else: a
    leading HTML comment. The rest of the payload follows unchanged.
    """
    data = response.body_bytes()
    response = replace(response, gzip=False)  # compressing would join the padding into one string
    blocks = [PAD_BLOCK] * max(1, size // len(PAD_BLOCK))
    if is_sse(response):
        nl = _nl(data.decode("utf-8", "replace")).encode()
        event = b"event: ping" + nl + b'data: {"type": "ping", "padding": "' + PAD_BLOCK + b'"}' + nl + nl
        return response.with_body(data, [event] * len(blocks) + response.pieces())
    if is_json(response, data):
        body = data.lstrip()
        opener, rest = body[:1], body[1:].lstrip()
        head = b'{"padding": "' if opener == b"{" else b'["'
        glue = b'"' + (b"" if rest[:1] in (b"}", b"]") else b", ")
        return response.with_body(data, [head, *blocks, glue + rest])
    return response.with_body(data, [b"<!-- ", *blocks, b" -->", data])


FOREIGN_BODY: dict[str, Any] = {
    # what many APIs echo around their answer: none of it is an answer
    "id": "req-1",
    "object": "search",
    "type": "envelope",
    "status": "ok",
    "code": 200,
    "name": "acme",
    "model": "acme-1",
    "query": "python asyncio tutorial",
    "metadata": {},
    "requestId": "req-1",
    "search_id": "req-1",
    "usageMetadata": {},
    "envelope": "acme.search/v9",
    "entries": [{"headline": "Asyncio explained", "href": "https://example.org/asyncio", "blurb": "A tutorial."}],
    "cursor": None,
    "took_ms": 12,
}
"""A valid JSON answer of an API no provider speaks: echoed keys, and none of the keys any parser reads."""
FOREIGN_EVENTS: list[Any] = [
    {"id": "req-1", "object": "chunk", "model": "acme-1", "status": "ok"},  # an unnamed event (SSE "message")
    ("progress", {"phase": "searching", "pct": 10}),
    ("chunk", {"piece": {"text": "Asyncio is "}}),
    ("chunk", {"piece": {"text": "a library."}}),
    ("finish", {"entries": FOREIGN_BODY["entries"], "reason": "complete"}),
]
"""A valid event stream of an API no provider speaks: event names and payload keys no parser reads."""


def foreign_json(response: FakeResponse) -> FakeResponse:
    """A 200 ``application/json`` :data:`FOREIGN_BODY` in place of ``response``."""
    return FakeResponse(200, {"Content-Type": "application/json"}, body=FOREIGN_BODY)


def foreign_sse(response: FakeResponse) -> FakeResponse:
    """A 200 ``text/event-stream`` of :data:`FOREIGN_EVENTS` in place of ``response``."""
    return sse_response(FOREIGN_EVENTS)
