"""Fake Jina Search (``POST /jina/`` with a JSON body), a plugin of the fake server.

Serves the documented request only (a ``GET`` finds no route): checks the Bearer key like the real
service, wants ``Content-Type`` and ``Accept: application/json``, and validates the body as Jina's
server does (``q`` a non-blank string; ``num`` or its alias ``count`` an integer 0-20; ``page`` an
integer >= 1; ``gl`` a 2-letter country and ``hl`` a language code, when present). It answers the
``{"code": 200, "status": 20000, "data": [...], "meta": {...}}`` envelope with asyncio results
(``data/jina_search.json``) cut to ``num`` (default 10, the service's). Errors use Jina's envelope
``{"data": null, "code", "name", "status", "message", "readableMessage"}``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/jina"
FAKE_KEYS = {"JINA_API_KEY": "fake-jina-key"}
SEARCH_ROUTE = ("POST", f"{PREFIX}/")
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
    """The ``POST /`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != FAKE_KEYS["JINA_API_KEY"]:
            return error_response(401, BAD_KEY)
        body, problem = checked_body(request)
        if problem:
            return error_response(400, problem)
        query, count = body["q"].strip(), body.get("num", body.get("count", 10))
        special = _variant_response(variant, query, request.header("x-site"))
        if special is not None:
            return special
        payload = load_data("jina_search.json")
        payload["data"] = payload["data"][:count]
        return FakeResponse(200, body=payload["data"] if variant == "bare_array" else payload)

    return handler


def checked_body(request: FakeRequest) -> tuple[dict[str, Any], str | None]:
    """``(body, None)`` for a request Jina's search accepts, else ``({}, what is wrong)``."""
    if not (request.header("content-type") or "").startswith("application/json"):
        return {}, "Content-Type must be application/json"
    if "application/json" not in (request.header("accept") or ""):
        return {}, "Accept must include application/json to get JSON"
    try:
        body = request.json()
    except ValueError:
        return {}, "Request body is not valid JSON"
    if not isinstance(body, dict):
        return {}, "Request body must be a JSON object"
    return body, _body_problem(body)


def _body_problem(body: dict[str, Any]) -> str | None:
    if not isinstance(body.get("q"), str) or not body["q"].strip():
        return "Query parameter q is required"
    for name in ("num", "count"):
        value = body.get(name, 10)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
            return f"Invalid value for {name}: {value!r}"
    page = body.get("page", 1)
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        return f"Invalid value for page: {page!r}"
    gl, hl = body.get("gl"), body.get("hl")
    if gl is not None and not (isinstance(gl, str) and len(gl) == 2 and gl.isalpha()):
        return f"Invalid value for gl: {gl!r}"
    if hl is not None and not (isinstance(hl, str) and 2 <= len(hl) <= 5 and hl.replace("-", "").isalpha()):
        return f"Invalid value for hl: {hl!r}"
    return None


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
