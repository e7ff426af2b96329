"""Keys registered as a configured user's run registers them, for the streaming benchmarks.

A user with keys configured has every key registered for redaction (the credential layer calls
:func:`~websearch_tui.core.errors.register_secret` for each key it resolves), and every streamed
piece is redacted against them; a benchmark without keys would measure a path no such user takes.
"""

from __future__ import annotations

import secrets

from websearch_tui.core.errors import register_secret

DEFAULT_KEYS = 3
"""How many keys a benchmark registers unless told otherwise (``--keys``)."""


def register_user_keys(count: int = DEFAULT_KEYS) -> None:
    """Register ``count`` random 40-odd-character keys of the usual ``sk-...`` shape."""
    for n in range(count):
        register_secret(f"sk-{n}-{secrets.token_urlsafe(30)}")
