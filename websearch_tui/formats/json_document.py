"""The JSON document of a search as text (``search --format json``) and its JSON Schema (the MCP
tools' output schema). The document itself is :meth:`SearchResult.to_dict
<websearch_tui.core.results.SearchResult.to_dict>`, so the Python API returns it too."""

from __future__ import annotations

import json
from typing import Any

from websearch_tui.core.checks import Verdict
from websearch_tui.core.models import MODES
from websearch_tui.core.results import RunStatus, SearchResult


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null``, in the short form (``"type": ["string", "null"]``)."""
    return {**schema, "type": [schema["type"], "null"]}


_STRING = {"type": "string"}
_COUNT = {"type": "integer", "minimum": 0}
# every shape is written out where it is used (each object is used once): no "$ref" to resolve for each
# of the hundreds of fields a document holds (an SDK client validates every result against this), and
# shorter than named definitions
_NULLABLE_STRING = _nullable(_STRING)
_NULLABLE_COUNT = _nullable(_COUNT)
_STRINGS = {"type": "array", "items": _STRING}
_DATE = {"type": ["string", "null"], "format": "date-time"}
_USD = {"type": "number"}
_SOURCE = {
    "type": "object",
    "properties": {
        "url": _STRING,
        "title": _STRING,
        "snippet": _NULLABLE_STRING,
        "published_date": _DATE,
        "age_seconds": _NULLABLE_COUNT,
        "author": _NULLABLE_STRING,
        "published_text": _NULLABLE_STRING,
    },
}
_CITATION = {
    "type": "object",
    "properties": {
        "url": _STRING,
        "title": _STRING,
        "cited_text": _NULLABLE_STRING,
        # verdict, passage, reason, final_url, retrieved_at, content_sha256 (CitationCheck.to_dict);
        # only the verdict is spelled out, to keep the tool list small
        "check": {"type": ["object", "null"], "properties": {"verdict": {"enum": [v.value for v in Verdict]}}},
    },
}
_RESPONSE = {
    "type": ["object", "null"],
    "properties": {
        "provider": _STRING,
        "answer": _NULLABLE_STRING,
        "sources": {"type": "array", "items": _SOURCE},
        "citations": {"type": "array", "items": _CITATION},
        "related_questions": _STRINGS,
        "search_queries": _STRINGS,
        "usage": {
            "type": ["object", "null"],
            "properties": {
                **dict.fromkeys(("input_tokens", "output_tokens", "total_tokens", "search_requests"), _NULLABLE_COUNT),
                "cost_usd": {"type": ["number", "null"], "minimum": 0},
            },
        },
        **dict.fromkeys(("model", "request_id", "auth_mode"), _NULLABLE_STRING),
        "notes": _STRINGS,
        "elapsed_ms": _NULLABLE_COUNT,
        "first_event_ms": _NULLABLE_COUNT,
        "dropped_sources": _COUNT,
    },
}
_OUTCOME = {
    "type": "object",
    "required": ["provider", "status", "elapsed_ms", "response", "error"],
    "properties": {
        "provider": _STRING,
        "status": {"enum": [status.value for status in RunStatus]},
        "elapsed_ms": _COUNT,
        "first_event_ms": _NULLABLE_COUNT,
        "response": _RESPONSE,
        "error": {
            "type": ["object", "null"],
            "properties": {"kind": _STRING, "message": _STRING, "status": {"type": ["integer", "null"]}},
        },
        # kept short for the tool list: basis is reported, estimated, keyless, cached or unknown
        # (Cost.to_dict); cached is {"age_seconds", "search_id"} (CachedFrom.to_dict)
        "cost": {"type": ["object", "null"], "properties": {"usd": _USD, "basis": _STRING}},
        "cached": {"type": ["object", "null"]},
    },
}
_MERGED = {
    "type": "object",
    "properties": {
        "url": _STRING,
        "link": _STRING,
        "title": _STRING,
        "snippet": _NULLABLE_STRING,
        "published_date": _DATE,
        "published_text": _NULLABLE_STRING,
        "providers": _STRINGS,
        "indexes": _COUNT,
        "ranks": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
        "cited_by": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 1}},
        },
        "score": {"type": "number", "minimum": 0},
    },
}
JSON_DOCUMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["query", "mode", "max_results", "results", "merged"],
    "properties": {
        "query": _STRING,
        "created_at": _DATE,
        "mode": {"enum": list(MODES)},
        "max_results": {"type": "integer", "minimum": 1},
        "recency": _NULLABLE_STRING,
        "results": {"type": "array", "items": _OUTCOME},
        "merged": {"type": "array", "items": _MERGED},
        "winner": _NULLABLE_STRING,
        "cost_usd": _USD,
        "error": {"type": "object", "required": ["message"], "properties": {"message": _STRING}},
    },
}
"""JSON Schema (2020-12) of :meth:`SearchResult.to_dict <websearch_tui.core.results.SearchResult.to_dict>`: what
``search --format json`` prints and the MCP
``web_search`` tool's structured content. Each object is written out where it is used (no ``$ref``:
an MCP client validates every result against it, and resolving a reference per field tripled that
cost), with its fields' types only (no prose, no per-object ``required``): the MCP tool list is sent
to an agent on every turn, so it stays small. A field added to the document is added here too (the tests
validate real documents against it); objects stay open to new fields. Dates (``created_at``,
``published_date``) are ISO 8601 UTC; money (``cost_usd``, a result's ``cost.usd``) is US dollars."""


def to_json(result: SearchResult) -> str:
    """:meth:`SearchResult.to_dict` as the CLI prints it: indented, non-ASCII text as it is."""
    return json.dumps(result.to_dict(), ensure_ascii=False, indent=2)
