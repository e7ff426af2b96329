"""Fake Perplexity Search API (``POST /perplexity_search/search``), a plugin of the fake server.

Checks the Bearer key like the real API, validates ``query``/``max_results``/``search_recency_filter``,
answers four asyncio results (``data/perplexity_search_results.json``) cut to ``max_results``.
Errors use Perplexity's OpenAI-style body ``{"error": {"message", "type", "code"}}``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/perplexity_search"
FAKE_KEYS = {"PERPLEXITY_API_KEY": "fake-perplexity-key"}
"""Same env var and value as the core ``perplexity`` fake: both providers read ``PERPLEXITY_API_KEY``."""
SEARCH_ROUTE = ("POST", f"{PREFIX}/search")
VARIANTS = ("default", "empty", "bad_request", "rate_limit", "server_error")
RECENCY = ("hour", "day", "week", "month", "year")
_TYPES = {400: "invalid_request_error", 401: "invalid_api_key", 429: "rate_limit_exceeded", 500: "server_error"}
_FAILURES = {
    "bad_request": (400, "Invalid search_domain_filter: too many domains"),
    "rate_limit": (429, "Rate limit exceeded. Please slow down your requests."),
    "server_error": (500, "Internal server error"),
}
BAD_KEY = "Invalid API key provided. You can find your API key at https://www.perplexity.ai/settings/api."


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.perplexity_search]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Perplexity's error body at ``status``: ``{"error": {"message", "type", "code"}}``."""
    kind = _TYPES.get(status, "invalid_request_error" if status < 500 else "server_error")
    return FakeResponse(status, body={"error": {"message": message, "type": kind, "code": status}})


def search(variant: str = "default") -> Any:
    """The ``POST /search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != FAKE_KEYS["PERPLEXITY_API_KEY"]:
            return error_response(401, BAD_KEY)
        problem = _validate(request)
        if problem:
            return error_response(400, problem)
        if variant in _FAILURES:
            status, message = _FAILURES[variant]
            response = error_response(status, message)
            if status == 429:
                response.headers["Retry-After"] = "120"
            return response
        body = load_data("perplexity_search_results.json")
        body["results"] = [] if variant == "empty" else body["results"][: int(request.json().get("max_results") or 10)]
        return FakeResponse(200, body=body)

    return handler


def _validate(request: FakeRequest) -> str | None:
    try:
        body = request.json()
    except ValueError:
        return "Request body must be JSON"
    if not isinstance(body, dict) or not str(body.get("query") or "").strip():
        return "query is required"
    count = body.get("max_results", 10)
    if not isinstance(count, int) or not 1 <= count <= 20:
        return "max_results must be between 1 and 20"
    recency = body.get("search_recency_filter")
    if recency is not None and recency not in RECENCY:
        return f"search_recency_filter must be one of {', '.join(RECENCY)}"
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
