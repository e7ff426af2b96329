"""Fake Wikipedia (``GET /wikipedia/w/api.php``, the MediaWiki Action API), a plugin of the fake server.

Checks what the real API checks: ``action=query`` with ``list=search`` and a non-blank ``srsearch``
(else MediaWiki's error object, sent with HTTP 200 as MediaWiki does), ``srlimit`` from 1 to 500, and a
User-Agent naming the client and a contact (Wikimedia's User-Agent policy: a generic one gets 403).
Answers ``data/wikipedia_search.json`` (the API:Search documentation's example) cut to ``srlimit``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/wikipedia"
FAKE_KEYS: dict[str, str] = {}
SEARCH_ROUTE = ("GET", f"{PREFIX}/w/api.php")
CONTACT = "fake-tests@example.org"
VARIANTS = ("default", "empty", "api_error", "ratelimited")
NO_SEARCH = {"code": "nosrsearch", "info": 'The "srsearch" parameter must be set.'}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.wikipedia]`` table for the fake at ``base_url`` (English, with a contact)."""
    return {"base_url": f"{base_url}{PREFIX}", "language": "en", "contact": CONTACT}


def error_response(status: int, message: str) -> FakeResponse:
    """An error object ``{"error": {"code", "info"}}`` at ``status``."""
    return FakeResponse(status, body={"error": {"code": f"http-{status}", "info": message}, "servedby": "mw-fake"})


def _api_error(code: str, info: str) -> FakeResponse:
    return FakeResponse(200, body={"error": {"code": code, "info": info, "docref": "See /w/api.php for API usage."}})


def search(variant: str = "default") -> Any:
    """The ``GET /w/api.php`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        agent = request.header("user-agent") or ""
        if not agent.startswith("websearch-tui/") or CONTACT not in agent:
            return error_response(403, "Please set a user-agent and respect our robot policy")
        query = request.query
        if query.get("action") != "query" or query.get("list") != "search" or not query.get("srsearch", "").strip():
            return _api_error(**NO_SEARCH)
        limit = query.get("srlimit", "10")
        if not limit.isdigit() or not 1 <= int(limit) <= 500:
            return _api_error("badinteger", f'Invalid value "{limit}" for integer parameter "srlimit".')
        if variant == "api_error":
            return _api_error("internal_api_error_DBQueryError", "A database query error has occurred.")
        if variant == "ratelimited":
            return _api_error("ratelimited", "You've exceeded your rate limit. Please wait some time and try again.")
        data = load_data("wikipedia_search.json")
        hits = data["query"]["search"]
        data["query"]["search"] = [] if variant == "empty" else hits[: int(limit)]
        return FakeResponse(200, body=data)

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
