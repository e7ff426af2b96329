"""One MCP session vs one process per search: 20 consecutive ``web_search`` calls through one
``websearch-tui mcp`` stdio session (the SDK's client), against 20 ``websearch-tui search --format
json`` processes, both against the same loopback fake (in a child process), same query and providers.

Prints each side's total wall time (the MCP side includes starting its server and the session) and
per search, and the ratio. Not a pass/fail test.

With ``--peer CMD`` (the seed peer's ``agent-web-search-mcp``, installed in a venv of its own:
``python3 -m venv /tmp/peer && /tmp/peer/bin/pip install agent-web-search-mcp==0.8.1``), the same
calls also go through one stdio session of the peer, on the same fake and the providers both speak
(Tavily, You.com, Perplexity Search by default), and the per-call time of each is printed side by
side: the fake answers at once, so a call's time is what the MCP server itself adds (its request
handling, the fan-out, the result's formatting), plus the fake's own handling, alike for both. The
peer paces no provider, so our client-side pacing is off for this comparison (``min_interval = 0``;
with it, You.com's 0.1 s between requests would be what is measured).

The providers default to ones without client-side pacing: Exa and Brave keep searches 1 s apart
within a process, which one session honours and separate processes cannot (they would each start
with a fresh pacer), so including them would compare pacing, not start-up.

    python3 benchmarks/mcp_session.py [--searches 20] [--providers ddgs,parallel,tavily,perplexity]
    python3 benchmarks/mcp_session.py --peer /tmp/peer/bin/agent-web-search-mcp [--searches 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _child import start_server  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from tests.fake_providers import FAKE_KEYS, FakeServer  # noqa: E402
from tests.fake_providers.routes import config_toml, search_route  # noqa: E402

QUERY = "python asyncio tutorial"
DEFAULT_PROVIDERS = "ddgs,parallel,tavily,perplexity"
PEER_PROVIDERS = {"tavily": "tavily", "you": "you", "perplexity_search": "perplexity"}
"""Providers both speak: our id -> the peer's name."""
PEER_ENDPOINTS = {"tavily": "TAVILY", "you": "YOU", "perplexity_search": "PERPLEXITY"}
"""Our id -> the peer's ``AGENT_WEB_SEARCH_<NAME>_ENDPOINT`` variable."""


def serve(port: int) -> None:
    """The child: the fake on ``port`` until killed."""
    server = FakeServer(port=port)
    server.start()
    server.serve_forever()


def environment(folder: Path) -> dict[str, str]:
    """Fake keys, no keyring, a throwaway log file and this checkout first on the import path."""
    return {
        **os.environ,
        **FAKE_KEYS,
        "PYTHONPATH": str(ROOT),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "WEBSEARCH_TUI_LOG": str(folder / "log.txt"),
        "WEBSEARCH_TUI_KEY_FILE": str(folder / "no-keys.toml"),
    }


async def mcp_session(config: Path, env: dict[str, str], providers: list[str], searches: int) -> tuple[float, float]:
    """``(total seconds, seconds of the calls alone)`` for ``searches`` calls through one stdio session."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "websearch_tui", "mcp", "--config", str(config)], env=env
    )
    return await stdio_calls(params, providers, searches)


async def peer_session(command: str, base_url: str, env: dict[str, str], providers: list[str], searches: int) -> float:
    """Seconds of ``searches`` calls alone through one stdio session of the peer's MCP server."""
    names = [PEER_PROVIDERS[pid] for pid in providers]
    peer_env = {**env, "AGENT_WEB_SEARCH_PROVIDERS": ",".join(names)}
    for pid in providers:
        peer_env[f"AGENT_WEB_SEARCH_{PEER_ENDPOINTS[pid]}_ENDPOINT"] = base_url + search_route(pid)[1]
    params = StdioServerParameters(command=command, args=[], env=peer_env)
    return (await stdio_calls(params, names, searches))[1]


