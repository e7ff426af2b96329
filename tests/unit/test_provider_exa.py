"""Exa provider: REST with a key, keyless MCP (JSON and plain-text blocks), pacing, errors, real payloads."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from tests.helpers import Recorder, collect, json_response, make_ctx, shared_fixture
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, Note, SearchRequest, Usage
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import exa

KEY = "exa-test-key-1"


def empty_rest(request: httpx.Request) -> httpx.Response:
    """A REST search that found nothing (a fresh response per request)."""
    return json_response({"requestId": "r", "results": []})


def rest_ctx(rec: Recorder, settings: ProviderSettings | None = None, timeout: float = 30.0) -> Any:
    return make_ctx("exa", rec, settings=settings, credentials={"api_key": KEY}, timeout=timeout)


def mcp_reply(result: Any, *, as_sse: bool = False, status: int = 200) -> Any:
    def reply(request: httpx.Request) -> httpx.Response:
        message = {"jsonrpc": "2.0", "id": json.loads(request.content)["id"], "result": result}
        if as_sse:
            text = f"event: message\ndata: {json.dumps(message)}\n\n"
            return httpx.Response(status, text=text, headers={"Content-Type": "text/event-stream"})
        return httpx.Response(status, json=message)

    return reply


def text_result(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **extra}


# --- REST ---------------------------------------------------------------------------------


async def test_rest_request_shape() -> None:
    rec = Recorder(empty_rest)
    await collect("exa", SearchRequest("ai startups", max_results=6, recency="week"), rest_ctx(rec))
    (request,) = rec.requests
    assert request.method == "POST"
    assert str(request.url) == "https://api.exa.ai/search"
    assert request.headers["x-api-key"] == KEY
    assert KEY not in str(request.url)
    expected_date = (datetime.now(timezone.utc) - timedelta(days=7)).strftime("%Y-%m-%d")
    assert rec.body() == {
        "query": "ai startups",
        "type": "auto",
        "numResults": 6,
        "contents": {"highlights": True},
        "startPublishedDate": expected_date,
    }


async def test_rest_count_uses_num_search_results_and_no_recency_means_no_date() -> None:
    rec = Recorder(empty_rest)
    await collect("exa", SearchRequest("q", max_results=3, num_search_results=25), rest_ctx(rec))
    assert rec.body()["numResults"] == 25
    assert "startPublishedDate" not in rec.body()


async def test_rest_base_url_override() -> None:
    rec = Recorder(empty_rest)
    await collect("exa", SearchRequest("q"), rest_ctx(rec, ProviderSettings(base_url="http://127.0.0.1:5/exa")))
    assert str(rec.requests[0].url) == "http://127.0.0.1:5/exa/search"


async def test_rest_response_mapping() -> None:
    long_summary = "word " * 200
    results = [
        {
            "title": "Summary wins",
            "url": "https://a.example",
            "summary": long_summary,
            "text": "t",
            "highlights": ["h"],
            "publishedDate": "2026-04-01T12:00:00.000Z",
            "author": "Ann",
        },
        {"title": "Text next", "url": "https://b.example", "text": "full text", "highlights": ["h"], "author": "N/A"},
        {"title": "Highlights", "url": "https://c.example", "highlights": ["one", "two", "one"], "author": None},
        {"title": "No url"},
        {"title": "", "url": "https://d.example"},
    ]
    rec = Recorder(lambda _: json_response({"requestId": "req-1", "results": results}))
    events, response = await collect("exa", SearchRequest("q", max_results=4), rest_ctx(rec))
    assert events[0] == Metadata(request_id="req-1", auth_mode="api_key")
    a, b, c, d = response.sources
    assert a.snippet is not None and len(a.snippet) == 500 and a.snippet.endswith("\u2026")
    assert a.published_text == "2026-04-01T12:00:00.000Z" and a.author == "Ann"
    assert b.snippet == "full text" and b.author is None
    assert c.snippet == "one two" and c.author is None
    assert d.title == "https://d.example"


async def test_rest_cost_dollars_is_the_reported_cost() -> None:
    body = {"requestId": "req-2", "results": [{"url": "https://a.example"}], "costDollars": {"total": 0.005}}
    events, response = await collect("exa", SearchRequest("q"), rest_ctx(Recorder(lambda _: json_response(body))))
    assert events[0] == Metadata(request_id="req-2", usage=Usage(cost_usd=0.005), auth_mode="api_key")
    assert response.usage == Usage(cost_usd=0.005)


@pytest.mark.parametrize("cost", [None, {"total": -1}, {"total": True}, {"total": "0.005"}, {"search": 0.005}, 7])
def test_cost_dollars_without_a_usable_total_is_no_usage(cost: Any) -> None:
    assert exa.parse_usage({"results": [], "costDollars": cost}) is None


@pytest.mark.parametrize("max_results", [1, 20])
async def test_rest_rows_without_an_http_url_are_dropped(max_results: int) -> None:
    results = [
        {"title": "Script", "url": "javascript:alert(1)", "text": "x"},
        {"title": "FTP", "url": "ftp://x", "text": "x"},
        {"title": "No url at all", "text": "x"},
        {"title": "Valid", "url": "https://ok.example/page", "text": "kept"},
    ]
    rec = Recorder(lambda _: json_response({"requestId": "r", "results": results}))
    _, response = await collect("exa", SearchRequest("q", max_results=max_results), rest_ctx(rec))
    # dropped rows take no slot of max_results
    assert [(s.url, s.title) for s in response.sources] == [("https://ok.example/page", "Valid")]


async def test_rest_unexpected_shape_is_protocol() -> None:
    rec = Recorder(lambda _: json_response({"results": {"oops": 1}}))
    with pytest.raises(ProviderError) as info:
        await collect("exa", SearchRequest("q"), rest_ctx(rec))
    assert info.value.kind is ErrorKind.PROTOCOL


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (400, {"error": "numResults too large"}, ErrorKind.BAD_REQUEST, "Exa API error (400): numResults too large"),
        (
            401,
            {"error": "Invalid API key"},
            ErrorKind.AUTH,
            "Exa authorization failed (401). Check API key or base URL.",
        ),
        (402, {"error": "Out of credits"}, ErrorKind.QUOTA, "Exa API error (402): Out of credits"),
        (429, {"error": "slow down"}, ErrorKind.RATE_LIMIT, "Exa API error (429): slow down (retry in 600 s)"),
    ],
)
async def test_rest_errors(status: int, body: Any, kind: ErrorKind, message: str) -> None:
    rec = Recorder(lambda _: json_response(body, status, headers={"Retry-After": "600"}))
    with pytest.raises(ProviderError) as info:
        await collect("exa", SearchRequest("q"), rest_ctx(rec, timeout=5))
    assert info.value.kind is kind
    assert info.value.message == message


# --- keyless MCP --------------------------------------------------------------------------


async def test_mcp_request_shape_without_key() -> None:
    rec = Recorder(mcp_reply(text_result(json.dumps({"results": []}))))
    events, response = await collect("exa", SearchRequest("q", max_results=3), make_ctx("exa", rec))
    (request,) = rec.requests
    assert str(request.url) == "https://mcp.exa.ai/mcp"
    assert "x-api-key" not in request.headers and "authorization" not in request.headers
    assert request.headers["accept"] == "application/json, text/event-stream"
    body = rec.body()
    assert body["method"] == "tools/call"
    assert body["params"] == {"name": "web_search_exa", "arguments": {"query": "q", "numResults": 3}}
    assert events == [Metadata(auth_mode="keyless")]
    assert response.auth_mode == "keyless"


async def test_mcp_url_override_and_recency_note() -> None:
    rec = Recorder(mcp_reply(text_result(json.dumps({"results": []}))))
    ctx = make_ctx("exa", rec, settings=ProviderSettings(mcp_url="http://127.0.0.1:7/mcp?tools=web_search_exa"))
    events, response = await collect("exa", SearchRequest("q", recency="day"), ctx)
    assert str(rec.requests[0].url) == "http://127.0.0.1:7/mcp?tools=web_search_exa"
    assert "startPublishedDate" not in json.dumps(rec.body())
    assert Note("Exa keyless MCP ignores recency; add an Exa API key") in events
    assert response.notes == ["Exa keyless MCP ignores recency; add an Exa API key"]


async def test_mcp_json_results_over_sse_and_local_slice() -> None:
    rows = [{"title": f"T{i}", "url": f"https://r.example/{i}", "text": "body"} for i in range(10)]
    rec = Recorder(mcp_reply(text_result(json.dumps({"results": rows})), as_sse=True))
    _, response = await collect("exa", SearchRequest("q", max_results=4), make_ctx("exa", rec))
    assert [s.url for s in response.sources] == [f"https://r.example/{i}" for i in range(4)]


BLOCKS = """Title: Example &amp; Co
URL: https://example.com
Published: 2026-08-20
Author: N/A
Highlights:
First line
Second line

