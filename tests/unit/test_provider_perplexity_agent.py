"""Perplexity through the Agent API (the default ``api``): request building, the typed event stream,
citations by search result id, usage and cost, errors, the shape check in both directions, the fake,
and conformance with the real Sept 2026 payloads (``perplexity/agent-web-search.json``,
``agent-web-search.chunks.jsonl``, ``agent-error-401.json`` in ``../shared/fixtures/providers`` or
``$WEBSEARCH_EXTRA_FIXTURES``; skipped when absent, never copied into the repo)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.helpers import Recorder, collect, fake_ctx, make_ctx, no_wait, shared_fixture
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Metadata,
    Note,
    SearchEvent,
    SearchQueries,
    SearchRequest,
    SearchResponse,
    SourcesFound,
    Usage,
)
from websearch_tui.core.results import ProviderOutcome, RunStatus
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.history import codec
from websearch_tui.providers import load_stream
from websearch_tui.providers.families import perplexity_agent as agent
from websearch_tui.providers.helpers.prompt import SYSTEM_PROMPT
from websearch_tui.settings.config import ConfigError, parse_config
from websearch_tui.tui.settings.fields import CHOICE, LIST, provider_fields

KEY = "pplx-test-key-123456"
CREDS = {"api_key": KEY}
SSE = {"content-type": "text/event-stream"}
RESULTS = [
    {"id": n, "url": f"https://site{n}.example/page", "title": f"Site {n}", "snippet": f"About {n}.", "source": "web"}
    for n in range(1, 6)
]


# --------------------------------------------------------------------------- building streams


def event(kind: str, **fields: Any) -> dict[str, Any]:
    """One Agent API event payload of type ``kind``."""
    return {"type": kind, **fields}


def final(
    *,
    text: str = "",
    model: str = "openai/gpt-test",
    status: str = "completed",
    results: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A whole response object (what ``response.completed`` carries)."""
    rows = RESULTS if results is None else results
    output: list[dict[str, Any]] = [{"type": "search_results", "queries": ["q1"], "results": rows}]
    if text:
        output.append({"type": "message", "id": "msg_1", "content": [{"type": "output_text", "text": text}]})
    usage = {
        "input_tokens": 100,
        "output_tokens": 20,
        "total_tokens": 120,
        "tool_calls_details": {"search_web": {"cost_usd": 0.005, "invocation": 2}},
        "cost": {"currency": "USD", "total_cost": 0.0071},
    }
    response = {"id": "resp_1", "object": "response", "status": status, "model": model, "output": output}
    return {**response, "usage": usage, "error": None, **extra}


def stream_events(*deltas: str, results: list[dict[str, Any]] | None = None, end: str = "completed") -> list[Any]:
    """A streamed run: created, the search, one delta per piece, and the terminal event."""
    rows = RESULTS if results is None else results
    snapshot = {"id": "resp_1", "model": "low", "status": "in_progress", "output": []}
    events: list[Any] = [
        event("response.created", response=snapshot),
        event("response.in_progress", response=snapshot),
        event("response.output_item.added", output_index=0, item={"type": "function_call", "name": "search_web"}),
        event("response.reasoning.search_queries", queries=["q1", "q2"]),
        event("response.reasoning.search_results", results=rows),
        event(
            "response.output_item.done",
            output_index=0,
            item={"type": "search_results", "queries": ["q1"], "results": rows},
        ),
    ]
    place = {"item_id": "msg_1", "output_index": 1, "content_index": 0}
    events += [event("response.output_text.delta", delta=piece, **place) for piece in deltas]
    events.append(event("response.output_text.done", text="".join(deltas), **place))
    if end:
        events.append(event(f"response.{end}", response=final(text="".join(deltas), status=end, results=rows)))
    return events


def sse(payloads: list[Any], *, names: bool = True) -> bytes:
    """SSE with ``event: <type>`` lines (as the wire has them; ``names=False`` leaves them out)."""
    frames = []
    for payload in payloads:
        name = f"event: {payload['type']}\n" if names and isinstance(payload, dict) and "type" in payload else ""
        frames.append(f"{name}data: {json.dumps(payload, ensure_ascii=False)}\n\n")
    return "".join(frames).encode()


