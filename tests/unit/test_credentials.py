"""The key store: backend detection, keyring errors in plain words, the unencrypted key file, the
lookup order (env > keyring > key file), the locked-keyring pause, and the rules of
:meth:`KeyStore.store` (the settings screen's Save key). Uses the in-memory keyring from conftest and
keyring's real ``fail`` backend; nothing touches the developer's keyring or files."""

from __future__ import annotations

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

from tests.helpers import module_log
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import redact
from websearch_tui.core.specs import CredentialSpec
from websearch_tui.engine.engine import Engine
from websearch_tui.secrets import credentials
from websearch_tui.secrets.credentials import (
    KEYRING_SERVICE,
    CredentialSource,
    KeyStore,
    KeyStoreError,
    NoKeyringError,
    StoreResult,
    backend_info,
    credential_problem,
    key_file_path,
    key_file_problem,
)
from websearch_tui.settings.config import Config

BRAVE = SPECS["brave"]
SEARXNG = SPECS["searxng"]
TAVILY = SPECS["tavily"]


@pytest.fixture
def store() -> KeyStore:
    """A key store of its own for this test (no locked pause carried over)."""
    return KeyStore()


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
    with module_log(caplog, "websearch_tui.secrets.credentials"):
        yield caplog


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
def test_no_keyring_refuses_without_allow_file_and_writes_nothing(key_file: Path, store: KeyStore) -> None:
    with pytest.raises(NoKeyringError) as info:
        store.store_one(BRAVE, "api_key", "brave-secret-0001")
    message = str(info.value)
    assert "BRAVE_API_KEY" in message and "gnome-keyring" in message and str(key_file) in message
    assert "brave-secret-0001" not in message
    assert isinstance(info.value, KeyStoreError)
    assert not key_file.exists() and not key_file.parent.exists()


@pytest.mark.usefixtures("fail_backend")
def test_allow_file_writes_a_private_key_file(key_file: Path, store: KeyStore) -> None:
    assert store.store_one(BRAVE, "api_key", "  brave-secret-0002\n", allow_file=True) == "file"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    text = key_file.read_text(encoding="utf-8")
    assert "NOT ENCRYPTED" in text.splitlines()[0] and "keys set" in text
    assert tomlkit.parse(text).unwrap() == {"brave": {"api_key": "brave-secret-0002"}}
    assert redact("key=brave-secret-0002") == "key=***"  # registered for redaction when stored
    values, sources = store.lookup(BRAVE)
    assert values == {"api_key": "brave-secret-0002"}
    assert sources == [CredentialSource("api_key", "file")]
    assert sources[0].describe() == "key file (not encrypted)"
    assert sorted(p.name for p in key_file.parent.iterdir() if p.suffix != ".lock") == [
        "keys.toml"
    ]  # no temp file left behind


@pytest.mark.usefixtures("fail_backend")
def test_key_file_keeps_other_entries_and_is_removed_when_empty(key_file: Path, store: KeyStore) -> None:
    store.store_one(BRAVE, "api_key", "brave-secret-0003", allow_file=True)
    store.store_one(SEARXNG, "username", "alice", allow_file=True)
    assert store.delete(BRAVE, ["api_key"]) == ["file"]
    assert tomlkit.parse(key_file.read_text()).unwrap() == {"searxng": {"username": "alice"}}
    assert store.delete(BRAVE, ["api_key"]) == []
    assert store.delete(SEARXNG, ["username"]) == ["file"]
    assert not key_file.exists()


