"""One MCP session vs one process per search: 20 consecutive ``web_search`` calls through one
``websearch-tui mcp`` stdio session (the SDK's client), against 20 ``websearch-tui search --format
json`` processes, both against the same loopback fake (in a child process), same query and providers.

Prints each side's total wall time (the MCP side includes starting its server and the session) and
per search, and the ratio. Not a pass/fail test.

With ``--peer CMD`` (the seed peer's ``agent-web-search-mcp``, installed in a venv of its own:
``python3 -m venv /tmp/peer && /tmp/peer/bin/pip install agent-web-search-mcp==0.8.1``), the same
calls also go through one stdio session of the peer, on the same fake and the providers both speak
(Tavily, You.com, Perplexity Search by default), interleaved over three rounds. For each side it prints
the round trip per call (the client's wall time: what an agent waits), the server process's CPU time
per call (user + system, from ``/proc``: what the server itself spends, its request handling, the
fan-out and the result's formatting) and the client's check of the structured result against the
tool's output schema per call (the SDK's ``validate_tool_result``, in CPU time of the client's thread;
the peer returns no structured content, so its clients check nothing). The fake answers at once.
The peer paces no provider and caches nothing, so for this comparison our client-side pacing is off
(``min_interval = 0``; with it, You.com's 0.1 s between requests would be what is measured) and so
is our cache (``[cache] ttl = 0``: with it, every call after the first would be answered from the
history, the same query each time).

``--profile FILE`` (with ``--peer``) runs our server under cProfile for one more session of
``--searches`` calls and prints its top entries by own time (FILE keeps the whole profile; the
server's start is in it, so give it a few hundred searches).

``--http --clients N`` (with ``--peer``): both servers over Streamable HTTP on loopback, N clients
(each its own MCP session) calling ``web_search`` ``--searches`` times each, all at once; prints calls
per second, the p50 and p95 round trip, the server's CPU time per call and the clients' check of the
structured results per call (CPU, in this process: on the same cores as the servers), for each.

``--recorder N``: what recording a search in the history costs each call, without the server: N
searches recorded one at a time (each written before the next, a moment apart, as an agent's calls),
the time ``record()`` takes on the caller (the event loop) and the process's CPU per search.

Every run uses a history file of its own (never the user's).

    python3 benchmarks/mcp_session.py [--searches 20] [--providers ddgs,parallel,tavily,perplexity]
    python3 benchmarks/mcp_session.py --peer /tmp/peer/bin/agent-web-search-mcp [--searches 50] [--profile F]
    python3 benchmarks/mcp_session.py --peer /tmp/peer/bin/agent-web-search-mcp --http --clients 10
    python3 benchmarks/mcp_session.py --recorder 300
"""

from __future__ import annotations

import argparse
import os
import pstats
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _child import free_port, start_server  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from tests.fake_providers import FAKE_KEYS, FakeServer  # noqa: E402
from tests.fake_providers.routes import config_toml, search_route  # noqa: E402

QUERY = "python asyncio tutorial"
DEFAULT_PROVIDERS = "ddgs,parallel,tavily,perplexity"
PEER_PROVIDERS = {"tavily": "tavily", "you": "you", "perplexity_search": "perplexity"}
"""Providers both speak: our id -> the peer's name."""
PEER_ENDPOINTS = {"tavily": "TAVILY", "you": "YOU", "perplexity_search": "PERPLEXITY"}
"""Our id -> the peer's ``AGENT_WEB_SEARCH_<NAME>_ENDPOINT`` variable."""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def serve(port: int) -> None:
    """The child: the fake on ``port`` until killed."""
    server = FakeServer(port=port)
    server.start()
    server.serve_forever()


def environment(folder: Path) -> dict[str, str]:
    """Fake keys, no keyring, a throwaway log and history file and this checkout first on the import path
    (our processes also start in this checkout: ``python -m`` puts the working directory before
    ``PYTHONPATH``, so a run of a base worktree's copy from another checkout measured that checkout)."""
    return {
        **os.environ,
        **FAKE_KEYS,
        "PYTHONPATH": str(ROOT),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "WEBSEARCH_TUI_LOG": str(folder / "log.txt"),
        "WEBSEARCH_TUI_KEY_FILE": str(folder / "no-keys.toml"),
        "WEBSEARCH_TUI_HISTORY": str(folder / "history.sqlite3"),
    }