def pieces(data: bytes, size: int) -> Callable[[], AsyncIterator[bytes]]:
    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(data), size):
            yield data[start : start + size]

    return chunks


def stream_reply(data: bytes, split: int | None = None) -> Callable[[httpx.Request], httpx.Response]:
    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, content=pieces(data, split)() if split else data)

    return respond


def settings(**options: Any) -> ProviderSettings:
    model = options.pop("model", None)
    models = tuple(options.pop("models", ()))
    return ProviderSettings(model=model, models=models, options=options)


async def run(
    respond: Callable[[httpx.Request], httpx.Response],
    request: SearchRequest | None = None,
    config: ProviderSettings | None = None,
) -> tuple[Recorder, list[SearchEvent], SearchResponse]:
    recorder = Recorder(respond)
    ctx = make_ctx("perplexity", recorder, credentials=CREDS, settings=config, sleep=no_wait)
    events, response = await collect("perplexity", request or SearchRequest("who won?"), ctx)
    return recorder, events, response


async def run_error(
    respond: Callable[[httpx.Request], httpx.Response], config: ProviderSettings | None = None
) -> tuple[Recorder, list[SearchEvent], ProviderError]:
    recorder = Recorder(respond)
    ctx = make_ctx("perplexity", recorder, credentials=CREDS, settings=config, sleep=no_wait)
    events: list[SearchEvent] = []
    with pytest.raises(ProviderError) as info:
        async for item in load_stream("perplexity")(SearchRequest("q"), ctx):
            events.append(item)
    return recorder, events, info.value


def ok_stream() -> Callable[[httpx.Request], httpx.Response]:
    return stream_reply(sse(stream_events("Hi [1].")))


# --------------------------------------------------------------------------- the request


async def test_default_request_is_the_agent_api_with_preset_low_and_forced_search() -> None:
    recorder, _, response = await run(ok_stream())
    request = recorder.requests[0]
    assert str(request.url) == "https://api.perplexity.ai/v1/agent"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "text/event-stream" in request.headers["accept"]
    assert recorder.body(0) == {
        "input": "who won?",
        "stream": True,
        "preset": "low",
        "tools": [{"type": "web_search", "max_results": 10}],
        "tool_choice": {"type": "web_search"},
    }  # nothing of the Sonar body: the API refuses unknown fields
    assert response.notes == []
    assert get_spec("perplexity").default_model == "low"


async def test_request_maps_recency_count_domains_context_size_and_max_tokens() -> None:
    config = ProviderSettings(
        base_url="http://127.0.0.1:9/proxy",
        options={
            "search_context_size": "HIGH",
            "search_domain_filter": ["https://Docs.Python.org/3/", "-pinterest.com"],
        },
    )
    request = SearchRequest("rust", recency="week", max_tokens=512, num_search_results=25, max_results=3)
    recorder, _, response = await run(ok_stream(), request, config)
    assert str(recorder.requests[0].url) == "http://127.0.0.1:9/proxy/v1/agent"
    body = recorder.body(0)
    assert body["tools"] == [
        {
            "type": "web_search",
            "max_results": 25,
            "search_context_size": "high",
            "filters": {"search_recency_filter": "week", "search_domain_filter": ["docs.python.org", "-pinterest.com"]},
        }
    ]
    assert body["max_output_tokens"] == 512
    assert response.notes == []


@pytest.mark.parametrize(("count", "sent"), [(None, 10), (1, 1), (50, 50)])
async def test_upstream_count_is_num_search_results_clamped(count: int | None, sent: int) -> None:
    recorder, _, _ = await run(ok_stream(), SearchRequest("q", num_search_results=count, max_results=4))
    assert recorder.body(0)["tools"][0]["max_results"] == sent