@pytest.mark.usefixtures("fail_backend")
def test_a_failed_write_leaves_the_old_file_intact(
    key_file: Path, monkeypatch: pytest.MonkeyPatch, store: KeyStore
) -> None:
    store.store_one(BRAVE, "api_key", "brave-secret-0004", allow_file=True)
    before = key_file.read_bytes()

    def broken_replace(src, dst) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(credentials.os, "replace", broken_replace)
    with pytest.raises(KeyStoreError, match="Cannot write the key file .*No space left on device"):
        store.store_one(TAVILY, "api_key", "tavily-secret-0004", allow_file=True)
    assert key_file.read_bytes() == before
    assert sorted(p.name for p in key_file.parent.iterdir() if p.suffix != ".lock") == ["keys.toml"]


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660], ids=lambda mode: f"{mode:04o}")
def test_a_key_file_others_can_read_is_refused(
    mode: int, key_file: Path, credential_log, memory_keyring, store: KeyStore
) -> None:
    key_file.parent.mkdir()
    key_file.write_text('[brave]\napi_key = "brave-secret-0005"\n')
    key_file.chmod(mode)
    values, sources = store.lookup(BRAVE)
    assert values == {} and sources == [CredentialSource("api_key", None)]
    assert f"chmod 600 {key_file}" in credential_log.text and f"{mode:04o}" in credential_log.text
    problem = key_file_problem()
    assert problem is not None and "accessible to other users" in problem
    with pytest.raises(KeyStoreError, match="accessible to other users"):
        store.delete(BRAVE, ["api_key"])
    assert "brave-secret-0005" not in credential_log.text + problem


def test_an_invalid_key_file_is_skipped_without_quoting_it(key_file: Path, credential_log, store: KeyStore) -> None:
    key_file.parent.mkdir()
    key_file.write_text('[brave]\napi_key = "brave-secret-0006\n')
    key_file.chmod(0o600)
    assert store.lookup(BRAVE)[0] == {}
    problem = key_file_problem()
    assert problem is not None and "is not valid TOML (line 2)" in problem
    assert "is not valid TOML" in credential_log.text
    assert "brave-secret-0006" not in credential_log.text + problem


def test_a_symlinked_key_file_is_not_followed(key_file: Path, tmp_path: Path, store: KeyStore) -> None:
    target = tmp_path / "elsewhere.toml"
    target.write_text('[brave]\napi_key = "brave-secret-0007"\n')
    target.chmod(0o600)
    key_file.parent.mkdir()
    key_file.symlink_to(target)
    assert store.lookup(BRAVE)[0] == {}
    assert "Cannot read the key file" in (key_file_problem() or "")


# --- lookup order -----------------------------------------------------------------------------


def test_lookup_order_env_then_keyring_then_file(
    key_file: Path, memory_keyring, monkeypatch: pytest.MonkeyPatch, store: KeyStore
) -> None:
    key_file.parent.mkdir()
    key_file.write_text('[brave]\napi_key = "from-file-0008"\n')
    key_file.chmod(0o600)
    memory_keyring.set_password(KEYRING_SERVICE, "brave:api_key", "from-keyring-0008")
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "from-env-0008")
    values, sources = store.lookup(BRAVE)
    assert values == {"api_key": "from-env-0008"}
    assert [s.describe() for s in sources] == ["env BRAVE_SEARCH_API_KEY"]
    monkeypatch.delenv("BRAVE_SEARCH_API_KEY")
    assert store.lookup(BRAVE) == ({"api_key": "from-keyring-0008"}, [CredentialSource("api_key", "keyring")])
    memory_keyring.delete_password(KEYRING_SERVICE, "brave:api_key")
    assert store.lookup(BRAVE) == ({"api_key": "from-file-0008"}, [CredentialSource("api_key", "file")])
    assert store.sources(BRAVE) == [CredentialSource("api_key", "file")]
    key_file.unlink()
    assert store.sources(BRAVE) == [CredentialSource("api_key", None)]
    assert store.sources(BRAVE)[0].describe() == "not set"


def test_credential_sources_cover_every_credential_in_order(memory_keyring, monkeypatch, store: KeyStore) -> None:
    monkeypatch.setenv("SEARXNG_BASIC_USERNAME", "alice")
    memory_keyring.set_password(KEYRING_SERVICE, "searxng:password", "searxng-secret-0009")
    assert store.sources(SPECS["searxng"]) == [
        CredentialSource("token", None),
        CredentialSource("username", "env", "SEARXNG_BASIC_USERNAME"),
        CredentialSource("password", "keyring"),
    ]


# --- the keyring: store, delete and its failures -----------------------------------------------


