"""The MCP server (``websearch-tui mcp``) driven by the official SDK's client, against the loopback fake.

Over stdio (a real ``websearch-tui mcp`` process): tools and schemas, the LLM text and JSON document
(the same as ``search --format llm|json``), progress, tool errors for bad input and failed providers,
a client cancel. Over Streamable HTTP (a real ``mcp --http`` process): the bearer token (required,
refused, never logged), the Host/Origin checks, concurrent clients. In process (the SDK's in-memory
client on the same server object): what a cancel leaves behind, pacing shared across sessions, an
unexpected failure inside a tool. Plus the start-up rules of ``mcp --http`` and the import rules.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import jsonschema
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.fake_providers import FAKE_KEYS, PROVIDERS, FakeRequest, FakeResponse, FakeServer, data_json
from tests.fake_providers.routes import search_route
from websearch_tui.__main__ import main  # the launcher hands the CLI the MCP server
from websearch_tui.core.errors import register_secret
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.results import RunStatus, SearchResult
from websearch_tui.engine.engine import Engine
from websearch_tui.formats.json_document import JSON_DOCUMENT_SCHEMA
from websearch_tui.mcp.server import build_server, http_options, transport_security
from websearch_tui.mcp.tools import SEARCH_OUTPUT_SCHEMA, TOOL_LIST_BUDGET, SearchTools
from websearch_tui.session import Session
from websearch_tui.settings.config import Config, load_config

if sys.version_info < (3, 11):
    from exceptiongroup import ExceptionGroup

REPO = Path(__file__).resolve().parents[2]
QUERY = "python asyncio tutorial"
WAIT = 30.0
"""Upper bound, in seconds, on waiting for something that happens (never asserted as a duration)."""


@pytest.fixture(autouse=True)
def own_log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Server processes started by this test log to a file of its own."""
    monkeypatch.setenv("WEBSEARCH_TUI_LOG", str(tmp_path / "app.log"))


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture
def fake_config(fake_server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config pointing every provider at the fake, with the fake keys exported."""
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    return fake_server.write_config(tmp_path / "config.toml")


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a server process: this test's (isolated keyring, log file, fake keys) and
    this checkout first on the import path."""
    return {**os.environ, "PYTHONPATH": str(REPO), **extra}


@asynccontextmanager
async def stdio_session(config: Path, errlog: Path, env: dict[str, str] | None = None) -> AsyncIterator[Client]:
    """An SDK client session with a ``websearch-tui mcp`` process (its stderr goes to ``errlog``)."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "websearch_tui", "mcp", "--config", str(config)], env=env or server_env()
    )
    with errlog.open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as client:
            yield client


def without_timings(value: Any) -> Any:
    """``value`` without the keys that differ from run to run: durations (``*_ms``), when the search
    started (``created_at``), ages (seconds since a date, computed when the answer is parsed) and the
    ISO dates of relative ones ("3 days ago" is a moment counted back from the parse;
    ``published_text`` keeps the provider's words)."""
    if isinstance(value, dict):
        varying = ("age_seconds", "published_date", "created_at")
        return {k: without_timings(v) for k, v in value.items() if not k.endswith("_ms") and k not in varying}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def log_file_text() -> str:
    """What the server processes of this test logged."""
    return Path(os.environ["WEBSEARCH_TUI_LOG"]).read_text()


def run_cli(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "websearch_tui", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=120,
    )


async def call_and_cancel(client: Client, arrived: threading.Event) -> None:
    """Call ``web_search`` with brave (held by the fake) and tavily; cancel the call once brave's request
    has arrived and tavily has finished."""
    tavily_done = anyio.Event()

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        if (message or "").endswith("Tavily done"):
            tavily_done.set()

    async with anyio.create_task_group() as group:
        arguments = {"query": QUERY, "providers": ["brave", "tavily"]}
        group.start_soon(functools.partial(client.call_tool, "web_search", arguments, progress_callback=on_progress))
        assert await anyio.to_thread.run_sync(arrived.wait, WAIT)
        with anyio.fail_after(WAIT):
            await tavily_done.wait()
        group.cancel_scope.cancel()


def hold_until_cancelled(server: FakeServer, provider: str) -> threading.Event:
    """Make ``provider``'s search call wait (far longer than any test) once it has arrived; the
    returned event is set when it arrives."""
    arrived = threading.Event()
    method, path = search_route(provider)

    async def handler(request: FakeRequest) -> FakeResponse:
        arrived.set()
        await asyncio.sleep(120)
        return FakeResponse(500)

    server.set(method, path, handler)
    return arrived


# --- stdio ------------------------------------------------------------------------------------


async def test_stdio_tools_schemas_and_ready_providers(fake_config: Path, tmp_path: Path) -> None:
    env = server_env()
    del env["BRAVE_API_KEY"]  # brave is not ready; every other provider has its fake key
    async with stdio_session(fake_config, tmp_path / "err.txt", env) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        providers = await client.call_tool("list_providers", {})
    assert list(tools) == ["web_search", "list_providers", "history_search", "history_show", "fetch_page"]
    search = tools["web_search"]
    assert search.output_schema == SEARCH_OUTPUT_SCHEMA
    assert search.input_schema["required"] == ["query"]
    assert search.input_schema["properties"]["max_results"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 20,
        "description": "Sources per provider.",
    }
    ready = search.description.split("Ready: ")[1].rstrip(".").split(", ")
    assert "tavily" in ready and "ddgs" in ready and "brave" not in ready
    assert tools["history_show"].output_schema == {"type": "object", "description": "web_search's document"}
    rows = {row["id"]: row for row in providers.structured_content["providers"]}
    assert list(rows) == list(PROVIDERS)
    assert rows["brave"] == {
        "id": "brave",
        "label": "Brave Search",
        "kind": "web",
        "index": "Brave's own index",
        "readiness": "needs key",
        "default": True,
    }
    assert rows["tavily"]["readiness"] == "ready" and rows["ddgs"]["readiness"] == "keyless"
    assert "brave: Brave Search (web; index: Brave's own index) needs key, default" in providers.content[0].text


async def test_stdio_web_search_matches_the_cli_formats_and_reports_progress(fake_config: Path, tmp_path: Path) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    all_reported = anyio.Event()

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))
        if done == total:
            all_reported.set()

    arguments = {"query": QUERY, "providers": ["brave", "tavily", "perplexity"], "max_results": 5}
    async with stdio_session(fake_config, tmp_path / "err.txt") as client:
        result = await client.call_tool("web_search", arguments, progress_callback=on_progress)
        with anyio.fail_after(WAIT):  # notifications may still be in flight when the result arrives
            await all_reported.wait()
    # --fresh: the MCP call's results are in the history, and would be reused (cached, $0) otherwise
    cli_args = ["search", QUERY, "-p", "brave", "-p", "tavily", "-p", "perplexity", "--max-results", "5", "--fresh"]
    llm, document = (
        run_cli(fake_config, *cli_args, "--format", "llm"),
        run_cli(fake_config, *cli_args, "--format", "json"),
    )
    assert not result.is_error
    assert result.content[0].text == llm.stdout.rstrip("\n")
    assert without_timings(result.structured_content) == without_timings(json.loads(document.stdout))
    assert [(done, total) for done, total, _ in progress] == [(1, 3), (2, 3), (3, 3)]
    messages = [message or "" for _, _, message in progress]
    assert all(re.fullmatch(r"[123]/3 done: (Brave Search|Tavily|Perplexity) done", m) for m in messages), messages
    assert (tmp_path / "err.txt").read_text() == ""  # nothing on stderr either


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"query": "q", "providers": ["bravo"]}, "unknown provider 'bravo' (did you mean 'brave'?)"),
        ({"query": "q", "providers": "brave"}, 'providers must be a list of provider ids, e.g. ["ddgs", "brave"]'),
        ({"query": "   "}, "query must not be empty"),
        ({"query": "x" * 4001}, "query is 4001 characters; the limit is 4000"),
        ({"query": 42}, "query must be a string"),
        ({}, "query is required and must be a string"),
        ({"query": "q", "max_results": 0}, "max_results must be a whole number from 1 to 20, not 0"),
        ({"query": "q", "max_results": "5"}, "max_results must be a whole number from 1 to 20, not '5'"),
        ({"query": "q", "recency": "hour"}, "recency must be one of day, week, month, year, not 'hour'"),
        ({"query": "q", "mode": "fast"}, "mode must be one of compare, auto, not 'fast'"),
        ({"query": "q", "max_result": 3}, "unknown argument 'max_result' (did you mean 'max_results'?)"),
        (
            {"query": "q", "grok_search_mode": "all"},
            "grok_search_mode must be one of web_search, x_search, both (or web, x), not 'all'",
        ),
        (
            {"query": "q", "grok_search_mode": 1},
            "grok_search_mode must be one of web_search, x_search, both (or web, x), not 1",
        ),
        ({"query": "q", "grok_mode": "x"}, "unknown argument 'grok_mode' (did you mean 'grok_search_mode'?)"),
    ],
)
def test_bad_arguments_are_tool_errors(arguments: dict[str, Any], message: str) -> None:
    tools = SearchTools(Session(Config(), Engine()))
    result = asyncio.run(tools.call("web_search", arguments, no_progress))
    assert result.is_error and result.content[0].text == message
    assert result.structured_content is None


