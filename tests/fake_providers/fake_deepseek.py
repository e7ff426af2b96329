"""Loopback fake of DeepSeek's Anthropic-compatible Messages API: ``POST /deepseek/anthropic/v1/messages``.

The same handler as the Anthropic fake (PROVIDERS.md §2.18: "reuse the Anthropic route under the
``/anthropic`` prefix"), except that only ``x-api-key`` authenticates and ``anthropic-version`` is
optional (DeepSeek ignores it). The provider sends ``stream: false``, so the variants that matter
are the JSON ones: ``split`` cuts the body (inside UTF-8 characters too), ``fail_midway``/``dropped``
close the connection mid-body, ``no_final`` drops the last bytes; ``flat_results`` puts the results
at top level with ``description``. This module imports :mod:`.fake_anthropic` (a sibling fake,
no cycle with ``.routes``).
"""

from __future__ import annotations

from typing import Any

from .fake_anthropic import VARIANTS as _ANTHROPIC_VARIANTS
from .fake_anthropic import MessagesFake, error_response

KEY = "fake-deepseek-key"
FAKE_KEYS = {"DEEPSEEK_API_KEY": KEY}
PATH = "/deepseek/anthropic/v1/messages"
SEARCH_ROUTE = ("POST", PATH)
VARIANTS = (*(v for v in _ANTHROPIC_VARIANTS if v not in ("json", "crlf", "credit_balance")), "error_402")
"""The Anthropic fake's variants that apply to a JSON reply, plus DeepSeek's 402 "Insufficient Balance"."""
__all__ = ["FAKE_KEYS", "SEARCH_ROUTE", "VARIANTS", "config", "error_response", "routes", "variant_routes"]


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.deepseek]`` table for a fake at ``base_url`` (base ends in ``/anthropic`` like the real one)."""
    return {"base_url": f"{base_url}/deepseek/anthropic"}


def _handler(variant: str = "default") -> MessagesFake:
    return MessagesFake(KEY, variant, bearer_ok=False, needs_version=False)


def routes() -> dict[tuple[str, str], Any]:
    """The default Messages route."""
    return {SEARCH_ROUTE: _handler()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The Messages route answering one of :data:`VARIANTS` (shared with the Anthropic fake)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown deepseek variant {variant!r}")
    return {SEARCH_ROUTE: _handler(variant)}
