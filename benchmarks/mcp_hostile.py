"""The MCP server against hostile clients (issue 27): what one attack costs the server and the other
clients, for this checkout or an older one side by side. Printed, never asserted.

    python3 benchmarks/mcp_hostile.py                              # this checkout
    python3 benchmarks/mcp_hostile.py --checkout /path/to/old/tree # the server from another tree

- ``slowloris``: 300 connections each send half a request head, then one byte every 5 s, against
  ``mcp --http`` (bearer token set) in a process limited to ``--fds`` (256) file descriptors, for ``--seconds``
  (40); 15 s in, a client with the token sends ``initialize``. Prints whether and when it was
  answered, the server's open descriptors then, the slow connections the server closed, the bytes
  it wrote to stderr and its peak RSS.
- ``starvation``: 60 ``web_search`` calls on Perplexity, whose fake never answers, then another client's
  ``web_search`` on Tavily (healthy): the seconds that one takes (``> 60 s`` if it never ends).
- ``stdio line``: one 256 MiB line without a newline, then a ``ping``, to ``mcp`` over stdio: the
  seconds until the ping is answered and the server's peak RSS.

The fake provider server runs in a child process (``--serve PORT``; Perplexity's search held there).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio  # noqa: E402
import httpx  # noqa: E402
from _child import start_server  # noqa: E402

from tests.fake_providers import FAKE_KEYS, FakeRequest, FakeResponse, FakeServer  # noqa: E402
from tests.fake_providers.routes import config_toml, search_route  # noqa: E402

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def serve(port: int) -> None:
    """The child: the fake on ``port``, Perplexity's search held for 10 minutes, until killed."""
    server = FakeServer(port=port)

    async def hold(request: FakeRequest) -> FakeResponse:
        await asyncio.sleep(600)
        return FakeResponse(500)

    server.set(*search_route("perplexity"), hold)
    server.start()
    server.serve_forever()


def config_for(base_url: str, *providers: str) -> str:
    """The fake's config with only ``providers`` (an older tree may not know the newer ones)."""
    sections = config_toml(base_url, providers=list(providers)).split("\n\n")
    kept = [s for s in sections if not s.startswith("[providers.") or s.split("]")[0][11:] in providers]
    return "\n\n".join(kept)


def environment(folder: Path, checkout: Path) -> dict[str, str]:
    return {
        **os.environ,
        **FAKE_KEYS,
        "PYTHONPATH": str(checkout),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "WEBSEARCH_TUI_LOG": str(folder / "log.txt"),
        "WEBSEARCH_TUI_KEY_FILE": str(folder / "no-keys.toml"),
    }


def start_http(config: Path, env: dict[str, str], stderr: Path, *args: str, fds: int | None = None) -> tuple[Any, str]:
    """``mcp --http --port 0`` (at most ``fds`` descriptors); ``(process, url)`` once it listens."""

    def limit() -> None:
        if fds is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (fds, fds))

    argv = [sys.executable, "-m", "websearch_tui", "mcp", "--http", "--port", "0", "--config", str(config), *args]
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
            preexec_fn=limit,
            cwd=config.parent,
        )
    give_up = time.monotonic() + 30
    while not (found := re.search(r" on (http://\S+/mcp) ", stderr.read_text(errors="replace"))):
        if process.poll() is not None or time.monotonic() > give_up:
            raise SystemExit(f"the server did not start: {stderr.read_text(errors='replace')[-500:]}")
        time.sleep(0.05)
    return process, found.group(1)


