"""Fake Kagi Search API, a plugin of the fake server.

- ``POST /kagi/api/v1/search`` (``Authorization: Bearer <key>``): the v1 body of
  ``data/kagi_v1_search.json`` (search, video, news, infobox, interesting_news, interesting_finds,
  listicle, code, public_records, web_archive, podcast, plus image and weather rows that are not
  sources, adjacent questions, related searches with the query in ``title``, a direct answer), each
  section cut to ``limit`` as Kagi caps each one; ``filters.after`` must be ``YYYY-MM-DD``.
- ``GET /kagi/api/v0/search?q=&limit=`` (``Authorization: Bot <key>``): the legacy body of
  ``data/kagi_v0_search.json`` (``t: 0`` results, ``t: 1`` related searches).

A key of the other version is rejected with 401, as the real endpoints do. Errors use Kagi's
envelope ``{"meta": {...}, "data": null, "error": [{"code", "msg", "ref"}]}``; the ``*_200``
variants deliver that envelope with HTTP 200.
"""

from __future__ import annotations

import re
from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/kagi"
KEY = "fake-kagi-key"
FAKE_KEYS = {"KAGI_API_KEY": KEY}
V1_ROUTE = ("POST", f"{PREFIX}/api/v1/search")
V0_ROUTE = ("GET", f"{PREFIX}/api/v0/search")
SEARCH_ROUTE = V1_ROUTE
VARIANTS = (
    "default",
    "empty",
    "malformed_200",
    "insufficient_credit_200",
    "unauthorized_200",
    "errors_400",
    "no_billing_402",
    "rate_limit",
    "server_error",
)
_CODES = {400: 1, 401: 2, 403: 2, 402: 100, 429: 0, 500: 0, 502: 0, 503: 0}
_FAILURES: dict[str, tuple[int, int, str]] = {
    "malformed_200": (200, 1, "Missing q parameter"),
    "insufficient_credit_200": (200, 101, "Insufficient credit to perform this request."),
    "unauthorized_200": (200, 2, "Unauthorized: invalid API key"),
    "no_billing_402": (402, 100, "No billing information on file."),
    "rate_limit": (429, 0, "Too many requests"),
    "server_error": (500, 0, "Internal error"),
}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.kagi]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def envelope(code: int, message: str, status: int = 200) -> FakeResponse:
    """Kagi's error envelope with one ``{"code", "msg", "ref"}`` item, at ``status``."""
    meta = {"id": "fake-kagi-error-0001", "node": "us-east4", "ms": 0}
    return FakeResponse(
        status, body={"meta": meta, "data": None, "error": [{"code": code, "msg": message, "ref": None}]}
    )


def error_response(status: int, message: str) -> FakeResponse:
    """Kagi's error envelope at ``status`` (code 1 malformed, 2 unauthorized, 100 no billing, 0 internal)."""
    return envelope(_CODES.get(status, 1 if status < 500 else 0), message, status)


def _failure(variant: str) -> FakeResponse | None:
    if variant == "errors_400":
        item = {"code": "invalid_parameter", "message": "limit must be between 1 and 40", "location": "body.limit"}
        return FakeResponse(400, body={"meta": {"trace": "fake-kagi-trace-error"}, "errors": [item]})
    if variant not in _FAILURES:
        return None
    status, code, message = _FAILURES[variant]
    response = envelope(code, message, status)
    if status == 429:
        response.headers["Retry-After"] = "30"
    return response


def v1_search(variant: str = "default") -> Any:
    """The ``POST /api/v1/search`` handler for ``variant``."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.header("authorization") != f"Bearer {KEY}":
            return envelope(2, "Unauthorized: this endpoint needs a v1 API key (Bearer)", 401)
        try:
            body = request.json()
        except ValueError:
            return envelope(1, "Request body must be JSON", 400)
        problem = _validate_v1(body)
        if problem:
            return envelope(1, problem, 400)
        failure = _failure(variant)
        if failure is not None:
            return failure
        data = load_data("kagi_v1_search.json", body["query"])
        data["data"] = {section: rows[: body.get("limit", 10)] for section, rows in data["data"].items()}
        if variant == "empty":
            data["data"] = {key: [] for key in data["data"]}
        return FakeResponse(200, body=data)

    return handler


def _validate_v1(body: Any) -> str | None:
    if not isinstance(body, dict) or not str(body.get("query") or "").strip():
        return "Missing query"
    limit = body.get("limit", 10)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 40:
        return "limit must be between 1 and 40"
    after = (body.get("filters") or {}).get("after")
    if after is not None and not _DATE.match(str(after)):
        return "filters.after must be a YYYY-MM-DD date"
    return None


def v0_search(variant: str = "default") -> Any:
    """The legacy ``GET /api/v0/search`` handler for ``variant``."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.header("authorization") != f"Bot {KEY}":
            return envelope(2, "Unauthorized: this endpoint needs a v0 API key (Bot)", 401)
        query = request.query.get("q", "").strip()
        if not query:
            return envelope(1, "Missing q parameter", 400)
        failure = _failure(variant)
        if failure is not None:
            return failure
        data = load_data("kagi_v0_search.json", query)
        limit = int(request.query.get("limit") or 10)
        results = [row for row in data["data"] if row["t"] == 0][:limit]
        data["data"] = [] if variant == "empty" else results + [row for row in data["data"] if row["t"] == 1]
        return FakeResponse(200, body=data)

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default v1 and v0 routes."""
    return variant_routes("default")


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """Both routes serving ``variant`` (see :data:`VARIANTS`)."""
    return {V1_ROUTE: v1_search(variant), V0_ROUTE: v0_search(variant)}