def test_store_and_delete_in_the_keyring(memory_keyring, key_file: Path, store: KeyStore) -> None:
    assert store.store_one(BRAVE, "api_key", " brave-secret-0010 ") == "keyring"
    assert entry(memory_keyring) == "brave-secret-0010"
    assert redact("brave-secret-0010") == "***"
    assert not key_file.exists()  # the file is only a fallback
    assert store.delete(BRAVE, ["api_key"]) == ["keyring"]
    assert entry(memory_keyring) is None
    assert store.delete(BRAVE, ["api_key"]) == []


def test_storing_in_a_working_keyring_moves_the_key_out_of_the_file(
    memory_keyring, key_file: Path, monkeypatch: pytest.MonkeyPatch, store: KeyStore
) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())
    store.store_one(BRAVE, "api_key", "brave-secret-0011", allow_file=True)
    store.store_one(TAVILY, "api_key", "tavily-secret-0011", allow_file=True)
    keyring.set_keyring(memory_keyring)  # later, a keyring became available
    assert store.store_one(BRAVE, "api_key", "brave-secret-0011") == "keyring"
    assert tomlkit.parse(key_file.read_text()).unwrap() == {"tavily": {"api_key": "tavily-secret-0011"}}


@pytest.mark.parametrize(
    "value", ["", "   \n", "abc\x1b[31mdef", "abc\ndef", "tab\there", "key\u00a0with-nbsp", "\u201ckey\u201d"]
)
def test_empty_values_control_characters_and_non_ascii_keys_are_refused(
    value: str, memory_keyring, store: KeyStore
) -> None:
    with pytest.raises(
        KeyStoreError, match="Brave Search: the api_key (is empty|contains control characters|contains a character)"
    ):
        store.store_one(BRAVE, "api_key", value)
    assert memory_keyring.entries == {}


def test_an_unknown_credential_is_refused(memory_keyring, store: KeyStore) -> None:
    with pytest.raises(KeyStoreError, match=r"Brave Search has no credential 'token' \(its credentials: api_key\)"):
        store.store_one(BRAVE, "token", "value-0012")
    with pytest.raises(KeyStoreError, match=r"Brave Search has no credential 'token'"):
        store.delete(BRAVE, ["token"])
    assert memory_keyring.entries == {}


def test_a_locked_keyring_is_explained(memory_keyring, key_file: Path, store: KeyStore) -> None:
    keyring.set_keyring(RaisingKeyring(KeyringLocked("Failed to unlock the collection!")))
    with pytest.raises(KeyStoreError) as info:
        store.store_one(BRAVE, "api_key", "brave-secret-0013")
    message = str(info.value)
    assert message.startswith("Brave Search: could not store the key because the OS keyring is locked")
    assert "gnome-keyring-daemon --unlock" in message and "brave-secret-0013" not in message
    assert not key_file.exists()  # a locked keyring never silently falls back to the plain file
    with pytest.raises(KeyStoreError, match="could not read the key because the OS keyring is locked"):
        store.delete(BRAVE, ["api_key"])
    assert store.lookup(BRAVE) == ({}, [CredentialSource("api_key", None)])  # a search still runs


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
def test_denied_and_broken_keyrings_become_key_store_errors(
    error: BaseException, expected: str, store: KeyStore
) -> None:
    keyring.set_keyring(RaisingKeyring(error))
    with pytest.raises(KeyStoreError) as info:
        store.store_one(BRAVE, "api_key", "brave-secret-0014")
    assert type(info.value) is KeyStoreError
    message = str(info.value)
    assert message.startswith("Brave Search: could not store the key") and expected in message
    assert "brave-secret-0014" not in message and "\n" not in message
    assert store.lookup(BRAVE)[0] == {}


def test_library_no_keyring_error_at_store_time_falls_back_only_with_allow_file(
    key_file: Path, store: KeyStore
) -> None:
    keyring.set_keyring(RaisingKeyring(keyring.errors.NoKeyringError("No recommended backend")))
    with pytest.raises(NoKeyringError):
        store.store_one(BRAVE, "api_key", "brave-secret-0015")
    assert not key_file.exists()
    assert store.store_one(BRAVE, "api_key", "brave-secret-0015", allow_file=True) == "file"


