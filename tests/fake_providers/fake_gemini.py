"""Loopback fake of the Gemini Developer API with Google Search grounding.

Routes (under ``/gemini``): ``POST /v1beta/models/{model}:streamGenerateContent`` (SSE with
``alt=sse``, else a JSON array of responses), ``POST /v1beta/models/{model}:generateContent`` (one
JSON response) for the models in :data:`MODELS`, and ``HEAD /grounding-api-redirect/{id}`` answering
302 with the real ``Location``. Like the real API it wants the key in ``x-goog-api-key`` (403 without
one, 400 "API key not valid" for a wrong one) and frames SSE events with ``\\r\\n``. The answer streams
one token per event; the last event carries ``finishReason: "STOP"`` and all the grounding, whose
chunk URIs point at this fake's redirect route, so clients exercise redirect resolution end to end.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .server import FakeRequest, FakeResponse, load_data, split_at, sse_cut_offsets, sse_frames, sse_response

KEY = "fake-gemini-key"
FAKE_KEYS = {"GEMINI_API_KEY": KEY}
PREFIX = "/gemini"
MODELS = ("gemini-3.8-flash", "gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite", "gemini-2.0-flash")
STREAM_PATH = PREFIX + "/v1beta/models/{model}:streamGenerateContent"
GENERATE_PATH = PREFIX + "/v1beta/models/{model}:generateContent"
REDIRECT_PATH = PREFIX + "/grounding-api-redirect/{id}"
SEARCH_ROUTE = ("POST", STREAM_PATH.format(model=MODELS[0]))
DATA_FILE = "gemini_answer.json"

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
ERRORS: dict[str, tuple[int, str, list[dict[str, Any]]]] = {
    "rate_limit": (
        429,
        "You exceeded your current quota, please check your plan.",
        [
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}],
            },
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"},
        ],
    ),
    "quota": (429, "You exceeded your current quota, please check your plan and billing details.", []),
    "bad_key": (
        400,
        "API key not valid. Please pass a valid API key.",
        [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
            }
        ],
    ),
    "not_found": (404, "models/gemini-9 is not found for API version v1beta, or is not supported.", []),
    "server_error": (500, "An internal error has occurred. Please retry or report in the troubleshooting guide.", []),
}
"""Variant -> ``(status, message, details)`` of Google's error envelope."""

STREAM_VARIANTS = ("split", "lf", "fail_midway", "error_event", "no_final", "no_grounding", "blocked", "empty")
VARIANTS = ("default", *STREAM_VARIANTS, "redirect_fail", *ERRORS)


def error_response(status: int, message: str, details: list[dict[str, Any]] | None = None) -> FakeResponse:
    """Google's error envelope ``{"error": {"code", "message", "status"[, "details"]}}`` at ``status``."""
    error: dict[str, Any] = {"code": status, "message": message, "status": STATUS_NAMES.get(status, "UNKNOWN")}
    if details:
        error["details"] = details
    return FakeResponse(status, body={"error": error})


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.gemini]`` table for a fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def routes() -> dict[tuple[str, str], Any]:
    """The default routes: streaming and non-streaming generation for every model, the redirects."""
    return _routes("default")


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The routes answering one of :data:`VARIANTS`."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown gemini variant {variant!r}")
    return _routes(variant)


def _routes(variant: str) -> dict[tuple[str, str], Any]:
    table: dict[tuple[str, str], Any] = {}
    for model in MODELS:
        table[("POST", STREAM_PATH.format(model=model))] = generate_handler(model, variant, streaming=True)
        table[("POST", GENERATE_PATH.format(model=model))] = generate_handler(model, variant, streaming=False)
    for chunk in answer_data()["chunks"]:
        table[("HEAD", REDIRECT_PATH.format(id=chunk["id"]))] = redirect_handler(chunk["target"], variant)
    return table


