"""Whole-process cost of a headless search, beside the seed peer and bare httpx; TUI first paint.

The loopback fake (in this process, on a thread) answers four providers (Brave, Tavily, You.com,
Perplexity Search) after ``--delay`` seconds each. Each run is a fresh process, timed from spawn to
exit (median and p95 of ``--runs``, the three commands interleaved, after one unmeasured run of
each; the checkout's bytecode is compiled first, as an install has it), with its user+system CPU
and peak RSS from ``wait4``:

- ours: ``websearch-tui search QUERY --fresh -p ... --format json``: ``python -m websearch_tui``
  from this checkout, and each command ``--ours`` names (repeat it to compare builds, e.g. a
  worktree of an earlier commit installed in a venv of its own). The checkout runs on this
  interpreter with whatever its ``site`` loads (an editable-install finder, other ``.pth`` files:
  about 25 ms here that the peer, in its own venv, does not pay); for the figure a user sees,
  install it in a venv of its own as the peer is: ``python3 -m venv /tmp/ours &&
  /tmp/ours/bin/pip install .`` and pass ``--ours /tmp/ours/bin/websearch-tui`` (where pip's
  resolver fails, ``pip install --no-deps`` the checkout and the versions this interpreter has of
  its dependencies);
- the seed peer, agent-web-search 0.8.1, if ``--peer`` names its command (install it in a venv of
  its own: ``python3 -m venv /tmp/peer && /tmp/peer/bin/pip install agent-web-search-mcp==0.8.1``);
- bare httpx: a script that imports asyncio and httpx and sends the same four requests at once,
  nothing else: the floor of any asyncio + httpx program (interpreter start, the imports, the
  fake's delay). Like ours, it loads no certificates for these plain-http requests, and httpx
  skips its command-line client and trio, as when click and trio are not installed.

``--instructions`` then runs each command once more under valgrind's callgrind and prints the
instructions it executed (every thread, start-up included) and their ratios: a count a busy machine
does not change, where CPU seconds on a shared machine move by 10-20% between runs.

Then the TUI's first paint: the time from starting ``python -m websearch_tui`` in tmux (WxH as
``--size``) until the query box's placeholder is on screen.

    python3 benchmarks/headless.py [--runs 10] [--delay 1.0] [--ours CMD ...] [--peer /tmp/peer/bin/agent-web-search]
                                   [--instructions]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.fanout import delay_search_calls  # noqa: E402
from tests.fake_providers import FAKE_KEYS, FakeServer  # noqa: E402
from tests.fake_providers.routes import search_route  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROVIDERS = ("brave", "tavily", "you", "perplexity_search")
PEER_NAMES = {"brave": "brave", "tavily": "tavily", "you": "you", "perplexity_search": "perplexity"}
"""Our provider ids and the peer's names for the same APIs."""
PEER_ENDPOINTS = {
    "brave": "AGENT_WEB_SEARCH_BRAVE_ENDPOINT",
    "tavily": "AGENT_WEB_SEARCH_TAVILY_ENDPOINT",
    "you": "AGENT_WEB_SEARCH_YOU_ENDPOINT",
    "perplexity_search": "AGENT_WEB_SEARCH_PERPLEXITY_ENDPOINT",
}
QUERY = "python asyncio tutorial"

BARE_HTTPX = """
import sys
sys.modules["trio"] = sys.modules["httpx._main"] = None
import asyncio, json
import httpx

async def main(calls):
    async with httpx.AsyncClient(timeout=30, verify=False) as client:  # plain http: no certificates
        replies = await asyncio.gather(*(client.request(m, u, headers=h, content=b) for m, u, h, b in calls))
    print(json.dumps([r.status_code for r in replies]))

asyncio.run(main(json.loads(sys.argv[1])))
"""
"""The floor: the same requests through httpx, nothing else."""


class Run(NamedTuple):
    """One process's figures."""

    wall: float
    """Seconds from spawn to exit."""
    user: float
    """User CPU seconds."""
    system: float
    """System CPU seconds."""
    rss: float
    """Peak RSS, MiB."""
    out: bytes
    """What it printed on stdout."""


def run_once(argv: list[str], env: dict[str, str]) -> Run:
    """The figures of one process running ``argv``.

    Raises:
        SystemExit: the process exited with a code other than 0.
    """
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[:3]}... exited with {os.waitstatus_to_exitcode(status)}")
    return Run(wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024, out)


