"""OpenAI Responses provider: request building, SSE parsing, errors, fixture conformance, end to end.

The small helpers at the top (``frame``, ``respond_sse``, ``run``, ``run_until_error``) are shared by
the Codex, Grok and ARK tests, which speak the same Responses dialect.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers import fake_openai as fake
from tests.helpers import Recorder, collect, count_canonical_urls, make_ctx, no_wait, shared_fixture
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import (
    AnswerDelta,
    CitationsFound,
    Metadata,
    SearchEvent,
    SearchRequest,
    SourcesFound,
)
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import load_stream
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.families.responses import (
    ResponsesParser,
    accepts_temperature,
    cited_text,
    clean_url,
    links_in,
)

KEY = "sk-test-openai-key-123456"
CREDS = {"api_key": KEY}
SSE = {"content-type": "text/event-stream; charset=utf-8"}
Respond = Callable[[httpx.Request], httpx.Response]


# --------------------------------------------------------------------------- shared helpers


def frame(payloads: list[dict[str, Any]], newline: str = "\n") -> bytes:
    """``event: <type>`` + ``data: <json>`` framing (PROVIDERS.md §1.14 for Responses chunks)."""
    out = []
    for payload in payloads:
        data = json.dumps(payload, ensure_ascii=False)
        out.append(f"event: {payload.get('type', 'message')}{newline}data: {data}{newline}{newline}")
    return "".join(out).encode()


def frame_lines(lines: list[str]) -> bytes:
    """Frame ``*.chunks.jsonl`` lines verbatim with ``event: <payload.type>``."""
    return "".join(f"event: {json.loads(line)['type']}\ndata: {line}\n\n" for line in lines).encode()


def pieces(data: bytes, size: int) -> Callable[[], AsyncIterator[bytes]]:
    """An async byte iterator factory yielding ``data`` in ``size``-byte pieces."""

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(data), size):
            yield data[start : start + size]

    return chunks


def respond_sse(data: bytes | Callable[[], AsyncIterator[bytes]], status: int = 200) -> Respond:
    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers=SSE, content=data() if callable(data) else data)

    return respond


def respond_json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Respond:
    return lambda request: httpx.Response(status, json=body, headers=headers)


async def run(
    provider: str,
    respond: Respond,
    request: SearchRequest | None = None,
    *,
    settings: ProviderSettings | None = None,
    credentials: dict[str, str] | None = None,
) -> tuple[Recorder, list[SearchEvent], Any]:
    recorder = Recorder(respond)
    ctx = make_ctx(provider, recorder, credentials=credentials, settings=settings, sleep=no_wait)
    events, response = await collect(provider, request or SearchRequest("python asyncio"), ctx)
    return recorder, events, response


async def run_until_error(
    provider: str,
    respond: Respond,
    request: SearchRequest | None = None,
    *,
    settings: ProviderSettings | None = None,
    credentials: dict[str, str] | None = None,
) -> tuple[Recorder, list[SearchEvent], ProviderError]:
    recorder = Recorder(respond)
    ctx = make_ctx(provider, recorder, credentials=credentials, settings=settings, sleep=no_wait)
    events: list[SearchEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in load_stream(provider)(request or SearchRequest("python asyncio"), ctx):
            events.append(event)
    return recorder, events, info.value


def answer_of(events: list[SearchEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, AnswerDelta))


def simple_stream(*tokens: str, final: bool = True, search: bool = True, extra: list[dict] | None = None) -> bytes:
    """A small hand-written Responses stream with one search call and the given text deltas."""
    head = {"id": "resp_1", "model": "gpt-5-mini-2025-08-07", "status": "in_progress", "output": []}
    payloads: list[dict[str, Any]] = [{"type": "response.created", "response": head}]
    if search:
        call = {"id": "ws_1", "type": "web_search_call", "status": "completed"}
        call["action"] = {
            "type": "search",
            "query": "asyncio docs",
            "sources": [{"type": "url", "url": "https://a.test/"}],
        }
        payloads.append({"type": "response.output_item.done", "output_index": 0, "item": call})
    for token in tokens:
        payloads.append({"type": "response.output_text.delta", "item_id": "msg_1", "content_index": 0, "delta": token})
    payloads.extend(extra or [])
    if final:
        done = dict(head, status="completed", usage={"input_tokens": 5, "output_tokens": 3, "total_tokens": 8})
        payloads.append({"type": "response.completed", "response": done})
    return frame(payloads)


async def fake_server_run(
    provider: str, module: Any, variant: str = "default", request: SearchRequest | None = None, **options: Any
) -> Any:
    """Run ``provider`` over real HTTP against the fake server plugin ``module``."""
    with FakeServer(default_routes=False) as server:
        routes = module.routes() if variant == "default" else module.variant_routes(variant)
        for (method, path), handler in routes.items():
            server.set(method, path, handler)
        table = module.config(server.base_url)
        base_url = table.pop("base_url")
        spec = get_spec(provider)
        credentials = {spec.credentials[0].name: next(iter(module.FAKE_KEYS.values()))} if spec.credentials else {}
        async with httpx.AsyncClient() as client:
            ctx = ProviderContext(
                spec=spec,
                client=client,
                settings=ProviderSettings(base_url=base_url, options={**table, **options}),
                credentials=credentials,
                deadline=time.monotonic() + 60,
                sleep=no_wait,
            )
            _, response = await collect(provider, request or SearchRequest("python asyncio", max_results=2), ctx)
        assert not server.errors, server.errors
        return response, server.requests


# --------------------------------------------------------------------------- request


async def test_request_defaults() -> None:
    recorder, _, _ = await run("openai", respond_sse(simple_stream("hi")), credentials=CREDS)
    request = recorder.requests[0]
    assert request.method == "POST"
    assert str(request.url) == "https://api.openai.com/v1/responses"
    assert request.headers["AUTHORIZATION"] == f"Bearer {KEY}"
    assert "text/event-stream" in request.headers["accept"]
    body = recorder.body()
    assert body["model"] == "gpt-6.1-terra"
    assert body["stream"] is True and body["store"] is False
    assert body["instructions"].startswith("You are a research assistant")
    assert body["input"] == [
        {
            "role": "user",
            "content": [{"type": "input_text", "text": body["input"][0]["content"][0]["text"]}],
        }
    ]
    prompt = body["input"][0]["content"][0]["text"]
    assert prompt.endswith("\nQuestion: python asyncio")
    assert "Cite at most 10 sources." in prompt
    assert "You are a research assistant" not in prompt
    assert body["tools"] == [{"type": "web_search", "search_context_size": "medium"}]
    assert body["tool_choice"] == {"type": "web_search"}
    assert body["include"] == ["web_search_call.action.sources"]
    assert "max_output_tokens" not in body and "temperature" not in body


async def test_request_recency_window_and_sampling_rules() -> None:
    request = SearchRequest("rust 1.80", recency="week", max_tokens=300, temperature=0.3, max_results=4)
    recorder, _, response = await run(
        "openai",
        respond_sse(simple_stream("x")),
        request,
        credentials=CREDS,
        settings=ProviderSettings(base_url="https://gw.example/v1", options={"search_context_size": "high"}),
    )
    assert str(recorder.requests[0].url) == "https://gw.example/v1/responses"
    body = recorder.body()
    today = datetime.now(timezone.utc).date()
    prompt = body["input"][0]["content"][0]["text"]
    assert f"({(today - timedelta(days=7)).isoformat()} to {today.isoformat()}, UTC)" in prompt
    assert "Cite at most 4 sources." in prompt
    assert body["max_output_tokens"] == 300
    assert "temperature" not in body  # gpt-6.1-terra (a reasoning model) rejects it
    assert any("temperature ignored" in note for note in response.notes)
    assert body["tools"][0]["search_context_size"] == "high"


async def test_temperature_sent_for_a_model_that_accepts_it() -> None:
    recorder, _, response = await run(
        "openai",
        respond_sse(simple_stream("x")),
        SearchRequest("q", temperature=0.2),
        credentials=CREDS,
        settings=ProviderSettings(model="gpt-4.1-mini"),
    )
    assert recorder.body()["model"] == "gpt-4.1-mini"
    assert recorder.body()["temperature"] == 0.2
    assert not response.notes


async def test_missing_key_is_config_error() -> None:
    _, _, error = await run_until_error("openai", respond_sse(b""))
    assert error.kind is ErrorKind.CONFIG
    assert "OPENAI_API_KEY" in error.message


# --------------------------------------------------------------------------- streaming


async def test_deltas_arrive_one_by_one_in_order() -> None:
    data = simple_stream("The", " answer", " is", " 42.")
    _, events, response = await run("openai", respond_sse(data), credentials=CREDS)
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["The", " answer", " is", " 42."]
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "Metadata"
    assert kinds.index("SearchQueries") < kinds.index("AnswerDelta")
    assert kinds.index("SourcesFound") < kinds.index("AnswerDelta")
    assert isinstance(events[-1], Metadata) and events[-1].usage is not None
    assert response.answer == "The answer is 42."
    assert response.model == "gpt-5-mini-2025-08-07" and response.request_id == "resp_1"
    assert response.auth_mode == "api_key"
    assert response.usage.total_tokens == 8 and response.usage.search_requests == 1
    assert response.search_queries == ["asyncio docs"]
    assert not response.notes


async def test_event_split_across_chunks_and_inside_utf8() -> None:
    data = simple_stream("Grüße ", "東京 ", "🚀")
    cut = data.index("東".encode()) + 1

    async def chunks() -> AsyncIterator[bytes]:
        yield data[:cut]
        yield data[cut:]

    _, _, response = await run("openai", respond_sse(chunks), credentials=CREDS)
    assert response.answer == "Grüße 東京 🚀"
    _, _, response = await run("openai", respond_sse(pieces(data, 3)), credentials=CREDS)
    assert response.answer == "Grüße 東京 🚀"


async def test_crlf_framing() -> None:
    data = simple_stream("one", " two").replace(b"\n", b"\r\n")
    _, _, response = await run("openai", respond_sse(pieces(data, 5)), credentials=CREDS)
    assert response.answer == "one two"


async def test_connection_drop_midway_keeps_partial_answer() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield simple_stream("partial", " answer", final=False)
        raise httpx.ReadError("connection reset")

    recorder, events, error = await run_until_error("openai", respond_sse(chunks), credentials=CREDS)
    assert answer_of(events) == "partial answer"
    assert error.kind is ErrorKind.NETWORK
    assert len(recorder.requests) == 1  # never retried after an event


async def test_error_event_after_start_keeps_partial_answer() -> None:
    failure = [
        {"type": "error", "error": {"type": "server_error", "code": "server_error", "message": "boom"}},
        {"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "error": {"code": "x"}}},
    ]
    _, events, error = await run_until_error(
        "openai", respond_sse(simple_stream("par", "tial", final=False, extra=failure)), credentials=CREDS
    )
    assert answer_of(events) == "partial"
    assert error.kind is ErrorKind.SERVER
    assert error.message == "OpenAI error (server_error): boom"


async def test_stream_without_completed_event_is_protocol_error() -> None:
    _, events, error = await run_until_error(
        "openai", respond_sse(simple_stream("a", "b", final=False)), credentials=CREDS
    )
    assert answer_of(events) == "ab"
    assert error.kind is ErrorKind.PROTOCOL
    assert error.message == "OpenAI stream ended before it finished"


async def test_answer_without_search_gets_a_note() -> None:
    _, _, response = await run("openai", respond_sse(simple_stream("from memory", search=False)), credentials=CREDS)
    assert response.answer == "from memory"
    assert response.notes == ["OpenAI answered without searching the web; the answer may be out of date."]


async def test_citations_sources_and_cap() -> None:
    text = "Asyncio runs tasks. ([docs](https://docs.test/a)) More here ([b](https://b.test/x?utm_source=openai))."
    start_a, start_b = text.index("(["), text.rindex("([")
    call = {
        "id": "ws_1",
        "type": "web_search_call",
        "status": "completed",
        "action": {
            "type": "search",
            "query": "q1",
            "queries": ["q1", "q2"],
            "sources": [{"type": "url", "url": f"https://s{i}.test/"} for i in range(5)]
            + [{"type": "api", "name": "oai-weather"}],
        },
    }
    annotations = [
        {
            "type": "url_citation",
            "start_index": start_a,
            "end_index": start_a + 10,
            "url": "https://docs.test/a",
            "title": "Docs A",
        },
        {
            "type": "url_citation",
            "start_index": start_b,
            "end_index": start_b + 10,
            "url": "https://b.test/x?utm_source=openai",
            "title": "B",
        },
    ]
    payloads = [
        {"type": "response.output_item.done", "item": call},
        {"type": "response.output_text.delta", "item_id": "m", "content_index": 0, "delta": text},
        *[
            {
                "type": "response.output_text.annotation.added",
                "item_id": "m",
                "content_index": 0,
                "annotation_index": i,
                "annotation": a,
            }
            for i, a in enumerate(annotations)
        ],
        {
            "type": "response.output_item.done",
            "item": {
                "id": "m",
                "type": "message",
                "content": [{"type": "output_text", "text": text, "annotations": annotations}],
            },
        },
        {
            "type": "response.completed",
            "response": {
                "id": "r",
                "model": "m",
                "status": "completed",
                "tool_usage": {"web_search": {"num_requests": 2}},
            },
        },
    ]
    _, events, response = await run(
        "openai", respond_sse(frame(payloads)), SearchRequest("q", max_results=2), credentials=CREDS
    )
    assert [(c.url, c.title) for c in response.citations] == [
        ("https://docs.test/a", "Docs A"),
        ("https://b.test/x", "B"),
    ]
    assert response.citations[0].cited_text == "Asyncio runs tasks."
    assert response.citations[1].cited_text == "More here"
    assert len([e for e in events if isinstance(e, CitationsFound)]) == 2  # not repeated by item.done
    # first two sources, then every cited one
    assert [s.url for s in response.sources] == [
        "https://s0.test/",
        "https://s1.test/",
        "https://docs.test/a",
        "https://b.test/x",
    ]
    assert response.sources[2].title == "Docs A"
    assert response.search_queries == ["q1", "q2"]
    assert response.usage.search_requests == 2


def test_thousands_of_annotations_cost_work_in_proportion(monkeypatch: pytest.MonkeyPatch) -> None:
    """4,000 ``url_citation`` annotations over 40 pages: each is canonicalised twice (its source and
    its citation), not once per citation so far (which took ~10 s for such a stream)."""
    calls = count_canonical_urls(monkeypatch)
    parser = ResponsesParser(provider_id="openai", label="OpenAI", requested_model="gpt-5-mini", max_results=5)
    part = {"item_id": "msg_1", "content_index": 0}
    sent = []
    for n in range(4000):
        sent += parser.feed("message", {"type": "response.output_text.delta", **part, "delta": "word "})
        annotation = {"type": "url_citation", "url": f"https://p{n % 40}.example/", "title": "P", "start_index": 5 * n}
        added = {
            "type": "response.output_text.annotation.added",
            **part,
            "annotation_index": n,
            "annotation": annotation,
        }
        sent += parser.feed("message", added)
    assert calls[0] == 2 * 4000
    selections = [e for e in sent if isinstance(e, SourcesFound)]
    assert len(selections) == 40 and len(selections[-1].sources) == 40  # one per new page: all are cited


async def test_empty_annotations_fall_back_to_links_in_the_answer() -> None:
    text = "See [the docs](https://docs.python.org/3/library/asyncio.html) and https://peps.python.org/pep-3156/)."
    _, _, response = await run("openai", respond_sse(simple_stream(text)), credentials=CREDS)
    assert [(c.url, c.title) for c in response.citations] == [
        ("https://docs.python.org/3/library/asyncio.html", "the docs"),
        ("https://peps.python.org/pep-3156/", "https://peps.python.org/pep-3156/"),
    ]
    assert [s.url for s in response.sources][:1] == ["https://a.test/"]


async def test_json_response_when_stream_is_ignored() -> None:
    whole = fake.final_response(fake.answer_data("python asyncio"), model="gpt-5-mini-2025-08-07")
    _, events, response = await run("openai", respond_json(whole), credentials=CREDS)
    assert response.answer == "".join(fake.answer_data("x")["answer_tokens"])
    assert len(response.citations) == 3
    assert response.request_id == "resp_fake_openai_0001"


def test_helpers() -> None:
    assert clean_url("https://a.test/p?utm_source=openai") == "https://a.test/p"
    assert clean_url("https://a.test/p?x=1&utm_source=openai") == "https://a.test/p?x=1"
    assert clean_url("javascript:alert(1)") is None
    assert cited_text("First one. Second [x](https://x.test) claim (", 44) == "Second x claim"
    assert [u for u, _, _ in links_in("a https://x.test/a_(b)). b <https://y.test/>")] == [
        "https://x.test/a_(b)",
        "https://y.test/",
    ]


# --------------------------------------------------------------------------- errors


async def test_401_seed_message() -> None:
    _, _, error = await run_until_error(
        "openai", respond_json({"error": {"message": "Incorrect API key"}}, 401), credentials=CREDS
    )
    assert error.kind is ErrorKind.AUTH
    assert error.message == "OpenAI authorization failed (401). Check API key or base URL."


async def test_quota_429_fixture_is_not_retried() -> None:
    body = json.loads(shared_fixture("openai/responses_error_insufficient_quota_429.json").read_bytes())
    recorder, _, error = await run_until_error("openai", respond_json(body, 429), credentials=CREDS)
    assert error.kind is ErrorKind.QUOTA
    assert error.message.startswith("OpenAI API error (429): You exceeded your current quota")
    assert len(recorder.requests) == 1


async def test_rate_limit_429_is_retried() -> None:
    calls = iter([respond_json({"error": {"message": "Rate limit reached"}}, 429, {"retry-after": "0"})])

    def respond(request: httpx.Request) -> httpx.Response:
        nxt = next(calls, None)
        return nxt(request) if nxt else respond_sse(simple_stream("ok"))(request)

    recorder, _, response = await run("openai", respond, credentials=CREDS)
    assert response.answer == "ok" and len(recorder.requests) == 2


async def test_bad_request_400_fixture() -> None:
    body = json.loads(shared_fixture("openai/chat_web_search_model_not_supported_400.json").read_bytes())
    _, _, error = await run_until_error("openai", respond_json(body, 400), credentials=CREDS)
    assert error.kind is ErrorKind.BAD_REQUEST
    assert error.message == "OpenAI API error (400): Web search options not supported with this model."


async def test_key_is_redacted_from_errors() -> None:
    register_secret(KEY)
    _, _, error = await run_until_error(
        "openai", respond_json({"error": {"message": f"bad key {KEY}"}}, 400), credentials=CREDS
    )
    assert KEY not in error.message


# --------------------------------------------------------------------------- conformance (real payloads)


@pytest.mark.parametrize("size", [None, 1, 7, 4096])
async def test_replay_sse_fixture(size: int | None) -> None:
    data = shared_fixture("openai/responses_web_search_stream.sse").read_bytes()
    _, events, response = await run("openai", respond_sse(pieces(data, size) if size else data), credentials=CREDS)
    done = [
        json.loads(line[5:])
        for line in data.decode().splitlines()
        if line.startswith("data:") and "output_text.done" in line
    ]
    assert response.answer == done[0]["text"]
    assert len([e for e in events if isinstance(e, AnswerDelta)]) == 44
    assert response.search_queries == ["weather: San Francisco, CA"]
    assert response.sources == [] and response.citations == []  # only an "api" source, no annotations
    assert response.model == "gpt-5-2025-08-07"
    assert response.request_id == "resp_00a60507bf41223d0068c9d2fbf93481a0ba2a7796ae2cab4c"
    assert response.usage.total_tokens == 10045
    assert response.notes == []


async def test_replay_sse_fixture_with_crlf() -> None:
    data = shared_fixture("openai/responses_web_search_stream.sse").read_bytes().replace(b"\n", b"\r\n")
    _, _, response = await run("openai", respond_sse(pieces(data, 333)), credentials=CREDS)
    assert response.answer.startswith("San Francisco weather today")


async def test_replay_vercel_chunks_fixture() -> None:
    lines = [
        line
        for line in shared_fixture("openai/responses_web_search_vercel.chunks.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    ]
    payloads = [json.loads(line) for line in lines]
    _, events, response = await run(
        "openai", respond_sse(pieces(frame_lines(lines), 101)), SearchRequest("q", max_results=3), credentials=CREDS
    )
    text = next(p["text"] for p in payloads if p["type"] == "response.output_text.done")
    assert response.answer == text
    annotations = [p["annotation"] for p in payloads if p["type"] == "response.output_text.annotation.added"]
    assert [c.url for c in response.citations] == [a["url"].replace("?utm_source=openai", "") for a in annotations]
    assert [c.title for c in response.citations] == [a["title"] for a in annotations]
    assert all(c.cited_text for c in response.citations)
    assert response.search_queries == [
        "tech news today December 5 2025",
        'site:theverge.com "December 5, 2025" "technology"',
    ]
    cited = {c.url for c in response.citations}
    assert cited <= {s.url for s in response.sources}  # every cited source kept despite max_results=3
    assert len([s for s in response.sources if s.url not in cited]) <= 3
    assert response.usage.total_tokens == 35489
    # citations arrive while the text is still streaming
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("CitationsFound") < max(i for i, k in enumerate(kinds) if k == "AnswerDelta")


async def test_replay_stream_error_fixture() -> None:
    lines = [
        line
        for line in shared_fixture("openai/responses_stream_error_insufficient_quota.chunks.jsonl")
        .read_text("utf-8")
        .splitlines()
        if line.strip()
    ]
    _, events, error = await run_until_error("openai", respond_sse(frame_lines(lines)), credentials=CREDS)
    assert error.kind is ErrorKind.QUOTA
    assert error.message.startswith("OpenAI error (insufficient_quota): You exceeded your current quota")
    assert any(isinstance(e, Metadata) and e.model == "gpt-5-nano-2025-08-07" for e in events)


@pytest.mark.parametrize(
    ("name", "citations", "queries"),
    [
        ("responses_web_search.json", 0, ["weather: San Francisco, CA"]),
        ("responses_web_search_vercel.json", 10, ["tech news today December 5 2025"]),
        ("responses_web_search_no_external_access.json", 1, ["Eiffel Tower opened to the public year official"]),
        ("responses_web_search_user_location.json", 0, None),
        ("responses_web_search_invalid_region.json", 0, None),
        ("responses_web_search_allowed_domains.json", 0, None),
    ],
)
async def test_replay_json_fixtures(name: str, citations: int, queries: list[str] | None) -> None:
    whole = json.loads(shared_fixture(f"openai/{name}").read_bytes())
    _, _, response = await run("openai", respond_json(whole), SearchRequest("q", max_results=5), credentials=CREDS)
    texts = [c["text"] for item in whole["output"] if item["type"] == "message" for c in item["content"]]
    assert response.answer == "\n\n".join(texts)
    assert len(response.citations) >= citations
    assert all("utm_source" not in c.url for c in response.citations)
    calls = [item["action"] for item in whole["output"] if item["type"] == "web_search_call"]
    expected = queries or list(dict.fromkeys(q for a in calls for q in [a.get("query"), *a.get("queries", [])] if q))
    assert response.search_queries == expected
    assert response.request_id == whole["id"] and response.model == whole["model"]
    assert response.usage.total_tokens == whole["usage"]["total_tokens"]


# --------------------------------------------------------------------------- end to end


async def test_end_to_end_against_fake_server() -> None:
    response, requests = await fake_server_run("openai", fake)
    assert response.answer == "".join(fake.answer_data("python asyncio")["answer_tokens"])
    assert "https://docs.python.org/3/library/asyncio.html" in [c.url for c in response.citations]
    assert len(response.citations) == 3
    assert [s.url for s in response.sources][:2] == [
        "https://docs.python.org/3/library/asyncio.html",
        "https://docs.python.org/3/library/asyncio-task.html",
    ]
    assert response.search_queries == ["python asyncio documentation"]
    assert requests[0].path == "/openai/v1/responses"


@pytest.mark.parametrize("variant", fake.VARIANTS)
async def test_fake_variants(variant: str) -> None:
    try:
        response, _ = await fake_server_run("openai", fake, variant)
    except ProviderError as error:
        assert "OpenAI" in error.message
        assert variant not in ("default", "split", "crlf", "json", "no_search")
    else:
        assert response.answer
        assert ("without searching" in " ".join(response.notes)) == (variant == "no_search")


async def test_deltas_without_item_id_and_a_final_item_with_one_do_not_repeat_the_answer() -> None:
    import json as _json

    from tests.helpers import collect as _collect
    from tests.helpers import make_ctx as _make_ctx

    message = {
        "type": "message",
        "id": "msg_1",
        "content": [{"type": "output_text", "text": "Hello", "annotations": []}],
    }
    events = [
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Hello"},
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {"type": "response.completed", "response": {"id": "r", "model": "m", "output": [message]}},
    ]
    body = "".join(f"event: {e['type']}\ndata: {_json.dumps(e)}\n\n" for e in events).encode()
    ctx = _make_ctx(
        "openai",
        lambda r: httpx.Response(200, content=body, headers={"content-type": "text/event-stream"}),
        credentials={"api_key": "openai-key-1234"},
        sleep=no_wait,
    )
    _, response = await _collect("openai", SearchRequest("q"), ctx)
    assert response.answer == "Hello"


# --------------------------------------------------------------------------- models


@pytest.mark.parametrize(
    ("model", "accepts"),
    [
        ("gpt-6.1-terra", False),
        ("gpt-6-luna", False),
        ("gpt-5.6-sol", False),
        ("gpt-5-mini", False),
        ("gpt-10", False),
        ("o4-mini", False),
        ("gpt-4.1-mini", True),
        ("gpt-4o", True),
    ],
)
def test_reasoning_models_get_no_temperature(model: str, accepts: bool) -> None:
    assert accepts_temperature(model) is accepts


OPENAI_MODEL_GONE = (
    "OpenAI: model '{model}' is not available ({status}). Set [providers.openai] model, "
    "or run websearch-tui doctor openai"
)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "The requested model 'gpt-5-mini' does not exist."),  # /v1/responses, as recorded in 2026
        (404, "The model `gpt-5-mini` does not exist or you do not have access to it."),  # the chat wording
        (404, "The model gpt-5-mini has been deprecated"),  # a retired model
    ],
)
async def test_unknown_or_retired_model_names_the_config_key(status: int, message: str) -> None:
    body = {"error": {"code": "model_not_found", "message": message, "param": "model", "type": "invalid_request_error"}}
    settings = ProviderSettings(model="gpt-5-mini")
    recorder, _, error = await run_until_error(
        "openai", respond_json(body, status), credentials=CREDS, settings=settings
    )
    assert error.kind is ErrorKind.MODEL_NOT_FOUND and error.status == status
    assert error.message == OPENAI_MODEL_GONE.format(model="gpt-5-mini", status=status)
    assert len(recorder.requests) == 1


async def test_other_invalid_request_errors_keep_their_words() -> None:
    body = {"error": {"code": "invalid_value", "message": "Invalid value: 'xhigh'.", "type": "invalid_request_error"}}
    _, _, error = await run_until_error("openai", respond_json(body, 400), credentials=CREDS)
    assert error.kind is ErrorKind.BAD_REQUEST and error.message == "OpenAI API error (400): Invalid value: 'xhigh'."


async def test_unknown_model_through_the_fake_server() -> None:
    body = {
        "error": {"code": "model_not_found", "message": "The requested model 'x' does not exist.", "param": "model"}
    }
    with FakeServer(default_routes=False) as server:
        for (method, path), handler in fake.routes().items():
            server.set(method, path, handler)
        server.fail(fake.SEARCH_ROUTE, 400, body=body)
        async with httpx.AsyncClient() as client:
            ctx = ProviderContext(
                spec=get_spec("openai"),
                client=client,
                settings=ProviderSettings(base_url=fake.config(server.base_url)["base_url"]),
                credentials={"api_key": next(iter(fake.FAKE_KEYS.values()))},
                deadline=time.monotonic() + 20,
                sleep=no_wait,
            )
            with pytest.raises(ProviderError) as info:
                await collect("openai", SearchRequest("python asyncio"), ctx)
        assert not server.errors, server.errors
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert info.value.message == OPENAI_MODEL_GONE.format(model="gpt-6.1-terra", status=400)


# --------------------------------------------------------------------------- conformance: a real gpt-5 answer


async def test_replay_gpt5_web_search_recording() -> None:
    """A recorded non-streamed gpt-5 Responses answer with the ``web_search`` tool (reasoning items,
    nine search calls including two ``open_page`` visits, one message with ``url_citation``s), read
    from the shared fixtures or ``$WEBSEARCH_EXTRA_FIXTURES``."""
    whole = json.loads(shared_fixture("openai/responses_gpt5_web_search.json").read_bytes())
    _, _, response = await run("openai", respond_json(whole), SearchRequest("q", max_results=20), credentials=CREDS)
    messages = [item for item in whole["output"] if item["type"] == "message"]
    parts = [part for item in messages for part in item["content"] if part["type"] == "output_text"]
    assert response.answer == "\n\n".join(part["text"] for part in parts)
    annotations = [a for part in parts for a in part["annotations"] if a["type"] == "url_citation"]
    assert [(c.url, c.title) for c in response.citations] == [(clean_url(a["url"]), a["title"]) for a in annotations]
    assert all(c.cited_text for c in response.citations)
    actions = [item["action"] for item in whole["output"] if item["type"] == "web_search_call"]
    searches = [a for a in actions if a["type"] == "search"]
    assert response.search_queries == list(
        dict.fromkeys(q for a in searches for q in [a.get("query"), *a.get("queries", [])] if q)
    )
    visited = [a["url"] for a in actions if a["type"] in ("open_page", "find_in_page")]
    assert {s.url for s in response.sources} == {c.url for c in response.citations} | set(visited)
    usage = whole["usage"]
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.total_tokens) == (
        usage["input_tokens"],
        usage["output_tokens"],
        usage["total_tokens"],
    )
    assert response.usage.search_requests == len(searches)
    assert response.model == whole["model"] and response.request_id == whole["id"]
    assert response.notes == []
