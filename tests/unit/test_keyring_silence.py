"""A keyring that never answers, as a class: every front-end path that reaches the OS keyring
(``keys list``, ``keys set``, ``keys delete``, ``providers``, a search needing a stored key, the MCP
server's ``tools/list``) against a backend that never returns from each of its entry points
(choosing the backend, reading, writing, deleting). Each path must end, say "the OS keyring is not
answering", and treat the keyring's keys as absent. Also the key file that is not a regular file
(a FIFO, a folder) and a key variable holding bytes that are not UTF-8.

The keyring time limit is cut to 50 ms here; the hang guard (:func:`tests.helpers.finishes_within`)
only tells a hang from an answer, it measures nothing."""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend

from tests.helpers import finishes_within
from websearch_tui.cli.main import main
from websearch_tui.core.catalogue import SPECS
from websearch_tui.engine.engine import Engine
from websearch_tui.mcp.tools import SearchTools
from websearch_tui.secrets import credentials
from websearch_tui.session import Session
from websearch_tui.settings.config import Config

HANG_GUARD = 60.0
"""Seconds after which a path counts as hung (each answers within a fraction of a second)."""
SILENT_POINTS = {
    "everything": frozenset({"priority", "get", "set", "delete"}),
    "backend": frozenset({"priority"}),
    "reads": frozenset({"get"}),
    "writes": frozenset({"set", "delete"}),
}
"""Which of the backend's entry points never return; each path meets every one it reaches."""
READING = pytest.mark.parametrize("silent", ["everything", "reads"], indirect=True)
"""The cases of a path that only reads keys (it never asks which backend is in use)."""


class SilentKeyring(KeyringBackend):
    """A usable-looking backend whose ``silent`` entry points block until the test ends; the others
    answer like an empty keyring."""

    def __init__(self, silent: frozenset[str], release: threading.Event) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.silent = silent
        self.release = release
        self.asked = 0

    def _maybe_hang(self, point: str) -> None:
        if point in self.silent:
            self.asked += 1
            self.release.wait()

    @property
    def priority(self) -> float:
        self._maybe_hang("priority")
        return 5

    def get_password(self, service: str, username: str) -> str | None:
        self._maybe_hang("get")
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._maybe_hang("set")

    def delete_password(self, service: str, username: str) -> None:
        self._maybe_hang("delete")


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at the end of the test: every call still waiting on the silent keyring returns."""
    event = threading.Event()
    yield event
    event.set()


@pytest.fixture
def silent(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, release: threading.Event) -> SilentKeyring:
    """The silent keyring of this case installed, the time limit at 50 ms, no call left waiting."""
    monkeypatch.setattr(credentials, "KEYRING_TIMEOUT", 0.05)
    monkeypatch.setattr(credentials, "_waiting", None)
    backend = SilentKeyring(SILENT_POINTS[request.param], release)
    keyring.set_keyring(backend)
    return backend


@pytest.fixture
def silent_writes(monkeypatch: pytest.MonkeyPatch, release: threading.Event) -> SilentKeyring:
    """A keyring holding Brave's key that answers reads but never a write or a delete."""
    monkeypatch.setattr(credentials, "KEYRING_TIMEOUT", 0.05)
    monkeypatch.setattr(credentials, "_waiting", None)

    class Holding(SilentKeyring):
        def get_password(self, service: str, username: str) -> str | None:
            return "brave-stored-secret-2" if username == "brave:api_key" else None

    backend = Holding(SILENT_POINTS["writes"], release)
    keyring.set_keyring(backend)
    return backend


def answered(work: Callable[[], object]) -> object:
    """``work()``'s value, asserting it did not hang."""
    box: list[object] = []
    assert finishes_within(lambda: box.append(work()), seconds=HANG_GUARD), "hung on a silent keyring"
    return box[0]


def reads_hang(silent: SilentKeyring) -> bool:
    return bool(silent.silent & {"priority", "get"})


@pytest.mark.parametrize("silent", ["everything", "backend", "reads"], indirect=True)
def test_keys_list(silent: SilentKeyring, capsys: pytest.CaptureFixture[str]) -> None:
    assert answered(lambda: main(["keys", "list"])) == 0
    out = capsys.readouterr().out
    assert "brave" in out and "keyring\n" not in out
    if reads_hang(silent):
        assert "Keyring: the OS keyring is not answering" in out
        assert "--file" not in out  # a silent keyring is no reason to offer the plain-text file


