"""Gemini provider: request building, SSE parsing, grounding mapping, redirect resolution, error
mapping, fixture conformance and an end-to-end run against the loopback fake."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer, fake_gemini
from tests.helpers import Recorder, SleepLog, collect, make_ctx, no_wait, shared_fixture
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Metadata,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    Source,
    SourcesFound,
    Usage,
)
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import load_stream
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families import grounding as _grounding
from websearch_tui.providers.gemini import EMPTY_MESSAGE, MAX_TOKENS_NOTE, NO_SEARCH_NOTE
from websearch_tui.providers.helpers import parse
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT, date_window

KEY = "gemini-test-key-123456"
CREDS = {"api_key": KEY}
SSE_HEADERS = {"content-type": "text/event-stream"}
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
DEFAULT_URL = "https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"


def response(
    *texts: str | dict[str, Any],
    finish: str | None = None,
    grounding: dict[str, Any] | None = None,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """One GenerateContentResponse: text parts (or raw part dicts), optional finishReason/grounding."""
    parts = [t if isinstance(t, dict) else {"text": t} for t in texts]
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0, "groundingMetadata": {}}
    if finish:
        candidate["finishReason"] = finish
    if grounding is not None:
        candidate["groundingMetadata"] = grounding
    payload: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-2.5-flash-001", "responseId": "r-1"}
    if usage is not None:
        payload["usageMetadata"] = usage
    return payload


def grounding(
    chunks: list[tuple[str, str | None]],
    supports: list[tuple[str, list[int]]] = (),  # type: ignore[assignment]
    queries: list[str] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """groundingMetadata from (uri, title) chunks, (segment text, indices) supports and queries."""
    return {
        "groundingChunks": [{"web": {"uri": uri, **({"title": title} if title else {})}} for uri, title in chunks],
        "groundingSupports": [
            {"segment": {"endIndex": 10, "text": text}, "groundingChunkIndices": indices} for text, indices in supports
        ],
        "webSearchQueries": list(queries),
        "searchEntryPoint": {"renderedContent": "<style>.x{}</style><div>chip</div>"},
    }


def sse(*payloads: Any, newline: str = "\r\n") -> bytes:
    """Frame payloads as SSE ``data:`` events (CRLF by default, as Gemini does)."""
    return "".join(f"data: {json.dumps(p, ensure_ascii=False)}{newline}{newline}" for p in payloads).encode()


def pieces(data: bytes, cuts: list[int]) -> Callable[[], AsyncIterator[bytes]]:
    """An async byte iterator factory yielding ``data`` cut at ``cuts``."""

    async def chunks() -> AsyncIterator[bytes]:
        bounds = [0, *sorted(c for c in cuts if 0 < c < len(data)), len(data)]
        for start, end in zip(bounds, bounds[1:], strict=False):
            yield data[start:end]

    return chunks


def head_fails(request: httpx.Request) -> httpx.Response:
    return httpx.Response(404)


def handler(
    body: bytes | Callable[[], AsyncIterator[bytes]],
    head: Callable[[httpx.Request], httpx.Response] = head_fails,
) -> Callable[[httpx.Request], httpx.Response]:
    """POST answers the SSE ``body``; HEAD (redirect resolution) answers ``head``."""

    def respond(request: httpx.Request) -> httpx.Response:
        if request.method == "HEAD":
            return head(request)
        return httpx.Response(200, headers=SSE_HEADERS, content=body() if callable(body) else body)

    return respond


async def run(
    respond: Callable[[httpx.Request], Any],
    request: SearchRequest | None = None,
    settings: ProviderSettings | None = None,
) -> tuple[Recorder, list[SearchEvent], Any]:
    recorder = Recorder(respond)
    ctx = make_ctx("gemini", recorder, credentials=CREDS, settings=settings, sleep=no_wait)
    events, result = await collect("gemini", request or SearchRequest("python asyncio"), ctx)
    return recorder, events, result


async def run_until_error(
    respond: Callable[[httpx.Request], Any], request: SearchRequest | None = None
) -> tuple[Recorder, list[SearchEvent], ProviderError]:
    recorder = Recorder(respond)
    ctx = make_ctx("gemini", recorder, credentials=CREDS, sleep=no_wait)
    events: list[SearchEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in load_stream("gemini")(request or SearchRequest("q"), ctx):
            events.append(event)
    return recorder, events, info.value


def posts(recorder: Recorder) -> list[httpx.Request]:
    return [r for r in recorder.requests if r.method == "POST"]


GROUNDED = grounding(
    [
        (REDIRECT + "a", "docs.python.org"),
        (REDIRECT + "b", "realpython.com"),
        ("https://peps.python.org/pep-3156/", None),
    ],
    [("asyncio is a library.", [0]), ("It uses an event loop.", [1, 0]), ("See PEP 3156.", [2])],
    ["python asyncio", "asyncio event loop", "python asyncio"],
)
USAGE = {"promptTokenCount": 20, "candidatesTokenCount": 9, "totalTokenCount": 450, "thoughtsTokenCount": 400}


# --- request ---------------------------------------------------------------------------------


async def test_request_url_headers_and_default_body() -> None:
    recorder, _, _ = await run(handler(sse(response("hi", finish="STOP"))), SearchRequest("rust 1.80 'site:x.org'"))
    request = posts(recorder)[0]
    assert str(request.url) == DEFAULT_URL
    assert KEY not in str(request.url)  # the key travels in a header only
    assert request.headers["x-goog-api-key"] == KEY
    assert "text/event-stream" in request.headers["accept"]
    body = json.loads(request.content)
    prompt = body["contents"][0]["parts"][0]["text"]
    assert body["contents"][0]["role"] == "user"
    assert prompt.startswith("Search the web for up-to-date")
    assert "Cite at most 10 sources." in prompt
    assert prompt.endswith("\nQuestion: rust 1.80 'site:x.org'")
    assert SYSTEM_PROMPT not in prompt
    assert body["systemInstruction"] == {"parts": [{"text": SYSTEM_PROMPT}]}
    assert body["tools"] == [{"google_search": {}}]
    assert "generationConfig" not in body


async def test_request_recency_window_generation_config_model_and_base() -> None:
    settings = ProviderSettings(base_url="https://gw.example/proxy/v1beta", model="models/gemini-2.5-pro")
    request = SearchRequest("q", recency="week", max_tokens=512, temperature=0.2, max_results=4)
    recorder, _, _ = await run(handler(sse(response("x", finish="STOP"))), request, settings)
    sent = posts(recorder)[0]
    assert str(sent.url) == "https://gw.example/proxy/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    body = json.loads(sent.content)
    start, end = date_window("week")
    prompt = body["contents"][0]["parts"][0]["text"]
    assert f"past week ({start.isoformat()} to {end.isoformat()}, UTC)" in prompt
    assert "Cite at most 4 sources." in prompt
    assert body["generationConfig"] == {"maxOutputTokens": 512, "temperature": 0.2}


async def test_only_temperature_gives_generation_config_without_max_tokens() -> None:
    recorder, _, _ = await run(handler(sse(response("x", finish="STOP"))), SearchRequest("q", temperature=0))
    assert json.loads(posts(recorder)[0].content)["generationConfig"] == {"temperature": 0}


async def test_missing_key_is_config_error() -> None:
    ctx = make_ctx("gemini", Recorder(), sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect("gemini", SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.CONFIG
    assert "GEMINI_API_KEY" in info.value.message


# --- streaming -------------------------------------------------------------------------------


async def test_parts_arrive_as_separate_deltas_and_thoughts_are_skipped() -> None:
    data = sse(
        response({"text": "planning…", "thought": True}, "asyncio", usage=USAGE),
        response(" is", usage=USAGE),
        response(" great.", finish="STOP", grounding=GROUNDED, usage=USAGE),
    )
    _, events, result = await run(handler(data))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["asyncio", " is", " great."]
    assert result.answer == "asyncio is great."
    assert result.model == "gemini-2.5-flash-001"
    assert result.request_id == "r-1"
    assert result.auth_mode == "api_key"
    assert result.usage == Usage(input_tokens=20, output_tokens=9, total_tokens=450, search_requests=2)
    assert result.notes == []
    first_delta = next(i for i, e in enumerate(events) if isinstance(e, AnswerDelta))
    assert isinstance(events[first_delta - 1], Metadata)  # model/id known before the first token


async def test_grounding_maps_to_sources_citations_and_queries() -> None:
    data = sse(response("a"), response("b", finish="STOP", grounding=GROUNDED))
    _, events, result = await run(handler(data))
    assert [(s.url, s.title) for s in result.sources] == [
        (REDIRECT + "a", "docs.python.org"),
        (REDIRECT + "b", "realpython.com"),
        ("https://peps.python.org/pep-3156/", "https://peps.python.org/pep-3156/"),
    ]
    assert [(c.url, c.cited_text) for c in result.citations] == [
        (REDIRECT + "a", "asyncio is a library."),
        (REDIRECT + "b", "It uses an event loop."),
        (REDIRECT + "a", "It uses an event loop."),
        ("https://peps.python.org/pep-3156/", "See PEP 3156."),
    ]
    assert result.search_queries == ["python asyncio", "asyncio event loop"]
    assert [e.queries for e in events if isinstance(e, SearchQueries)] == [("python asyncio", "asyncio event loop")]
    assert all(e.replace for e in events if isinstance(e, SourcesFound))  # the selection is a snapshot ...
    assert not any(e.replace for e in events if isinstance(e, CitationsFound))  # ... citations only grow
    # grounding arrives with the last token, before the closing metadata
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("CitationsFound") < max(i for i, k in enumerate(kinds) if k == "Metadata")


async def test_sources_are_sliced_but_every_cited_one_is_kept() -> None:
    chunks = [(f"https://site{i}.example/", f"site {i}") for i in range(6)]
    meta = grounding(chunks, [("late claim", [5])])
    _, _, result = await run(
        handler(sse(response("x", finish="STOP", grounding=meta))), SearchRequest("q", max_results=2)
    )
    assert [s.url for s in result.sources] == [
        "https://site0.example/",
        "https://site1.example/",
        "https://site5.example/",
    ]
    assert [c.url for c in result.citations] == ["https://site5.example/"]


async def test_unusable_uris_are_never_links_and_retrieved_context_is_read() -> None:
    meta = {
        "groundingChunks": [
            {"web": {"uri": "a1b2c3d4e5", "title": "bare hash"}},
            {"web": {"uri": "https://www.google.com/search?q=weather+in+San Francisco, CA,+US", "title": "Weather"}},
            {"retrievedContext": {"uri": "https://kb.example/doc", "title": "KB doc"}},
            {"web": {"uri": "javascript:alert(1)", "title": "evil"}},
            "not a chunk",
        ],
        "groundingSupports": [
            {"segment": {"text": "claim"}, "groundingChunkIndices": [0, 1, 2, 3, 4, 99, "x", True]},
            {"segment": "broken"},
        ],
    }
    _, _, result = await run(handler(sse(response("x", finish="STOP", grounding=meta))))
    urls = ["https://www.google.com/search?q=weather+in+San%20Francisco,%20CA,+US", "https://kb.example/doc"]
    assert [s.url for s in result.sources] == urls
    assert [c.url for c in result.citations] == urls
    assert all(c.cited_text == "claim" for c in result.citations)


async def test_supports_index_into_their_own_response_chunks() -> None:
    first = grounding([("https://one.example/", "one")], [("first", [0])], ["q1"])
    second = grounding([("https://two.example/", "two")], [("second", [0])], ["q2"])
    data = sse(response("a", grounding=first), response("b", finish="STOP", grounding=second))
    _, _, result = await run(handler(data))
    assert [(c.url, c.cited_text) for c in result.citations] == [
        ("https://one.example/", "first"),
        ("https://two.example/", "second"),
    ]
    assert result.search_queries == ["q1", "q2"]


async def test_redirect_links_are_resolved_after_the_answer() -> None:
    targets = {REDIRECT + "a": "https://docs.python.org/3/library/asyncio.html", REDIRECT + "b": "/relative/page"}

    def head(request: httpx.Request) -> httpx.Response:
        assert "x-goog-api-key" not in request.headers  # the key never follows a grounding link
        return httpx.Response(302, headers={"location": targets[str(request.url)]})

    _, events, result = await run(handler(sse(response("x", finish="STOP", grounding=GROUNDED)), head))
    assert [(s.url, s.title) for s in result.sources] == [
        ("https://docs.python.org/3/library/asyncio.html", "docs.python.org"),
        ("https://vertexaisearch.cloud.google.com/relative/page", "realpython.com"),
        ("https://peps.python.org/pep-3156/", "https://peps.python.org/pep-3156/"),
    ]
    assert result.citations[0] == Citation(
        "https://docs.python.org/3/library/asyncio.html", "docs.python.org", "asyncio is a library."
    )
    closing = max(i for i, e in enumerate(events) if isinstance(e, Metadata))
    resolved = [e for e in events[closing:] if isinstance(e, SourcesFound | CitationsFound)]
    assert [type(e) for e in resolved] == [SourcesFound, CitationsFound] and all(e.replace for e in resolved)


async def test_redirects_are_resolved_against_the_runs_own_clock() -> None:
    """The deadline is a value of ``ctx.clock``; resolution compared it with ``time.monotonic()``,
    so a run on another clock (an engine's fake one) left every redirect link unresolved."""
    targets = {
        REDIRECT + "a": "https://docs.python.org/3/library/asyncio.html",
        REDIRECT + "b": "https://realpython.com/",
    }
    head = lambda request: httpx.Response(302, headers={"location": targets[str(request.url)]})  # noqa: E731
    recorder = Recorder(handler(sse(response("x", finish="STOP", grounding=GROUNDED)), head))
    ctx = make_ctx("gemini", recorder, credentials=CREDS, clock=lambda: 0.0, sleep=no_wait)
    _, result = await collect("gemini", SearchRequest("python asyncio"), ctx)
    assert [s.url for s in result.sources] == [*targets.values(), "https://peps.python.org/pep-3156/"]


async def test_resolution_dedupes_and_keeps_redirects_that_fail() -> None:
    meta = grounding(
        [(REDIRECT + "a", "python.org"), (REDIRECT + "b", "docs.python.org"), (REDIRECT + "c", "down.example")],
        [("x", [0, 1, 2])],
    )
    target = "https://docs.python.org/3/"

    def head(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/c"):
            raise httpx.ConnectError("refused")
        location = target if request.url.path.endswith("/a") else target + "#top"
        return httpx.Response(301, headers={"location": location})

    _, _, result = await run(handler(sse(response("x", finish="STOP", grounding=meta)), head))
    assert [(s.url, s.title) for s in result.sources] == [(target, "python.org"), (REDIRECT + "c", "down.example")]
    assert [c.url for c in result.citations] == [target, target + "#top", REDIRECT + "c"]  # never dropped


async def test_non_http_location_is_not_used() -> None:
    def head(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "javascript:alert(1)"})

    meta = grounding([(REDIRECT + "a", "t")], [("x", [0])])
    _, _, result = await run(handler(sse(response("x", finish="STOP", grounding=meta)), head))
    assert [s.url for s in result.sources] == [REDIRECT + "a"]


async def test_event_split_inside_utf8_character() -> None:
    data = sse(response("Grüße "), response("東京 🚀", finish="STOP"))
    cut = data.index("東".encode()) + 1
    _, _, result = await run(handler(pieces(data, [3, cut, cut + 1, len(data) - 2])))
    assert result.answer == "Grüße 東京 🚀"


async def test_lf_framing_is_accepted_too() -> None:
    _, _, result = await run(handler(sse(response("a"), response("b", finish="STOP"), newline="\n")))
    assert result.answer == "ab"


async def test_stream_failing_midway_keeps_partial_answer() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield sse(response("partial"), response(" answer"))
        raise httpx.ReadError("connection reset")

    recorder, events, error = await run_until_error(handler(chunks))
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "partial answer"
    assert error.kind is ErrorKind.NETWORK
    assert "Gemini" in error.message
    assert len(posts(recorder)) == 1  # never retried after the first event


async def test_error_event_after_tokens() -> None:
    failure = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    _, events, error = await run_until_error(handler(sse(response("a"), failure)))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["a"]
    assert error.kind is ErrorKind.SERVER
    assert error.message == "Gemini API error (503 UNAVAILABLE): The model is overloaded."


async def test_stream_ending_without_finish_reason_is_protocol_error() -> None:
    _, events, error = await run_until_error(handler(sse(response("a"), response("b"))))
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "ab"
    assert error.kind is ErrorKind.PROTOCOL
    assert error.message == "Gemini stream ended before it finished"


async def test_answer_without_grounding_gets_a_note() -> None:
    meta_free = response("plain answer", finish="STOP")
    del meta_free["candidates"][0]["groundingMetadata"]
    _, _, result = await run(handler(sse(meta_free)))
    assert result.answer == "plain answer"
    assert result.notes == [NO_SEARCH_NOTE]
    assert result.usage is None


async def test_max_tokens_finish_gets_a_note() -> None:
    _, _, result = await run(handler(sse(response("cut", finish="MAX_TOKENS", grounding=GROUNDED))))
    assert MAX_TOKENS_NOTE in result.notes


async def test_empty_grounded_response_is_a_failure() -> None:
    _, _, error = await run_until_error(handler(sse(response(finish="STOP"))))
    assert error.kind is ErrorKind.EMPTY
    assert error.status == 502
    assert error.message == EMPTY_MESSAGE


async def test_an_answer_of_control_characters_only_is_still_empty() -> None:
    """The text is passed on as sent (the reducer cleans it), but "nothing was answered" still
    reads it as shown."""
    _, events, error = await run_until_error(handler(sse(response("\x1b[0m\x07", finish="STOP"))))
    assert error.kind is ErrorKind.EMPTY and error.message == EMPTY_MESSAGE


async def test_blocked_prompt_is_bad_request() -> None:
    blocked = {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-2.5-flash"}
    _, _, error = await run_until_error(handler(sse(blocked)))
    assert error.kind is ErrorKind.BAD_REQUEST
    assert error.message == "Gemini blocked the prompt (SAFETY)."


async def test_response_wrapper_and_json_array_body() -> None:
    wrapped = sse({"response": response("wrapped", finish="STOP", grounding=GROUNDED)})
    _, _, result = await run(handler(wrapped))
    assert result.answer == "wrapped" and len(result.sources) == 3

    def json_array(request: httpx.Request) -> httpx.Response:
        if request.method == "HEAD":
            return httpx.Response(404)
        return httpx.Response(200, json=[response("one"), response(" two", finish="STOP", grounding=GROUNDED)])

    _, _, result = await run(json_array)
    assert result.answer == "one two" and len(result.citations) == 4


async def test_control_characters_and_entry_point_html_never_reach_the_answer() -> None:
    _, _, result = await run(handler(sse(response("safe\x1b[31m red\x07", finish="STOP", grounding=GROUNDED))))
    assert result.answer == "safe red"
    assert "chip" not in result.answer and all("<" not in s.title for s in result.sources)


# --- errors ----------------------------------------------------------------------------------


def google_error(status: int, message: str, google_status: str, details: list[Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": status, "message": message, "status": google_status}
    if details:
        error["details"] = details
    return {"error": error}


async def test_429_with_retry_info_is_retried_with_its_delay() -> None:
    body = json.loads(shared_fixture("gemini/error_429_retry_info.json").read_bytes())
    ok = handler(sse(response("ok", finish="STOP", grounding=GROUNDED)))
    calls: list[int] = []

    def respond(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            calls.append(1)
            if len(calls) == 1:
                return httpx.Response(429, json=body)
        return ok(request)

    waits = SleepLog()
    ctx = make_ctx("gemini", respond, credentials=CREDS, timeout=60, sleep=waits)
    _, result = await collect("gemini", SearchRequest("q"), ctx)
    assert result.answer == "ok"
    assert waits == [pytest.approx(35.4)]  # RetryInfo 34.4 s + 1 s padding


async def test_429_retry_hint_past_the_deadline_fails_at_once_as_rate_limit() -> None:
    body = google_error(
        429,
        "You exceeded your current quota.",
        "RESOURCE_EXHAUSTED",
        [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}],
    )
    recorder = Recorder(lambda request: httpx.Response(429, json=body))
    ctx = make_ctx("gemini", recorder, credentials=CREDS, timeout=10, sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect("gemini", SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert info.value.retry_after == pytest.approx(34.4)
    assert info.value.message.startswith("Gemini API error (429 RESOURCE_EXHAUSTED): You exceeded your current quota.")
    assert "retry in 35 s" in info.value.message
    assert len(recorder.requests) == 1


@pytest.mark.parametrize(
    ("status", "body", "kind", "message", "attempts"),
    [
        (
            429,
            google_error(429, "You exceeded your current quota, check billing.", "RESOURCE_EXHAUSTED"),
            ErrorKind.QUOTA,
            "Gemini API error (429 RESOURCE_EXHAUSTED): You exceeded your current quota, check billing.",
            1,
        ),
        (
            400,
            google_error(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT"),
            ErrorKind.AUTH,
            "Gemini authorization failed (400). Check API key or base URL.",
            1,
        ),
        (
            403,
            google_error(403, "Permission denied", "PERMISSION_DENIED"),
            ErrorKind.AUTH,
            "Gemini authorization failed (403). Check API key or base URL.",
            1,
        ),
        (
            400,
            google_error(400, "* GenerateContentRequest.contents: contents is not specified", "INVALID_ARGUMENT"),
            ErrorKind.BAD_REQUEST,
            "Gemini API error (400 INVALID_ARGUMENT): * GenerateContentRequest.contents: contents is not specified",
            1,
        ),
        (
            404,
            google_error(404, "Requested entity was not found.", "NOT_FOUND"),
            ErrorKind.NOT_FOUND,
            "Gemini API error (404 NOT_FOUND): Requested entity was not found.",
            1,
        ),
        (
            500,
            google_error(500, "An internal error has occurred.", "INTERNAL"),
            ErrorKind.SERVER,
            "Gemini API error (500 INTERNAL): An internal error has occurred.",
            4,
        ),
    ],
)
async def test_http_errors_are_mapped(
    status: int, body: dict[str, Any], kind: ErrorKind, message: str, attempts: int
) -> None:
    recorder = Recorder(lambda request: httpx.Response(status, json=body))
    ctx = make_ctx("gemini", recorder, credentials=CREDS, sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect("gemini", SearchRequest("q"), ctx)
    assert info.value.kind is kind
    assert info.value.message == message
    assert info.value.status == status
    assert len(recorder.requests) == attempts


async def test_error_text_never_contains_the_key() -> None:
    register_secret(KEY)
    page = f"<html><body>502 Bad Gateway for key={KEY}</body></html>"
    recorder = Recorder(lambda request: httpx.Response(502, text=page, headers={"content-type": "text/html"}))
    with pytest.raises(ProviderError) as info:
        await collect("gemini", SearchRequest("q"), make_ctx("gemini", recorder, credentials=CREDS, sleep=no_wait))
    assert info.value.kind is ErrorKind.SERVER
    assert info.value.message == "Gemini API error (502): 502 Bad Gateway for key=***"
    assert KEY not in info.value.message


# --- _grounding --------------------------------------------------------------------------------


def test_redirect_link() -> None:
    assert _grounding.redirect_link(REDIRECT + "AUZ") == REDIRECT + "AUZ"
    fake = "http://127.0.0.1:5/gemini/grounding-api-redirect/x"
    assert _grounding.redirect_link(fake) is None  # an upstream-named host is never contacted ...
    assert _grounding.redirect_link(fake, [("http", "127.0.0.1", 5)]) == fake  # ... unless it is our endpoint
    assert _grounding.redirect_link("http://vertexaisearch.cloud.google.com/grounding-api-redirect/x") is None
    assert _grounding.redirect_link("https://10.0.0.1/grounding-api-redirect/x") is None
    assert _grounding.redirect_link("https://example.com/?u=/grounding-api-redirect/") is None
    assert _grounding.redirect_link("a1b2c3") is None
    assert _grounding.redirect_link(None) is None


@pytest.mark.parametrize(
    "link",
    [
        "http://127.0.0.1:6/gemini/grounding-api-redirect/x",  # the endpoint's host, another port
        "http://127.0.0.1:5/gemini/grounding-api-redirect/../../admin",  # dot segments leave the marker
        "http://127.0.0.1:5/gemini/grounding-api-redirect/%2e%2e/%2e%2e/admin",
        "https://vertexaisearch.cloud.google.com:8443/grounding-api-redirect/x",
        "https://vertexaisearch.cloud.google.com/a/grounding-api-redirect/../../../evil",
    ],
)
def test_a_redirect_link_elsewhere_on_the_trusted_host_is_refused(link: str) -> None:
    assert _grounding.redirect_link(link, [("http", "127.0.0.1", 5)]) is None


def test_user_info_in_a_redirect_link_is_never_sent() -> None:
    link = "https://user:secret@vertexaisearch.cloud.google.com/grounding-api-redirect/AUZ"
    assert _grounding.redirect_link(link) == REDIRECT + "AUZ"


def test_select_sources_keeps_cited_beyond_the_limit() -> None:
    sources = [Source(f"https://s{i}.example/", f"s{i}") for i in range(5)] + [Source("https://S0.example", "dup")]
    kept = parse.limit_sources(sources, 2, ["https://s4.example"])
    assert [s.url for s in kept] == ["https://s0.example/", "https://s1.example/", "https://s4.example/"]


def test_usage_from_reads_non_negative_int_counts_only() -> None:
    raw = {"promptTokenCount": 7, "candidatesTokenCount": True, "totalTokenCount": -1}
    assert parse.usage_from(raw, input="promptTokenCount", output="candidatesTokenCount", total="totalTokenCount") == (
        Usage(input_tokens=7)
    )
    assert parse.usage_from({}, input="promptTokenCount", searches=2) == Usage(search_requests=2)
    assert parse.usage_from(None, input="promptTokenCount") is None
    assert parse.int_field({"a": False, "b": "3", "c": -4}, "a", "b", "c") == -4


async def test_resolution_concurrency_is_bounded() -> None:
    active, peak = [0], [0]

    async def head(request: httpx.Request) -> httpx.Response:
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        await asyncio.sleep(0.02)
        active[0] -= 1
        return httpx.Response(302, headers={"location": f"https://real.example{request.url.path}"})

    links = {f"{REDIRECT}{i}": f"{REDIRECT}{i}" for i in range(10)}
    async with httpx.AsyncClient(transport=httpx.MockTransport(head)) as client:
        mapping = await _grounding.resolve_redirects(client, links, deadline=time.monotonic() + 5, concurrency=4)
    assert peak[0] == 4
    assert len(mapping) == 10
    assert mapping[REDIRECT + "3"] == "https://real.example/grounding-api-redirect/3"


async def test_resolution_never_outlives_the_deadline() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(10)
        return httpx.Response(302, headers={"location": "https://late.example/"})

    started = time.monotonic()
    async with httpx.AsyncClient(transport=httpx.MockTransport(slow)) as client:
        mapping = await _grounding.resolve_redirects(
            client, {REDIRECT + "a": REDIRECT + "a", REDIRECT + "b": REDIRECT + "b"}, deadline=started + 0.2
        )
    assert mapping == {}
    assert time.monotonic() - started < 1.5


async def test_resolution_with_an_expired_deadline_sends_nothing() -> None:
    recorder = Recorder(httpx.Response(302, headers={"location": "https://x.example/"}))
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as client:
        assert (
            await _grounding.resolve_redirects(client, {REDIRECT + "a": REDIRECT + "a"}, deadline=time.monotonic() - 1)
            == {}
        )
    assert recorder.requests == []


# --- conformance: real payloads in ../shared/fixtures ------------------------------------------


def _fixture_events(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(event[len(b"data: ") :]) for event in raw.split(b"\r\n\r\n") if event.strip()]


@pytest.mark.parametrize("cuts", [[], [7, 500, 501, 2000, 9000], list(range(13, 14000, 97))])
async def test_replay_grounding_stream_fixture(cuts: list[int]) -> None:
    raw = shared_fixture("gemini/grounding_stream.sse").read_bytes()
    assert b"\r\n\r\n" in raw  # the CRLF case is really exercised
    payloads = _fixture_events(raw)
    utf8_cuts = [i for i, b in enumerate(raw) if 0x80 <= b < 0xC0][:5]
    _, events, result = await run(handler(pieces(raw, cuts + utf8_cuts)), SearchRequest("weather", max_results=2))
    texts = [p["text"] for payload in payloads for p in payload["candidates"][0]["content"]["parts"]]
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == texts
    assert result.answer == "".join(texts)
    meta = payloads[-1]["candidates"][0]["groundingMetadata"]
    uris = [c["web"]["uri"].replace(" ", "%20") for c in meta["groundingChunks"]]
    assert [s.url for s in result.sources] == uris  # every chunk is cited, so none is cut
    assert [s.title for s in result.sources] == [c["web"]["title"] for c in meta["groundingChunks"]]
    expected = [(uris[i], s["segment"]["text"]) for s in meta["groundingSupports"] for i in s["groundingChunkIndices"]]
    assert [(c.url, c.cited_text) for c in result.citations] == expected
    assert result.search_queries == meta["webSearchQueries"]
    last_usage = payloads[-1]["usageMetadata"]
    assert result.usage == Usage(
        input_tokens=last_usage["promptTokenCount"],
        output_tokens=last_usage["candidatesTokenCount"],
        total_tokens=last_usage["totalTokenCount"],
        search_requests=len(meta["webSearchQueries"]),
    )
    assert result.model == payloads[-1]["modelVersion"]
    assert result.request_id == payloads[-1]["responseId"]
    assert result.notes == []


async def test_replay_grounding_stream_fixture_with_resolution() -> None:
    raw = shared_fixture("gemini/grounding_stream.sse").read_bytes()

    def head(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": f"https://resolved.example/{request.url.path[-8:]}"})

    recorder, _, result = await run(handler(raw, head))
    heads = [r for r in recorder.requests if r.method == "HEAD"]
    assert len(heads) == 4 and all(r.url.host == "vertexaisearch.cloud.google.com" for r in heads)
    assert [s.url.split("/")[2] for s in result.sources] == ["www.google.com"] + ["resolved.example"] * 4
    assert all("vertexaisearch" not in c.url for c in result.citations)
    assert [s.title for s in result.sources][1:] == [
        "timeanddate.com",
        "weather.gov",
        "wunderground.com",
        "accuweather.com",
    ]


async def test_replay_generate_content_fixture_as_json_body() -> None:
    whole = json.loads(shared_fixture("gemini/grounding_generate.json").read_bytes())

    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404) if request.method == "HEAD" else httpx.Response(200, json=whole)

    _, _, result = await run(respond)
    candidate = whole["candidates"][0]
    meta = candidate["groundingMetadata"]
    assert result.answer == "".join(p["text"] for p in candidate["content"]["parts"])
    assert [s.title for s in result.sources] == [c["web"]["title"] for c in meta["groundingChunks"]]
    assert result.sources[0].url == "https://www.google.com/search?q=weather+in+San%20Francisco,%20CA,+US"
    assert len(result.citations) == sum(len(s["groundingChunkIndices"]) for s in meta["groundingSupports"])
    assert result.search_queries == meta["webSearchQueries"]
    assert result.request_id == whole["responseId"]


# --- end to end over HTTP against the loopback fake ------------------------------------------


def install(server: FakeServer, variant: str = "default") -> None:
    """Mount the Gemini fake's routes (until the lead registers it in routes.PLUGIN_PROVIDERS)."""
    for (method, path), route in fake_gemini.variant_routes(variant).items():
        server.set(method, path, route)


async def test_end_to_end_against_fake_server() -> None:
    data = fake_gemini.answer_data()
    with FakeServer() as srv:
        install(srv)
        async with httpx.AsyncClient() as client:
            ctx = ProviderContext(
                spec=get_spec("gemini"),
                client=client,
                settings=ProviderSettings(base_url=srv.url("gemini")),
                credentials={"api_key": fake_gemini.KEY},
                deadline=time.monotonic() + 20,
                sleep=no_wait,
            )
            events, result = await collect("gemini", SearchRequest("python asyncio", max_results=5), ctx)
        heads = [r for r in srv.requests if r.method == "HEAD"]
        post = srv.last_request(fake_gemini.SEARCH_ROUTE[1])
        assert not srv.errors, srv.errors
    assert post.query == {"alt": "sse"} and post.header("x-goog-api-key") == fake_gemini.KEY
    assert result.answer == data["answer"]
    assert len([e for e in events if isinstance(e, AnswerDelta)]) > 40
    assert [s.url for s in result.sources] == [
        "https://docs.python.org/3/library/asyncio.html",
        "https://docs.python.org/3/library/asyncio-task.html",
        "https://realpython.com/async-io-python/",
    ]
    assert len(heads) == 4
    assert data["supports"][0]["text"].startswith("**asyncio** is")  # the segment is a span of Markdown
    assert result.citations[0] == Citation(  # the quote is its plain text
        "https://docs.python.org/3/library/asyncio.html",
        "docs.python.org",
        "asyncio is Python's standard library for writing concurrent code with the async/await syntax.",
    )
    assert len(result.citations) == 6
    assert result.search_queries == data["queries"]
    assert result.model == "gemini-2.5-flash" and result.request_id == "fake-gemini-resp-0001"


@pytest.mark.parametrize("variant", fake_gemini.VARIANTS)
async def test_every_fake_variant_ends_cleanly(variant: str) -> None:
    with FakeServer() as srv:
        install(srv, variant)
        async with httpx.AsyncClient() as client:
            ctx = ProviderContext(
                spec=get_spec("gemini"),
                client=client,
                settings=ProviderSettings(**fake_gemini.config(srv.base_url)),
                credentials={"api_key": fake_gemini.KEY},
                deadline=time.monotonic() + 20,
                sleep=no_wait,
            )
            try:
                _, result = await collect("gemini", SearchRequest("python asyncio", max_results=5), ctx)
            except ProviderError as error:
                assert "gemini" in error.message.lower() and fake_gemini.KEY not in error.message
            else:
                assert len(result.sources) <= 5 and result.answer
        assert not srv.errors, srv.errors


# --- a model Google does not serve (any more) --------------------------------------------------

MODEL_GONE = (
    "Gemini: model '{model}' is not available (404). Set [providers.gemini] model, or run websearch-tui doctor gemini"
)


def model_not_found_body(model: str) -> dict[str, Any]:
    """Google's 404 for an unknown or retired model, in the documented envelope (text as recorded in 2026)."""
    message = (
        f"models/{model} is not found for API version v1beta, or is not supported for generateContent. "
        "Call ModelService.ListModels to see the list of available models and their supported methods."
    )
    return google_error(404, message, "NOT_FOUND")


async def test_unknown_model_is_a_plain_error_naming_the_config_key() -> None:
    settings = ProviderSettings(model="gemini-2.5-flash")
    recorder = Recorder(lambda request: httpx.Response(404, json=model_not_found_body("gemini-2.5-flash")))
    ctx = make_ctx("gemini", recorder, credentials=CREDS, settings=settings, sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect("gemini", SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND and info.value.status == 404
    assert info.value.message == MODEL_GONE.format(model="gemini-2.5-flash")
    assert "ListModels" not in info.value.message  # never the raw body
    assert len(recorder.requests) == 1


async def test_unknown_model_through_the_fake_server() -> None:
    with FakeServer() as srv:
        install(srv)
        srv.fail(fake_gemini.SEARCH_ROUTE, 404, body=model_not_found_body(fake_gemini.MODELS[0]))
        async with httpx.AsyncClient() as client:
            ctx = ProviderContext(
                spec=get_spec("gemini"),
                client=client,
                settings=ProviderSettings(base_url=srv.url("gemini")),
                credentials={"api_key": fake_gemini.KEY},
                deadline=time.monotonic() + 20,
                sleep=no_wait,
            )
            with pytest.raises(ProviderError) as info:
                await collect("gemini", SearchRequest("python asyncio"), ctx)
        assert not srv.errors, srv.errors
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert info.value.message == MODEL_GONE.format(model="gemini-3.8-flash")


# --- Gemini 3: server-side tool invocations in the parts ----------------------------------------


async def test_gemini3_tool_call_and_tool_response_parts_do_not_break_the_parser() -> None:
    chip = '<style>.container{}</style><div class="chip">asyncio</div>'
    parts: list[str | dict[str, Any]] = [
        {"text": "**Planning** the search.", "thought": True},
        {
            "thoughtSignature": "c2ln",
            "toolCall": {
                "toolType": "GOOGLE_SEARCH_WEB",
                "id": "call1",
                "args": {"queries": ["asyncio tutorial", "asyncio docs"]},
            },
        },
        {
            "thoughtSignature": "c2ln",
            "toolResponse": {"toolType": "GOOGLE_SEARCH_WEB", "id": "call1", "response": {"search_suggestions": chip}},
        },
        {"thoughtSignature": "c2ln", "toolCall": {"toolType": "CODE_EXECUTION", "args": {"queries": ["not a search"]}}},
        {"text": "asyncio runs coroutines.", "thoughtSignature": "c2ln"},
    ]
    metadata = grounding(
        [(REDIRECT + "a", "python.org"), (REDIRECT + "b", "realpython.com")],
        [("asyncio runs coroutines.", [0, 1])],
        ["asyncio docs", "asyncio tutorial", "asyncio event loop"],
    )
    body = response(
        *parts,
        finish="STOP",
        grounding=metadata,
        usage={"promptTokenCount": 13, "candidatesTokenCount": 5, "totalTokenCount": 30},
    )
    body["usageMetadata"]["serviceTier"] = "standard"

    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404) if request.method == "HEAD" else httpx.Response(200, json=body)

    _, events, result = await run(reply)
    assert result.answer == "asyncio runs coroutines."
    assert result.search_queries == ["asyncio tutorial", "asyncio docs", "asyncio event loop"]
    assert isinstance(events[1], SearchQueries)  # the tool call's queries come before the answer
    assert [s.url for s in result.sources] == [REDIRECT + "a", REDIRECT + "b"]
    assert [c.url for c in result.citations] == [REDIRECT + "a", REDIRECT + "b"]
    assert result.usage == Usage(input_tokens=13, output_tokens=5, total_tokens=30, search_requests=3)
    assert NO_SEARCH_NOTE not in result.notes and result.notes == []


async def test_a_tool_call_alone_counts_as_a_search() -> None:
    call = {"toolCall": {"toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["q1"]}}}
    _, _, result = await run(handler(sse(response(call, "answer", finish="STOP"))))
    assert result.search_queries == ["q1"] and NO_SEARCH_NOTE not in result.notes


# --- conformance: a real Gemini 3 grounded answer ------------------------------------------------


@pytest.mark.parametrize("framing", ["json", "sse"])
async def test_replay_gemini3_google_search_recording(framing: str) -> None:
    """A recorded ``generateContent`` answer of a Gemini 3 model with Google Search and
    ``includeServerSideToolInvocations`` (thought parts, ``toolCall``/``toolResponse`` parts with
    thought signatures, full grounding): read from the shared fixtures or ``$WEBSEARCH_EXTRA_FIXTURES``."""
    whole = json.loads(shared_fixture("gemini/gemini3_google_search.json").read_text())

    def reply(request: httpx.Request) -> httpx.Response:
        if request.method == "HEAD":
            return httpx.Response(404)  # redirect links stay as they are
        if framing == "json":
            return httpx.Response(200, json=whole)
        return httpx.Response(200, headers=SSE_HEADERS, content=b"data: " + json.dumps(whole).encode() + b"\r\n\r\n")

    _, events, result = await run(reply, request=SearchRequest("q", max_results=20))
    candidate = whole["candidates"][0]
    parts = candidate["content"]["parts"]
    meta = candidate["groundingMetadata"]
    assert result.answer == "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    called = [q for p in parts if "toolCall" in p for q in p["toolCall"]["args"]["queries"]]
    assert result.search_queries == list(dict.fromkeys(called + meta["webSearchQueries"]))
    chunks = [c["web"] for c in meta["groundingChunks"]]
    assert [s.url for s in result.sources] == list(dict.fromkeys(c["uri"] for c in chunks))
    assert [s.title for s in result.sources] == [c["title"] for c in chunks]
    cited = [
        (chunks[i]["uri"], s["segment"]["text"]) for s in meta["groundingSupports"] for i in s["groundingChunkIndices"]
    ]
    assert [c.url for c in result.citations] == [url for url, _ in dict.fromkeys(cited)]
    assert all(c.cited_text for c in result.citations)
    usage = whole["usageMetadata"]
    assert result.usage == Usage(
        input_tokens=usage["promptTokenCount"],
        output_tokens=usage["candidatesTokenCount"],
        total_tokens=usage["totalTokenCount"],
        search_requests=len(result.search_queries),
    )
    assert result.model == whole["modelVersion"] and result.request_id == whole["responseId"]
    assert result.notes == []
    assert "<style" not in result.answer and "search_suggestions" not in result.answer
