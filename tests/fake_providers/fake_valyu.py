"""Fake Valyu search API (``POST /valyu/v1/search``), a plugin of the fake server.

Checks ``X-API-Key``, validates ``query``/``search_type``/``max_num_results``/``start_date``, and
answers ``data/valyu_search.json`` (a web page with its whole text, an arXiv paper with authors and a
date, a row without a URL; cut to ``max_num_results``), shaped after the official SDK's response
type (valyuAI/valyu-py ``valyu/types/response.py``). Errors use Valyu's body
``{"success": false, "error"}``; the ``partial`` variant is its 206-style answer that left sources out.
"""

from __future__ import annotations

import re
from typing import Any

from .server import FakeRequest, FakeResponse, json_body_or_refusal, load_data

PREFIX = "/valyu"
KEY = "fake-valyu-key"
FAKE_KEYS = {"VALYU_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v1/search")
VARIANTS = ("default", "empty", "partial", "payment_required", "rate_limit")
SEARCH_TYPES = ("all", "web", "proprietary", "news")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FAILURES = {"payment_required": (402, "Insufficient credits"), "rate_limit": (429, "Rate limit exceeded")}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.valyu]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Valyu's error body at ``status``: ``{"success": false, "error"}``."""
    return FakeResponse(status, body={"success": False, "error": message})


def search(variant: str = "default") -> Any:
    """The ``POST /v1/search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.header("x-api-key") != KEY:
            return error_response(401, "Invalid API key")
        body, refused = json_body_or_refusal(request, _validate, error_response)
        if refused is not None:
            return refused
        if variant in _FAILURES:
            return error_response(*_FAILURES[variant])
        data = load_data("valyu_search.json", body["query"])
        data["results"] = [] if variant == "empty" else data["results"][: body.get("max_num_results", 10)]
        if variant == "partial":
            data["error"] = "1 data points were removed for too low max_price"
        return FakeResponse(200, body=data)

    return handler


def _validate(body: Any) -> str | None:
    if not isinstance(body, dict) or not str(body.get("query") or "").strip():
        return "query is required"
    if body.get("search_type", "all") not in SEARCH_TYPES:
        return f"search_type must be one of {', '.join(SEARCH_TYPES)}"
    count = body.get("max_num_results", 10)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 20:
        return "max_num_results must be between 1 and 20"
    if "start_date" in body and not _DATE.match(str(body["start_date"])):
        return "start_date must be YYYY-MM-DD"
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
