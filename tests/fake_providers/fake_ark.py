"""Fake Volcengine ARK Responses API (``POST /ark/api/v3/responses``), a plugin of the fake server.

Checks the Bearer key, validates ``model``/``input`` and the ``web_search`` tool's integer
``limit``, and answers one JSON response (``stream: false``) in ARK's shape: a completed
``web_search_call`` and a message whose ``url_citation`` annotations carry URL and title. The
``continuation`` variant answers a short first reply and the full answer only to a second call
whose ``previous_response_id`` names the first. Errors use
``{"error": {"code", "message", "param", "type"}}``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .fake_openai import answer_data, final_response, query_of, request_json, validate
from .server import FakeRequest, FakeResponse

PREFIX = "/ark"
KEY = "fake-ark-key"
FAKE_KEYS = {"ARK_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/api/v3/responses")
FIRST_ID = "resp-fake-ark-0001"
SECOND_ID = "resp-fake-ark-0002"
SHORT_ANSWER = "Python's asyncio runs coroutines on an event loop."
VARIANTS = (
    "default",
    "continuation",
    "no_search",
    "split",
    "fail_midway",
    "no_final",
    "unauthorized",
    "rate_limit",
    "server_error",
)
_CODES = {
    400: ("InvalidParameter", "BadRequest"),
    401: ("AuthenticationError", "Unauthorized"),
    429: ("RateLimitExceeded.EndpointRPMExceeded", "TooManyRequests"),
}


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.ark]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """ARK's error body at ``status``: ``{"error": {"code", "message", "param", "type"}}``."""
    code, kind = _CODES.get(status, ("InternalServiceError", "InternalServerError"))
    return FakeResponse(status, body={"error": {"code": code, "message": message, "param": "", "type": kind}})


def _problem(body: Any) -> str | None:
    problem = validate(body)
    if problem:
        return problem
    limits = [tool.get("limit") for tool in body.get("tools") or [] if isinstance(tool, dict)]
    if body.get("previous_response_id") is None and not limits:
        return "The parameter `tools` specified in the request are not valid: web_search is required"
    if any(not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 50 for limit in limits):
        return "The parameter `tools.limit` specified in the request are not valid"
    if body.get("stream"):
        return "The parameter `stream` must be false for this fake"
    return None


def responses(variant: str = "default") -> Any:
    """The ``POST /ark/api/v3/responses`` handler for ``variant``."""

    def handler(request: FakeRequest) -> FakeResponse:
        if variant == "unauthorized" or request.bearer() != KEY:
            return error_response(401, "The API key or AK/SK in the request is missing or invalid.")
        if variant == "rate_limit":
            return error_response(429, "The request has exceeded the RPM limit of the endpoint.")
        if variant == "server_error":
            return error_response(500, "The service encountered an unexpected internal error.")
        body = request_json(request)
        problem = _problem(body)
        if problem:
            return error_response(400, problem)
        previous = body.get("previous_response_id")
        data = answer_data(query_of(body) if not previous else "python asyncio")
        data["id"] = SECOND_ID if previous else FIRST_ID
        if previous is not None and previous != FIRST_ID:
            return error_response(400, f"The previous_response_id {previous} was not found.")
        short = variant == "continuation" and previous is None
        payload = final_response(
            data,
            model=body["model"],
            dialect="ark",
            search=variant != "no_search" and not previous,
            annotations=not short,
            status="incomplete" if variant == "no_final" else "completed",
            text=SHORT_ANSWER if short else None,
        )
        response = FakeResponse(200, {"X-Request-Id": "fake-ark-req-0001"}, payload)
        data_bytes = response.body_bytes()
        if variant == "split":
            return replace(response, chunks=[data_bytes[i : i + 9] for i in range(0, len(data_bytes), 9)], chunked=True)
        if variant == "fail_midway":
            return replace(response, truncate_at=len(data_bytes) // 2)
        return response

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: responses()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown ark variant {variant!r}")
    return {SEARCH_ROUTE: responses(variant)}
