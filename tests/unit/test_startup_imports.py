"""What importing the TUI's and the CLI's start-up modules leaves for later: records not made until
used (core.records), modules a command imports only when it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    """The last line ``code`` prints, run in a fresh interpreter from the repository's root."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return done.stdout.strip().splitlines()[-1]


def test_a_pane_s_status_record_is_made_when_a_pane_first_shows_one() -> None:
    code = (
        "from websearch_tui.core.records import _PENDING\n"
        "from websearch_tui.tui.search.status_line import PaneStatus\n"
        "waiting = PaneStatus in _PENDING\n"
        "PaneStatus('done', 1.5)\n"
        "print(waiting, PaneStatus in _PENDING)"
    )
    assert _run(code) == "True False"


TUI_COMMAND_LINES = [
    [],
    ["--config", "cfg.toml"],
    ["--config", ""],
    ["--config=cfg.toml"],
    ["--config=-odd.toml"],
    ["--config", "search"],  # a path named as a command is still a path
]


def test_the_terminal_ui_s_own_command_line_reads_as_the_parser_reads_it() -> None:
    from websearch_tui.cli.main import terminal_ui_arguments
    from websearch_tui.cli.parser import build_parser

    for argv in TUI_COMMAND_LINES:
        plain = terminal_ui_arguments(argv)
        assert plain is not None
        assert vars(plain) == vars(build_parser().parse_args(argv)), argv
    others = [["tui"], ["--config"], ["--config", "-h"], ["--config", "a", "--config", "b"], ["--conf", "x"], ["q"]]
    assert [terminal_ui_arguments(argv) for argv in others] == [None] * len(others)


def test_opening_the_terminal_ui_imports_no_argument_parser(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[ui]\n", encoding="utf-8")
    code = (
        "import io, sys\n"
        "from websearch_tui.cli.front_ends import FrontEnds\n"
        "from websearch_tui.cli.main import main\n"
        "class Terminal(io.StringIO):\n"
        "    def isatty(self): return True\n"
        "sys.stdin = sys.stdout = Terminal()  # the checks before the UI ask for a terminal\n"
        "started = []\n"
        "def start(config):\n"
        "    started.append((config.path.name, 'argparse' in sys.modules))\n"
        "    return 0\n"
        f"code = main(['--config', {str(config)!r}], front_ends=FrontEnds(tui=start))\n"
        "print(code, started, file=sys.__stdout__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "0 [('config.toml', False)]"