@pytest.mark.parametrize(
    ("model", "field", "value"),
    [
        ("fast", "preset", "fast"),
        ("XHIGH", "preset", "xhigh"),
        ("pro-search", "preset", "pro-search"),
        ("advanced-deep-research", "preset", "advanced-deep-research"),
        ("openai/gpt-5.4-mini", "model", "openai/gpt-5.4-mini"),
        ("perplexity/sonar", "model", "perplexity/sonar"),
    ],
)
async def test_model_is_a_preset_or_a_direct_model_id(model: str, field: str, value: str) -> None:
    recorder, _, response = await run(ok_stream(), config=settings(model=model))
    body = recorder.body(0)
    assert body[field] == value and ({"preset", "model"} - {field}).isdisjoint(body)
    assert response.notes == []
    # our system prompt only goes with a direct model: with a preset it would replace the preset's own
    assert ("instructions" in body) is (field == "model")
    if field == "model":
        assert body["instructions"] == SYSTEM_PROMPT


@pytest.mark.parametrize(
    ("sonar", "preset"),
    [
        ("sonar", "fast"),
        ("sonar-pro", "low"),
        ("Sonar-Pro", "low"),
        ("sonar-reasoning", "low"),
        ("sonar-reasoning-pro", "low"),
        ("sonar-deep-research", "medium"),
        ("perplexity/sonar-pro", "low"),
    ],
)
async def test_a_sonar_model_maps_to_its_preset_with_one_note(sonar: str, preset: str) -> None:
    recorder, events, response = await run(ok_stream(), config=settings(model=sonar))
    body = recorder.body(0)
    assert body["preset"] == preset and "model" not in body
    notes = [e.text for e in events if isinstance(e, Note)]
    mapping = [n for n in notes if "retired" in n]
    assert len(mapping) == 1
    assert f'[providers.perplexity] model = "{preset}"' in mapping[0] and repr(sonar) in mapping[0]
    assert response.notes.count(mapping[0]) == 1


async def test_the_first_of_a_models_list_is_used() -> None:
    recorder, _, _ = await run(ok_stream(), config=settings(models=["medium", "fast"]))
    assert recorder.body(0)["preset"] == "medium"


async def test_temperature_goes_with_a_direct_model_only() -> None:
    request = SearchRequest("q", temperature=0.3)
    recorder, _, response = await run(ok_stream(), request, settings(model="openai/gpt-test"))
    assert recorder.body(0)["temperature"] == 0.3
    recorder, _, response = await run(ok_stream(), request)
    assert "temperature" not in recorder.body(0)
    assert any("temperature is not sent with a preset" in note for note in response.notes)


async def test_bad_options_are_left_out_with_notes() -> None:
    domains = ["ok.example", "not a host", 7, *(f"d{n}.example" for n in range(25))]
    config = settings(search_context_size="huge", search_domain_filter=domains)
    recorder, _, response = await run(ok_stream(), config=config)
    tool = recorder.body(0)["tools"][0]
    assert tool["search_context_size"] == "medium"
    assert (
        len(tool["filters"]["search_domain_filter"]) == 20
        and tool["filters"]["search_domain_filter"][0] == "ok.example"
    )
    assert any("search_context_size" in note for note in response.notes)
    assert any("left out 'not a host', 7" in note for note in response.notes)
    assert any("at most 20 hosts" in note for note in response.notes)


def test_config_refuses_a_bad_api_and_a_domain_list_of_non_strings() -> None:
    with pytest.raises(ConfigError, match=r"\[providers.perplexity\] api must be one of agent, chat, got 'sonar'"):
        parse_config({"providers": {"perplexity": {"api": "sonar"}}})
    with pytest.raises(ConfigError, match="search_domain_filter must be a list of strings"):
        parse_config({"providers": {"perplexity": {"search_domain_filter": ["a.org", 3]}}})
    config = parse_config({"providers": {"perplexity": {"api": "chat", "search_domain_filter": ["a.org"]}}})
    assert config.settings_for("perplexity").options == {"api": "chat", "search_domain_filter": ["a.org"]}


