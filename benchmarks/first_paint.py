"""First paint of the TUI beside a minimal Textual app, with 24 and 4 providers selected.

Each run is a fresh process in a tmux pane (WxH as ``--size``), timed from spawn until the query
box's placeholder is on screen (``capture-pane`` about every 5 ms). Measured, interleaved run by
run, after one unmeasured run of each (the page cache, not the first start, is measured):

- ``minimal``: a Textual app with an Input (the same placeholder) and a Footer, nothing else: the
  floor of any Textual program on this machine;
- ``ours N``: ``python -m websearch_tui`` with N providers selected (``--panes``, default 24 and 4)
  from this checkout;
- ``base N``: the same from another checkout (``--base DIR``, e.g. a git worktree of an earlier
  commit: ``git worktree add /tmp/base HEAD~3``), for before/after figures from the same runs.

Printed, not asserted: median and p95 seconds of each, its ratio to the minimal app (median over
median), and the load average. ``--profile N`` instead starts the app in this process, headless
(``App.run_test``) at the same size with N providers selected, under cProfile until its first
screen update has been drawn, and prints the top entries by cumulative and by own time.

    python3 benchmarks/first_paint.py [--runs 10] [--panes 24 4] [--size 240 60] [--base /tmp/base]
    python3 benchmarks/first_paint.py --profile 24
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import cProfile
import os
import pstats
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from websearch_tui.core.catalogue import SPECS  # noqa: E402

PLACEHOLDER = "Ask the web anything…"
TMUX = ["tmux", "-L", f"first-paint-{os.getpid()}"]
"""A tmux server of this run's own (a session kept open for the whole run keeps it up between runs:
a server that exits with its last session refuses the next one for a moment)."""
MINIMAL_APP = f"""
from textual.app import App
from textual.widgets import Footer, Input

class Minimal(App):
    BINDINGS = [("ctrl+q", "quit", "Quit")]

    def compose(self):
        yield Input(placeholder={PLACEHOLDER!r})
        yield Footer()

Minimal().run()
"""
"""The floor: a Textual app with an Input and a Footer."""


def write_config(folder: Path, panes: int) -> Path:
    """A config file in ``folder`` selecting the first ``panes`` providers of the registry (no server:
    nothing is searched)."""
    from tests.fake_providers import config_toml

    path = folder / f"config-{panes}.toml"
    path.write_text(config_toml("http://127.0.0.1:9", providers=list(SPECS)[:panes]), encoding="utf-8")
    return path


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` has used so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def paint_seconds(command: str, size: tuple[int, int]) -> tuple[float, float]:
    """``(wall, CPU)`` seconds from starting ``command`` in a fresh tmux pane until the placeholder is
    on screen: the wall time a user waits, and the CPU time the program spent until then (less
    sensitive to a busy machine).

    Raises:
        SystemExit: it was not on screen within 30 s.
    """
    session = f"paint-{uuid.uuid4().hex[:8]}"
    subprocess.run([*TMUX, "new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1])], check=True)
    try:
        started = time.perf_counter()
        subprocess.run([*TMUX, "respawn-pane", "-k", "-t", session, command], check=True)
        pane = subprocess.run([*TMUX, "display", "-p", "-t", session, "#{pane_pid}"], capture_output=True, text=True)
        while time.perf_counter() - started < 30:
            screen = subprocess.run([*TMUX, "capture-pane", "-p", "-t", session], capture_output=True, text=True)
            if PLACEHOLDER in screen.stdout:
                return time.perf_counter() - started, cpu_seconds(int(pane.stdout))
            time.sleep(0.005)
        raise SystemExit(f"no first paint within 30 s: {command}")
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], check=False)


def environment(folder: Path) -> str:
    """The ``VAR=value`` words a measured program runs with: no keyring, and a log, history and
    remembered-state file of its own in ``folder`` (created), so that neither checkout reads or
    migrates a history the other one wrote."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "WEBSEARCH_TUI_LOG": str(folder / "log.txt"),
        "WEBSEARCH_TUI_HISTORY": str(folder / "history.sqlite3"),
        "WEBSEARCH_TUI_STATE": str(folder / "state.json"),  # no remembered selection overrides the config's
        "TERM": "xterm-256color",
    }
    return " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())


