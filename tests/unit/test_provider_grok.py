"""Grok (xAI Responses) provider: search modes, x_search dates, the Live Search 410, the string
error body, the xAI fixtures (URL-only citations, JSON-string arguments) and the fake server."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from tests.fake_providers import fake_grok as fake
from tests.helpers import shared_fixture
from tests.unit.test_provider_openai import (
    answer_of,
    fake_server_run,
    frame,
    frame_lines,
    pieces,
    respond_json,
    respond_sse,
    run,
    run_until_error,
    simple_stream,
)
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, CitationsFound, SearchRequest
from websearch_tui.core.specs import ProviderSettings

KEY = "xai-test-key-123456"
CREDS = {"api_key": KEY}


def mode(value: object) -> ProviderSettings:
    return ProviderSettings(options={"search_mode": value})


async def test_request_defaults() -> None:
    recorder, _, _ = await run("grok", respond_sse(simple_stream("hi")), credentials=CREDS)
    request = recorder.requests[0]
    assert str(request.url) == "https://api.x.ai/v1/responses"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    body = recorder.body()
    assert body["model"] == "grok-4.3"
    assert body["stream"] is True
    assert body["input"][0]["role"] == "system" and isinstance(body["input"][0]["content"], str)
    user = body["input"][1]
    assert user["role"] == "user" and user["content"].startswith("Search the web")
    assert user["content"].endswith("\nQuestion: python asyncio")
    assert body["tools"] == [{"type": "web_search"}]
    for absent in ("search_parameters", "max_output_tokens", "temperature", "instructions"):
        assert absent not in body


@pytest.mark.parametrize(
    ("value", "tools", "scope"),
    [("x", ["x_search"], "posts on X"), ("both", ["web_search", "x_search"], "web pages and posts on X")],
)
async def test_search_modes_and_x_search_dates(value: str, tools: list[str], scope: str) -> None:
    request = SearchRequest("grok news", recency="month", max_tokens=200, temperature=0.4)
    recorder, _, response = await run(
        "grok", respond_sse(simple_stream("hi")), request, settings=mode(value), credentials=CREDS
    )
    body = recorder.body()
    assert [tool["type"] for tool in body["tools"]] == tools
    today = datetime.now(timezone.utc).date()
    x_search = body["tools"][-1]
    assert x_search == {
        "type": "x_search",
        "from_date": (today - timedelta(days=30)).isoformat(),
        "to_date": today.isoformat(),
    }
    prompt = body["input"][1]["content"]
    assert (
        f"Search {scope}" in prompt
        and f"{(today - timedelta(days=30)).isoformat()} to {today.isoformat()}, UTC" in prompt
    )
    assert body["max_output_tokens"] == 200 and body["temperature"] == 0.4
    assert not response.notes


async def test_invalid_search_mode_falls_back_to_web_with_note() -> None:
    recorder, _, response = await run(
        "grok", respond_sse(simple_stream("hi")), settings=mode("everything"), credentials=CREDS
    )
    assert recorder.body()["tools"] == [{"type": "web_search"}]
    assert any("search_mode" in note for note in response.notes)


async def test_live_search_410_is_deprecated() -> None:
    body = {"error": "Live search is deprecated. Please switch to the Agent Tools API: https://docs.x.ai/"}
    recorder, _, error = await run_until_error("grok", respond_json(body, 410), credentials=CREDS)
    assert error.kind is ErrorKind.DEPRECATED
    assert error.message.startswith("xAI retired the Live Search API (410)")
    assert "Live search is deprecated" in error.message
    assert len(recorder.requests) == 1


@pytest.mark.parametrize(
    ("body", "status", "kind", "message"),
    [
        (
            {"code": "Client specified an invalid argument", "error": "Model not found: grok-0"},
            400,
            ErrorKind.BAD_REQUEST,
            "Grok API error (400): Model not found: grok-0",
        ),
        (
            {"error": {"message": "Too many requests", "type": "rate_limit"}},
            429,
            ErrorKind.RATE_LIMIT,
            "Grok API error (429): Too many requests",
        ),
        (
            {"code": "Some", "error": "Your team has run out of credits."},
            403,
            ErrorKind.AUTH,
            "Grok authorization failed (403). Check API key or base URL.",
        ),
    ],
)
async def test_error_bodies(body: dict, status: int, kind: ErrorKind, message: str) -> None:
    _, _, error = await run_until_error("grok", respond_json(body, status), credentials=CREDS)
    assert error.kind in (kind, ErrorKind.QUOTA)
    assert error.message == message or error.kind is ErrorKind.QUOTA


async def test_stream_failure_and_missing_final() -> None:
    failure = [{"type": "error", "error": {"code": "internal_error", "message": "upstream died"}}]
    _, events, error = await run_until_error(
        "grok", respond_sse(simple_stream("a", "b", final=False, extra=failure)), credentials=CREDS
    )
    assert (
        answer_of(events) == "ab" and error.kind is ErrorKind.SERVER and "Grok error (internal_error)" in error.message
    )
    _, events, error = await run_until_error("grok", respond_sse(simple_stream("a", final=False)), credentials=CREDS)
    assert answer_of(events) == "a" and error.message == "Grok stream ended before it finished"


async def test_no_search_note_uses_usage_counter() -> None:
    data = simple_stream("hi", search=False, final=False) + frame(
        [
            {
                "type": "response.completed",
                "response": {"id": "r", "status": "completed", "usage": {"num_server_side_tools_used": 2}},
            }
        ]
    )
    _, _, response = await run("grok", respond_sse(data), credentials=CREDS)
    assert response.usage.search_requests == 2 and response.notes == []
    _, _, response = await run("grok", respond_sse(simple_stream("hi", search=False)), credentials=CREDS)
    assert response.notes == ["Grok answered without searching the web; the answer may be out of date."]


@pytest.mark.parametrize(("size", "newline"), [(None, "\n"), (5, "\n"), (64, "\r\n")])
async def test_replay_chunks_fixture(size: int | None, newline: str) -> None:
    lines = [
        line
        for line in shared_fixture("xai/responses_web_search.chunks.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    ]
    payloads = [json.loads(line) for line in lines]
    data = frame_lines(lines).replace(b"\n", newline.encode())
    _, events, response = await run(
        "grok", respond_sse(pieces(data, size) if size else data), SearchRequest("q", max_results=2), credentials=CREDS
    )
    deltas = [p["delta"] for p in payloads if p["type"] == "response.output_text.delta"]
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == [d for d in deltas if d]
    assert response.answer == next(p["text"] for p in payloads if p["type"] == "response.output_text.done")
    urls = [p["annotation"]["url"] for p in payloads if p["type"] == "response.output_text.annotation.added"]
    assert [c.url for c in response.citations] == urls
    assert all(c.title == c.url for c in response.citations)
    assert [s.url for s in response.sources] == urls  # all cited, none cut by max_results
    assert response.search_queries == ["what is xAI"]
    assert response.usage.search_requests == 1 and response.usage.total_tokens == 2570
    assert response.model == "grok-4-fast-reasoning" and response.request_id == "98a8d4aa-fc8b-fd93-e673-d5a8f1c9cee8"
    assert len([e for e in events if isinstance(e, CitationsFound)]) == 5


async def test_replay_json_fixture() -> None:
    whole = json.loads(shared_fixture("xai/responses_web_search.json").read_bytes())
    _, _, response = await run("grok", respond_json(whole), credentials=CREDS)
    message = next(item for item in whole["output"] if item["type"] == "message")
    assert response.answer == message["content"][0]["text"]
    assert [c.url for c in response.citations] == [a["url"] for a in message["content"][0]["annotations"]]
    assert response.search_queries == ["what is xAI"]
    assert response.usage.total_tokens == 2524 and response.request_id == whole["id"]


async def test_end_to_end_against_fake_server() -> None:
    response, requests = await fake_server_run("grok", fake)
    assert response.answer.startswith("## Python asyncio")
    assert [c.url for c in response.citations] == [
        "https://docs.python.org/3/library/asyncio.html",
        "https://docs.python.org/3/library/asyncio-task.html",
        "https://peps.python.org/pep-3156/",
    ]
    assert len(response.sources) == 3 and response.search_queries == ["python asyncio documentation"]
    assert requests[0].path == "/grok/v1/responses"


async def test_end_to_end_x_search_mode() -> None:
    response, requests = await fake_server_run(
        "grok", fake, request=SearchRequest("q", recency="day"), search_mode="both"
    )
    assert [t["type"] for t in requests[0].json()["tools"]] == ["web_search", "x_search"]
    assert response.answer


@pytest.mark.parametrize("variant", fake.VARIANTS)
async def test_fake_variants(variant: str) -> None:
    try:
        response, _ = await fake_server_run("grok", fake, variant)
    except ProviderError as error:
        assert "Grok" in error.message
        assert variant not in ("default", "split", "no_search")
    else:
        assert response.answer and len(response.citations) == 3


# --- a retired or unknown model ---------------------------------------------------------------

GROK_MODEL_GONE = (
    "Grok: model 'grok-4-fast-reasoning' is not available (404). Set [providers.grok] model, "
    "or run websearch-tui doctor grok"
)


@pytest.mark.parametrize(
    "text",
    [
        # xAI's answer for a retired model since 2026-05-15 (``error`` is a string)
        "The model grok-4-fast-reasoning does not exist or your team 0000-team does not have access to it. "
        "If you believe this is a mistake, please contact support and quote your team ID and the model name.",
        "The model grok-4-fast-reasoning does not exist or your team 0000-team does not have access to it",
    ],
)
async def test_retired_model_names_the_config_key(text: str) -> None:
    body = {"code": "not-found", "error": text}
    settings = ProviderSettings(model="grok-4-fast-reasoning")
    recorder, _, error = await run_until_error("grok", respond_json(body, 404), credentials=CREDS, settings=settings)
    assert error.kind is ErrorKind.MODEL_NOT_FOUND and error.status == 404
    assert error.message == GROK_MODEL_GONE
    assert "team" not in error.message and len(recorder.requests) == 1


async def test_other_404_stays_not_found() -> None:
    _, _, error = await run_until_error(
        "grok", respond_json({"code": "not-found", "error": "No such route"}, 404), credentials=CREDS
    )
    assert error.kind is ErrorKind.NOT_FOUND and "No such route" in error.message
