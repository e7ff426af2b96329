"""Reading a page: the CPU one read of a ~1 MB article costs, fetched from a loopback server and
extracted, beside extraction alone and trafilatura alone on the same bytes.

The article is built here, deterministically, the way news pages are heavy: some 100 KB of article
text (headings, lists, a table, links) inside about 1 MB of HTML, the rest navigation, related-story
cards, inline scripts and styles. The server runs in a child process, so this process's CPU time
(every thread: the event loop and the extraction workers) is the reader's alone. Prints the median
CPU and wall time per page over ``--pages`` sequential reads after one warm-up, for:

- ``trafilatura alone``: ``trafilatura.extract(html, output_format="markdown")`` with its defaults
  (the library as anyone would call it, with its own HTML parsing and fallbacks);
- ``extraction``: the reader's work on bytes already in memory (decode, parse, element count,
  trafilatura's metadata and Markdown, digest, word count);
- ``fetch + extract``: ``Reader.read(url)`` over loopback HTTP (guard, redirects, capped body
  reading, then the same extraction in a worker thread).

Target: fetch + extract under 250 ms of CPU per page on a 2-core machine. Not a pass/fail test.

    python3 benchmarks/reader.py [--pages 20] [--size 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.page_server import PageServer, html_reply  # noqa: E402
from websearch_tui.core.pages import ReaderSettings, utc_now  # noqa: E402
from websearch_tui.reader import Reader, build_page  # noqa: E402
from websearch_tui.reader.fetch import BodyKind, Fetched  # noqa: E402


def article(size: int, seed: int = 11) -> bytes:
    """A news-like page of about ``size`` bytes whose article holds some 100 KB of text."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(4000)]

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(8, 20))).capitalize() + "."

    body = ["<h1>A long article about many things</h1>"]
    while sum(map(len, body)) < 100_000:
        n = len(body)
        if n % 12 == 0:
            body.append(f"<h2>Part {n}</h2>")
        if n % 19 == 0:
            body.append("<ul>" + "".join(f"<li>{sentence()}</li>" for _ in range(4)) + "</ul>")
        if n % 47 == 0:
            rows = "".join(f"<tr><td>{rng.choice(words)}</td><td>{rng.randint(1, 999)}</td></tr>" for _ in range(6))
            body.append(f"<table><tr><th>Name</th><th>Value</th></tr>{rows}</table>")
        body.append(f"<p>{' '.join(sentence() for _ in range(4))} <a href='/story/{n}'>more</a></p>")
    head = (
        "<!doctype html><html><head><meta charset='utf-8'><title>A long article about many things</title>"
        "<meta name='author' content='Jane Doe'><meta property='og:site_name' content='Example News'>"
        "<meta property='article:published_time' content='2024-05-01T10:00:00Z'>"
    )
    script = "<script>" + "".join(f"window.cfg{i}={{id:{i},v:'{rng.random()}'}};" for i in range(12_000)) + "</script>"
    style = "<style>" + "".join(f".c{i}{{margin:{i % 40}px;color:#{i % 999:03d}}}" for i in range(6_000)) + "</style>"
    nav = "<nav><ul>" + "".join(f"<li><a href='/s/{i}'>Section {i}</a></li>" for i in range(60)) + "</ul></nav>"
    page = [head, style, script, "</head><body>", nav, "<main><article>", *body, "</article></main><aside>"]
    card = 0
    while sum(map(len, page)) < size - 200:
        card += 1
        page.append(f"<div class='card c{card}'><a href='/related/{card}'>Related story {card}</a></div>")
    page.append("</aside><footer><p>Copyright Example News</p></footer></body></html>")
    return "".join(page).encode()


def serve(body: bytes, port: multiprocessing.connection.Connection) -> None:
    """In the child: serve ``body`` at ``/article`` and send the port; run until terminated."""
    server = PageServer()
    server.route("/article", html_reply(body))
    port.send(server.port)
    while True:
        time.sleep(3600)


def per_page(run: Callable[[], object], pages: int) -> tuple[float, float]:
    """Median CPU and wall milliseconds of ``run()`` over ``pages`` runs, after one warm-up."""
    run()
    cpu, wall = [], []
    for _ in range(pages):
        started_cpu, started = time.process_time(), time.perf_counter()
        run()
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20, help="reads measured (default 20)")
    parser.add_argument("--size", type=int, default=1_000_000, help="page size in bytes (default 1,000,000)")
    options = parser.parse_args()

    body = article(options.size)
    receiver, sender = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.Process(target=serve, args=(body, sender), daemon=True)
    child.start()
    url = f"http://127.0.0.1:{receiver.recv()}/article"

    import trafilatura

    fetched = Fetched(url, url, 200, "text/html", "utf-8", BodyKind.HTML, body, False)
    page = build_page(fetched, utc_now())
    print(f"page: {len(body):,} bytes, {page.word_count:,} words of main text ({len(page.text):,} characters)")

    loop = asyncio.new_event_loop()
    reader = Reader(ReaderSettings(allow_private=("127.0.0.1",)))
    try:
        rows = [
            ("trafilatura alone", per_page(lambda: trafilatura.extract(body, output_format="markdown"), options.pages)),
            ("extraction", per_page(lambda: build_page(fetched, utc_now()), options.pages)),
            ("fetch + extract", per_page(lambda: loop.run_until_complete(reader.read(url)), options.pages)),
        ]
    finally:
        loop.run_until_complete(reader.aclose())
        loop.close()
        child.terminate()
    print(f"{'per page (median of ' + str(options.pages) + ')':<28}{'CPU ms':>10}{'wall ms':>10}")
    for name, (cpu, wall) in rows:
        print(f"{name:<28}{cpu:>10.0f}{wall:>10.0f}")
    print("target: fetch + extract under 250 ms of CPU per page")


if __name__ == "__main__":
    main()
