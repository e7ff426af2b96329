"""Fake Ollama web search API (``POST /ollama/api/web_search``), a plugin of the fake server.

Checks the Bearer key, validates ``query`` and ``max_results`` (1-10, as documented), and answers
``data/ollama_search.json`` cut to ``max_results`` (one row without a URL), shaped after the example
in Ollama's docs (https://docs.ollama.com/capabilities/web-search). Errors use Ollama's body
``{"error"}``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/ollama"
KEY = "fake-ollama-key"
FAKE_KEYS = {"OLLAMA_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/api/web_search")
VARIANTS = ("default", "empty", "rate_limit")


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.ollama]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Ollama's error body at ``status``: ``{"error"}``."""
    return FakeResponse(status, body={"error": message})


def search(variant: str = "default") -> Any:
    """The ``POST /api/web_search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != KEY:
            return error_response(401, "unauthorized")
        try:
            body = request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not str(body.get("query") or "").strip():
            return error_response(400, "query is required")
        count = body.get("max_results", 5)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10:
            return error_response(400, "max_results must be between 1 and 10")
        if variant == "rate_limit":
            return error_response(429, "too many requests")
        data = load_data("ollama_search.json", body["query"])
        data["results"] = [] if variant == "empty" else data["results"][:count]
        return FakeResponse(200, body=data)

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
