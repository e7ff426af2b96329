"""Volcengine ARK provider: request (limit from the count, stream false), key rotation, the last
non-blank answer, the optional continuation, errors, and the fake server."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.fake_providers import fake_ark as fake
from tests.fake_providers.fake_openai import answer_data
from tests.unit.test_provider_openai import (
    fake_server_run,
    respond_json,
    run,
    run_until_error,
)
from websearch_tui.core.errors import ErrorKind, ProviderError, redact
from websearch_tui.core.models import AnswerDelta, SearchRequest
from websearch_tui.core.specs import ProviderSettings

KEY = "ark-test-key-123456"
CREDS = {"api_key": KEY}
LONG = "ARK answer " * 20


def ark_body(
    text: str = LONG, *, search: bool = True, rid: str = "resp-1", extra_messages: list[str] = ()
) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    for other in extra_messages:
        output.append({"type": "message", "content": [{"type": "output_text", "text": other}]})
    annotations = [
        {"type": "url_citation", "url": "https://a.test/x", "title": "A"},
        {"type": "url_citation", "url": "https://b.test/", "title": "B"},
    ]
    output.append({"type": "message", "content": [{"type": "output_text", "text": text, "annotations": annotations}]})
    if search:
        output.append({"type": "web_search_call", "status": "completed"})
    return {
        "id": rid,
        "model": "doubao-seed-2-1-turbo-260628",
        "status": "completed",
        "output": output,
        "usage": {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30},
    }


async def test_request_body() -> None:
    request = SearchRequest("python asyncio", max_results=3, recency="year")
    recorder, events, response = await run("ark", respond_json(ark_body()), request, credentials=CREDS)
    req = recorder.requests[0]
    assert str(req.url) == "https://ark.cn-beijing.volces.com/api/v3/responses"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    body = recorder.body()
    assert body["model"] == "doubao-seed-2-1-turbo-260628"
    assert body["stream"] is False
    assert body["tools"] == [{"type": "web_search", "limit": 3}]
    assert body["max_tool_calls"] == 2
    assert body["input"][0]["role"] == "system"
    prompt = body["input"][1]["content"][0]["text"]
    assert "past year" in prompt and prompt.endswith("Question: python asyncio") and "Cite at most 3 sources." in prompt
    assert "max_output_tokens" not in body and "temperature" not in body
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == [LONG]
    assert [c.url for c in response.citations] == ["https://a.test/x", "https://b.test/"]
    assert [s.title for s in response.sources] == ["A", "B"]
    assert response.usage.search_requests == 1 and response.request_id == "resp-1"
    assert response.notes == []


async def test_count_sampling_and_model() -> None:
    request = SearchRequest("q", num_search_results=30, max_tokens=500, temperature=0.7)
    settings = ProviderSettings(model="glm-5-2-260617", base_url="https://ark.ap-southeast.bytepluses.com/api/v3")
    recorder, _, _ = await run("ark", respond_json(ark_body()), request, settings=settings, credentials=CREDS)
    assert str(recorder.requests[0].url) == "https://ark.ap-southeast.bytepluses.com/api/v3/responses"
    body = recorder.body()
    assert body["tools"][0]["limit"] == 30 and body["model"] == "glm-5-2-260617"
    assert body["max_output_tokens"] == 500 and body["temperature"] == 0.7


async def test_key_list_picks_one_key_and_redacts_all() -> None:
    keys = ["ark-key-one-1111", "ark-key-two-2222"]
    recorder, _, _ = await run("ark", respond_json(ark_body()), credentials={"api_key": ",\n".join(keys)})
    assert recorder.requests[0].headers["authorization"] in {f"Bearer {k}" for k in keys}
    assert redact(f"{keys[0]} {keys[1]}") == "*** ***"


async def test_answer_is_the_last_non_blank_message() -> None:
    _, _, response = await run("ark", respond_json(ark_body(extra_messages=["draft"])), credentials=CREDS)
    assert response.answer == LONG


async def test_short_answer_without_continuation_gets_a_note() -> None:
    recorder, _, response = await run("ark", respond_json(ark_body("Short.")), credentials=CREDS)
    assert len(recorder.requests) == 1
    assert response.answer == "Short."
    assert any("continuation = true" in note for note in response.notes)


async def test_continuation_replaces_a_short_answer() -> None:
    replies = iter(
        [ark_body("Short.", rid="resp-1"), ark_body("The complete answer. " * 8, search=False, rid="resp-2")]
    )
    recorder, events, response = await run(
        "ark",
        lambda request: httpx.Response(200, json=next(replies)),
        settings=ProviderSettings(options={"continuation": True}),
        credentials=CREDS,
    )
    assert len(recorder.requests) == 2
    second = recorder.body(1)
    assert second["previous_response_id"] == "resp-1" and second["stream"] is False and isinstance(second["input"], str)
    assert recorder.requests[1].headers["authorization"] == f"Bearer {KEY}"
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["The complete answer. " * 8]
    assert response.request_id == "resp-2"
    assert any("second, billed call" in note for note in response.notes)
    assert [s.url for s in response.sources] == ["https://a.test/x", "https://b.test/"]


async def test_empty_continuation_keeps_the_first_answer() -> None:
    replies = iter([ark_body("Short.", rid="resp-1"), ark_body("   ", search=False, rid="resp-2")])
    _, _, response = await run(
        "ark",
        lambda request: httpx.Response(200, json=next(replies)),
        settings=ProviderSettings(options={"continuation": True}),
        credentials=CREDS,
    )
    assert response.answer == "Short."


async def test_no_search_note() -> None:
    _, _, response = await run("ark", respond_json(ark_body(search=False)), credentials=CREDS)
    assert response.notes == ["Volcengine ARK answered without searching the web; the answer may be out of date."]


@pytest.mark.parametrize(
    ("status", "kind", "message"),
    [
        (400, ErrorKind.BAD_REQUEST, "Volcengine ARK API error (400): bad thing"),
        (429, ErrorKind.RATE_LIMIT, "Volcengine ARK API error (429): bad thing"),
        (401, ErrorKind.AUTH, "Volcengine ARK authorization failed (401). Check API key or base URL."),
        (500, ErrorKind.SERVER, "Volcengine ARK API error (500): bad thing"),
    ],
)
async def test_http_errors(status: int, kind: ErrorKind, message: str) -> None:
    body = {"error": {"code": "X", "message": "bad thing", "param": "", "type": "Y"}}
    _, _, error = await run_until_error("ark", respond_json(body, status, {"retry-after": "0"}), credentials=CREDS)
    assert error.kind is kind and error.message == message


async def test_error_object_in_a_200_body() -> None:
    body = {"error": {"code": "InternalServiceError", "message": "oops"}}
    _, _, error = await run_until_error("ark", respond_json(body), credentials=CREDS)
    assert error.message == "Volcengine ARK error (InternalServiceError): oops"


async def test_missing_key() -> None:
    _, _, error = await run_until_error("ark", respond_json({}))
    assert error.kind is ErrorKind.CONFIG and "ARK_API_KEY" in error.message


async def test_end_to_end_against_fake_server() -> None:
    response, requests = await fake_server_run("ark", fake)
    assert response.answer == "".join(answer_data("x")["answer_tokens"])
    assert [c.title for c in response.citations][0] == "asyncio — Asynchronous I/O — Python 3 documentation"
    assert response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"
    assert json.loads(requests[0].body)["tools"] == [{"type": "web_search", "limit": 2}]


async def test_end_to_end_continuation() -> None:
    response, requests = await fake_server_run("ark", fake, "continuation", continuation=True)
    assert len(requests) == 2 and response.answer.startswith("## Python asyncio")


@pytest.mark.parametrize("variant", fake.VARIANTS)
async def test_fake_variants(variant: str) -> None:
    try:
        response, _ = await fake_server_run("ark", fake, variant)
    except ProviderError as error:
        assert "Volcengine ARK" in error.message
        assert variant in ("fail_midway", "unauthorized", "rate_limit", "server_error")
    else:
        assert response.answer


async def test_a_failed_continuation_keeps_the_first_answer() -> None:
    replies = iter([httpx.Response(200, json=ark_body("Short.", rid="resp-1")), httpx.Response(400, text="boom")])
    recorder, events, response = await run(
        "ark",
        lambda request: next(replies),
        settings=ProviderSettings(options={"continuation": True}),
        credentials=CREDS,
    )
    assert len(recorder.requests) == 2  # the billed continuation is not resent either
    assert response.answer == "Short."
    assert any("continuation failed" in note for note in response.notes)


# --- an unknown model ---------------------------------------------------------------------------


async def test_unknown_model_names_the_config_key() -> None:
    message = "The model or endpoint doubao-seed-1-6-250815 does not exist or you do not have access to it."
    body = {"error": {"code": "InvalidEndpointOrModel.NotFound", "message": message, "type": "NotFound"}}
    settings = ProviderSettings(model="doubao-seed-1-6-250815")
    recorder, _, error = await run_until_error("ark", respond_json(body, 404), credentials=CREDS, settings=settings)
    assert error.kind is ErrorKind.MODEL_NOT_FOUND and error.status == 404
    assert error.message == (
        "Volcengine ARK: model 'doubao-seed-1-6-250815' is not available (404). Set [providers.ark] model, "
        "or run websearch-tui doctor ark"
    )
    assert len(recorder.requests) == 1


async def test_model_not_activated_keeps_arks_own_words() -> None:
    body = {"error": {"code": "ModelNotOpen", "message": "Your account has not activated the model."}}
    _, _, error = await run_until_error("ark", respond_json(body, 404), credentials=CREDS)
    assert error.kind is ErrorKind.NOT_FOUND
    assert error.message == "Volcengine ARK API error (404): Your account has not activated the model."
