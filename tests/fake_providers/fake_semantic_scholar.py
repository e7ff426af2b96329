"""Fake Semantic Scholar (``GET /semantic_scholar/graph/v1/paper/search``), a plugin of the fake server.

Checks what the real API checks most visibly: ``query`` present, ``limit`` a whole number from 1 to
100, known ``fields``, ``publicationDateOrYear`` of the form ``YYYY-MM-DD:`` when present, and an
``x-api-key`` (optional, as on the real API) that must be the fake key when sent. Answers
``data/semantic_scholar_search.json`` cut to ``limit``. Errors use S2's bodies: ``{"error"}`` for a
400, ``{"message", "code"}`` for a 429, ``{"message"}`` otherwise.
"""

from __future__ import annotations

import re
from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/semantic_scholar"
KEY = "fake-semantic-scholar-key"
FAKE_KEYS = {"SEMANTIC_SCHOLAR_API_KEY": KEY}
SEARCH_ROUTE = ("GET", f"{PREFIX}/graph/v1/paper/search")
VARIANTS = ("default", "empty", "rate_limit")
KNOWN_FIELDS = frozenset(
    "title url abstract venue year publicationDate authors citationCount externalIds openAccessPdf journal "
    "paperId corpusId referenceCount influentialCitationCount isOpenAccess fieldsOfStudy publicationTypes".split()
)
_DATE_FROM = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?:")
SHARED_POOL = (
    "Too Many Requests. Please wait and try again or apply for a key for higher rate limits. "
    "https://www.semanticscholar.org/product/api#api-key-form"
)


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.semantic_scholar]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Semantic Scholar's error body at ``status``."""
    if status == 400:
        return FakeResponse(status, body={"error": message})
    if status == 429:
        return FakeResponse(status, body={"message": message, "code": "429"})
    return FakeResponse(status, body={"message": message})


def search(variant: str = "default") -> Any:
    """The ``GET /graph/v1/paper/search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        key = request.header("x-api-key")
        if key is not None and key != KEY:
            return error_response(403, "Forbidden")
        problem = _problem(request.query)
        if problem:
            return error_response(400, problem)
        if variant == "rate_limit":
            return error_response(429, SHARED_POOL)
        if variant == "empty":
            return FakeResponse(200, body={"total": 0, "offset": 0})
        data = load_data("semantic_scholar_search.json")
        data["data"] = data["data"][: int(request.query.get("limit", "100"))]
        return FakeResponse(200, body=data)

    return handler


def _problem(query: dict[str, str]) -> str | None:
    if not query.get("query", "").strip():
        return "Missing required parameter: query"
    limit = query.get("limit", "100")
    if not limit.isdigit() or not 1 <= int(limit) <= 100:
        return f"Unacceptable query params: [limit={limit}] must be <= 100"
    unknown = [name for name in query.get("fields", "title").split(",") if name not in KNOWN_FIELDS]
    if unknown:
        return f"Unrecognized or unsupported fields: [{', '.join(unknown)}]"
    when = query.get("publicationDateOrYear")
    if when is not None and not _DATE_FROM.fullmatch(when):
        return f"Unacceptable query params: [publicationDateOrYear={when}]"
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
