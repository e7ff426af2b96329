"""DeepSeek provider (Anthropic-compatible Messages, not streamed): request, parsing shared with
Anthropic, error mapping, fixture conformance, fake server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer, fake_anthropic, fake_deepseek
from tests.helpers import Recorder, collect, make_ctx, no_wait, shared_fixture
from tests.unit.test_provider_anthropic import expected_answer, fake_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, CitationsFound, SearchEvent, SearchRequest, Usage
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import load_stream
from websearch_tui.providers.helpers.prompt import date_window, user_prompt

PID = "deepseek"
KEY = "sk-deepseek-test-123456"
CREDS = {"api_key": KEY}
DOCS = "https://docs.python.org/3/library/asyncio.html"


def reply(body: Any, status: int = 200) -> Any:
    return lambda request: httpx.Response(status, json=body)


async def run(
    *replies: Any, request: SearchRequest | None = None, settings: ProviderSettings | None = None
) -> tuple[Recorder, list[SearchEvent], Any]:
    recorder = Recorder(*replies)
    ctx = make_ctx(PID, recorder, credentials=CREDS, settings=settings, sleep=no_wait)
    events, response = await collect(PID, request or SearchRequest("python asyncio"), ctx)
    return recorder, events, response


async def run_until_error(*replies: Any) -> tuple[list[SearchEvent], ProviderError, Recorder]:
    recorder = Recorder(*replies)
    ctx = make_ctx(PID, recorder, credentials=CREDS, sleep=no_wait)
    events: list[SearchEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in load_stream(PID)(SearchRequest("python asyncio"), ctx):
            events.append(event)
    return events, info.value, recorder


# --- request ---------------------------------------------------------------------------------


async def test_request_defaults() -> None:
    recorder, _, _ = await run(reply(fake_anthropic.message("python asyncio")))
    (request,) = recorder.requests
    assert str(request.url) == "https://api.deepseek.com/anthropic/v1/messages"
    headers = recorder.headers(0)
    assert headers["X-Api-Key"] == KEY
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["accept"] == "application/json"
    assert "authorization" not in headers
    body = recorder.body(0)
    assert body == {
        "model": "deepseek-flash",
        "max_tokens": 4096,
        "stream": False,
        "messages": [{"role": "user", "content": user_prompt(SearchRequest("python asyncio"))}],
        "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}],
    }


async def test_request_passes_recency_tokens_temperature_and_options() -> None:
    settings = ProviderSettings(base_url="http://127.0.0.1:9/proxy/", model="deepseek-v4-pro", options={"max_uses": 3})
    request = SearchRequest("zig 0.14", recency="month", max_results=4, max_tokens=800, temperature=1.2)
    recorder, _, _ = await run(reply(fake_anthropic.message("q")), request=request, settings=settings)
    assert str(recorder.requests[0].url) == "http://127.0.0.1:9/proxy/v1/messages"
    assert "authorization" not in recorder.headers(0)  # DeepSeek never gets the gateway Bearer header
    body = recorder.body(0)
    first, last = date_window("month")
    assert f"({first.isoformat()} to {last.isoformat()}, UTC)" in body["messages"][0]["content"]
    assert "Cite at most 4 sources." in body["messages"][0]["content"]
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("deepseek-v4-pro", 800, 1.2)
    assert body["tools"][0]["max_uses"] == 3
    assert "system" not in body


# --- parsing ---------------------------------------------------------------------------------


async def test_whole_answer_arrives_as_one_delta() -> None:
    whole = fake_anthropic.message("python asyncio")
    _, events, response = await run(reply(whole), request=SearchRequest("q", max_results=2))
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["Metadata", "SearchQueries", "SourcesFound", "AnswerDelta", "CitationsFound", "Metadata"]
    assert response.answer == expected_answer(whole["content"])
    assert [s.url for s in response.sources] == [DOCS, "https://docs.python.org/3/library/asyncio-task.html"]
    assert [c.url for c in response.citations] == [DOCS, "https://docs.python.org/3/library/asyncio-task.html"]
    assert response.model == "claude-haiku-4-5-20251001" and response.request_id == "msg_fake_anthropic_0001"
    assert response.usage == Usage(input_tokens=2150, output_tokens=96, total_tokens=2246, search_requests=1)
    assert response.auth_mode == "api_key"


async def test_every_text_block_and_top_level_results_with_descriptions() -> None:
    body = {
        "id": "msg_ds",
        "type": "message",
        "role": "assistant",
        "model": "deepseek-v4-flash",
        "content": [
            {"type": "server_tool_use", "id": "t1", "name": "web_search", "input": {"query": "asyncio"}},
            {"type": "web_search_result", "url": DOCS, "title": "Docs", "description": "The <b>asyncio</b> docs"},
            {"type": "web_search_result", "url": "https://x.example/", "title": "", "snippet": "X &amp; Y"},
            {"type": "text", "text": "First part. "},
            {"type": "text", "text": "Last part.", "citations": [{"url": DOCS, "title": "Docs", "cited_text": ""}]},
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    _, _, response = await run(reply(body))
    assert response.answer == "First part. Last part."  # not only the last block (agent-web-search did that)
    assert [(s.url, s.title, s.snippet) for s in response.sources] == [
        (DOCS, "Docs", "The asyncio docs"),
        ("https://x.example/", "https://x.example/", "X & Y"),
    ]
    assert [(c.url, c.cited_text) for c in response.citations] == [(DOCS, None)]
    assert response.search_queries == ["asyncio"]
    assert response.usage == Usage(input_tokens=3, output_tokens=4, total_tokens=7)


async def test_search_error_fragment_is_a_note() -> None:
    fragment = json.loads(shared_fixture("anthropic/web_search_tool_result_error.fragment.json").read_text())
    whole = fake_anthropic.message("q")
    whole["content"][1] = fragment
    _, _, response = await run(reply(whole))
    assert response.answer == expected_answer(whole["content"])
    assert any(n.startswith("DeepSeek web search error: max_uses_exceeded") for n in response.notes)
    assert response.sources == []


async def test_body_split_inside_utf8_characters() -> None:
    data = json.dumps(fake_anthropic.message("q"), ensure_ascii=False).encode()
    cuts = sorted({data.index("—".encode()) + 1, *range(3, len(data), 29)})

    async def chunks() -> AsyncIterator[bytes]:
        for a, b in zip([0, *cuts], [*cuts, len(data)], strict=False):
            yield data[a:b]

    _, _, response = await run(
        lambda request: httpx.Response(200, headers={"content-type": "application/json"}, content=chunks())
    )
    assert "frameworks — network servers" in response.answer


async def test_pause_turn_is_continued() -> None:
    first, second = fake_anthropic.split_turns(fake_anthropic.message("python asyncio"))
    recorder, _, response = await run(reply(first), reply(second))
    assert len(recorder.requests) == 2
    content = [{"type": "text", "text": "Let me search for that:"}, first["content"][1]]  # null citations dropped
    assert recorder.body(1)["messages"][1] == {"role": "assistant", "content": content}
    assert response.answer.startswith("Let me search for that:\n\n**asyncio**")
    assert response.usage is not None and response.usage.search_requests == 2


# --- errors ----------------------------------------------------------------------------------


REQ = " (request id req_fake_0001)"  # an Anthropic-style envelope's top-level request_id, kept


@pytest.mark.parametrize(
    ("status", "message", "kind", "expected", "attempts"),
    [
        (
            400,
            "Invalid max_tokens value",
            ErrorKind.BAD_REQUEST,
            "DeepSeek API error (400): Invalid max_tokens value" + REQ,
            1,
        ),
        (
            401,
            "Authentication Fails",
            ErrorKind.AUTH,
            "DeepSeek authorization failed (401). Check API key or base URL.",
            1,
        ),
        (402, "Insufficient Balance", ErrorKind.QUOTA, "DeepSeek API error (402): Insufficient Balance" + REQ, 1),
        (
            404,
            "Not Found",
            ErrorKind.NOT_FOUND,
            "DeepSeek web search returned 404 (model or endpoint not found)." + REQ,
            1,
        ),
        (429, "Rate Limit Reached", ErrorKind.RATE_LIMIT, "DeepSeek API error (429): Rate Limit Reached" + REQ, 4),
        (503, "Server Overloaded", ErrorKind.SERVER, "DeepSeek API error (503): Server Overloaded" + REQ, 4),
    ],
)
async def test_http_errors(status: int, message: str, kind: ErrorKind, expected: str, attempts: int) -> None:
    _, exc, recorder = await run_until_error(reply(fake_anthropic.error_body(status, message), status))
    assert (exc.kind, exc.message, exc.status) == (kind, expected, status)
    assert len(recorder.requests) == attempts


async def test_openai_style_error_body_is_read_too() -> None:
    message = "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]"
    body = {"error": {"message": message, "type": "invalid_request_error", "code": "invalid_request_error"}}
    _, exc, _ = await run_until_error(reply(body, 400))
    assert exc.message == f"DeepSeek API error (400): {message}"


MODEL_GONE = (
    "DeepSeek: model 'deepseek-flash' is not available (400). Set [providers.deepseek] model, "
    "or run websearch-tui doctor deepseek"
)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        # the OpenAI-style body DeepSeek answers for a name it does not know (Roo-Code#2468)
        (
            400,
            {"error": {"message": "Model Not Exist", "type": "invalid_request_error", "code": "invalid_request_error"}},
        ),
        # the Anthropic envelope for an unknown model, as Anthropic itself words it
        (404, {"type": "error", "error": {"type": "not_found_error", "message": "model: x"}, "request_id": "req_1"}),
        (400, {"error": "Unsupported model: deepseek-v9"}),
    ],
)
async def test_unknown_model_names_the_config_key(status: int, body: dict[str, Any]) -> None:
    _, exc, recorder = await run_until_error(reply(body, status))
    assert exc.kind is ErrorKind.MODEL_NOT_FOUND and exc.status == status
    assert exc.message == MODEL_GONE.replace("(400)", f"({status})")
    assert len(recorder.requests) == 1


async def test_deepseek_keeps_the_basic_search_tool_for_every_model() -> None:
    settings = ProviderSettings(model="claude-sonnet-4-6")  # DeepSeek maps claude-* names to its own models
    recorder, _, _ = await run(reply(fake_anthropic.message("q")), settings=settings)
    assert recorder.body(0)["tools"][0]["type"] == "web_search_20250305"


@pytest.mark.parametrize(
    ("response", "kind"),
    [
        (httpx.Response(200, json=[1, 2]), ErrorKind.UNRECOGNISED),
        (httpx.Response(200, json={"type": "message", "content": "not a list"}), ErrorKind.PROTOCOL),
        (httpx.Response(200, text="<html>gateway</html>", headers={"content-type": "text/html"}), ErrorKind.PROTOCOL),
        (httpx.Response(200, content=b'{"id": ', headers={"content-type": "application/json"}), ErrorKind.PROTOCOL),
        (httpx.Response(200, json=fake_anthropic.error_body(529, "Overloaded")), ErrorKind.SERVER),
    ],
)
async def test_bad_bodies(response: httpx.Response, kind: ErrorKind) -> None:
    _, exc, _ = await run_until_error(lambda request: response)
    assert exc.kind is kind and "DeepSeek" in exc.message


# --- conformance: the Anthropic fixtures define the shape --------------------------------------


@pytest.mark.parametrize("name", ["web_search_nonstream_thinking.json", "web_search_vercel.json"])
async def test_replay_anthropic_message_fixtures(name: str) -> None:
    whole = json.loads(shared_fixture(f"anthropic/{name}").read_text())
    _, events, response = await run(reply(whole), request=SearchRequest("q", max_results=3))
    assert [type(e) for e in events].count(AnswerDelta) == 1
    assert response.answer == expected_answer(whole["content"])
    blocks = whole["content"]
    assert [c.url for c in response.citations] == [
        c["url"] for b in blocks if b["type"] == "text" for c in b.get("citations") or []
    ]
    assert response.search_queries == [b["input"]["query"] for b in blocks if b["type"] == "server_tool_use"]
    cited = {c.url for c in response.citations}
    results = [r["url"] for b in blocks if b["type"] == "web_search_tool_result" for r in b["content"]]
    assert [s.url for s in response.sources] == [u for i, u in enumerate(results) if i < 3 or u in cited]
    assert len([e for e in events if isinstance(e, CitationsFound)]) == 1


async def test_replay_pause_turn_fixtures() -> None:
    paused = json.loads(shared_fixture("anthropic/web_search_pause_turn.json").read_text())
    continued = json.loads(shared_fixture("anthropic/web_search_pause_turn_continued.json").read_text())
    recorder, _, response = await run(reply(paused), reply(continued))
    assert recorder.body(1)["messages"][1]["content"] == paused["content"]
    assert response.answer == expected_answer(paused["content"] + continued["content"])
    assert response.usage is not None and response.usage.search_requests == 15


async def test_replay_not_found_envelope_fixture() -> None:
    body = json.loads(shared_fixture("anthropic/error_envelope_not_found.json").read_text())
    _, exc, _ = await run_until_error(reply(body, 404))
    assert exc.message == (
        "DeepSeek web search returned 404 (model or endpoint not found). (request id req_011CSHoEeqs5C35K2UUqR7Fy)"
    )


# --- end to end over real HTTP ---------------------------------------------------------------


async def test_end_to_end_against_fake_server() -> None:
    with FakeServer() as server:
        for key, handler in fake_deepseek.routes().items():
            server.set(*key, handler)
        async with httpx.AsyncClient() as client:
            config = {"base_url": server.url("deepseek/anthropic")}
            ctx = fake_ctx(PID, server, client, config, fake_deepseek.KEY)
            events, response = await collect(PID, SearchRequest("python asyncio", max_results=3), ctx)
        seen = server.last_request(fake_deepseek.PATH)
        assert seen.json()["stream"] is False and seen.header("accept") == "application/json"
    assert len([e for e in events if isinstance(e, AnswerDelta)]) == 1
    assert response.answer == expected_answer(fake_anthropic.message("python asyncio")["content"])
    assert [s.url for s in response.sources][0] == DOCS and len(response.sources) == 3
    assert [c.url for c in response.citations] == [DOCS, "https://docs.python.org/3/library/asyncio-task.html"]
    assert response.search_queries == ["python asyncio"]


@pytest.mark.parametrize("variant", fake_deepseek.VARIANTS)
async def test_fake_variants_through_the_provider(variant: str) -> None:
    with FakeServer() as server:
        for key, handler in fake_deepseek.variant_routes(variant).items():
            server.set(*key, handler)
        async with httpx.AsyncClient() as client:
            ctx = fake_ctx(PID, server, client, fake_deepseek.config(server.base_url), fake_deepseek.KEY)
            try:
                _, response = await collect(PID, SearchRequest("python asyncio", max_results=3), ctx)
            except ProviderError as error:
                assert "deepseek" in error.message.lower()
                assert fake_deepseek.KEY not in error.message
                assert variant in {"fail_midway", "dropped", "no_final"} or variant.startswith("error_")
            else:
                assert response.answer and len(response.sources) <= 3
        assert not server.errors, server.errors