---

Title: Other
URL: https://other.example
Published: N/A
Author: Bob
Text: Full text when there are no highlights
Title: not a key here, it is inside Text

---

Title: No link here
Author: Someone
"""


async def test_mcp_plain_text_blocks() -> None:
    rec = Recorder(mcp_reply(text_result(BLOCKS)))
    _, response = await collect("exa", SearchRequest("q"), make_ctx("exa", rec))
    first, second = response.sources
    assert first.title == "Example & Co" and first.url == "https://example.com"
    assert first.published_text == "2026-08-20" and first.age_seconds is not None
    assert first.author is None
    assert first.snippet == "First line\nSecond line"
    assert second.published_text is None and second.author == "Bob"
    assert second.snippet == "Full text when there are no highlights\nTitle: not a key here, it is inside Text"


UNUSABLE_URL_BLOCKS = """Title: Script
URL: javascript:alert(1)
Text: x

---

Title: FTP
URL: ftp://x
Text: x

---

Title: No url at all
Text: x

---

Title: Valid
URL: https://ok.example/page
Text: kept
"""


@pytest.mark.parametrize("max_results", [1, 20])
async def test_mcp_text_blocks_without_an_http_url_are_dropped(max_results: int) -> None:
    rec = Recorder(mcp_reply(text_result(UNUSABLE_URL_BLOCKS)))
    _, response = await collect("exa", SearchRequest("q", max_results=max_results), make_ctx("exa", rec))
    # dropped blocks take no slot of max_results
    assert [(s.url, s.title) for s in response.sources] == [("https://ok.example/page", "Valid")]


def test_older_blank_line_separated_blocks() -> None:
    text = (
        "Title: One\nURL: https://one.example\nPublished Date: 2024-01-02\nText: alpha\n\n"
        "Title: Two\nurl: https://two.example\nhighlights: inline start\nmore"
    )
    one, two = exa.parse_text_blocks(text)
    assert (one.url, one.published_text, one.snippet) == ("https://one.example", "2024-01-02", "alpha")
    assert (two.url, two.snippet) == ("https://two.example", "inline start\nmore")


async def test_mcp_no_results_text_is_empty_not_an_error() -> None:
    rec = Recorder(mcp_reply(text_result("No search results found. Please try a different query.")))
    events, response = await collect("exa", SearchRequest("q"), make_ctx("exa", rec))
    assert response.sources == [] and not response.is_renderable()
    assert events == [Metadata(auth_mode="keyless")]


async def test_result_text_mentioning_no_results_is_still_a_result() -> None:
    text = "Title: Why searches fail\nURL: https://example.com/why\nText: The page said No search results found."
    rec = Recorder(mcp_reply(text_result(text)))
    _, response = await collect("exa", SearchRequest("q"), make_ctx("exa", rec))
    assert [s.url for s in response.sources] == ["https://example.com/why"]


async def test_mcp_structured_content_and_double_encoded_list() -> None:
    structured = {"structuredContent": {"results": [{"url": "https://s.example", "title": "S"}]}, "content": []}
    _, response = await collect("exa", SearchRequest("q"), make_ctx("exa", Recorder(mcp_reply(structured))))
    assert [s.url for s in response.sources] == ["https://s.example"]
    encoded = text_result(json.dumps(json.dumps([{"url": "https://l.example"}])))
    _, response = await collect("exa", SearchRequest("q"), make_ctx("exa", Recorder(mcp_reply(encoded))))
    assert [s.url for s in response.sources] == ["https://l.example"]


async def test_mcp_tool_text_of_another_shape_is_an_unrecognised_response() -> None:
    for result in (text_result(json.dumps({"hits": []})), text_result("<html>oops</html>")):
        with pytest.raises(ProviderError) as info:
            await collect("exa", SearchRequest("q"), make_ctx("exa", Recorder(mcp_reply(result))))
        assert info.value.kind is ErrorKind.UNRECOGNISED
        assert info.value.message == (
            "Exa answered in a shape this version does not read (MCP tool result: neither a results list nor "
            "result blocks). Its API may have changed; websearch-tui doctor exa checks it."
        )


async def test_mcp_is_error_is_a_failure() -> None:
    result = text_result("web_search_exa error (upstream 500)", isError=True)
    with pytest.raises(ProviderError) as info:
        await collect("exa", SearchRequest("q"), make_ctx("exa", Recorder(mcp_reply(result))))
    assert info.value.message == "MCP error: web_search_exa error (upstream 500)"


async def test_mcp_free_tier_429() -> None:
    body = {"jsonrpc": "2.0", "error": {"code": -32000, "message": "You've hit Exa's free MCP rate limit."}, "id": None}
    headers = {"Retry-After": "3600", "X-RateLimit-Limit": "0", "X-RateLimit-Remaining": "0"}
    rec = Recorder(lambda _: json_response(body, 429, headers=headers))
    with pytest.raises(ProviderError) as info:
        await collect("exa", SearchRequest("q"), make_ctx("exa", rec))
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert info.value.message.startswith("Exa free MCP rate limit reached (429); add an Exa API key for higher limits")
    assert info.value.message.endswith("(retry in 3600 s)")
    assert len(rec.requests) == 1


# --- conformance: real payloads -----------------------------------------------------------


async def test_replays_sdk_search_example() -> None:
    body = json.loads(shared_fixture("exa/search_sdk_doc_example.json").read_text(encoding="utf-8"))
    rec = Recorder(lambda _: json_response(body))
    _, response = await collect("exa", SearchRequest("hottest AI startups"), rest_ctx(rec))
    assert [s.url for s in response.sources] == ["https://www.adept.ai/", "https://www.tenyx.com/"]
    adept = response.sources[0]
    assert adept.title == "Adept: Useful General Intelligence"
    assert adept.published_text == "2000-01-01"  # placeholder-like date kept raw
    assert adept.author is None and adept.snippet is None
    assert response.request_id == "a78ebce717f4d712b6f8fe0d5d7753f8"


def test_parses_sdk_contents_example() -> None:
    body = json.loads(shared_fixture("exa/contents_sdk_doc_example.json").read_text(encoding="utf-8"))
    (source,) = exa.parse_results(body["results"])
    assert source.url == "https://example.com/article"
    assert source.snippet == "The full text content of the article..."


async def test_auto_mode_without_key_skips_the_keyless_path() -> None:
    rec = Recorder(empty_rest)
    with pytest.raises(ProviderError) as info:
        await collect("exa", SearchRequest("q", mode="auto"), make_ctx("exa", rec))
    assert info.value.kind is ErrorKind.CONFIG
    assert "add an Exa API key" in info.value.message
    assert rec.requests == []
    await collect("exa", SearchRequest("q", mode="auto"), rest_ctx(rec))
    assert str(rec.requests[0].url) == "https://api.exa.ai/search"
