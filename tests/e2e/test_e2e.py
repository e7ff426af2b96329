"""End to end over real HTTP: the engine and the CLI against the loopback fake server."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fake_providers import FAKE_KEYS, PROVIDERS, FakeRequest, FakeResponse, FakeServer
from tests.fake_providers.routes import is_search_call, search_route
from tests.helpers import CHILD_PATH
from websearch_tui.core.models import AnswerDelta, SearchRequest
from websearch_tui.core.results import ProviderUpdate, RunStatus
from websearch_tui.engine.engine import Engine
from websearch_tui.providers.transport.http import client_pools
from websearch_tui.settings.config import load_config

QUERY = "python asyncio tutorial"


@pytest.fixture
def fake_server():
    with FakeServer() as server:
        yield server


@pytest.fixture
def fake_config(fake_server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config pointing every provider at the fake server, with the fake keys exported."""
    path = tmp_path / "config.toml"
    fake_server.write_config(path)
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    return path


async def test_every_provider_returns_sources(fake_config: Path) -> None:
    engine = Engine.from_config(load_config(fake_config))
    try:
        result = await engine.search(SearchRequest(query=QUERY, providers=PROVIDERS, max_results=5))
    finally:
        await engine.aclose()
    by_id = {o.provider: o for o in result.outcomes}
    for provider in PROVIDERS:
        outcome = by_id[provider]
        assert outcome.status is RunStatus.DONE, (provider, outcome.error)
        assert outcome.response.sources, provider
        # the fakes link the real sites (Hacker News's story 1 is http://ycombinator.com, as recorded)
        assert all(s.url.startswith(("https://", "http://")) for s in outcome.response.sources)
        assert not any("127.0.0.1" in s.url for s in outcome.response.sources)
    assert by_id["exa"].response.auth_mode == "keyless"
    assert by_id["parallel"].response.auth_mode == "keyless"
    assert by_id["brave"].response.request_id == "fake-brave-req-0001"
    assert "<strong>" not in by_id["brave"].response.sources[0].snippet
    assert by_id["ddgs"].response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"
    perplexity = by_id["perplexity"].response
    assert perplexity.answer and "[1]" in perplexity.answer
    assert len(perplexity.citations) == 4


async def test_providers_run_concurrently_over_http(fake_server: FakeServer, fake_config: Path) -> None:
    """Each search call is held until all seven have arrived; a sequential engine would time out."""
    arrived: set[str] = set()
    all_here = asyncio.Event()  # lives on the server's loop, created lazily there

    def gate(provider: str, inner):
        async def handler(request: FakeRequest) -> FakeResponse:
            if is_search_call(request):
                arrived.add(provider)
                if len(arrived) == len(PROVIDERS):
                    all_here.set()
                try:
                    await asyncio.wait_for(all_here.wait(), 8)
                except asyncio.TimeoutError:
                    return FakeResponse(status=500, body={"error": "providers were not concurrent"})
            response = inner(request) if callable(inner) else inner
            return await response if asyncio.iscoroutine(response) else response

        return handler

    for provider in PROVIDERS:
        method, path = search_route(provider)
        fake_server.set(method, path, gate(provider, fake_server.handler(method, path)))
    engine = Engine.from_config(load_config(fake_config))
    try:
        result = await engine.search(SearchRequest(query=QUERY, providers=PROVIDERS))
    finally:
        await engine.aclose()
    assert arrived == set(PROVIDERS)
    assert [o.status for o in result.outcomes] == [RunStatus.DONE] * len(PROVIDERS), [o.error for o in result.outcomes]


async def test_one_broken_provider_leaves_the_others_untouched(fake_server: FakeServer, fake_config: Path) -> None:
    fake_server.fail("brave", 401)
    fake_server.html_page("tavily", 200)
    engine = Engine.from_config(load_config(fake_config))
    try:
        result = await engine.search(SearchRequest(query=QUERY, providers=("brave", "tavily", "perplexity")))
    finally:
        await engine.aclose()
    brave, tavily, perplexity = result.outcomes
    assert brave.error.message == (
        "Brave Search authorization failed (401). Check API key or base URL. The key came from env BRAVE_API_KEY."
    )
    assert tavily.error.kind.value == "protocol" and "text/html instead of JSON" in tavily.error.message
    assert perplexity.status is RunStatus.DONE
    assert "fake-brave-key" not in brave.error.message


