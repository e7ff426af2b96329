"""Fake Firecrawl search API (``POST /firecrawl/v2/search``), a plugin of the fake server.

Checks the Bearer key, validates ``query``/``limit``/``tbs``/``sources``, and answers
``data/firecrawl_search.json`` (``data.web`` cut to ``limit``, one row without a URL), shaped after
the example in Firecrawl's search docs (https://docs.firecrawl.dev/features/search). With
``scrapeOptions`` each web result also gets ``markdown`` and ``metadata`` as a scrape adds them.
Errors use Firecrawl's body ``{"success": false, "error"}``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, json_body_or_refusal, load_data

PREFIX = "/firecrawl"
KEY = "fake-firecrawl-key"
FAKE_KEYS = {"FIRECRAWL_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v2/search")
VARIANTS = ("default", "empty", "v1_list", "payment_required", "rate_limit")
TBS = ("qdr:h", "qdr:d", "qdr:w", "qdr:m", "qdr:y")
_FAILURES = {
    "payment_required": (402, "Insufficient credits to perform this request."),
    "rate_limit": (429, "Rate limit exceeded. Consumed (req/min): 6, Remaining (req/min): 0."),
}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.firecrawl]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Firecrawl's error body at ``status``: ``{"success": false, "error"}``."""
    return FakeResponse(status, body={"success": False, "error": message})


def search(variant: str = "default") -> Any:
    """The ``POST /v2/search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != KEY:
            return error_response(401, "Unauthorized: Invalid token")
        body, refused = json_body_or_refusal(request, _validate, error_response)
        if refused is not None:
            return refused
        if variant in _FAILURES:
            return error_response(*_FAILURES[variant])
        data = load_data("firecrawl_search.json", body["query"])
        web = [] if variant == "empty" else data["data"]["web"][: body.get("limit", 5)]
        if "scrapeOptions" in body:
            for row in web:
                row["markdown"] = f"# {row['title']}\n\n{row['description']}"
                row["metadata"] = {"title": row["title"], "sourceURL": row.get("url"), "statusCode": 200}
        data["data"] = web if variant == "v1_list" else {"web": web}
        return FakeResponse(200, body=data)

    return handler


def _validate(body: Any) -> str | None:
    if not isinstance(body, dict) or not str(body.get("query") or "").strip():
        return "Bad Request: query is required"
    count = body.get("limit", 5)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 100:
        return "Bad Request: limit must be between 1 and 100"
    if "tbs" in body and body["tbs"] not in TBS:
        return "Bad Request: invalid tbs"
    if body.get("sources", [{"type": "web"}]) != [{"type": "web"}]:
        return "Bad Request: this fake serves web results only"
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
