"""Loopback fake of Zhipu GLM chat completions with the ``web_search`` tool.

Route: ``POST /zhipu_chat_search/api/paas/v4/chat/completions``. Like the real API it needs
``Authorization: Bearer <key>`` (401, code 1000), validates the nested ``web_search`` tool (400, code
1214), answers JSON for ``stream: false`` (the docs example shape: top-level ``web_search`` array,
``[Source: ref_N]`` markers) and chat-completions SSE for ``stream: true``: a first chunk with the
top-level ``web_search`` array and a ``tool_calls`` web_search delta (``search_intent``,
``search_result`` with a numeric field where a string is expected, ``search_recommend``), one
token per chunk, a final chunk with ``finish_reason`` and ``usage``, then ``data: [DONE]``. Some
failures come as ``{"error": {"code", "message"}}`` with HTTP 200 (variants).
"""

from __future__ import annotations

import re
from typing import Any

from .fake_zhipu_web_search import checked_body, error_response  # noqa: F401 - error_response is part of the plugin contract
from .server import FakeRequest, FakeResponse, load_data, split_at, sse_cut_offsets, sse_frames, sse_response

KEY = "fake-zhipu_chat_search-key"
FAKE_KEYS = {"ZHIPU_CHAT_SEARCH_API_KEY": KEY}
PATH = "/zhipu_chat_search/api/paas/v4/chat/completions"
SEARCH_ROUTE = ("POST", PATH)
DATA_FILE = "zhipu_chat_search_results.json"
ENGINES = ("search_std", "search_pro", "search_pro_sogou", "search_pro_quark", "search_pro_jina", "search-prime")
RECENCY = ("oneDay", "oneWeek", "oneMonth", "oneYear", "noLimit")

ENVELOPES = {
    "quota_200": (200, "1113", "Insufficient balance or no resource package. Please recharge."),
    "rate_limit": (
        429,
        "1302",
        "High concurrency usage of this API, please reduce concurrency or contact customer service.",
    ),
    "search_busy_200": (
        200,
        "1701",
        "Web search concurrency limit reached; retry later or reduce concurrent requests.",
    ),
    "bad_request": (400, "1214", "Invalid parameter: tools[0].web_search.count."),
}
"""Variant -> ``(HTTP status, code, message)`` of an error envelope answered instead of a completion."""

VARIANTS = ("default", "split", "fail_midway", "error_event", "no_final", "json", "no_search", *ENVELOPES)


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.zhipu_chat_search]`` table for a fake at ``base_url``."""
    return {"base_url": f"{base_url}/zhipu_chat_search"}


def routes() -> dict[tuple[str, str], Any]:
    """The default route: SSE when ``stream`` is true, else one JSON completion."""
    return {SEARCH_ROUTE: chat_handler()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The chat route answering one of :data:`VARIANTS`."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown zhipu_chat_search variant {variant!r}")
    return {SEARCH_ROUTE: chat_handler(variant)}


def chat_handler(variant: str = "default") -> Any:
    """A handler validating auth and the body like the real API, then answering ``variant``."""

    def handler(request: FakeRequest) -> FakeResponse:
        body, refused = checked_body(request, KEY, _invalid)
        if refused is not None:
            return refused
        if variant in ENVELOPES:
            status, code, message = ENVELOPES[variant]
            return FakeResponse(status, body={"error": {"code": code, "message": message}})
        query = body["tools"][0]["web_search"]["search_query"]
        if not body.get("stream") or variant == "json":
            return FakeResponse(200, body=completion(body["model"], query, variant))
        delay = request.server.token_delay if request.server else 0.0
        return _sse(chunks(body["model"], query, variant), variant, delay)

    return handler


def _invalid(body: Any) -> str | None:
    if not isinstance(body, dict) or not body.get("model") or not body.get("messages"):
        return "Invalid parameter: model and messages are required."
    tools = body.get("tools")
    tool = tools[0] if isinstance(tools, list) and tools and isinstance(tools[0], dict) else {}
    search = tool.get("web_search")
    if tool.get("type") != "web_search" or not isinstance(search, dict):
        return "Invalid parameter: tools[0] must be {type: web_search, web_search: {...}}."
    if not str(search.get("search_query") or "").strip():
        return "Invalid parameter: tools[0].web_search.search_query is required."
    for name in ("enable", "search_result", "require_search"):
        if name in search and not isinstance(search[name], bool):
            return f"Invalid parameter: tools[0].web_search.{name} must be a boolean."
    if search.get("search_engine", "search_std") not in ENGINES:
        return "Invalid parameter: tools[0].web_search.search_engine."
    if "search_recency_filter" in search and search["search_recency_filter"] not in RECENCY:
        return "Invalid parameter: tools[0].web_search.search_recency_filter."
    count = search.get("count", 10)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 50:
        return "Invalid parameter: tools[0].web_search.count must be 1-50."
    return None


def answer_data(query: str = "python asyncio") -> dict[str, Any]:
    """A fresh copy of the fake's payload file with ``{query}`` filled in."""
    return load_data(DATA_FILE, query)


