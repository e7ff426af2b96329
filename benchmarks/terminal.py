"""Smoothness in a real terminal: key-to-echo latency, CPU per 1,000 tokens and PageDown frames.

The real app runs in tmux (240x60 by default) with N panes, each streaming a realistic Markdown
answer (headings, lists, code, tables, quotes, links; see ``_answers.py``) from the loopback fake
in a child process, at R tokens per second. While they stream, one key is typed into the query box
about every ``--interval`` seconds and the time until tmux shows its echo is measured (tmux control mode:
``send-keys``, then ``capture-pane`` of the query row until it reads as expected, about every
millisecond). Printed, not asserted:

- key-to-echo median, p95 and max (and how many keys never echoed, or echoed wrong);
- an edit burst typed in one go while the panes stream (``beginers`` + 4 Backspaces + ``ners with
  examples``): what the query box ends up holding;
- the app process's CPU seconds per 1,000 streamed tokens while the answers grow through three
  length bands (sampled inside the app with ``time.process_time``);
- after the answers end, PageDown held (30 presses a second) in the first pane: the longest and p95
  frame (one ``Screen`` update: layout, compositing and writing), from inside the app.

    python3 benchmarks/terminal.py [--panes 6] [--rate 100] [--words 3000] [--interval 0.4] [--secrets 3]
    python3 benchmarks/terminal.py --panes 24 --rate 50
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH: another checkout's package may be tested

from benchmarks._answers import answer_markdown, sonar_stream, token_count  # noqa: E402
from benchmarks._child import start_server  # noqa: E402
from benchmarks._keys import DEFAULT_KEYS, register_user_keys  # noqa: E402

QUERY = "bench query"
BURST = ("asyncio tutorial for beginers", 4, "ners with examples")
"""The edit burst: text, that many Backspaces, more text, typed in one go."""
BANDS = (0.0, 800.0, 1600.0, 3000.0)
"""Answer-length bands (words) for the CPU figure."""
LETTERS = "abcdefghijklmnopqrstuvwxyz"
"""What is typed into the query box, one key at a time (no spaces: each prefix reads unambiguously)."""


# --- the app side (runs inside tmux) -------------------------------------------------------------


def run_app(base_url: str, panes: int, stats: Path, secrets: int) -> None:
    """Run the real app over ``panes`` providers, all speaking Sonar to the fake, with ``secrets``
    keys registered; on exit write its frame times and CPU samples to ``stats`` (JSON)."""
    import asyncio

    from textual.screen import Screen

    from websearch_tui.core.catalogue import SPECS
    from websearch_tui.core.specs import ProviderSettings
    from websearch_tui.engine import engine as engine_module
    from websearch_tui.engine.engine import Engine
    from websearch_tui.providers import load_stream
    from websearch_tui.settings.config import Config, SearchSettings
    from websearch_tui.tui.app import WebSearchApp

    register_user_keys(secrets)
    ids = tuple(SPECS)[:panes]
    perplexity = load_stream("perplexity")

    async def as_sonar(request: Any, ctx: Any) -> Any:
        """Every pane runs the Perplexity adapter (with its spec and a fake key) against the fake."""
        sonar = dataclasses.replace(ctx, spec=SPECS["perplexity"], credentials={"api_key": "fake-perplexity-key"})
        async for event in perplexity(request, sonar):
            yield event

    engine_module.load_stream = lambda provider_id: as_sonar
    engine = Engine(
        # Sonar-style streams: the Perplexity adapter's chat-completions path (api = "chat")
        settings={pid: ProviderSettings(base_url=f"{base_url}/perplexity", options={"api": "chat"}) for pid in ids},
        default_providers=ids,
        timeout=600,
    )
    config = Config(search=SearchSettings(providers=ids, max_results=10, timeout=600))
    frames: list[tuple[float, float, float, bool]] = []
    samples: list[tuple[float, float, int]] = []
    original = Screen._on_timer_update

    def timed(self: Screen[Any]) -> None:
        started, cpu, layout = time.monotonic(), time.thread_time(), self._layout_required
        original(self)
        frames.append((started, time.monotonic() - started, time.thread_time() - cpu, layout))

    Screen._on_timer_update = timed  # type: ignore[method-assign]

    class Measured(WebSearchApp):
        CSS_PATH = str(Path(inspect.getfile(WebSearchApp)).with_name("app.tcss"))

        def on_mount(self) -> None:
            super().on_mount()
            self.set_interval(0.1, self._sample)

        def _sample(self) -> None:
            panes = self.screen.pane_area.panes  # type: ignore[attr-defined]
            chars = sum(len(pane.response.answer or "") for pane in panes)
            samples.append((time.monotonic(), time.process_time(), chars))

    tuned = {"tune_gc": True} if "tune_gc" in inspect.signature(WebSearchApp).parameters else {}  # older revisions
    app = Measured(config, engine, status_resolver=lambda spec, settings: "ready", **tuned)
    stats.with_suffix(".pid").write_text(str(os.getpid()))
    try:
        app.run()
    finally:
        stats.write_text(json.dumps({"frames": frames, "samples": samples}))
        asyncio.run(engine.aclose())


# --- the driver side ------------------------------------------------------------------------------


class Tmux:
    """A tmux control-mode client: one pipe for commands, no process per capture."""

    def __init__(self, session: str) -> None:
        self.session = session
        self._proc = subprocess.Popen(
            ["tmux", "-C", "attach-session", "-t", session],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        for _attempt in range(50):  # the client may not be attached yet
            try:
                self.command("refresh-client -f no-output,ignore-size")
                break
            except RuntimeError:
                time.sleep(0.1)

    def command(self, line: str) -> list[str]:
        """Run one tmux command line; its output lines (raises RuntimeError on ``%error``)."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        marker = uuid.uuid4().hex
        self._proc.stdin.write(f"{line} ; display-message -p {marker}\n")
        self._proc.stdin.flush()
        out: list[str] = []
        block: list[str] = []
        inside = False
        while True:
            raw = self._proc.stdout.readline()
            if not raw:
                raise RuntimeError("tmux control client ended")
            text = raw.rstrip("\n")
            if text.startswith("%begin"):
                inside, block = True, []
            elif text.startswith("%error"):
                raise RuntimeError(f"tmux: {line}: {block}")
            elif text.startswith("%end"):
                inside = False
                if block == [marker]:
                    return out
                out.extend(block)
            elif inside:
                block.append(text)

    def keys(self, *keys: str, literal: bool = False) -> None:
        """``send-keys`` to the session (``literal``: the text as typed)."""
        flag = "-l " if literal else ""
        self.command(f"send-keys -t {self.session} {flag}" + " ".join(shlex.quote(k) for k in keys))

    def screen(self, row: int | None = None) -> list[str]:
        """The visible screen (or one row of it) as plain text."""
        span = f" -S {row} -E {row}" if row is not None else ""
        return self.command(f"capture-pane -p -t {self.session}{span}")

    def close(self) -> None:
        """Detach the control client."""
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=10)


