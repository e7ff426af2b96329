"""What the streaming chat providers share (Messages, Responses, Gemini, Perplexity, Zhipu chat search).

- :class:`StreamParser` is the contract of their five parsers: ``feed(name, payload)`` per
  payload, ``done`` / ``finished``, ``closing()``;
- :func:`feed_payloads` is the one loop that runs a parser over one request's payloads, and
  :func:`feed_stream` runs one SSE request through it and then yields the closing events
  (:func:`sse_payloads` is that request);
- :class:`MetadataTracker` remembers the model and request id a stream reported and gives a
  ``Metadata`` event only when they first appear or change, plus the closing ``Metadata``;
- :func:`ended_early` is the ``protocol`` error of a stream that stopped before its last chunk.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Protocol

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchEvent, Usage
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.transport import http

Payloads = AsyncGenerator[tuple[str, Any], None]
"""``(event_name, parsed JSON payload)`` pairs of one response, as :func:`http.stream_sse` yields
them (``"json"`` names a whole 2xx JSON body)."""


class StreamParser(Protocol):
    """A provider's parser: turns the payloads of its responses into search events, remembering what
    it has seen (so snapshots are sent only when they change and the closing events can sum up).

    One parser lives for one search, across all its requests (a continuation feeds the same one).
    """

    @property
    def done(self) -> bool:
        """True once the payload that ends the response was fed: the loop reads no further. (A
        provider that may send more after its last answer chunk, usage say, never sets it and the
        stream is read until the server closes it.)"""

    @property
    def finished(self) -> bool:
        """True once the response is complete: a stream that closes while this is false ended
        early (:func:`ended_early`)."""

    def feed(self, name: str, payload: Any) -> list[SearchEvent]:
        """The events one payload adds (``[]`` for one it does not understand).

        ``name`` is the SSE event name (``"message"`` when the event has none, ``"json"`` for a
        whole 2xx JSON body: a server that ignored ``stream: true``, or a request that was not
        streamed); ``payload`` is the parsed JSON, of any type. Text is passed on as sent: the
        reducer sanitizes every string an event carries.

        Raises:
            ProviderError: for an error the payload reports (an error event inside a 200 stream).
        """

    def closing(self) -> list[SearchEvent]:
        """The events that end the search, after its last request: the closing ``Metadata`` (with
        the usage seen), notes about how it ended."""


async def feed_payloads(
    ctx: ProviderContext,
    parser: StreamParser,
    payloads: Payloads,
    *,
    on_error: Callable[[ProviderError], ProviderError] | None = None,
) -> AsyncGenerator[SearchEvent, None]:
    """The one loop every streaming provider runs: yield ``parser.feed(name, payload)`` for each of
    one request's ``payloads``, stopping once ``parser.done``. ``payloads`` is closed (and with it
    the HTTP stream) when this generator is. The closing events are left to the caller, which may
    send more requests to the same parser first.

    Raises:
        ProviderError: from ``payloads`` or ``parser.feed``, passed through ``on_error`` (when
            given) to correct its kind or wording; :func:`ended_early` when the payloads end while
            ``parser.finished`` is false.
    """
    try:
        async with aclosing(payloads) as items:
            async for name, payload in items:
                for event in parser.feed(name, payload):
                    yield event
                if parser.done:
                    break
    except ProviderError as exc:
        if on_error is None:
            raise
        raise on_error(exc) from None
    if not parser.finished:
        raise ended_early(ctx.spec.id, ctx.spec.label)


def sse_payloads(
    ctx: ProviderContext,
    url: str,
    *,
    headers: Mapping[str, str],
    body: Any,
    describe_error: http.ErrorDescriber,
    **sse_options: Any,
) -> Payloads:
    """POST ``body`` (JSON) to ``url`` for an SSE stream; a 2xx JSON body counts as one ``"json"``
    payload. ``sse_options`` go to :func:`http.stream_sse` (``retry_http_errors``, ``max_retries``).

    Raises (while iterated):
        ProviderError: as :func:`http.stream_sse`.
    """
    return http.stream_sse(
        ctx,
        "POST",
        url,
        headers=headers,
        json_body=body,
        describe_error=describe_error,
        json_fallback=True,
        **sse_options,
    )


async def feed_stream(
    ctx: ProviderContext,
    url: str,
    *,
    headers: Mapping[str, str],
    body: Any,
    describe_error: http.ErrorDescriber,
    parser: StreamParser,
    on_error: Callable[[ProviderError], ProviderError] | None = None,
    **sse_options: Any,
) -> AsyncGenerator[SearchEvent, None]:
    """A one-request search: :func:`feed_payloads` over :func:`sse_payloads` (arguments as there),
    then ``parser.closing()``. The HTTP stream is closed when this generator is.

    Raises:
        ProviderError: as :func:`feed_payloads` (nothing of the closing events is yielded then).
    """
    payloads = sse_payloads(ctx, url, headers=headers, body=body, describe_error=describe_error, **sse_options)
    async with aclosing(feed_payloads(ctx, parser, payloads, on_error=on_error)) as events:
        async for event in events:
            yield event
    for event in parser.closing():
        yield event


@dataclass
class MetadataTracker:
    """The model and request id seen so far in one stream.

    ``requested_model`` stands in for the model until the stream names one; ``auth_mode`` goes into
    every ``Metadata``.
    """

    requested_model: str
    auth_mode: str = "api_key"
    model: str | None = None
    request_id: str | None = None
    _sent: bool = False
    _raw: tuple[object, object] | None = None

    def update(self, model: object, request_id: object) -> list[SearchEvent]:
        """``[Metadata]`` on the first call and whenever a non-blank ``model`` or ``request_id``
        (raw values, cleaned here) differs from the one remembered; ``[]`` otherwise. The same raw
        values as the last call (every chunk of a stream repeats them) are not cleaned again."""
        if self._sent and self._raw == (model, request_id):
            return []
        self._raw = (model, request_id)
        clean_model = plain_text(model, collapse=True)
        clean_id = plain_text(request_id, collapse=True)
        changed = False
        if clean_model and clean_model != self.model:
            self.model, changed = clean_model, True
        if clean_id and clean_id != self.request_id:
            self.request_id, changed = clean_id, True
        if not changed and self._sent:
            return []
        self._sent = True
        return [self.metadata()]

    def metadata(self, usage: Usage | None = None) -> Metadata:
        """A ``Metadata`` with the current model (else the requested one), request id and ``usage``."""
        return Metadata(
            model=self.model or self.requested_model, request_id=self.request_id, usage=usage, auth_mode=self.auth_mode
        )


def ended_early(provider_id: str, label: str) -> ProviderError:
    """``protocol`` error ``"<label> stream ended before it finished"``."""
    return ProviderError(provider_id, ErrorKind.PROTOCOL, f"{label} stream ended before it finished")
