"""One MCP session vs one process per search: 20 consecutive ``web_search`` calls through one
``websearch-tui mcp`` stdio session (the SDK's client), against 20 ``websearch-tui search --format
json`` processes, both against the same loopback fake (in a child process), same query and providers.

Prints each side's total wall time (the MCP side includes starting its server and the session) and
per search, and the ratio. Not a pass/fail test.

The providers default to ones without client-side pacing: Exa and Brave keep searches 1 s apart
within a process, which one session honours and separate processes cannot (they would each start
with a fresh pacer), so including them would compare pacing, not start-up.

    python3 benchmarks/mcp_session.py [--searches 20] [--providers ddgs,parallel,tavily,perplexity]
"""

from __future__ import annotations

import argparse
import os
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
from tests.fake_providers.routes import config_toml  # noqa: E402

QUERY = "python asyncio tutorial"


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
    started = time.perf_counter()
    async with Client(stdio_client(params)) as client:
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
    parser.add_argument("--providers", default="ddgs,parallel,tavily,perplexity", help="comma-separated ids")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    providers = args.providers.split(",")
    child, base_url = start_server(__file__)
    try:
        with tempfile.TemporaryDirectory() as folder:
            config = Path(folder) / "config.toml"
            config.write_text(config_toml(base_url), encoding="utf-8")
            env = environment(Path(folder))
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


if __name__ == "__main__":
    main()