def wait_screen(tmux: Tmux, predicate: Any, timeout: float) -> list[str]:
    """Capture until ``predicate(lines)`` holds; the last screen (raises TimeoutError)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = tmux.screen()
        if predicate(lines):
            return lines
        time.sleep(0.02)
    raise TimeoutError("\n".join(tmux.screen()))


def find_query(lines: list[str]) -> tuple[int, int]:
    """``(row, column)`` of the query text on screen."""
    for row, line in enumerate(lines):
        column = line.find(QUERY)
        if column >= 0:
            return row, column
    raise RuntimeError("query box not found")


def shows(line: str, column: int, value: str) -> bool:
    """True when the query row shows exactly ``value`` (then the cursor cell) at ``column``."""
    return line[column : column + len(value) + 1] == value + " "


def shown_length(line: str, column: int, typed: str) -> int:
    """How much of ``typed`` the query row shows (the longest prefix on screen)."""
    shown = line[column : column + len(typed)]
    n = 0
    while n < len(shown) and shown[n] == typed[n]:
        n += 1
    return n


def type_while_streaming(
    tmux: Tmux, row: int, column: int, interval: float, keys: int, done: Any
) -> tuple[list[tuple[float, float]], int]:
    """Type ``keys`` letters whatever the screen does, watching the query row (every 2 ms) for each
    one's echo; stops early once ``done()``. Returns ``(sent, latency)`` seconds of every key that
    echoed (``sent`` counted from the first key) and how many never did (lost, or shown out of order).

    The gaps between keys are drawn at random between half and one and a half ``interval`` (seeded,
    so runs type alike): at a fixed gap that is a multiple of the app's 0.1 s tick, every key would
    fall at the same point of the tick, and a run would measure that one point, not typing."""
    typed = QUERY
    sent: list[float] = []
    echoed: list[float] = []
    started = time.monotonic()
    rng = random.Random(keys)
    due = [started]
    for _ in range(keys):
        due.append(due[-1] + interval * rng.uniform(0.5, 1.5))
    last_check = started
    while True:
        now = time.monotonic()
        if len(sent) < keys and now >= due[len(sent)]:
            if now - last_check > 0.2 and done():
                keys = len(sent)
            else:
                letter = LETTERS[len(sent) % len(LETTERS)]
                typed += letter
                sent.append(time.monotonic())
                tmux.keys(letter, literal=True)
        shown = shown_length(tmux.screen(row)[0], column, typed) - len(QUERY)
        now = time.monotonic()
        while len(echoed) < shown:
            echoed.append(now - sent[len(echoed)])
        if len(sent) >= keys and (not sent or len(echoed) == len(sent) or now > sent[-1] + 10):
            break
        time.sleep(0.002)
    line = tmux.screen(row)[0]
    exact = line[column : column + len(typed) + 1] == typed + " "
    timed = [(at - started, latency) for at, latency in zip(sent, echoed, strict=False)]
    return timed, (len(sent) - len(echoed)) + (0 if exact else 1)


def cpu_per_band(samples: list[list[float]], panes: int, chars_per_word: float, chars_per_token: float) -> list[str]:
    """CPU seconds per 1,000 tokens while the answers (per pane, on average) grow through each band
    of :data:`BANDS` (``samples``: the app's ``(time, process_time, answer characters of all panes)``)."""
    out = []
    for low, high in zip(BANDS, BANDS[1:], strict=False):
        inside = [s for s in samples if low <= s[2] / panes / chars_per_word <= high]
        if len(inside) < 2 or inside[-1][2] == inside[0][2]:
            out.append(f"{low:.0f}-{high:.0f} words: n/a")
            continue
        cpu = inside[-1][1] - inside[0][1]
        streamed = (inside[-1][2] - inside[0][2]) / chars_per_token
        out.append(f"{low:.0f}-{high:.0f} words: {cpu / streamed * 1000:.3f} s")
    return out


def stream_rate(samples: list[list[float]], panes: int, chars_per_token: float) -> float:
    """Tokens per second per pane the app received, from its first to its last answer growth."""
    growing = [s for s in samples if s[2] > 0]
    last = next((s for s in growing if s[2] == growing[-1][2]), None) if growing else None
    if not growing or last is None or last[0] <= growing[0][0]:
        return 0.0
    return (last[2] - growing[0][2]) / chars_per_token / panes / (last[0] - growing[0][0])


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def drive(args: argparse.Namespace) -> None:
    """Start the fake and the app in tmux, type while streaming, hold PageDown, print the figures."""
    child, base_url = start_server(__file__, "--words", str(args.words), "--rate", str(args.rate))
    session = f"bench-{uuid.uuid4().hex[:8]}"
    folder = Path(tempfile.mkdtemp(prefix="wst-terminal-"))
    stats = folder / "stats.json"
    env = {
        "PYTHONPATH": os.environ.get("PYTHONPATH") or str(Path(__file__).resolve().parents[1]),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "WEBSEARCH_TUI_LOG": str(folder / "log.txt"),
        "WEBSEARCH_TUI_STATE": str(folder / "state.json"),  # never the user's remembered controls
        "WEBSEARCH_TUI_HISTORY": str(folder / "history.sqlite3"),  # nor their history
        "TERM": "xterm-256color",
    }
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    app = (
        f"{shlex.quote(sys.executable)} {shlex.quote(__file__)} --app {base_url} --panes {args.panes} "
        f"--secrets {args.secrets} --stats {stats}"
    )
    command = f"env -u COLUMNS -u LINES {exports} {app}; sleep 600"
    width, height = args.size
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", str(width), "-y", str(height), command], check=True
    )
    tmux = Tmux(session)
    try:
        wait_screen(tmux, lambda lines: any("Ask the web" in line for line in lines), 60)
        tmux.keys(QUERY, literal=True)
        tmux.keys("Enter")
        row, column = find_query(wait_screen(tmux, lambda lines: any(QUERY in line for line in lines), 30))
        wait_screen(tmux, lambda lines: any("streaming" in line for line in lines), 60)
        streaming_started = time.monotonic()
        nominal = token_count(args.words) / args.rate
        keys = min(args.keys, int(0.7 * nominal / args.interval))

        def finished() -> bool:
            return any("Finished" in line for line in tmux.screen())

        latencies, wrong = type_while_streaming(tmux, row, column, args.interval, keys, finished)
        burst_result = edit_burst(tmux, row, column) if not finished() else None
        wait_screen(tmux, lambda lines: any("Finished" in line for line in lines), 600)
        streaming_seconds = time.monotonic() - streaming_started
        page_window = hold_pagedown(tmux, args.pagedowns)
        tmux.keys("C-c")
        deadline = time.monotonic() + 30
        while not stats.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        tmux.close()
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
        child.kill()
    report(
        args,
        latencies,
        wrong,
        burst_result,
        (streaming_started, streaming_started + streaming_seconds),
        page_window,
        json.loads(stats.read_text()),
    )


