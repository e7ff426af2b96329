"""Fake OpenAlex (``GET /openalex/works``), a plugin of the fake server.

Checks what the real API checks most visibly: ``search`` present, ``per_page`` a whole number from 1
to 200, ``filter`` of the form ``from_publication_date:YYYY-MM-DD`` when present, and an ``api_key``
parameter (optional, as on the real API) that must be the fake key when sent. Answers
``data/openalex_works.json`` (two works from OpenAlex's own documentation examples) cut to
``per_page``. Errors use OpenAlex's body ``{"error", "message"}``.
"""

from __future__ import annotations

import re
from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/openalex"
KEY = "fake-openalex-key"
FAKE_KEYS = {"OPENALEX_API_KEY": KEY}
SEARCH_ROUTE = ("GET", f"{PREFIX}/works")
CONTACT = "fake-tests@example.org"
VARIANTS = ("default", "empty", "rate_limit")
_FILTER = re.compile(r"from_publication_date:\d{4}-\d{2}-\d{2}")


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.openalex]`` table for the fake at ``base_url`` (with a contact, sent as ``mailto``)."""
    return {"base_url": f"{base_url}{PREFIX}", "contact": CONTACT}


def error_response(status: int, message: str) -> FakeResponse:
    """OpenAlex's error body at ``status``."""
    return FakeResponse(
        status, body={"error": "Invalid query parameters error." if status == 400 else "Error", "message": message}
    )


def search(variant: str = "default") -> Any:
    """The ``GET /works`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        key = request.query.get("api_key")
        if key is not None and key != KEY:
            return error_response(401, "Invalid API key")
        problem = _problem(request.query)
        if problem:
            return error_response(400, problem)
        if variant == "rate_limit":
            response = error_response(429, "Rate limit exceeded: you have used today's free allowance")
            response.headers["Retry-After"] = "60"
            return response
        data = load_data("openalex_works.json")
        per_page = int(request.query.get("per_page", "25"))
        data["results"] = [] if variant == "empty" else data["results"][:per_page]
        data["meta"]["count"] = len(data["results"])
        return FakeResponse(200, body=data)

    return handler


def _problem(query: dict[str, str]) -> str | None:
    if not query.get("search", "").strip():
        return "search is required"
    per_page = query.get("per_page", "25")
    if not per_page.isdigit() or not 1 <= int(per_page) <= 200:
        return f"per_page is {per_page!r}; it must be a number from 1 to 200"
    if "filter" in query and not _FILTER.fullmatch(query["filter"]):
        return f"{query['filter']!r} is not a valid filter"
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