def instructions(argv: list[str], env: dict[str, str]) -> int:
    """The instructions one process running ``argv`` executes, every thread, start-up included
    (valgrind's callgrind; about 20 times slower than the process alone).

    Raises:
        SystemExit: the process failed, or callgrind reported no count (is valgrind installed?).
    """
    with tempfile.TemporaryDirectory() as folder:
        words = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={Path(folder) / 'callgrind.out'}", *argv]
        done = subprocess.run(words, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{argv[:3]}... under callgrind: exit {done.returncode}, {done.stderr[-300:]}")
    return int(found.group(1))


def instruction_lines(counts: dict[str, int]) -> list[str]:
    """One line per command: its instructions, and their ratio to the peer's and to bare httpx's."""
    lines = []
    for name, count in counts.items():
        ratios = [f"{count / counts[base]:.2f}x {base}" for base in ("peer 0.8.1", "bare httpx") if base in counts]
        lines.append(f"{name:13s} {count / 1e6:8.1f} M instructions  {'  '.join(ratios)}")
    return lines


def bare_calls(server: FakeServer) -> list[tuple[str, str, dict[str, str], str]]:
    """The four search requests as ``(method, url, headers, body)``, as the providers send them."""
    keys = {name: value for name, value in FAKE_KEYS.items()}
    brave, tavily = keys["BRAVE_API_KEY"], keys["TAVILY_API_KEY"]
    you, pplx = keys["YDC_API_KEY"], keys["PERPLEXITY_API_KEY"]
    base = server.base_url
    json_type = {"Content-Type": "application/json"}
    return [
        ("GET", f"{base}/brave/res/v1/web/search?q=python+asyncio+tutorial", {"X-Subscription-Token": brave}, ""),
        (
            "POST",
            f"{base}/tavily/search",
            {**json_type, "Authorization": f"Bearer {tavily}"},
            f'{{"query": "{QUERY}"}}',
        ),
        ("POST", f"{base}/you/v1/search", {**json_type, "X-API-Key": you}, f'{{"query": "{QUERY}"}}'),
        (
            "POST",
            f"{base}/perplexity_search/search",
            {**json_type, "Authorization": f"Bearer {pplx}"},
            f'{{"query": "{QUERY}"}}',
        ),
    ]


def first_paint(program: list[str], config: Path, env: dict[str, str], runs: int, size: tuple[int, int]) -> list[float]:
    """Seconds from starting the TUI (``program``) in tmux until the query box shows its placeholder,
    per run."""
    times = []
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command = f"env -u COLUMNS -u LINES {exports} {shlex.join(program)} --config {config}"
    for _ in range(runs):
        session = f"paint-{uuid.uuid4().hex[:8]}"
        subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1])], check=True)
        try:
            started = time.perf_counter()
            subprocess.run(["tmux", "respawn-pane", "-k", "-t", session, command], check=True)
            while time.perf_counter() - started < 30:
                screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True)
                if "Ask the web" in screen.stdout:
                    times.append(time.perf_counter() - started)
                    break
                time.sleep(0.005)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    return times


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def summary(name: str, results: list[Run], reference: list[Run] | None) -> str:
    """One line: median and p95 wall, median user and system CPU and peak RSS, and the ratios of the
    median wall and user CPU to those of ``reference``."""
    walls = [r.wall for r in results]
    wall, user = statistics.median(walls), statistics.median(r.user for r in results)
    system, rss = statistics.median(r.system for r in results), statistics.median(r.rss for r in results)
    ratio = ""
    if reference:
        base_wall = statistics.median(r.wall for r in reference)
        base_user = statistics.median(r.user for r in reference)
        ratio = f"  ratios: wall {wall / base_wall:.2f} user {user / base_user:.2f}"
    return (
        f"{name:13s} wall median {wall:.2f} s p95 {p95(walls):.2f} s  CPU user {user:.3f} s sys {system:.3f} s"
        f"  peak RSS {rss:.1f} MiB{ratio}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds each provider takes to answer")
    parser.add_argument(
        "--ours",
        action="append",
        default=[],
        help="another websearch-tui command to measure beside python -m websearch_tui (repeatable)",
    )
    parser.add_argument("--peer", help="the seed peer's agent-web-search command (skipped without)")
    parser.add_argument(
        "--instructions", action="store_true", help="count each command's instructions once (valgrind's callgrind)"
    )
    parser.add_argument("--paint-runs", type=int, default=10)
    parser.add_argument("--size", type=int, nargs=2, default=(240, 60), metavar=("W", "H"))
    args = parser.parse_args()
    env = {
        **os.environ,
        **FAKE_KEYS,
        "BRAVE_SEARCH_API_KEY": FAKE_KEYS["BRAVE_API_KEY"],
        "PYTHONPATH": str(ROOT),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    # an installed package has its bytecode (pip compiles it); a checkout run with
    # PYTHONDONTWRITEBYTECODE would compile every module at every start
    compileall.compile_dir(ROOT / "websearch_tui", quiet=1)
    with FakeServer() as server, tempfile.TemporaryDirectory() as folder:
        config = server.write_config(Path(folder) / "config.toml", providers=list(PROVIDERS))
        env["WEBSEARCH_TUI_LOG"] = str(Path(folder) / "log.txt")
        env["WEBSEARCH_TUI_HISTORY"] = str(Path(folder) / "history.sqlite3")
        delay_search_calls(server, args.delay)
        command = [sys.executable, "-m", "websearch_tui"]
        search = ["search", QUERY, "--fresh", "--format", "json", "--config", str(config)]
        for pid in PROVIDERS:
            search += ["-p", pid]
        commands = {"websearch-tui": [*command, *search]}
        for number, other in enumerate(args.ours, 1):
            commands[f"--ours {number}"] = [other, *search]
        commands["bare httpx"] = [sys.executable, "-c", BARE_HTTPX, json.dumps(bare_calls(server))]
        if args.peer:
            peer = [args.peer, QUERY]
            for pid in PROVIDERS:
                peer += ["--provider", PEER_NAMES[pid]]
                env[PEER_ENDPOINTS[pid]] = server.base_url + search_route(pid)[1]
            env["AGENT_WEB_SEARCH_PROVIDERS"] = ",".join(PEER_NAMES[pid] for pid in PROVIDERS)
            commands["peer 0.8.1"] = peer
        results: dict[str, list[Run]] = {name: [] for name in commands}
        # an --ours command runs its own install: this checkout is not put before it on the import path
        installed = {key: value for key, value in env.items() if key != "PYTHONPATH"}
        envs = {name: installed if name.startswith("--ours") else env for name in commands}
        for name, argv in commands.items():  # one unmeasured run each: the page cache, not the first run, is measured
            run_once(argv, envs[name])
        for _ in range(args.runs):
            for name, argv in commands.items():
                results[name].append(run_once(argv, envs[name]))
        counts: dict[str, int] = {}
        if args.instructions:  # all at once: a count does not depend on what else runs
            with ThreadPoolExecutor(len(commands)) as pool:
                futures = {name: pool.submit(instructions, argv, envs[name]) for name, argv in commands.items()}
            counts = {name: future.result() for name, future in futures.items()}
        tui_env = {
            k: v
            for k, v in env.items()
            if k in ("PYTHONPATH", "PYTHON_KEYRING_BACKEND", "WEBSEARCH_TUI_LOG", "WEBSEARCH_TUI_HISTORY")
        }
        paints = (
            first_paint(command, config, {**tui_env, "TERM": "xterm-256color"}, args.paint_runs, args.size)
            if shutil.which("tmux")
            else []
        )
    load = os.getloadavg()[0]
    print(f"{len(PROVIDERS)} providers x {args.delay:g} s delay on loopback, {args.runs} runs each (load {load:.1f})")
    reference = results.get("peer 0.8.1") or results["bare httpx"]
    print("ratios to " + ("the peer" if "peer 0.8.1" in results else "bare httpx"))
    print(summary("websearch-tui", results["websearch-tui"], reference))
    for number, other in enumerate(args.ours, 1):
        print(summary(f"--ours {number}", results[f"--ours {number}"], reference) + f"  ({other})")
    peer = results.get("peer 0.8.1")
    print(summary("peer 0.8.1", peer, None) if peer else "peer 0.8.1    not measured (--peer)")
    print(summary("bare httpx", results["bare httpx"], reference if peer else None))
    if counts:
        print("instructions per search (callgrind, every thread, start-up included):")
        print("\n".join(instruction_lines(counts)))
    if paints:
        size = f"{args.size[0]}x{args.size[1]}"
        print(f"TUI first paint ({size}): median {statistics.median(paints):.2f} s, p95 {p95(paints):.2f} s")


if __name__ == "__main__":
    main()
