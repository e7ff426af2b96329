"""Fake Perplexity answer engine (``/perplexity/...``), a plugin of the fake server.

Two APIs, as the provider speaks them:

- ``POST /perplexity/v1/agent`` (and its alias ``/perplexity/v1/responses``): the Agent API, the
  provider's default. Checks the Bearer key like the real API and refuses what the real API refuses
  most visibly: an unknown field anywhere in the body (HTTP 400, ``invalid request body: json:
  unknown field "x"``, the API is strict), a missing ``input``, an unknown preset or a model id
  that is not ``provider/model`` (``invalid_model``), ``max_results`` outside 1..50, more than 20
  domains, an unknown recency. Answers ``stream: true`` with ``event: <type>`` SSE events (created,
  in_progress, the internal ``search_web`` call, search queries and results, the message, one text
  delta per token with citation markers split across deltas, ``response.completed``; no
  ``[DONE]``), else one JSON response. Payload: ``data/perplexity_agent.json`` (hand-written).
- ``POST /perplexity/chat/completions``: Sonar chat completions (``api = "chat"``), ``chat.completion.chunk``
  SSE or one ``chat.completion``; any Bearer key. Payload: ``data/perplexity.json``.

Errors use Perplexity's body ``{"error": {"message", "type", "code"}}``.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from .server import FakeRequest, FakeResponse, load_data, sse_response

PREFIX = "/perplexity"
FAKE_KEYS = {"PERPLEXITY_API_KEY": "fake-perplexity-key"}
AGENT_PATH = f"{PREFIX}/v1/agent"
RESPONSES_PATH = f"{PREFIX}/v1/responses"
CHAT_PATH = f"{PREFIX}/chat/completions"
SEARCH_ROUTE = ("POST", AGENT_PATH)
VARIANTS = ("default", "done", "json", "failed", "json_failed", "incomplete", "invalid_model", "no_results")
"""``done``: the chat stream ends with ``data: [DONE]``; ``json``: the Agent API ignores ``stream``;
``failed`` / ``json_failed``: a run that fails (``response.failed``; HTTP 200 with ``status: "failed"``);
``incomplete``: cut short at ``max_output_tokens``; ``invalid_model``: HTTP 400 ``invalid_model``;
``no_results``: the search found nothing and the answer cites nothing."""

PRESETS = (
    "fast",
    "low",
    "medium",
    "high",
    "xhigh",
    "fast-search",
    "pro-search",
    "deep-research",
    "advanced-deep-research",
)
BAD_KEY = "Invalid API key provided. Ensure your API key is correct and active."
_TYPES = {
    400: "invalid_request",
    401: "invalid_api_key",
    403: "forbidden",
    404: "not_found",
    429: "request_rate_limit_exceeded",
}
_FIELDS = {
    "input", "model", "models", "preset", "instructions", "stream", "stream_options", "max_output_tokens",
    "max_steps", "reasoning", "response_format", "tools", "tool_choice", "max_tool_calls", "previous_response_id",
    "store", "background", "metadata", "truncation", "language_preference", "temperature", "top_p",
    "parallel_tool_calls",
}  # fmt: skip
"""Top-level fields the Agent API accepts (any other gives HTTP 400)."""
_TOOL_FIELDS = {
    "type",
    "search_context_size",
    "max_results",
    "max_tokens",
    "max_tokens_per_page",
    "user_location",
    "filters",
}
_FILTERS = {
    "search_domain_filter", "search_recency_filter", "search_after_date_filter", "search_before_date_filter",
    "last_updated_after_filter", "last_updated_before_filter",
}  # fmt: skip
_RECENCY = ("hour", "day", "week", "month", "year")


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.perplexity]`` table for the fake at ``base_url`` (Agent API, default preset)."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_response(status: int, message: str, error_type: str | None = None, param: str | None = None) -> FakeResponse:
    """Perplexity's error body at ``status``: ``{"error": {"message", "type", "code"[, "param"]}}``."""
    kind = error_type or _TYPES.get(status, "invalid_request" if status < 500 else "internal_error")
    error: dict[str, Any] = {"message": message, "type": kind, "code": status}
    if param:
        error["param"] = param
    return FakeResponse(status, body={"error": error})


# --------------------------------------------------------------------------- the Agent API


