"""Fake Synthetic Search (``POST /synthetic/v2/search``), a plugin of the fake server.

Checks the Bearer key, requires ``query``, and answers every result it has (twelve asyncio pages
from ``data/synthetic_search.json``): the API takes no count, so clients slice locally.
Errors use ``{"error": "<message>"}``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/synthetic"
FAKE_KEYS = {"SYNTHETIC_API_KEY": "fake-synthetic-key"}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v2/search")
VARIANTS = ("default", "empty", "rate_limit", "server_error")
_FAILURES = {"rate_limit": (429, "Rate limit exceeded"), "server_error": (502, "Search backend unavailable")}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.synthetic]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Synthetic's error body at ``status``: ``{"error": "<message>"}``."""
    return FakeResponse(status, body={"error": message})


def search(variant: str = "default") -> Any:
    """The ``POST /v2/search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != FAKE_KEYS["SYNTHETIC_API_KEY"]:
            return error_response(401, "Invalid API key")
        try:
            body = request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not str(body.get("query") or "").strip():
            return error_response(400, "query is required")
        if variant in _FAILURES:
            response = error_response(*_FAILURES[variant])
            if variant == "rate_limit":
                response.headers["Retry-After"] = "120"
            return response
        result = load_data("synthetic_search.json")
        if variant == "empty":
            result["results"] = []
        return FakeResponse(200, body=result)

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