# --- never config.toml ---------------------------------------------------------------------------


def test_keys_never_reach_config_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring, store: KeyStore
) -> None:
    config_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    monkeypatch.delenv(credentials.KEY_FILE_ENV)
    assert key_file_path() == config_home / "websearch-tui" / "keys.toml"
    config = config_home / "websearch-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('# mine\n[search]\nmode = "auto"\n')
    monkeypatch.setenv("WEBSEARCH_TUI_CONFIG", str(config))
    before = (config.read_bytes(), config.stat().st_mtime_ns)
    store.store_one(BRAVE, "api_key", "brave-secret-0016")
    keyring.set_keyring(keyring.backends.fail.Keyring())
    store.store_one(TAVILY, "api_key", "tavily-secret-0016", allow_file=True)
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


def test_a_locked_keyring_is_asked_once_not_once_per_credential(memory_keyring) -> None:
    now = [1000.0]
    store = KeyStore(clock=lambda: now[0])
    locked = CountingLockedKeyring()
    keyring.set_keyring(locked)
    sources = [store.sources(spec) for spec in SPECS.values()]
    assert locked.asked == 1
    assert all(source.where is None for listed in sources for source in listed)
    now[0] += credentials.LOCKED_PAUSE - 1
    store.sources(BRAVE)
    assert locked.asked == 1
    now[0] += 2
    store.sources(BRAVE)
    assert locked.asked == 2  # after the pause the keyring is asked again


def test_parallel_lookups_of_a_locked_keyring_ask_once(memory_keyring, store: KeyStore) -> None:
    from concurrent.futures import ThreadPoolExecutor

    locked = CountingLockedKeyring()
    keyring.set_keyring(locked)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(store.sources, SPECS.values()))
    assert locked.asked == 1


def test_each_key_store_has_its_own_pause(memory_keyring, store: KeyStore) -> None:
    locked = CountingLockedKeyring()
    keyring.set_keyring(locked)
    store.sources(BRAVE)
    KeyStore().sources(BRAVE)  # another application (or test) is not paused by this one
    assert locked.asked == 2


def test_the_engine_and_its_front_ends_share_one_pause(memory_keyring) -> None:
    locked = CountingLockedKeyring()
    keyring.set_keyring(locked)
    engine = Engine.from_config(Config())
    assert engine.resolve_credentials(BRAVE).values == {}  # a search looks the key up
    assert engine.key_store.status(TAVILY, Config().settings_for("tavily")) == "needs key"  # the TUI's readiness
    assert locked.asked == 1


def test_a_successful_store_ends_the_pause(memory_keyring, store: KeyStore) -> None:
    keyring.set_keyring(RaisingKeyring(KeyringLocked("Failed to unlock the collection!")))
    store.sources(BRAVE)  # locked: reads pause
    keyring.set_keyring(memory_keyring)  # the user unlocked it and stored a key
    store.store_one(TAVILY, "api_key", "tavily-secret-0017")
    memory_keyring.set_password(KEYRING_SERVICE, "brave:api_key", "brave-secret-0017")
    assert store.lookup(BRAVE)[0] == {"api_key": "brave-secret-0017"}


def test_a_basic_auth_password_may_be_any_printable_text(memory_keyring, store: KeyStore) -> None:
    assert store.store_one(SEARXNG, "password", "pässwörd-0014") == "keyring"
    assert memory_keyring.entries[(KEYRING_SERVICE, "searxng:password")] == "pässwörd-0014"


# --- KeyStore.store: the settings screen's rules --------------------------------------------------


def test_store_puts_every_typed_value_in_the_keyring(memory_keyring, store: KeyStore) -> None:
    result = store.store(SEARXNG, {"username": " ann ", "password": "pw-0018", "token": "  "})
    assert result == StoreResult(stored={"username": "keyring", "password": "keyring"})
    assert entry(memory_keyring, "searxng", "username") == "ann"
    assert entry(memory_keyring, "searxng", "password") == "pw-0018"