async def no_progress(done: float, total: float | None, message: str | None) -> None:
    """A progress sink for calls made without a client."""


async def test_stdio_bad_input_and_failed_providers_never_stop_the_server(
    fake_server: FakeServer, fake_config: Path, tmp_path: Path
) -> None:
    fake_server.fail("brave", 401, echo_key=True)  # the error body repeats the key it was sent
    fake_server.fail("tavily", 403)  # not retried (a 5xx would be, with back-off)
    async with stdio_session(fake_config, tmp_path / "err.txt") as client:
        bad = await client.call_tool("web_search", {"query": "q", "providers": ["bravo"]})
        unknown = await client.call_tool("no_such_tool", {})
        partly = await client.call_tool("web_search", {"query": QUERY, "providers": ["brave", "perplexity"]})
        failed = await client.call_tool("web_search", {"query": QUERY, "providers": ["brave", "tavily"]})
    assert bad.is_error and "did you mean 'brave'?" in bad.content[0].text
    assert (
        unknown.is_error
        and unknown.content[0].text
        == "unknown tool 'no_such_tool'; tools: web_search, list_providers, history_search, history_show, fetch_page"
    )
    assert not partly.is_error
    brave_block = "# Brave Search (brave)\nError: Brave Search authorization failed (401). Check API key or base URL."
    assert partly.content[0].text.startswith(brave_block)
    assert "# Perplexity (perplexity) · $0.0" in partly.content[0].text  # the cost it reported
    assert re.search(r"\n\nCost: \$0\.\d+$", partly.content[0].text)  # reported, not "≈": brave's 401 cost nothing
    assert [r["status"] for r in partly.structured_content["results"]] == ["failed", "done"]
    assert failed.is_error
    text = failed.content[0].text
    assert text.startswith("Error: All web search providers failed: brave: Brave Search authorization failed (401).")
    assert "; tavily: " in text
    assert failed.structured_content["error"]["message"] == text.removeprefix("Error: ")
    everything = json.dumps([r.model_dump(mode="json") for r in (partly, failed)]) + (tmp_path / "err.txt").read_text()
    assert FAKE_KEYS["BRAVE_API_KEY"] not in everything


