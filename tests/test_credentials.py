"""The key store: backend detection, keyring errors in plain words, the unencrypted key file and the
lookup order (env > keyring > key file). Uses the in-memory keyring from conftest and keyring's
real ``fail`` backend; nothing touches the developer's keyring or files."""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.chainer
import keyring.backends.fail
import keyring.backends.null
import pytest
import tomlkit
from keyring.backend import KeyringBackend
from keyring.errors import InitError, KeyringLocked, PasswordSetError

from websearch_tui import credentials
from websearch_tui.core.errors import redact
from websearch_tui.credentials import (
    KEYRING_SERVICE,
    CredentialSource,
    KeyStoreError,
    NoKeyringError,
    backend_info,
    credential_sources,
    delete_secret,
    key_file_path,
    key_file_problem,
    lookup,
    store_secret,
)
from websearch_tui.providers import SPECS

BRAVE = SPECS["brave"]


@pytest.fixture
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The key file path for this test (inside a not yet existing folder)."""
    path = tmp_path / "conf" / "keys.toml"
    monkeypatch.setenv(credentials.KEY_FILE_ENV, str(path))
    return path


@pytest.fixture
def fail_backend():
    """keyring's real ``fail`` backend: what a headless Linux without a Secret Service gets."""
    keyring.set_keyring(keyring.backends.fail.Keyring())


class RaisingKeyring(KeyringBackend):
    """A usable-looking backend whose every call raises ``error`` (locked, denied, D-Bus down)."""

    priority = 5  # type: ignore[assignment]

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def get_password(self, service: str, username: str) -> str | None:
        raise self.error

    def set_password(self, service: str, username: str, password: str) -> None:
        raise self.error

    def delete_password(self, service: str, username: str) -> None:
        raise self.error


@pytest.fixture
def credential_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Warnings of the credentials module, also when the app's logger no longer propagates to root."""
    logger = logging.getLogger("websearch_tui.credentials")
    logger.addHandler(caplog.handler)
    with caplog.at_level(logging.WARNING, logger="websearch_tui.credentials"):
        yield caplog
    logger.removeHandler(caplog.handler)


def entry(memory_keyring, provider: str = "brave", name: str = "api_key") -> str | None:
    return memory_keyring.entries.get((KEYRING_SERVICE, f"{provider}:{name}"))


# --- backend detection ----------------------------------------------------------------------


@pytest.mark.usefixtures("fail_backend")
def test_fail_backend_is_reported_in_plain_words(key_file: Path) -> None:
    info = backend_info()
    assert (info.usable, info.name) == (False, "fail Keyring")
    for words in ("No usable OS keyring", "gnome-keyring", "KeePassXC", "environment variable", str(key_file)):
        assert words in info.message
    assert "\n" not in info.message


@pytest.mark.parametrize(
    "backend",
    [keyring.backends.null.Keyring(), keyring.backends.chainer.ChainerBackend()],
    ids=["null", "empty-chainer"],
)
def test_null_and_empty_chainer_are_not_usable(backend, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyring.backends.chainer.ChainerBackend, "backends", [])
    keyring.set_keyring(backend)
    assert backend_info().usable is False


def test_a_backend_whose_priority_raises_is_not_usable_and_says_why() -> None:
    class NoBus(RaisingKeyring):
        @classmethod
        def _priority(cls) -> float:
            raise RuntimeError("Environment variable DBUS_SESSION_BUS_ADDRESS is unset")

        priority = property(lambda self: self._priority())  # type: ignore[assignment]

    keyring.set_keyring(NoBus(RuntimeError("unused")))
    info = backend_info()
    assert info.usable is False
    assert "DBUS_SESSION_BUS_ADDRESS is unset" in info.message


def test_memory_backend_is_usable(memory_keyring) -> None:
    info = backend_info()
    assert info == credentials.BackendInfo(True, "conftest MemoryKeyring", "")


# --- no keyring: the key file only after explicit confirmation -----------------------------


@pytest.mark.usefixtures("fail_backend")
def test_no_keyring_refuses_without_allow_file_and_writes_nothing(key_file: Path) -> None:
    with pytest.raises(NoKeyringError) as info:
        store_secret("brave", "api_key", "brave-secret-0001")
    message = str(info.value)
    assert "BRAVE_API_KEY" in message and "gnome-keyring" in message and str(key_file) in message
    assert "brave-secret-0001" not in message
    assert isinstance(info.value, KeyStoreError)
    assert not key_file.exists() and not key_file.parent.exists()