def peer_environment(env: dict[str, str], base_url: str, providers: list[str]) -> dict[str, str]:
    """``env`` plus the peer's provider list and endpoints on the fake."""
    peer_env = {**env, "AGENT_WEB_SEARCH_PROVIDERS": ",".join(PEER_PROVIDERS[pid] for pid in providers)}
    for pid in providers:
        peer_env[f"AGENT_WEB_SEARCH_{PEER_ENDPOINTS[pid]}_ENDPOINT"] = base_url + search_route(pid)[1]
    return peer_env


@dataclass
class Calls:
    """What one side's calls took: ``seconds`` of the calls alone, ``total`` with the session's start,
    the server's CPU seconds over the calls, the client's output-schema checks, each call's round trip."""

    seconds: float = 0.0
    total: float = 0.0
    server_cpu: float = 0.0
    validation: float = 0.0
    latencies: list[float] = field(default_factory=list)


VALIDATION: list[float] = []
"""CPU seconds of each ``ClientSession.validate_tool_result`` since the list was last cleared."""


def _timed_validation() -> None:
    """Time the SDK client's check of each tool result against the tool's output schema, in CPU time
    of the client's thread (the check awaits nothing once the tool list is known: wall time would add
    whatever else ran on a busy machine meanwhile)."""
    check = ClientSession.validate_tool_result

    async def timed(self: ClientSession, name: str, result: Any) -> None:
        started = time.thread_time()
        try:
            await check(self, name, result)
        finally:
            VALIDATION.append(time.thread_time() - started)

    ClientSession.validate_tool_result = timed  # type: ignore[method-assign]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def server_pid(exclude: set[int]) -> int:
    """The pid of this process's child that is not in ``exclude`` (the MCP server stdio_client started)."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) not in exclude:
            try:
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                    return int(entry.name)
            except OSError:
                continue
    raise SystemExit("the MCP server process was not found")


PROFILED = (
    "import cProfile, sys; from websearch_tui.__main__ import main; out = sys.argv.pop(1); cProfile.run('main()', out)"
)
"""``python -c`` this, the profile's file, then the arguments: the command under cProfile, written when it
returns (``python -m websearch_tui`` ends with ``os._exit``, which would skip writing it)."""


def our_params(config: Path, env: dict[str, str], profile: Path | None = None) -> StdioServerParameters:
    """``websearch-tui mcp`` over stdio (under cProfile, writing ``profile``, when given)."""
    start = ["-c", PROFILED, str(profile)] if profile else ["-m", "websearch_tui"]
    return StdioServerParameters(
        command=sys.executable, args=[*start, "mcp", "--config", str(config)], env=env, cwd=str(ROOT)
    )


async def timed_calls(client: Client, providers: list[str], searches: int, latencies: list[float]) -> None:
    """Call ``web_search`` ``searches`` times through ``client``, one after another, appending each
    round trip (seconds) to ``latencies``; a tool error ends the benchmark."""
    for _ in range(searches):
        started = time.perf_counter()
        result = await client.call_tool("web_search", {"query": QUERY, "providers": providers})
        latencies.append(time.perf_counter() - started)
        if result.is_error:
            raise SystemExit(f"web_search failed: {result.content[0].text}")


async def stdio_calls(params: StdioServerParameters, providers: list[str], searches: int, exclude: set[int]) -> Calls:
    """``searches`` ``web_search`` calls through one stdio session of the server ``params`` starts (one
    unmeasured call first); ``exclude``: this process's other children (the fake)."""
    calls = Calls()
    started = time.perf_counter()
    async with Client(stdio_client(params)) as client:
        await client.call_tool("web_search", {"query": QUERY, "providers": providers})
        pid = server_pid(exclude)
        VALIDATION.clear()
        cpu_before, calls_started = cpu_seconds(pid), time.perf_counter()
        await timed_calls(client, providers, searches, calls.latencies)
        ended = time.perf_counter()
        calls.server_cpu = cpu_seconds(pid) - cpu_before
    calls.validation, calls.seconds, calls.total = sum(VALIDATION), ended - calls_started, ended - started
    return calls


