"""Fan-out cost: every provider (24 with their fakes), each delayed by the fake server, searched at once.

Prints the wall time of one ``compare`` search and its ratio to the per-provider delay
(about 1.0 means the search costs the slowest provider, not the sum). Not a pass/fail test.

    python3 benchmarks/fanout.py [--delay 1.0] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fake_providers import FAKE_KEYS, PROVIDERS, FakeRequest, FakeResponse, FakeServer  # noqa: E402
from tests.fake_providers.routes import search_route  # noqa: E402
from websearch_tui.core.models import SearchRequest  # noqa: E402
from websearch_tui.engine.engine import Engine  # noqa: E402
from websearch_tui.settings.config import load_config  # noqa: E402


def delay_search_calls(server: FakeServer, delay: float) -> None:
    """Make each provider's search call (not MCP handshakes) wait ``delay`` seconds."""

    def delayed(inner):
        async def handler(request: FakeRequest) -> FakeResponse:
            if not request.path.endswith("/mcp") or b'"tools/call"' in request.body:  # not MCP handshakes
                await asyncio.sleep(delay)
            response = inner(request) if callable(inner) else inner
            return await response if asyncio.iscoroutine(response) else response

        return handler

    routes = {pid: search_route(pid) for pid in PROVIDERS}
    for method, path in routes.values():
        server.set(method, path, delayed(server.handler(method, path)))


async def one_search(config_path: Path) -> tuple[float, list[str]]:
    """Run one compare search over every provider; return (seconds, statuses)."""
    engine = Engine.from_config(load_config(config_path))
    try:
        started = time.perf_counter()
        result = await engine.search(SearchRequest(query="python asyncio tutorial", providers=PROVIDERS))
        return time.perf_counter() - started, [f"{o.provider}:{o.status.value}" for o in result.outcomes]
    finally:
        await engine.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=1.0, help="seconds the fake server waits per response")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.update(FAKE_KEYS)
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    with FakeServer() as server, tempfile.TemporaryDirectory() as folder:
        config = server.write_config(Path(folder) / "config.toml")
        delay_search_calls(server, args.delay)
        timings = []
        for run in range(args.runs):
            seconds, statuses = asyncio.run(one_search(config))
            timings.append(seconds)
            print(f"run {run + 1}: {seconds:.2f} s  {' '.join(statuses)}")
    best = min(timings)
    print(f"{len(PROVIDERS)} providers x {args.delay:g} s delay: best {best:.2f} s")
    print(f"ratio to one provider's delay: {best / args.delay:.2f}  (sequential would be ~{len(PROVIDERS)}+)")


if __name__ == "__main__":
    main()