def read_query(tmux: Tmux, row: int, column: int) -> str:
    """What the query box shows now (up to the cursor cell)."""
    line = tmux.screen(row)[0][column:]
    return line.split("  ")[0].rstrip()


def settle(tmux: Tmux, row: int, before: str, quiet: float = 1.0, timeout: float = 20.0) -> None:
    """Wait until the screen ``row`` differs from ``before`` and then stays the same for ``quiet``
    seconds (at most ``timeout``)."""
    deadline = time.monotonic() + timeout
    last, since = before, time.monotonic()
    while time.monotonic() < deadline:
        line = tmux.screen(row)[0]
        if line != last:
            last, since = line, time.monotonic()
        elif last != before and time.monotonic() - since >= quiet:
            return
        time.sleep(0.01)


def edit_burst(tmux: Tmux, row: int, column: int) -> str:
    """Clear the query box, type :data:`BURST` in one go, wait for it to settle; what the box holds."""
    first, backspaces, second = BURST
    clear(tmux, row)
    line = (
        f"send-keys -t {tmux.session} -l {shlex.quote(first)} ; "
        f"send-keys -t {tmux.session} {' '.join(['BSpace'] * backspaces)} ; "
        f"send-keys -t {tmux.session} -l {shlex.quote(second)}"
    )
    before = tmux.screen(row)[0]
    tmux.command(line)
    settle(tmux, row, before)
    return read_query(tmux, row, column)