def _problem(body: Any) -> FakeResponse | None:
    """The 400 the real API gives this body, or ``None`` when it would accept it."""
    if not isinstance(body, dict):
        return error_response(400, "invalid request body: expected a JSON object")
    unknown = [key for key in body if key not in _FIELDS]
    for tool in body.get("tools") or []:
        unknown += [key for key in tool if key not in _TOOL_FIELDS] if isinstance(tool, dict) else ["tools"]
        filters = tool.get("filters") if isinstance(tool, dict) else None
        unknown += [key for key in filters if key not in _FILTERS] if isinstance(filters, dict) else []
    if unknown:
        return error_response(400, f'invalid request body: json: unknown field "{unknown[0]}"', param=unknown[0])
    if not body.get("input"):
        return error_response(400, "input is required", "invalid_parameter", "input")
    preset, model = body.get("preset"), body.get("model")
    if preset is None and model is None and not body.get("models"):
        return error_response(400, "one of model, models or preset is required", "invalid_parameter")
    if preset is not None and preset not in PRESETS:
        return error_response(400, f"Invalid preset '{preset}'", "invalid_model", "preset")
    if model is not None and (not isinstance(model, str) or "/" not in model):
        return error_response(400, f"Invalid model '{model}'", "invalid_model", "model")
    for tool in body.get("tools") or []:
        count = tool.get("max_results", 10)
        if not isinstance(count, int) or not 1 <= count <= 50:
            return error_response(400, "max_results must be between 1 and 50", "invalid_parameter", "max_results")
        filters = tool.get("filters") or {}
        if len(filters.get("search_domain_filter") or []) > 20:
            return error_response(
                400, "search_domain_filter accepts at most 20 domains", "invalid_search_domain_filter"
            )
        recency = filters.get("search_recency_filter")
        if recency is not None and recency not in _RECENCY:
            return error_response(
                400, f"search_recency_filter must be one of {', '.join(_RECENCY)}", "invalid_parameter"
            )
    return None


def _results_item(data: dict[str, Any], variant: str) -> dict[str, Any]:
    results = [] if variant == "no_results" else data["results"]
    return {"type": "search_results", "queries": data["queries"], "results": results}


