"""What the streaming chat providers share (Responses, Gemini, Perplexity, Zhipu chat search).

- :class:`MetadataTracker` remembers the model and request id a stream reported and gives a
  ``Metadata`` event only when they first appear or change, plus the closing ``Metadata``;
- :func:`feed_stream` runs one SSE request through a parser's ``feed``;
- :func:`ended_early` is the ``protocol`` error of a stream that stopped before its last chunk.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchEvent, Usage
from websearch_tui.core.text import plain_text
from websearch_tui.providers import _http
from websearch_tui.providers.base import ProviderContext


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

    def update(self, model: object, request_id: object) -> list[SearchEvent]:
        """``[Metadata]`` on the first call and whenever a non-blank ``model`` or ``request_id``
        (raw values, cleaned here) differs from the one remembered; ``[]`` otherwise."""
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


async def feed_stream(
    ctx: ProviderContext,
    url: str,
    *,
    headers: Mapping[str, str],
    body: Any,
    describe_error: _http.ErrorDescriber,
    feed: Callable[[Any], list[SearchEvent]],
    done: Callable[[Any], bool] | None = None,
    finished: Callable[[], bool] | None = None,
    closing: Callable[[], list[SearchEvent]] | None = None,
    on_error: Callable[[ProviderError], ProviderError] | None = None,
    **sse_options: Any,
) -> AsyncGenerator[SearchEvent, None]:
    """POST ``body`` to ``url`` for an SSE stream (a 2xx JSON body counts as one payload) and yield
    the events ``feed(payload)`` gives for each payload, stopping after one for which ``done`` is
    true; then, when the stream is over, the ``closing()`` events. ``sse_options`` go to
    :func:`_http.stream_sse` (``retry_http_errors``, ``max_retries``). The HTTP stream is closed
    when this generator is.

    Raises:
        ProviderError: from :func:`_http.stream_sse` or ``feed``, passed through ``on_error``
            (when given) to correct its kind or wording; :func:`ended_early` when ``finished()``
            is false after the stream (before the closing events).
    """
    events = _http.stream_sse(
        ctx,
        "POST",
        url,
        headers=headers,
        json_body=body,
        describe_error=describe_error,
        json_fallback=True,
        **sse_options,
    )
    try:
        async with aclosing(events) as payloads:
            async for _name, payload in payloads:
                for event in feed(payload):
                    yield event
                if done is not None and done(payload):
                    break
    except ProviderError as exc:
        if on_error is None:
            raise
        raise on_error(exc) from None
    if finished is not None and not finished():
        raise ended_early(ctx.spec.id, ctx.spec.label)
    for event in closing() if closing is not None else ():
        yield event


def ended_early(provider_id: str, label: str) -> ProviderError:
    """``protocol`` error ``"<label> stream ended before it finished"``."""
    return ProviderError(provider_id, ErrorKind.PROTOCOL, f"{label} stream ended before it finished")