@pytest.mark.parametrize("typed", [{}, {"api_key": ""}, {"api_key": " \n"}], ids=["none", "empty", "blank"])
def test_store_without_a_typed_value_says_so(typed: dict[str, str], memory_keyring, store: KeyStore) -> None:
    assert store.store(BRAVE, typed) == StoreResult(problem="Type a key first; nothing was stored.")
    assert memory_keyring.entries == {}


def test_store_skips_what_the_environment_sets(memory_keyring, monkeypatch, store: KeyStore) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "env-brave-0019")
    result = store.store(BRAVE, {"api_key": "typed-brave-0019"})
    assert result.skipped == {"api_key": "set by env BRAVE_API_KEY"} and result.stored == {}
    assert result.problem == "The environment sets this key, so it cannot be changed here; nothing was stored."
    monkeypatch.setenv("SEARXNG_BASIC_USERNAME", "ann")
    result = store.store(SEARXNG, {"username": "bob", "password": "pw-0019"})
    assert result == StoreResult(
        stored={"password": "keyring"}, skipped={"username": "set by env SEARXNG_BASIC_USERNAME"}
    )
    assert memory_keyring.entries == {(KEYRING_SERVICE, "searxng:password"): "pw-0019"}


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ({"api_key": "abc\x1b[31m"}, "API key contains control characters"),
        ({"api_key": "key\u00a0nbsp"}, "API key contains a character that is not plain ASCII"),
    ],
)
def test_store_refuses_a_value_by_the_field_rules(
    typed: dict[str, str], problem: str, memory_keyring, store: KeyStore
) -> None:
    result = store.store(BRAVE, typed)
    assert result.problem is not None and result.problem.startswith(problem)
    assert result.problem.endswith("; nothing was stored.") and result.stored == {}
    assert memory_keyring.entries == {}


def test_store_refuses_one_bad_value_before_storing_any(memory_keyring, store: KeyStore) -> None:
    result = store.store(SEARXNG, {"token": "tok-0020", "username": "ann:admin", "password": "pw-0020"})
    assert result.problem == ("Username must not contain ':' (Basic auth joins username:password); nothing was stored.")
    assert memory_keyring.entries == {}


def test_store_refuses_half_a_basic_pair(memory_keyring, store: KeyStore) -> None:
    result = store.store(SEARXNG, {"username": "ann"})
    assert result.problem == (
        "Basic auth needs both a username and a password; the password is missing; nothing was stored."
    )
    assert memory_keyring.entries == {}
    memory_keyring.set_password(KEYRING_SERVICE, "searxng:password", "pw-0021")
    assert store.store(SEARXNG, {"username": "ann"}).stored == {"username": "keyring"}  # the other half is there
    assert store.store(SEARXNG, {"token": "tok-0021"}).problem is None  # not part of the pair


@pytest.mark.usefixtures("fail_backend")
def test_store_without_a_keyring_needs_consent_for_the_key_file(key_file: Path, store: KeyStore) -> None:
    typed = {"api_key": "brave-secret-0022"}
    first = store.store(BRAVE, typed)
    assert first.needs_consent and first.stored == {}
    assert first.problem is not None and first.problem.startswith("No usable OS keyring was found")
    assert "brave-secret-0022" not in first.problem
    assert not key_file.exists()
    assert store.store(BRAVE, typed, allow_file=True) == StoreResult(stored={"api_key": "file"})
    assert tomlkit.parse(key_file.read_text()).unwrap() == {"brave": {"api_key": "brave-secret-0022"}}
    assert store.store(TAVILY, {"api_key": "tavily-secret-0022"}).needs_consent  # consent does not carry over


def test_store_reports_a_key_store_error_and_what_was_stored_before(memory_keyring, store: KeyStore) -> None:
    class FullKeyring(type(memory_keyring)):  # refuses the second entry
        def set_password(self, service: str, username: str, password: str) -> None:
            if self.entries:
                raise PasswordSetError("the collection is full")
            super().set_password(service, username, password)

    keyring.set_keyring(FullKeyring())
    result = store.store(SEARXNG, {"username": "ann", "password": "pw-0023"})
    assert result.stored == {"username": "keyring"} and not result.needs_consent
    assert result.problem is not None
    assert result.problem.startswith("SearXNG: could not store the key in the OS keyring (the collection is full)")