def _answer(data: dict[str, Any], variant: str) -> list[str]:
    tokens: list[str] = data["answer_tokens"]
    if variant == "no_results":  # nothing to cite: the answer without its markers, a word per token
        tokens = re.findall(r"\s*\S+", re.sub(r"\[\d+\]", "", "".join(tokens)))
    if variant == "incomplete":
        tokens = tokens[: len(tokens) // 2]
    return tokens


def _message(data: dict[str, Any], text: str | None) -> dict[str, Any]:
    content = None if text is None else [{"type": "output_text", "text": text, "annotations": []}]
    return {"type": "message", "id": data["message_id"], "role": "assistant", "status": "completed", "content": content}


def _usage(data: dict[str, Any], tokens: list[str]) -> dict[str, Any]:
    usage = dict(data["usage"])
    usage["output_tokens"] = len(tokens)
    usage["total_tokens"] = usage["input_tokens"] + len(tokens)
    return usage


def agent_response(body: dict[str, Any], variant: str = "default") -> dict[str, Any]:
    """The whole response object: ``output`` = the ``search_results`` item and the message."""
    data = load_data("perplexity_agent.json", query=str(body.get("input") or ""))
    tokens = _answer(data, variant)
    response: dict[str, Any] = {
        "id": data["id"],
        "object": "response",
        "created_at": data["created_at"],
        "completed_at": data["created_at"] + 3,
        "status": "completed",
        "model": data["model"],
        "output": [_results_item(data, variant), _message(data, "".join(tokens))],
        "usage": _usage(data, tokens),
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "tool_choice": "auto",
        "tools": body.get("tools") or [],
        "service_tier": "default",
        "store": False,
    }
    if variant == "incomplete":
        response.update(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    if variant in ("failed", "json_failed"):
        error = {
            "message": "The model failed to produce a response. Please retry.",
            "type": "internal_error",
            "code": 500,
        }
        response.update(status="failed", output=[], usage=None, error=error)
    return response


def agent_events(body: dict[str, Any], variant: str = "default") -> list[tuple[str, dict[str, Any]]]:
    """The SSE events of a streamed run: ``(type, payload)``, sequence numbers with a gap (as on the wire)."""
    data = load_data("perplexity_agent.json", query=str(body.get("input") or ""))
    final = agent_response(body, variant)
    tokens = _answer(data, variant)
    numbers = itertools.chain([0, 1], itertools.count(3))  # the real stream skips numbers too
    snapshot = {**final, "model": body.get("preset") or body.get("model"), "status": "in_progress", "output": []}
    snapshot.update(usage=None, completed_at=None, error=None, incomplete_details=None)
    events: list[tuple[str, dict[str, Any]]] = []

    def add(kind: str, **fields: Any) -> None:
        events.append((kind, {**fields, "sequence_number": next(numbers), "type": kind}))

    add("response.created", response=snapshot)
    add("response.in_progress", response=snapshot)
    if variant == "failed":
        add("response.failed", response=final)
        return events
    call = {
        "type": "function_call",
        "id": data["function_call_id"],
        "call_id": data["call_id"],
        "name": "search_web",
        "arguments": '{"queries": ["' + data["queries"][0].replace('"', "") + '"]}',
        "status": "completed",
    }
    results = _results_item(data, variant)
    add("response.output_item.added", item=call, output_index=0)
    add("response.reasoning.search_queries", call_id=data["call_id"], queries=data["queries"], thought="Searching")
    add("response.reasoning.search_results", call_id=data["call_id"], results=results["results"], thought="Found")
    add("response.output_item.done", item=results, output_index=0)
    add("response.output_item.added", item=_message(data, None), output_index=1)
    place = {"item_id": data["message_id"], "output_index": 1, "content_index": 0}
    for token in tokens:
        add("response.output_text.delta", delta=token, **place)
    add("response.output_text.done", text="".join(tokens), **place)
    add("response.output_item.done", item=_message(data, "".join(tokens)), output_index=1)
    add("response.incomplete" if variant == "incomplete" else "response.completed", response=final)
    return events


def agent(variant: str = "default", *, token_delay: float | None = None) -> Any:
    """``POST /perplexity/v1/agent`` for ``variant`` (see :data:`VARIANTS`); events drip with
    ``token_delay`` (default: the server's ``token_delay``)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if not request.bearer():  # any key: tests seed keys of their own (as for chat completions)
            return error_response(401, BAD_KEY)
        try:
            body = request.json()
        except ValueError:
            body = None
        problem = _problem(body)
        if problem is not None:
            return problem
        if variant == "invalid_model":
            return error_response(400, "Invalid model 'perplexity/retired-model'", "invalid_model", "model")
        if not body.get("stream") or variant in ("json", "json_failed"):
            return FakeResponse(200, body=agent_response(body, variant))
        delay = token_delay if token_delay is not None else (request.server.token_delay if request.server else 0.0)
        return sse_response(agent_events(body, variant), chunk_delay=delay)

    return handler


# --------------------------------------------------------------------------- Sonar chat completions


def perplexity_answer() -> str:
    """The full markdown answer the fake chat completions stream (with ``[1]``..``[4]`` markers)."""
    return "".join(load_data("perplexity.json")["answer_tokens"])


def perplexity_chunks(model: str = "sonar-pro", related: bool = False) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` payloads (one token each) plus the final ``chat.completion.done``."""
    data = load_data("perplexity.json")
    common = {"id": data["id"], "model": model, "created": data["created"]}
    tail = {"citations": data["citations"], "search_results": data["search_results"]}
    prompt = data["prompt_tokens"]
    chunks = []
    for n, token in enumerate(data["answer_tokens"], start=1):
        usage = {"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n}
        choice = {"index": 0, "finish_reason": None, "delta": {"role": "assistant", "content": token}}
        chunks.append({**common, "usage": usage, **tail, "object": "chat.completion.chunk", "choices": [choice]})
    final = dict(chunks[-1], object="chat.completion.done")
    final["choices"] = [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": "stop"}]
    if related:
        final["related_questions"] = data["related_questions"]
    return [*chunks, final]


def perplexity_completion(model: str = "sonar-pro", related: bool = False) -> dict[str, Any]:
    """The non-streaming ``chat.completion`` body."""
    data = load_data("perplexity.json")
    n, prompt = len(data["answer_tokens"]), data["prompt_tokens"]
    body = {
        "id": data["id"],
        "model": model,
        "created": data["created"],
        "usage": {"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n},
        "citations": data["citations"],
        "search_results": data["search_results"],
        "object": "chat.completion",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": perplexity_answer()}}
        ],
    }
    if related:
        body["related_questions"] = data["related_questions"]
    return body


def chat(variant: str = "default", *, token_delay: float | None = None) -> Any:
    """``POST /perplexity/chat/completions`` (needs a Bearer key): SSE when ``stream`` is true, else JSON.

    Tokens drip with ``token_delay`` (default: the server's ``token_delay``); variant ``done``
    appends ``data: [DONE]``. ``related_questions`` only when ``return_related_questions`` is true.
    """

    def handler(request: FakeRequest) -> FakeResponse:
        if not request.bearer():
            return error_response(401, BAD_KEY)
        try:
            body = request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not body.get("messages"):
            return error_response(400, "messages is required")
        model = body.get("model") or "sonar-pro"
        related = bool(body.get("return_related_questions"))
        if not body.get("stream"):
            return FakeResponse(200, body=perplexity_completion(model, related))
        delay = token_delay if token_delay is not None else (request.server.token_delay if request.server else 0.0)
        return sse_response(perplexity_chunks(model, related), done=variant == "done", chunk_delay=delay)

    return handler


# --------------------------------------------------------------------------- routes


def routes() -> dict[tuple[str, str], Any]:
    """The default routes: the Agent API (and its alias) and chat completions."""
    return {("POST", AGENT_PATH): agent(), ("POST", RESPONSES_PATH): agent(), ("POST", CHAT_PATH): chat()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The routes serving ``variant`` (``done`` is the chat stream's; the others the Agent API's)."""
    if variant == "done":
        return {("POST", CHAT_PATH): chat(variant, **options)}
    return {("POST", AGENT_PATH): agent(variant, **options), ("POST", RESPONSES_PATH): agent(variant, **options)}