@READING
@pytest.mark.parametrize("output", ["table", "json"])
def test_providers(output: str, silent: SilentKeyring, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["providers"] + (["--format", "json"] if output == "json" else [])
    assert answered(lambda: main(argv)) == 0
    captured = capsys.readouterr()
    assert "brave" in captured.out
    assert "websearch-tui: warning: the OS keyring is not answering" in captured.err


@READING
def test_a_search_needing_a_stored_key(silent: SilentKeyring, capsys: pytest.CaptureFixture[str]) -> None:
    assert answered(lambda: main(["search", "-p", "brave", "--no-history", "python asyncio"])) == 1
    err = capsys.readouterr().err
    assert "Brave Search" in err and "BRAVE_API_KEY" in err  # the key counts as absent
    assert "the OS keyring is not answering" in err


@pytest.mark.parametrize("silent", ["everything", "backend", "writes"], indirect=True)
def test_keys_set(silent: SilentKeyring, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("brave-silent-secret-1\n"))
    code = answered(lambda: main(["keys", "set", "brave"]))
    captured = capsys.readouterr()
    assert code == 1
    assert "the OS keyring is not answering" in captured.err and "--file" not in captured.err
    assert "brave-silent-secret-1" not in captured.out + captured.err
    assert not credentials.key_file_path().exists()  # never the plain-text file without consent


@pytest.mark.parametrize("silent", ["everything", "backend", "reads"], indirect=True)
def test_keys_delete(silent: SilentKeyring, capsys: pytest.CaptureFixture[str]) -> None:
    assert answered(lambda: main(["keys", "delete", "brave"])) == 1
    err = capsys.readouterr().err
    assert "Brave Search: could not" in err and "the OS keyring is not answering" in err


def test_keys_delete_of_a_stored_key_on_a_keyring_that_stops_answering(
    capsys: pytest.CaptureFixture[str], silent_writes: SilentKeyring
) -> None:
    assert answered(lambda: main(["keys", "delete", "brave"])) == 1
    assert "Brave Search: could not delete the key: the OS keyring is not answering" in capsys.readouterr().err


@READING
def test_mcp_tools_list(silent: SilentKeyring) -> None:
    config = Config()
    tools = SearchTools(Session(config, Engine.from_config(config)))
    listed = answered(lambda: asyncio.run(tools.listing()))
    assert isinstance(listed, list) and [tool.name for tool in listed][0] == "web_search"
    assert answered(tools.readiness)["brave"] == "needs key"  # type: ignore[index]


@READING
def test_a_silent_keyring_is_asked_once_while_its_call_waits(silent: SilentKeyring) -> None:
    store = credentials.KeyStore()
    for spec in SPECS.values():
        answered(functools.partial(store.lookup, spec))
    assert silent.asked == 1  # the first call waits; every later one fails at once
    assert store.keyring_problem is not None and "not answering" in store.keyring_problem


@READING
def test_the_keyring_is_asked_again_once_it_answers(silent: SilentKeyring, release: threading.Event) -> None:
    store = credentials.KeyStore()
    answered(lambda: store.lookup(SPECS["brave"]))
    release.set()
    waiting = credentials._waiting
    if waiting is not None:
        waiting.join(HANG_GUARD)
    assert answered(lambda: credentials.bounded(lambda: "answer", timeout=HANG_GUARD)) == "answer"


# --- the key file and key variables ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_key_file_that_is_not_a_regular_file_is_refused(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "keys.toml"
    os.mkfifo(path, 0o600) if kind == "fifo" else path.mkdir(mode=0o700)
    monkeypatch.setenv(credentials.KEY_FILE_ENV, str(path))
    assert answered(lambda: main(["keys", "list"])) == 0
    out = capsys.readouterr().out
    assert f"Key file: The key file {path} is not a regular file, so it was ignored" in out
    assert answered(lambda: credentials.KeyStore().lookup(SPECS["searxng"]))[0] == {}  # type: ignore[index]


def test_a_key_variable_that_is_not_utf8_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", os.fsdecode(b"brave-key-\xff\xfe"))
    assert main(["search", "-p", "brave", "--no-history", "python asyncio"]) == 1
    err = capsys.readouterr().err
    assert "Unexpected" not in err
    assert "the API key from env BRAVE_API_KEY is not valid UTF-8 text" in err
    assert "set it again" in err
    assert main(["keys", "list"]) == 0
    assert "env BRAVE_API_KEY (not used: it is not valid UTF-8 text" in capsys.readouterr().out
