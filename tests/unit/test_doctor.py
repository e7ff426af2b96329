"""``websearch-tui doctor`` and the shared classification of a probe's outcome (also the settings Test).

The command runs against the loopback fake (``tests/fake_providers``): each provider named is
pointed at it through ``base_url`` and a fault is put on its search call; nothing reaches the network.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fake_providers import FAKE_KEYS, FakeServer, error_response
from tests.fake_providers import faults as payload
from tests.fake_providers.routes import is_search_call, search_route
from tests.helpers import closed_port_url
from websearch_tui.cli.main import main
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ErrorKind, ProviderError, missing_key_message
from websearch_tui.core.models import SearchResponse, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.engine.doctor import (
    Check,
    classify_error,
    classify_outcome,
    to_json,
    to_text,
)
from websearch_tui.engine.engine import Engine
from websearch_tui.providers.transport import http
from websearch_tui.settings.config import load_config
from websearch_tui.tui.settings.probe_section import describe_outcome

# --------------------------------------------------------------------------- the classification


@pytest.mark.parametrize(
    ("provider", "kind", "status", "message", "retry_after", "code", "hint"),
    [
        ("brave", ErrorKind.AUTH, 401, "Brave authorization failed (401).", None, "key_rejected", "keys set brave"),
        ("tavily", ErrorKind.AUTH, 403, "forbidden", None, "key_rejected", "keys set tavily (TAVILY_API_KEY in"),
        ("codex", ErrorKind.AUTH, 401, "expired", None, "key_rejected", "Log in again"),
        (
            "gemini",
            ErrorKind.MODEL_NOT_FOUND,
            404,
            "Gemini: model 'x' is not available (404).",
            None,
            "model_not_found",
            "[providers.gemini] model",
        ),
        (
            "openai",
            ErrorKind.MODEL_NOT_FOUND,
            400,
            "OpenAI: model 'gpt-9' is not available (400).",
            None,
            "model_not_found",
            "[providers.openai] model",
        ),
        # the adapters recognise their own "no such model" answers: other words about a model are not it
        (
            "anthropic",
            ErrorKind.NOT_FOUND,
            404,
            "Anthropic web search returned 404 (model or endpoint not found)",
            None,
            "endpoint_gone",
            "base_url",
        ),
        ("anthropic", ErrorKind.BAD_REQUEST, 400, "The model does not support tools", None, "bad_request", "options"),
        ("brave", ErrorKind.NOT_FOUND, 404, "model 'x' is not available", None, "endpoint_gone", "base_url"),
        ("gemini", ErrorKind.NOT_FOUND, 404, "Gemini API error (404): Not Found", None, "endpoint_gone", "base_url"),
        ("tavily", ErrorKind.DEPRECATED, 410, "Gone", None, "endpoint_gone", "[providers.tavily] base_url"),
        ("brave", ErrorKind.RATE_LIMIT, 429, "slow down", 20.0, "rate_limited", "Wait 20 s"),
        ("brave", ErrorKind.RATE_LIMIT, 429, "slow down", 0.2, "rate_limited", "Wait 1 s"),
        ("brave", ErrorKind.RATE_LIMIT, 429, "slow down", 400.0, "rate_limited", "Wait 7 min"),
        ("brave", ErrorKind.RATE_LIMIT, 429, "slow down", 90000.0, "rate_limited", "more than an hour"),
        ("brave", ErrorKind.RATE_LIMIT, 429, "slow down", None, "rate_limited", "Wait a minute"),
        ("perplexity", ErrorKind.UNRECOGNISED, 200, "answered in a shape", None, "api_changed", "Update websearch-tui"),
        ("brave", ErrorKind.NETWORK, None, "could not connect", None, "network", "DNS, proxy and TLS"),
        ("brave", ErrorKind.TIMEOUT, None, "did not finish within 2 s.", None, "network", "[search] timeout"),
        (
            "brave",
            ErrorKind.CONFIG,
            None,
            missing_key_message("Brave", "BRAVE_API_KEY"),
            None,
            "no_key",
            "keys set brave",
        ),
        ("searxng", ErrorKind.CONFIG, None, "no base_url configured", None, "config", "[providers.searxng] base_url"),
        ("codex", ErrorKind.CONFIG, None, "no login", None, "config", "Log in"),
        ("tavily", ErrorKind.QUOTA, 402, "Payment Required", None, "quota", "billing"),
        ("brave", ErrorKind.SERVER, 503, "unavailable", None, "server_error", "try again later"),
        ("brave", ErrorKind.BAD_REQUEST, 400, "Bad Request", None, "bad_request", "[providers.brave]"),
        ("brave", ErrorKind.PROTOCOL, 200, "text/html", None, "protocol", "base_url"),
        ("brave", ErrorKind.EMPTY, 204, "no content", None, "no_results", "[providers.brave]"),
    ],
)
def test_classify_error(
    provider: str,
    kind: ErrorKind,
    status: int | None,
    message: str,
    retry_after: float | None,
    code: str,
    hint: str,
) -> None:
    diagnosis = classify_error(ProviderError(provider, kind, message, status=status, retry_after=retry_after))
    assert diagnosis.code == code
    assert hint in diagnosis.hint
    assert diagnosis.ok is False


def _outcome(status: RunStatus, error: ProviderError | None = None, sources: int = 0) -> ProviderOutcome:
    response = SearchResponse(provider="brave")
    response.sources = [Source(f"https://example.org/{n}", f"Result {n}") for n in range(sources)]
    return ProviderOutcome("brave", status, response, error, elapsed_ms=420)


def test_classify_outcome_ok_empty_and_cancelled() -> None:
    assert classify_outcome(_outcome(RunStatus.DONE, sources=1)).code == "ok"
    assert classify_outcome(_outcome(RunStatus.EMPTY)).code == "no_results"
    assert classify_outcome(_outcome(RunStatus.CANCELLED)).code == "cancelled"
    failed = _outcome(RunStatus.FAILED, ProviderError("brave", ErrorKind.AUTH, "no", status=401))
    assert classify_outcome(failed).code == "key_rejected"


def test_settings_test_line_shows_the_class_and_hint() -> None:
    error = ProviderError("brave", ErrorKind.AUTH, "Brave Search authorization failed (401).", status=401)
    text, ok = describe_outcome(_outcome(RunStatus.FAILED, error))
    first, second = text.split("\n")
    assert ok is False
    assert first == "Failed (auth): Brave Search authorization failed (401)."
    assert second == f"Key rejected: {classify_error(error).hint}"
    assert second.startswith("Key rejected: Check the key: websearch-tui keys set brave")
    text, ok = describe_outcome(_outcome(RunStatus.EMPTY))
    assert ok is False and text.split("\n")[1].startswith("No results: It answered in its usual shape")
    assert describe_outcome(_outcome(RunStatus.DONE, sources=1)) == ("OK 0.42 s · 1 source", True)


def test_text_and_json_reports() -> None:
    passed = Check("brave", "Brave Search", classify_outcome(_outcome(RunStatus.DONE)), latency_ms=412, results=1)
    error = ProviderError("tavily", ErrorKind.RATE_LIMIT, "Tavily API error (429):\nslow down", retry_after=20.0)
    failed = Check(
        "tavily", "Tavily", classify_error(error), latency_ms=9, message=error.message, error_kind="rate_limit"
    )
    lines = to_text([passed, failed]).split("\n")
    assert lines == [
        "brave   OK            412 ms, 1 result",
        "tavily  rate limited  Tavily API error (429): slow down -> Wait 20 s, then try again.",
        "1 of 2 providers passed.",
    ]
    document = json.loads(to_json([passed, failed]))
    assert (document["ok"], document["passed"], document["checked"]) == (False, 1, 2)
    assert document["providers"][1]["class"] == "rate_limited"
    assert document["providers"][1]["class_label"] == "rate limited"


# --------------------------------------------------------------------------- the command over the fake


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def fake_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake's keys exported; retries after a failed connection or a 5xx wait no time."""
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(http, "backoff_delay", lambda attempt, rng: 0.0)


