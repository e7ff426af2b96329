"""Knowing an API's answer (providers/transport/shape.py) and the shared HTTP layer's use of it.

A 2xx answer in which a parser's fields are missing must end ``unrecognised_response`` with a
message that names the provider, the content type and the names it got (never values), bounded and
free of terminal escapes; a known answer with nothing in it stays a genuine empty result.
"""

from __future__ import annotations

import httpx
import pytest

from tests.fake_providers import FakeResponse, FakeServer, sse_response
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.results import RunStatus
from websearch_tui.engine.engine import Engine
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.transport import http
from websearch_tui.providers.transport.shape import MAX_NAME_CHARS, MAX_NAMES, Shape, ShapeSeen, check, unrecognised
from websearch_tui.settings.config import parse_config

SHAPE = Shape.of("results", "answer", types=("done",), type_prefixes=("response.",))


@pytest.mark.parametrize(
    ("name", "payload", "known"),
    [
        ("json", {"results": []}, True),
        ("json", {"answer": None, "other": 1}, True),
        ("json", {"id": "x", "output": [], "usage": {}}, False),
        ("json", [1, 2], False),
        ("json", "text", False),
        ("json", None, False),
        ("message", {"type": "response.output_text.delta", "delta": "x"}, True),
        ("message", {"type": "done"}, True),
        ("done", {"anything": 1}, True),
        ("message", {"type": "progress"}, False),
        ("message", {"type": 5, "results_": []}, False),
    ],
)
def test_a_shape_knows_its_keys_types_and_prefixes(name: str, payload: object, known: bool) -> None:
    assert SHAPE.knows(name, payload) is known


def test_a_bare_list_is_known_only_where_the_api_sends_one() -> None:
    assert Shape.of("data", list_ok=True).knows("json", [{"url": "https://a.example"}])
    assert not Shape.of("data").knows("json", [])


def test_the_message_names_provider_content_type_and_keys_but_never_values() -> None:
    spec = SPECS["perplexity"]
    body = {"id": "secret-value-1", "object": "response", "output": [{"text": "hidden"}], "usage": {"cost": 1}}
    with pytest.raises(ProviderError) as info:
        check(spec, Shape.of("choices"), body, "application/json", 200)
    error = info.value
    assert error.kind is ErrorKind.UNRECOGNISED and error.status == 200
    assert error.message == (
        "Perplexity answered in a shape this version does not read (application/json; keys: id, object, output, "
        "usage). Its API may have changed; websearch-tui doctor perplexity checks it."
    )
    assert "secret-value-1" not in error.message and "hidden" not in error.message


def test_names_are_bounded_cut_and_cleaned_of_escapes() -> None:
    seen = ShapeSeen(content_type="application/json")
    hostile = {f"\x1b]0;pwned\x07key{i}" + "x" * 500: i for i in range(10_000)}
    seen.observe(None, "json", hostile)
    described = seen.describe()
    assert len(seen.keys) <= MAX_NAMES + 1
    assert described.endswith(", ...")
    assert "\x1b" not in described and "\x07" not in described
    assert all(len(name) <= MAX_NAME_CHARS for name in seen.keys)


def test_event_types_are_listed_before_keys() -> None:
    seen = ShapeSeen(content_type="text/event-stream")
    seen.observe(SHAPE, "progress", {"phase": "searching"})
    seen.observe(SHAPE, "message", {"type": "chunk", "piece": {}})
    assert not seen.known
    assert seen.describe() == "text/event-stream; event types: progress, chunk; keys: phase, type, piece"
    seen.observe(SHAPE, "message", {"type": "done"})
    assert seen.known


def test_a_description_of_our_own_words_is_used_as_it_is() -> None:
    error = unrecognised(SPECS["exa"], "MCP tool result: neither a results list nor result blocks")
    assert error.kind is ErrorKind.UNRECOGNISED
    assert "(MCP tool result: neither a results list nor result blocks)" in error.message


# --------------------------------------------------------------------------- through the HTTP layer


async def _send_json(server: FakeServer, response: FakeResponse, expect: Shape | None) -> object:
    server.set("GET", "/thing", response)
    async with httpx.AsyncClient() as client:
        ctx = ProviderContext(spec=SPECS["brave"], client=client)
        reply = await http.send(ctx, http.HttpRequest("GET", f"{server.base_url}/thing", expect=expect))
        return reply.json()


