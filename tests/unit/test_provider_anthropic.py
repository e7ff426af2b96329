"""Anthropic provider: request building, SSE parsing, pause_turn, error mapping, fixture conformance, fake server."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer, fake_anthropic
from tests.helpers import Recorder, collect, count_canonical_urls, make_ctx, no_wait, shared_fixture
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import (
    AnswerDelta,
    CitationsFound,
    Metadata,
    Note,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    SourcesFound,
    Usage,
)
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import anthropic, load_stream
from websearch_tui.providers.base import ProviderContext, ProviderState
from websearch_tui.providers.families import messages
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT, date_window, user_prompt

PID = "anthropic"
KEY = "sk-ant-api03-test-key-123456"
CREDS = {"api_key": KEY}
SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8"}
DOCS = "https://docs.python.org/3/library/asyncio.html"
TASKS = "https://docs.python.org/3/library/asyncio-task.html"


# --- wire helpers (also used by test_provider_deepseek) --------------------------------------


def frame(events: list[tuple[str, Any]], newline: str = "\n") -> bytes:
    """``event: <name>`` + ``data: <json>`` SSE framing for ``(name, payload)`` pairs."""
    out = []
    for name, payload in events:
        data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        out.append(f"event: {name}{newline}data: {data}{newline}{newline}")
    return "".join(out).encode("utf-8")


def start(model: str = "claude-haiku-4-5-20251001", mid: str = "msg_1", input_tokens: int = 10) -> tuple[str, Any]:
    message = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": None}
    message["usage"] = {"input_tokens": input_tokens, "output_tokens": 1}
    return "message_start", {"type": "message_start", "message": message}


def block(index: int, content_block: dict[str, Any]) -> tuple[str, Any]:
    return "content_block_start", {"type": "content_block_start", "index": index, "content_block": content_block}


def delta(index: int, body: dict[str, Any]) -> tuple[str, Any]:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": body}


def text(index: int, value: str) -> tuple[str, Any]:
    return delta(index, {"type": "text_delta", "text": value})


def stop(index: int) -> tuple[str, Any]:
    return "content_block_stop", {"type": "content_block_stop", "index": index}


def finish(reason: str = "end_turn", usage: dict[str, Any] | None = None, final: bool = True) -> list[tuple[str, Any]]:
    usage = usage or {"input_tokens": 100, "output_tokens": 20, "server_tool_use": {"web_search_requests": 1}}
    events: list[tuple[str, Any]] = [
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": usage})
    ]
    return events + ([("message_stop", {"type": "message_stop"})] if final else [])


def result(url: str, title: str = "", page_age: str | None = None) -> dict[str, Any]:
    return {
        "type": "web_search_result",
        "url": url,
        "title": title or url,
        "encrypted_content": "x",
        "page_age": page_age,
    }


def location(url: str, title: str, cited: str = "") -> dict[str, Any]:
    return {
        "type": "web_search_result_location",
        "url": url,
        "title": title,
        "cited_text": cited,
        "encrypted_index": "e",
    }


def search(index: int, query: str, results: list[dict[str, Any]] | dict[str, Any]) -> list[tuple[str, Any]]:
    """A ``server_tool_use`` block (query as two ``input_json_delta`` pieces) and its result block."""
    raw = json.dumps({"query": query})
    cut = len(raw) // 2
    return [
        block(index, {"type": "server_tool_use", "id": f"srvtoolu_{index}", "name": "web_search", "input": {}}),
        delta(index, {"type": "input_json_delta", "partial_json": ""}),
        delta(index, {"type": "input_json_delta", "partial_json": raw[:cut]}),
        delta(index, {"type": "input_json_delta", "partial_json": raw[cut:]}),
        stop(index),
        block(index + 1, {"type": "web_search_tool_result", "tool_use_id": f"srvtoolu_{index}", "content": results}),
        stop(index + 1),
    ]


def basic_stream() -> list[tuple[str, Any]]:
    """One search, four results, then plain text, a cited block and more text."""
    results = [result(DOCS, "asyncio docs", "2 days ago"), result(TASKS, "Tasks"), result("https://a.example/1")]
    results.append(result("https://b.example/2", "B"))
    return [
        start(),
        ("ping", {"type": "ping"}),
        *search(0, "python asyncio", results),
        block(2, {"type": "text", "text": ""}),
        text(2, "asyncio"),
        text(2, " is"),
        stop(2),
        block(3, {"citations": [], "type": "text", "text": ""}),
        delta(3, {"type": "citations_delta", "citation": location("https://b.example/2", "B", "b &amp; c")}),
        text(3, " a library"),
        stop(3),
        block(4, {"type": "text", "text": ""}),
        text(4, "."),
        stop(4),
        *finish(),
    ]


def stream_reply(data: bytes | Callable[[], AsyncIterator[bytes]]) -> Callable[[httpx.Request], httpx.Response]:
    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE_HEADERS, content=data() if callable(data) else data)

    return respond


def pieces(data: bytes, cuts: list[int]) -> Callable[[], AsyncIterator[bytes]]:
    """An async byte iterator factory yielding ``data`` cut at ``cuts``."""

    async def chunks() -> AsyncIterator[bytes]:
        bounds = [0, *sorted(c for c in cuts if 0 < c < len(data)), len(data)]
        for a, b in zip(bounds, bounds[1:], strict=False):
            yield data[a:b]

    return chunks


def expected_answer(blocks: list[dict[str, Any]]) -> str:
    """The answer rule of PROVIDERS.md §2.17 applied to whole content blocks: text blocks joined
    with ``""``, a blank line where a tool block sits between two text blocks; thinking ignored."""
    out, gap = "", False
    for item in blocks:
        kind = item.get("type")
        if kind == "text" and item.get("text"):
            if gap and out:
                out += "" if out.endswith("\n\n") else "\n" if out.endswith("\n") else "\n\n"
            out, gap = out + item["text"], False
        elif kind not in ("text", "thinking", "redacted_thinking") and out:
            gap = True
    return out


def fixture_blocks(events: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Whole content blocks rebuilt from raw stream events (for expectations only)."""
    blocks: dict[int, dict[str, Any]] = {}
    for name, payload in events:
        if name == "content_block_start":
            blocks[payload["index"]] = dict(payload["content_block"])
        elif name == "content_block_delta" and payload["delta"]["type"] == "text_delta":
            blocks[payload["index"]]["text"] += payload["delta"]["text"]
    return [blocks[i] for i in sorted(blocks)]