def write_config(server: FakeServer, tmp_path: Path, edit: Callable[[str], str] = lambda text: text) -> Path:
    """The fake's config (every provider at the fake, 10 s deadline), changed by ``edit``."""
    path = tmp_path / "config.toml"
    path.write_text(edit(server.config_toml(timeout=10)), encoding="utf-8")
    return path


def doctor(capsys: pytest.CaptureFixture[str], config: Path, *argv: str) -> tuple[int, str, str]:
    """Run ``doctor --config config *argv``: exit code, stdout, stderr."""
    code = main(["doctor", "--config", str(config), *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def searches(server: FakeServer, provider: str) -> int:
    """How many search calls of ``provider`` reached the fake."""
    return sum(1 for request in server.requests_to(search_route(provider)[1]) if is_search_call(request))


@dataclass(frozen=True)
class Fault:
    """One failure class: what to break, which provider to check, what ``doctor --format json`` says."""

    provider: str
    code: str
    label: str
    message: str
    hint: str
    breaks: Callable[[FakeServer], None] = lambda server: None
    edit: Callable[[FakeServer, str], str] = lambda server, text: text
    argv: tuple[str, ...] = ()
    http_status: int | None = None


def _gemini_model_gone(server: FakeServer) -> None:
    message = "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent."
    server.set(*search_route("gemini"), error_response("/gemini", 404, message=message))


def _brave_refused(server: FakeServer, text: str) -> str:
    return text.replace(f'"{server.url("brave")}"', f'"{closed_port_url()}"')


def _brave_disabled(server: FakeServer, text: str) -> str:
    return text.replace("[providers.brave]\nenabled = true", "[providers.brave]\nenabled = false")


FAULTS = {
    "key rejected": Fault(
        "brave", "key_rejected", "key rejected", "authorization failed (401)", "keys set brave",
        lambda s: s.fail("brave", 401), http_status=401,
    ),
    "model not found (404)": Fault(
        "gemini",
        "model_not_found",
        "model not found",
        f"Gemini: model '{SPECS['gemini'].default_model}' is not available (404)",
        "[providers.gemini] model",
        _gemini_model_gone, http_status=404,
    ),
    "model not found (400)": Fault(
        "openai",
        "model_not_found",
        "model not found",
        f"OpenAI: model '{SPECS['openai'].default_model}' is not available (400)",
        "[providers.openai] model",
        lambda s: s.fail(
            "openai", 400, body={"error": {"message": "The model `gpt-9` does not exist.", "code": "model_not_found"}}
        ),
        http_status=400,
    ),
    "endpoint gone (404)": Fault(
        "tavily", "endpoint_gone", "endpoint gone", "(404)", "[providers.tavily] base_url",
        lambda s: s.fail("tavily", 404), http_status=404,
    ),
    "endpoint gone (404, model provider)": Fault(
        "gemini", "endpoint_gone", "endpoint gone", "(404", "[providers.gemini] base_url",
        lambda s: s.fail("gemini", 404), http_status=404,
    ),
    "endpoint gone (410)": Fault(
        "perplexity", "endpoint_gone", "endpoint gone", "(410)", "the API may have moved",
        lambda s: s.fail("perplexity", 410), http_status=410,
    ),
    "rate limited": Fault(
        "brave", "rate_limited", "rate limited", "(429)", "Wait 20 s",
        lambda s: s.fail("brave", 429, retry_after=20), argv=("--timeout", "5"), http_status=429,
    ),
    "API changed": Fault(
        "brave", "api_changed", "API changed", "answered in a shape this version does not read", "Update websearch-tui",
        lambda s: s.wrap("brave", payload.foreign_json), http_status=200,
    ),
    "network (refused)": Fault(
        "brave", "network", "network", "could not connect", "DNS", edit=_brave_refused,
    ),
    "network (timeout)": Fault(
        "brave", "network", "network", "did not finish within 0.5 s", "[search] timeout",
        lambda s: s.hang("brave", 30), argv=("--timeout", "0.5"),
    ),
    "server error": Fault(
        "brave", "server_error", "server error", "(503)", "try again later",
        lambda s: s.fail("brave", 503), http_status=503,
    ),
    "quota": Fault(
        "tavily", "quota", "quota used up", "(402)", "billing", lambda s: s.fail("tavily", 402), http_status=402,
    ),
    "bad request": Fault(
        "brave", "bad_request", "bad request", "(400)", "[providers.brave]",
        lambda s: s.fail("brave", 400), http_status=400,
    ),
    "protocol": Fault(
        "perplexity", "protocol", "protocol error", "text/html", "base_url",
        lambda s: s.html_page("perplexity", 200), http_status=200,
    ),
    "disabled": Fault(
        "brave", "disabled", "disabled", "disabled in the config", "[providers.brave] enabled = true",
        edit=_brave_disabled,
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(FAULTS))
def test_every_failure_class(name: str, server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fault = FAULTS[name]
    fault.breaks(server)
    config = write_config(server, tmp_path, lambda text: fault.edit(server, text))
    code, out, err = doctor(capsys, config, "--format", "json", fault.provider, *fault.argv)
    assert code == 1, err
    document = json.loads(out)
    assert (document["ok"], document["passed"], document["checked"]) == (False, 0, 1)
    (check,) = document["providers"]
    assert check["provider"] == fault.provider
    assert check["label"] == SPECS[fault.provider].label
    assert (check["ok"], check["class"], check["class_label"]) == (False, fault.code, fault.label)
    assert fault.message in check["message"]
    assert fault.hint in check["hint"]
    assert check["http_status"] == fault.http_status
    if fault.code == "rate_limited":
        assert check["retry_after_s"] == 20
    if fault.code == "disabled":
        assert check["latency_ms"] is None and searches(server, "brave") == 0
    else:
        assert isinstance(check["latency_ms"], int)


def test_missing_key_is_no_key_without_a_request(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY")
    code, out, _ = doctor(capsys, write_config(server, tmp_path), "tavily")
    assert code == 1
    first, summary = out.rstrip("\n").split("\n")
    assert first.startswith("tavily  no key  Tavily: no API key. Set TAVILY_API_KEY")
    assert first.endswith("-> Add the key: websearch-tui keys set tavily (or export TAVILY_API_KEY).")
    assert summary == "0 of 1 provider passed."
    assert searches(server, "tavily") == 0


def test_all_pass_exit_0_one_line_each(server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = doctor(capsys, write_config(server, tmp_path), "brave", "tavily", "exa")
    assert (code, err) == (0, "")
    lines = out.rstrip("\n").split("\n")
    assert len(lines) == 4
    for line, provider in zip(lines, ("brave", "tavily", "exa"), strict=False):
        assert re.fullmatch(rf"{provider} +OK +\d+ ms, 1 result", line), line
    assert lines[-1] == "3 of 3 providers passed."
    for provider in ("brave", "tavily", "exa"):
        assert searches(server, provider) == 1
        (request,) = [r for r in server.requests_to(search_route(provider)[1]) if is_search_call(r)]
        assert request.query.get("q") == "test" or '"test"' in request.text  # the probe's query


def test_one_failure_among_passes_exits_1(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.fail("tavily", 401)
    code, out, _ = doctor(capsys, write_config(server, tmp_path), "--format", "json", "brave", "tavily")
    assert code == 1
    document = json.loads(out)
    assert [(c["provider"], c["ok"], c["class"]) for c in document["providers"]] == [
        ("brave", True, "ok"),
        ("tavily", False, "key_rejected"),
    ]
    assert document["providers"][0]["results"] == 1 and document["providers"][0]["message"] == ""


def test_without_names_it_checks_the_ready_providers(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in FAKE_KEYS:
        if name != "BRAVE_API_KEY":
            monkeypatch.delenv(name)
    config = write_config(server, tmp_path)
    assert main(["providers", "--config", str(config), "--format", "json"]) == 0
    ready = [row["id"] for row in json.loads(capsys.readouterr().out) if row["status"] in ("ready", "keyless")]
    assert "brave" in ready and "tavily" not in ready
    code, out, err = doctor(capsys, config, "--format", "json")
    assert [check["provider"] for check in json.loads(out)["providers"]] == ready
    assert code == 0, out + err
    assert searches(server, "tavily") == 0


def test_nothing_ready_exits_1(server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def disable_all(text: str) -> str:
        return text.replace("enabled = true", "enabled = false")

    code, out, err = doctor(capsys, write_config(server, tmp_path, disable_all))
    assert (code, out) == (1, "")
    assert err.startswith("websearch-tui: error: no provider is ready to check")
    assert server.requests == []


def test_providers_run_concurrently(server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for provider in ("brave", "tavily", "exa"):
        server.hang(provider, 1.0)
    started = time.monotonic()
    code, _, _ = doctor(capsys, write_config(server, tmp_path), "brave", "tavily", "exa")
    assert code == 0
    assert time.monotonic() - started < 2.5  # one after the other: more than 3 s


def test_unknown_provider_exits_2_listing_the_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "brave", "bravo"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unknown provider 'bravo' (did you mean 'brave'?); valid ids: " in err
    assert all(provider in err for provider in SPECS)
    assert main(["doctor", "zzz"]) == 2
    assert "unknown provider 'zzz'; known: ddgs, exa" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--timeout", "0"], ["--timeout", "soon"], ["--format", "markdown"]])
def test_bad_options_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", *argv]) == 2
    assert capsys.readouterr().err.startswith("websearch-tui: error: ")


def test_bad_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[search]\ntimeout = -1\n")
    assert main(["doctor", "--config", str(path)]) == 2
    assert str(path) in capsys.readouterr().err


def test_records_no_history(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    history = tmp_path / "doctor-history.sqlite3"
    monkeypatch.setenv("WEBSEARCH_TUI_HISTORY", str(history))
    code, _, _ = doctor(capsys, write_config(server, tmp_path), "brave")
    assert code == 0
    assert not history.exists()


def test_secrets_and_escapes_never_reach_the_output(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.fail("tavily", 400, echo_key=True)
    hostile = "bad \x1b]0;pwned\x07\x1b[31mred\x1b[0m\nsecond line"
    server.set(*search_route("brave"), error_response("/brave", 400, message=hostile))
    config = write_config(server, tmp_path)
    for output_format in ("text", "json"):
        code, out, err = doctor(capsys, config, "--format", output_format, "tavily", "brave")
        assert code == 1
        assert FAKE_KEYS["TAVILY_API_KEY"] not in out + err
        assert "\x1b" not in out and "\x07" not in out
    assert "***" in out
    text_code, text, _ = doctor(capsys, config, "tavily", "brave")
    assert text_code == 1 and len(text.rstrip("\n").split("\n")) == 3  # one line each, and the summary
    assert "pwned" not in text and "bad red second line" in text


async def test_the_settings_test_and_doctor_agree(server: FakeServer, tmp_path: Path) -> None:
    """The settings Test (Engine.probe + describe_outcome) words a failure with doctor's class and hint."""
    server.fail("brave", 429, retry_after=20)
    engine = Engine.from_config(load_config(write_config(server, tmp_path)))
    try:
        outcome = await engine.probe("brave", ProviderSettings(base_url=server.url("brave")), timeout=5)
    finally:
        await engine.aclose()
    diagnosis = classify_outcome(outcome)
    assert diagnosis.code == "rate_limited"
    text, ok = describe_outcome(outcome)
    assert not ok
    assert text.split("\n")[-1] == "Rate limited: Wait 20 s, then try again."
