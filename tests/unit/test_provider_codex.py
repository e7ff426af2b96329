"""Codex provider: the Codex CLI login (CODEX_HOME in a tmp dir, never ~/.codex), the endpoint rule,
request building, the no-search failure, the three error nestings, fixtures and the fake server."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fake_providers import fake_codex as fake
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
from websearch_tui.core.errors import ErrorKind
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.helpers import codex_auth

ACCOUNT = "acct-test-0001"
TRUSTED = ProviderSettings(base_url="http://127.0.0.1:9/backend-api", options={"trust_base_url": True})


def jwt(claims: dict[str, Any]) -> str:
    def b64(obj: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{b64({'alg': 'none'})}.{b64(claims)}.sig"


TOKEN = jwt({"exp": time.time() + 3600, "https://api.openai.com/auth": {"chatgpt_account_id": "from-claim"}})


def write_login(home: Path, **tokens: Any) -> Path:
    values = {"id_token": "id", "access_token": TOKEN, "refresh_token": "refresh-secret", "account_id": ACCOUNT}
    values.update(tokens)
    values = {k: v for k, v in values.items() if v is not None}
    home.mkdir(parents=True, exist_ok=True)
    path = home / "auth.json"
    path.write_text(json.dumps({"OPENAI_API_KEY": None, "tokens": values, "last_refresh": "2026-11-20T10:00:00Z"}))
    return path


@pytest.fixture(autouse=True)
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test: CODEX_HOME in a tmp dir holding a valid fake login (never the real ~/.codex)."""
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    write_login(home)
    return home


async def run_codex(respond: Any, request: SearchRequest | None = None, settings: ProviderSettings | None = None):
    return await run("codex", respond, request, settings=settings or ProviderSettings())


async def fail_codex(respond: Any, request: SearchRequest | None = None, settings: ProviderSettings | None = None):
    return await run_until_error("codex", respond, request, settings=settings or ProviderSettings())


# --------------------------------------------------------------------------- login


def test_login_is_read_from_codex_home(codex_home: Path) -> None:
    login = codex_auth.read_login()
    assert login.access_token == TOKEN and login.account_id == ACCOUNT
    assert TOKEN not in repr(login)
    state = codex_auth.login_state()
    assert state.ready and state.path == codex_home / "auth.json"
    assert TOKEN not in state.reason


def test_account_id_falls_back_to_the_jwt_claim(codex_home: Path) -> None:
    write_login(codex_home, account_id=None)
    assert codex_auth.read_login().account_id == "from-claim"


@pytest.mark.parametrize(
    ("content", "kind", "words"),
    [
        (None, ErrorKind.CONFIG, "codex login"),
        ("{not json", ErrorKind.CONFIG, "could not be read"),
        ({"OPENAI_API_KEY": "sk-x", "tokens": None}, ErrorKind.CONFIG, "use the openai provider"),
        ({"tokens": {"access_token": jwt({"exp": 1000})}}, ErrorKind.AUTH, "expired"),
    ],
)
async def test_unusable_login(codex_home: Path, content: Any, kind: ErrorKind, words: str) -> None:
    path = codex_home / "auth.json"
    if content is None:
        path.unlink()
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    recorder, _, error = await fail_codex(respond_sse(simple_stream("x")))
    assert error.kind is kind and words in error.message and error.message.startswith("Codex: ")
    assert recorder.requests == []
    assert not codex_auth.login_state().ready


