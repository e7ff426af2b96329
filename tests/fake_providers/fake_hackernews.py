"""Fake Hacker News search (Algolia's ``GET /hackernews/api/v1/search`` and ``search_by_date``), a
plugin of the fake server.

Checks ``hitsPerPage`` (0-1000) and ``numericFilters`` of the form ``created_at_i>=<seconds>`` when
present, as Algolia rejects others with a 400. Answers ``data/hackernews_search.json`` (a story and a
comment as the API returns them) cut to ``hitsPerPage``. Errors use Algolia's body ``{"message", "status"}``.
"""

from __future__ import annotations

import re
from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/hackernews"
FAKE_KEYS: dict[str, str] = {}
SEARCH_ROUTE = ("GET", f"{PREFIX}/api/v1/search")
BY_DATE_ROUTE = ("GET", f"{PREFIX}/api/v1/search_by_date")
VARIANTS = ("default", "empty")
_NUMERIC = re.compile(r"created_at_i>=\d+")


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.hackernews]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Algolia's error body at ``status``."""
    return FakeResponse(status, body={"message": message, "status": status})


def search(variant: str = "default") -> Any:
    """The search handler for ``variant`` (see :data:`VARIANTS`), both orders."""

    def handler(request: FakeRequest) -> FakeResponse:
        per_page = request.query.get("hitsPerPage", "20")
        if not per_page.isdigit() or int(per_page) > 1000:
            return error_response(400, f"Invalid value for hitsPerPage: {per_page}")
        numeric = request.query.get("numericFilters")
        if numeric is not None and not _NUMERIC.fullmatch(numeric):
            return error_response(400, f"Invalid syntax for numeric condition: {numeric}")
        data = load_data("hackernews_search.json", request.query.get("query", ""))
        data["hits"] = [] if variant == "empty" else data["hits"][: int(per_page)]
        data["nbHits"] = len(data["hits"])
        return FakeResponse(200, body=data)

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default routes (relevance and date order)."""
    return {SEARCH_ROUTE: search(), BY_DATE_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The routes serving ``variant``."""
    return {SEARCH_ROUTE: search(variant), BY_DATE_ROUTE: search(variant)}