def test_settings_form_offers_the_api_choice_and_the_domain_list() -> None:
    fields = {field.key: field for field in provider_fields(get_spec("perplexity"))}
    assert fields["api"].kind == CHOICE and [value for _, value in fields["api"].choices] == ["agent", "chat"]
    assert fields["search_domain_filter"].kind == LIST
    assert fields["model"].placeholder == "low"


# --------------------------------------------------------------------------- the stream


async def test_answer_streams_token_by_token_and_citation_n_is_the_result_with_id_n() -> None:
    deltas = [
        "Rust",
        " 1.80",
        " is",
        " out",
        ".[",
        "3",
        "]",
        " It",
        " adds",
        " LazyLock",
        "[5",
        "]",
        "[web:",
        "3]",
        ".",
    ]
    _, events, response = await run(stream_reply(sse(stream_events(*deltas)), split=9))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == deltas
    assert response.answer == "".join(deltas)
    # citation n is the result whose id is n, for every result: [3] and [5] point at sites 3 and 5
    assert [(c.url, c.title) for c in response.citations] == [(r["url"], r["title"]) for r in RESULTS]
    assert response.citations[2].cited_text == "About 3."
    assert [s.url for s in response.sources] == [r["url"] for r in RESULTS]
    assert response.search_queries == ["q1", "q2"]
    # the citations come with the results, before the answer's first token
    first_token = next(i for i, e in enumerate(events) if isinstance(e, AnswerDelta))
    assert any(isinstance(e, CitationsFound) for e in events[:first_token])


async def test_every_result_stays_listed_as_its_numbered_citation() -> None:
    _, _, response = await run(stream_reply(sse(stream_events("A [5]."))), SearchRequest("q", max_results=2))
    assert len(response.citations) == 5 and response.citations[4].url == RESULTS[4]["url"]
    assert [s.url for s in response.sources] == [r["url"] for r in RESULTS]  # a citation's source is kept


async def test_markers_in_the_text_do_not_make_citations() -> None:
    _, _, response = await run(stream_reply(sse(stream_events("See x[0] and [2024] and [9]."))))
    assert [c.url for c in response.citations] == [r["url"] for r in RESULTS]


async def test_a_gap_in_the_ids_keeps_its_place() -> None:
    rows = [RESULTS[0], RESULTS[2]]  # ids 1 and 3
    _, _, response = await run(stream_reply(sse(stream_events("a [1][3]", results=rows))))
    assert [c.title for c in response.citations] == ["Site 1", agent.UNKNOWN_TITLE, "Site 3"]


async def test_repeated_results_are_one_source_each_and_drops_are_counted_once() -> None:
    rows = [*RESULTS[:2], {"id": 6, "url": "ftp://nope", "title": "No URL"}]
    _, events, response = await run(stream_reply(sse(stream_events("x [2]", results=rows))))
    assert [s.url for s in response.sources] == [RESULTS[0]["url"], RESULTS[1]["url"]]
    assert response.dropped_sources == 1
    assert len([e for e in events if isinstance(e, SearchQueries)]) == 1


async def test_usage_cost_model_and_request_id_come_from_the_final_response() -> None:
    _, events, response = await run(ok_stream())
    assert response.usage == Usage(
        input_tokens=100, output_tokens=20, total_tokens=120, search_requests=2, cost_usd=0.0071
    )
    assert response.model == "openai/gpt-test"  # not "low", the preset name the created event reports
    assert response.request_id == "resp_1" and response.auth_mode == "api_key"
    metadata = [e for e in events if isinstance(e, Metadata)]
    assert metadata[0].request_id == "resp_1" and metadata[0].model == "low"  # the requested preset until the end


async def test_a_whole_json_body_parses_the_same() -> None:
    body = final(text="Done [2].")
    _, events, response = await run(lambda request: httpx.Response(200, json=body))
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["Done [2]."]
    assert [c.url for c in response.citations] == [r["url"] for r in RESULTS]
    assert len(response.sources) == 5 and response.search_queries == ["q1"]
    assert response.usage is not None and response.usage.cost_usd == 0.0071