async def test_stdio_client_cancel_cancels_the_search(
    fake_server: FakeServer, fake_config: Path, tmp_path: Path
) -> None:
    arrived = hold_until_cancelled(fake_server, "brave")
    async with stdio_session(fake_config, tmp_path / "err.txt") as client:
        await call_and_cancel(client, arrived)
        after = await client.call_tool("web_search", {"query": QUERY, "providers": ["tavily"]})
    assert not after.is_error and after.structured_content["results"][0]["status"] == "done"
    assert "web_search cancelled by the client: Cancelled — 1 done, 1 cancelled." in log_file_text()


def test_mcp_without_the_sdk_says_what_to_install(tmp_path: Path) -> None:
    script = "import sys\nsys.modules['mcp'] = None\nfrom websearch_tui.__main__ import main\nraise SystemExit(main(['mcp']))\n"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=server_env(), timeout=60)
    assert out.returncode == 1
    # the command for how this copy was installed (here: this Python's pip; see tests/test_install_hint.py)
    assert out.stderr == (
        "websearch-tui: error: the MCP server needs the MCP SDK (module 'mcp' is missing): "
        f"{sys.executable} -m pip install 'websearch-tui[mcp]' (in a checkout: {sys.executable} -m pip install -e "
        "'.[mcp]')\n"
    )


