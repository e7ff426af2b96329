"""Fake Jina Search (``GET /jina/?q=<query>&count=<n>``), a plugin of the fake server.

Checks the Bearer key like the real service, validates ``q`` and ``count`` (0-20), and answers the
``{"code": 200, "status": 20000, "data": [...], "meta": {...}}`` envelope with asyncio results
(``data/jina_search.json``) cut to ``count`` (default 5). Errors use Jina's envelope
``{"data": null, "code", "name", "status", "message", "readableMessage"}``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/jina"
FAKE_KEYS = {"JINA_API_KEY": "fake-jina-key"}
SEARCH_ROUTE = ("GET", f"{PREFIX}/")
VARIANTS = ("default", "no_results", "site_error", "bare_array", "body_failure", "rate_limit")
_NAMES = {
    400: ("ParamValidationError", 40001),
    401: ("AuthenticationRequiredError", 40103),
    402: ("InsufficientBalanceError", 40203),
    422: ("AssertionFailureError", 42206),
    429: ("RateLimitTriggeredError", 42903),
}
BAD_KEY = "Invalid API key, please get a new one from https://jina.ai"


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.jina]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def envelope(status: int, message: str) -> dict[str, Any]:
    """Jina's error envelope for an HTTP ``status``."""
    name, code = _NAMES.get(status, ("InternalServerError" if status >= 500 else "ApplicationError", status * 100))
    return {
        "data": None,
        "code": status,
        "name": name,
        "status": code,
        "message": message,
        "readableMessage": f"{name}: {message}",
    }


def error_response(status: int, message: str) -> FakeResponse:
    """Jina's error response at ``status``."""
    return FakeResponse(status, body=envelope(status, message))


def search(variant: str = "default") -> Any:
    """The ``GET /`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != FAKE_KEYS["JINA_API_KEY"]:
            return error_response(401, BAD_KEY)
        query = request.query.get("q", "").strip()
        count = request.query.get("count", "5")
        if not query:
            return error_response(400, "Query parameter q is required")
        if not count.isdigit() or int(count) > 20:
            return error_response(400, f"Invalid value for count: {count}")
        special = _variant_response(variant, query, request.header("x-site"))
        if special is not None:
            return special
        body = load_data("jina_search.json")
        body["data"] = body["data"][: int(count) or 5]
        return FakeResponse(200, body=body["data"] if variant == "bare_array" else body)

    return handler


def _variant_response(variant: str, query: str, site: str | None) -> FakeResponse | None:
    if variant == "no_results":
        return error_response(422, f"No search results available for query {query}")
    if variant == "site_error":
        body = envelope(500, f"Failed to search site {site or 'example.com'}")
        body["cause"] = {"name": "TypeError", "message": "Cannot read properties of undefined (reading 'organic')"}
        return FakeResponse(500, body=body)
    if variant == "body_failure":
        return FakeResponse(200, body=envelope(402, "Account balance not enough to run this query, please recharge."))
    if variant == "rate_limit":
        response = error_response(429, "Per UID rate limit exceeded")
        response.headers["Retry-After"] = "120"
        return response
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
