"""Fake OpenAI Responses API (``POST /openai/v1/responses``), a plugin of the fake server.

Checks the Bearer key, validates ``model``/``input``/``tools`` like the real API, and answers an
asyncio answer (``data/openai_answer.json``) as the real event stream when ``stream`` is true
(``response.created`` … ``response.web_search_call.*`` … one ``response.output_text.delta`` per
token … ``response.output_text.annotation.added`` right after each cited link …
``response.completed``), dripped by the server's ``token_delay``, or as one JSON response otherwise.
Errors use ``{"error": {"message", "type", "param", "code"}}``.

The event builders here (:func:`stream_events`, :func:`final_response`) also serve the Codex, Grok
and ARK fakes, which speak the same dialect (``dialect`` = ``openai`` | ``xai`` | ``ark``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .server import FakeRequest, FakeResponse, load_data, split_at, sse, sse_cut_offsets, sse_response

PREFIX = "/openai"
KEY = "fake-openai-key"
FAKE_KEYS = {"OPENAI_API_KEY": KEY}
SEARCH_ROUTE = ("POST", f"{PREFIX}/v1/responses")
VARIANTS = (
    "default",
    "split",
    "crlf",
    "fail_midway",
    "no_final",
    "no_search",
    "json",
    "quota_stream",
    "quota_429",
    "rate_limit_429",
    "bad_request_400",
    "server_500",
)
FAIL_AFTER_TOKENS = 12
QUOTA_MESSAGE = (
    "You exceeded your current quota, please check your plan and billing details. For more information on this "
    "error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
)
_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 429: "rate_limit_exceeded"}
_CODES = {401: "invalid_api_key", 429: "rate_limit_exceeded"}
_FAILURES = {
    "quota_429": (429, QUOTA_MESSAGE, "insufficient_quota", "insufficient_quota"),
    "rate_limit_429": (429, "Rate limit reached for gpt-5-mini. Please try again in 20ms.", None, None),
    "bad_request_400": (400, "Web search options not supported with this model.", "invalid_request_error", None),
    "server_500": (500, "The server had an error while processing your request.", "server_error", None),
}
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.openai]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_body(message: str, status: int, kind: str | None = None, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error body ``{"error": {"message", "type", "param", "code"}}``."""
    kind = kind or _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code or _CODES.get(status)}}


def error_response(status: int, message: str) -> FakeResponse:
    """The OpenAI error response at ``status``."""
    return FakeResponse(status, body=error_body(message, status))


# --------------------------------------------------------------------------- the shared dialect


def answer_data(query: str) -> dict[str, Any]:
    """A fresh copy of ``data/openai_answer.json`` with ``{query}`` filled in."""
    return load_data("openai_answer.json", query)


