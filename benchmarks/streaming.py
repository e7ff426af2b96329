"""Streaming smoothness: six panes each streaming 3,000 tokens at 2 ms per token, over real HTTP.

The loopback fake (in a child process, so it does not compete with the UI for the GIL) serves six
Sonar-style SSE streams, one per pane; the real Perplexity adapter parses them and the real TUI
(headless) renders them. Printed, not asserted:

- bare stream time: the same six streams through the engine alone (no UI);
- render-complete time: from Enter until every pane shows its whole answer;
- their ratio (1.0 = the UI adds nothing), plus event-loop lag while streaming (how late a 10 ms
  timer fires: what typing in the query box would feel like).

    python3 benchmarks/streaming.py [--panes 6] [--tokens 3000] [--token-delay 0.002] [--keys 3]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._child import start_server  # noqa: E402
from benchmarks._keys import DEFAULT_KEYS, register_user_keys  # noqa: E402
from tests.fake_providers import FakeRequest, FakeServer, sse_response  # noqa: E402
from websearch_tui.core.models import SearchRequest  # noqa: E402
from websearch_tui.core.specs import ProviderSettings  # noqa: E402
from websearch_tui.engine import engine as engine_module  # noqa: E402
from websearch_tui.engine.engine import Engine  # noqa: E402
from websearch_tui.providers import load_stream  # noqa: E402
from websearch_tui.settings.config import Config, SearchSettings  # noqa: E402

SIZE = (240, 60)
PANES = ("perplexity", "anthropic", "openai", "gemini", "grok", "zhipu_chat_search")
"""Pane ids; every one runs the Perplexity adapter against its own fake stream."""


def token_stream(tokens: int, delay: float):
    """A fake-server handler streaming ``tokens`` one-word chat.completion.chunk events."""

    def handler(request: FakeRequest):
        chunks = []
        for n in range(tokens):
            text = f"word{n} " + ("\n\n" if n % 40 == 39 else "")
            choice = {"index": 0, "delta": {"content": text}}
            chunks.append({"id": "bench", "model": "sonar", "object": "chat.completion.chunk", "choices": [choice]})
        chunks.append({"id": "bench", "model": "sonar", "object": "chat.completion.done", "choices": []})
        return sse_response(chunks, chunk_delay=delay)

    return handler


def expected_answer(tokens: int) -> int:
    """Length of the full answer text."""
    return sum(len(f"word{n} ") + (2 if n % 40 == 39 else 0) for n in range(tokens))


def make_engine(base_url: str, panes: tuple[str, ...]) -> Engine:
    # Sonar-style streams: the Perplexity adapter's chat-completions path (api = "chat")
    settings = {pid: ProviderSettings(base_url=f"{base_url}/perplexity", options={"api": "chat"}) for pid in panes}
    return Engine(
        settings=settings,
        default_providers=panes,
        timeout=600,
        resolve_credentials=lambda spec: {"api_key": "fake-perplexity-key"},
    )


async def bare(base_url: str, panes: tuple[str, ...]) -> float:
    engine = make_engine(base_url, panes)
    try:
        started = time.perf_counter()
        await engine.search(SearchRequest(query="bench", providers=panes))
        return time.perf_counter() - started
    finally:
        await engine.aclose()


async def with_tui(base_url: str, panes: tuple[str, ...], answer_chars: int) -> tuple[float, list[float]]:
    from tests.tui.conftest import fixed_status, submit
    from websearch_tui.tui.app import WebSearchApp

    config = Config(search=SearchSettings(providers=panes, max_results=10, timeout=600))
    tuned = {"tune_gc": True} if "tune_gc" in inspect.signature(WebSearchApp).parameters else {}  # as the real app
    app = WebSearchApp(config, make_engine(base_url, panes), status_resolver=fixed_status, **tuned)
    lags: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        started = time.perf_counter()
        await submit(pilot, "bench")
        screen = app.screen
        while True:
            tick = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append((time.perf_counter() - tick - 0.01) * 1000)
            panes_now = screen.pane_area.panes
            done = all(p.status == "done" and len(p.answer.source) >= answer_chars for p in panes_now)
            if done:
                return time.perf_counter() - started, lags


def serve(port: int, tokens: int, delay: float) -> None:
    """Child process: the fake server with the benchmark route, until killed."""
    server = FakeServer(port=port)
    server.set("POST", "/perplexity/chat/completions", token_stream(tokens, delay))
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--panes", type=int, default=6)
    parser.add_argument("--tokens", type=int, default=3000)
    parser.add_argument("--token-delay", type=float, default=0.002)
    parser.add_argument("--keys", type=int, default=DEFAULT_KEYS, help="keys registered, as a configured user has")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.tokens, args.token_delay)
        return
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    # never the user's remembered controls (they would pick other panes) nor their history
    scratch = tempfile.mkdtemp(prefix="websearch-bench-")
    os.environ["WEBSEARCH_TUI_STATE"] = os.path.join(scratch, "state.json")
    os.environ["WEBSEARCH_TUI_HISTORY"] = os.path.join(scratch, "history.sqlite3")
    register_user_keys(args.keys)
    panes = PANES[: args.panes]
    perplexity = load_stream("perplexity")
    engine_module.load_stream = lambda provider_id: perplexity  # every pane speaks Sonar to the fake
    nominal = args.tokens * args.token_delay
    child, base_url = start_server(__file__, "--tokens", str(args.tokens), "--token-delay", str(args.token_delay))
    try:
        bare_seconds = asyncio.run(bare(base_url, panes))
        ui_seconds, lags = asyncio.run(with_tui(base_url, panes, expected_answer(args.tokens)))
    finally:
        child.kill()
    print(
        f"{len(panes)} panes x {args.tokens} tokens at {args.token_delay * 1000:g} ms (nominal {nominal:.1f} s), "
        f"{args.keys} keys registered, load average {os.getloadavg()[0]:.2f}"
    )
    print(f"bare stream time (engine only): {bare_seconds:.2f} s")
    print(f"render-complete time (TUI):     {ui_seconds:.2f} s")
    print(f"ratio render/bare: {ui_seconds / bare_seconds:.2f}   ratio render/nominal: {ui_seconds / nominal:.2f}")
    lags.sort()
    p95 = lags[int(len(lags) * 0.95)]
    median = statistics.median(lags)
    print(f"event-loop lag while streaming: median {median:.1f} ms, p95 {p95:.1f} ms, max {lags[-1]:.1f} ms")


if __name__ == "__main__":
    main()
