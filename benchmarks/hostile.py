"""Hostile responses: the time and memory one hostile input costs, for the classes issue "Hardening"
names. Run it against this checkout, and against an older one to compare side by side:

    python3 benchmarks/hostile.py                      # this checkout
    PYTHONPATH=/path/to/old/checkout python3 benchmarks/hostile.py --budget 60

Each case runs in a child process with a time budget (``--budget`` seconds): a case that does not
finish inside it prints ``> budget``. The time is the hostile part only (building the input is not
counted); memory is the child's peak RSS (the input included). Printed, not asserted.

- ``comments title``: a 160 KB title of unclosed ``<!--`` through the title cleaner (``plain_text``);
- ``retry hint``: a 429 body of "retry" and 30,000 spaces through the retry-hint reader;
- ``20k citations``: one event with 20,000 citations folded by the reducer;
- ``4k citation events``: 4,000 events of one citation each folded by the reducer;
- ``deflate bomb``: a 1 GiB deflate body (about 1 MiB on the wire) read with the 8 MiB cap.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import resource
import sys
import time
import zlib
from collections.abc import Callable

BUDGET = 30.0


def comments_title() -> float:
    from websearch_tui.core.text import plain_text

    started = time.perf_counter()
    plain_text("<!--" * 40_000 + "x")
    return time.perf_counter() - started


def retry_hint() -> float:
    from websearch_tui.providers.transport.http import retry_hint as hint

    started = time.perf_counter()
    hint({}, None, "retry" + " " * 30_000)
    return time.perf_counter() - started


def many_citations() -> float:
    from websearch_tui.core.models import Citation, CitationsFound, ResponseBuilder

    citations = tuple(Citation(f"https://c{i}.example/", f"c{i}") for i in range(20_000))
    started = time.perf_counter()
    builder = ResponseBuilder("perplexity")
    builder.apply(CitationsFound(citations))
    builder.response  # noqa: B018 - read it, as a front end does
    return time.perf_counter() - started


def citation_events() -> float:
    from websearch_tui.core.models import Citation, CitationsFound, ResponseBuilder

    started = time.perf_counter()
    builder = ResponseBuilder("anthropic")
    for i in range(4_000):
        builder.apply(CitationsFound((Citation(f"https://c{i}.example/", f"c{i}"),)))
        builder.response  # noqa: B018 - a live view reads it after every event
    return time.perf_counter() - started


def deflate_bomb() -> float:
    import httpx

    from websearch_tui.core.errors import ProviderError
    from websearch_tui.providers.base import ProviderContext
    from websearch_tui.providers.transport import http

    try:
        from websearch_tui.core.specs import ProviderSpec
    except ImportError:  # an older checkout kept specs in providers.base
        from websearch_tui.providers.base import ProviderSpec  # type: ignore[attr-defined,no-redef]

    packer = zlib.compressobj(1)
    block = b"\0" * (1024 * 1024)
    packed = b"".join(packer.compress(block) for _ in range(1024)) + packer.flush()

    async def body():
        for start in range(0, len(packed), 64 * 1024):
            yield packed[start : start + 64 * 1024]

    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body(), headers={"content-encoding": "deflate"})

    async def run() -> None:
        client = httpx.AsyncClient(transport=httpx.MockTransport(reply))
        spec = ProviderSpec(id="brave", label="Brave Search", kind="conventional", module="x")
        ctx = ProviderContext(spec=spec, client=client)
        try:
            async with client.stream("GET", "https://bomb.example/") as response:
                await http.read_capped(ctx, response)
        except (ProviderError, httpx.DecodingError):
            pass
        finally:
            await client.aclose()

    started = time.perf_counter()
    asyncio.run(run())
    return time.perf_counter() - started


CASES: dict[str, Callable[[], float]] = {
    "comments title": comments_title,
    "retry hint": retry_hint,
    "20k citations": many_citations,
    "4k citation events": citation_events,
    "deflate bomb": deflate_bomb,
}


def _child(name: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    seconds = CASES[name]()
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((seconds, peak_mib))


def measure(name: str, budget: float) -> str:
    """``"0.012 s, peak 38 MiB"`` or ``"> 30 s"`` for one case, in a child process."""
    queue: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    child = multiprocessing.Process(target=_child, args=(name, queue))
    child.start()
    child.join(budget)
    if child.is_alive():
        child.kill()
        child.join()
        return f"> {budget:g} s (did not finish)"
    if queue.empty():
        return f"failed (exit {child.exitcode})"
    seconds, peak = queue.get()
    return f"{seconds:8.3f} s, peak RSS {peak:6.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=BUDGET, help="seconds a case may take")
    args = parser.parse_args()
    import websearch_tui

    print(f"checkout: {websearch_tui.__file__.rsplit('/websearch_tui/', 1)[0]}")
    for name in CASES:
        print(f"{name:20} {measure(name, args.budget)}")


if __name__ == "__main__":
    sys.exit(main())
