"""Realistic streamed answers for the benchmarks: Markdown the way model-native providers write it.

:func:`answer_markdown` builds a deterministic answer of about ``words`` words made of repeating
sections (a heading, paragraphs with bold, italics, inline code, links and citation markers, a bullet
list with a nested item, a numbered list, a fenced code block, a table and a block quote), so the
renderer meets every block kind a real answer has. :func:`tokens` cuts it into word-sized tokens
(a word with the whitespace after it), and :func:`sonar_stream` serves them as a Perplexity Sonar
SSE stream from the fake server, about ``rate`` tokens per second.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

from tests.fake_providers import FakeRequest, FakeResponse, sse_response

_WORDS = (
    "asyncio schedules coroutines on one event loop so a slow await never blocks the others while "
    "the loop waits on sockets timers and subprocesses tasks wrap coroutines and run them concurrently "
    "gather waits for several tasks at once and returns their results in order cancellation raises "
    "inside the awaiting coroutine so cleanup code runs in finally blocks queues hand work between "
    "producers and consumers without locks semaphores bound how many requests run together"
).split()


def _words(start: int, count: int) -> str:
    """``count`` words of the vocabulary, starting at word ``start`` (wrapping)."""
    return " ".join(_WORDS[(start + i) % len(_WORDS)] for i in range(count))


def _section(n: int) -> str:
    """Section ``n`` of an answer (about 200 words, every block kind once)."""
    w = n * 7
    return (
        f"## Part {n + 1}: {_words(w, 3)}\n\n"
        f"{_words(w, 18).capitalize()} **{_words(w + 18, 3)}** and *{_words(w + 21, 2)}* with "
        f"`asyncio.gather()` as described in [the docs](https://docs.python.org/3/library/asyncio.html#p{n}) "
        f"[{n % 9 + 1}]. {_words(w + 23, 22).capitalize()} [{(n + 3) % 9 + 1}].\n\n"
        f"- {_words(w + 1, 9).capitalize()}\n"
        f"- {_words(w + 10, 11).capitalize()} [{n % 5 + 1}]\n"
        f"  - {_words(w + 4, 6)}\n"
        f"- {_words(w + 20, 8).capitalize()}\n\n"
        f"1. {_words(w + 2, 10).capitalize()}\n"
        f"2. {_words(w + 13, 7).capitalize()}\n\n"
        "```python\n"
        f"async def fetch_{n}(session, url):\n"
        "    async with session.get(url) as response:\n"
        f"        return await response.text()  # part {n + 1}\n"
        "```\n\n"
        "| Tool | What it does | Since |\n"
        "|---|---|---|\n"
        f"| `gather` | {_words(w + 5, 5)} | 3.4 |\n"
        f"| `TaskGroup` | {_words(w + 9, 6)} | 3.11 |\n\n"
        f"> {_words(w + 30, 16).capitalize()}.\n\n"
        f"{_words(w + 40, 30).capitalize()} [{(n + 5) % 9 + 1}].\n\n"
    )


def answer_markdown(words: int) -> str:
    """A Markdown answer of at least ``words`` words (whole sections, about 200 words each)."""
    parts: list[str] = []
    total = 0
    for n in itertools.count():
        if total >= words:
            break
        section = _section(n)
        parts.append(section)
        total += len(section.split())
    return "".join(parts)


def tokens(text: str) -> list[str]:
    """``text`` cut into tokens: each word with the whitespace that follows it (joined, they are ``text``)."""
    return re.findall(r"\s*\S+\s*", text) if text.strip() else [text]


def _chunk(content: str) -> dict[str, Any]:
    choice = {"index": 0, "delta": {"content": content}}
    return {"id": "bench", "model": "sonar", "object": "chat.completion.chunk", "choices": [choice]}


def sonar_stream(words: int, rate: float) -> Callable[[FakeRequest], FakeResponse]:
    """A fake-server handler streaming :func:`answer_markdown` (``words``) as Sonar chunks, one token
    each, ``1 / rate`` seconds apart (the server sleeps between chunks, so the real rate is a little
    lower under load; the benchmarks print the rate they saw)."""
    chunks = [_chunk(piece) for piece in tokens(answer_markdown(words))]
    chunks.append({"id": "bench", "model": "sonar", "object": "chat.completion.done", "choices": []})

    def handler(request: FakeRequest) -> FakeResponse:
        return sse_response(chunks, chunk_delay=1.0 / rate if rate > 0 else 0.0)

    return handler


def token_count(words: int) -> int:
    """How many tokens :func:`sonar_stream` sends for an answer of ``words`` words."""
    return len(tokens(answer_markdown(words)))
