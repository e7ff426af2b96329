"""The streaming-parser contract and its one loop (providers/streaming.py).

The loop is driven over real ``transport.http.stream_sse`` reads from an ``httpx.MockTransport`` (no sockets)
with a small parser written for the test; then each of the five real parsers reads a whole JSON
body through the same contract.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.helpers import make_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, Metadata, Note, SearchEvent
from websearch_tui.providers.families.messages import MessageParser
from websearch_tui.providers.families.responses import ResponsesParser
from websearch_tui.providers.gemini import ChunkParser as GeminiParser
from websearch_tui.providers.perplexity import ChunkParser as PerplexityParser
from websearch_tui.providers.transport import streaming
from websearch_tui.providers.zhipu_chat_search import ChunkParser as ZhipuParser

URL = "https://stream.example/v1/chat"
SSE = {"content-type": "text/event-stream"}


def describe(status: int, text: str, parsed: Any) -> str:
    """The error describer the loop is given (no test here reaches an HTTP error)."""
    return f"Test API error ({status})"


@dataclass
class WordParser:
    """A parser for the test: ``{"word": w}`` gives ``AnswerDelta(w)``; ``{"end": true}`` makes it
    finished (and done, unless ``stop_at_end`` is false); ``{"fail": true}`` raises ``server``."""

    stop_at_end: bool = True
    finished: bool = False
    fed: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.finished and self.stop_at_end

    def feed(self, name: str, payload: Any) -> list[SearchEvent]:
        self.fed.append((name, payload))
        if payload.get("fail"):
            raise ProviderError("perplexity", ErrorKind.SERVER, "upstream failed")
        self.finished = self.finished or bool(payload.get("end"))
        return [AnswerDelta(payload["word"])] if "word" in payload else []

    def closing(self) -> list[SearchEvent]:
        return [Note("closed")]


def frames(*payloads: dict[str, Any]) -> bytes:
    return "".join(f"data: {json.dumps(p)}\n\n" for p in payloads).encode()


class Body(httpx.AsyncByteStream):
    """An SSE body served a byte at a time, remembering how far it was read and whether the response
    was closed."""

    def __init__(self, data: bytes, *, fail_past_end: bool = False) -> None:
        self.chunks = [data[i : i + 1] for i in range(len(data))]
        self.read = 0
        self.closed = False
        self.fail_past_end = fail_past_end

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.chunks:
            self.read += 1
            yield piece
        if self.fail_past_end:
            raise AssertionError("read past the end of the response")

    async def aclose(self) -> None:
        self.closed = True


def serve(body: Body | bytes) -> Callable[[httpx.Request], httpx.Response]:
    def respond(request: httpx.Request) -> httpx.Response:
        if isinstance(body, Body):
            return httpx.Response(200, headers=SSE, stream=body)
        return httpx.Response(200, headers=SSE, content=body)

    return respond


async def run_stream(parser: WordParser, body: Body | bytes, **options: Any) -> list[SearchEvent]:
    ctx = make_ctx("perplexity", serve(body))
    events = streaming.feed_stream(ctx, URL, headers={}, body={}, describe_error=describe, parser=parser, **options)
    return [event async for event in events]


async def test_events_in_order_then_the_closing_events() -> None:
    events = await run_stream(WordParser(), frames({"word": "a"}, {"word": "b"}, {"end": True}))
    assert events == [AnswerDelta("a"), AnswerDelta("b"), Note("closed")]


async def test_reading_stops_once_the_parser_is_done() -> None:
    body = Body(frames({"word": "a"}, {"end": True}) + frames({"word": "never read"}), fail_past_end=True)
    parser = WordParser()
    events = await run_stream(parser, body)
    assert events == [AnswerDelta("a"), Note("closed")]
    assert [payload for _, payload in parser.fed] == [{"word": "a"}, {"end": True}]
    assert body.closed and body.read < len(body.chunks)  # the connection was let go, not drained


async def test_a_finished_parser_that_is_not_done_reads_to_the_end() -> None:
    parser = WordParser(stop_at_end=False)
    events = await run_stream(parser, frames({"end": True}, {"word": "usage after the end"}))
    assert events == [AnswerDelta("usage after the end"), Note("closed")]


async def test_a_stream_that_ends_before_the_parser_finished_ended_early() -> None:
    ctx = make_ctx("perplexity", serve(frames({"word": "a"})))
    seen: list[SearchEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in streaming.feed_stream(
            ctx, URL, headers={}, body={}, describe_error=describe, parser=WordParser()
        ):
            seen.append(event)
    assert seen == [AnswerDelta("a")]  # no closing events after a failure
    assert info.value.kind is ErrorKind.PROTOCOL
    assert info.value.message == "Perplexity stream ended before it finished"


async def test_errors_from_the_parser_go_through_on_error() -> None:
    def relabel(error: ProviderError) -> ProviderError:
        return ProviderError(error.provider, ErrorKind.QUOTA, f"relabelled: {error.message}")

    with pytest.raises(ProviderError) as info:
        await run_stream(WordParser(), frames({"word": "a"}, {"fail": True}), on_error=relabel)
    assert info.value.kind is ErrorKind.QUOTA and info.value.message == "relabelled: upstream failed"


async def test_a_json_body_is_one_payload_named_json() -> None:
    parser = WordParser()
    ctx = make_ctx("perplexity", lambda request: httpx.Response(200, json={"word": "whole", "end": True}))
    events = [
        e async for e in streaming.feed_stream(ctx, URL, headers={}, body={}, describe_error=describe, parser=parser)
    ]
    assert parser.fed == [("json", {"word": "whole", "end": True})]
    assert events == [AnswerDelta("whole"), Note("closed")]


async def test_a_consumer_that_stops_early_closes_the_http_stream() -> None:
    body = Body(frames({"word": "a"}, {"word": "b"}, {"end": True}))
    ctx = make_ctx("perplexity", serve(body))
    events = streaming.feed_stream(ctx, URL, headers={}, body={}, describe_error=describe, parser=WordParser())
    async with aclosing(events) as running:
        async for event in running:
            assert event == AnswerDelta("a")
            break
    assert body.closed and body.read < len(body.chunks)


async def test_several_requests_feed_one_parser_and_close_once() -> None:
    """A continuation (Anthropic ``pause_turn``) runs each request through ``feed_payloads`` and
    asks for the closing events once, after the last."""
    replies = iter([frames({"word": "first"}, {"end": True}), frames({"word": "second"}, {"end": True})])
    ctx = make_ctx("perplexity", lambda request: httpx.Response(200, headers=SSE, content=next(replies)))
    parser = WordParser()
    events: list[SearchEvent] = []
    for _turn in range(2):
        parser.finished = False
        payloads = streaming.sse_payloads(ctx, URL, headers={}, body={}, describe_error=describe)
        events += [event async for event in streaming.feed_payloads(ctx, parser, payloads)]
    events += parser.closing()
    assert events == [AnswerDelta("first"), AnswerDelta("second"), Note("closed")]


# --------------------------------------------------------------------------- the five parsers

WHOLE_BODIES: dict[str, tuple[Callable[[], streaming.StreamParser], Any]] = {
    "messages": (
        lambda: MessageParser(provider="anthropic", label="Anthropic", max_results=5, requested_model="claude"),
        {"type": "message", "id": "msg", "model": "claude", "content": [{"type": "text", "text": "hi"}]},
    ),
    "responses": (
        lambda: ResponsesParser(provider_id="openai", label="OpenAI", requested_model="gpt", max_results=5),
        {
            "id": "r",
            "model": "gpt",
            "status": "completed",
            "output": [{"type": "message", "content": [{"type": "output_text", "text": "hi", "annotations": []}]}],
        },
    ),
    "gemini": (
        lambda: GeminiParser(requested_model="gemini", max_results=5),
        [{"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}],
    ),
    "perplexity": (
        lambda: PerplexityParser(requested_model="sonar", max_results=5),
        {"id": "p", "model": "sonar", "choices": [{"message": {"content": "hi"}}]},
    ),
    "zhipu": (
        lambda: ZhipuParser(requested_model="glm", max_results=5),
        {"id": "z", "model": "glm", "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]},
    ),
}


@pytest.mark.parametrize("kind", WHOLE_BODIES)
def test_every_parser_reads_a_whole_json_body_through_the_contract(kind: str) -> None:
    make, body = WHOLE_BODIES[kind]
    parser = make()
    assert not parser.finished
    events = parser.feed("json", body)
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["hi"]
    assert parser.finished
    assert any(isinstance(e, Metadata) for e in parser.closing())
