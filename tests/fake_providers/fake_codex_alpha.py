"""Fake Codex Alpha Search gateway (``POST /codex_alpha/v1/alpha/search``), a plugin of the fake server.

Checks the Bearer key like a gateway does, validates ``id``/``model``/``commands.search_query``,
and answers ``data/codex_alpha_search.json``: a markdown ``output``, ``output_text``, text results
(one duplicate URL), a ``media_result`` and an unknown row without a URL, and ``usage``. Errors use
the OpenAI-style body ``{"error": {"message", "type", "code"}}``; ``error_200`` sends it with HTTP 200.
"""

from __future__ import annotations

from typing import Any

from .server import FakeRequest, FakeResponse, load_data

PREFIX = "/codex_alpha"
KEY = "fake-codex_alpha-key"
FAKE_KEYS = {"AGENT_WEB_SEARCH_CODEX_ALPHA_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v1/alpha/search")
VARIANTS = ("default", "empty", "output_text_only", "error_200", "rate_limit", "server_error")
_TYPES = {400: "invalid_request_error", 401: "invalid_api_key", 403: "permission_denied", 429: "rate_limit_exceeded"}
_FAILURES = {
    "rate_limit": (429, "Rate limit reached for alpha/search. Please try again in 20s."),
    "server_error": (500, "The server had an error while processing your request."),
}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.codex_alpha]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """The gateway's error body at ``status``: ``{"error": {"message", "type", "code"}}``."""
    kind = _TYPES.get(status, "invalid_request_error" if status < 500 else "server_error")
    return FakeResponse(status, body={"error": {"message": message, "type": kind, "code": status}})


def payload(request_id: str, model: str) -> Any:
    """A fresh copy of ``data/codex_alpha_search.json`` echoing the request ``id`` and ``model``."""
    data = load_data("codex_alpha_search.json")
    data.update(id=request_id, model=model)
    return data


def search(variant: str = "default") -> Any:
    """The ``POST /v1/alpha/search`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != KEY:
            return error_response(401, "Incorrect API key provided.")
        try:
            body = request.json()
        except ValueError:
            return error_response(400, "We could not parse the JSON body of your request.")
        problem = _validate(body)
        if problem:
            return error_response(400, problem)
        if variant in _FAILURES:
            return error_response(*_FAILURES[variant])
        if variant == "error_200":
            return FakeResponse(200, body={"error": {"message": "search backend unavailable", "type": "server_error"}})
        data = payload(body["id"], body["model"])
        if variant == "empty":
            data.update(output="", output_text="", results=[])
        if variant == "output_text_only":
            data["output"] = {"type": "summary"}
        return FakeResponse(200, {"X-Request-Id": "fake-codex-alpha-req-0001"}, data)

    return handler


def _validate(body: Any) -> str | None:
    if not isinstance(body, dict):
        return "The request body must be a JSON object."
    if not isinstance(body.get("id"), str) or not body["id"]:
        return "Missing required parameter: 'id'."
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "Missing required parameter: 'model'."
    queries = ((body.get("commands") or {}).get("search_query")) or []
    if not queries or not all(isinstance(q, dict) and str(q.get("q") or "").strip() for q in queries):
        return "Missing required parameter: 'commands.search_query[0].q'."
    return None


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
