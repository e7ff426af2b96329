"""Reading an existing Codex CLI login (PROVIDERS.md §2.21), read-only.

The Codex CLI stores its ChatGPT login in ``$CODEX_HOME/auth.json`` (``CODEX_HOME`` defaults to
``~/.codex``)::

    {"OPENAI_API_KEY": null,
     "tokens": {"id_token": "<JWT>", "access_token": "<JWT>", "refresh_token": "…", "account_id": "<id>"},
     "last_refresh": "2026-11-20T10:00:00Z"}

Rules kept here:

- The file is never written and tokens are never refreshed (refresh tokens are single-use; the CLI
  owns them). An expired token or a 401 tells the user to run any ``codex`` command.
- A login kept in the OS keyring (service ``Codex Auth``) or in memory only is not searched for:
  without the file we report "no Codex login file found; run `codex login`".
- The access token is registered for redaction and only ever leaves this module inside
  :class:`CodexLogin`, whose ``repr`` hides it; the provider puts it in one request header.
- :func:`endpoint_allowed` decides where the token may be sent: the default ChatGPT backend host
  over https, or any other host only when ``[providers.codex] trust_base_url = true``.

:func:`login_state` is the non-raising readiness check for the app (``credentials.provider_status``).
"""

from __future__ import annotations

import base64
import json
import os
import time
from dataclasses import field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.records import record

AUTH_FILE = "auth.json"
DEFAULT_HOST = "chatgpt.com"
"""The host of the default ``base_url`` (``https://chatgpt.com/backend-api``)."""
TRUST_OPTION = "trust_base_url"
"""``[providers.codex]`` option that allows sending the login to a non-default host."""
ACCOUNT_CLAIM = "https://api.openai.com/auth"
MAX_FILE_BYTES = 1024 * 1024
EXPIRY_SLACK = 30.0
"""Seconds before ``exp`` from which a token counts as expired."""

NO_LOGIN = "no Codex login file found at {path}; run `codex login`"
API_KEY_LOGIN = "the Codex login at {path} uses an API key, not a ChatGPT login; use the openai provider"
EXPIRED = "the Codex login has expired; run any `codex` command (or `codex login`) to refresh it"
UNREADABLE = "the Codex login file {path} could not be read ({reason})"


def codex_home() -> Path:
    """``$CODEX_HOME`` when set and non-empty, else ``~/.codex``."""
    value = os.environ.get("CODEX_HOME", "").strip()
    return Path(value).expanduser() if value else Path.home() / ".codex"


def auth_path() -> Path:
    """``<codex_home>/auth.json``."""
    return codex_home() / AUTH_FILE


@record(frozen=True)
class CodexLogin:
    """A usable ChatGPT login: the access token (hidden from ``repr``), account id and expiry."""

    access_token: str = field(repr=False)
    account_id: str | None = None
    expires_at: float | None = None

    def expired(self, now: float | None = None) -> bool:
        """True when the token's ``exp`` is past (or within :data:`EXPIRY_SLACK` seconds)."""
        if self.expires_at is None:
            return False
        return (now if now is not None else time.time()) >= self.expires_at - EXPIRY_SLACK


@record(frozen=True)
class LoginState:
    """Readiness without the token: ``ready`` and, when not, the user-facing ``reason``."""

    ready: bool
    reason: str
    path: Path


def jwt_claims(token: str) -> dict[str, Any]:
    """The payload claims of a JWT (no signature check); ``{}`` when it is not a decodable JWT."""
    parts = token.split(".")
    if len(parts) < 2:
        return {}
    segment = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(segment.encode("ascii")))
    except (ValueError, UnicodeError):
        return {}
    return claims if isinstance(claims, dict) else {}


def _fail(message: str, kind: ErrorKind = ErrorKind.CONFIG) -> ProviderError:
    return ProviderError("codex", kind, f"Codex: {message}.")


def read_login(path: Path | None = None) -> CodexLogin:
    """Read and validate the login file; the access token is registered for redaction.

    Raises:
        ProviderError: ``config`` for a missing, unreadable or malformed file or an API-key login;
            ``auth`` for an expired token.
    """
    path = path or auth_path()
    try:
        if not path.is_file():
            raise _fail(NO_LOGIN.format(path=path))
        raw = path.read_bytes()[:MAX_FILE_BYTES]
        data = json.loads(raw.decode("utf-8"))
    except ProviderError:
        raise
    except (OSError, ValueError) as exc:
        raise _fail(UNREADABLE.format(path=path, reason=type(exc).__name__)) from None
    found = data.get("tokens") if isinstance(data, dict) else None
    tokens: dict[str, Any] = found if isinstance(found, dict) else {}
    access = tokens.get("access_token")
    if not isinstance(access, str) or not access.strip():
        has_key = isinstance(data, dict) and isinstance(data.get("OPENAI_API_KEY"), str) and data["OPENAI_API_KEY"]
        raise _fail((API_KEY_LOGIN if has_key else NO_LOGIN).format(path=path))
    access = access.strip()
    register_secret(access)
    for other in ("id_token", "refresh_token"):
        register_secret(tokens.get(other) if isinstance(tokens.get(other), str) else None)
    claims = jwt_claims(access)
    login = CodexLogin(access_token=access, account_id=_account_id(tokens, claims), expires_at=_exp(claims))
    if login.expired():
        raise _fail(EXPIRED, ErrorKind.AUTH)
    return login


def _account_id(tokens: dict[str, Any], claims: dict[str, Any]) -> str | None:
    value = tokens.get("account_id")
    if not (isinstance(value, str) and value.strip()):
        auth = claims.get(ACCOUNT_CLAIM)
        value = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
    if not isinstance(value, str) or not value.strip() or any(ch in value for ch in "\r\n\x00"):
        return None
    return value.strip()


def _exp(claims: dict[str, Any]) -> float | None:
    value = claims.get("exp")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def login_state(path: Path | None = None) -> LoginState:
    """Whether a usable Codex login exists, for status displays; never raises, never returns the token."""
    path = path or auth_path()
    try:
        read_login(path)
    except ProviderError as error:
        return LoginState(False, error.message, path)
    return LoginState(True, f"Codex login found at {path}", path)


def endpoint_allowed(url: str, default_base_url: str | None, trusted: bool) -> bool:
    """True when the login may be sent to ``url``.

    Allowed: https on the default base URL's host (``chatgpt.com``); any other scheme or host only
    when ``trusted`` (the user set ``trust_base_url = true`` for this provider).
    """
    if trusted is True:
        return True
    try:
        target = urlsplit(url)
        default = urlsplit(default_base_url or f"https://{DEFAULT_HOST}")
    except ValueError:
        return False
    return target.scheme == "https" and (target.hostname or "").lower() == (default.hostname or DEFAULT_HOST).lower()


def refuse_endpoint(url: str) -> ProviderError:
    """The ``config`` error for a base URL the login may not be sent to."""
    try:
        host = urlsplit(url).hostname or url
    except ValueError:
        host = url
    return ProviderError(
        "codex",
        ErrorKind.CONFIG,
        f"Codex: refusing to send your ChatGPT login to {host}. Set {TRUST_OPTION} = true in "
        "[providers.codex] if you trust that base_url.",
    )
