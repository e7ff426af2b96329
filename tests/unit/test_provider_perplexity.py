"""Perplexity with ``api = "chat"`` (Sonar chat completions): request building, SSE parsing, error
mapping, fixture conformance. The Agent API (the default) is tested in test_provider_perplexity_agent.py."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from tests.helpers import Recorder, collect, make_ctx, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import (
    AnswerDelta,
    CitationsFound,
    Metadata,
    ResponseBuilder,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    SourcesFound,
    Usage,
)
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import load_stream

KEY = "pplx-test-key-123456"
CREDS = {"api_key": KEY}
SSE_HEADERS = {"content-type": "text/event-stream"}
CITATIONS = [f"https://site{i}.example/page" for i in range(1, 8)]


def chat(settings: ProviderSettings | None = None) -> ProviderSettings:
    """``settings`` (default: none) with ``api = "chat"`` added to its options."""
    settings = settings or ProviderSettings()
    return dataclasses.replace(settings, options={**settings.options, "api": "chat"})


def chunk(content: str | None = None, *, usage: dict[str, int] | None = None, **extra: Any) -> dict[str, Any]:
    """One chat.completion.chunk payload."""
    payload: dict[str, Any] = {"id": "req-1", "model": "sonar", "object": "chat.completion.chunk"}
    payload["choices"] = [{"index": 0, "delta": {"role": "assistant", "content": content or ""}}]
    if usage is not None:
        payload["usage"] = usage
    payload.update(extra)
    return payload


def sse(*payloads: Any, newline: str = "\n", done: bool = False) -> bytes:
    """Frame payloads as SSE ``data:`` events."""
    events = [
        f"data: {json.dumps(p, ensure_ascii=False) if not isinstance(p, str) else p}{newline}{newline}"
        for p in payloads
    ]
    if done:
        events.append(f"data: [DONE]{newline}{newline}")
    return "".join(events).encode()


def split_stream(data: bytes, size: int) -> Callable[[], AsyncIterator[bytes]]:
    """An async byte iterator factory yielding ``data`` in ``size``-byte pieces."""

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(data), size):
            yield data[start : start + size]

    return chunks


def sse_response(data: bytes | Callable[[], AsyncIterator[bytes]]) -> Callable[[httpx.Request], httpx.Response]:
    def respond(request: httpx.Request) -> httpx.Response:
        content = data() if callable(data) else data
        return httpx.Response(200, headers=SSE_HEADERS, content=content)

    return respond


async def run(
    respond: Callable[[httpx.Request], httpx.Response],
    request: SearchRequest | None = None,
    settings: ProviderSettings | None = None,
) -> tuple[Recorder, list[SearchEvent], Any]:
    recorder = Recorder(respond)
    ctx = make_ctx("perplexity", recorder, credentials=CREDS, settings=chat(settings))
    events, response = await collect("perplexity", request or SearchRequest("who won?"), ctx)
    return recorder, events, response


async def run_until_error(
    respond: Callable[[httpx.Request], httpx.Response],
) -> tuple[list[SearchEvent], ProviderError]:
    ctx = make_ctx("perplexity", Recorder(respond), credentials=CREDS, settings=chat())
    events: list[SearchEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in load_stream("perplexity")(SearchRequest("q"), ctx):
            events.append(event)
    return events, info.value


# --- request ---------------------------------------------------------------------------------


async def test_request_body_and_headers_defaults() -> None:
    recorder, _, _ = await run(sse_response(sse(chunk("hi"))))
    request = recorder.requests[0]
    assert request.method == "POST"
    assert str(request.url) == "https://api.perplexity.ai/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "text/event-stream" in request.headers["accept"]
    body = recorder.body(-1)
    assert body["model"] == "sonar-pro"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"][0]["role"] == "system" and body["messages"][0]["content"]
    assert body["messages"][1] == {"role": "user", "content": "who won?"}
    assert body["num_search_results"] == 10
    assert body["return_related_questions"] is True
    assert body["web_search_options"] == {"search_context_size": "medium"}
    for absent in ("search_recency_filter", "max_tokens", "temperature"):
        assert absent not in body


async def test_request_body_passes_request_fields_and_options() -> None:
    settings = ProviderSettings(
        base_url="http://127.0.0.1:9/proxy", model="sonar", options={"search_context_size": "high"}
    )
    request = SearchRequest(
        "rust 2024 edition", recency="week", max_tokens=512, temperature=0.2, num_search_results=25, max_results=3
    )
    recorder, _, _ = await run(sse_response(sse(chunk("x"))), request, settings)
    assert str(recorder.requests[0].url) == "http://127.0.0.1:9/proxy/chat/completions"
    body = recorder.body(-1)
    assert body["model"] == "sonar"
    assert body["messages"][1]["content"] == "rust 2024 edition"
    assert body["search_recency_filter"] == "week"
    assert body["max_tokens"] == 512
    assert body["temperature"] == 0.2
    assert body["num_search_results"] == 25
    assert body["web_search_options"] == {"search_context_size": "high"}


async def test_invalid_context_size_falls_back_with_note() -> None:
    settings = ProviderSettings(options={"search_context_size": "huge"})
    recorder, _, response = await run(sse_response(sse(chunk("x"))), settings=settings)
    assert recorder.body(-1)["web_search_options"] == {"search_context_size": "medium"}
    assert any("search_context_size" in note for note in response.notes)


# --- streaming -------------------------------------------------------------------------------


async def test_tokens_arrive_as_separate_deltas() -> None:
    data = sse(chunk("The"), chunk(" answer"), chunk(" is"), chunk(" 42."), done=True)
    _, events, response = await run(sse_response(split_stream(data, 17)))
    deltas = [e.text for e in events if isinstance(e, AnswerDelta)]
    assert deltas == ["The", " answer", " is", " 42."]
    assert response.answer == "The answer is 42."
    assert response.model == "sonar"
    assert response.request_id == "req-1"
    assert response.auth_mode == "api_key"


async def test_search_results_without_a_usable_url_are_counted() -> None:
    results = [
        {"title": "Kept", "url": "https://kept.example/"},
        {"title": "No URL"},
        {"title": "Script", "url": "javascript:alert(1)"},
        "not an object",
    ]
    data = sse(chunk("ok", search_results=results), chunk("", object="chat.completion.done"))
    _, _, response = await run(sse_response(data))
    assert [s.url for s in response.sources] == ["https://kept.example/"]
    assert response.dropped_sources == 3


async def test_citations_keep_order_when_max_results_is_smaller() -> None:
    results = [
        {"title": "Five", "url": CITATIONS[4], "snippet": "five &amp; more", "date": "2024-03-15"},
        {"title": "Uncited A", "url": "https://uncited.example/a", "snippet": "a"},
        {"title": "Uncited B", "url": "https://uncited.example/b"},
        {"title": "Seven", "url": CITATIONS[6]},
    ]
    data = sse(
        chunk("See", citations=CITATIONS),
        chunk(" [7]", citations=CITATIONS, search_results=results),
        chunk("", citations=CITATIONS, search_results=results, object="chat.completion.done"),
    )
    _, events, response = await run(sse_response(data), SearchRequest("q", max_results=2))
    assert [c.url for c in response.citations] == CITATIONS  # all 7, provider order
    assert response.citations[4].title == "Five"
    assert response.citations[4].cited_text == "five & more"
    assert response.citations[0].title == CITATIONS[0]  # no search_results entry: falls back to the URL
    # first 2 results, plus every later one a citation points at
    assert [s.url for s in response.sources] == [CITATIONS[4], "https://uncited.example/a", CITATIONS[6]]
    assert response.sources[0].published_text == "2024-03-15"
    assert response.sources[0].age_seconds is not None
    # snapshots: citations emitted once (unchanged list), sources when search_results first appeared
    citation_events = [e for e in events if isinstance(e, CitationsFound)]
    assert len(citation_events) == 2  # first list, then titles filled in from search_results
    assert all(e.replace for e in citation_events)
    assert all(e.replace for e in events if isinstance(e, SourcesFound))


async def test_sources_from_citations_when_no_search_results() -> None:
    data = sse(chunk("a", citations=CITATIONS), chunk("b", citations=CITATIONS))
    _, events, response = await run(sse_response(data), SearchRequest("q", max_results=3))
    # every source is cited, so none is cut
    assert [s.url for s in response.sources] == CITATIONS
    assert len([e for e in events if isinstance(e, CitationsFound)]) == 1
    assert len([e for e in events if isinstance(e, SourcesFound)]) == 1


async def test_citations_emitted_before_text_finishes_and_again_on_change() -> None:
    data = sse(
        chunk("a", citations=CITATIONS[:2]), chunk("b", citations=CITATIONS[:2]), chunk("c", citations=CITATIONS)
    )
    _, events, response = await run(sse_response(data))
    kinds = [type(e).__name__ for e in events]
    first_citations = kinds.index("CitationsFound")
    assert first_citations < max(i for i, k in enumerate(kinds) if k == "AnswerDelta")
    assert len([e for e in events if isinstance(e, CitationsFound)]) == 2
    assert [c.url for c in response.citations] == CITATIONS


async def test_unusable_citation_url_keeps_its_slot() -> None:
    data = sse(chunk("x [3]", citations=[CITATIONS[0], "javascript:alert(1)", CITATIONS[2]]))
    _, _, response = await run(sse_response(data))
    assert [c.url for c in response.citations] == [CITATIONS[0], "", CITATIONS[2]]
    assert [s.url for s in response.sources] == [CITATIONS[0], CITATIONS[2]]


async def test_usage_last_value_wins() -> None:
    data = sse(
        chunk("a", usage={"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}),
        chunk("b", usage={"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}),
        chunk("", usage={"prompt_tokens": 10, "completion_tokens": 9, "total_tokens": 19}),
    )
    _, events, response = await run(sse_response(data))
    assert response.usage == Usage(input_tokens=10, output_tokens=9, total_tokens=19)
    with_usage = [e for e in events if isinstance(e, Metadata) and e.usage is not None]
    assert len(with_usage) == 1  # one closing Metadata, not one per token


async def test_crlf_framing() -> None:
    data = sse(chunk("one"), chunk(" two", citations=CITATIONS[:1]), newline="\r\n", done=True)
    _, _, response = await run(sse_response(split_stream(data, 5)))
    assert response.answer == "one two"
    assert [c.url for c in response.citations] == CITATIONS[:1]


async def test_event_split_mid_utf8_character() -> None:
    data = sse(chunk("Grüße "), chunk("東京 🚀"))
    cut = data.index("東".encode()) + 1  # inside the 3-byte character

    async def chunks() -> AsyncIterator[bytes]:
        yield data[:cut]
        yield data[cut:]

    _, _, response = await run(sse_response(chunks))
    assert response.answer == "Grüße 東京 🚀"


async def test_stream_failing_midway_keeps_partial_answer() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield sse(chunk("partial"), chunk(" answer", citations=CITATIONS[:2]))
        raise httpx.ReadError("connection reset")

    events, error = await run_until_error(sse_response(chunks))
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "partial answer"
    assert any(isinstance(e, CitationsFound) for e in events)
    assert error.kind is ErrorKind.NETWORK


async def test_error_payload_inside_stream() -> None:
    data = sse(chunk("a"), {"error": {"message": "upstream overloaded", "type": "server_error"}})
    events, error = await run_until_error(sse_response(data))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["a"]
    assert error.kind is ErrorKind.SERVER
    assert "upstream overloaded" in error.message


async def test_stream_ends_at_done_chunk_even_without_close() -> None:
    data = sse(chunk("x"), chunk("", object="chat.completion.done"), chunk("ignored after done"))
    _, _, response = await run(sse_response(data))
    assert response.answer == "x"


async def test_control_characters_in_deltas_are_removed() -> None:
    data = sse(chunk("safe\x1b[31m red\x07"), chunk("\x1b]8;;http://evil\x07link"))
    _, _, response = await run(sse_response(data))
    assert response.answer == "safe redlink"


async def test_content_parts_list_and_message_shape() -> None:
    first = chunk(None)
    first["choices"][0]["delta"]["content"] = [{"type": "text", "text": "Hello"}, {"type": "image", "url": "x"}]
    second = {"id": "req-1", "choices": [{"index": 0, "message": {"role": "assistant", "content": " world"}}]}
    _, _, response = await run(sse_response(sse(first, second)))
    assert response.answer == "Hello world"


async def test_related_questions_and_search_queries() -> None:
    steps = [
        {"type": "web_search", "web_search": {"search_keywords": ["rust 1.80", "rust release"]}},
        {"type": "fetch_url_content", "fetch_url_content": {"contents": []}},
    ]
    more_steps = [*steps, {"type": "web_search", "web_search": {"search_keywords": ["rust release", "lazycell"]}}]
    data = sse(
        chunk("a", reasoning_steps=steps),
        chunk("b", reasoning_steps=more_steps, related_questions=["What is <b>new</b>?", "  ", "Why?"]),
    )
    _, events, response = await run(sse_response(data))
    assert response.search_queries == ["rust 1.80", "rust release", "lazycell"]
    assert [e.queries for e in events if isinstance(e, SearchQueries)] == [("rust 1.80", "rust release"), ("lazycell",)]
    assert response.related_questions == ["What is new?", "Why?"]


async def test_json_response_instead_of_sse() -> None:
    whole = {
        "id": "whole-1",
        "model": "sonar",
        "object": "chat.completion",
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
        "citations": CITATIONS[:2],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done [1]."}}],
    }
    _, events, response = await run(lambda request: httpx.Response(200, json=whole))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["Done [1]."]
    assert [c.url for c in response.citations] == CITATIONS[:2]
    assert response.usage == Usage(input_tokens=3, output_tokens=4, total_tokens=7)
    assert response.request_id == "whole-1"


async def test_html_on_200_is_protocol_error() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/html"}, content=b"<html>login</html>")

    _, error = await run_until_error(respond)
    assert error.kind is ErrorKind.PROTOCOL


# --- errors ----------------------------------------------------------------------------------


async def test_401_uses_seed_auth_message() -> None:
    recorder = Recorder(lambda request: httpx.Response(401, json={"error": {"message": "bad key"}}))
    ctx = make_ctx("perplexity", recorder, credentials=CREDS, settings=chat())
    with pytest.raises(ProviderError) as info:
        await collect("perplexity", SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.AUTH
    assert info.value.message == "Perplexity authorization failed (401). Check API key or base URL."
    assert len(recorder.requests) == 1


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (
            429,
            {"error": {"message": "Rate limit reached", "type": "rate_limit", "code": 429}},
            ErrorKind.RATE_LIMIT,
            "Perplexity API error (429): Rate limit reached",
        ),
        (
            500,
            {"error": {"message": "Internal server error", "type": "internal", "code": 500}},
            ErrorKind.SERVER,
            "Perplexity API error (500): Internal server error",
        ),
        (
            400,
            {"error": {"message": "Invalid model 'sonar-x'", "type": "invalid_model", "code": 400}},
            ErrorKind.MODEL_NOT_FOUND,
            "Perplexity: model 'sonar-pro' is not available (400). Set [providers.perplexity] model, "
            "or run websearch-tui doctor perplexity",
        ),
    ],
)
async def test_http_errors_are_mapped_and_never_retried(
    status: int, body: dict[str, Any], kind: ErrorKind, message: str
) -> None:
    recorder = Recorder(lambda request: httpx.Response(status, json=body, headers={"retry-after": "0"}))
    ctx = make_ctx("perplexity", recorder, credentials=CREDS, settings=chat())
    with pytest.raises(ProviderError) as info:
        await collect("perplexity", SearchRequest("q"), ctx)
    assert info.value.kind is kind
    assert info.value.message == message
    assert info.value.status == status
    assert len(recorder.requests) == 1  # PROVIDERS.md §1.12: any HTTP response is final


async def test_raw_error_body_is_excerpted_and_redacted() -> None:
    from websearch_tui.core.errors import register_secret

    register_secret(KEY)
    page = f"<html><body>502 Bad Gateway {KEY}</body></html>"
    recorder = Recorder(lambda request: httpx.Response(502, text=page, headers={"content-type": "text/html"}))
    ctx = make_ctx("perplexity", recorder, credentials=CREDS, settings=chat())
    with pytest.raises(ProviderError) as info:
        await collect("perplexity", SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.SERVER
    assert info.value.message == "Perplexity API error (502): 502 Bad Gateway ***"
    assert KEY not in info.value.message


async def test_network_error_before_response_is_retried() -> None:
    calls = {"n": 0}

    def respond(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            raise httpx.ConnectError("refused")
        return httpx.Response(200, headers=SSE_HEADERS, content=sse(chunk("ok")))

    _, _, response = await run(respond)
    assert response.answer == "ok"
    assert calls["n"] == 2


# --- conformance: real payloads in ../shared/fixtures ------------------------------------------


def _fixture_lines(name: str) -> list[str]:
    path = shared_fixture(f"perplexity/{name}")
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["chat_citations.chunks.jsonl", "chat_text.chunks.jsonl"])
@pytest.mark.parametrize(("done", "split"), [(False, None), (True, None), (False, 7), (True, 1)])
async def test_replay_stream_fixture(name: str, done: bool, split: int | None) -> None:
    lines = _fixture_lines(name)
    payloads = [json.loads(line) for line in lines]
    data = "".join(f"data: {line}\n\n" for line in lines).encode()
    if done:
        data += b"data: [DONE]\n\n"
    _, events, response = await run(
        sse_response(split_stream(data, split) if split else data), SearchRequest("q", max_results=2)
    )
    expected_text = "".join(p["choices"][0]["delta"]["content"] for p in payloads)
    assert response.answer == expected_text
    deltas = [e for e in events if isinstance(e, AnswerDelta)]
    assert len(deltas) == sum(1 for p in payloads if p["choices"][0]["delta"]["content"])
    last = payloads[-1]
    assert [c.url for c in response.citations] == last["citations"]  # never cut to max_results
    assert [s.url for s in response.sources] == last["citations"]  # every source is cited
    assert response.usage == Usage(
        input_tokens=last["usage"]["prompt_tokens"],
        output_tokens=last["usage"]["completion_tokens"],
        total_tokens=last["usage"]["total_tokens"],
    )
    assert response.model == last["model"]
    assert response.request_id == last["id"]
    assert len([e for e in events if isinstance(e, CitationsFound)]) == 1  # repeated list, sent once
    # citations arrive with the first token, long before the text ends
    assert isinstance(events[1], AnswerDelta) and isinstance(events[2], CitationsFound)


@pytest.mark.parametrize("name", ["chat_citations.json", "chat_text.json"])
async def test_replay_whole_response_fixture(name: str) -> None:
    whole = json.loads(shared_fixture(f"perplexity/{name}").read_text(encoding="utf-8"))
    _, _, response = await run(lambda request: httpx.Response(200, json=whole), SearchRequest("q", max_results=1))
    assert response.answer == whole["choices"][0]["message"]["content"]
    assert [c.url for c in response.citations] == whole["citations"]
    assert response.usage == Usage(
        input_tokens=whole["usage"]["prompt_tokens"],
        output_tokens=whole["usage"]["completion_tokens"],
        total_tokens=whole["usage"]["total_tokens"],
    )
    assert response.request_id == whole["id"]


async def test_replay_pro_search_reasoning_steps_fixture() -> None:
    whole = json.loads(shared_fixture("perplexity/chat_sonar_pro_reasoning_steps.json").read_text(encoding="utf-8"))
    # The docs example is labelled chat.completion.chunk and uses `delta`; serve it both ways.
    for respond in (
        lambda request: httpx.Response(200, json=whole),
        sse_response(sse(whole)),
    ):
        _, _, response = await run(respond)
        assert response.answer == whole["choices"][0]["delta"]["content"]
        assert response.search_queries == whole["reasoning_steps"][0]["web_search"]["search_keywords"]
        assert [(s.title, s.url, s.published_text) for s in response.sources] == [
            (r["title"], r["url"], r["date"]) for r in whole["search_results"]
        ]
        assert response.citations == []
        assert response.model == "sonar-pro"
        assert response.usage is not None and response.usage.total_tokens == whole["usage"]["total_tokens"]


def test_reducer_matches_events_for_fixture_citations() -> None:
    """The parser is usable without HTTP (the fake server and CLI share it)."""
    from websearch_tui.providers.perplexity import ChunkParser

    payloads = [json.loads(line) for line in _fixture_lines("chat_citations.chunks.jsonl")]
    parser = ChunkParser(requested_model="sonar-pro", max_results=10)
    builder = ResponseBuilder("perplexity")
    for payload in payloads:
        for event in parser.feed("message", payload):
            builder.apply(event)
    for event in parser.closing():
        builder.apply(event)
    assert builder.response.answer and "[3]" in builder.response.answer
    assert len(builder.response.citations) == 7
