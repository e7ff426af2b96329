"""Loopback fake of the Zhipu Web Search API: ``POST /zhipu_web_search/api/paas/v4/web_search``.

Like the real API it needs ``Authorization: Bearer <key>``, demands ``search_engine`` (HTTP 400,
code 1214 without it), ignores ``count`` (always twelve rows, as the real API returned 15 rows for
``count=2``), answers ``search_intent`` always (as the documented response does: with its recognised
keywords when asked for, else the query itself as the one search it ran), gives one row a CJK
``publish_date`` (``2025年7月30日``), and reports some failures as ``{"error": {"code", "message"}}``
**with HTTP 200** (variants).
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

KEY = "fake-zhipu_web_search-key"
FAKE_KEYS = {"ZHIPU_WEB_SEARCH_API_KEY": KEY}
PATH = "/zhipu_web_search/api/paas/v4/web_search"
SEARCH_ROUTE = ("POST", PATH)
ENGINES = ("search_std", "search_pro", "search_pro_sogou", "search_pro_quark", "search_pro_jina", "search-prime")
RECENCY = ("oneDay", "oneWeek", "oneMonth", "oneYear", "noLimit")

ENVELOPES = {
    "rate_limit": ("1701", "Web search concurrency limit reached; retry later or reduce concurrent requests."),
    "no_engine": ("1702", "No search engine is available; check the search_engine setting."),
    "no_data": ("1703", "The search engine returned no valid data; adjust the query."),
    "bad_request": ("1214", "Invalid parameter: search_recency_filter."),
    "quota": ("1113", "Insufficient balance or no resource package. Please recharge."),
}
"""Variant -> ``(code, message)`` of an error envelope served with HTTP 200."""

VARIANTS = ("default", "empty", "no_result_array", *ENVELOPES)
_STATUS_CODES = {400: "1214", 401: "1000", 403: "1000", 429: "1302", 500: "500", 503: "1305"}


def error_response(status: int, message: str) -> FakeResponse:
    """The Zhipu error body ``{"error": {"code": "<business code>", "message": ...}}`` at ``status``."""
    return FakeResponse(status, body={"error": {"code": _STATUS_CODES.get(status, str(status)), "message": message}})


def checked_body(request: FakeRequest, key: str, invalid: Any) -> tuple[Any, FakeResponse | None]:
    """``(json body, None)`` for an authorised, valid request, else ``(None, error response)``.

    ``invalid(body)`` returns a problem description or ``None`` (shared by both Zhipu fakes).
    """
    if request.bearer() != key:
        return None, error_response(401, "Authentication failed: the API key is invalid or has expired.")
    try:
        body = request.json()
    except ValueError:
        body = None
    problem = invalid(body)
    return (None, error_response(400, problem)) if problem else (body, None)


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.zhipu_web_search]`` table for a fake at ``base_url``."""
    return {"base_url": f"{base_url}/zhipu_web_search"}


def routes() -> dict[tuple[str, str], Any]:
    """The default route: twelve asyncio results whatever ``count`` says."""
    return {SEARCH_ROUTE: search_handler()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The search route answering one of :data:`VARIANTS`."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown zhipu_web_search variant {variant!r}")
    return {SEARCH_ROUTE: search_handler(variant)}


def search_handler(variant: str = "default") -> Any:
    """A handler validating auth and the body like the real API, then answering ``variant``."""

    def handler(request: FakeRequest) -> FakeResponse:
        body, refused = checked_body(request, KEY, _invalid)
        if refused is not None:
            return refused
        if variant in ENVELOPES:
            code, message = ENVELOPES[variant]
            return FakeResponse(200, body={"error": {"code": code, "message": message}})
        return FakeResponse(200, body=_payload(body, variant))

    return handler


def _invalid(body: Any) -> str | None:
    if not isinstance(body, dict) or not str(body.get("search_query") or "").strip():
        return "Invalid parameter: search_query is required."
    if body.get("search_engine") not in ENGINES:
        return "Invalid parameter: search_engine is required and must be a known engine."
    if "search_recency_filter" in body and body["search_recency_filter"] not in RECENCY:
        return "Invalid parameter: search_recency_filter."
    count = body.get("count", 10)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 50:
        return "Invalid parameter: count must be 1-50."
    return None


def _payload(body: dict[str, Any], variant: str) -> dict[str, Any]:
    payload = load_data("zhipu_web_search_results.json", body["search_query"])
    if not body.get("search_intent"):
        query = body["search_query"]
        payload["search_intent"] = [{"query": query, "intent": "SEARCH_ALL", "keywords": query}]
    if variant == "empty":
        payload["search_result"] = []
    if variant == "no_result_array":
        del payload["search_result"]
    return payload