def test_search_never_imports_the_sdk(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from websearch_tui.__main__ import main\n"
        "main(['search', 'q', '-p', 'brave'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'starlette', 'uvicorn') "
        "or m.startswith('websearch_tui.mcp.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=server_env(), timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


# --- Streamable HTTP --------------------------------------------------------------------------


@contextmanager
def http_server(config: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, Path]]:
    """A ``websearch-tui mcp --http --port 0`` process; ``(url, its stderr file)`` once it listens."""
    stderr = config.parent / f"http-{secrets.token_hex(4)}.txt"
    argv = [sys.executable, "-m", "websearch_tui", "mcp", "--http", "--port", "0", "--config", str(config), *args]
    with stderr.open("w") as err:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env or server_env()
        )
    try:
        give_up = time.monotonic() + WAIT
        while not (found := re.search(r" on (http://\S+/mcp) ", stderr.read_text())):
            assert process.poll() is None and time.monotonic() < give_up, stderr.read_text()
            time.sleep(0.05)
        yield found.group(1), stderr
    finally:
        process.terminate()
        process.wait(timeout=WAIT)


@asynccontextmanager
async def http_session(url: str, token: str | None = None) -> AsyncIterator[Client]:
    """An SDK client session over Streamable HTTP, sending ``token`` as the bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(WAIT, read=300))  # the SDK's default timeouts
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        yield client


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


def post(url: str, **headers: str) -> httpx.Response:
    """One raw ``initialize`` POST with ``headers``."""
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    return httpx.post(url, json=INITIALIZE, headers={**base, **headers}, timeout=WAIT)


@pytest.fixture
def token_file(tmp_path: Path) -> tuple[Path, str]:
    token = secrets.token_urlsafe(32)
    path = tmp_path / "token"
    path.write_text(token + "\n")
    path.chmod(0o600)
    return path, token


async def test_http_requires_the_bearer_token(fake_config: Path, token_file: tuple[Path, str]) -> None:
    path, token = token_file
    wrong = secrets.token_urlsafe(32)
    with http_server(fake_config, "--token-file", str(path)) as (url, stderr):
        async with http_session(url, token) as client:
            result = await client.call_tool("web_search", {"query": QUERY, "providers": ["tavily"]})
        missing, refused = post(url), post(url, Authorization=f"Bearer {wrong}")
        basic = post(url, Authorization=f"Basic {token}")
        with pytest.raises(ExceptionGroup) as refused_client:  # the SDK client cannot connect with a wrong token
            async with http_session(url, wrong) as client:
                await client.list_tools()
    assert refused_client.group_contains(MCPError, match="Server returned an error response", depth=2)
    assert not result.is_error and result.structured_content["results"][0]["status"] == "done"
    for response in (missing, refused, basic):
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    logged = stderr.read_text() + log_file_text()
    assert re.search(r"refused POST /mcp from 127\.0\.0\.1:\d+: no bearer token", logged)
    assert re.search(r"refused POST /mcp from 127\.0\.0\.1:\d+: wrong bearer token", logged)
    assert "not a bearer token" in logged
    assert token not in logged and wrong not in logged
    assert "(bearer token required)" in logged


async def test_http_refuses_other_hosts_and_origins(fake_config: Path) -> None:
    with http_server(fake_config) as (url, stderr):
        port = url.split(":")[2].split("/")[0]
        wrong_host = post(url, Host=f"attacker.example:{port}")
        wrong_origin = post(url, Origin="http://attacker.example")
        local = post(url, Host=f"localhost:{port}", Origin=f"http://localhost:{port}")
    assert wrong_host.status_code == 421
    assert wrong_origin.status_code == 403
    assert local.status_code == 200
    assert "(no token: loopback only)" in stderr.read_text()


async def test_http_concurrent_clients_share_the_engine_each_isolated(
    fake_server: FakeServer, fake_config: Path
) -> None:
    """Each brave search is held until both have arrived (only concurrent calls pass) and answers
    with a title naming its own query."""
    queries = ("first question", "second question")
    arrived: set[str] = set()
    both = asyncio.Event()  # lives on the fake server's loop
    method, path = search_route("brave")

    async def handler(request: FakeRequest) -> FakeResponse:
        query = request.query["q"]
        arrived.add(query)
        if arrived == set(queries):
            both.set()
        await asyncio.wait_for(both.wait(), WAIT)
        payload = data_json("brave_web.json", query)
        payload["web"]["results"][0]["title"] = f"About {query}"
        return FakeResponse(200, {"Content-Type": "application/json"}, payload)

    fake_server.set(method, path, handler)
    results: dict[str, Any] = {}
    with http_server(fake_config) as (url, _):

        async def ask(query: str) -> None:
            async with http_session(url) as client:
                results[query] = await client.call_tool("web_search", {"query": query, "providers": ["brave"]})

        async with anyio.create_task_group() as group:
            for query in queries:
                group.start_soon(ask, query)
    for query in queries:
        document = results[query].structured_content
        assert document["query"] == query
        assert document["results"][0]["response"]["sources"][0]["title"] == f"About {query}"


async def test_http_progress_and_cancel(fake_server: FakeServer, fake_config: Path) -> None:
    arrived = hold_until_cancelled(fake_server, "brave")
    with http_server(fake_config) as (url, _):
        async with http_session(url) as client:
            await call_and_cancel(client, arrived)  # needs tavily's progress notification to cancel
            after = await client.call_tool("web_search", {"query": QUERY, "providers": ["tavily"]})
    assert not after.is_error
    assert "web_search cancelled by the client: Cancelled — 1 done, 1 cancelled." in log_file_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--http", "--host", "0.0.0.0"],
            "binding 0.0.0.0 (not a loopback address) needs a bearer token of at least 32",
        ),
        (["--http", "--host", "192.0.2.10"], "binding 192.0.2.10 (not a loopback address) needs a bearer token"),
        (["--http", "--token-file", "/nonexistent/token"], "cannot read the token file /nonexistent/token"),
        (["--port", "9000"], "only valid with --http: --port"),
        (["--allowed-host", "box.lan"], "only valid with --http: --allowed-host"),
        (["--http", "--port", "70000"], "--port must be from 0 to 65535, not 70000"),
    ],
)
def test_http_start_up_rules(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("websearch-tui: error: ") and message in err and err.count("\n") == 1


def test_http_token_rules(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WEBSEARCH_TUI_MCP_TOKEN", "short-secret-token")
    assert main(["mcp", "--http"]) == 2
    err = capsys.readouterr().err
    assert "the bearer token must be at least 32 characters (it has 18)" in err and "short-secret" not in err
    monkeypatch.setenv("WEBSEARCH_TUI_MCP_TOKEN", "a" * 31 + " b")
    assert main(["mcp", "--http"]) == 2
    assert "printable ASCII without spaces" in capsys.readouterr().err
    monkeypatch.setenv("WEBSEARCH_TUI_MCP_TOKEN", "t" * 32)
    assert main(["mcp", "--http", "--host", "0.0.0.0"]) == 2  # a token, but every Host would pass
    assert "name the host names clients use with --allowed-host NAME" in capsys.readouterr().err


def test_allowed_hosts_for_a_named_address() -> None:
    options = http_options(
        "10.1.2.3", 8765, allowed_hosts=["search.lan"], environ={"WEBSEARCH_TUI_MCP_TOKEN": "k" * 40}
    )
    security = transport_security(options)
    assert security.allowed_hosts == [
        pattern
        for host in ("127.0.0.1", "localhost", "[::1]", "10.1.2.3", "search.lan")
        for pattern in (host, f"{host}:*")
    ]
    assert "https://search.lan:*" in security.allowed_origins and "http://10.1.2.3" in security.allowed_origins
    assert options.token == "k" * 40 and "k" * 40 not in repr(options)


# --- in process -------------------------------------------------------------------------------


def busy_connections(engine: Engine) -> list[Any]:
    """Pooled connections of the engine's client that are mid-request (neither idle nor closed)."""
    from websearch_tui.providers.transport.http import client_pools

    return [c for pool in client_pools(engine.client) for c in pool.connections if not (c.is_idle() or c.is_closed())]