def clear(tmux: Tmux, row: int) -> None:
    """Ctrl+U in the query box, and wait until it shows its placeholder."""
    tmux.keys("C-u")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "Ask the web" not in tmux.screen(row)[0]:
        time.sleep(0.01)


def hold_pagedown(tmux: Tmux, presses: int) -> tuple[float, float]:
    """Focus the first pane, go to its top, send PageDown 30 times a second; the (start, end) window."""
    for _ in range(4):  # one at a time: a focus change takes effect only after the key that caused it
        tmux.keys("Tab")
        time.sleep(0.3)
    tmux.keys("Home")
    time.sleep(0.5)
    started = time.monotonic()
    for n in range(presses):
        tmux.keys("PageDown")
        time.sleep(max(0.0, started + (n + 1) / 30 - time.monotonic()))
    time.sleep(0.5)
    return started, time.monotonic()


def report(
    args: argparse.Namespace,
    latencies: list[tuple[float, float]],
    wrong: int,
    burst: str | None,
    stream_window: tuple[float, float],
    page_window: tuple[float, float],
    stats: dict[str, Any],
) -> None:
    """Print the figures."""
    text = answer_markdown(args.words)
    words = len(text.split())
    chars_per_word = len(text) / words
    chars_per_token = len(text) / token_count(args.words)
    achieved = stream_rate(stats["samples"], args.panes, chars_per_token)
    streaming_seconds = stream_window[1] - stream_window[0]
    first, backspaces, second = BURST
    ms = [latency * 1000 for _, latency in latencies]
    slowest = sorted(latencies, key=lambda key: -key[1])[:3]
    frames = [wall * 1000 for t, wall, _, _ in stats["frames"] if page_window[0] <= t <= page_window[1]]
    streaming = [
        (wall * 1000, cpu * 1000, layout)
        for t, wall, cpu, layout in stats["frames"]
        if stream_window[0] <= t <= stream_window[1]
    ]
    print(
        f"{args.panes} panes x {words} words at {args.rate:g} tokens/s (received {achieved:.0f}/s), "
        f"streamed for {streaming_seconds:.1f} s, {args.size[0]}x{args.size[1]}"
    )
    if ms:
        print(
            f"key-to-echo: median {statistics.median(ms):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms, "
            f"max {max(ms):.0f} ms over {len(ms)} keys; {wrong} lost or out of order; slowest "
            + ", ".join(f"{latency * 1000:.0f} ms at {at:.1f} s" for at, latency in slowest)
        )
    expected = first[:-backspaces] + second
    verdict = "ok" if burst == expected else f"WRONG (expected {expected!r})"
    print(
        f"edit burst while streaming: {burst!r} {verdict}" if burst is not None else "edit burst: streaming ended first"
    )
    print(
        "UI-process CPU per 1,000 tokens: "
        + "; ".join(cpu_per_band(stats["samples"], args.panes, chars_per_word, chars_per_token))
    )
    if streaming:
        walls, cpus = [w for w, _, _ in streaming], [c for _, c, _ in streaming]
        layouts = sum(1 for _, _, layout in streaming if layout)
        print(
            f"frames while streaming: {len(streaming) / streaming_seconds:.1f}/s "
            f"({layouts / streaming_seconds:.1f}/s with a layout), "
            f"wall p95 {percentile(walls, 0.95):.1f} ms max {max(walls):.1f} ms, "
            f"CPU median {statistics.median(cpus):.1f} ms p95 {percentile(cpus, 0.95):.1f} ms"
        )
    if frames:
        print(f"PageDown held: {len(frames)} frames, p95 {percentile(frames, 0.95):.1f} ms, max {max(frames):.1f} ms")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}; keys registered in the app: {args.secrets}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--panes", type=int, default=6)
    parser.add_argument("--rate", type=float, default=100.0, help="tokens per second per pane")
    parser.add_argument("--words", type=int, default=3000, help="answer length in words")
    parser.add_argument("--interval", type=float, default=0.4, help="seconds between typed keys")
    parser.add_argument("--keys", type=int, default=120, help="most keys typed while the answers stream")
    parser.add_argument("--secrets", type=int, default=DEFAULT_KEYS, help="keys registered, as a configured user has")
    parser.add_argument("--pagedowns", type=int, default=60, help="PageDown presses after the answers end")
    parser.add_argument("--size", type=int, nargs=2, default=(240, 60), metavar=("W", "H"))
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--app", help=argparse.SUPPRESS)
    parser.add_argument("--stats", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        from tests.fake_providers import FakeServer

        server = FakeServer(port=args.serve)
        server.set("POST", "/perplexity/chat/completions", sonar_stream(args.words, args.rate))
        server.serve_forever()
    elif args.app:
        run_app(args.app, args.panes, args.stats, args.secrets)
    else:
        drive(args)


if __name__ == "__main__":
    main()