def parse_sse(data: bytes) -> list[tuple[str, Any]]:
    """A test-side SSE reader for LF-framed fixture files (expectations only)."""
    events = []
    for chunk in data.decode("utf-8").split("\n\n"):
        name, payload = None, None
        for line in chunk.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                payload = json.loads(line[5:].strip())
        if payload is not None:
            events.append((name or payload.get("type"), payload))
    return events


async def run(
    *replies: Any, request: SearchRequest | None = None, settings: ProviderSettings | None = None, pid: str = PID
) -> tuple[Recorder, list[SearchEvent], Any]:
    recorder = Recorder(*replies)
    ctx = make_ctx(pid, recorder, credentials=CREDS, settings=settings, sleep=no_wait)
    events, response = await collect(pid, request or SearchRequest("python asyncio"), ctx)
    return recorder, events, response


async def run_until_error(*replies: Any, pid: str = PID) -> tuple[list[SearchEvent], ProviderError, Recorder]:
    recorder = Recorder(*replies)
    ctx = make_ctx(pid, recorder, credentials=CREDS, sleep=no_wait)
    events: list[SearchEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in load_stream(pid)(SearchRequest("python asyncio"), ctx):
            events.append(event)
    return events, info.value, recorder


def answer_of(events: list[SearchEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, AnswerDelta))


# --- request ---------------------------------------------------------------------------------


async def test_request_defaults() -> None:
    recorder, _, _ = await run(stream_reply(frame(basic_stream())))
    (request,) = recorder.requests
    assert request.method == "POST"
    assert str(request.url) == "https://api.anthropic.com/v1/messages"
    headers = recorder.headers(0)
    assert headers["X-API-Key"] == KEY
    assert headers["Anthropic-Version"] == "2023-06-01"
    assert "authorization" not in headers
    assert "text/event-stream" in headers["accept"]
    body = recorder.body(0)
    assert body["model"] == "claude-haiku-4-5"
    assert body["max_tokens"] == 4096
    assert body["stream"] is True
    assert body["system"] == [{"type": "text", "text": SYSTEM_PROMPT}]
    prompt = body["messages"][0]["content"]
    assert body["messages"] == [{"role": "user", "content": user_prompt(SearchRequest("python asyncio"))}]
    assert SYSTEM_PROMPT not in prompt and prompt.endswith("\nQuestion: python asyncio")
    assert "Cite at most 10 sources." in prompt
    assert body["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]
    assert "temperature" not in body


async def test_request_passes_recency_limits_and_options() -> None:
    settings = ProviderSettings(
        base_url="https://gateway.example/v1", model="claude-sonnet-4-5", options={"max_uses": 2}
    )
    request = SearchRequest("rust 2024 edition", recency="week", max_results=3, max_tokens=512, temperature=0.3)
    recorder, _, _ = await run(stream_reply(frame(basic_stream())), request=request, settings=settings)
    assert str(recorder.requests[0].url) == "https://gateway.example/v1/messages"
    headers = recorder.headers(0)
    assert headers["x-api-key"] == KEY
    assert headers["authorization"] == f"Bearer {KEY}"  # a gateway may read either header
    body = recorder.body(0)
    start_date, end_date = date_window("week")
    prompt = body["messages"][0]["content"]
    assert f"({start_date.isoformat()} to {end_date.isoformat()}, UTC)" in prompt
    assert "Cite at most 3 sources." in prompt
    assert body["model"] == "claude-sonnet-4-5"
    assert body["max_tokens"] == 512
    assert body["temperature"] == 0.3
    assert body["tools"][0] == {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}


@pytest.mark.parametrize(
    ("model", "rejects"),
    [
        ("claude-opus-4-7", True),
        ("claude-opus-4-7-20260301", True),
        ("claude-opus-5", True),
        ("claude-sonnet-5", True),
        ("claude-sonnet-5-0", True),
        ("claude-opus-4-1", False),
        ("claude-opus-4-20250514", False),
        ("claude-sonnet-4-5", False),
        ("claude-haiku-4-5", False),
        ("claude-3-5-sonnet-latest", False),
        ("deepseek-v4-flash", False),
    ],
)
def test_models_that_reject_temperature(model: str, rejects: bool) -> None:
    assert messages.model_rejects_temperature(model) is rejects


async def test_temperature_dropped_with_note_for_models_that_reject_it() -> None:
    settings = ProviderSettings(model="claude-opus-4-7")
    recorder, _, response = await run(
        stream_reply(frame(basic_stream())), request=SearchRequest("q", temperature=0.5), settings=settings
    )
    assert "temperature" not in recorder.body(0)
    assert any("temperature" in note for note in response.notes)


async def test_invalid_max_uses_falls_back_with_note() -> None:
    settings = ProviderSettings(options={"max_uses": 0})
    recorder, _, response = await run(stream_reply(frame(basic_stream())), settings=settings)
    assert recorder.body(0)["tools"][0]["max_uses"] == 5
    assert any("max_uses" in note for note in response.notes)


async def test_missing_key_and_oauth_token_are_config_errors() -> None:
    ctx = make_ctx(PID, Recorder(), sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.CONFIG and "ANTHROPIC_SEARCH_API_KEY" in info.value.message
    recorder = Recorder()
    ctx = make_ctx(PID, recorder, credentials={"api_key": "sk-ant-oat01-abcdef"}, sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.CONFIG and "OAuth" in info.value.message
    assert not recorder.requests


# --- streaming -------------------------------------------------------------------------------


async def test_stream_events_in_order() -> None:
    _, events, response = await run(stream_reply(frame(basic_stream())), request=SearchRequest("q", max_results=2))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["asyncio", " is", " a library", "."]
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "Metadata"
    assert kinds.index("SearchQueries") < kinds.index("SourcesFound") < kinds.index("AnswerDelta")
    assert kinds.index("CitationsFound") < kinds.index("AnswerDelta") + 3  # before the cited text arrives
    assert response.answer == "asyncio is a library."
    assert response.search_queries == ["python asyncio"]
    # first two results, plus the cited fourth one; all de-duplicated
    assert [s.url for s in response.sources] == [DOCS, TASKS, "https://b.example/2"]
    assert response.sources[0].published_text == "2 days ago" and response.sources[0].age_seconds == 2 * 86400
    assert [(c.url, c.title, c.cited_text) for c in response.citations] == [("https://b.example/2", "B", "b & c")]
    assert response.model == "claude-haiku-4-5-20251001"
    assert response.request_id == "msg_1"
    assert response.auth_mode == "api_key"
    assert response.usage == Usage(input_tokens=100, output_tokens=20, total_tokens=120, search_requests=1)
    assert response.notes == []


async def test_text_blocks_around_a_tool_block_are_separated() -> None:
    events = [
        start(),
        block(0, {"type": "thinking", "thinking": ""}),
        delta(0, {"type": "thinking_delta", "thinking": "secret plan"}),
        delta(0, {"type": "signature_delta", "signature": "sig"}),
        stop(0),
        block(1, {"type": "text", "text": ""}),
        text(1, "Let me search:"),
        stop(1),
        *search(2, "q1", [result(DOCS)]),
        block(4, {"type": "text", "text": ""}),
        text(4, "Found it"),
        stop(4),
        block(5, {"type": "text", "text": ""}),
        text(5, " [1]."),
        stop(5),
        *finish(),
    ]
    _, _, response = await run(stream_reply(frame(events)))
    assert response.answer == "Let me search:\n\nFound it [1]."


async def test_event_split_across_chunks_and_inside_utf8() -> None:
    events = [start(), *search(0, "grüße", [result(DOCS)]), block(2, {"type": "text", "text": ""})]
    events += [text(2, "Grüße "), text(2, "東京 🚀"), stop(2), *finish()]
    data = frame(events)
    cut = data.index("東".encode()) + 1
    cuts = [cut, data.index(b"event: content_block_delta") + 9, *range(5, len(data), 41)]
    _, events_out, response = await run(stream_reply(pieces(data, cuts)))
    assert [e.text for e in events_out if isinstance(e, AnswerDelta)] == ["Grüße ", "東京 🚀"]
    assert response.search_queries == ["grüße"]


async def test_crlf_framing_with_padded_data_lines() -> None:
    data = frame(basic_stream(), newline="\r\n").replace(b"}\r\n", b"}    \r\n")
    _, _, response = await run(stream_reply(pieces(data, list(range(3, len(data), 13)))))
    assert response.answer == "asyncio is a library."
    assert len(response.citations) == 1


async def test_error_event_after_start_keeps_partial_answer() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    data = frame([*basic_stream()[:12], ("error", error)])
    events, exc, recorder = await run_until_error(stream_reply(data))
    assert answer_of(events) == "asyncio is"
    assert any(isinstance(e, SourcesFound) for e in events)
    assert exc.kind is ErrorKind.SERVER
    assert exc.message == "Anthropic API error (overloaded_error): Overloaded"
    assert len(recorder.requests) == 1  # never retried after events were yielded


@pytest.mark.parametrize(
    ("error_type", "kind"),
    [
        ("rate_limit_error", ErrorKind.RATE_LIMIT),
        ("api_error", ErrorKind.SERVER),
        ("invalid_request_error", ErrorKind.BAD_REQUEST),
        ("authentication_error", ErrorKind.AUTH),
        ("something_new", ErrorKind.SERVER),
    ],
)
async def test_error_event_kinds(error_type: str, kind: ErrorKind) -> None:
    error = {"type": "error", "error": {"type": error_type, "message": "boom"}}
    _, exc, _ = await run_until_error(stream_reply(frame([start(), ("error", error)])))
    assert exc.kind is kind and error_type in exc.message and "Anthropic" in exc.message


async def test_connection_drop_midway_keeps_partial_answer() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield frame(basic_stream()[:12])
        raise httpx.ReadError("connection reset")

    events, exc, _ = await run_until_error(stream_reply(chunks))
    assert answer_of(events) == "asyncio is"
    assert exc.kind is ErrorKind.NETWORK


async def test_stream_without_message_stop_is_protocol_error() -> None:
    events, exc, _ = await run_until_error(stream_reply(frame(basic_stream()[:-1])))
    assert answer_of(events) == "asyncio is a library."
    assert exc.kind is ErrorKind.PROTOCOL
    assert exc.message == "Anthropic stream ended before it finished"


async def test_search_error_object_is_a_note_and_answer_still_renders() -> None:
    fragment = json.loads(shared_fixture("anthropic/web_search_tool_result_error.fragment.json").read_text())
    events = [
        start(),
        block(0, {"type": "server_tool_use", "id": fragment["tool_use_id"], "name": "web_search", "input": {}}),
        delta(0, {"type": "input_json_delta", "partial_json": '{"query": "q"}'}),
        stop(0),
        block(1, fragment),
        stop(1),
        block(2, {"type": "text", "text": ""}),
        text(2, "I could not search further."),
        stop(2),
        *finish(),
    ]
    _, out, response = await run(stream_reply(frame(events)))
    assert response.answer == "I could not search further."
    assert response.sources == []
    notes = [e.text for e in out if isinstance(e, Note)]
    assert len(notes) == 1 and "max_uses_exceeded" in notes[0] and notes[0].startswith("Anthropic")


async def test_answer_without_search_and_max_tokens_stop_are_flagged() -> None:
    events = [start(), block(0, {"type": "text", "text": "Hi"}), text(0, " there"), stop(0)]
    events += finish("max_tokens", {"input_tokens": 5, "output_tokens": 7})
    _, _, response = await run(stream_reply(frame(events)))
    assert response.answer == "Hi there"
    assert "Anthropic answered without searching the web." in response.notes
    assert any("max_tokens" in note for note in response.notes)
    assert response.usage == Usage(input_tokens=5, output_tokens=7, total_tokens=12)


async def test_control_characters_are_removed_from_deltas() -> None:
    events = [start(), block(0, {"type": "text", "text": ""}), text(0, "safe\x1b[31m red\x07"), stop(0), *finish()]
    _, _, response = await run(stream_reply(frame(events)))
    assert response.answer == "safe red"


async def test_json_answer_instead_of_stream_is_accepted() -> None:
    whole = fake_anthropic.message("python asyncio")
    _, events, response = await run(lambda request: httpx.Response(200, json=whole))
    assert len([e for e in events if isinstance(e, AnswerDelta)]) == 1
    assert response.answer == expected_answer(whole["content"])
    assert response.search_queries == ["python asyncio"]
    assert [c.url for c in response.citations] == [DOCS, TASKS]


async def test_json_body_that_is_not_a_message_says_so() -> None:
    """A 2xx JSON body that is not a message object (a gateway's ``[]`` or ``null``) was reported as
    "stream ended before it finished"; it is an answer in a shape this version does not read."""
    _, error, _ = await run_until_error(lambda request: httpx.Response(200, json=[]))
    assert error.kind is ErrorKind.UNRECOGNISED
    assert error.message.startswith("Anthropic answered in a shape this version does not read")


def test_thousands_of_citations_cost_work_in_proportion(monkeypatch: pytest.MonkeyPatch) -> None:
    """4,000 ``citations_delta`` events over 200 results: each citation is canonicalised once (the
    source selection used to re-scan every result and citation per event: 50 s for such a stream)."""
    calls = count_canonical_urls(monkeypatch)
    parser = messages.MessageParser(provider=PID, label="Anthropic", max_results=5, requested_model="claude")
    results = [result(f"https://r{n}.example/page", f"R{n}") for n in range(200)]
    events = [start(), *search(0, "q", results), block(2, {"type": "text", "text": "", "citations": []})]
    for n in range(4000):
        events.append(
            delta(2, {"type": "citations_delta", "citation": location(f"https://r{n % 200}.example/page", "R")})
        )
    sent = [event for name, payload in events for event in parser.feed(name, payload)]
    assert calls[0] == 200 + 4000
    selections = [e for e in sent if isinstance(e, SourcesFound)]
    assert len(selections[-1].sources) == 200  # every cited result is listed, beyond max_results
    assert len(selections) == 1 + 195  # the first results, then once per newly cited later result


# --- pause_turn ------------------------------------------------------------------------------


async def test_pause_turn_is_continued_with_the_assistant_content() -> None:
    first = [
        start(mid="msg_a", input_tokens=50),
        block(0, {"type": "thinking", "thinking": ""}),
        delta(0, {"type": "thinking_delta", "thinking": "plan"}),
        delta(0, {"type": "signature_delta", "signature": "sig-1"}),
        stop(0),
        block(1, {"type": "text", "text": ""}),
        text(1, "Searching:"),
        stop(1),
        block(2, {"type": "text", "text": ""}),  # empty: must not be sent back
        stop(2),
        block(3, {"type": "server_tool_use", "id": "srvtoolu_x", "name": "web_search", "input": {}}),
        delta(3, {"type": "input_json_delta", "partial_json": '{"query": "pending query"}'}),
        stop(3),
        *finish("pause_turn", {"input_tokens": 50, "output_tokens": 5, "server_tool_use": {"web_search_requests": 1}}),
    ]
    second = [
        start(mid="msg_b", input_tokens=70),
        block(0, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_x", "content": [result(DOCS, "Docs")]}),
        stop(0),
        block(1, {"type": "text", "text": ""}),
        text(1, "Done."),
        stop(1),
        *finish("end_turn", {"input_tokens": 70, "output_tokens": 9, "server_tool_use": {"web_search_requests": 2}}),
    ]
    recorder, events, response = await run(stream_reply(frame(first)), stream_reply(frame(second)))
    assert len(recorder.requests) == 2
    body = recorder.body(1)
    assert body["messages"][0] == recorder.body(0)["messages"][0]
    assistant = body["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "sig-1"},
        {"type": "text", "text": "Searching:"},
        {"type": "server_tool_use", "id": "srvtoolu_x", "name": "web_search", "input": {"query": "pending query"}},
    ]
    assert {k: v for k, v in body.items() if k != "messages"} == {
        k: v for k, v in recorder.body(0).items() if k != "messages"
    }
    assert response.answer == "Searching:\n\nDone."
    assert response.search_queries == ["pending query"]
    assert [s.url for s in response.sources] == [DOCS]
    assert response.request_id == "msg_b"
    assert response.usage == Usage(input_tokens=120, output_tokens=14, total_tokens=134, search_requests=3)
    assert response.notes == []
    assert sum(1 for e in events if isinstance(e, Metadata) and e.usage is not None) == 1


async def test_pause_turn_continuations_are_bounded() -> None:
    paused = [start(), *search(0, "q", [result(DOCS)]), *finish("pause_turn")]
    recorder, _, response = await run(stream_reply(frame(paused)))
    assert len(recorder.requests) == 1 + messages.MAX_CONTINUATIONS
    assert any("paused" in note for note in response.notes)


# --- HTTP errors -----------------------------------------------------------------------------


def envelope(status: int, message: str) -> httpx.Response:
    return httpx.Response(status, json=fake_anthropic.error_body(status, message))


REQ = " (request id req_fake_0001)"  # the envelope's top-level request_id, kept in the message


@pytest.mark.parametrize(
    ("status", "kind", "message", "attempts"),
    [
        (400, ErrorKind.BAD_REQUEST, "Anthropic API error (400): max_tokens: Field required" + REQ, 1),
        (401, ErrorKind.AUTH, "Anthropic authorization failed (401). Check API key or base URL.", 1),
        (403, ErrorKind.AUTH, "Anthropic authorization failed (403). Check API key or base URL.", 1),
        (404, ErrorKind.NOT_FOUND, "Anthropic web search returned 404 (model or endpoint not found)." + REQ, 1),
        (413, ErrorKind.BAD_REQUEST, "Anthropic API error (413): max_tokens: Field required" + REQ, 1),
        (429, ErrorKind.RATE_LIMIT, "Anthropic API error (429): max_tokens: Field required" + REQ, 4),
        (500, ErrorKind.SERVER, "Anthropic API error (500): max_tokens: Field required" + REQ, 4),
        (529, ErrorKind.SERVER, "Anthropic API error (529): max_tokens: Field required" + REQ, 4),
    ],
)
async def test_error_envelopes(status: int, kind: ErrorKind, message: str, attempts: int) -> None:
    _, exc, recorder = await run_until_error(lambda request: envelope(status, "max_tokens: Field required"))
    assert exc.kind is kind
    assert exc.message == message
    assert exc.status == status
    assert len(recorder.requests) == attempts  # 429/500/529 are retried before the stream starts


async def test_overloaded_then_success_is_retried() -> None:
    recorder, _, response = await run(envelope(529, "Overloaded"), stream_reply(frame(basic_stream())))
    assert len(recorder.requests) == 2
    assert response.answer == "asyncio is a library."


async def test_empty_credit_balance_is_quota() -> None:
    msg = "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing."
    _, exc, _ = await run_until_error(lambda request: envelope(400, msg))
    assert exc.kind is ErrorKind.QUOTA and "credit balance" in exc.message


async def test_html_instead_of_stream_is_protocol_error() -> None:
    page = httpx.Response(200, headers={"content-type": "text/html"}, content=b"<html>proxy login</html>")
    _, exc, _ = await run_until_error(lambda request: page)
    assert exc.kind is ErrorKind.PROTOCOL


# --- conformance: real payloads in ../shared/fixtures ------------------------------------------


@pytest.mark.parametrize("cut_every", [None, 1, 7, 4096])
async def test_replay_web_search_stream_fixture(cut_every: int | None) -> None:
    data = shared_fixture("anthropic/web_search_stream.sse").read_bytes()
    raw = parse_sse(data)
    reply = stream_reply(pieces(data, list(range(cut_every, len(data), cut_every))) if cut_every else data)
    _, events, response = await run(reply, request=SearchRequest("q", max_results=20))
    deltas = [e for e in events if isinstance(e, AnswerDelta)]
    text_deltas = [p for n, p in raw if n == "content_block_delta" and p["delta"]["type"] == "text_delta"]
    assert len(deltas) == len(text_deltas)
    assert response.answer == expected_answer(fixture_blocks(raw))
    assert response.answer.startswith(
        "Let me search for more specific breaking news stories to get clearer headlines.\n\nBased on the search"
    )
    assert response.search_queries == ["top world news today", "breaking news headlines August 14 2025"]
    citations = [p["delta"]["citation"] for n, p in raw if n == "content_block_delta" and "citation" in p["delta"]]
    assert [c.url for c in response.citations] == [c["url"] for c in citations]
    assert response.citations[1].cited_text is None  # "" upstream
    urls = []
    for name, payload in raw:
        if name == "content_block_start" and payload["content_block"]["type"] == "web_search_tool_result":
            urls += [r["url"] for r in payload["content_block"]["content"] if r["url"] not in urls]
    assert [s.url for s in response.sources] == urls[:20]
    assert response.usage == Usage(input_tokens=31772, output_tokens=644, total_tokens=32416, search_requests=2)
    assert response.model == "claude-sonnet-4-20250514"
    assert response.request_id == "msg_019ifek4sTha46JcCb2z2yPp"
    assert response.notes == []


async def test_replay_vercel_chunks_fixture() -> None:
    lines = [
        line for line in shared_fixture("anthropic/web_search_vercel.chunks.jsonl").read_text().splitlines() if line
    ]
    payloads = [json.loads(line) for line in lines]
    data = "".join(f"event: {p['type']}\ndata: {line}\n\n" for p, line in zip(payloads, lines, strict=True)).encode()
    _, _, response = await run(stream_reply(data), request=SearchRequest("q", max_results=2))
    raw = [(p["type"], p) for p in payloads]
    assert response.answer == expected_answer(fixture_blocks(raw))
    cited = [p["delta"]["citation"]["url"] for p in payloads if p.get("delta", {}).get("type") == "citations_delta"]
    assert [c.url for c in response.citations] == cited
    queries = "".join(
        p["delta"]["partial_json"] for p in payloads if p.get("delta", {}).get("type") == "input_json_delta"
    )
    assert response.search_queries == [json.loads(queries)["query"]]
    # two results kept plus every cited one
    assert len(response.sources) >= 2 and {c.url for c in response.citations} <= {s.url for s in response.sources}
    assert response.usage is not None and response.usage.search_requests == 1


async def test_replay_pause_turn_stream_then_continuation_fixture() -> None:
    data = shared_fixture("anthropic/web_search_pause_turn_stream.sse").read_bytes()
    continued = json.loads(shared_fixture("anthropic/web_search_pause_turn_continued.json").read_text())
    second = frame(fake_anthropic.stream_events(continued))
    recorder, events, response = await run(stream_reply(data), stream_reply(second))
    assert len(recorder.requests) == 2
    content = recorder.body(1)["messages"][1]["content"]
    raw = parse_sse(data)
    rebuilt = [b for b in fixture_blocks(raw) if b["type"] != "text" or b["text"]]
    assert [b["type"] for b in content] == [b["type"] for b in rebuilt]
    assert content[0]["type"] == "thinking" and content[0]["signature"] and content[0]["thinking"]
    assert content[-1]["type"] == "server_tool_use"
    assert content[-1]["input"] == {"query": "latest news on the air quality in San Francisco today"}
    assert all(b.get("text") for b in content if b["type"] == "text")
    assert len(response.search_queries) == 15
    assert response.answer.startswith("I'll run these searches one at a time as requested. Let me start:\n\n")
    assert response.answer.endswith(expected_answer(continued["content"]))
    assert response.model == continued["model"] and response.request_id == continued["id"]
    assert response.usage is not None and response.usage.search_requests == 15
    assert sum(1 for e in events if isinstance(e, SearchQueries)) == 15


@pytest.mark.parametrize("name", ["web_search_nonstream_thinking.json", "web_search_vercel.json"])
async def test_replay_whole_message_fixtures(name: str) -> None:
    whole = json.loads(shared_fixture(f"anthropic/{name}").read_text())
    _, _, response = await run(
        lambda request: httpx.Response(200, json=whole), request=SearchRequest("q", max_results=20)
    )
    assert response.answer == expected_answer(whole["content"])
    blocks = whole["content"]
    cited = [c["url"] for b in blocks if b["type"] == "text" for c in b.get("citations") or []]
    assert [c.url for c in response.citations] == cited
    queries = [b["input"]["query"] for b in blocks if b["type"] == "server_tool_use"]
    assert response.search_queries == queries
    results = [r for b in blocks if b["type"] == "web_search_tool_result" for r in b["content"]]
    assert [(s.url, s.published_text) for s in response.sources] == [(r["url"], r["page_age"]) for r in results]
    assert response.usage == Usage(
        input_tokens=whole["usage"]["input_tokens"],
        output_tokens=whole["usage"]["output_tokens"],
        total_tokens=whole["usage"]["input_tokens"] + whole["usage"]["output_tokens"],
        search_requests=whole["usage"]["server_tool_use"]["web_search_requests"],
    )
    assert response.model == whole["model"] and response.request_id == whole["id"]


async def test_replay_pause_turn_json_fixtures() -> None:
    paused = json.loads(shared_fixture("anthropic/web_search_pause_turn.json").read_text())
    continued = json.loads(shared_fixture("anthropic/web_search_pause_turn_continued.json").read_text())
    recorder, _, response = await run(
        lambda request: httpx.Response(200, json=paused), lambda request: httpx.Response(200, json=continued)
    )
    assert len(recorder.requests) == 2
    assert recorder.body(1)["messages"][1]["content"] == paused["content"]
    assert response.answer == expected_answer(paused["content"] + continued["content"])
    assert len(response.search_queries) == 15
    assert response.usage is not None and response.usage.search_requests == 15


async def test_replay_not_found_envelope_fixture() -> None:
    body = shared_fixture("anthropic/error_envelope_not_found.json").read_bytes()
    reply = httpx.Response(404, headers={"content-type": "application/json"}, content=body)
    _, exc, _ = await run_until_error(lambda request: reply)
    assert exc.kind is ErrorKind.NOT_FOUND
    assert exc.message == (
        "Anthropic web search returned 404 (model or endpoint not found). (request id req_011CSHoEeqs5C35K2UUqR7Fy)"
    )


# --- end to end over real HTTP ---------------------------------------------------------------


def fake_ctx(pid: str, server: FakeServer, client: httpx.AsyncClient, config: dict[str, Any], key: str) -> Any:
    return ProviderContext(
        spec=get_spec(pid),
        client=client,
        settings=ProviderSettings(**config),
        credentials={"api_key": key},
        deadline=time.monotonic() + 20,
        sleep=no_wait,
    )


async def test_end_to_end_against_fake_server() -> None:
    with FakeServer(token_delay=0.001) as server:
        for key, handler in fake_anthropic.routes().items():
            server.set(*key, handler)
        async with httpx.AsyncClient() as client:
            ctx = fake_ctx(PID, server, client, {"base_url": server.url("anthropic")}, fake_anthropic.KEY)
            events, response = await collect(PID, SearchRequest("python asyncio", max_results=3), ctx)
        seen = server.last_request(fake_anthropic.PATH)
        assert seen.header("x-api-key") == fake_anthropic.KEY
        assert seen.json()["stream"] is True
    deltas = [e for e in events if isinstance(e, AnswerDelta)]
    assert len(deltas) > 30
    whole = fake_anthropic.message("python asyncio")
    assert response.answer == expected_answer(whole["content"])
    assert response.answer.startswith("**asyncio** is Python's standard library")
    assert [s.url for s in response.sources] == [DOCS, TASKS, "https://peps.python.org/pep-0492/"]
    assert [c.url for c in response.citations] == [DOCS, TASKS]
    assert (
        response.citations[1].cited_text
        == "Tasks are used to schedule coroutines concurrently & TaskGroup's are safer."
    )
    assert response.search_queries == ["python asyncio"]
    assert any(isinstance(e, CitationsFound) for e in events)


@pytest.mark.parametrize("variant", fake_anthropic.VARIANTS)
async def test_fake_variants_through_the_provider(variant: str) -> None:
    with FakeServer() as server:
        for key, handler in fake_anthropic.variant_routes(variant).items():
            server.set(*key, handler)
        async with httpx.AsyncClient() as client:
            ctx = fake_ctx(PID, server, client, fake_anthropic.config(server.base_url), fake_anthropic.KEY)
            try:
                _, response = await collect(PID, SearchRequest("python asyncio", max_results=3), ctx)
            except ProviderError as error:
                assert "anthropic" in error.message.lower()
                assert fake_anthropic.KEY not in error.message
                assert variant in {"fail_midway", "dropped", "no_final", "credit_balance"} or variant.startswith(
                    "error_"
                )
            else:
                assert response.answer and len(response.sources) <= 3
                if variant not in ("no_search", "search_error"):
                    assert response.sources and response.citations and response.search_queries
        assert not server.errors, server.errors


# --- web search tool versions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "tool"),
    [
        ("claude-haiku-4-5", "web_search_20250305"),
        ("claude-haiku-4-5-20251001", "web_search_20250305"),
        ("claude-sonnet-4-5", "web_search_20250305"),
        ("claude-opus-4-5-20251101", "web_search_20250305"),
        ("claude-3-7-sonnet-latest", "web_search_20250305"),
        ("claude-sonnet-4-6", "web_search_20260318"),
        ("claude-opus-4-7", "web_search_20260318"),
        ("claude-opus-5", "web_search_20260318"),
        ("claude-haiku-5-5", "web_search_20260318"),
        ("claude-mythos-preview", "web_search_20260318"),
        ("claude-fable-5-1", "web_search_20260318"),
        ("gateway/some-model", "web_search_20250305"),
    ],
)
def test_newest_tool_version_only_for_models_with_dynamic_filtering(model: str, tool: str) -> None:
    assert messages.web_search_tool(model, anthropic.FLAVOR) == tool


async def test_model_with_dynamic_filtering_gets_the_newest_tool() -> None:
    recorder, _, _ = await run(
        stream_reply(frame(basic_stream())), settings=ProviderSettings(model="claude-sonnet-4-6")
    )
    assert recorder.body(0)["tools"] == [{"type": "web_search_20260318", "name": "web_search", "max_uses": 5}]


def tool_refused_reply(tool: str = "web_search_20260318") -> httpx.Response:
    message = f"tools.0: tool type '{tool}' is not supported for this model"
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}, "request_id": "req_t"}
    return httpx.Response(400, json=body)


async def test_refused_tool_version_is_retried_once_with_the_basic_tool() -> None:
    state = ProviderState()
    recorder = Recorder(tool_refused_reply(), stream_reply(frame(basic_stream())))
    settings = ProviderSettings(model="claude-sonnet-4-6")
    ctx = make_ctx(PID, recorder, credentials=CREDS, settings=settings, sleep=no_wait, state=state)
    _, response = await collect(PID, SearchRequest("python asyncio"), ctx)
    assert [body["tools"][0]["type"] for body in recorder.bodies] == ["web_search_20260318", "web_search_20250305"]
    assert response.answer == "asyncio is a library." and response.sources
    assert response.notes == [
        "Anthropic does not accept the web_search_20260318 web search tool for claude-sonnet-4-6; "
        "searched with web_search_20250305 instead."
    ]
    # the next search of the same model sends the basic tool at once, without a failed request
    again = Recorder(stream_reply(frame(basic_stream())))
    ctx = make_ctx(PID, again, credentials=CREDS, settings=settings, sleep=no_wait, state=state)
    _, response = await collect(PID, SearchRequest("python asyncio"), ctx)
    assert len(again.requests) == 1 and again.body(0)["tools"][0]["type"] == "web_search_20250305"
    assert response.notes == []


async def test_tool_version_is_not_retried_twice_nor_for_other_400s() -> None:
    settings = ProviderSettings(model="claude-sonnet-4-6")
    recorder = Recorder(tool_refused_reply(), tool_refused_reply("web_search_20250305"))
    ctx = make_ctx(PID, recorder, credentials=CREDS, settings=settings, sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx)
    assert len(recorder.requests) == 2 and info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message.endswith("(request id req_t)")
    other = Recorder(envelope(400, "max_tokens: Field required"))
    ctx = make_ctx(PID, other, credentials=CREDS, settings=settings, sleep=no_wait)
    with pytest.raises(ProviderError):
        await collect(PID, SearchRequest("q"), ctx)
    assert len(other.requests) == 1


# --- errors: request id, unknown model --------------------------------------------------------


async def test_error_event_keeps_its_request_id() -> None:
    event = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_9"}
    _, exc, _ = await run_until_error(stream_reply(frame([start(), ("error", event)])))
    assert exc.kind is ErrorKind.SERVER
    assert exc.message == "Anthropic API error (overloaded_error): Overloaded (request id req_9)"


async def test_request_id_that_is_not_a_plain_token_is_left_out() -> None:
    body = fake_anthropic.error_body(400, "bad") | {"request_id": "req_1 <script>"}
    _, exc, _ = await run_until_error(lambda request: httpx.Response(400, json=body))
    assert exc.message == "Anthropic API error (400): bad"


MODEL_GONE = (
    "Anthropic: model '{model}' is not available (404). Set [providers.anthropic] model, "
    "or run websearch-tui doctor anthropic"
)


async def test_unknown_or_retired_model_names_the_config_key() -> None:
    body = {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-3-5-haiku"}}
    body["request_id"] = "req_011CdufXo8Y2LVfY2veyuQWG"
    recorder = Recorder(lambda request: httpx.Response(404, json=body))
    settings = ProviderSettings(model="claude-3-5-haiku")
    ctx = make_ctx(PID, recorder, credentials=CREDS, settings=settings, sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND and info.value.status == 404
    assert info.value.message == MODEL_GONE.format(model="claude-3-5-haiku")
    assert len(recorder.requests) == 1


async def test_unknown_model_through_the_fake_server() -> None:
    with FakeServer() as server:
        for key, handler in fake_anthropic.routes().items():
            server.set(*key, handler)
        server.fail(fake_anthropic.SEARCH_ROUTE, 404, body=fake_anthropic.error_body(404, "model: claude-haiku-4-5"))
        async with httpx.AsyncClient() as client:
            ctx = fake_ctx(PID, server, client, {"base_url": server.url("anthropic")}, fake_anthropic.KEY)
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("python asyncio"), ctx)
        assert not server.errors, server.errors
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert info.value.message == MODEL_GONE.format(model="claude-haiku-4-5")


# --- dynamic filtering (web_search_20260209 and later) ------------------------------------------


def dynamic_filtering_message(stop_reason: str = "end_turn") -> dict[str, Any]:
    """A whole message in the shape of the dynamic-filtering tool versions: Claude's code calls the
    search (nested ``server_tool_use`` and result with a ``caller``), then the code's own result,
    then cited text; a top-level ``container``."""
    caller = {"type": "code_execution_20260120", "tool_id": "srvtoolu_code"}
    code = "results = await web_search({'query': 'python asyncio'})\nprint([r['title'] for r in results][:2])"
    return {
        "id": "msg_df",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "container": {"id": "container_011Cb", "expires_at": "2026-12-02T15:00:00Z"},
        "content": [
            {"type": "text", "text": "Let me search and filter."},
            {"type": "server_tool_use", "id": "srvtoolu_code", "name": "code_execution", "input": {"code": code}},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_ws",
                "name": "web_search",
                "input": {"query": "python asyncio"},
                "caller": caller,
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_ws",
                "caller": caller,
                "content": [result(DOCS, "asyncio docs", "3 days ago"), result(TASKS, "Tasks")],
            },
            {
                "type": "code_execution_tool_result",
                "tool_use_id": "srvtoolu_code",
                "content": {
                    "type": "code_execution_result",
                    "stdout": "['asyncio docs', 'Tasks']",
                    "stderr": "",
                    "return_code": 0,
                    "content": [],
                },
            },
            {"type": "text", "text": "asyncio ", "citations": None},
            {
                "type": "text",
                "text": "schedules coroutines.",
                "citations": [location(DOCS, "asyncio docs", "event loop")],
            },
        ],
        "stop_reason": stop_reason,
        "usage": {"input_tokens": 50, "output_tokens": 9, "server_tool_use": {"web_search_requests": 1}},
    }


async def test_dynamic_filtering_blocks_keep_results_citations_and_queries() -> None:
    whole = dynamic_filtering_message()
    _, _, response = await run(
        lambda request: httpx.Response(200, json=whole), settings=ProviderSettings(model="claude-sonnet-4-6")
    )
    assert response.answer == "Let me search and filter.\n\nasyncio schedules coroutines."
    assert "stdout" not in response.answer and "await web_search" not in response.answer
    assert [(s.url, s.published_text) for s in response.sources] == [(DOCS, "3 days ago"), (TASKS, None)]
    assert [(c.url, c.cited_text) for c in response.citations] == [(DOCS, "event loop")]
    assert response.search_queries == ["python asyncio"]  # the code's call, not the code
    assert response.usage == Usage(input_tokens=50, output_tokens=9, total_tokens=59, search_requests=1)
    assert response.notes == []


async def test_dynamic_filtering_blocks_streamed() -> None:
    whole = dynamic_filtering_message()
    _, events, response = await run(stream_reply(frame(fake_anthropic.stream_events(whole))))
    assert response.answer == "Let me search and filter.\n\nasyncio schedules coroutines."
    assert response.search_queries == ["python asyncio"] and len(response.sources) == 2
    assert [c.url for c in response.citations] == [DOCS]


async def test_pause_turn_in_a_container_resumes_in_it() -> None:
    paused = dynamic_filtering_message("pause_turn")
    paused["content"] = paused["content"][:4]
    done = {**dynamic_filtering_message(), "content": [{"type": "text", "text": "Done."}]}
    recorder, _, response = await run(
        lambda request: httpx.Response(200, json=paused),
        lambda request: httpx.Response(200, json=done),
        settings=ProviderSettings(model="claude-sonnet-4-6"),
    )
    assert "container" not in recorder.body(0)
    second = recorder.body(1)
    assert second["container"] == "container_011Cb"
    assert [b["type"] for b in second["messages"][1]["content"]] == [
        "text",
        "server_tool_use",
        "server_tool_use",
        "web_search_tool_result",
    ]
    assert second["messages"][1]["content"][2]["caller"]["tool_id"] == "srvtoolu_code"
    assert response.answer.endswith("Done.")


async def test_replay_dynamic_filtering_recording() -> None:
    """A recorded ``web_search_20260209`` answer of claude-sonnet-4-6 (code execution, nested calls
    with ``caller``, ``container``), read from the shared fixtures or ``$WEBSEARCH_EXTRA_FIXTURES``."""
    whole = json.loads(shared_fixture("anthropic/web_search_20260209_dynamic_filtering.json").read_text())
    _, events, response = await run(
        lambda request: httpx.Response(200, json=whole),
        settings=ProviderSettings(model=whole["model"]),
        request=SearchRequest("q", max_results=20),
    )
    blocks = whole["content"]
    assert response.answer == expected_answer(blocks)
    assert response.answer
    searches = [b for b in blocks if b["type"] == "server_tool_use" and b["name"] == "web_search"]
    assert response.search_queries == [b["input"]["query"] for b in searches]
    results = [r for b in blocks if b["type"] == "web_search_tool_result" for r in b["content"]]
    assert [s.url for s in response.sources] == [r["url"] for r in results][:20]
    cited = [c["url"] for b in blocks if b["type"] == "text" for c in b.get("citations") or []]
    assert [c.url for c in response.citations] == cited
    usage = whole["usage"]
    assert response.usage == Usage(
        input_tokens=usage["input_tokens"],
        output_tokens=usage["output_tokens"],
        total_tokens=usage["input_tokens"] + usage["output_tokens"],
        search_requests=usage["server_tool_use"]["web_search_requests"],
    )
    assert response.model == whole["model"] and response.request_id == whole["id"]
    searched = bool(searches or results)
    assert response.notes == ([] if searched else ["Anthropic answered without searching the web."])


async def test_a_block_started_with_a_text_that_is_not_a_string_still_streams() -> None:
    """Found by the parser fuzz: a content_block_start whose text is a number, then text deltas."""
    from websearch_tui.providers.families.messages import MessageParser

    parser = MessageParser(provider="anthropic", label="Anthropic", max_results=5, requested_model="m")
    parser.start_turn()
    parser.feed(
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": -0.5}},
    )
    events = parser.feed(
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let "}},
    )
    assert [getattr(e, "text", None) for e in events] == ["Let "]
