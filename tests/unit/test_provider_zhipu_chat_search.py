"""Zhipu chat search provider: request building, SSE parsing (tool_calls web_search deltas, ref_N
citations), error envelopes with HTTP 200, fixture conformance and an end-to-end run against the fake."""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers import fake_zhipu_chat_search as fake
from tests.helpers import Recorder, collect, make_ctx, no_wait, shared_fixture
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import (
    AnswerDelta,
    CitationsFound,
    RelatedQuestions,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    SourcesFound,
    Usage,
)
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import load_stream
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT, date_window
from websearch_tui.providers.zhipu_chat_search import (
    LENGTH_NOTE,
    NO_SEARCH_NOTE,
    SENSITIVE_NOTE,
    MarkerRewriter,
    RefScanner,
    cited_refs,
)

PID = "zhipu_chat_search"
KEY = "zhipu-chat-test-key-123456"
CREDS = {"api_key": KEY}
SSE_HEADERS = {"content-type": "text/event-stream"}


def row(n: int, **extra: Any) -> dict[str, Any]:
    """One web_search result row with ``refer`` ``ref_<n>``."""
    base = {
        "title": f"Page {n}",
        "content": f"snippet {n}",
        "link": f"https://site{n}.example/page",
        "media": f"Site {n}",
        "icon": "",
        "refer": f"ref_{n}",
        "publish_date": "2025-05-01",
    }
    return {**base, **extra}


def chunk(
    content: str | None = None, *, finish: str | None = None, usage: dict[str, int] | None = None, **extra: Any
) -> dict[str, Any]:
    """One chat.completion.chunk payload."""
    choice: dict[str, Any] = {"index": 0, "delta": {"role": "assistant", "content": content or ""}}
    if finish:
        choice["finish_reason"] = finish
    payload: dict[str, Any] = {"id": "chat-1", "request_id": "req-1", "model": "glm-4-air", "choices": [choice]}
    if usage is not None:
        payload["usage"] = usage
    payload.update(extra)
    return payload


def tool_chunk(**search: Any) -> dict[str, Any]:
    """A chunk whose delta carries a ``tool_calls`` web_search entry."""
    payload = chunk()
    payload["choices"][0]["delta"]["tool_calls"] = [
        {"id": "call_1", "index": 0, "type": "web_search", "web_search": search}
    ]
    return payload


def sse(*payloads: Any, newline: str = "\n", done: bool = True) -> bytes:
    events = [f"data: {json.dumps(p, ensure_ascii=False)}{newline}{newline}" for p in payloads]
    if done:
        events.append(f"data: [DONE]{newline}{newline}")
    return "".join(events).encode()


def split_stream(data: bytes, cuts: list[int]) -> Callable[[], AsyncIterator[bytes]]:
    async def chunks() -> AsyncIterator[bytes]:
        bounds = [0, *sorted(c for c in cuts if 0 < c < len(data)), len(data)]
        for start, end in zip(bounds, bounds[1:], strict=False):
            yield data[start:end]

    return chunks


def sse_reply(data: bytes | Callable[[], AsyncIterator[bytes]]) -> Callable[[httpx.Request], httpx.Response]:
    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE_HEADERS, content=data() if callable(data) else data)

    return respond


async def run(
    respond: Callable[[httpx.Request], httpx.Response],
    request: SearchRequest | None = None,
    settings: ProviderSettings | None = None,
) -> tuple[Recorder, list[SearchEvent], Any]:
    recorder = Recorder(respond)
    ctx = make_ctx(PID, recorder, credentials=CREDS, settings=settings, sleep=no_wait)
    events, result = await collect(PID, request or SearchRequest("python asyncio"), ctx)
    return recorder, events, result