def test_store_refuses_a_name_the_provider_does_not_have(store: KeyStore) -> None:
    with pytest.raises(ValueError, match="brave has no credential token"):
        store.store(BRAVE, {"token": "tok"})


def test_credential_problems_are_worded_for_the_field() -> None:
    username = CredentialSpec("username", secret=False)
    password = CredentialSpec("password")
    assert credential_problem(username, "ann") is None
    assert credential_problem(username, "  ") is None  # nothing typed is not a problem at the field
    assert credential_problem(username, "ann:x") == "Username must not contain ':' (Basic auth joins username:password)"
    assert (credential_problem(password, "pw\x1b[31m") or "").startswith("Password contains control characters")
    assert credential_problem(password, "p:w") is None
    assert credential_problem(CredentialSpec("api_key"), "k\u201c") is not None


def test_a_plaintext_copy_left_by_a_killed_save_is_removed(key_file: Path) -> None:
    from websearch_tui.core import files

    key_file.parent.mkdir(parents=True, exist_ok=True)
    leftover = key_file.parent / f".{key_file.name}.deadbeef0000.tmp"  # the old random-name pattern
    leftover.write_text('[brave]\napi_key = "left-behind-key"\n', encoding="utf-8")
    files.temp_path(key_file).write_text('[brave]\napi_key = "left-behind-key"\n', encoding="utf-8")
    KeyStore().lookup(SPECS["brave"])
    assert not leftover.exists() and not files.temp_path(key_file).exists()


def test_every_front_end_words_readiness_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One vocabulary from one place (core.specs.READINESS): ``providers --json``, the MCP
    ``list_providers`` readiness and the TUI's provider list show the same word for every provider."""
    import json

    from websearch_tui.cli.main import main
    from websearch_tui.core.specs import READINESS
    from websearch_tui.mcp.tools import SearchTools
    from websearch_tui.session import Session
    from websearch_tui.settings.config import load_config
    from websearch_tui.tui.common.provider_rows import status_tag

    path = tmp_path / "config.toml"
    path.write_text("[providers.perplexity]\nenabled = false\n")
    monkeypatch.setenv("TAVILY_API_KEY", "tavily-readiness-key-1")
    assert main(["providers", "--json", "--config", str(path)]) == 0
    cli = {row["id"]: row["status"] for row in json.loads(capsys.readouterr().out)}
    config = load_config(path)
    mcp = SearchTools(Session(config, Engine.from_config(config))).readiness()
    tui = {pid: status_tag(word)[0] for pid, word in mcp.items()}
    assert cli == mcp == tui
    assert set(cli.values()) == set(READINESS)
    assert (cli["tavily"], cli["ddgs"], cli["brave"], cli["searxng"], cli["codex"], cli["perplexity"]) == (
        "ready",
        "keyless",
        "needs key",
        "needs URL",
        "no login",
        "disabled",
    )


def test_an_over_long_key_is_refused_and_not_registered(monkeypatch: pytest.MonkeyPatch, store: KeyStore) -> None:
    value = "sk-" + "x" * credentials.MAX_KEY_CHARS  # a file's contents set as a variable, not a key
    monkeypatch.setenv("BRAVE_API_KEY", value)
    values, sources = store.lookup(SPECS["brave"])
    assert values == {}
    assert sources[0].problem is not None and "characters long; a key is at most 16,384" in sources[0].problem
    assert redact(f"echo {value[:40]}") == f"echo {value[:40]}"  # never registered: its forms cost no memory


def test_an_over_large_key_file_is_refused_unread(key_file: Path) -> None:
    key_file.parent.mkdir(mode=0o700)
    key_file.write_text('[brave]\napi_key = "' + "k" * credentials.MAX_KEY_FILE_BYTES + '"\n', encoding="utf-8")
    key_file.chmod(0o600)
    problem = credentials.key_file_problem()
    assert problem is not None and "is over 1024 KiB; a key file holds a few keys" in problem
