"""What a headless ``search`` leaves unimported: a child process runs two real searches (the second
reuses the first's results from the history) over the loopback fake, recording both, and reports
which modules it imported. Each module listed here is needed by something else only (statistics,
other output formats, the log file that nothing was written to, suggestions for a mistyped name, a
temporary file name, server-sent events for providers that answer in one body), and would cost the
start of every search if imported there."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.fake_providers import FAKE_KEYS, FakeServer
from tests.helpers import CHILD_PATH

DEFERRED = (
    "websearch_tui.history.stats",  # statistics: `stats` and the Stats screen
    "websearch_tui.history.aggregate",
    "websearch_tui.formats.llm",  # the formats not asked for (json is)
    "websearch_tui.formats.markdown",
    "websearch_tui.formats.text",
    "logging.handlers",  # the log file, opened at its first line: a search that logs nothing never opens it
    "platformdirs",  # the log dir (config and history paths are given)
    "difflib",  # "did you mean ...?" for a mistyped provider, preset, config key or command
    "secrets",  # the random name of an -o file's temporary copy
    "httpx_sse",  # server-sent events: brave and tavily answer in one JSON body
)

CHILD = """
import contextlib, io, json, sys
from websearch_tui.__main__ import main
argv = ["search", "python asyncio", "-p", "brave", "-p", "tavily", "--format", "json"]
with contextlib.redirect_stdout(io.StringIO()) as out:
    codes = [main(argv), main(argv)]
second = json.loads(out.getvalue().split("\\n}\\n")[1] + "\\n}")
cached = [r["provider"] for r in second["results"] if r.get("cached")]
print(json.dumps({"codes": codes, "cached": cached, "imported": [m for m in sys.argv[1:] if m in sys.modules]}))
"""


def test_search_never_imports_what_only_other_commands_use(tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite3"
    with FakeServer() as server:
        config = server.write_config(tmp_path / "config.toml", providers=["brave", "tavily"])
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "WEBSEARCH_TUI_CONFIG": str(config),
            "WEBSEARCH_TUI_HISTORY": str(history),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
            **CHILD_PATH,
            **FAKE_KEYS,
        }
        out = subprocess.run(
            [sys.executable, "-c", CHILD, *DEFERRED], capture_output=True, text=True, env=env, timeout=120
        )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["codes"] == [0, 0], out.stderr
    assert sorted(report["cached"]) == ["brave", "tavily"]  # the second search went through the history
    with sqlite3.connect(history) as db:
        assert db.execute("SELECT count(*) FROM searches").fetchone()[0] == 2  # both were recorded
    assert not (tmp_path / ".local" / "state").exists()  # no log file was created
    assert report["imported"] == []
