"""The key store against a real Secret Service: gnome-keyring in a private D-Bus session.

Each check runs ``dbus-run-session -- sh -c '<unlock>; exec python -c <script>'``: a new session
bus, a fresh ``gnome-keyring-daemon --unlock --components=secrets`` fed the test password on stdin,
and a temporary HOME / XDG_DATA_HOME, so the developer's session bus and keyring are never touched.
A "restart" is a second session (new bus, new daemon) over the same keyring files. Skips with the
reason when dbus-run-session or gnome-keyring-daemon is missing or the collection cannot be
unlocked.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
# gnome-keyring 42 creates the "login" collection only for a non-empty unlock password.
PASSWORD = "websearch-tui-test-password"
UNLOCK_FAILED, COLLECTION_LOCKED = 97, 98
UNLOCK_THEN_RUN = (
    'printf %s "$WST_KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null '
    f'|| exit {UNLOCK_FAILED}\nexec "$@"'
)
# Run first in every session: the default collection must exist and be unlocked, or the test skips.
PRELUDE = f"""\
import json, os, subprocess, sys
import secretstorage
try:
    _collection = secretstorage.get_default_collection(secretstorage.dbus_init())
    _locked = _collection.is_locked()
except Exception as exc:
    print(f"no default collection: {{type(exc).__name__}}: {{exc}}", file=sys.stderr)
    sys.exit({COLLECTION_LOCKED})
if _locked:
    print("the default collection is locked", file=sys.stderr)
    sys.exit({COLLECTION_LOCKED})
from websearch_tui.secrets import credentials
from websearch_tui.core.catalogue import SPECS
KEY = os.environ["WST_TEST_KEY"]
KEY_STORE = credentials.KeyStore()

def fresh(code):
    '''Run ``code`` in a new Python process of this session; return its stdout.'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout

def keys_list():
    out = subprocess.run([sys.executable, "-m", "websearch_tui", "keys", "list"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout

FRESH_LOOKUP = (
    "import os; from websearch_tui.secrets import credentials; from websearch_tui.core.catalogue import SPECS\\n"
    "values, sources = credentials.KeyStore().lookup(SPECS['brave'])\\n"
    "print(values.get('api_key') == os.environ['WST_TEST_KEY'], sources[0].describe())"
)
"""


@pytest.fixture(scope="module")
def tools() -> None:
    """Skip the module unless dbus-run-session and gnome-keyring-daemon exist."""
    for tool in ("dbus-run-session", "gnome-keyring-daemon"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt-get install dbus gnome-keyring)")
    pytest.importorskip("secretstorage", reason="the keyring SecretService backend needs secretstorage")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A private HOME with XDG dirs; the keyring files live in ``data/keyrings``."""
    for name in ("data", "config", "cache"):
        (tmp_path / name).mkdir()
    (tmp_path / "run").mkdir(mode=0o700)
    return tmp_path


def run_in_session(home: Path, key: str, script: str) -> dict:
    """Run ``PRELUDE + script`` in a new private D-Bus session with an unlocked gnome-keyring.

    ``script`` prints one JSON object as its last line, which is returned.
    """
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_RUNTIME_DIR": str(home / "run"),
        "WEBSEARCH_TUI_CONFIG": str(home / "config.toml"),
        "WEBSEARCH_TUI_KEY_FILE": str(home / "keys.toml"),
        "WEBSEARCH_TUI_LOG": str(home / "log.txt"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring",
        "WST_KEYRING_PASSWORD": PASSWORD,
        "WST_TEST_KEY": key,
    }
    command = ["dbus-run-session", "--", "sh", "-c", UNLOCK_THEN_RUN, "sh", sys.executable, "-c", PRELUDE + script]
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=120)
    if out.returncode == UNLOCK_FAILED:
        pytest.skip(f"gnome-keyring-daemon could not unlock a keyring: {out.stderr.strip()[-300:]}")
    if out.returncode == COLLECTION_LOCKED:
        pytest.skip(f"the Secret Service collection cannot be unlocked: {out.stderr.strip()[-300:]}")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


STORE = """\
info = credentials.backend_info()
where = KEY_STORE.store_one(SPECS["brave"], "api_key", "  " + KEY + "\\n")
import keyring
print(json.dumps({
    "bus": os.environ["DBUS_SESSION_BUS_ADDRESS"],
    "usable": info.usable,
    "backend": info.name,
    "where": where,
    "raw_entry_matches": keyring.get_password("websearch-tui", "brave:api_key") == KEY,
    "fresh_process": fresh(FRESH_LOOKUP).split(),
    "keys_list": keys_list(),
}))
"""

AFTER_RESTART = """\
before = fresh(FRESH_LOOKUP).split()
listed = keys_list()
removed = KEY_STORE.delete(SPECS["brave"], ["api_key"])
print(json.dumps({
    "fresh_process": before,
    "keys_list": listed,
    "removed": removed,
    "removed_again": KEY_STORE.delete(SPECS["brave"], ["api_key"]),
    "after_delete": fresh(FRESH_LOOKUP).split(),
}))
"""


def brave_row(listing: str) -> list[str]:
    """The ``brave api_key <where>`` row of ``keys list``, split into words."""
    return next(line.split(None, 2) for line in listing.splitlines() if line.startswith("brave "))


@pytest.mark.usefixtures("tools")
def test_store_read_restart_and_delete_with_gnome_keyring(home: Path) -> None:
    key = f"ss-test-{secrets.token_hex(12)}"
    first = run_in_session(home, key, STORE)
    assert first["bus"] != os.environ.get("DBUS_SESSION_BUS_ADDRESS")  # a private bus, not the developer's
    assert (first["usable"], first["backend"], first["where"]) == (True, "SecretService Keyring", "keyring")
    assert first["raw_entry_matches"] is True  # stored stripped, under service websearch-tui, user brave:api_key
    assert first["fresh_process"] == ["True", "keyring"]
    assert brave_row(first["keys_list"]) == ["brave", "api_key", "keyring"]
    assert "Keyring: SecretService Keyring" in first["keys_list"]
    assert key not in first["keys_list"]
    assert (home / "data" / "keyrings" / "login.keyring").exists()
    on_disk = [p for p in home.rglob("*") if p.is_file() and key.encode() in p.read_bytes()]
    assert on_disk == []  # the keyring file is encrypted; no plain-text copy (no key file, no log)

    second = run_in_session(home, key, AFTER_RESTART)  # a new bus and a new daemon over the same files
    assert second["fresh_process"] == ["True", "keyring"]
    assert brave_row(second["keys_list"]) == ["brave", "api_key", "keyring"]
    assert second["removed"] == ["keyring"] and second["removed_again"] == []
    assert second["after_delete"] == ["False", "not", "set"]

    third = run_in_session(home, key, 'print(json.dumps({"fresh_process": fresh(FRESH_LOOKUP).split()}))')
    assert third["fresh_process"] == ["False", "not", "set"]  # the deletion survived a restart too