async def run_until_error(
    respond: Callable[[httpx.Request], httpx.Response],
) -> tuple[list[SearchEvent], ProviderError]:
    ctx = make_ctx(PID, Recorder(respond), credentials=CREDS, sleep=no_wait)
    events: list[SearchEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in load_stream(PID)(SearchRequest("q"), ctx):
            events.append(event)
    return events, info.value


BASIC = sse(chunk("ok [Source: ref_1]", web_search=[row(1)]), chunk(finish="stop"))


# --- request ---------------------------------------------------------------------------------


async def test_request_url_headers_and_default_body() -> None:
    recorder, _, _ = await run(sse_reply(BASIC), SearchRequest("rust 1.80 release"))
    request = recorder.requests[0]
    assert str(request.url) == "https://open.bigmodel.cn/api/paas/v4/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = recorder.body()
    assert body["model"] == "glm-5.3-flash"
    assert body["stream"] is True
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    prompt = body["messages"][1]["content"]
    assert body["messages"][1]["role"] == "user" and prompt.endswith("\nQuestion: rust 1.80 release")
    assert "Cite at most 10 sources." in prompt
    assert body["tools"] == [
        {
            "type": "web_search",
            "web_search": {
                "enable": True,
                "search_engine": "search_pro",
                "search_query": "rust 1.80 release",
                "search_result": True,
                "require_search": True,
                "result_sequence": "after",
                "count": 10,
                "content_size": "medium",
            },
        }
    ]
    for absent in ("max_tokens", "temperature"):
        assert absent not in body


async def test_request_recency_count_generation_options_and_base() -> None:
    settings = ProviderSettings(
        base_url="https://api.z.ai/api/paas/v4", model="glm-4-air", options={"search_engine": "search-prime"}
    )
    request = SearchRequest("q", recency="month", max_tokens=300, temperature=0.3, num_search_results=30, max_results=3)
    recorder, _, _ = await run(sse_reply(BASIC), request, settings)
    assert str(recorder.requests[0].url) == "https://api.z.ai/api/paas/v4/chat/completions"
    body = recorder.body()
    tool = body["tools"][0]["web_search"]
    assert tool["search_recency_filter"] == "oneMonth"
    assert tool["count"] == 30 and tool["search_engine"] == "search-prime"
    start, end = date_window("month")
    assert f"past month ({start.isoformat()} to {end.isoformat()}, UTC)" in body["messages"][1]["content"]
    assert "Cite at most 3 sources." in body["messages"][1]["content"]
    assert body["model"] == "glm-4-air"
    assert body["max_tokens"] == 300 and body["temperature"] == 0.3


async def test_temperature_above_glm_maximum_is_capped_with_a_note() -> None:
    recorder, _, result = await run(sse_reply(BASIC), SearchRequest("q", temperature=1.5))
    assert recorder.body()["temperature"] == 1.0
    assert any("temperature" in note for note in result.notes)


async def test_markers_are_read_from_the_answer_as_shown() -> None:
    """An escape sequence right before ``ref_1`` would hide the marker from the pattern; the markers
    are read from the sanitized answer."""
    data = sse(chunk("Fact [Source: \x1b[1mref_1\x1b[0m]."), chunk(finish="stop", web_search=[row(1)]))
    _, _, result = await run(sse_reply(data))
    assert result.answer == "Fact [1]."
    assert [c.url for c in result.citations] == ["https://site1.example/page"]


async def test_missing_key_is_config_error() -> None:
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), make_ctx(PID, Recorder(), sleep=no_wait))
    assert info.value.kind is ErrorKind.CONFIG
    assert "ZHIPU_CHAT_SEARCH_API_KEY" in info.value.message


# --- streaming -------------------------------------------------------------------------------


async def test_stream_deltas_sources_citations_queries_related_usage() -> None:
    rows = [row(i) for i in range(1, 5)]
    data = sse(
        tool_chunk(
            search_intent=[{"query": "python asyncio", "intent": "SEARCH_ALL", "keywords": "asyncio event loop"}],
            search_result=rows[:2],
            search_recommend=[{"query": "What is a TaskGroup?"}, {"query": "What is a TaskGroup?"}, {"query": 7}],
        ),
        chunk("asyncio runs", web_search=rows),
        chunk(" an event loop [Source: ref_3]."),
        chunk(" Tasks [来源：ref_1][Source: ref_3]."),
        chunk(finish="stop", usage={"prompt_tokens": 100, "completion_tokens": 12, "total_tokens": 112}),
    )
    _, events, result = await run(sse_reply(data))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == [
        "asyncio runs",
        " an event loop [1].",  # markers become the citation numbers
        " Tasks [2][1].",
    ]
    assert [s.url for s in result.sources] == [r["link"] for r in rows]
    assert result.sources[0].author == "Site 1" and result.sources[0].published_text == "2025-05-01"
    assert [(c.url, c.title) for c in result.citations] == [
        ("https://site3.example/page", "Page 3"),
        ("https://site1.example/page", "Page 1"),
    ]
    assert result.search_queries == ["asyncio event loop"]
    assert result.related_questions == ["What is a TaskGroup?"]
    assert result.usage == Usage(input_tokens=100, output_tokens=12, total_tokens=112, search_requests=1)
    assert result.model == "glm-4-air" and result.request_id == "req-1" and result.auth_mode == "api_key"
    assert result.notes == []
    # sources arrive before the answer, citations as soon as their marker streams
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("SourcesFound") < kinds.index("AnswerDelta") < kinds.index("CitationsFound")
    assert all(e.replace for e in events if isinstance(e, SourcesFound | CitationsFound))
    assert [type(e) for e in events].count(SearchQueries) == 1 and [type(e) for e in events].count(
        RelatedQuestions
    ) == 1