async def stdio_calls(params: StdioServerParameters, providers: list[str], searches: int) -> tuple[float, float]:
    """``(total seconds, seconds of the calls alone)`` for ``searches`` ``web_search`` calls through one
    stdio session of the server ``params`` starts (one unmeasured call first)."""
    started = time.perf_counter()
    async with Client(stdio_client(params)) as client:
        await client.call_tool("web_search", {"query": QUERY, "providers": providers})
        calls_started = time.perf_counter()
        for _ in range(searches):
            result = await client.call_tool("web_search", {"query": QUERY, "providers": providers})
            if result.is_error:
                raise SystemExit(f"web_search failed: {result.content[0].text}")
        ended = time.perf_counter()
    return ended - started, ended - calls_started


def cli_processes(config: Path, env: dict[str, str], providers: list[str], searches: int) -> float:
    """Total seconds of ``searches`` consecutive ``websearch-tui search`` processes."""
    argv = [sys.executable, "-m", "websearch_tui", "search", QUERY, "--format", "json", "--config", str(config)]
    for provider in providers:
        argv += ["-p", provider]
    started = time.perf_counter()
    for _ in range(searches):
        out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        if out.returncode != 0:
            raise SystemExit(f"websearch-tui search failed: {out.stderr}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=20)
    parser.add_argument("--providers", default=DEFAULT_PROVIDERS, help="comma-separated ids")
    parser.add_argument("--peer", help="the seed peer's agent-web-search-mcp command: per-call time side by side")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    providers = (
        args.providers.split(",") if not args.peer or args.providers != DEFAULT_PROVIDERS else list(PEER_PROVIDERS)
    )
    child, base_url = start_server(__file__)
    try:
        with tempfile.TemporaryDirectory() as folder:
            config = Path(folder) / "config.toml"
            config.write_text(config_toml(base_url), encoding="utf-8")
            env = environment(Path(folder))
            if args.peer:  # the peer paces nothing: neither do we here (You.com's 0.1 s would be measured)
                config.write_text(config_toml(base_url).replace("enabled = true", "enabled = true\nmin_interval = 0"))
                compare_with_peer(args.peer, base_url, config, env, providers, args.searches)
                return
            session, calls = anyio.run(mcp_session, config, env, providers, args.searches)
            processes = cli_processes(config, env, providers, args.searches)
    finally:
        child.kill()
    n = args.searches
    print(f"{n} searches, providers {', '.join(providers)}, loopback fake in a child process")
    print(f"one MCP session:   {session:6.2f} s total, {session / n * 1000:6.0f} ms per search (start-up included)")
    print(f"                   {calls:6.2f} s in the calls alone, {calls / n * 1000:6.0f} ms per search")
    print(f"{n} CLI processes: {processes:6.2f} s total, {processes / n * 1000:6.0f} ms per search")
    print(f"ratio (processes / session): {processes / session:.1f}x")
    print(f"ratio per call, the session's start-up left out: {processes / calls:.1f}x")


def compare_with_peer(
    peer: str, base_url: str, config: Path, env: dict[str, str], providers: list[str], searches: int
) -> None:
    """Interleave three rounds of ``searches`` calls through our session and the peer's; print the
    median per-call time of each and their ratio."""
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(3):
        ours.append(anyio.run(mcp_session, config, env, providers, searches)[1] / searches)
        theirs.append(anyio.run(peer_session, peer, base_url, env, providers, searches) / searches)
    mine, peer_call = statistics.median(ours), statistics.median(theirs)
    load = os.getloadavg()[0]
    print(
        f"{searches} web_search calls x 3 rounds, providers {', '.join(providers)} (answering at once), load {load:.1f}"
    )
    print(
        f"websearch-tui mcp:    {mine * 1000:6.1f} ms per call (rounds: {', '.join(f'{t * 1000:.1f}' for t in ours)})"
    )
    rounds = ", ".join(f"{t * 1000:.1f}" for t in theirs)
    print(f"peer 0.8.1 (stdio):   {peer_call * 1000:6.1f} ms per call (rounds: {rounds})")
    print(f"ratio ours / peer: {mine / peer_call:.2f}")


if __name__ == "__main__":
    main()