def redirect_handler(target: str, variant: str = "default") -> Any:
    """``HEAD /gemini/grounding-api-redirect/{id}``: 302 to ``target`` (404 for ``redirect_fail``)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if variant == "redirect_fail":
            return FakeResponse(404, {"Content-Type": "text/html; charset=utf-8"}, b"")
        return FakeResponse(302, {"Location": target, "Content-Type": "text/html; charset=utf-8"}, b"")

    return handler


def generate_handler(model: str, variant: str = "default", *, streaming: bool = True) -> Any:
    """A generation handler validating the key and body like the real API, then answering ``variant``."""

    def handler(request: FakeRequest) -> FakeResponse:
        problem = _check(request)
        if problem is not None:
            return problem
        if variant in ERRORS:
            return error_response(*ERRORS[variant])
        base = request.server.base_url if request.server else f"http://{request.header('host')}"
        responses = stream_responses(base, model, variant)
        if not streaming:
            return FakeResponse(200, body=_merge(responses))
        if request.query.get("alt") != "sse":
            return FakeResponse(200, body=responses)
        delay = request.server.token_delay if request.server else 0.0
        return _sse(responses, variant, delay)

    return handler


def _check(request: FakeRequest) -> FakeResponse | None:
    key = request.header("x-goog-api-key")
    if not key:
        message = "Method doesn't allow unregistered callers (callers without established identity)."
        return error_response(403, message + " Please use API Key or other form of API consumer identity.")
    if key != KEY:
        return error_response(*ERRORS["bad_key"])
    try:
        body = request.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or not body.get("contents"):
        return error_response(400, "* GenerateContentRequest.contents: contents is not specified")
    tools = body.get("tools") or []
    if not any(isinstance(t, dict) and ("google_search" in t or "googleSearch" in t) for t in tools):
        return error_response(400, "fake: this fake only answers requests with the google_search tool")
    return None


def _sse(responses: list[dict[str, Any]], variant: str, delay: float) -> FakeResponse:
    if variant == "error_event":
        failure = {
            "error": {
                "code": 503,
                "message": "The model is overloaded. Please try again later.",
                "status": "UNAVAILABLE",
            }
        }
        responses = [*responses[:8], failure]
    response = sse_response(responses, crlf=variant != "lf", chunk_delay=delay)
    if variant == "split":
        data = response.body_bytes()
        return FakeResponse(
            200,
            response.headers,
            chunks=split_at(data, sse_cut_offsets(data)),
            chunked=True,
            chunk_delay=max(delay, 0.001),
        )
    if variant == "fail_midway":  # the connection drops in the middle of the 11th event
        frames = sse_frames(responses, crlf=True)
        cut = sum(len(frame) for frame in frames[:10]) + 25
        return FakeResponse(200, response.headers, body=b"".join(frames), truncate_at=cut)
    return response


def stream_responses(base_url: str, model: str, variant: str = "default") -> list[dict[str, Any]]:
    """The ``GenerateContentResponse`` events: one token each, the last with ``finishReason`` and grounding."""
    data = answer_data()
    tokens = re.findall(r"\s*\S+", data["answer"])
    usage_base = {"promptTokenCount": data["prompt_tokens"], "thoughtsTokenCount": 212, "toolUsePromptTokenCount": 88}
    if variant == "blocked":
        feedback = {"blockReason": "SAFETY", "safetyRatings": []}
        return [{"promptFeedback": feedback, "usageMetadata": usage_base, "modelVersion": data["model_version"]}]
    if variant == "empty":
        tokens = []
    events = []
    for n, token in enumerate(tokens or [""], start=1):
        parts = [{"text": token}] if token else []
        if n == 1 and token:
            parts.insert(0, {"text": data["thought"], "thought": True})
        usage = {**usage_base, "candidatesTokenCount": n}
        usage["totalTokenCount"] = sum(usage.values())
        candidate = {"content": {"parts": parts, "role": "model"}, "index": 0, "groundingMetadata": {}}
        events.append(
            {
                "candidates": [candidate],
                "usageMetadata": usage,
                "modelVersion": data["model_version"],
                "responseId": data["response_id"],
            }
        )
    last = events[-1]["candidates"][0]
    last["finishReason"] = "STOP"
    if variant in ("no_grounding", "empty"):
        del last["groundingMetadata"]
    else:
        last["groundingMetadata"] = grounding_metadata(base_url, data)
    if variant == "no_final":
        events = events[:-1]
    return events


def grounding_metadata(base_url: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """``groundingMetadata`` with redirect URIs on this fake and supports with UTF-8 byte offsets."""
    data = data or answer_data()
    answer = data["answer"].encode("utf-8")
    chunks = [
        {"web": {"uri": base_url + REDIRECT_PATH.format(id=c["id"]), "title": c["title"]}} for c in data["chunks"]
    ]
    supports = []
    for support in data["supports"]:
        start = answer.index(support["text"].encode("utf-8"))
        segment: dict[str, Any] = {"endIndex": start + len(support["text"].encode("utf-8")), "text": support["text"]}
        if start:
            segment["startIndex"] = start
        supports.append({"segment": segment, "groundingChunkIndices": support["chunks"]})
    chip = '<style>.container{display:flex}</style><div class="container"><a class="chip">python asyncio</a></div>'
    return {
        "searchEntryPoint": {"renderedContent": chip},
        "groundingChunks": chunks,
        "groundingSupports": supports,
        "webSearchQueries": data["queries"],
    }


def _merge(responses: list[dict[str, Any]]) -> dict[str, Any]:
    """One ``generateContent`` response from the streamed ones (text joined, last metadata)."""
    if not responses or "candidates" not in responses[-1]:
        return responses[-1] if responses else {}
    merged = json.loads(json.dumps(responses[-1]))
    text = "".join(
        part.get("text", "")
        for r in responses
        for part in r["candidates"][0]["content"]["parts"]
        if not part.get("thought")
    )
    merged["candidates"][0]["content"]["parts"] = [{"text": text}] if text else []
    return merged


def answer_data() -> dict[str, Any]:
    """A fresh copy of the fake's payload file (answer, chunks with their redirect targets, supports)."""
    return load_data(DATA_FILE)
