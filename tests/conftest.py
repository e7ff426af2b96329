"""Test isolation: no real keyring, no user config, history or key file, no provider keys from the
developer's shell."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend

from websearch_tui.core import errors
from websearch_tui.core.catalogue import SPECS


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring backend for tests."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


@pytest.fixture(scope="session", autouse=True)
def isolated_log(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The app's log file goes to a temporary folder for the whole session."""
    import os

    os.environ["WEBSEARCH_TUI_LOG"] = str(tmp_path_factory.mktemp("log") / "websearch-tui.log")


@pytest.fixture(autouse=True)
def log_handlers_restored() -> Iterator[None]:
    """A log handler a test's in-process command installs (``setup_logging`` with that test's own
    ``WEBSEARCH_TUI_LOG``) is closed and removed afterwards, so later tests log where they expect;
    and every test starts with the package's records reaching pytest's log capture, and with the
    libraries' loggers as they were before any in-process MCP server routed them."""
    import logging

    from websearch_tui.mcp.server import LIBRARY_LOGGERS

    logger = logging.getLogger("websearch_tui")
    before, propagate = list(logger.handlers), logger.propagate
    logger.propagate = True  # an earlier command's setup_logging turns it off; caplog needs it on
    # an in-process MCP server routes the libraries' loggers (httpx, asyncio, ...) to its handlers
    libraries = {name: logging.getLogger(name) for name in LIBRARY_LOGGERS}
    states = {name: (list(lib.handlers), lib.level, lib.propagate) for name, lib in libraries.items()}
    yield
    logger.propagate = propagate
    for handler in [h for h in logger.handlers if h not in before]:
        logger.removeHandler(handler)
        handler.close()
    for name, lib in libraries.items():
        lib.handlers, lib.level, lib.propagate = states[name]


@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path) -> MemoryKeyring:
    """Every test: empty in-memory keyring; config, key file, history and remembered-controls paths in
    tmp; no provider env vars."""
    backend = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    monkeypatch.setenv("WEBSEARCH_TUI_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("WEBSEARCH_TUI_KEY_FILE", str(tmp_path / "no-keys.toml"))  # never the user's key file
    monkeypatch.setenv("WEBSEARCH_TUI_HISTORY", str(tmp_path / "history.sqlite3"))  # never the user's history
    monkeypatch.setenv("WEBSEARCH_TUI_STATE", str(tmp_path / "state.json"))  # nor the controls remembered
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    monkeypatch.setattr(errors, "_secrets", set())  # a key registered by one test is not redacted in the next
    monkeypatch.setattr(errors, "_registered", set())
    monkeypatch.setattr(errors, "_matcher", None)
    for spec in SPECS.values():
        for credential in spec.credentials:
            for name in credential.env_vars:
                monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("SEARXNG_ENDPOINT", raising=False)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex-login"))  # never the developer's ~/.codex
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring(isolated_environment: MemoryKeyring) -> MemoryKeyring:
    """The in-memory keyring installed for this test."""
    return isolated_environment
