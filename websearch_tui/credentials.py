"""Credential lookup: environment variables first, then the OS keyring (read only here).

Each provider credential is looked up in the env vars its spec lists (first non-empty wins),
then in the OS keyring under service ``websearch-tui`` and username ``<provider id>:<name>``
(``brave:api_key``). A keyring without a usable backend (headless Linux) or a locked one is
not an error: the credential is simply not found. Every value found is registered with
:func:`websearch_tui.core.errors.register_secret` so it is redacted from all messages.

All functions here may block on the keyring (D-Bus); the TUI calls them off the event loop.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from websearch_tui.core.errors import register_secret
from websearch_tui.providers.base import CredentialSpec, ProviderSettings, ProviderSpec

KEYRING_SERVICE = "websearch-tui"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CredentialSource:
    """Where a credential was found, never its value: ``where`` is ``"env"``, ``"keyring"`` or ``None``."""

    name: str
    where: str | None
    env_var: str | None = None

    def describe(self) -> str:
        """``"env BRAVE_API_KEY"``, ``"keyring"`` or ``"not set"``."""
        if self.where == "env":
            return f"env {self.env_var}"
        return self.where or "not set"


def keyring_username(provider_id: str, credential: str) -> str:
    """The keyring username for a provider credential: ``"<provider id>:<credential>"``."""
    return f"{provider_id}:{credential}"


def _from_env(credential: CredentialSpec) -> tuple[str, str] | None:
    for name in credential.env_vars:
        value = os.environ.get(name, "").strip()
        if value:
            return name, value
    return None


def _from_keyring(provider_id: str, credential: CredentialSpec) -> str | None:
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:  # pragma: no cover - keyring is a dependency
        return None
    try:
        value = keyring.get_password(KEYRING_SERVICE, keyring_username(provider_id, credential.name))
    except KeyringError as exc:  # no backend, locked, denied: the key is just not available
        log.debug("keyring unavailable for %s: %s", provider_id, type(exc).__name__)
        return None
    except Exception as exc:  # a broken backend must not stop a search
        log.debug("keyring backend failed for %s: %s", provider_id, type(exc).__name__)
        return None
    return value.strip() if value and value.strip() else None


def lookup(spec: ProviderSpec) -> tuple[dict[str, str], list[CredentialSource]]:
    """Find every credential of ``spec``: ``({name: value}, [CredentialSource])``.

    Values are registered for redaction. Blocks on the keyring.
    """
    values: dict[str, str] = {}
    sources: list[CredentialSource] = []
    for credential in spec.credentials:
        found = _from_env(credential)
        if found:
            env_var, value = found
            values[credential.name] = value
            sources.append(CredentialSource(credential.name, "env", env_var))
            continue
        value = _from_keyring(spec.id, credential)
        if value:
            values[credential.name] = value
            sources.append(CredentialSource(credential.name, "keyring"))
        else:
            sources.append(CredentialSource(credential.name, None))
    for credential in spec.credentials:
        if credential.secret:
            register_secret(values.get(credential.name))
    return values, sources


def resolve(spec: ProviderSpec) -> dict[str, str]:
    """The credential values of ``spec`` by name (only those found). Blocks on the keyring."""
    return lookup(spec)[0]


def login_state(spec: ProviderSpec):  # -> object with .ready and .reason
    """The state of the existing login a provider uses (``spec.login``); never raises."""
    import importlib

    module, _, function = (spec.login or "").partition(":")
    return getattr(importlib.import_module(module), function)()


def provider_status(spec: ProviderSpec, settings: ProviderSettings, values: dict[str, str] | None = None) -> str:
    """``"disabled"``, ``"missing base_url"``, ``"ready"``, ``"keyless"``, ``"missing key"`` or
    ``"missing login"`` (a provider that uses an existing login, e.g. Codex).

    ``values`` are the already resolved credentials; when omitted they are looked up (blocking).
    """
    if settings.enabled is False:
        return "disabled"
    if spec.needs_base_url and not settings.base_url:
        return "missing base_url"
    if spec.login:
        return "ready" if login_state(spec).ready else "missing login"
    if values is None:
        values = resolve(spec)
    if any(values.get(credential.name) for credential in spec.credentials):
        return "ready"
    return "keyless" if spec.keyless else "missing key"