async def test_events_without_event_lines_and_unknown_types_are_read() -> None:
    payloads = stream_events("ok [1]")
    payloads.insert(2, {"type": "response.keepalive"})
    payloads.insert(3, {"type": "response.reasoning.started", "thought": "thinking"})
    _, _, response = await run(stream_reply(sse(payloads, names=False)))
    assert response.answer == "ok [1]" and response.citations[0].url == RESULTS[0]["url"]


async def test_text_only_in_the_final_response_is_not_lost_or_repeated() -> None:
    payloads = stream_events("Hello")
    payloads[-2] = event("response.output_text.done", text="Hello world", item_id="msg_1", output_index=1)
    payloads[-1] = event("response.completed", response=final(text="Hello world"))
    _, _, response = await run(stream_reply(sse(payloads)))
    assert response.answer == "Hello world"


async def test_incomplete_keeps_the_answer_with_a_note() -> None:
    payloads = stream_events("Half an ans", end="")
    cut = final(text="Half an ans", status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    payloads.append(event("response.incomplete", response=cut))
    _, _, response = await run(stream_reply(sse(payloads)))
    assert response.answer == "Half an ans"
    assert "Perplexity stopped early (max output tokens); the answer is cut short." in response.notes


async def test_no_search_results_is_said_in_a_note() -> None:
    payloads = stream_events("From memory.", results=[])
    payloads[-1] = event("response.completed", response={**final(text="From memory."), "output": []})
    _, _, response = await run(stream_reply(sse(payloads)))
    assert response.answer == "From memory." and response.sources == []
    assert agent.NO_RESULTS_NOTE in response.notes


@pytest.mark.parametrize(
    ("terminal", "kind", "message"),
    [
        (
            event(
                "response.failed",
                response={
                    **final(status="failed"),
                    "error": {"message": "Model overloaded", "type": "internal_error", "code": 503},
                },
            ),
            ErrorKind.SERVER,
            "Perplexity API error (503): Model overloaded",
        ),
        (
            event(
                "error", error={"message": "Rate limit exceeded", "type": "request_rate_limit_exceeded", "code": 429}
            ),
            ErrorKind.RATE_LIMIT,
            "Perplexity API error (429): Rate limit exceeded",
        ),
        (
            event("error", code=401, message="Invalid API key provided."),
            ErrorKind.AUTH,
            "Perplexity API error (401): Invalid API key provided.",
        ),
        (
            event(
                "response.failed",
                response={
                    **final(status="failed"),
                    "error": {"message": "Invalid model 'x/y'", "type": "invalid_model"},
                },
            ),
            ErrorKind.MODEL_NOT_FOUND,
            "Perplexity API error (invalid_model): Invalid model 'x/y'. Set [providers.perplexity] model, or run websearch-tui doctor perplexity.",
        ),
        (
            event("response.cancelled", response={**final(status="cancelled")}),
            ErrorKind.SERVER,
            "Perplexity API error: the response was cancelled",
        ),
    ],
)
async def test_terminal_errors_in_the_stream(terminal: dict[str, Any], kind: ErrorKind, message: str) -> None:
    payloads = [*stream_events("partial", end=""), terminal]
    _, events, error = await run_error(stream_reply(sse(payloads)))
    assert (error.kind, error.message) == (kind, message)
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "partial"  # what came stands


async def test_http_200_with_status_failed_is_an_error() -> None:
    body = {
        **final(status="failed"),
        "output": [],
        "error": {"message": "Upstream timed out", "type": "gateway_timeout", "code": 504},
    }
    _, _, error = await run_error(lambda request: httpx.Response(200, json=body))
    assert error.kind is ErrorKind.SERVER and error.message == "Perplexity API error (504): Upstream timed out"


async def test_a_stream_without_its_terminal_event_ended_early() -> None:
    _, events, error = await run_error(stream_reply(sse(stream_events("cut", end=""))))
    assert error.kind is ErrorKind.PROTOCOL and "stream ended before it finished" in error.message
    assert any(isinstance(e, AnswerDelta) for e in events)


# --------------------------------------------------------------------------- HTTP errors


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (
            400,
            {"error": {"message": "Invalid model 'openai/gone'", "type": "invalid_model", "code": 400}},
            ErrorKind.MODEL_NOT_FOUND,
            "Perplexity: model 'low' is not available (400). Set [providers.perplexity] model, or run "
            "websearch-tui doctor perplexity",
        ),
        (
            400,
            {
                "error": {
                    "message": 'invalid request body: json: unknown field "search_mode"',
                    "type": "invalid_request",
                    "code": 400,
                }
            },
            ErrorKind.BAD_REQUEST,
            'Perplexity API error (400): invalid request body: json: unknown field "search_mode"',
        ),
        (
            429,
            {"error": {"message": "Rate limit exceeded", "type": "request_rate_limit_exceeded", "code": 429}},
            ErrorKind.RATE_LIMIT,
            "Perplexity API error (429): Rate limit exceeded",
        ),
        (
            500,
            {"error": {"message": "Internal error", "type": "internal_error", "code": 500}},
            ErrorKind.SERVER,
            "Perplexity API error (500): Internal error",
        ),
        (401, {"error": {"message": "bad", "type": "invalid_api_key", "code": 401}}, ErrorKind.AUTH, None),
    ],
)
async def test_http_errors_are_worded_and_never_retried(
    status: int, body: dict[str, Any], kind: ErrorKind, message: str | None
) -> None:
    recorder, _, error = await run_error(
        lambda request: httpx.Response(status, json=body, headers={"retry-after": "0"})
    )
    assert error.kind is kind and error.status == status
    assert error.message == (message or "Perplexity authorization failed (401). Check API key or base URL.")
    assert len(recorder.requests) == 1