def peak_rss_mib(pid: int) -> float:
    """The process's peak resident set (VmHWM), MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def slowloris(folder: Path, env: dict[str, str], seconds: float, fds: int) -> None:
    token = secrets.token_urlsafe(32)
    (folder / "token").write_text(token)
    config = folder / "empty.toml"
    config.write_text("")
    stderr = folder / "slow-stderr.txt"
    process, url = start_http(config, env, stderr, "--token-file", str(folder / "token"), fds=fds)
    host, port = url.split("//")[1].split("/")[0].split(":")
    sockets: list[socket.socket] = []
    for _ in range(300):
        sock = socket.socket()
        sock.settimeout(2)
        try:
            sock.connect((host, int(port)))
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        except OSError:
            pass
        sockets.append(sock)
    closed: set[int] = set()
    stop = threading.Event()

    def drip() -> None:
        while not stop.wait(5):
            for index, sock in enumerate(sockets):
                if index not in closed:
                    try:
                        sock.sendall(b"x")
                    except OSError:
                        closed.add(index)

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    started = time.monotonic()
    time.sleep(15)
    in_use = len(os.listdir(f"/proc/{process.pid}/fd"))
    asked = time.monotonic()
    try:
        reply = httpx.post(url, json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {token}"}, timeout=15)
        answer = f"{reply.status_code} in {time.monotonic() - asked:.2f} s"
    except httpx.HTTPError as exc:
        answer = f"no answer ({type(exc).__name__} after {time.monotonic() - asked:.1f} s)"
    time.sleep(max(0.0, seconds - (time.monotonic() - started)))
    stop.set()
    for index, sock in enumerate(sockets):
        sock.setblocking(False)
        try:
            if sock.recv(1) == b"":
                closed.add(index)
        except BlockingIOError:
            pass
        except OSError:
            closed.add(index)
    rss = peak_rss_mib(process.pid)
    process.terminate()
    process.wait(30)
    for sock in sockets:
        sock.close()
    size = stderr.stat().st_size
    print(
        f"slowloris (limit {fds} descriptors): token client {answer}; descriptors in use at 15 s {in_use}; "
        f"slow connections closed by the server {len(closed)}/300; stderr {size / 1e6:.2f} MB; peak RSS {rss:.0f} MiB"
    )


async def starvation(folder: Path, env: dict[str, str], base_url: str) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    config = folder / "config.toml"
    config.write_text(config_for(base_url, "perplexity", "tavily"))
    process, url = start_http(config, env, folder / "starve-stderr.txt")
    try:
        async with Client(streamable_http_client(url)) as stuck, Client(streamable_http_client(url)) as healthy:
            async with anyio.create_task_group() as group:
                for _ in range(60):
                    group.start_soon(stuck.call_tool, "web_search", {"query": "q", "providers": ["perplexity"]})
                await anyio.sleep(3)
                started = time.perf_counter()
                with anyio.move_on_after(60) as scope:
                    result = await healthy.call_tool("web_search", {"query": "q", "providers": ["tavily"]})
                took = "> 60 s" if scope.cancelled_caught else f"{time.perf_counter() - started:.2f} s"
                status = "" if scope.cancelled_caught else result.structured_content["results"][0]["status"]
                group.cancel_scope.cancel()
        print(f"starvation: the other client's Tavily search took {took} ({status}) beside 60 stuck Perplexity calls")
    finally:
        process.terminate()
        process.wait(30)


def stdio_line(folder: Path, env: dict[str, str], mib: int) -> None:
    config = folder / "empty.toml"
    config.write_text("")
    argv = [sys.executable, "-m", "websearch_tui", "mcp", "--config", str(config)]
    errors = (folder / "stdio-stderr.txt").open("wb")
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=env, cwd=folder)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    process.stdout.readline()
    started = time.perf_counter()
    chunk = b"x" * (1 << 20)
    try:
        for _ in range(mib):
            process.stdin.write(chunk)
    except BrokenPipeError:
        raise SystemExit((folder / "stdio-stderr.txt").read_text()[-3000:]) from None
    process.stdin.write(b"\n" + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode() + b"\n")
    process.stdin.flush()
    replies = []
    while (line := process.stdout.readline()) and b'"id":2' not in line:
        replies.append(line)
    took = time.perf_counter() - started
    rss = peak_rss_mib(process.pid)
    process.stdin.close()
    process.wait(30)
    answered = f"the line answered: {replies[0][:120]!r}, " if replies else "the line not answered, "
    print(f"stdio line of {mib} MiB: {answered}ping answered after {took:.2f} s; server peak RSS {rss:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the tree whose server runs (default: this one)")
    parser.add_argument("--seconds", type=float, default=40.0, help="how long the slowloris case runs")
    parser.add_argument("--fds", type=int, default=256, help="the slowloris server's file descriptor limit")
    parser.add_argument("--mib", type=int, default=256, help="the stdio line's size, MiB")
    parser.add_argument("--cases", default="slowloris,starvation,stdio", help="which cases, comma-separated")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    cases = set(args.cases.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = environment(folder, args.checkout.resolve())
        print(f"server from {args.checkout}")
        if "slowloris" in cases:
            slowloris(folder, env, args.seconds, args.fds)
        if "starvation" in cases:
            child, base_url = start_server(__file__)
            try:
                anyio.run(starvation, folder, env, base_url)
            finally:
                child.kill()
        if "stdio" in cases:
            stdio_line(folder, env, args.mib)


if __name__ == "__main__":
    main()