def completion(model: str, query: str, variant: str = "default") -> dict[str, Any]:
    """The non-streaming ``chat.completion`` body (the docs example shape)."""
    data = answer_data(query)
    tokens = len(re.findall(r"\s*\S+", data["answer"]))
    return {
        "id": data["id"],
        "request_id": data["id"],
        "created": 1767268800,
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": data["answer"]}}],
        "usage": {
            "prompt_tokens": data["prompt_tokens"],
            "completion_tokens": tokens,
            "total_tokens": data["prompt_tokens"] + tokens,
        },
        "web_search": [] if variant == "no_search" else data["web_search"],
    }


def chunks(model: str, query: str, variant: str = "default") -> list[dict[str, Any]]:
    """The streamed chunks: search data first, one token per chunk, then ``finish_reason`` + usage."""
    data = answer_data(query)
    common = {"id": data["id"], "request_id": data["id"], "created": 1767268800, "model": model}
    tokens = re.findall(r"\s*\S+", data["answer"])
    first: dict[str, Any] = {**common, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
    if variant != "no_search":
        mistyped = [dict(row) for row in data["web_search"][:2]]
        mistyped[0]["publish_date"] = 20251007  # numeric where a string is expected
        mistyped[1]["title"] = 12345
        call = {
            "id": "call_fake_web_search_0001",
            "index": 0,
            "type": "web_search",
            "web_search": {
                "search_intent": data["search_intent"],
                "search_result": mistyped,
                "search_recommend": data["search_recommend"],
                "outline": 7,
            },
        }
        first["choices"][0]["delta"]["tool_calls"] = [call]
        first["web_search"] = data["web_search"]
    out = [first]
    for token in tokens:
        out.append({**common, "choices": [{"index": 0, "delta": {"role": "assistant", "content": token}}]})
    usage = {
        "prompt_tokens": data["prompt_tokens"],
        "completion_tokens": len(tokens),
        "total_tokens": data["prompt_tokens"] + len(tokens),
    }
    final = {
        **common,
        "choices": [{"index": 0, "finish_reason": "stop", "delta": {"role": "assistant", "content": ""}}],
    }
    final["usage"] = usage
    if variant != "no_final":
        out.append(final)
    if variant == "error_event":
        out = [*out[:10], {"error": {"code": "1234", "message": "Network error, please try again later."}}]
    return out


def _sse(events: list[dict[str, Any]], variant: str, delay: float) -> FakeResponse:
    done = variant not in ("no_final", "error_event")
    response = sse_response(events, done=done, chunk_delay=delay)
    if variant == "split":
        data = response.body_bytes()
        pieces = split_at(data, sse_cut_offsets(data))
        return FakeResponse(200, response.headers, chunks=pieces, chunked=True, chunk_delay=max(delay, 0.001))
    if variant == "fail_midway":  # the connection drops in the middle of the 12th event
        frames = sse_frames(events)
        cut = sum(len(frame) for frame in frames[:11]) + 20
        return FakeResponse(200, response.headers, body=b"".join(frames), truncate_at=cut)
    return response