# --------------------------------------------------------------------------- the shape check, both ways


CHAT_BODY = {
    "id": "c1",
    "model": "sonar",
    "object": "chat.completion",
    "citations": ["https://a.example/"],
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi [1]"}, "finish_reason": "stop"}],
}
CHAT = settings(api="chat")


async def test_a_chat_answer_to_the_agent_api_is_unrecognised_not_empty() -> None:
    for respond in (
        lambda request: httpx.Response(200, json=CHAT_BODY),
        stream_reply(sse([{**CHAT_BODY, "object": "chat.completion.chunk"}])),
    ):
        _, _, error = await run_error(respond)
        assert error.kind is ErrorKind.UNRECOGNISED, error.message
        assert "Perplexity answered in a shape this version does not read" in error.message


async def test_an_agent_answer_to_api_chat_is_unrecognised_not_empty() -> None:
    for respond in (lambda request: httpx.Response(200, json=final(text="x [1]")), ok_stream()):
        recorder, _, error = await run_error(respond, CHAT)
        assert str(recorder.requests[0].url).endswith("/chat/completions")
        assert error.kind is ErrorKind.UNRECOGNISED, error.message
        assert "keys: " in error.message or "event types: " in error.message


async def test_api_chat_keeps_sonar_pro_and_sends_the_domain_filter() -> None:
    recorder = Recorder(stream_reply(sse([{**CHAT_BODY, "object": "chat.completion.chunk"}], names=False)))
    config = settings(api="chat", search_domain_filter=["a.org"])
    ctx = make_ctx("perplexity", recorder, credentials=CREDS, settings=config)
    _, response = await collect("perplexity", SearchRequest("q"), ctx)
    body = recorder.body(0)
    assert body["model"] == "sonar-pro" and body["search_domain_filter"] == ["a.org"]
    assert response.answer == "Hi [1]"


# --------------------------------------------------------------------------- usage in outputs and history


def test_the_reported_cost_reaches_the_json_output_and_survives_the_history_codec() -> None:
    response = SearchResponse(provider="perplexity", answer="a", usage=Usage(input_tokens=1, cost_usd=0.00119))
    outcome = ProviderOutcome(provider="perplexity", status=RunStatus.DONE, response=response)
    assert outcome.to_dict()["response"]["usage"]["cost_usd"] == 0.00119
    stored = codec.unpack(codec.pack([codec.outcome_record(outcome)]))
    assert codec._outcome(stored[0]).response.usage == Usage(input_tokens=1, cost_usd=0.00119)