def commands(args: argparse.Namespace, folder: Path) -> dict[str, str]:
    """Name -> shell command of every program measured (each checkout with its own files, see
    :func:`environment`)."""
    python = shlex.quote(sys.executable)
    minimal = f"env -u COLUMNS -u LINES {environment(folder / 'minimal')} {python} -c {shlex.quote(MINIMAL_APP)}"
    found = {"minimal": minimal}
    trees = [("ours", ROOT)] + ([("base", args.base.resolve())] if args.base else [])
    for name, tree in trees:
        exports = environment(folder / name)
        for panes in args.panes:
            config = shlex.quote(str(write_config(folder, panes)))
            found[f"{name} {panes}"] = (  # in the tree: ``-m`` puts the working directory first on sys.path
                f"cd {shlex.quote(str(tree))} && env -u COLUMNS -u LINES {exports} PYTHONPATH={shlex.quote(str(tree))} "
                f"{python} -m websearch_tui --config {config}"
            )
    return found


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def measure(args: argparse.Namespace) -> None:
    """The interleaved tmux runs, then one line per program."""
    for tree in [ROOT] + ([args.base] if args.base else []):  # an install has its bytecode
        compileall.compile_dir(Path(tree) / "websearch_tui", quiet=1)
    size = tuple(args.size)
    subprocess.run([*TMUX, "new-session", "-d", "-s", "keep"], check=True)
    with tempfile.TemporaryDirectory() as name:
        programs = commands(args, Path(name))
        for command in programs.values():
            paint_seconds(command, size)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in programs}
        loads = []
        for _ in range(args.runs):
            for label, command in programs.items():
                times[label].append(paint_seconds(command, size))
            loads.append(os.getloadavg()[0])
    subprocess.run([*TMUX, "kill-server"], check=False)
    floor = [statistics.median(run[n] for run in times["minimal"]) for n in (0, 1)]
    print(f"first paint at {size[0]}x{size[1]}, {args.runs} runs each, interleaved", end=" ")
    print(f"(load average {min(loads):.1f}-{max(loads):.1f} over the runs, {os.cpu_count()} cores)")
    for label, runs in times.items():
        wall, cpu = ([run[n] for run in runs] for n in (0, 1))
        line = f"  {label:10s} wall median {statistics.median(wall):.3f} s p95 {p95(wall):.3f} s"
        line += f"  CPU median {statistics.median(cpu):.3f} s"
        ratios = [statistics.median(values) / low for values, low in zip((wall, cpu), floor, strict=True)]
        print(f"{line}  ratio to minimal: wall {ratios[0]:.2f}, CPU {ratios[1]:.2f}")


def profile(panes: int, size: tuple[int, int], top: int) -> None:
    """cProfile one headless start of the app with ``panes`` providers selected, until its first
    screen update is drawn; print the top entries."""
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    from websearch_tui.engine.engine import Engine
    from websearch_tui.settings.config import load_config
    from websearch_tui.tui.app import WebSearchApp

    with tempfile.TemporaryDirectory() as name:
        os.environ["WEBSEARCH_TUI_STATE"] = str(Path(name) / "state.json")
        os.environ["WEBSEARCH_TUI_HISTORY"] = str(Path(name) / "history.sqlite3")
        config = load_config(write_config(Path(name), panes))
        app = WebSearchApp(config, Engine.from_config(config))

        async def first_paint() -> None:
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                pilot.app.exit()

        profiler = cProfile.Profile()
        profiler.enable()
        asyncio.run(first_paint())
        profiler.disable()
    stats = pstats.Stats(profiler)
    print(f"cProfile of a headless start with {panes} panes at {size[0]}x{size[1]} (load {os.getloadavg()[0]:.1f})")
    for order in ("cumulative", "tottime"):
        print(f"\n--- top {top} by {order} ---")
        stats.sort_stats(order).print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--panes", type=int, nargs="+", default=[24, 4], help="providers selected (1-24)")
    parser.add_argument("--size", type=int, nargs=2, default=(240, 60), metavar=("W", "H"))
    parser.add_argument("--base", type=Path, help="another checkout to measure beside this one (before/after)")
    parser.add_argument("--profile", type=int, metavar="N", help="cProfile one headless start with N panes instead")
    parser.add_argument("--top", type=int, default=25, help="entries the profile prints")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, tuple(args.size), args.top)
    else:
        measure(args)


if __name__ == "__main__":
    main()