def test_codex_home_defaults_to_home_dot_codex(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CODEX_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert codex_auth.auth_path() == tmp_path / ".codex" / "auth.json"


def test_endpoint_rule() -> None:
    default = "https://chatgpt.com/backend-api"
    assert codex_auth.endpoint_allowed("https://chatgpt.com/backend-api/codex/responses", default, False)
    assert not codex_auth.endpoint_allowed("http://chatgpt.com/backend-api/codex/responses", default, False)
    assert not codex_auth.endpoint_allowed("https://proxy.example/codex/responses", default, False)
    assert not codex_auth.endpoint_allowed("https://chatgpt.com.evil.test/codex/responses", default, False)
    assert codex_auth.endpoint_allowed("http://127.0.0.1:9/codex/responses", default, True)


async def test_untrusted_base_url_never_gets_the_token() -> None:
    settings = ProviderSettings(base_url="https://proxy.example/backend-api")
    recorder, _, error = await fail_codex(respond_sse(simple_stream("x")), settings=settings)
    assert error.kind is ErrorKind.CONFIG
    assert "proxy.example" in error.message and "trust_base_url" in error.message
    assert recorder.requests == []


# --------------------------------------------------------------------------- request


async def test_request_headers_and_body() -> None:
    recorder, _, response = await run_codex(respond_sse(simple_stream("hi")), SearchRequest("q", recency="day"))
    request = recorder.requests[0]
    assert str(request.url) == "https://chatgpt.com/backend-api/codex/responses"
    headers = request.headers
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["CHATGPT-ACCOUNT-ID"] == ACCOUNT
    assert headers["openai-beta"] == "responses=experimental"
    assert headers["originator"] and headers["user-agent"].startswith("websearch-tui/")
    assert "text/event-stream" in headers["accept"]
    body = recorder.body()
    assert body["model"] == "gpt-6-luna"
    assert body["input"][0]["type"] == "message" and body["input"][0]["role"] == "user"
    assert "past 24 hours" in body["input"][0]["content"][0]["text"]
    assert body["tools"] == [{"type": "web_search", "search_context_size": "high"}]
    assert body["tool_choice"] == {"type": "web_search"}
    assert body["parallel_tool_calls"] is True and body["store"] is False and body["stream"] is True
    assert body["instructions"]
    assert response.auth_mode == "oauth"


async def test_no_max_tokens_or_temperature_but_a_note() -> None:
    recorder, _, response = await run_codex(
        respond_sse(simple_stream("hi")), SearchRequest("q", max_tokens=10, temperature=0.5), TRUSTED
    )
    body = recorder.body()
    assert "max_output_tokens" not in body and "temperature" not in body
    assert any("max_tokens and temperature" in note for note in response.notes)
    assert str(recorder.requests[0].url) == "http://127.0.0.1:9/backend-api/codex/responses"


async def test_no_account_header_without_an_account(codex_home: Path) -> None:
    write_login(codex_home, account_id=None, access_token=jwt({"exp": time.time() + 60}))
    recorder, _, _ = await run_codex(respond_sse(simple_stream("hi")))
    assert "chatgpt-account-id" not in recorder.requests[0].headers


# --------------------------------------------------------------------------- stream


async def test_streamed_answer_and_metadata() -> None:
    _, events, response = await run_codex(respond_sse(pieces(simple_stream("a", "é", "c"), 3)))
    assert answer_of(events) == "aéc"
    assert response.search_queries == ["asyncio docs"]
    assert response.usage.total_tokens == 8


async def test_completion_without_search_fails_after_the_answer() -> None:
    _, events, error = await fail_codex(respond_sse(simple_stream("stale", " answer", search=False)))
    assert answer_of(events) == "stale answer"
    assert error.kind is ErrorKind.SERVER and error.status == 502
    assert error.message == "Codex returned a completion without running web search"


async def test_search_events_alone_prove_a_search() -> None:
    extra = [{"type": "response.web_search_call.searching", "item_id": "ws_1"}]
    _, _, response = await run_codex(respond_sse(simple_stream("ok", search=False, extra=extra)))
    assert response.answer == "ok"


async def test_markdown_links_become_citations_when_annotations_are_empty() -> None:
    text = "Use asyncio.run ([docs.python.org](https://docs.python.org/3/library/asyncio.html?utm_source=openai))."
    _, _, response = await run_codex(respond_sse(simple_stream(text)))
    assert [(c.url, c.title, c.cited_text) for c in response.citations] == [
        ("https://docs.python.org/3/library/asyncio.html", "docs.python.org", "Use asyncio.run")
    ]
    assert "https://docs.python.org/3/library/asyncio.html" in [s.url for s in response.sources]


async def test_links_are_read_from_the_answer_as_shown() -> None:
    """An escape sequence inside a bare URL neither cuts it short nor ends up in the citation: the
    links are read from the sanitized answer, whose text the pane shows."""
    text = "Read https://docs.python.org/3/\x1b[1mlibrary\x1b[0m/asyncio.html today."
    _, _, response = await run_codex(respond_sse(simple_stream(text)))
    assert response.answer == "Read https://docs.python.org/3/library/asyncio.html today."
    assert [c.url for c in response.citations] == ["https://docs.python.org/3/library/asyncio.html"]
    assert [c.cited_text for c in response.citations] == ["Read"]


async def test_response_done_event_also_ends_the_stream() -> None:
    data = simple_stream("x", final=False) + frame(
        [{"type": "response.done", "response": {"id": "r9", "status": "completed"}}]
    )
    _, _, response = await run_codex(respond_sse(data))
    assert response.request_id == "r9"


async def test_stream_without_final_event() -> None:
    _, events, error = await fail_codex(respond_sse(simple_stream("a", final=False)))
    assert answer_of(events) == "a"
    assert error.kind is ErrorKind.PROTOCOL and error.message == "Codex stream ended before it finished"


@pytest.mark.parametrize(
    ("payload", "kind", "message"),
    [
        (
            {"type": "error", "code": "rate_limit_exceeded", "message": "slow down"},
            ErrorKind.RATE_LIMIT,
            "Codex error (rate_limit_exceeded): slow down",
        ),
        (
            {"type": "error", "error": {"code": "unsupported_region", "message": "not here"}},
            ErrorKind.SERVER,
            "Codex error (unsupported_region): not here",
        ),
        (
            {
                "type": "response.failed",
                "response": {"error": {"code": "usage_limit_reached", "message": "plan quota hit"}},
            },
            ErrorKind.QUOTA,
            "Codex error (usage_limit_reached): plan quota hit",
        ),
        (
            {"type": "error", "error": {"code": "token_expired", "message": "Unauthorized"}},
            ErrorKind.AUTH,
            "Codex error (token_expired): Unauthorized",
        ),
    ],
)
async def test_three_error_nestings(payload: dict[str, Any], kind: ErrorKind, message: str) -> None:
    _, events, error = await fail_codex(respond_sse(simple_stream("part", final=False, extra=[payload])))
    assert answer_of(events) == "part"
    assert error.kind is kind and error.message.startswith(message)
    assert ("codex login" in error.message) == (kind is ErrorKind.AUTH)


async def test_401_adds_the_refresh_hint_and_hides_the_token() -> None:
    _, _, error = await fail_codex(respond_json({"error": {"message": f"bad token {TOKEN}"}}, 401))
    assert error.kind is ErrorKind.AUTH
    assert error.message.startswith("Codex authorization failed (401).")
    assert "codex login" in error.message and TOKEN not in error.message


async def test_http_error_body_is_worded() -> None:
    detail = {"detail": "Unsupported parameter: 'max_output_tokens'."}
    _, _, error = await fail_codex(respond_json(detail, 400))
    assert error.kind is ErrorKind.BAD_REQUEST
    assert error.message == f"Codex API error (400): {detail['detail']}"


CODEX_MODEL_GONE = (
    "Codex: model 'gpt-6-luna' is not available (400). Set [providers.codex] model, or run websearch-tui doctor codex"
)


@pytest.mark.parametrize(
    "body",
    [
        {"detail": "The 'gpt-6-luna' model is not supported when using Codex with a ChatGPT account."},
        {
            "type": "error",
            "status": 400,
            "error": {
                "type": "invalid_request_error",
                "message": "The 'gpt-6-luna' model is not supported when using Codex with a ChatGPT account.",
            },
        },
        {"error": {"code": "model_not_found", "message": "The requested model 'gpt-6-luna' does not exist."}},
    ],
)
async def test_model_the_backend_refuses_names_the_config_key(body: dict[str, Any]) -> None:
    _, _, error = await fail_codex(respond_json(body, 400))
    assert error.kind is ErrorKind.MODEL_NOT_FOUND and error.status == 400
    assert error.message == CODEX_MODEL_GONE


# --------------------------------------------------------------------------- conformance and end to end


async def test_replay_openai_stream_fixture_through_codex() -> None:
    lines = [
        line
        for line in shared_fixture("openai/responses_web_search_vercel.chunks.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    ]
    _, _, response = await run_codex(respond_sse(frame_lines(lines)))
    assert len(response.citations) == 12
    assert response.auth_mode == "oauth"
    assert response.model == "gpt-5-mini-2025-08-07"


async def test_end_to_end_against_fake_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", fake.FAKE_KEYS["CODEX_HOME"])
    response, requests = await fake_server_run("codex", fake)
    assert response.answer.startswith("## Python asyncio")
    assert len(response.citations) == 3
    assert response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"
    assert requests[0].headers["chatgpt-account-id"] == "fake-codex-account-0001"


@pytest.mark.parametrize("variant", fake.VARIANTS)
async def test_fake_variants(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from websearch_tui.core.errors import ProviderError

    monkeypatch.setenv("CODEX_HOME", fake.FAKE_KEYS["CODEX_HOME"])
    try:
        response, _ = await fake_server_run("codex", fake, variant)
    except ProviderError as error:
        assert "Codex" in error.message
        assert variant not in ("default", "split", "no_annotations")
    else:
        assert len(response.citations) == 3 and response.answer