def cli_processes(config: Path, env: dict[str, str], providers: list[str], searches: int) -> float:
    """Total seconds of ``searches`` consecutive ``websearch-tui search`` processes."""
    argv = [sys.executable, "-m", "websearch_tui", "search", QUERY, "--format", "json", "--config", str(config)]
    for provider in providers:
        argv += ["-p", provider]
    started = time.perf_counter()
    for _ in range(searches):
        out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
        if out.returncode != 0:
            raise SystemExit(f"websearch-tui search failed: {out.stderr}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=20)
    parser.add_argument("--providers", default=DEFAULT_PROVIDERS, help="comma-separated ids")
    parser.add_argument("--peer", help="the seed peer's agent-web-search-mcp command: per-call time side by side")
    parser.add_argument("--profile", type=Path, help="with --peer: cProfile our server, keep the profile here")
    parser.add_argument("--http", action="store_true", help="with --peer: both over Streamable HTTP, --clients at once")
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--recorder", type=int, metavar="N", help="time recording N searches in the history")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    if args.recorder:
        recorder_costs(args.recorder)
        return
    if (args.profile or args.http) and not args.peer:
        parser.error("--profile and --http go with --peer")
    providers = (
        args.providers.split(",") if not args.peer or args.providers != DEFAULT_PROVIDERS else list(PEER_PROVIDERS)
    )
    child, base_url = start_server(__file__)
    try:
        with tempfile.TemporaryDirectory() as folder:
            config = Path(folder) / "config.toml"
            config.write_text(config_toml(base_url), encoding="utf-8")
            env = environment(Path(folder))
            if args.peer:  # the peer paces and caches nothing: neither do we here
                paced = config_toml(base_url).replace("enabled = true", "enabled = true\nmin_interval = 0")
                config.write_text(paced + "\n[cache]\nttl = 0\n", encoding="utf-8")
                side = Side(args.peer, base_url, config, env, providers, args.searches, {child.pid})
                if args.http:
                    compare_http(side, args.clients, args.profile)
                else:
                    compare_with_peer(side, args.profile)
                return
            exclude = {child.pid}
            session = anyio.run(stdio_calls, our_params(config, env), providers, args.searches, exclude)
            processes = cli_processes(config, env, providers, args.searches)
    finally:
        child.kill()
    n = args.searches
    print(f"{n} searches, providers {', '.join(providers)}, loopback fake in a child process")
    total, calls = session.total, session.seconds
    print(f"one MCP session:   {total:6.2f} s total, {total / n * 1000:6.0f} ms per search (start-up included)")
    print(f"                   {calls:6.2f} s in the calls alone, {calls / n * 1000:6.0f} ms per search")
    print(f"{n} CLI processes: {processes:6.2f} s total, {processes / n * 1000:6.0f} ms per search")
    print(f"ratio (processes / session): {processes / total:.1f}x")
    print(f"ratio per call, the session's start-up left out: {processes / calls:.1f}x")


def recorder_costs(searches: int) -> None:
    """Record ``searches`` searches one at a time (each flushed, then 2 ms apart) into a new history;
    print ``record()``'s time on the caller (median, p90) and the process CPU per search."""
    from datetime import datetime, timezone

    from tests.helpers import sample_result
    from websearch_tui.history import HistoryRecorder

    when = datetime.now(timezone.utc)
    results = [sample_result(f"query {n}") for n in range(searches)]
    with tempfile.TemporaryDirectory() as folder:
        recorder = HistoryRecorder(Path(folder) / "history.sqlite3", max_entries=10_000)
        recorder.record(results[0], when)  # the file created, the writer started
        recorder.flush(30)
        calls: list[float] = []
        cpu = time.process_time()
        for result in results:
            started = time.perf_counter()
            recorder.record(result, when)
            calls.append(time.perf_counter() - started)
            recorder.flush(30)
            time.sleep(0.002)
        cpu = time.process_time() - cpu
        recorder.close()
    calls.sort()
    print(f"{searches} searches recorded one at a time, load {os.getloadavg()[0]:.1f}")
    median, p90 = calls[len(calls) // 2], calls[len(calls) * 9 // 10]
    print(f"record() on the caller: median {median * 1e6:.0f} us, p90 {p90 * 1e6:.0f} us")
    print(f"process CPU per search (the writer thread's included): {cpu / searches * 1000:.2f} ms")


@dataclass(frozen=True)
class Side:
    """The comparison's setting: the peer's command, the fake, our config, the environment, the
    providers, calls per session (per client over HTTP) and this process's other children."""

    peer: str
    base_url: str
    config: Path
    env: dict[str, str]
    providers: list[str]
    searches: int
    exclude: set[int]

    def ours(self, profile: Path | None = None) -> Calls:
        """One stdio session of ours."""
        params = our_params(self.config, self.env, profile)
        return anyio.run(stdio_calls, params, self.providers, self.searches, self.exclude)

    def theirs(self) -> Calls:
        """One stdio session of the peer's."""
        params = StdioServerParameters(
            command=self.peer, args=[], env=peer_environment(self.env, self.base_url, self.providers)
        )
        names = [PEER_PROVIDERS[pid] for pid in self.providers]
        return anyio.run(stdio_calls, params, names, self.searches, self.exclude)


def _ms(values: list[float]) -> str:
    return ", ".join(f"{value * 1000:.1f}" for value in values)


def compare_with_peer(side: Side, profile: Path | None) -> None:
    """Interleave three rounds of calls through our stdio session and the peer's; print each side's
    median round trip, server CPU and client check per call, and the ratios; then the profile."""
    _timed_validation()
    rounds: dict[str, list[Calls]] = {"websearch-tui mcp": [], "peer 0.8.1": []}
    for _ in range(3):
        rounds["websearch-tui mcp"].append(side.ours())
        rounds["peer 0.8.1"].append(side.theirs())
    n = side.searches
    print(
        f"{n} web_search calls x 3 rounds, providers {', '.join(side.providers)} (answering at once), "
        f"load {os.getloadavg()[0]:.1f}"
    )
    medians: dict[str, tuple[float, float, float]] = {}
    for name, calls in rounds.items():
        trip = [c.seconds / n for c in calls]
        cpu = [c.server_cpu / n for c in calls]
        check = [c.validation / n for c in calls]
        medians[name] = (statistics.median(trip), statistics.median(cpu), statistics.median(check))
        print(f"{name:18} round trip {medians[name][0] * 1000:5.1f} ms per call (rounds {_ms(trip)})")
        print(f"{'':18} server CPU {medians[name][1] * 1000:5.1f} ms per call (rounds {_ms(cpu)})")
        print(f"{'':18} client's output-schema check {medians[name][2] * 1000:4.1f} ms CPU per call")
    (trip, cpu, check), (peer_trip, peer_cpu, peer_check) = medians.values()
    print(
        f"ratio ours / peer: round trip {trip / peer_trip:.2f}, server CPU {cpu / peer_cpu:.2f}, "
        f"round trip without the client's check {(trip - check) / (peer_trip - peer_check):.2f}"
    )
    if profile is not None:
        side.ours(profile)
        print_profile(profile, f"{n} calls")


def print_profile(profile: Path, what: str) -> None:
    """The top entries of our server's profile by own time."""
    print(f"\nour server under cProfile, {what} (start included), top by own time:")
    pstats.Stats(str(profile)).sort_stats("tottime").print_stats(25)


# --- Streamable HTTP, many clients at once ---------------------------------------------------


@contextmanager
def http_server(argv: list[str], env: dict[str, str], url: str) -> Iterator[int]:
    """Run the HTTP server ``argv`` until the block ends; yields its pid once ``url`` answers."""
    import httpx

    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        for _ in range(200):
            try:
                httpx.post(url, content=b"{}", timeout=1.0)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise SystemExit(f"{argv[0]} did not start serving HTTP")
        yield process.pid
    finally:
        process.send_signal(signal.SIGINT)  # as Ctrl-C: a profiled server writes its profile
        process.wait(20)


async def http_clients(url: str, providers: list[str], clients: int, searches: int) -> Calls:
    """``clients`` MCP sessions over Streamable HTTP at ``url``, each making ``searches`` calls, all at
    once (each session's first call is not measured)."""
    from mcp.client.streamable_http import streamable_http_client

    calls = Calls()
    ready = anyio.Event()
    waiting = [clients]

    async def one() -> None:
        async with Client(streamable_http_client(url)) as client:
            await client.call_tool("web_search", {"query": QUERY, "providers": providers})
            waiting[0] -= 1
            if not waiting[0]:
                VALIDATION.clear()  # the sessions' first checks (each compiles the schema) are not measured
                ready.set()
            await ready.wait()
            await timed_calls(client, providers, searches, calls.latencies)

    async with anyio.create_task_group() as group:
        for _ in range(clients):
            group.start_soon(one)
        await ready.wait()
        calls.seconds = time.perf_counter()
    calls.seconds = time.perf_counter() - calls.seconds
    return calls


def http_round(argv: list[str], env: dict[str, str], url: str, names: list[str], clients: int, searches: int) -> Calls:
    """One HTTP server's round: its calls, with the server's CPU seconds over them."""
    with http_server(argv, env, url) as pid:
        before: list[float] = []

        async def measured() -> Calls:
            before.append(cpu_seconds(pid))
            return await http_clients(url, names, clients, searches)

        calls = anyio.run(measured)
        calls.server_cpu = cpu_seconds(pid) - before[0]  # the warm-up calls are in it: (clients) more
        calls.validation = sum(VALIDATION)  # the measured calls' checks only
    return calls


def compare_http(side: Side, clients: int, profile: Path | None) -> None:
    """Both servers over Streamable HTTP, ``clients`` clients at once, interleaved over three rounds;
    then, with ``profile``, one more round of ours under cProfile."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    serve = ["mcp", "--http", "--port", str(port), "--config", str(side.config)]
    ours_argv = [sys.executable, "-m", "websearch_tui", *serve]
    peer_env = {
        **peer_environment(side.env, side.base_url, side.providers),
        "AGENT_WEB_SEARCH_MCP_TRANSPORT": "http",
        "AGENT_WEB_SEARCH_HTTP_HOST": "127.0.0.1",
        "AGENT_WEB_SEARCH_HTTP_PORT": str(port),
        "AGENT_WEB_SEARCH_ALLOW_ANONYMOUS": "true",
        "AGENT_WEB_SEARCH_HTTP_LOG_LEVEL": "warning",
    }
    names = [PEER_PROVIDERS[pid] for pid in side.providers]
    runs: dict[str, Callable[[], Calls]] = {
        "websearch-tui mcp": lambda: http_round(ours_argv, side.env, url, side.providers, clients, side.searches),
        "peer 0.8.1": lambda: http_round([side.peer], peer_env, url, names, clients, side.searches),
    }
    results: dict[str, list[Calls]] = {name: [] for name in runs}
    _timed_validation()
    for _ in range(3):
        for name, run in runs.items():
            results[name].append(run())
    total = clients * side.searches
    print(
        f"Streamable HTTP, {clients} clients x {side.searches} web_search calls at once x 3 rounds, "
        f"providers {', '.join(side.providers)}, load {os.getloadavg()[0]:.1f}"
    )
    rates: dict[str, float] = {}
    for name, rounds in results.items():
        rate = [total / r.seconds for r in rounds]
        latencies = sorted(t for r in rounds for t in r.latencies)
        cpu = [r.server_cpu / (total + clients) for r in rounds]
        check = [r.validation / total for r in rounds]
        rates[name] = statistics.median(rate)
        p50, p95 = latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.95)]
        print(
            f"{name:18} {rates[name]:6.1f} calls/s (rounds {', '.join(f'{x:.1f}' for x in rate)}), "
            f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"server CPU {statistics.median(cpu) * 1000:.1f} ms per call, "
            f"clients' check {statistics.median(check) * 1000:.1f} ms CPU per call"
        )
    ours, peer = rates.values()
    print(f"throughput ours / peer: {ours / peer:.2f}")
    if profile is not None:
        http_round(
            [sys.executable, "-c", PROFILED, str(profile), *serve],
            side.env,
            url,
            side.providers,
            clients,
            side.searches,
        )
        print_profile(profile, f"{clients} clients x {side.searches} calls")


if __name__ == "__main__":
    main()
