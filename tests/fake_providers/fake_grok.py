"""Fake xAI Responses API (``POST /grok/v1/responses``), a plugin of the fake server.

Checks the Bearer key, accepts the ``web_search`` and ``x_search`` tools (``x_search`` dates must
be ``YYYY-MM-DD``), rejects the retired ``search_parameters``, and streams the shared Responses
answer in xAI's shape: the search call carries a JSON-string ``arguments`` and arrives completed,
annotations carry only a URL and all come after the text, usage has
``num_server_side_tools_used``. ``POST /grok/v1/chat/completions`` answers the Live Search 410
(``{"error": "<string>"}``), as xAI does for the retired option. Errors otherwise use
``{"code", "error"}`` with a string ``error``.
"""

from __future__ import annotations

import re
from typing import Any

from .fake_openai import answer_data, final_response, query_of, request_json, sse_reply, stream_events, validate
from .server import FakeRequest, FakeResponse

PREFIX = "/grok"
KEY = "fake-grok-key"
FAKE_KEYS = {"XAI_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v1/responses")
CHAT_ROUTE = ("POST", f"{PREFIX}/v1/chat/completions")
MODEL = "grok-4.3"
VARIANTS = ("default", "split", "fail_midway", "no_final", "no_search", "live_search_410", "rate_limit", "bad_request")
LIVE_SEARCH_GONE = (
    "Live search is deprecated. Please switch to the Agent Tools API: https://docs.x.ai/docs/guides/tools/overview"
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.grok]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str) -> FakeResponse:
    """xAI's error body at ``status``: ``{"code": "<reason>", "error": "<message>"}``."""
    return FakeResponse(
        status, body={"code": "Client specified an invalid argument" if status < 500 else "Internal", "error": message}
    )


def live_search(request: FakeRequest) -> FakeResponse:
    """``POST /grok/v1/chat/completions``: the retired Live Search answer (410, string ``error``)."""
    return FakeResponse(410, body={"error": LIVE_SEARCH_GONE})


def _problem(body: Any) -> str | None:
    problem = validate(body, tools=("web_search", "x_search"))
    if problem:
        return problem
    for tool in body.get("tools") or []:
        for name in ("from_date", "to_date"):
            if name in tool and not _DATE.match(str(tool[name])):
                return f"Invalid {name}: expected YYYY-MM-DD"
    return None


def responses(variant: str = "default") -> Any:
    """The ``POST /grok/v1/responses`` handler for ``variant``."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != KEY:
            return error_response(
                401, "Incorrect API key provided: fa***ey. You can obtain an API key from https://console.x.ai."
            )
        if variant == "live_search_410":
            return live_search(request)
        if variant == "rate_limit":
            return FakeResponse(
                429, {"Retry-After": "0"}, {"code": "Too many requests", "error": "Rate limit exceeded."}
            )
        body = request_json(request)
        problem = "Model not found: grok-0" if variant == "bad_request" else _problem(body)
        if problem:
            return error_response(400, problem)
        data = answer_data(query_of(body)) | {"id": "98a8d4aa-fake-grok-0001"}
        search = variant != "no_search"
        if not body.get("stream"):
            return FakeResponse(200, body=final_response(data, model=MODEL, dialect="xai", search=search))
        events = stream_events(
            data,
            model=MODEL,
            dialect="xai",
            search=search,
            final=variant != "no_final",
            fail_after=12 if variant == "fail_midway" else None,
        )
        return sse_reply(events, request, variant)

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default routes (responses and the retired chat completions)."""
    return {SEARCH_ROUTE: responses(), CHAT_ROUTE: live_search}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The routes serving ``variant``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown grok variant {variant!r}")
    return {SEARCH_ROUTE: responses(variant), CHAT_ROUTE: live_search}
