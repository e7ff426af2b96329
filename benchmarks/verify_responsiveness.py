"""Responsiveness while citations are checked: key-to-echo latency in a real terminal while the app
checks 20 citations, beside the same figure while 6 panes stream (``benchmarks/terminal.py``).

The real app runs in tmux (a tmux server of its own: ``TMUX_TMPDIR`` points at a private folder),
started by ``terminal.py``'s app runner with two settings added: ``[reader] allow_private =
["127.0.0.1"]`` and ``[verify] auto = true``. Its providers (``--providers``, 4 by default) speak
Sonar to a loopback fake in a child process, which also serves the cited pages: ``--citations`` (20)
news-like articles of ``--size`` bytes of HTML each (1 MB: some 100 KB of article text among scripts,
styles and cards; ``benchmarks/reader.py``'s :func:`article`), one page per citation. Each answer
cites its share of the pages, each citation in ``--claims`` sentences taken from its page (one quoted
as it is, the next reworded), so reading, extracting and matching all take real CPU. The answers are
short and end in about a second; the check then starts on its own (``[verify] auto``, what ``C``
does). While the hint line says "Checking citations", one letter is typed into the query box at
random gaps of half to one and a half ``--interval`` and the time until tmux shows its echo is
measured, exactly as ``terminal.py`` does while panes stream (its ``type_while_streaming``). A round
is a search and its check; ``--rounds`` rounds are run (each round's page URLs differ, so no page
is reused from the history) and the keys of all rounds pooled. Then ``--idle-keys`` keys are typed
with nothing running, as the floor.

The baseline is ``terminal.py`` itself, run first in a child (6 panes, 3000 words at 100 tokens/s,
the same ``--interval``), its key-to-echo line parsed; ``--baseline MEDIAN P95 MAX`` (milliseconds)
uses figures measured before instead. Printed, not asserted: both key-to-echo figures (median,
p95, max) side by side with their ratios, the idle floor, how long each check took (wall, and the
app process's CPU, every thread), the three slowest keys, the tally each check ended with and the
load average. Two runs on a shared 2-core machine (load average 7-9): while checking, median 37 and 40
ms, p95 112 and 155 ms, max 346 and 359 ms; while streaming, median 39 and 61 ms, p95 192 and 230
ms, max 244 and 368 ms; a check of 20 citations took 5-8 s (3.4-4.6 s of app CPU).

    python3 benchmarks/verify_responsiveness.py [--rounds 3] [--citations 20] [--providers 4]
    python3 benchmarks/verify_responsiveness.py --baseline 39 192 244
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import terminal  # noqa: E402
from benchmarks._answers import _chunk, tokens  # noqa: E402
from benchmarks._child import start_server  # noqa: E402
from benchmarks.reader import article  # noqa: E402
from benchmarks.terminal import QUERY, Tmux, percentile  # noqa: E402

CHECKING = "Checking citations"
"""What the hint line says while the citations are checked."""
TALLY = re.compile(r"\d+ of \d+ citations? checks? out")
"""The hint line's tally once they are checked ("6 of 8 citations check out")."""
ECHO = re.compile(r"key-to-echo: median (\d+) ms, p95 (\d+) ms, max (\d+) ms over (\d+) keys")


# --- the pages and answers (built by the driver, served by the child) ---------------------------


