"""Fake ChatGPT Codex backend (``POST /codex/backend-api/codex/responses``), a plugin of the fake server.

Mounted under ``/codex/backend-api`` like the real ``https://chatgpt.com/backend-api`` base. Checks
the access token and ``chatgpt-account-id`` of the fake Codex login in ``data/codex_home/auth.json``
(point ``CODEX_HOME`` at that folder, which :data:`FAKE_KEYS` does), requires ``OpenAI-Beta:
responses=experimental``, ``stream: true`` and the forced ``web_search`` tool, rejects
``temperature``/``max_output_tokens`` like the backend, and streams the shared Responses answer.
Variants cover a completion without search, empty annotations (links in the text only) and each of
the three error nestings (PROVIDERS.md §2.21).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .fake_openai import answer_data, error_body, query_of, request_json, sse_reply, stream_events, validate
from .server import FakeRequest, FakeResponse

PREFIX = "/codex/backend-api"
CODEX_HOME = Path(__file__).with_name("data") / "codex_home"
FAKE_KEYS = {"CODEX_HOME": str(CODEX_HOME)}
"""Not an API key: the Codex provider reads the login from ``$CODEX_HOME/auth.json``."""
SEARCH_ROUTE = ("POST", f"{PREFIX}/codex/responses")
MODEL = "gpt-6-luna"
VARIANTS = (
    "default",
    "split",
    "fail_midway",
    "no_final",
    "no_search",
    "no_annotations",
    "error_top",
    "error_nested",
    "error_response",
    "unauthorized",
    "model_not_supported",
)
_STREAM_ERRORS = {
    "error_top": {"type": "error", "code": "rate_limit_exceeded", "message": "Rate limit reached. Try again later."},
    "error_nested": {
        "type": "error",
        "error": {"code": "unsupported_region", "message": "Codex is not available in your region."},
    },
    "error_response": {
        "type": "response.failed",
        "response": {
            "id": "resp_fake",
            "status": "failed",
            "error": {"code": "server_error", "message": "Codex backend failure."},
        },
    },
}


def login() -> dict[str, Any]:
    """The fake login's ``tokens`` object (``data/codex_home/auth.json``)."""
    return json.loads((CODEX_HOME / "auth.json").read_text(encoding="utf-8"))["tokens"]


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.codex]`` table for the fake at ``base_url`` (the loopback host is trusted explicitly)."""
    return {"base_url": f"{base_url}{PREFIX}", "trust_base_url": True}


def error_response(status: int, message: str) -> FakeResponse:
    """The backend's error body at ``status``: ``{"error": {"message", "type", "param", "code"}}``."""
    return FakeResponse(status, body=error_body(message, status))


def _check(request: FakeRequest, body: Any) -> FakeResponse | None:
    tokens = login()
    if request.bearer() != tokens["access_token"]:
        return FakeResponse(401, body=error_body("Your authentication token has expired. Please log in again.", 401))
    if request.header("chatgpt-account-id") != tokens["account_id"]:
        return FakeResponse(403, body=error_body("Workspace not found for this account.", 403))
    if request.header("openai-beta") != "responses=experimental":
        return FakeResponse(400, body=error_body("Missing OpenAI-Beta: responses=experimental header.", 400))
    problem = validate(body)
    if not problem and body.get("stream") is not True:
        problem = "Stream must be set to true"
    if not problem and (body.get("tool_choice") or {}).get("type") != "web_search":
        problem = "tool_choice must force web_search for this fake"
    for name in ("temperature", "max_output_tokens"):
        if not problem and name in body:
            problem = f"Unsupported parameter: {name}"
    return FakeResponse(400, body=error_body(problem, 400)) if problem else None


def responses(variant: str = "default") -> Any:
    """The ``POST /codex/backend-api/codex/responses`` handler for ``variant``."""

    def handler(request: FakeRequest) -> FakeResponse:
        if variant == "unauthorized":
            return FakeResponse(401, body=error_body("Your authentication token has expired.", 401))
        body = request_json(request)
        failed = _check(request, body)
        if failed:
            return failed
        if variant == "model_not_supported":
            message = f"The '{body['model']}' model is not supported when using Codex with a ChatGPT account."
            return FakeResponse(400, body={"detail": message})
        events = stream_events(
            answer_data(query_of(body)),
            model=body["model"],
            search=variant != "no_search",
            annotations=variant != "no_annotations",
            final=variant not in ("no_final", *_STREAM_ERRORS),
            fail_after=12 if variant == "fail_midway" else None,
        )
        if variant in _STREAM_ERRORS:
            events = [*events[:20], (_STREAM_ERRORS[variant]["type"], _STREAM_ERRORS[variant])]
        return sse_reply(events, request, variant)

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: responses()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown codex variant {variant!r}")
    return {SEARCH_ROUTE: responses(variant)}
