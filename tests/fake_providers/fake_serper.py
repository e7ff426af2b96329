"""Fake Serper API (``POST /serper/search``), a plugin of the fake server.

Checks ``X-API-KEY`` like the real API, validates ``q``/``num``/``tbs``, and answers
``data/serper_search.json`` (organic results cut to ``num``, one without a link, an answer box, a
knowledge graph, "people also ask" and related searches), shaped after the recorded answer in
LangChain's Serper notebook (langchain-ai/langchain ``docs/docs/integrations/tools/google_serper.ipynb``).
Errors use Serper's body ``{"message", "statusCode"}``.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, json_body_or_refusal, load_data

PREFIX = "/serper"
KEY = "fake-serper-key"
FAKE_KEYS = {"SERPER_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/search")
VARIANTS = ("default", "empty", "organic_only", "no_credits", "rate_limit")
TBS = ("qdr:h", "qdr:d", "qdr:w", "qdr:m", "qdr:y")
_FAILURES = {"no_credits": (400, "Not enough credits"), "rate_limit": (429, "Too many requests")}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.serper]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """Serper's error body at ``status``: ``{"message", "statusCode"}``."""
    return FakeResponse(status, body={"message": message, "statusCode": status})


def search(variant: str = "default") -> Any:
    """The ``POST /search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.header("x-api-key") != KEY:
            return error_response(403, "Unauthorized.")
        body, refused = json_body_or_refusal(request, _validate, error_response)
        if refused is not None:
            return refused
        if variant in _FAILURES:
            return error_response(*_FAILURES[variant])
        data = load_data("serper_search.json", body["q"])
        data["organic"] = [] if variant == "empty" else data["organic"][: body.get("num", 10)]
        if variant in ("empty", "organic_only"):
            for block in ("answerBox", "knowledgeGraph", "peopleAlsoAsk", "relatedSearches"):
                del data[block]
        return FakeResponse(200, body=data)

    return handler


def _validate(body: Any) -> str | None:
    if not isinstance(body, dict) or not str(body.get("q") or "").strip():
        return "Missing query parameter: q"
    count = body.get("num", 10)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 100:
        return "num must be between 1 and 100"
    if "tbs" in body and body["tbs"] not in TBS:
        return "Invalid tbs value"
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