@pytest.mark.usefixtures("fail_backend")
def test_allow_file_writes_a_private_key_file(key_file: Path) -> None:
    assert store_secret("brave", "api_key", "  brave-secret-0002\n", allow_file=True) == "file"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    text = key_file.read_text(encoding="utf-8")
    assert "NOT ENCRYPTED" in text.splitlines()[0] and "keys set" in text
    assert tomlkit.parse(text).unwrap() == {"brave": {"api_key": "brave-secret-0002"}}
    assert redact("key=brave-secret-0002") == "key=***"  # registered for redaction when stored
    values, sources = lookup(BRAVE)
    assert values == {"api_key": "brave-secret-0002"}
    assert sources == [CredentialSource("api_key", "file")]
    assert sources[0].describe() == "key file (not encrypted)"
    assert sorted(p.name for p in key_file.parent.iterdir()) == ["keys.toml"]  # no temp file left behind


@pytest.mark.usefixtures("fail_backend")
def test_key_file_keeps_other_entries_and_is_removed_when_empty(key_file: Path) -> None:
    store_secret("brave", "api_key", "brave-secret-0003", allow_file=True)
    store_secret("searxng", "username", "alice", allow_file=True)
    assert delete_secret("brave", "api_key") == ["file"]
    assert tomlkit.parse(key_file.read_text()).unwrap() == {"searxng": {"username": "alice"}}
    assert delete_secret("brave", "api_key") == []
    assert delete_secret("searxng", "username") == ["file"]
    assert not key_file.exists()


@pytest.mark.usefixtures("fail_backend")
def test_a_failed_write_leaves_the_old_file_intact(key_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store_secret("brave", "api_key", "brave-secret-0004", allow_file=True)
    before = key_file.read_bytes()

    def broken_replace(src, dst) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(credentials.os, "replace", broken_replace)
    with pytest.raises(KeyStoreError, match="Cannot write the key file .*No space left on device"):
        store_secret("tavily", "api_key", "tavily-secret-0004", allow_file=True)
    assert key_file.read_bytes() == before
    assert sorted(p.name for p in key_file.parent.iterdir()) == ["keys.toml"]


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660], ids=lambda mode: f"{mode:04o}")
def test_a_key_file_others_can_read_is_refused(mode: int, key_file: Path, credential_log, memory_keyring) -> None:
    key_file.parent.mkdir()
    key_file.write_text('[brave]\napi_key = "brave-secret-0005"\n')
    key_file.chmod(mode)
    values, sources = lookup(BRAVE)
    assert values == {} and sources == [CredentialSource("api_key", None)]
    assert f"chmod 600 {key_file}" in credential_log.text and f"{mode:04o}" in credential_log.text
    problem = key_file_problem()
    assert problem is not None and "accessible to other users" in problem
    with pytest.raises(KeyStoreError, match="accessible to other users"):
        delete_secret("brave", "api_key")
    assert "brave-secret-0005" not in credential_log.text + problem


def test_an_invalid_key_file_is_skipped_without_quoting_it(key_file: Path, credential_log) -> None:
    key_file.parent.mkdir()
    key_file.write_text('[brave]\napi_key = "brave-secret-0006\n')
    key_file.chmod(0o600)
    assert lookup(BRAVE)[0] == {}
    problem = key_file_problem()
    assert problem is not None and "is not valid TOML (line 2)" in problem
    assert "is not valid TOML" in credential_log.text
    assert "brave-secret-0006" not in credential_log.text + problem


