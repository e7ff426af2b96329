"""``websearch-tui keys set|delete|list``: store a key in the OS keyring (or, asked to, the
unencrypted key file), delete one, and list where each credential comes from (never a value)."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from websearch_tui.cli.common import PROG, UsageError, check_providers, fail, print_table
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.text import single_line

if TYPE_CHECKING:
    from websearch_tui.core.specs import CredentialSpec, ProviderSpec
    from websearch_tui.secrets.credentials import KeyStore


def run(args: argparse.Namespace) -> int:
    """``keys set|delete|list``: 0 when done, 1 when a key could not be stored or deleted.

    Raises:
        UsageError: an unknown provider or credential, a provider that takes no key, no key given.
    """
    from websearch_tui.secrets import credentials

    key_store = credentials.KeyStore()
    if args.keys_command == "list":
        return _keys_list(key_store, args.format)
    spec, credential = _credential_of(args.provider, args.credential)
    try:
        if args.keys_command == "set":
            return _keys_set(key_store, spec, credential, allow_file=args.file)
        return _keys_delete(key_store, spec, credential)
    except credentials.KeyStoreError as exc:
        return fail(str(exc), 1)


def _credential_of(provider_id: str, name: str | None) -> tuple[ProviderSpec, CredentialSpec]:
    """The provider and credential named on the command line (default: its first, the API key).

    Raises :class:`UsageError` (with a did-you-mean) for an unknown provider or credential, or a
    provider that takes no key.
    """
    spec = SPECS[check_providers([provider_id])[0]]
    if spec.key_need == "login":
        raise UsageError(f"{spec.id} uses your existing {spec.label} login, not a stored key")
    if spec.key_need == "none":
        raise UsageError(f"{spec.id} needs no key")
    names = [c.name for c in spec.credentials]
    if name is None:
        return spec, spec.credentials[0]
    if name not in names:
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(f"{spec.id} has no credential {name!r}{hint}; its credentials: {', '.join(names)}")
    return spec, spec.credentials[names.index(name)]


def _keys_set(key_store: KeyStore, spec: ProviderSpec, credential: CredentialSpec, *, allow_file: bool) -> int:
    """``keys set``: read the value (no echo on a TTY), store it as given, and say where it went."""
    from websearch_tui.secrets import credentials

    if not allow_file:
        info = credentials.backend_info()
        if not info.answering:  # it may answer later: no reason to offer the key file
            return fail(f"{info.message}; nothing was stored.", 1)
        if not info.usable:  # say so before asking for the key
            message = credentials.no_keyring_message(_first(credential.env_vars), f"backend: {info.name}")
            return fail(f"{message} {_FILE_HINT}", 1)
    value = _read_secret(f"{spec.label} {credential.name}: ").strip()
    if not value:
        raise UsageError(f"no {credential.name} given for {spec.id}; nothing was stored")
    try:
        where = key_store.store_one(spec, credential.name, value, allow_file=allow_file)
    except credentials.NoKeyringError as exc:
        return fail(f"{exc} {_FILE_HINT}", 1)
    if where == "file":
        path = credentials.key_file_path()
        print(
            single_line(
                f"Stored {spec.id} {credential.name} in the key file {path} (NOT ENCRYPTED; readable only by you)."
            )
        )
    else:
        print(f"Stored {spec.id} {credential.name} in the OS keyring ({credentials.backend_info().name}).")
    _warn_env(credential, "is set in the environment and is used instead of the stored key")
    return 0


_FILE_HINT = "To store it in that file anyway, run the command again with --file."


def _first(names: Sequence[str]) -> str | None:
    """The first of ``names``, or ``None`` when there is none."""
    return names[0] if names else None


def _read_secret(prompt: str) -> str:
    """The secret: typed without echo when stdin is a terminal, else the first line of stdin."""
    stdin = sys.stdin
    if stdin is not None and stdin.isatty():
        import getpass

        try:
            return getpass.getpass(prompt)
        except EOFError:
            return ""
    return stdin.readline() if stdin is not None else ""


def _warn_env(credential: CredentialSpec, text: str) -> None:
    """Warn on stderr when one of the credential's env vars is set (it wins over stored keys)."""
    for name in credential.env_vars:
        if os.environ.get(name, "").strip():
            print(f"{PROG}: warning: {name} {text}.", file=sys.stderr)
            return


def _keys_delete(key_store: KeyStore, spec: ProviderSpec, credential: CredentialSpec) -> int:
    """``keys delete``: remove the stored credential from the keyring and the key file."""
    removed = key_store.delete(spec, [credential.name])
    if removed:
        places = " and ".join({"keyring": "the OS keyring", "file": "the key file"}[where] for where in removed)
        print(f"Deleted {spec.id} {credential.name} from {places}.")
    else:
        print(f"No stored {credential.name} for {spec.id}; nothing was deleted.")
    _warn_env(credential, "is still set in the environment, so the provider keeps using it")
    return 0


def _keys_list(key_store: KeyStore, output_format: str = "text") -> int:
    """``keys list``: provider, credential, where it is stored; then the keyring backend in use and
    the key file. ``json``: ``{"credentials": [{"provider", "credential", "stored"}], "keyring":
    {"backend", "usable", "message"}, "key_file": {"path", "exists", "problem"}}`` (never a value)."""
    from websearch_tui.secrets import credentials

    stored = [(spec.id, s.name, s.describe()) for spec in SPECS.values() for s in key_store.sources(spec)]
    info = credentials.backend_info()
    path = credentials.key_file_path()
    problem = credentials.key_file_problem()
    if output_format == "json":
        document = {
            "credentials": [{"provider": pid, "credential": name, "stored": where} for pid, name, where in stored],
            "keyring": {"backend": info.name, "usable": info.usable, "message": info.message or None},
            "key_file": {"path": str(path), "exists": path.exists(), "problem": problem or None},
        }
        print(json.dumps(document, indent=2))
        return 0
    print_table([("PROVIDER", "CREDENTIAL", "STORED"), *stored])
    print()
    if info.usable:
        print(f"Keyring: {info.name}")
    elif not info.answering or key_store.keyring_problem:
        print(f"Keyring: {key_store.keyring_problem or info.message}.")
    else:
        print(f"Keyring: not usable. {info.message} (`{PROG} keys set PROVIDER --file` confirms the key file.)")
    if problem:
        print(f"Key file: {problem}")
    elif path.exists():
        print(f"Key file: {path} (NOT ENCRYPTED)")
    return 0