def _links(text: str, sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``url_citation`` annotations for the markdown links of ``text`` (span = the ``([..](..))`` link)."""
    titles = {s["url"]: s["title"] for s in sources}
    found = []
    for match in _LINK.finditer(text):
        start = match.start() - 1 if match.start() > 0 and text[match.start() - 1] == "(" else match.start()
        end = match.end() + 1 if text[match.end() : match.end() + 1] == ")" else match.end()
        url = match.group(2)
        found.append(
            {"type": "url_citation", "start_index": start, "end_index": end, "title": titles.get(url, url), "url": url}
        )
    return found


def _annotation(link: dict[str, Any], dialect: str) -> dict[str, Any]:
    if dialect == "xai":
        return {"type": "url_citation", "url": link["url"]}
    if dialect == "ark":
        return {"type": "url_citation", "url": link["url"], "title": link["title"]}
    return {**link, "url": f"{link['url']}?utm_source=openai"}


def _search_item(data: dict[str, Any], dialect: str, *, status: str = "completed") -> dict[str, Any]:
    if dialect == "xai":
        arguments = json.dumps({"query": data["query"], "num_results": 5})
        return {
            "arguments": arguments,
            "call_id": "",
            "name": "web_search",
            "type": "web_search_call",
            "id": f"fc_{data['id']}_0",
            "status": "completed",
        }
    if dialect == "ark":
        return {"type": "web_search_call", "id": "ws_fake_0001", "status": status}
    item: dict[str, Any] = {"id": "ws_fake_0001", "type": "web_search_call", "status": status}
    if status == "completed":
        sources = [{"type": "url", "url": s["url"]} for s in data["sources"]] + [{"type": "api", "name": "oai-weather"}]
        item["action"] = {"type": "search", "query": data["query"], "sources": sources}
    return item


def _message(text: str, annotations: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    part = {"type": "output_text", "annotations": annotations, "logprobs": [], "text": text}
    return {"id": "msg_fake_0001", "type": "message", "status": status, "role": "assistant", "content": [part]}


def _usage(data: dict[str, Any], dialect: str, searched: bool) -> dict[str, Any]:
    usage = dict(data["usage"])
    usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
    if dialect == "xai":
        usage.update(num_sources_used=0, num_server_side_tools_used=1 if searched else 0)
    return usage


def final_response(
    data: dict[str, Any],
    *,
    model: str,
    dialect: str = "openai",
    search: bool = True,
    annotations: bool = True,
    status: str = "completed",
    text: str | None = None,
) -> dict[str, Any]:
    """The complete response object (``response.completed``'s ``response``, or a JSON reply)."""
    text = "".join(data["answer_tokens"]) if text is None else text
    links = [_annotation(link, dialect) for link in _links(text, data["sources"])] if annotations else []
    output: list[dict[str, Any]] = (
        [{"id": "rs_fake_0001", "type": "reasoning", "summary": []}] if dialect == "openai" else []
    )
    if search:
        output.append(_search_item(data, dialect))
    output.append(_message(text, links))
    body: dict[str, Any] = {
        "id": data["id"],
        "object": "response",
        "created_at": 1767225600,
        "status": status,
        "error": None,
        "model": model,
        "output": output,
        "usage": _usage(data, dialect, search),
    }
    if dialect == "openai" and search:
        body["tool_usage"] = {"web_search": {"num_requests": 1}}
    if status == "incomplete":
        body["incomplete_details"] = {"reason": "max_output_tokens"}
    return body


def stream_events(
    data: dict[str, Any],
    *,
    model: str,
    dialect: str = "openai",
    search: bool = True,
    annotations: bool = True,
    final: bool = True,
    fail_after: int | None = None,
    failure: dict[str, Any] | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events of one streamed answer as ``(event name, payload)`` pairs.

    ``fail_after`` tokens are followed by an ``error`` event (``failure``, default a server error)
    and ``response.failed``; ``final=False`` drops ``response.completed``.
    """
    seq = iter(range(10_000))
    events: list[tuple[str, dict[str, Any]]] = []

    def add(kind: str, **fields: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": next(seq), **fields}))

    head = {
        "id": data["id"],
        "object": "response",
        "created_at": 1767225600,
        "status": "in_progress",
        "model": model,
        "output": [],
        "usage": None,
    }
    add("response.created", response=head)
    add("response.in_progress", response=head)
    index = 0
    if search:
        add("response.output_item.added", output_index=index, item=_search_item(data, dialect, status="in_progress"))
        if dialect != "xai":
            for phase in ("in_progress", "searching", "completed"):
                add(f"response.web_search_call.{phase}", output_index=index, item_id="ws_fake_0001")
        add("response.output_item.done", output_index=index, item=_search_item(data, dialect))
        index += 1
    add("response.output_item.added", output_index=index, item=_message("", [], "in_progress") | {"content": []})
    where = {"item_id": "msg_fake_0001", "output_index": index, "content_index": 0}
    add("response.content_part.added", **where, part={"type": "output_text", "annotations": [], "text": ""})
    text = "".join(data["answer_tokens"])
    links = _links(text, data["sources"]) if annotations else []
    pending = list(enumerate(links))
    written = 0
    for n, token in enumerate(data["answer_tokens"]):
        if fail_after is not None and n == fail_after:
            error = failure or {
                "type": "server_error",
                "code": "server_error",
                "message": "The server had an error while processing your request.",
                "param": None,
            }
            add("error", error=error)
            failed = {**head, "status": "failed", "error": {"code": error["code"], "message": error["message"]}}
            add("response.failed", response=failed)
            return events
        add("response.output_text.delta", **where, delta=token, logprobs=[])
        written += len(token)
        # OpenAI sends each annotation right after its link; xAI sends them all after the text
        while dialect != "xai" and pending and pending[0][1]["end_index"] <= written:
            i, link = pending.pop(0)
            add(
                "response.output_text.annotation.added",
                **where,
                annotation_index=i,
                annotation=_annotation(link, dialect),
            )
    for i, link in pending:
        add("response.output_text.annotation.added", **where, annotation_index=i, annotation=_annotation(link, dialect))
    done_annotations = [_annotation(link, dialect) for link in links]
    add("response.output_text.done", **where, text=text, logprobs=[])
    add(
        "response.content_part.done",
        **where,
        part={"type": "output_text", "annotations": done_annotations, "text": text},
    )
    add("response.output_item.done", output_index=index, item=_message(text, done_annotations))
    if final:
        add(
            "response.completed",
            response=final_response(data, model=model, dialect=dialect, search=search, annotations=annotations),
        )
    return events


def sse_reply(events: list[tuple[str, dict[str, Any]]], request: FakeRequest, variant: str = "default") -> FakeResponse:
    """The streamed reply: one event per chunk dripped by ``token_delay``; ``split`` cuts the body every
    7 bytes and inside every multi-byte character, ``crlf`` frames with ``\\r\\n``."""
    delay = request.server.token_delay if request.server else 0.0
    if variant == "split":
        data = sse(events)
        return _chunked(split_at(data, sse_cut_offsets(data)), delay)
    return sse_response(events, crlf=variant == "crlf", chunk_delay=delay)


def _chunked(chunks: list[bytes], delay: float) -> FakeResponse:
    headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    return FakeResponse(200, headers, chunks=chunks, chunked=True, chunk_delay=max(delay, 0.001))


def validate(body: Any, *, tools: tuple[str, ...] = ("web_search",)) -> str | None:
    """The real API's most visible checks on a Responses body; ``None`` when it is acceptable."""
    if not isinstance(body, dict):
        return "We could not parse the JSON body of your request."
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "Missing required parameter: 'model'."
    if not body.get("input"):
        return "Missing required parameter: 'input'."
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict) or tool.get("type") not in tools:
            return f"Invalid value for 'tools[].type': {tool!r}."
    if "search_parameters" in body:
        return "Unrecognized request argument supplied: search_parameters"
    return None


def request_json(request: FakeRequest) -> Any:
    """The JSON body, or ``None`` when it is not JSON."""
    try:
        return request.json()
    except ValueError:
        return None


def query_of(body: dict[str, Any]) -> str:
    text = json.dumps(body.get("input"))
    match = re.search(r"Question: (.*?)(?:\"|\\n)", text)
    return match.group(1) if match else "python"


# --------------------------------------------------------------------------- the OpenAI route


def responses(variant: str = "default") -> Any:
    """The ``POST /openai/v1/responses`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        if request.bearer() != KEY:
            return FakeResponse(401, body=error_body("Incorrect API key provided.", 401))
        body = request_json(request)
        problem = validate(body)
        if problem:
            return FakeResponse(400, body=error_body(problem, 400))
        if variant in _FAILURES:
            status, message, kind, code = _FAILURES[variant]
            return FakeResponse(status, body=error_body(message, status, kind, code))
        data = answer_data(query_of(body))
        model = "gpt-5-mini-2025-08-07" if body["model"] == "gpt-5-mini" else body["model"]
        search = variant != "no_search"
        if not body.get("stream") or variant == "json":
            return FakeResponse(
                200, {"x-request-id": "req_fake_openai"}, final_response(data, model=model, search=search)
            )
        quota = {"type": "insufficient_quota", "code": "insufficient_quota", "message": QUOTA_MESSAGE, "param": None}
        events = stream_events(
            data,
            model=model,
            search=search,
            final=variant != "no_final",
            fail_after=FAIL_AFTER_TOKENS if variant == "fail_midway" else 0 if variant == "quota_stream" else None,
            failure=quota if variant == "quota_stream" else None,
        )
        return sse_reply(events, request, variant)

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: responses()}


def variant_routes(variant: str, **options: Any) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown openai variant {variant!r}")
    return {SEARCH_ROUTE: responses(variant)}