def sentences_of(page: bytes, count: int) -> list[str]:
    """``count`` sentences of the article's paragraphs, spread from its top to its end."""
    paragraphs = re.findall(r"<p>(.*?) <a href", page.decode())
    sentences = [s for p in paragraphs for s in re.split(r"(?<=\.) ", p) if len(s.split()) >= 8]
    step = max(1, len(sentences) // (count + 1))
    return [sentences[step * (n + 1) % len(sentences)] for n in range(count)]


def claim(sentence: str, reworded: bool) -> str:
    """``sentence`` as an answer states it (without its full stop): as it is, or reworded (its
    first three words moved to its end)."""
    words = sentence.rstrip(".").split()
    return " ".join(words[3:] + [w.lower() for w in words[:3]]) if reworded else " ".join(words)


def build(folder: Path, providers: int, citations: int, claims: int, size: int) -> None:
    """Write the cited pages (``page-N.html``) and each provider's answer (``answers.json``: the
    Markdown and the page numbers it cites, in marker order) to ``folder``."""
    answers: list[dict[str, Any]] = [{"pages": [], "text": ["## What the sources say\n\n"]} for _ in range(providers)]
    for n in range(citations):
        page = article(size, seed=100 + n)
        (folder / f"page-{n}.html").write_bytes(page)
        answer = answers[n % providers]
        answer["pages"].append(n)
        marker = len(answer["pages"])
        said = [f"{claim(s, k % 2 == 1)} [{marker}]." for k, s in enumerate(sentences_of(page, claims))]
        answer["text"].append(" ".join(said) + "\n\n")
    kept = [{"pages": answer["pages"], "text": "".join(answer["text"])} for answer in answers]
    (folder / "answers.json").write_text(json.dumps(kept))


def serve(port: int, folder: Path, rate: float) -> None:
    """In the child: the pages at ``/page/N`` and the answers as Sonar streams (request ``k`` gets
    answer ``k mod providers``, its citations pointing at ``/page/N?round=k // providers``)."""
    from tests.fake_providers import FakeResponse, FakeServer, sse_response

    answers = json.loads((folder / "answers.json").read_text())
    base = f"http://127.0.0.1:{port}"
    server = FakeServer(port=port, default_routes=False)
    for path in folder.glob("page-*.html"):
        number = path.stem.removeprefix("page-")
        reply = FakeResponse(200, {"Content-Type": "text/html; charset=utf-8"}, body=path.read_bytes())
        server.set("GET", f"/page/{number}", reply)
    requests = itertools.count()

    def sonar(request: Any) -> Any:
        round_, which = divmod(next(requests), len(answers))
        answer = answers[which]
        urls = [f"{base}/page/{n}?round={round_}" for n in answer["pages"]]
        chunks = [{**_chunk(piece), "citations": urls} for piece in tokens(answer["text"])]
        chunks.append({"id": "bench", "model": "sonar", "object": "chat.completion.done", "choices": []})
        return sse_response(chunks, chunk_delay=1.0 / rate)

    server.set("POST", "/perplexity/chat/completions", sonar)
    server.serve_forever()


# --- the app side (runs inside tmux) -------------------------------------------------------------


def run_app(base_url: str, providers: int, stats: Path) -> None:
    """``terminal.py``'s app, with the reader allowed on loopback and ``[verify] auto``; every
    check's start (monotonic), wall and process CPU seconds go to ``stats`` + ``.checks.json``."""
    from websearch_tui.core.pages import ReaderSettings
    from websearch_tui.session import Session
    from websearch_tui.settings.config import VerifySettings
    from websearch_tui.tui.app import WebSearchApp

    settings = {"reader": ReaderSettings(allow_private=("127.0.0.1",)), "verify": VerifySettings(auto=True)}
    init = WebSearchApp.__init__

    def configured(self: WebSearchApp, config: Any, *args: Any, **kwargs: Any) -> None:
        init(self, dataclasses.replace(config, **settings), *args, **kwargs)

    checks: list[tuple[float, float, float]] = []
    verify = Session.verify

    async def timed(self: Session, result: Any, **kwargs: Any) -> None:
        started, cpu = time.monotonic(), time.process_time()
        try:
            await verify(self, result, **kwargs)
        finally:
            checks.append((started, time.monotonic() - started, time.process_time() - cpu))
            stats.with_suffix(".checks.json").write_text(json.dumps(checks))

    WebSearchApp.__init__ = configured  # type: ignore[method-assign]
    Session.verify = timed  # type: ignore[method-assign]
    terminal.run_app(base_url, providers, stats)


# --- the driver side ------------------------------------------------------------------------------


def baseline(args: argparse.Namespace) -> tuple[list[float], str]:
    """Run ``terminal.py`` (6 panes streaming); its ``[median, p95, max]`` ms and its header line."""
    script = Path(terminal.__file__)
    argv = [sys.executable, str(script), "--panes", "6", "--interval", str(args.interval), "--pagedowns", "0"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    found = ECHO.search(out)
    if found is None:
        raise SystemExit(f"terminal.py printed no key-to-echo line:\n{out}")
    load = re.search(r"load average at the end: ([\d.]+)", out)
    header = f"{out.splitlines()[0]}; {found.group(4)} keys, load average {load.group(1) if load else '?'}"
    return [float(found.group(n)) for n in (1, 2, 3)], header


def on_screen(tmux: Tmux, text: str) -> bool:
    """True when ``text`` is anywhere on the screen."""
    return any(text in line for line in tmux.screen())


def drive(args: argparse.Namespace) -> None:
    """Measure the baseline (unless given), then start the fake and the app in tmux and type while
    the citations of ``--rounds`` searches are checked; print the figures."""
    private = Path(tempfile.mkdtemp(prefix="wst-tmux-"))
    os.environ["TMUX_TMPDIR"] = str(private)  # a tmux server of our own, for terminal.py's child too
    os.environ.pop("TMUX", None)
    if args.baseline:
        streaming, header = args.baseline, "given (--baseline)"
    else:
        print("baseline: benchmarks/terminal.py --panes 6 ...", flush=True)
        streaming, header = baseline(args)
    folder = Path(tempfile.mkdtemp(prefix="wst-verify-"))
    built = time.monotonic()
    build(folder, args.providers, args.citations, args.claims, args.size)
    print(f"pages built in {time.monotonic() - built:.1f} s", flush=True)
    child, base_url = start_server(__file__, "--folder", str(folder), "--rate", str(args.rate))
    session = f"bench-{uuid.uuid4().hex[:8]}"
    stats = folder / "stats.json"
    env = {
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "WEBSEARCH_TUI_LOG": str(folder / "log.txt"),
        "WEBSEARCH_TUI_STATE": str(folder / "state.json"),
        "WEBSEARCH_TUI_HISTORY": str(folder / "history.sqlite3"),
        "TERM": "xterm-256color",
    }
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    app = (
        f"{shlex.quote(sys.executable)} {shlex.quote(__file__)} --app {base_url} "
        f"--providers {args.providers} --stats {stats}"
    )
    width, height = args.size_terminal
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", str(width), "-y", str(height)]
        + [f"env -u COLUMNS -u LINES {exports} {app}; sleep 600"],
        check=True,
    )
    tmux = Tmux(session)
    latencies: list[float] = []
    slowest: list[tuple[int, float, float]] = []
    tallies: list[str] = []
    wrong = 0
    loads: list[float] = []
    try:
        terminal.wait_screen(tmux, lambda lines: any("Ask the web" in line for line in lines), 60)
        tmux.keys(QUERY, literal=True)
        row, column = terminal.find_query(terminal.wait_screen(tmux, lambda ls: any(QUERY in s for s in ls), 30))
        for round_ in range(args.rounds):
            if round_:
                terminal.clear(tmux, row)
                tmux.keys(QUERY, literal=True)
            tmux.keys("Enter")
            terminal.wait_screen(tmux, lambda lines: any(CHECKING in line for line in lines), 120)
            # the key cap seeds the gaps: a different cap per round, so rounds do not type alike
            timed, lost = terminal.type_while_streaming(
                tmux, row, column, args.interval, args.keys + round_, lambda: not on_screen(tmux, CHECKING)
            )
            latencies += [latency * 1000 for _, latency in timed]
            slowest += [(round_ + 1, at, latency * 1000) for at, latency in timed]
            wrong += lost
            loads.append(os.getloadavg()[0])
            lines = terminal.wait_screen(tmux, lambda lines: any(TALLY.search(line) for line in lines), 300)
            tallies += [found.group(0) for line in lines if (found := TALLY.search(line))][:1]
            print(f"round {round_ + 1}: {len(timed)} keys while checking", flush=True)
        time.sleep(1.0)
        terminal.clear(tmux, row)
        tmux.keys(QUERY, literal=True)
        time.sleep(0.5)
        idle, _ = terminal.type_while_streaming(tmux, row, column, args.interval, args.idle_keys, lambda: False)
        tmux.keys("C-c")
        deadline = time.monotonic() + 30
        while not stats.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        tmux.close()
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
        child.kill()
    checks = json.loads(stats.with_suffix(".checks.json").read_text())
    shutil.rmtree(folder, ignore_errors=True)  # 20 MB of pages
    shutil.rmtree(private, ignore_errors=True)
    idle_ms = [latency * 1000 for _, latency in idle]
    report(args, streaming, header, latencies, wrong, idle_ms, checks, loads)
    worst = sorted(slowest, key=lambda key: -key[2])[:3]
    print("slowest keys: " + ", ".join(f"{ms:.0f} ms at {at:.1f} s of round {n}" for n, at, ms in worst))
    print("hint line after each check: " + "; ".join(tallies))


def report(
    args: argparse.Namespace,
    streaming: list[float],
    header: str,
    checking: list[float],
    wrong: int,
    idle: list[float],
    checks: list[list[float]],
    loads: list[float],
) -> None:
    """Print the figures side by side."""

    def figures(ms: list[float]) -> list[float]:
        return [statistics.median(ms), percentile(ms, 0.95), max(ms)] if ms else [float("nan")] * 3

    during = figures(checking)
    print(f"baseline: {header}")
    print(
        f"checking: {args.citations} citations ({args.claims} claims each) on {args.citations} pages of "
        f"{args.size:,} bytes, {args.providers} providers, {args.rounds} rounds, "
        f"{args.size_terminal[0]}x{args.size_terminal[1]}, a key every {args.interval:g} s on average"
    )
    print(f"{'key-to-echo':<34}{'median':>8}{'p95':>8}{'max':>8}")
    print(f"{'while 6 panes stream (baseline)':<34}" + "".join(f"{v:>6.0f}ms" for v in streaming))
    print(f"{f'while {args.citations} citations are checked':<34}" + "".join(f"{v:>6.0f}ms" for v in during))
    ratios = [d / s for d, s in zip(during, streaming, strict=True)]
    print(f"{'ratio checked / streaming':<34}" + "".join(f"{r:>7.2f}x" for r in ratios))
    print(f"{'idle (nothing running)':<34}" + "".join(f"{v:>6.0f}ms" for v in figures(idle)))
    print(f"keys while checking: {len(checking)}; {wrong} lost or out of order")
    for n, (_, wall, cpu) in enumerate(checks, 1):
        print(f"check {n}: {wall:.1f} s wall, {cpu:.1f} s of app CPU (every thread)")
    if checks:
        walls = [wall for _, wall, _ in checks]
        print(f"check of {args.citations} citations: median {statistics.median(walls):.1f} s in all")
    print(f"load average while checking: {', '.join(f'{load:.2f}' for load in loads)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="searches whose citations are checked")
    parser.add_argument("--citations", type=int, default=20, help="citations (and pages) per search")
    parser.add_argument("--claims", type=int, default=2, help="answer sentences citing each page")
    parser.add_argument("--providers", type=int, default=4, help="providers sharing the citations")
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of HTML per page")
    parser.add_argument("--rate", type=float, default=400.0, help="tokens per second of the short answers")
    parser.add_argument("--interval", type=float, default=0.4, help="seconds between typed keys (on average)")
    parser.add_argument("--keys", type=int, default=200, help="most keys typed during one check")
    parser.add_argument("--idle-keys", type=int, default=20, help="keys typed with nothing running")
    parser.add_argument("--baseline", type=float, nargs=3, metavar=("MEDIAN", "P95", "MAX"))
    parser.add_argument("--size-terminal", type=int, nargs=2, default=(240, 60), metavar=("W", "H"))
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--app", help=argparse.SUPPRESS)
    parser.add_argument("--stats", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.folder, args.rate)
    elif args.app:
        run_app(args.app, args.providers, args.stats)
    else:
        drive(args)


if __name__ == "__main__":
    main()