# --------------------------------------------------------------------------- against the fake


@pytest.fixture(scope="module")
def srv() -> Any:
    with FakeServer() as server:
        yield server


async def test_the_fake_agent_api_accepts_our_body_and_streams_cited_answers(srv: FakeServer) -> None:
    srv.reset()
    async with httpx.AsyncClient() as client:
        ctx = fake_ctx("perplexity", srv, client, sleep=no_wait)
        events, response = await collect(
            "perplexity", SearchRequest("python asyncio", recency="week", max_results=5), ctx
        )
    assert srv.last_request().path == "/perplexity/v1/agent"  # the fake refuses unknown fields: none were sent
    assert len([e for e in events if isinstance(e, AnswerDelta)]) > 30
    assert "[1]" in (response.answer or "") and len(response.citations) == 4
    assert all(c.url.startswith("https://") for c in response.citations)
    assert response.usage is not None and response.usage.cost_usd == 0.00761 and response.usage.search_requests == 1
    assert response.model == "perplexity/fake-sonar-agent" and response.notes == []
    assert response.search_queries == ["python asyncio", "asyncio event loop"]


async def test_the_fake_takes_a_mapped_sonar_id_and_serves_api_chat(srv: FakeServer) -> None:
    srv.reset()
    async with httpx.AsyncClient() as client:
        ctx = fake_ctx("perplexity", srv, client, sleep=no_wait)
        ctx.settings = ProviderSettings(base_url=ctx.settings.base_url, model="sonar-pro")
        _, mapped = await collect("perplexity", SearchRequest("q"), ctx)
        ctx.settings = ProviderSettings(base_url=ctx.settings.base_url, options={"api": "chat"})
        _, chatted = await collect("perplexity", SearchRequest("q"), ctx)
    assert mapped.answer and len(mapped.notes) == 1 and "preset 'low'" in mapped.notes[0]
    assert srv.requests_to("/perplexity/chat/completions") and chatted.answer and len(chatted.citations) == 4


async def test_the_fake_invalid_model_names_the_config_key(srv: FakeServer) -> None:
    srv.reset()
    srv.use("perplexity", "invalid_model")
    async with httpx.AsyncClient() as client:
        with pytest.raises(ProviderError) as info:
            await collect("perplexity", SearchRequest("q"), fake_ctx("perplexity", srv, client, sleep=no_wait))
    assert info.value.kind is ErrorKind.MODEL_NOT_FOUND and "[providers.perplexity] model" in info.value.message


# --------------------------------------------------------------------------- conformance: real payloads


def _real_json(name: str) -> Any:
    return json.loads(shared_fixture(f"perplexity/{name}").read_text(encoding="utf-8"))


