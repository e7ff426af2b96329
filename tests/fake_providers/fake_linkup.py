"""Fake Linkup API (``POST /linkup/v1/search``), a plugin of the fake server.

Checks the Bearer key and the body like the real API (``q`` required, ``depth`` and ``outputType``
from their documented values, ``maxResults`` at least 1), then answers a sourced answer
(``data/linkup_answer.json``) or search results with one image result (``data/linkup_results.json``),
cut to ``maxResults``. Both are shaped after the payloads in the official SDK's tests
(LinkupPlatform/linkup-python-sdk ``tests/unit/client_test.py``). Errors use Linkup's body
``{"error": {"code", "message", "details"}}``; an empty balance is its 429 ``INSUFFICIENT_FUNDS_CREDITS``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, json_body_or_refusal, load_data

PREFIX = "/linkup"
KEY = "fake-linkup-key"
FAKE_KEYS = {"LINKUP_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v1/search")
VARIANTS = ("default", "empty", "no_credits", "rate_limit", "server_error")
DEPTHS = ("standard", "deep", "fast")
OUTPUT_TYPES = ("searchResults", "sourcedAnswer", "structured")
_CODES = {
    400: "VALIDATION_ERROR",
    401: "UNAUTHORIZED",
    402: "PAYMENT_REQUIRED",
    403: "FORBIDDEN",
    429: "TOO_MANY_REQUESTS",
}
_FAILURES = {
    "no_credits": (429, "INSUFFICIENT_FUNDS_CREDITS", "You do not have enough credits to perform this request."),
    "rate_limit": (429, "TOO_MANY_REQUESTS", "Too many requests."),
    "server_error": (500, "INTERNAL_SERVER_ERROR", "Internal server error"),
}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.linkup]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str, code: str | None = None) -> FakeResponse:
    """Linkup's error body at ``status``: ``{"error": {"code", "message", "details": []}}``."""
    code = code or _CODES.get(status, "INTERNAL_SERVER_ERROR" if status >= 500 else "ERROR")
    return FakeResponse(status, body={"error": {"code": code, "message": message, "details": []}})


def search(variant: str = "default") -> Any:
    """The ``POST /v1/search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != KEY:
            return error_response(401, "Unauthorized action")
        body, refused = json_body_or_refusal(request, _validate, error_response)
        if refused is not None:
            return refused
        if variant in _FAILURES:
            status, code, message = _FAILURES[variant]
            return error_response(status, message, code)
        count = body.get("maxResults", 10)
        if body["outputType"] == "sourcedAnswer":
            data = load_data("linkup_answer.json", body["q"])
            data["sources"] = [] if variant == "empty" else data["sources"][:count]
        else:
            data = load_data("linkup_results.json", body["q"])
            data["results"] = [] if variant == "empty" else data["results"][:count]
        return FakeResponse(200, body=data)

    return handler


def _validate(body: Any) -> str | None:
    if not isinstance(body, dict) or not str(body.get("q") or "").strip():
        return "q must be a non-empty string"
    if body.get("depth") not in DEPTHS:
        return f"depth must be one of {', '.join(DEPTHS)}"
    if body.get("outputType") not in OUTPUT_TYPES:
        return f"outputType must be one of {', '.join(OUTPUT_TYPES)}"
    count = body.get("maxResults", 10)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        return "maxResults must be a positive integer"
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