async def test_marker_split_across_deltas_and_results_after_the_answer() -> None:
    data = sse(
        chunk("See [Source: re"),
        chunk("f_2] and [Source: ref_9]."),
        chunk(web_search=[row(1), row(2)]),
        chunk(finish="stop"),
    )
    _, events, result = await run(sse_reply(data))
    assert result.answer == "See [1] and [2]."  # the split marker is rewritten whole
    assert [(c.url, c.title) for c in result.citations] == [
        ("https://site2.example/page", "Page 2"),
        ("", "ref_9: not among the search results"),  # ref_9 has no result: no link, but [2] stays [2]
    ]
    snapshots = [[c.url for c in e.citations] for e in events if isinstance(e, CitationsFound)]
    assert snapshots == [["", ""], ["https://site2.example/page", ""]]  # numbered at once, linked when known


MARKED = "A [Source: ref_3]. B [来源：ref_1] and [source: ref_3, ref_2]; [the docs](https://x.example) [1] [Sou"
SHOWN = "A [1]. B [2] and [1][3]; [the docs](https://x.example) [1] [Sou"


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 100])
def test_marker_rewriter_numbers_refs_in_first_appearance_order_however_the_text_is_split(size: int) -> None:
    rewriter = MarkerRewriter()
    pieces = [rewriter.feed(MARKED[i : i + size]) for i in range(0, len(MARKED), size)]
    assert "".join(pieces) + rewriter.flush() == SHOWN
    assert rewriter.numbers == {"ref_3": 1, "ref_1": 2, "ref_2": 3}


def test_marker_rewriter_holds_back_only_what_may_still_become_a_marker() -> None:
    rewriter = MarkerRewriter()
    assert rewriter.feed("text [Source: re") == "text "
    assert rewriter.feed("f_12] more") == "[1] more"
    assert rewriter.feed("[" + "x" * 70) == "[" + "x" * 70  # too long to be a marker
    assert rewriter.feed("[link](") == "[link]("
    assert rewriter.flush() == ""


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_ref_scanner_reads_growing_text_like_a_full_rescan(size: int) -> None:
    answer = "Intro [2] x. Fact [Source: ref_12] and ref_1, xref_3, [来源：ref_4]; ref_12345 [1] ref_1 end ref_7"
    scanner, text = RefScanner(), ""
    for start in range(0, len(answer), size):
        text += answer[start : start + size]
        scanner.feed(answer[start : start + size])
        assert scanner.refs() == cited_refs(text), text
    assert scanner.refs() == ["ref_12", "ref_1", "ref_4", "ref_7"]


def test_ref_scanner_replaces_a_marker_that_grew_in_the_next_chunk() -> None:
    scanner = RefScanner()
    scanner.feed("see ref_1")
    assert scanner.refs() == ["ref_1"]  # provisional: more digits may follow
    scanner.feed("2 and [3]")
    assert scanner.refs() == ["ref_12"]
    scanner.feed("x" * 100_000)  # the scanner keeps only the overlap, not the whole answer
    assert len(scanner._window) <= 17 and scanner.refs() == ["ref_12"]


async def test_bare_numeric_markers_are_read_when_there_is_no_ref_marker() -> None:
    assert cited_refs("a [2] b [1] c [2]") == ["ref_2", "ref_1"]
    assert cited_refs("a [2] ref_3") == ["ref_3"]
    assert cited_refs("see xref_1 and ref_10 ref_1") == ["ref_10", "ref_1"]
    data = sse(chunk("Fact [2].", web_search=[row(1), row(2)]), chunk(finish="stop"))
    _, _, result = await run(sse_reply(data))
    assert [c.url for c in result.citations] == ["https://site2.example/page"]


