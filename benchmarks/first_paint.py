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

``--instructions`` runs each program once more, in its tmux pane under valgrind's callgrind, until
its first frame is drawn (:data:`EXIT_AT_FIRST_FRAME` ends the process there), and prints the
instructions each executed (every thread, start-up included) and their ratio to the minimal app's:
a count that a busy machine does not change (about a minute per program), for before/after figures
when the wall and CPU times are noisy.

    python3 benchmarks/first_paint.py [--runs 10] [--panes 24 4] [--size 240 60] [--base /tmp/base]
    python3 benchmarks/first_paint.py --instructions [--panes 24 4] [--base /tmp/base]
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
RUN_APP = "import runpy\nrunpy.run_module('websearch_tui', run_name='__main__', alter_sys=True)\n"
"""``python -m websearch_tui`` as code for ``python -c`` (the arguments after the code are its own)."""
EXIT_AT_FIRST_FRAME = """
import importlib.abc, importlib.machinery, os, sys

class _FirstFrame(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "textual.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            display = module.App._display

            def first_frame(app, screen, renderable):
                display(app, screen, renderable)
                if renderable is not None and not app._batch_count:
                    os._exit(0)

            module.App._display = first_frame

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _FirstFrame())
"""
"""Put before a program's code: the process ends as soon as Textual has drawn its first frame. Textual
is not imported any earlier than the program imports it (a hook on its import), so the program does
the same work as without it, up to that frame."""


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


def commands(args: argparse.Namespace, folder: Path, *, counts: Path | None = None) -> dict[str, str]:
    """Name -> shell command of every program measured (each checkout with its own files, see
    :func:`environment`). With ``counts`` (a folder), each runs under callgrind until its first frame
    instead (:data:`EXIT_AT_FIRST_FRAME`), writing ``<counts>/<name>.out``."""

    def python(name: str, code: str) -> str:
        words = [sys.executable, "-c", code]
        if counts is not None:
            out = counts / (name.replace(" ", "-") + ".out")
            words = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable]
            words += ["-c", EXIT_AT_FIRST_FRAME + code]
        return shlex.join(words)

    found = {"minimal": f"env -u COLUMNS -u LINES {environment(folder / 'minimal')} {python('minimal', MINIMAL_APP)}"}
    trees = [("ours", ROOT)] + ([("base", args.base.resolve())] if args.base else [])
    for name, tree in trees:
        exports = environment(folder / name)
        for panes in args.panes:
            config = shlex.quote(str(write_config(folder, panes)))
            found[f"{name} {panes}"] = (  # in the tree: ``-m`` (here runpy) puts the working directory first
                f"cd {shlex.quote(str(tree))} && env -u COLUMNS -u LINES {exports} PYTHONPATH={shlex.quote(str(tree))} "
                f"{python(f'{name} {panes}', RUN_APP)} --config {config}"
            )
    return found


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def compile_trees(args: argparse.Namespace) -> None:
    """Write the bytecode of each checkout measured (an install has its bytecode)."""
    for tree in [ROOT] + ([args.base] if args.base else []):
        compileall.compile_dir(Path(tree) / "websearch_tui", quiet=1)


def counted_instructions(label: str, command: str, out: Path, size: tuple[int, int]) -> int:
    """Run ``command`` (a callgrind one from :func:`commands`) in a fresh tmux pane until it ends at
    its first frame; the instructions callgrind wrote to ``out``.

    Raises:
        SystemExit: it did not end within 10 minutes, or left no counts.
    """
    session = f"count-{uuid.uuid4().hex[:8]}"
    subprocess.run([*TMUX, "new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1])], check=True)
    subprocess.run([*TMUX, "respawn-pane", "-k", "-t", session, command], check=True)
    started = time.monotonic()
    while subprocess.run([*TMUX, "has-session", "-t", session], capture_output=True, check=False).returncode == 0:
        if time.monotonic() - started > 600:
            subprocess.run([*TMUX, "kill-session", "-t", session], check=False)
            raise SystemExit(f"{label}: no first frame within 10 minutes under callgrind")
        time.sleep(0.5)
    lines = out.read_text().splitlines() if out.exists() else []
    summary = next((line.split()[1] for line in lines if line.startswith("summary:")), None)
    if summary is None:
        raise SystemExit(f"{label}: callgrind left no counts (is valgrind installed?)")
    return int(summary)


def instructions(args: argparse.Namespace) -> None:
    """Each program once under callgrind in its tmux pane, until its first frame; one line each."""
    compile_trees(args)
    size = tuple(args.size)
    subprocess.run([*TMUX, "new-session", "-d", "-s", "keep"], check=True)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        counted = {
            label: counted_instructions(label, command, folder / (label.replace(" ", "-") + ".out"), size)
            for label, command in commands(args, folder, counts=folder).items()
        }
    subprocess.run([*TMUX, "kill-server"], check=False)
    print(f"instructions until the first frame at {size[0]}x{size[1]} (callgrind, every thread, start-up included)")
    for label, count in counted.items():
        print(f"  {label:10s} {count / 1e9:6.3f} G   ratio to minimal {count / counted['minimal']:.2f}")


def measure(args: argparse.Namespace) -> None:
    """The interleaved tmux runs, then one line per program."""
    compile_trees(args)
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
    parser.add_argument(
        "--instructions", action="store_true", help="count each program's instructions to its first frame (callgrind)"
    )
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, tuple(args.size), args.top)
    elif args.instructions:
        instructions(args)
    else:
        measure(args)


if __name__ == "__main__":
    main()