async def test_a_json_body_of_another_shape_fails_as_unrecognised() -> None:
    with FakeServer() as server:
        with pytest.raises(ProviderError) as info:
            await _send_json(server, FakeResponse(200, body={"envelope": 1, "items": []}), Shape.of("web"))
    assert info.value.kind is ErrorKind.UNRECOGNISED
    assert "(application/json; keys: envelope, items)" in info.value.message


async def test_an_event_stream_where_json_was_asked_for_names_its_event_types() -> None:
    stream = sse_response([("progress", {"pct": 1}), ("finish", {"type": "complete", "rows": []})])
    with FakeServer() as server:
        with pytest.raises(ProviderError) as info:
            await _send_json(server, stream, Shape.of("web"))
    assert info.value.kind is ErrorKind.UNRECOGNISED
    assert "text/event-stream; event types: progress, complete; keys: pct, type, rows" in info.value.message


async def test_without_an_expected_shape_any_json_is_returned() -> None:
    with FakeServer() as server:
        assert await _send_json(server, FakeResponse(200, body={"envelope": 1}), None) == {"envelope": 1}


async def _stream(server: FakeServer, response: FakeResponse, expect: Shape) -> list[tuple[str, object]]:
    server.set("POST", "/stream", response)
    async with httpx.AsyncClient() as client:
        ctx = ProviderContext(spec=SPECS["openai"], client=client)
        items = http.stream_sse(ctx, "POST", f"{server.base_url}/stream", json_body={}, expect=expect)
        return [item async for item in items]


async def test_a_stream_with_one_known_event_is_read_whole() -> None:
    events = [{"type": "keepalive"}, {"type": "response.completed", "response": {}}]
    with FakeServer() as server:
        got = await _stream(server, sse_response(events), SHAPE)
    assert [payload for _, payload in got] == events


async def test_a_stream_without_a_known_event_fails_at_its_end_after_yielding_what_came() -> None:
    got: list[object] = []
    with FakeServer() as server:
        server.set("POST", "/stream", sse_response([("tick", {"n": 1}), ("tick", {"n": 2})]))
        async with httpx.AsyncClient() as client:
            ctx = ProviderContext(spec=SPECS["openai"], client=client)
            with pytest.raises(ProviderError) as info:
                async for _, payload in http.stream_sse(ctx, "POST", f"{server.base_url}/stream", expect=SHAPE):
                    got.append(payload)
    assert got == [{"n": 1}, {"n": 2}]
    assert info.value.kind is ErrorKind.UNRECOGNISED
    assert "OpenAI answered in a shape this version does not read (text/event-stream; event types: tick" in (
        info.value.message
    )


# --------------------------------------------------------------------------- a genuine empty result


async def test_a_known_shape_with_nothing_in_it_ends_empty_with_a_note_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "fake-brave-key")
    with FakeServer() as server:
        server.set("GET", "/res/v1/web/search", FakeResponse(200, body={"type": "search"}))
        engine = Engine.from_config(parse_config({"providers": {"brave": {"base_url": server.base_url}}}))
        try:
            result = await engine.search(SearchRequest(query="nothing at all", providers=("brave",)))
        finally:
            await engine.aclose()
    outcome = result.outcomes[0]
    assert outcome.status is RunStatus.EMPTY and outcome.error is None
    assert outcome.response.notes == [
        "Brave Search answered in its usual shape with no answer and no sources for this query."
    ]


def test_the_default_event_name_and_an_empty_error_say_nothing() -> None:
    shape = Shape.of("choices", "error", types=("message",))
    assert not shape.knows("message", {"id": "x", "model": "m"})  # an unnamed SSE event
    assert not shape.knows("json", {"id": "x", "error": None})  # "error": null rides on many answers
    assert shape.knows("json", {"error": {"message": "bad key"}})
    assert shape.knows("message", {"type": "message", "content": []})  # a payload's own type still counts


def test_a_secret_used_as_a_key_is_redacted_before_it_is_cut() -> None:
    secret = "sk-live-" + "a1b2c3d4" * 6  # longer than MAX_NAME_CHARS
    register_secret(secret)
    seen = ShapeSeen(content_type="application/json")
    seen.observe(None, "json", {secret: 1, "output": []})
    described = seen.describe()
    assert secret[:12] not in described and "output" in described