def test_a_symlinked_key_file_is_not_followed(key_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.toml"
    target.write_text('[brave]\napi_key = "brave-secret-0007"\n')
    target.chmod(0o600)
    key_file.parent.mkdir()
    key_file.symlink_to(target)
    assert lookup(BRAVE)[0] == {}
    assert "Cannot read the key file" in (key_file_problem() or "")


# --- lookup order -----------------------------------------------------------------------------


def test_lookup_order_env_then_keyring_then_file(
    key_file: Path, memory_keyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file.parent.mkdir()
    key_file.write_text('[brave]\napi_key = "from-file-0008"\n')
    key_file.chmod(0o600)
    memory_keyring.set_password(KEYRING_SERVICE, "brave:api_key", "from-keyring-0008")
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "from-env-0008")
    values, sources = lookup(BRAVE)
    assert values == {"api_key": "from-env-0008"}
    assert [s.describe() for s in sources] == ["env BRAVE_SEARCH_API_KEY"]
    monkeypatch.delenv("BRAVE_SEARCH_API_KEY")
    assert lookup(BRAVE) == ({"api_key": "from-keyring-0008"}, [CredentialSource("api_key", "keyring")])
    memory_keyring.delete_password(KEYRING_SERVICE, "brave:api_key")
    assert lookup(BRAVE) == ({"api_key": "from-file-0008"}, [CredentialSource("api_key", "file")])
    assert credential_sources(BRAVE) == [CredentialSource("api_key", "file")]
    key_file.unlink()
    assert credential_sources(BRAVE) == [CredentialSource("api_key", None)]
    assert credential_sources(BRAVE)[0].describe() == "not set"


def test_credential_sources_cover_every_credential_in_order(memory_keyring, monkeypatch) -> None:
    monkeypatch.setenv("SEARXNG_BASIC_USERNAME", "alice")
    memory_keyring.set_password(KEYRING_SERVICE, "searxng:password", "searxng-secret-0009")
    assert credential_sources(SPECS["searxng"]) == [
        CredentialSource("token", None),
        CredentialSource("username", "env", "SEARXNG_BASIC_USERNAME"),
        CredentialSource("password", "keyring"),
    ]


# --- the keyring: store, delete and its failures -----------------------------------------------


def test_store_and_delete_in_the_keyring(memory_keyring, key_file: Path) -> None:
    assert store_secret("brave", "api_key", " brave-secret-0010 ") == "keyring"
    assert entry(memory_keyring) == "brave-secret-0010"
    assert redact("brave-secret-0010") == "***"
    assert not key_file.exists()  # the file is only a fallback
    assert delete_secret("brave", "api_key") == ["keyring"]
    assert entry(memory_keyring) is None
    assert delete_secret("brave", "api_key") == []


def test_storing_in_a_working_keyring_moves_the_key_out_of_the_file(
    memory_keyring, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())
    store_secret("brave", "api_key", "brave-secret-0011", allow_file=True)
    store_secret("tavily", "api_key", "tavily-secret-0011", allow_file=True)
    keyring.set_keyring(memory_keyring)  # later, a keyring became available
    assert store_secret("brave", "api_key", "brave-secret-0011") == "keyring"
    assert tomlkit.parse(key_file.read_text()).unwrap() == {"tavily": {"api_key": "tavily-secret-0011"}}


@pytest.mark.parametrize(
    "value", ["", "   \n", "abc\x1b[31mdef", "abc\ndef", "tab\there", "key\u00a0with-nbsp", "\u201ckey\u201d"]
)
def test_empty_values_control_characters_and_non_ascii_keys_are_refused(value: str, memory_keyring) -> None:
    with pytest.raises(
        KeyStoreError, match="Brave Search: the api_key (is empty|contains control characters|contains a character)"
    ):
        store_secret("brave", "api_key", value)
    assert memory_keyring.entries == {}


def test_unknown_provider_or_credential_is_refused(memory_keyring) -> None:
    with pytest.raises(KeyStoreError, match="Unknown provider 'bravo'"):
        store_secret("bravo", "api_key", "value-0012")
    with pytest.raises(KeyStoreError, match=r"Brave Search has no credential 'token' \(its credentials: api_key\)"):
        delete_secret("brave", "token")
    assert memory_keyring.entries == {}


def test_a_locked_keyring_is_explained(memory_keyring, key_file: Path) -> None:
    keyring.set_keyring(RaisingKeyring(KeyringLocked("Failed to unlock the collection!")))
    with pytest.raises(KeyStoreError) as info:
        store_secret("brave", "api_key", "brave-secret-0013")
    message = str(info.value)
    assert message.startswith("Brave Search: could not store the key because the OS keyring is locked")
    assert "gnome-keyring-daemon --unlock" in message and "brave-secret-0013" not in message
    assert not key_file.exists()  # a locked keyring never silently falls back to the plain file
    with pytest.raises(KeyStoreError, match="could not read the key because the OS keyring is locked"):
        delete_secret("brave", "api_key")
    assert lookup(BRAVE) == ({}, [CredentialSource("api_key", None)])  # a search still runs


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (PermissionError(13, "Permission denied"), "the OS keyring denied access"),
        (PasswordSetError("Access denied: brave-secret-0014"), "(Access denied: ***)"),
        (InitError("Failed to create the collection: Prompt dismissed."), "Prompt dismissed"),
        (ConnectionRefusedError(111, "org.freedesktop.DBus.Error.NoReply"), "DBus.Error.NoReply"),
    ],
    ids=["permission", "set-error", "init-error", "dbus"],
)
def test_denied_and_broken_keyrings_become_key_store_errors(error: BaseException, expected: str) -> None:
    keyring.set_keyring(RaisingKeyring(error))
    with pytest.raises(KeyStoreError) as info:
        store_secret("brave", "api_key", "brave-secret-0014")
    assert type(info.value) is KeyStoreError
    message = str(info.value)
    assert message.startswith("Brave Search: could not store the key") and expected in message
    assert "brave-secret-0014" not in message and "\n" not in message
    assert lookup(BRAVE)[0] == {}