async def test_sources_are_sliced_but_cited_ones_kept() -> None:
    rows = [row(i) for i in range(1, 8)]
    data = sse(chunk("x [Source: ref_7]", web_search=rows), chunk(finish="stop"))
    _, _, result = await run(sse_reply(data), SearchRequest("q", max_results=2))
    assert [s.url for s in result.sources] == [rows[0]["link"], rows[1]["link"], rows[6]["link"]]
    assert [c.url for c in result.citations] == [rows[6]["link"]]


async def test_mistyped_fields_in_tool_call_deltas_never_crash() -> None:
    data = sse(
        tool_chunk(
            search_result=[
                {"title": 123, "link": "https://a.example/", "refer": 5, "publish_date": 20250101, "content": 9},
                {"title": "no link", "link": 42},
                "row as text",
            ],
            search_intent={"query": 1, "keywords": ["x"]},
            search_recommend="not a list",
        ),
        {"id": "chat-1", "choices": [{"index": 0, "delta": {"tool_calls": [7, {"type": 3, "web_search": [1]}]}}]},
        {"id": "chat-1", "choices": "nope", "web_search": {"link": "https://b.example/"}},
        chunk("answer", finish="stop"),
    )
    _, _, result = await run(sse_reply(data))
    assert result.answer == "answer"
    assert [(s.url, s.title, s.published_text, s.snippet) for s in result.sources] == [
        ("https://a.example/", "https://a.example/", None, None)
    ]
    assert result.search_queries == [] and result.related_questions == []


async def test_event_split_inside_utf8_character_and_crlf() -> None:
    data = sse(
        chunk("Grüße 事件", web_search=[row(1)]), chunk("循环 [来源：ref_1]"), chunk(finish="stop"), newline="\r\n"
    )
    cuts = [data.index("事".encode()) + 1, data.index("来".encode()) + 2, 9, len(data) - 3]
    _, _, result = await run(sse_reply(split_stream(data, cuts)))
    assert result.answer == "Grüße 事件循环 [1]"
    assert [c.url for c in result.citations] == ["https://site1.example/page"]


async def test_stream_failing_midway_keeps_partial_answer() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield sse(chunk("partial", web_search=[row(1)]), chunk(" answer [Source: ref_1]"), done=False)
        raise httpx.ReadError("connection reset")

    events, error = await run_until_error(sse_reply(chunks))
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "partial answer [1]"
    assert any(isinstance(e, CitationsFound) for e in events)
    assert error.kind is ErrorKind.NETWORK and "Zhipu Chat Search" in error.message


async def test_error_envelope_inside_the_stream() -> None:
    data = sse(chunk("a"), {"error": {"code": "1302", "message": "High concurrency usage of this API."}}, done=False)
    events, error = await run_until_error(sse_reply(data))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["a"]
    assert error.kind is ErrorKind.RATE_LIMIT
    assert error.message == "Zhipu Chat Search API error (code 1302): High concurrency usage of this API."


async def test_stream_ending_without_finish_reason_is_protocol_error() -> None:
    events, error = await run_until_error(sse_reply(sse(chunk("a"), chunk("b"), done=True)))
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "ab"
    assert error.kind is ErrorKind.PROTOCOL
    assert error.message == "Zhipu Chat Search stream ended before it finished"


async def test_network_error_finish_reason_fails_after_partial_answer() -> None:
    events, error = await run_until_error(sse_reply(sse(chunk("a"), chunk(finish="network_error"))))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["a"]
    assert error.kind is ErrorKind.SERVER


@pytest.mark.parametrize(("reason", "note"), [("length", LENGTH_NOTE), ("sensitive", SENSITIVE_NOTE)])
async def test_finish_reason_notes(reason: str, note: str) -> None:
    _, _, result = await run(sse_reply(sse(chunk("a", web_search=[row(1)]), chunk(finish=reason))))
    assert note in result.notes


async def test_answer_without_search_results_gets_a_note() -> None:
    _, _, result = await run(sse_reply(sse(chunk("from memory", web_search=[]), chunk(finish="stop"))))
    assert result.answer == "from memory"
    assert result.notes == [NO_SEARCH_NOTE]
    assert result.usage is None


# --- errors ----------------------------------------------------------------------------------


