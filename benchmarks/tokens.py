"""Per-token cost of the engine with keys registered: is a stream's work linear in its length?

One provider streams N one-word answer pieces from memory (no HTTP, no UI, no pacing), through the
real engine: the reducer folds each piece (sanitizing and redacting it), the engine reports each
change to a front end's callback. The run is repeated with 0 and with K keys registered, as the
credential layer registers a configured user's keys (:mod:`benchmarks._keys`), for N = 2,000 to
16,000. Printed, not asserted: seconds per run (median of ``--runs``, after a warm-up run),
microseconds per token, and the 16,000/2,000 ratio (8.0 = linear; more = each token costs more the
longer the answer is).

    python3 benchmarks/tokens.py [--keys 3] [--runs 3] [--tokens 2000 4000 8000 16000]

To compare two checkouts side by side, run the same file against each (``PYTHONPATH=<checkout>``
puts that checkout's package first) and interleave the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH: another checkout's package may be tested

from benchmarks._keys import register_user_keys  # noqa: E402
from websearch_tui.core import errors  # noqa: E402
from websearch_tui.core.models import AnswerDelta, SearchRequest  # noqa: E402
from websearch_tui.engine import engine as engine_module  # noqa: E402
from websearch_tui.engine.engine import Engine  # noqa: E402

PROVIDER = "exa"  # any keyless provider id: its adapter is replaced by the in-memory stream


def in_memory_stream(tokens: int):
    """A provider ``stream`` yielding ``tokens`` one-word answer pieces (a blank line every 40)."""

    async def stream(request: Any, ctx: Any) -> AsyncIterator[AnswerDelta]:
        for n in range(tokens):
            yield AnswerDelta(f"word{n} " + ("\n\n" if n % 40 == 39 else ""))

    return stream


async def one_run(tokens: int) -> float:
    """Seconds to stream ``tokens`` pieces through the engine (a front end's callback included)."""
    engine_module.load_stream = lambda provider_id: in_memory_stream(tokens)
    engine = Engine(default_providers=(PROVIDER,), timeout=600, resolve_credentials=lambda spec: {})
    seen = 0

    def on_update(update: Any) -> None:
        nonlocal seen
        seen += 1  # a front end that shows the pieces (it reads update.event, not the whole answer)

    try:
        started = time.perf_counter()
        await engine.search(SearchRequest(query="bench", providers=(PROVIDER,)), on_update, record=False)
        return time.perf_counter() - started
    finally:
        await engine.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tokens", type=int, nargs="+", default=[2000, 4000, 8000, 16000])
    args = parser.parse_args()
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    print(f"package: {Path(errors.__file__).resolve().parents[2]}   load average: {os.getloadavg()[0]:.2f}")
    for keys in (0, args.keys):
        if keys:
            register_user_keys(keys)
        asyncio.run(one_run(args.tokens[0]))  # warm-up: imports, first compilations
        times = {n: statistics.median(asyncio.run(one_run(n)) for _ in range(args.runs)) for n in args.tokens}
        cells = "  ".join(f"{n}: {t:.3f} s ({t / n * 1e6:.1f} us/token)" for n, t in times.items())
        ratio = times[args.tokens[-1]] / times[args.tokens[0]]
        print(f"{keys} keys  {cells}  ratio {args.tokens[-1]}/{args.tokens[0]}: {ratio:.1f}")


if __name__ == "__main__":
    main()