def record_searches(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[SearchResult]:
    """Every :class:`SearchResult` the engine fills in, as it is filled."""
    results: list[SearchResult] = []
    search = engine.search

    async def recorded(
        request: SearchRequest, on_update: Any = None, *, result: SearchResult | None = None, **kwargs: Any
    ) -> SearchResult:
        assert result is not None
        results.append(result)
        return await search(request, on_update, result=result, **kwargs)

    monkeypatch.setattr(engine, "search", recorded)
    return results


async def test_cancel_ends_every_run_and_closes_its_connections(
    fake_server: FakeServer, fake_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    arrived = hold_until_cancelled(fake_server, "brave")
    tools = SearchTools(Session(load_config(fake_config), Engine.from_config(load_config(fake_config))))
    results = record_searches(tools.session.engine, monkeypatch)
    async with Client(build_server(tools)) as client:
        await call_and_cancel(client, arrived)
        assert busy_connections(tools.session.engine) == []
        assert results[0].statuses() == {"brave": RunStatus.CANCELLED, "tavily": RunStatus.DONE}
        after = await client.call_tool("web_search", {"query": QUERY, "providers": ["tavily"]})
    assert not after.is_error
    await tools.aclose()


async def test_sessions_share_the_engine_and_its_pacing(fake_config: Path) -> None:
    """Exa keeps searches 1 s apart: the second session's search waits for the slot the first took."""
    engine = Engine.from_config(load_config(fake_config))
    waits: list[float] = []

    async def sleep(delay: float) -> None:
        waits.append(delay)

    engine.clock, engine.sleep = (lambda: 1000.0), sleep  # a frozen clock: the waits are exact
    tools = SearchTools(Session(load_config(fake_config), engine))
    server = build_server(tools)
    for query in ("first", "second"):
        async with Client(server) as client:
            result = await client.call_tool("web_search", {"query": query, "providers": ["exa"]})
        assert result.structured_content["results"][0]["status"] == "done"
    assert waits == [1.0]
    await tools.aclose()


async def test_an_unexpected_failure_is_a_tool_error(fake_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tools = SearchTools(Session(load_config(fake_config), Engine.from_config(load_config(fake_config))))
    register_secret(FAKE_KEYS["TAVILY_API_KEY"])  # as a search that resolved the key before it broke would have

    async def broken(*args: Any, **kwargs: Any) -> SearchResult:
        raise RuntimeError(f"bad state near {FAKE_KEYS['TAVILY_API_KEY']}")

    monkeypatch.setattr(tools.session.engine, "search", broken)
    async with Client(build_server(tools)) as client:
        failed = await client.call_tool("web_search", {"query": QUERY, "providers": ["tavily"]})
        listed = await client.call_tool("list_providers", {})
    assert failed.is_error
    assert failed.content[0].text == "web_search failed unexpectedly: RuntimeError: bad state near ***"
    assert not listed.is_error
    await tools.aclose()


async def test_the_output_schema_fits_every_document(fake_server: FakeServer, fake_config: Path) -> None:
    fake_server.fail("brave", 401)
    engine = Engine.from_config(load_config(fake_config))
    try:
        documents = [
            (await engine.search(SearchRequest(QUERY, providers=PROVIDERS, recency="week"))).to_dict(),
            (await engine.search(SearchRequest(QUERY, providers=("brave", "tavily"), mode="auto"))).to_dict(),
            (await engine.search(SearchRequest(QUERY, providers=("brave",)))).to_dict(),
        ]
    finally:
        await engine.aclose()
    for schema in (JSON_DOCUMENT_SCHEMA, SEARCH_OUTPUT_SCHEMA):
        validator = jsonschema.Draft202012Validator(schema)
        for document in documents:
            assert list(validator.iter_errors(document)) == []
    assert documents[1]["winner"] == "tavily" and documents[2]["error"]


def test_web_search_declares_the_document_schema_in_outline() -> None:
    """An MCP client checks every result against the declared schema: the fields of each source,
    citation and merged row are not described (most of that check), everything above them is, as
    the document's schema has it."""
    outcome = SEARCH_OUTPUT_SCHEMA["properties"]["results"]["items"]
    response = outcome["properties"]["response"]
    assert response == {
        "type": ["object", "null"],
        "properties": {
            "answer": {"type": ["string", "null"]},
            "sources": {"type": "array"},
            "citations": {"type": "array"},
        },
    }
    assert SEARCH_OUTPUT_SCHEMA["properties"]["merged"] == {"type": "array", "items": {"type": "object"}}
    full = JSON_DOCUMENT_SCHEMA["properties"]
    assert SEARCH_OUTPUT_SCHEMA["required"] == JSON_DOCUMENT_SCHEMA["required"]
    assert {
        name: value for name, value in SEARCH_OUTPUT_SCHEMA["properties"].items() if name not in ("results", "merged")
    } == {name: value for name, value in full.items() if name not in ("results", "merged")}
    full_outcome = full["results"]["items"]
    assert outcome["required"] == full_outcome["required"]
    assert {k: v for k, v in outcome["properties"].items() if k != "response"} == {
        k: v for k, v in full_outcome["properties"].items() if k != "response"
    }
    wrong = {"query": "q", "mode": "compare", "max_results": 1, "merged": []}
    wrong["results"] = [
        {"provider": "x", "status": "done", "elapsed_ms": 1, "error": None, "response": {"sources": {}}}
    ]
    assert list(jsonschema.Draft202012Validator(SEARCH_OUTPUT_SCHEMA).iter_errors(wrong))  # sources must be a list


def test_the_tool_list_stays_within_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A size check, not a timing one: an agent is sent ``tools/list`` on every turn. Worst case:
    every provider ready (each is named in web_search's description). 6,486 bytes on 2026-12-02
    (12,839 before: web_search's description named every provider with its label, and history_show
    repeated the 4 KB document schema); 7,237 with web_search's verify and fetch_page (558 bytes)."""
    tools = SearchTools(Session(Config(), Engine()))
    monkeypatch.setattr(tools, "readiness", lambda: dict.fromkeys(PROVIDERS, "ready"))
    listing = asyncio.run(tools.listing())
    size = len(
        json.dumps(
            [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listing], separators=(",", ":")
        )
    )
    assert size <= TOOL_LIST_BUDGET, f"tools/list is {size} bytes; the budget is {TOOL_LIST_BUDGET}"
    assert all(len(tool.description or "") <= 400 for tool in listing)


async def test_stdio_fetch_page_reads_a_page_in_parts(tmp_path: Path) -> None:
    """``fetch_page`` through a real server process: a loopback page (allowed by the config's
    ``[reader]``) read in two parts, and the SDK's own check of the arguments' schema."""
    from tests.page_server import PageServer, html_reply

    config = tmp_path / "reader.toml"
    config.write_text('[reader]\nallow_private = ["127.0.0.1"]\n', encoding="utf-8")
    paragraph = "<p>A page read by an agent through the MCP server, one part at a time, paragraph {}.</p>"
    markup = "<html><head><title>Parts</title></head><body><article><h1>Parts</h1>{}</article></body></html>"
    with PageServer() as pages:
        url = pages.route("/parts", html_reply(markup.format("".join(paragraph.format(n) for n in range(20)))))
        async with stdio_session(config, tmp_path / "err.txt") as client:
            first = await client.call_tool("fetch_page", {"url": url, "max_chars": 1000})
            second = await client.call_tool("fetch_page", {"url": url, "start": first.structured_content["next_start"]})
            refused = await client.call_tool("fetch_page", {"url": url, "max_chars": 1})
    assert first.structured_content["title"] == "Parts" and first.structured_content["next_start"] <= 1000
    assert second.structured_content["next_start"] is None and "paragraph 19." in second.structured_content["text"]
    assert pages.hits == ["/parts"]
    assert refused.is_error


# --- grok_search_mode -----------------------------------------------------------------------------


def grok_tools_sent(server: FakeServer) -> list[list[str]]:
    """The tool types of each search request the fake Grok received, in order."""
    method, path = search_route("grok")
    return [[tool["type"] for tool in r.json()["tools"]] for r in server.requests_to(path) if r.method == method]


async def test_grok_search_mode_reaches_grok_for_that_call_only(fake_server: FakeServer, fake_config: Path) -> None:
    config = load_config(fake_config)
    tools = SearchTools(Session(config, Engine.from_config(config)))
    async with Client(build_server(tools)) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}["web_search"]
        calls = [
            {"grok_search_mode": "x_search"},
            {"grok_search_mode": "both"},
            {},  # the configured mode (web) again: a call's mode does not stick
            {"grok_search_mode": "x"},
            {"grok_search_mode": "web_search"},
            {"grok_search_mode": None},
        ]
        results = [
            # fresh: a call with the same mode as an earlier one would reuse its result (nothing sent)
            await client.call_tool(
                "web_search", {"query": QUERY, "providers": ["grok", "tavily"], "fresh": True, **extra}
            )
            for extra in calls
        ]
    await tools.aclose()
    assert all(not result.is_error for result in results)
    assert grok_tools_sent(fake_server) == [
        ["x_search"],
        ["web_search", "x_search"],
        ["web_search"],
        ["x_search"],
        ["web_search"],
        ["web_search"],
    ]
    schema = listed.input_schema["properties"]["grok_search_mode"]
    assert schema["enum"] == ["web_search", "x_search", "both", "web", "x"]
    assert "grok only" in schema["description"] and "X posts" in schema["description"]


async def test_grok_search_mode_leaves_other_providers_and_the_config_alone(
    fake_server: FakeServer, fake_config: Path
) -> None:
    config = load_config(fake_config)
    engine = Engine.from_config(config)
    tools = SearchTools(Session(config, engine))
    async with Client(build_server(tools)) as client:
        result = await client.call_tool(
            "web_search", {"query": QUERY, "providers": ["tavily"], "grok_search_mode": "x"}
        )
    await tools.aclose()
    assert not result.is_error and grok_tools_sent(fake_server) == []
    assert "search_mode" not in engine.settings.get("grok", config.settings_for("grok")).options


# --- history tools ------------------------------------------------------------------------------


async def test_history_tools_find_and_show_what_web_search_returned(fake_config: Path) -> None:
    config = load_config(fake_config)
    tools = SearchTools(Session(config, Engine.from_config(config)))
    async with Client(build_server(tools)) as client:
        empty = await client.call_tool("history_search", {"text": "asyncio"})
        searched = await client.call_tool("web_search", {"query": QUERY, "providers": ["tavily", "brave"]})
        await client.call_tool("web_search", {"query": "rust release notes", "providers": ["tavily"]})
        found = await client.call_tool("history_search", {"text": "asyncio"})
        [entry] = [e for e in found.structured_content["entries"] if e["query"] == QUERY]
        shown = await client.call_tool("history_show", {"id": entry["id"]})
        unknown = await client.call_tool("history_show", {"id": 999})
        too_big = await client.call_tool("history_show", {"id": 2**63})  # beyond what SQLite holds
        schema_checked = await client.call_tool("history_search", {"text": "release", "limit": 1})
    assert not empty.is_error and empty.structured_content == {"entries": []}
    assert entry["query"] == QUERY and entry["providers"] == ["tavily", "brave"]
    assert entry["counts"]["done"] == 2 and entry["created_at"].endswith("Z")
    assert f"{entry['id']}: {QUERY} (" in found.content[0].text
    assert not shown.is_error
    assert shown.structured_content == searched.structured_content  # offline, exactly as returned
    assert shown.content[0].text == searched.content[0].text
    assert unknown.is_error and "999" in unknown.content[0].text
    assert too_big.is_error and too_big.content[0].text.startswith(f"no search with id {2**63}")
    assert len(schema_checked.structured_content["entries"]) == 1
    await tools.aclose()


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("history_search", {"text": "  ?! "}, "history_search needs text with at least one word or number"),
        ("history_search", {"text": "语" * 4001}, "text is 4001 characters; the limit is 4000"),
        ("history_search", {"text": "x", "limit": 0}, "limit must be a whole number from 1 to 100"),
        ("history_search", {"text": "x", "words": 1}, "history_search takes text and limit (got 'words')"),
        ("history_show", {"id": "3"}, "history_show takes one argument, id: a whole number from history_search"),
        ("history_show", {}, "history_show takes one argument, id: a whole number from history_search"),
    ],
)
def test_bad_history_arguments_are_tool_errors(name: str, arguments: dict[str, Any], message: str) -> None:
    result = asyncio.run(SearchTools(Session(Config(), Engine())).call(name, arguments, no_progress))
    assert result.is_error and result.content[0].text == message


def test_history_tools_say_when_the_history_is_off(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text("[history]\nenabled = false\n")
    tools = SearchTools(Session(load_config(config_file), Engine()))
    result = asyncio.run(tools.call("history_search", {"text": "asyncio"}, no_progress))
    assert result.is_error and "history is off" in result.content[0].text
    assert not (tmp_path / "history.sqlite3").exists()


async def test_web_search_verify_checks_each_citation_and_refuses_a_bad_flag(
    fake_server: FakeServer, fake_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``verify=true``: every citation of the structured document carries its check (pages read by a
    stand-in for the reader, so nothing leaves the machine); ``verify`` must be a boolean."""
    read: list[str] = []

    class Page:
        text = "Nothing here is about asyncio."
        retrieved_at = "2026-12-02T10:00:00Z"
        content_sha256 = "ab" * 32

        def __init__(self, url: str) -> None:
            self.final_url = url

    async def stand_in(self: Session, url: str) -> Page:
        read.append(url)
        return Page(url)

    monkeypatch.setattr(Session, "read_page", stand_in)
    config = load_config(fake_config)
    tools = SearchTools(Session(config, Engine.from_config(config)))
    try:
        bad = await tools.call("web_search", {"query": QUERY, "verify": "yes"}, no_progress)
        assert bad.is_error and bad.content[0].text == "verify must be true or false"
        done = await tools.call(
            "web_search", {"query": QUERY, "providers": ["perplexity"], "verify": True}, no_progress
        )
        citations = done.structured_content["results"][0]["response"]["citations"]
        assert citations and all(c["check"]["verdict"] == "not_supported" for c in citations)
        assert sorted(read) == sorted({c["url"] for c in citations})  # each page read once
        plain = await tools.call("web_search", {"query": QUERY, "providers": ["perplexity"]}, no_progress)
        assert all(c["check"] is None for c in plain.structured_content["results"][0]["response"]["citations"])
    finally:
        await tools.aclose()