def envelope(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (
            200,
            envelope("1113", "Insufficient balance."),
            ErrorKind.QUOTA,
            "Zhipu Chat Search API error (code 1113): Insufficient balance.",
        ),
        (
            200,
            envelope("1701", "Search busy."),
            ErrorKind.RATE_LIMIT,
            "Zhipu Chat Search API error (code 1701): Search busy.",
        ),
        (
            200,
            {"error": {"code": 1214, "message": "Bad count."}},
            ErrorKind.BAD_REQUEST,
            "Zhipu Chat Search API error (code 1214): Bad count.",
        ),
        (
            401,
            envelope("1000", "Authentication failed."),
            ErrorKind.AUTH,
            "Zhipu Chat Search authorization failed (401). Check API key or base URL.",
        ),
        (
            400,
            envelope("1214", "Invalid parameter."),
            ErrorKind.BAD_REQUEST,
            "Zhipu Chat Search API error (400, code 1214): Invalid parameter.",
        ),
        (
            429,
            envelope("1113", "余额不足或无可用资源包"),
            ErrorKind.QUOTA,
            "Zhipu Chat Search API error (429, code 1113): 余额不足或无可用资源包",
        ),
        (500, {"message": "boom"}, ErrorKind.SERVER, 'Zhipu Chat Search API error (500): {"message":"boom"}'),
    ],
)
async def test_error_shapes(status: int, body: dict[str, Any], kind: ErrorKind, message: str) -> None:
    recorder = Recorder(lambda request: httpx.Response(status, json=body))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), make_ctx(PID, recorder, credentials=CREDS, sleep=no_wait))
    assert info.value.kind is kind
    assert info.value.message == message


async def test_error_text_never_contains_the_key() -> None:
    register_secret(KEY)
    page = f"<html>502 Bad Gateway {KEY}</html>"
    recorder = Recorder(lambda request: httpx.Response(502, text=page, headers={"content-type": "text/html"}))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), make_ctx(PID, recorder, credentials=CREDS, sleep=no_wait))
    assert info.value.kind is ErrorKind.SERVER and KEY not in info.value.message


# --- conformance: the Z.AI docs example in ../shared/fixtures ---------------------------------


def _fixture() -> dict[str, Any]:
    return json.loads(shared_fixture("zai/chat_web_search_tool.json").read_bytes())


def shown(answer: str) -> str:
    """``answer`` as the provider shows it: each ``[Source: ref_N]`` / ``[来源：ref_N]`` marker as
    ``[n]``, ``n`` the ref's first-appearance rank."""
    order: dict[str, int] = {}
    return re.sub(
        r"\[(?:Source: |来源：)(ref_\d+)\]", lambda m: f"[{order.setdefault(m.group(1), len(order) + 1)}]", answer
    )


def _check_fixture_result(whole: dict[str, Any], result: Any) -> None:
    answer = whole["choices"][0]["message"]["content"]
    assert result.answer == shown(answer) and "[Source: ref_" not in result.answer
    rows = whole["web_search"]
    assert [(s.url, s.author) for s in result.sources] == [(r["link"], r["media"]) for r in rows]
    assert all(s.published_text is None for s in result.sources)  # "publish_date": ""
    by_ref = {r["refer"]: r for r in rows}
    order = list(dict.fromkeys(part.split("]")[0] for part in answer.split("[Source: ")[1:]))
    assert order == ["ref_1", "ref_2", "ref_3"]
    assert [(c.url, c.title) for c in result.citations] == [(by_ref[r]["link"], by_ref[r]["title"]) for r in order]
    assert result.usage == Usage(
        input_tokens=whole["usage"]["prompt_tokens"],
        output_tokens=whole["usage"]["completion_tokens"],
        total_tokens=whole["usage"]["total_tokens"],
        search_requests=1,
    )
    assert result.model == whole["model"] and result.request_id == whole["request_id"]


async def test_replay_docs_example_as_json_body() -> None:
    whole = _fixture()
    _, events, result = await run(lambda request: httpx.Response(200, json=whole))
    assert len([e for e in events if isinstance(e, AnswerDelta)]) == 1
    _check_fixture_result(whole, result)


async def test_replay_docs_example_as_stream() -> None:
    whole = _fixture()
    answer = whole["choices"][0]["message"]["content"]
    common = {k: whole[k] for k in ("id", "request_id", "created", "model")}
    first = {**common, "web_search": whole["web_search"], "choices": [{"index": 0, "delta": {"role": "assistant"}}]}
    tokens = [answer[i : i + 13] for i in range(0, len(answer), 13)]
    middle = [{**common, "choices": [{"index": 0, "delta": {"content": t}}]} for t in tokens]
    last = {**common, "usage": whole["usage"], "choices": [{"index": 0, "finish_reason": "stop", "delta": {}}]}
    data = sse(first, *middle, last)
    _, events, result = await run(sse_reply(split_stream(data, list(range(11, len(data), 211)))))
    deltas = [e.text for e in events if isinstance(e, AnswerDelta)]
    assert "".join(deltas) == shown(answer) and len(tokens) - 10 < len(deltas) <= len(tokens)  # a marker's pieces wait
    _check_fixture_result(whole, result)


