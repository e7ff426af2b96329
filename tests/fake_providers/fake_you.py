"""Fake You.com Search API (``POST /you/v1/search``), a plugin of the fake server.

Checks ``X-API-Key`` like the real API, validates ``query``/``count``/``freshness`` (FastAPI-style
422 on bad values), and answers ``data/you_search.json``: a ``web`` and a ``news`` section, each cut
to ``count``, with one URL present in both sections and one web row without a URL. Errors use the
documented body ``{"status", "code", "title", "detail"}``.
"""

from __future__ import annotations

import re
from http import HTTPStatus
from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/you"
KEY = "fake-you-key"
FAKE_KEYS = {"YDC_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v1/search")
VARIANTS = ("default", "empty", "news_only", "forbidden", "payment_required", "rate_limit", "server_error")
FRESHNESS = ("day", "week", "month", "year")
_RANGE = re.compile(r"^\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2}$")
_CODES = {400: "bad_request", 401: "unauthorized", 402: "payment_required", 403: "forbidden", 429: "rate_limited"}
_FAILURES = {
    "forbidden": (403, "Missing required scopes"),
    "payment_required": (402, "Insufficient credits. Add credits to your account."),
    "rate_limit": (429, "Too many requests"),
    "server_error": (500, "Internal server error"),
}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.you]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """You.com's error body at ``status``: ``{"status", "code", "title", "detail"}``."""
    try:
        title = HTTPStatus(status).phrase
    except ValueError:
        title = "Error"
    code = _CODES.get(status, "internal_server_error" if status >= 500 else "error")
    return FakeResponse(status, body={"status": status, "code": code, "title": title, "detail": message})


def validation_error(field: str, message: str, kind: str) -> FakeResponse:
    """A FastAPI-style 422: ``{"detail": [{"loc", "msg", "type"}]}``."""
    return FakeResponse(422, body={"detail": [{"loc": ["body", field], "msg": message, "type": kind}]})


def search(variant: str = "default") -> Any:
    """The ``POST /v1/search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        key = request.header("x-api-key")
        if not key:
            return error_response(401, "API key is required")
        if key != KEY:
            return error_response(401, "Invalid or expired API key")
        try:
            body = request.json()
        except ValueError:
            return validation_error("", "Input should be a valid JSON object", "json_invalid")
        problem = _validate(body)
        if problem is not None:
            return problem
        if variant in _FAILURES:
            response = error_response(*_FAILURES[variant])
            if variant == "rate_limit":
                response.headers["Retry-After"] = "30"
            return response
        data = load_data("you_search.json", body["query"])
        count = body.get("count", 10)
        results = data["results"]
        results["web"] = [] if variant in ("empty", "news_only") else results["web"][:count]
        results["news"] = [] if variant == "empty" else results["news"][:count]
        return FakeResponse(200, body=data)

    return handler


def _validate(body: Any) -> FakeResponse | None:
    if not isinstance(body, dict) or not str(body.get("query") or "").strip():
        return validation_error("query", "Field required", "missing")
    count = body.get("count", 10)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 100:
        return validation_error("count", "Input should be between 1 and 100", "less_than_equal")
    freshness = body.get("freshness")
    if freshness is not None and freshness not in FRESHNESS and not _RANGE.match(str(freshness)):
        return validation_error("freshness", "Invalid freshness value", "value_error")
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
