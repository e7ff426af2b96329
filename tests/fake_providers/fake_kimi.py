"""Fake Kimi Code Search (``POST /kimi/coding/v1/search``), a plugin of the fake server.

Mounted under a ``/coding`` prefix, like the real ``https://api.kimi.com/coding`` base URL, so
prefix joining is exercised. Checks the Bearer key (a Moonshot platform key gets the same 401),
validates ``text_query``/``limit``, answers asyncio results (``data/kimi_search.json``) cut to
``limit`` with an ``X-Request-Id`` header. Errors use the Moonshot body
``{"error": {"message", "type"}}``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/kimi/coding"
FAKE_KEYS = {"KIMI_SEARCH_API_KEY": "fake-kimi-key"}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v1/search")
REQUEST_ID = "fake-kimi-req-0001"
VARIANTS = ("default", "empty", "msh_request_id", "bad_request", "rate_limit", "server_error")
_TYPES = {
    400: "invalid_request_error",
    401: "invalid_authentication_error",
    403: "permission_denied_error",
    429: "rate_limit_reached_error",
}
_FAILURES = {
    "bad_request": (400, "Invalid request: limit must be between 1 and 20"),
    "rate_limit": (429, "Your account reached the request rate limit, please try again after 1 seconds"),
    "server_error": (500, "Internal server error"),
}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.kimi]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Kimi's error body at ``status``: ``{"error": {"message", "type"}}``."""
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return FakeResponse(status, body={"error": {"message": message, "type": kind}})


def search(variant: str = "default") -> Any:
    """The ``POST /v1/search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != FAKE_KEYS["KIMI_SEARCH_API_KEY"]:
            return error_response(401, "Invalid Authentication")
        problem = _validate(request)
        if problem:
            return error_response(400, problem)
        if variant in _FAILURES:
            return error_response(*_FAILURES[variant])
        body = load_data("kimi_search.json")
        body["search_results"] = [] if variant == "empty" else body["search_results"][: request.json()["limit"]]
        header = "X-Msh-Request-Id" if variant == "msh_request_id" else "X-Request-Id"
        return FakeResponse(200, {header: REQUEST_ID}, body)

    return handler


def _validate(request: FakeRequest) -> str | None:
    try:
        body = request.json()
    except ValueError:
        return "Invalid request: body must be JSON"
    if not isinstance(body, dict) or not str(body.get("text_query") or "").strip():
        return "Invalid request: text_query is required"
    limit = body.get("limit")
    if not isinstance(limit, int) or not 1 <= limit <= 20:
        return "Invalid request: limit must be between 1 and 20"
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