async def test_cancel_mid_stream_closes_connections(fake_server: FakeServer, fake_config: Path) -> None:
    fake_server.token_delay = 0.2
    engine = Engine.from_config(load_config(fake_config))
    first_token = asyncio.Event()

    def on_update(update: ProviderUpdate) -> None:
        if isinstance(update.event, AnswerDelta):
            first_token.set()

    before = asyncio.all_tasks()
    task = asyncio.create_task(engine.search(SearchRequest(query=QUERY, providers=("perplexity",)), on_update))
    await asyncio.wait_for(first_token.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pools = client_pools(engine.client)  # httpcore pools: no connection may still be mid-response
    assert all(c.is_idle() or c.is_closed() for pool in pools for c in pool.connections)
    await engine.aclose()
    assert all(pool.connections == [] for pool in pools)
    await asyncio.sleep(0)
    assert asyncio.all_tasks() - before == set()


def run_cli(args: list[str], config: Path, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(config.parent),
        "WEBSEARCH_TUI_CONFIG": str(config),
        "WEBSEARCH_TUI_LOG": str(config.parent / "log.txt"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        **CHILD_PATH,
        **FAKE_KEYS,
        **(extra_env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "websearch_tui", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_cli_json_brave_tavily_perplexity(fake_config: Path) -> None:
    out = run_cli(["search", QUERY, "-p", "brave", "-p", "tavily", "-p", "perplexity", "--format", "json"], fake_config)
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert document["query"] == QUERY
    results = {r["provider"]: r for r in document["results"]}
    assert set(results) == {"brave", "tavily", "perplexity"}
    for result in results.values():
        assert result["status"] == "done" and result["error"] is None
        assert isinstance(result["elapsed_ms"], int)
        assert result["response"]["sources"]
    brave_titles = [s["title"] for s in results["brave"]["response"]["sources"]]
    assert all("<" not in title and "&quot;" not in title for title in brave_titles)
    assert results["tavily"]["response"]["related_questions"]
    assert results["perplexity"]["response"]["citations"][0]["url"].startswith("https://")
    for key in FAKE_KEYS.values():
        assert key not in out.stdout and key not in out.stderr


def test_cli_all_failed_exit_1(fake_server: FakeServer, fake_config: Path) -> None:
    fake_server.fail("brave", 401)
    out = run_cli(["search", QUERY, "-p", "brave", "--format", "llm"], fake_config)
    assert out.returncode == 1
    assert out.stdout == (
        "# Brave Search (brave)\nError: Brave Search authorization failed (401). Check API key or base URL. "
        "The key came from env BRAVE_API_KEY.\n"
    )
    assert "Brave Search authorization failed (401). Check API key or base URL." in out.stderr
    assert "Traceback" not in out.stderr


def test_cli_llm_format_for_a_streamed_answer(fake_config: Path) -> None:
    out = run_cli(["search", QUERY, "-p", "perplexity", "--format", "llm"], fake_config)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("# Perplexity (perplexity) · $0.0")  # the cost Perplexity reported
    assert "## Sources" in lines and "## Citations" in lines
    assert "4 citations" in lines


def test_cli_text_shows_perplexity_citations_once(fake_config: Path) -> None:
    out = run_cli(["search", QUERY, "-p", "perplexity"], fake_config)
    assert out.returncode == 0, out.stderr
    assert "\n## Citations\n4 citations: sources [1]-[4], in the same order\n" in out.stdout  # not a second copy
    assert out.stdout.count("https://docs.python.org/3/library/asyncio.html\n") == 1


def test_cli_json_dates_are_iso_8601_utc(fake_config: Path) -> None:
    out = run_cli(["search", QUERY, "-p", "tavily", "-p", "brave", "--format", "json"], fake_config)
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    sources = [s for r in document["results"] for s in r["response"]["sources"] if s["published_text"]]
    assert sources  # both fakes date some results
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", s["published_date"]) for s in sources), sources


def cli_env(config: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(config.parent),
        "WEBSEARCH_TUI_CONFIG": str(config),
        "WEBSEARCH_TUI_LOG": str(config.parent / "log.txt"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        **CHILD_PATH,
        **FAKE_KEYS,
    }


def test_cli_ctrl_c_prints_what_finished(fake_server: FakeServer, fake_config: Path) -> None:
    import signal

    fake_server.token_delay = 2.0  # Perplexity drips one token every 2 s; Brave answers at once
    process = subprocess.Popen(
        [sys.executable, "-m", "websearch_tui", "search", QUERY, "-p", "brave", "-p", "perplexity", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(fake_config),
    )
    try:
        for _ in range(200):  # until both requests reached the fake
            if fake_server.requests_to("/perplexity/v1/agent") and fake_server.requests_to("/brave/res/v1/web/search"):
                break
            time.sleep(0.05)
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130, err
    statuses = {r["provider"]: r["status"] for r in json.loads(out)["results"]}
    assert statuses == {"brave": "done", "perplexity": "cancelled"}
    assert "Traceback" not in err


def test_cli_output_closed_early_is_quiet(fake_config: Path) -> None:
    command = f"{sys.executable} -m websearch_tui search '{QUERY}' -p brave --format json | head -c 20"
    out = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=cli_env(fake_config), timeout=60)
    assert len(out.stdout) == 20
    assert "Traceback" not in out.stderr and "BrokenPipe" not in out.stderr