def _real_lines() -> list[dict[str, Any]]:
    text = shared_fixture("perplexity/agent-web-search.chunks.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _real_stream() -> bytes:
    return sse(_real_lines())


TYPESCRIPT = "https://www.typescriptlang.org/"


async def test_real_agent_response_parses_exactly() -> None:
    body = _real_json("agent-web-search.json")
    _, events, response = await run(lambda request: httpx.Response(200, json=body), SearchRequest("q", max_results=10))
    message = next(item for item in body["output"] if item["type"] == "message")
    results = next(item for item in body["output"] if item["type"] == "search_results")["results"]
    assert response.answer == message["content"][0]["text"]
    assert response.answer.endswith("syntax for types.[7]")
    assert [(s.url, s.title) for s in response.sources] == [(r["url"], r["title"]) for r in results]
    assert len(response.sources) == 10
    assert [r["id"] for r in results] == list(range(1, 11))
    assert len(response.citations) == 10 and response.citations[6] == Citation(
        url=TYPESCRIPT, title="TypeScript: JavaScript With Syntax For Types.", cited_text=response.sources[6].snippet
    )
    assert [c.url for c in response.citations] == [r["url"] for r in results]  # citation n is result id n
    assert response.sources[0].published_text == "2006-11-28" and response.sources[1].published_text is None
    assert response.usage == Usage(
        input_tokens=3007, output_tokens=36, total_tokens=3043, search_requests=1, cost_usd=0.00119
    )
    assert response.model == "openai/gpt-6-luna"
    assert response.request_id == body["id"] and response.request_id.startswith("resp_")
    assert response.search_queries == [
        "Find the official TypeScript website and describe TypeScript in one sentence with a citation."
    ]
    assert response.notes == []


@pytest.mark.parametrize("split", [None, 7, 1])
async def test_real_agent_stream_arrives_token_by_token(split: int | None) -> None:
    lines = _real_lines()
    _, events, response = await run(stream_reply(_real_stream(), split), SearchRequest("q", max_results=10))
    deltas = [line["delta"] for line in lines if line["type"] == "response.output_text.delta"]
    done = next(line for line in lines if line["type"] == "response.output_text.done")
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == deltas  # one event per token
    assert len(deltas) > 30 and deltas[-3:] == [".[", "7", "]"]
    assert response.answer == "".join(deltas) == done["text"]
    assert len(response.citations) == 10 and response.citations[6].url == TYPESCRIPT  # "[7]" in the answer
    assert [s.url for s in response.sources] == [c.url for c in response.citations]
    completed = lines[-1]["response"]
    assert completed["model"] == "openai/gpt-6-luna" == response.model
    assert response.request_id == completed["id"]
    assert response.usage == Usage(
        input_tokens=completed["usage"]["input_tokens"],
        output_tokens=completed["usage"]["output_tokens"],
        total_tokens=completed["usage"]["total_tokens"],
        search_requests=1,
        cost_usd=completed["usage"]["cost"]["total_cost"],
    )
    # sources and queries arrive before the first token
    first_delta = next(i for i, e in enumerate(events) if isinstance(e, AnswerDelta))
    assert any(isinstance(e, SourcesFound) for e in events[:first_delta])
    assert any(isinstance(e, SearchQueries) for e in events[:first_delta])


async def test_real_401_body() -> None:
    body = _real_json("agent-error-401.json")
    _, _, error = await run_error(lambda request: httpx.Response(401, json=body))
    assert (
        error.kind is ErrorKind.AUTH
        and error.message == "Perplexity authorization failed (401). Check API key or base URL."
    )
    _, _, error = await run_error(stream_reply(sse([{"type": "error", **body}])))
    assert error.kind is ErrorKind.AUTH
    assert error.message == f"Perplexity API error (401): {body['error']['message']}"


async def test_real_agent_payloads_replayed_to_api_chat_are_unrecognised() -> None:
    body = _real_json("agent-web-search.json")
    for respond in (lambda request: httpx.Response(200, json=body), stream_reply(_real_stream())):
        _, _, error = await run_error(respond, CHAT)
        assert error.kind is ErrorKind.UNRECOGNISED, error.message
        assert error.message.startswith("Perplexity answered in a shape this version does not read")


async def test_real_chat_payloads_replayed_to_the_agent_api_are_unrecognised() -> None:
    whole = _real_json("chat_citations.json")
    text = shared_fixture("perplexity/chat_citations.chunks.jsonl").read_text(encoding="utf-8")
    chunks = [json.loads(line) for line in text.splitlines() if line.strip()]
    for respond in (lambda request: httpx.Response(200, json=whole), stream_reply(sse(chunks, names=False))):
        _, _, error = await run_error(respond)
        assert error.kind is ErrorKind.UNRECOGNISED, error.message


async def test_a_huge_result_id_is_a_source_but_not_a_citation_number() -> None:
    rows = [RESULTS[0], {**RESULTS[1], "id": 3_000_000}]
    _, _, response = await run(stream_reply(sse(stream_events("a [1]", results=rows))))
    assert [s.url for s in response.sources] == [RESULTS[0]["url"], RESULTS[1]["url"]]
    assert [c.url for c in response.citations] == [RESULTS[0]["url"]]