# --- end to end over HTTP against the loopback fake ------------------------------------------


def install(server: FakeServer, variant: str = "default") -> None:
    """Mount the fake's route (until the lead registers it in routes.PLUGIN_PROVIDERS)."""
    for (method, path), route in fake.variant_routes(variant).items():
        server.set(method, path, route)


def server_ctx(server: FakeServer, client: httpx.AsyncClient) -> ProviderContext:
    return ProviderContext(
        spec=get_spec(PID),
        client=client,
        settings=ProviderSettings(base_url=server.url(PID)),
        credentials={"api_key": fake.KEY},
        deadline=time.monotonic() + 20,
        sleep=no_wait,
    )


async def test_end_to_end_against_fake_server() -> None:
    data = fake.answer_data()
    with FakeServer() as srv:
        install(srv)
        async with httpx.AsyncClient() as client:
            events, result = await collect(PID, SearchRequest("python asyncio", max_results=5), server_ctx(srv, client))
        assert not srv.errors, srv.errors
    assert result.answer == shown(data["answer"])
    assert len([e for e in events if isinstance(e, AnswerDelta)]) > 40
    assert [s.url for s in result.sources] == [r["link"] for r in data["web_search"][:5]]
    assert [c.url for c in result.citations] == [r["link"] for r in data["web_search"][:3]]
    assert result.citations[0].url == "https://docs.python.org/3/library/asyncio.html"
    assert result.search_queries == ["python asyncio event loop"]
    assert result.related_questions == [q["query"] for q in data["search_recommend"]]
    assert result.usage is not None and result.usage.total_tokens == data["prompt_tokens"] + 46


@pytest.mark.parametrize("variant", fake.VARIANTS)
async def test_every_fake_variant_ends_cleanly(variant: str) -> None:
    with FakeServer() as srv:
        install(srv, variant)
        async with httpx.AsyncClient() as client:
            try:
                _, result = await collect(PID, SearchRequest("python asyncio", max_results=5), server_ctx(srv, client))
            except ProviderError as error:
                assert "zhipu" in error.message.lower() and fake.KEY not in error.message
            else:
                assert len(result.sources) <= 5 and result.answer
        assert not srv.errors, srv.errors


# --- an unknown model ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    ["模型不存在，请检查模型代码。", "Unknown Model, please check the model code."],  # BigModel, Z.AI
)
async def test_unknown_model_names_the_config_key(message: str) -> None:
    recorder = Recorder(lambda request: httpx.Response(400, json=envelope("1211", message)))
    settings = ProviderSettings(model="glm-9")
    ctx = make_ctx(PID, recorder, credentials=CREDS, settings=settings, sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND and info.value.status == 400
    assert info.value.message == (
        "Zhipu Chat Search: model 'glm-9' is not available (400). Set [providers.zhipu_chat_search] model, "
        "or run websearch-tui doctor zhipu_chat_search"
    )


async def test_code_1211_about_the_search_engine_is_not_a_model_error() -> None:
    recorder = Recorder(lambda request: httpx.Response(400, json=envelope("1211", "search_engine 不存在")))
    with pytest.raises(ProviderError) as info:
        await collect(PID, SearchRequest("q"), make_ctx(PID, recorder, credentials=CREDS, sleep=no_wait))
    assert info.value.kind is ErrorKind.BAD_REQUEST
    assert info.value.message == "Zhipu Chat Search API error (400, code 1211): search_engine 不存在"


async def test_unknown_model_through_the_fake_server() -> None:
    with FakeServer() as server:
        install(server)
        server.fail(fake.SEARCH_ROUTE, 400, body=envelope("1211", "模型不存在，请检查模型代码。"))
        async with httpx.AsyncClient() as client:
            with pytest.raises(ProviderError) as info:
                await collect(PID, SearchRequest("q"), server_ctx(server, client))
        assert not server.errors, server.errors
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert "Set [providers.zhipu_chat_search] model" in info.value.message
