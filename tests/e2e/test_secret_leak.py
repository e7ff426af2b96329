"""No key ever leaves the key store: every provider credential gets a unique key string, every
provider searches the loopback fake server (some succeed; some fail with 401, 500 or an HTML 200
page that echo every header, query value and body they received, as careless real APIs do; one
provider crashes with its key in the exception; the echoes also carry each key upper-cased, hex-encoded
and joined by zero-width spaces), and none of the key strings may appear in the
JSON, Markdown, LLM or text output, stderr, the log file, ``keys list``, ``providers``,
``config show``, the history file (its bytes, WAL included, and every compressed record in it),
``history list/show/search`` or the TUI (its widgets, an exported screenshot and its exports)."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.fake_providers import PROVIDERS, FakeRequest, FakeResponse, FakeServer
from tests.fake_providers.fake_codex import CODEX_HOME
from tests.helpers import no_wait
from tests.tui.conftest import submit, wait_for_search
from websearch_tui.cli.main import main
from websearch_tui.core import logs
from websearch_tui.core.catalogue import SPECS
from websearch_tui.engine import engine as engine_module
from websearch_tui.engine.engine import Engine
from websearch_tui.secrets.credentials import KEYRING_SERVICE, keyring_username
from websearch_tui.settings.config import Config, load_config

QUERY = "python asyncio tutorial"
ECHO_FAULTS = {"brave": (401, "json"), "tavily": (500, "json"), "zai": (401, "json"), "you": (200, "html")}
CRASHING = "synthetic"  # its stream raises an exception whose text carries its key (a provider bug)


def shared_env_vars() -> set[str]:
    """Env var names more than one provider reads (seeded through the keyring instead)."""
    seen: dict[str, int] = {}
    for spec in SPECS.values():
        for credential in spec.credentials:
            for name in credential.env_vars:
                seen[name] = seen.get(name, 0) + 1
    return {name for name, count in seen.items() if count > 1}


def seed_keys(monkeypatch: pytest.MonkeyPatch, memory_keyring, tmp_path: Path) -> dict[str, str]:
    """Give every secret provider credential a unique key (env or in-memory keyring) and Codex a
    login file with unique tokens; returns ``{"<provider>:<credential>": key}``."""
    keys: dict[str, str] = {}
    shared = shared_env_vars()
    for index, spec in enumerate(SPECS.values()):
        for credential in spec.credentials:
            value = f"leak{index:02d}{credential.name[:3]}-{secrets.token_hex(10)}"
            env = next((n for n in credential.env_vars if n not in shared), None)
            if env and index % 2 == 0:
                monkeypatch.setenv(env, value)
            else:
                memory_keyring.set_password(KEYRING_SERVICE, keyring_username(spec.id, credential.name), value)
            if credential.secret:
                keys[keyring_username(spec.id, credential.name)] = value
    auth = json.loads((CODEX_HOME / "auth.json").read_text())
    for token in ("access_token", "refresh_token", "id_token"):
        auth["tokens"][token] += f"-leak-{secrets.token_hex(10)}"
        keys[f"codex:{token}"] = auth["tokens"][token]
    (tmp_path / "codex").mkdir()
    (tmp_path / "codex" / "auth.json").write_text(json.dumps(auth))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    return keys


def echo(status: int, kind: str):
    """A handler answering ``status`` with everything the request carried (headers, query, body)."""

    def handler(request: FakeRequest) -> FakeResponse:
        seen = " ".join([*request.headers.values(), *request.query.values(), request.target, request.text])
        # and as careless servers transform it: upper-cased, hex-encoded, joined by zero-width spaces
        seen = " ".join([seen, seen.upper(), seen.encode().hex(), "\u200b".join(seen)])
        if kind == "html":
            page = f"<html><body><h1>Gateway</h1><p>You sent: {seen}</p></body></html>"
            return FakeResponse(status, {"Content-Type": "text/html; charset=utf-8"}, page)
        message = f"Invalid credentials: {seen}"
        body = {"error": {"message": message, "type": "invalid_request_error"}, "message": message, "detail": message}
        return FakeResponse(status, {"Content-Type": "application/json"}, body)

    return handler


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring) -> Iterator[dict]:
    """The fake server with faults, a config pointing every provider at it, and the seeded keys;
    the engines the CLI builds here make their retry waits at once (:func:`quick_engine`)."""
    keys = seed_keys(monkeypatch, memory_keyring, tmp_path)
    monkeypatch.setattr(Engine, "from_config", staticmethod(quick_engine))
    original = engine_module.load_stream

    def load(provider_id: str):
        if provider_id != CRASHING:
            return original(provider_id)

        async def crash(request, ctx) -> AsyncIterator[object]:
            raise RuntimeError(f"bug: request with key {ctx.api_key} failed")
            yield  # pragma: no cover

        return crash

    monkeypatch.setattr(engine_module, "load_stream", load)
    with FakeServer() as server:
        for provider, (status, kind) in ECHO_FAULTS.items():
            for route in server.resolve(provider):
                server.set(*route, echo(status, kind))
        config = tmp_path / "config.toml"
        text = server.config_toml().replace("enabled = true", "enabled = true\nmin_interval = 0")
        config.write_text(text, encoding="utf-8")
        monkeypatch.setenv("WEBSEARCH_TUI_CONFIG", str(config))
        yield {"keys": keys, "config": config, "server": server}


_FROM_CONFIG = Engine.from_config


def quick_engine(config: Config, **options: object) -> Engine:
    """:meth:`Engine.from_config` for ``config``, its retry waits (and pacing) taking no time."""
    engine = _FROM_CONFIG(config, **options)  # type: ignore[arg-type]
    engine.sleep = no_wait
    return engine


def assert_no_key(text: str, keys: dict[str, str], where: str) -> None:
    leaked = sorted(name for name, value in keys.items() if value in text)
    assert not leaked, f"{where} shows the keys of {leaked}"


def history_text(path: Path) -> str:
    """Everything in the history file: its bytes (and its -wal/-shm), every column and every
    decompressed provider record."""
    raw = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*") if p.is_file())
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT * FROM searches").fetchall()
    records = [zlib.decompress(row[-1]).decode("utf-8") for row in rows]
    assert rows, f"nothing was recorded in {path}"
    return "\n".join([raw.decode("latin-1"), repr(rows), *records])


def log_text() -> str:
    logs.setup_logging()
    for handler in __import__("logging").getLogger("websearch_tui").handlers:
        handler.flush()
    path = logs.log_path()
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_no_key_in_cli_outputs_log_and_listings(world: dict, capsys: pytest.CaptureFixture[str]) -> None:
    keys, server = world["keys"], world["server"]
    outputs: dict[str, str] = {}
    for output_format in ("json", "markdown", "llm", "text"):
        code = main(["search", QUERY, *(f"-p{p}" for p in PROVIDERS), "--format", output_format])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        outputs[output_format] = captured.out + captured.err
    document = json.loads(outputs["json"].split("\nwebsearch-tui:")[0])
    status = {r["provider"]: r["status"] for r in document["results"]}
    assert status["ddgs"] == status["perplexity"] == status["exa"] == "done"  # some succeed ...
    errors = {r["provider"]: r["error"] for r in document["results"] if r["error"]}
    assert errors["brave"]["status"] == 401 and errors["tavily"]["status"] == 500  # ... some fail
    assert errors["you"]["kind"] == "protocol" and "Unexpected error" in errors[CRASHING]["message"]
    assert server.requests_to("/brave/res/v1/web/search")  # the requests really carried the keys
    history_commands = [["history", "list", "--format", "json"], ["history", "search", "python", "--format", "json"]]
    history_commands += [["history", "show", "1", "--format", f] for f in ("json", "markdown", "llm", "text")]
    for command in (["keys", "list"], ["providers"], ["providers", "--json"], ["config", "show"], *history_commands):
        assert main(command) == 0
        captured = capsys.readouterr()
        outputs[" ".join(command)] = captured.out + captured.err
    outputs["the history file"] = history_text(Path(os.environ["WEBSEARCH_TUI_HISTORY"]))
    assert "***" in outputs["the history file"]  # an echoed key was recorded, redacted
    assert "keyring" in outputs["keys list"] and "env " in outputs["keys list"]
    for where, text in outputs.items():
        assert_no_key(text, keys, where)
    log = log_text()
    assert_no_key(log, keys, "the log file")
    assert "***" in json.dumps(errors)  # an echoed key was there, and was redacted
    assert f"unexpected error in provider {CRASHING}" in log and "RuntimeError: bug: request with key ***" in log


def test_no_key_in_a_fresh_cli_process(world: dict, tmp_path: Path) -> None:
    """A separate process starts with nothing registered for redaction; env keys only."""
    keys = {
        name: f"proc-leak-{index:02d}-{secrets.token_hex(10)}"
        for index, name in enumerate(sorted({n for s in SPECS.values() for c in s.credentials for n in c.env_vars}))
        if "USERNAME" not in name
    }
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "WEBSEARCH_TUI_CONFIG": str(world["config"]),
        "WEBSEARCH_TUI_LOG": str(tmp_path / "proc-log.txt"),
        "WEBSEARCH_TUI_HISTORY": str(tmp_path / "proc-history.sqlite3"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "CODEX_HOME": os.environ["CODEX_HOME"],
        **keys,
    }
    command = [sys.executable, "-m", "websearch_tui", "search", QUERY, "--format", "json"]
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert {r["provider"] for r in results} == set(PROVIDERS)
    assert_no_key(out.stdout + out.stderr, keys, "the search output")
    log = tmp_path / "proc-log.txt"  # created at the first line logged (core.logs.FileOnDemand), if any
    assert_no_key(log.read_text(encoding="utf-8") if log.exists() else "", keys, "the log file")
    assert_no_key(history_text(tmp_path / "proc-history.sqlite3"), keys, "the history file")
    assert "***" in json.dumps([r["error"] for r in results])


async def test_no_key_in_the_tui(world: dict) -> None:
    from websearch_tui.tui.app import WebSearchApp
    from websearch_tui.tui.search.export import export_text
    from websearch_tui.tui.search.pane_area import PaneArea
    from websearch_tui.tui.search.provider_pane import ProviderPane

    keys = world["keys"]
    config = load_config(world["config"])
    app = WebSearchApp(config, quick_engine(config))
    async with app.run_test(size=(200, 60)) as pilot:
        await submit(pilot, QUERY)
        await wait_for_search(app, timeout=60)
        area = app.screen.query_one(PaneArea)
        panes = list(app.screen.query(ProviderPane))
        assert [pane.provider_id for pane in panes] == list(PROVIDERS)
        texts = []
        for pane in panes:  # every pane in front once (tabs at this size), then a screenshot
            area.activate(pane.provider_id)
            await pilot.pause()
            texts.append(app.export_screenshot())
        texts += [getattr(getattr(w, "visual", None), "plain", "") or "" for w in app.screen.walk_children()]
        statuses = {pane.provider_id: pane.status for pane in panes}
        shown = app.screen.shown_result()
        texts += [export_text(shown.result, export_format) for export_format in ("markdown", "json")]
    texts.append(history_text(Path(os.environ["WEBSEARCH_TUI_HISTORY"])))  # written by the time the app closed
    assert_no_key("\n".join(texts), keys, "the TUI")
    assert statuses["ddgs"] == "done" and statuses["brave"] == "failed" and statuses[CRASHING] == "failed"
    assert any("***" in text for text in texts)  # an echoed key reached the screen redacted