def test_library_no_keyring_error_at_store_time_falls_back_only_with_allow_file(key_file: Path) -> None:
    keyring.set_keyring(RaisingKeyring(keyring.errors.NoKeyringError("No recommended backend")))
    with pytest.raises(NoKeyringError):
        store_secret("brave", "api_key", "brave-secret-0015")
    assert not key_file.exists()
    assert store_secret("brave", "api_key", "brave-secret-0015", allow_file=True) == "file"


# --- never config.toml ---------------------------------------------------------------------------


def test_keys_never_reach_config_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring) -> None:
    config_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    monkeypatch.delenv(credentials.KEY_FILE_ENV)
    assert key_file_path() == config_home / "websearch-tui" / "keys.toml"
    config = config_home / "websearch-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('# mine\n[search]\nmode = "auto"\n')
    monkeypatch.setenv("WEBSEARCH_TUI_CONFIG", str(config))
    before = (config.read_bytes(), config.stat().st_mtime_ns)
    store_secret("brave", "api_key", "brave-secret-0016")
    keyring.set_keyring(keyring.backends.fail.Keyring())
    store_secret("tavily", "api_key", "tavily-secret-0016", allow_file=True)
    assert (config.read_bytes(), config.stat().st_mtime_ns) == before
    holders = sorted(
        str(path.relative_to(tmp_path))
        for path in tmp_path.rglob("*")
        if path.is_file() and b"secret-0016" in path.read_bytes()
    )
    assert holders == ["xdg/websearch-tui/keys.toml"]
    assert b"brave-secret-0016" not in (config_home / "websearch-tui" / "keys.toml").read_bytes()
    assert os.stat(config_home / "websearch-tui" / "keys.toml").st_mode & 0o077 == 0


class CountingLockedKeyring(RaisingKeyring):
    """A locked keyring that counts how often it was asked (each ask is an unlock prompt on a desktop)."""

    def __init__(self) -> None:
        super().__init__(KeyringLocked("Failed to unlock the collection!"))
        self.asked = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.asked += 1
        time.sleep(0.01)  # the unlock prompt is open for a while
        return super().get_password(service, username)


def test_a_locked_keyring_is_asked_once_not_once_per_credential(memory_keyring, monkeypatch) -> None:
    from websearch_tui import credentials
    from websearch_tui.providers import SPECS

    locked = CountingLockedKeyring()
    keyring.set_keyring(locked)
    sources = [credential_sources(spec) for spec in SPECS.values()]
    assert locked.asked == 1
    assert all(source.where is None for listed in sources for source in listed)
    real = time.monotonic
    monkeypatch.setattr(time, "monotonic", lambda: real() + credentials.LOCKED_PAUSE + 1)
    credential_sources(BRAVE)
    assert locked.asked == 2  # after the pause the keyring is asked again


def test_parallel_lookups_of_a_locked_keyring_ask_once(memory_keyring) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from websearch_tui.providers import SPECS

    locked = CountingLockedKeyring()
    keyring.set_keyring(locked)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(credential_sources, SPECS.values()))
    assert locked.asked == 1


def test_a_basic_auth_password_may_be_any_printable_text(memory_keyring) -> None:
    assert store_secret("searxng", "password", "pässwörd-0014") == "keyring"
    assert memory_keyring.entries[(KEYRING_SERVICE, "searxng:password")] == "pässwörd-0014"
