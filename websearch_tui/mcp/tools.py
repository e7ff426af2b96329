"""The MCP tools: their definitions, JSON Schemas (2020-12), argument checks and bodies, over one
:class:`~websearch_tui.session.Session` (:mod:`websearch_tui.mcp.server` serves them).

Tools (:meth:`SearchTools.registry` lists them; a new tool is one :class:`ToolDef` there):

- ``web_search(query, providers?, mode?, recency?, max_results?, grok_search_mode?, verify?, fresh?)``:
  runs the session's search (``verify``: then checks every citation against its page, the verdicts in
  each citation's ``check``; ``grok_search_mode``, as the seed agent-web-search takes it:
  ``web_search``, ``x_search`` or ``both``, aliases ``web`` and ``x``, sets the Grok provider's
  ``search_mode`` for this call only, through the engine's per-search provider options). The text content
  is the LLM text format and the structured content the ``search --format json`` document, exactly as
  the CLI prints them (output schema :data:`SEARCH_OUTPUT_SCHEMA`: the document's schema in outline).
  A progress notification follows each provider that finishes (``"3/6 done: Brave Search failed"``)
  and each one held back by pacing (``"0/3 done: waiting 0.8 s: Exa allows one search per second"``);
  a client cancel cancels the search and its connections. A provider that answered the same question
  within the cache's time to live is not asked again (its result is reused, marked ``cached``);
  ``fresh=true`` asks every provider again. Bad arguments, a search in which no provider returned
  content, and a search that would pass a ``[budget]`` (nothing is sent; the text names the budget,
  the spend so far and the estimate) are tool errors (``isError``).
  The description names the providers that are ready, by id, and stays short (the tool list goes to
  the agent on every turn: :data:`TOOL_LIST_BUDGET`).
- ``list_providers()``: every provider's id, label, kind, readiness (ready, keyless, needs key, needs
  URL, no login, disabled) and whether it is in the default selection.
- ``history_search(text, limit?)``: full-text search of the searches kept in the history (queries,
  answers, source titles, snippets and URLs), best match first; each entry's id, query, time, mode
  and outcome counts.
- ``history_show(id)``: one stored search, offline, exactly as ``web_search`` returned it (LLM text
  and the JSON document; its output schema only points at ``web_search``'s, rather than repeat it).
  Both are tool errors while the history is off (``[history] enabled``).
- ``fetch_page(url, start?, max_chars?)``: one page read by the session's reader (the SSRF guard and
  ``[reader]`` limits), its main text as Markdown, in parts of ``max_chars`` characters (default
  20,000): the text content is the page's title, byline and URL, the part, and where it is; the
  structured content the page's fields (``fetch --format json``) with the part as ``text``, plus
  ``start``, ``next_start`` (``null`` after the last part) and ``total_chars``. Paging reads the page
  once (:class:`~websearch_tui.mcp.pages.RecentPages`); pages are read through
  :meth:`Session.read_page <websearch_tui.session.Session.read_page>`, so a page the history keeps,
  younger than ``[reader] max_age``, is not fetched again. A page that cannot be read is a tool error
  that starts with its reason (``blocked: ...``, ``http_status: ...``).

Bad input and unexpected failures are tool errors (``isError``), never exceptions; a client cancel
propagates. This module imports the SDK's types; only the server imports it.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
from mcp import types

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import redact
from websearch_tui.core.models import MAX_QUERY_CHARS, MAX_RESULTS_LIMIT, MODES, RECENCIES, RequestError
from websearch_tui.core.results import ProviderUpdate
from websearch_tui.core.specs import KIND_LABELS, READINESS, USABLE_READINESS
from websearch_tui.engine.requests import build_request
from websearch_tui.formats.json_document import JSON_DOCUMENT_SCHEMA
from websearch_tui.formats.llm import to_llm_document
from websearch_tui.history import HistoryError
from websearch_tui.history.index import MAX_TERMS, match_expression, terms_left_out
from websearch_tui.mcp.pages import (
    FETCH_PAGE_DESCRIPTION,
    FETCH_PAGE_SCHEMA,
    ArgumentError,
    PagePart,
    PageRequest,
    RecentPages,
)
from websearch_tui.session import LiveSearch, Session

log = logging.getLogger(__name__)

TOOL_LIST_BUDGET = 5632
"""The most bytes (5.5 KB) the ``tools/list`` tools may take as compact JSON with every provider ready:
an agent is sent them on every turn. 6,486 bytes on 2026-12-02, down from 12,839 (descriptions cut,
the document schema's parts shared through ``$defs``, ``history_show`` naming that schema instead of
repeating it); 6,678 with ``web_search``'s ``verify`` and the citations' ``check``; 7,237 with
``fetch_page`` (558 bytes: no output schema, its fields are ``fetch --format json``'s); 7,412 with 34
providers and the search index; 7,232 with the document schema written out instead of through
``$defs`` (a client validating a result resolved a reference per field: 13 ms, now 5); 7,371 with the
results' cost and cached fields and ``web_search``'s ``fresh`` (four argument descriptions cut to
fit); 5,434 with ``web_search``'s output schema in outline (:data:`SEARCH_OUTPUT_SCHEMA`), when the
budget came down from 7,424 to this; the tests hold it under this."""

Progress = Callable[[float, float | None, str | None], Awaitable[None]]
"""``progress(done, total, message)``: sends one progress notification for the current tool call."""
ToolRun = Callable[[Mapping[str, Any], Progress], Awaitable[types.CallToolResult]]
"""A tool's handler: ``(arguments, progress) -> result``; never raises for bad input (a tool error)."""


@dataclass(frozen=True)
class ToolDef:
    """One MCP tool: its name, title, description (computed from the providers' readiness, id ->
    word, each time tools are listed), JSON Schemas (2020-12) and handler."""

    name: str
    title: str
    describe: Callable[[Mapping[str, str]], str]
    input_schema: Mapping[str, Any]
    run: ToolRun
    output_schema: Mapping[str, Any] | None = None
    annotations: types.ToolAnnotations | None = None

    def listing(self, readiness: Mapping[str, str]) -> types.Tool:
        """The ``tools/list`` entry."""
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.describe(readiness),
            input_schema=dict(self.input_schema),
            output_schema=dict(self.output_schema) if self.output_schema is not None else None,
            annotations=self.annotations,
        )


GROK_SEARCH_MODES: dict[str, str] = {"web_search": "web", "x_search": "x", "both": "both", "web": "web", "x": "x"}
"""``web_search``'s ``grok_search_mode`` values (the seed's three, then two aliases) -> the Grok
provider's ``search_mode`` option."""
REQUEST_ARGUMENTS = ("query", "providers", "mode", "recency", "max_results")
"""The ``web_search`` arguments that make the :class:`SearchRequest` (the rest are provider options)."""

SEARCH_ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_QUERY_CHARS,
            "description": "Question or keywords, sent verbatim.",
        },
        "providers": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Ids (list_providers); default: configured.",
        },
        "mode": {
            "type": "string",
            "enum": list(MODES),
            "description": "compare (default): all at once; auto: until one answers.",
        },
        "recency": {
            "type": "string",
            "enum": list(RECENCIES),
            "description": "Only material from the past day, week, month or year.",
        },
        "max_results": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS_LIMIT,
            "description": "Sources per provider.",
        },
        "grok_search_mode": {
            "type": "string",
            "enum": list(GROK_SEARCH_MODES),
            "description": "grok only: web pages, X posts or both.",
        },
        "verify": {"type": "boolean", "description": "Check citations against their pages."},
        "fresh": {"type": "boolean", "description": "Skip the cache."},
    },
    "required": ["query"],
    "additionalProperties": False,
}
OUTLINED_RESPONSE_FIELDS = ("answer", "sources", "citations")
"""The fields of a result's ``response`` that :data:`SEARCH_OUTPUT_SCHEMA` names (the rest are left open)."""


def outline_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` (the document's, :data:`~websearch_tui.formats.json_document.JSON_DOCUMENT_SCHEMA`) in
    outline, as ``web_search`` declares it: the document's own fields and each result's as they are; each
    result's ``response`` with only :data:`OUTLINED_RESPONSE_FIELDS` (``sources`` and ``citations`` as
    arrays, their items not described); each ``merged`` row an object. It accepts every document
    ``schema`` accepts (the rest of each object stays open).

    Why: an MCP client checks every result against the declared schema (the SDK's
    ``validate_tool_result``, jsonschema in Python, on the agent's side), and the items of the sources,
    citations and merged rows were most of that check: 2.2 -> 0.5 ms for a three-provider result; the
    tool list, sent to the agent on every turn, is 1.8 KB shorter. The document is unchanged."""
    properties = dict(schema["properties"])
    results = properties["results"]
    outcome = results["items"]
    response = outcome["properties"]["response"]
    named = {
        name: {key: value for key, value in response["properties"][name].items() if key != "items"}
        for name in OUTLINED_RESPONSE_FIELDS
    }
    outlined = {**outcome, "properties": {**outcome["properties"], "response": {**response, "properties": named}}}
    properties["results"] = {**results, "items": outlined}
    properties["merged"] = {**properties["merged"], "items": {"type": "object"}}
    return {**schema, "properties": properties}


SEARCH_OUTPUT_SCHEMA: dict[str, Any] = outline_schema(JSON_DOCUMENT_SCHEMA)
"""``web_search``'s output schema: :func:`outline_schema` of the document's."""
HISTORY_LIMIT = 10
"""Entries ``history_search`` returns when no ``limit`` is given (at most :data:`MAX_HISTORY_LIMIT`)."""
MAX_HISTORY_LIMIT = 100
"""The most entries one ``history_search`` call may ask for."""
HISTORY_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_QUERY_CHARS,
            "description": "Words that must all match.",
        },
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_HISTORY_LIMIT},
    },
    "required": ["text"],
    "additionalProperties": False,
}
HISTORY_SHOW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "integer", "minimum": 1, "description": "The id from history_search."}},
    "required": ["id"],
    "additionalProperties": False,
}
HISTORY_ENTRIES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["entries"],
    "properties": {
        "entries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "minimum": 1},
                    "query": {"type": "string"},
                    "created_at": {"type": "string", "format": "date-time"},
                    "mode": {"enum": list(MODES)},
                    "recency": {"type": ["string", "null"]},
                    "max_results": {"type": "integer"},
                    "providers": {"type": "array", "items": {"type": "string"}},
                    "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
                },
            },
        }
    },
}
HISTORY_SHOW_OUTPUT_SCHEMA: dict[str, Any] = {"type": "object", "description": "web_search's document"}
"""``history_show``'s output schema: the document :data:`~websearch_tui.formats.json_document.JSON_DOCUMENT_SCHEMA`
describes, named rather than repeated (4 KB an agent would be sent on every turn)."""
PROVIDERS_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["providers"],
    "properties": {
        "providers": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "label", "kind", "index", "readiness", "default"],
                "properties": {
                    "id": {"type": "string"},
                    "label": {"type": "string"},
                    "kind": {"enum": list(KIND_LABELS.values())},
                    "index": {"type": "string"},
                    "readiness": {"enum": list(READINESS)},
                    "default": {"type": "boolean"},
                },
            },
        }
    },
}


class SearchTools:
    """The tools of one server process over one session: listing them and running a call.

    Args:
        session: the application every call goes through (its config for readiness and requests,
            its engine, its history); :meth:`aclose` closes it.
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self.config = session.config
        self.pages = RecentPages(session.config.reader.max_age)
        self.tools = {tool.name: tool for tool in self.registry()}

    def registry(self) -> tuple[ToolDef, ...]:
        """Every tool this server offers, in listing order (a new tool is one more entry)."""
        return (
            ToolDef(
                name="web_search",
                title="Web search (many providers)",
                describe=self._search_description,
                input_schema=SEARCH_ARGUMENTS_SCHEMA,
                output_schema=SEARCH_OUTPUT_SCHEMA,
                run=self.web_search,
                annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=True),
            ),
            ToolDef(
                name="list_providers",
                title="List search providers",
                describe=lambda readiness: "Every search provider: id, label, kind, readiness, default.",
                input_schema={"type": "object", "properties": {}, "additionalProperties": False},
                output_schema=PROVIDERS_OUTPUT_SCHEMA,
                run=self.list_providers,
                annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
            ),
            ToolDef(
                name="history_search",
                title="Search earlier searches",
                describe=lambda readiness: "Full-text search of earlier searches, best match first; see history_show.",
                input_schema=HISTORY_SEARCH_SCHEMA,
                output_schema=HISTORY_ENTRIES_SCHEMA,
                run=self.history_search,
                annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
            ),
            ToolDef(
                name="history_show",
                title="Show an earlier search",
                describe=lambda readiness: "An earlier search, offline, as web_search returned it.",
                input_schema=HISTORY_SHOW_SCHEMA,
                output_schema=HISTORY_SHOW_OUTPUT_SCHEMA,
                run=self.history_show,
                annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
            ),
            ToolDef(
                name="fetch_page",
                title="Read a web page",
                describe=lambda readiness: FETCH_PAGE_DESCRIPTION,
                input_schema=FETCH_PAGE_SCHEMA,
                run=self.fetch_page,
                annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=True),
            ),
        )

    async def listing(self) -> list[types.Tool]:
        """The ``tools/list`` entries, described with the providers' readiness as it is now."""
        readiness = await asyncio.to_thread(self.readiness)
        return [tool.listing(readiness) for tool in self.tools.values()]

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        """The input schema of tool ``name`` (``None`` for an unknown tool)."""
        tool = self.tools.get(name)
        return tool.input_schema if tool is not None else None

    async def call(self, name: str, arguments: Mapping[str, Any], progress: Progress) -> types.CallToolResult:
        """Run tool ``name``. Unknown tools and unexpected failures are tool errors, never exceptions
        (the message names the exception class, redacted); a cancel propagates.

        Raises:
            asyncio.CancelledError: the client cancelled the call.
        """
        tool = self.tools.get(name)
        if tool is None:
            return tool_error(f"unknown tool {name!r}; tools: {', '.join(self.tools)}")
        try:
            return await tool.run(arguments, progress)
        except Exception as exc:  # a bug in a tool must never take the server down
            log.exception("tool %s failed", name)
            return tool_error(redact(f"{name} failed unexpectedly: {type(exc).__name__}: {exc}"))

    def readiness(self) -> dict[str, str]:
        """Provider id -> readiness word (:data:`~websearch_tui.core.specs.READINESS`, the session's);
        blocking (it looks keys up through the session's key store, so a locked keyring prompts
        once for the server, not per call)."""
        return self.session.readiness()

    def _search_description(self, readiness: Mapping[str, str]) -> str:
        """``web_search``'s description: what it returns and the ids of the providers ready now."""
        ready = [pid for pid, word in readiness.items() if word in USABLE_READINESS]
        start = (
            "Search the web with several providers at once: answers, sources, citations. "
            "Text: LLM format per provider; structured: the search --format json document. Ready: "
        )
        return start + _named_within(ready, MAX_DESCRIPTION_CHARS - len(start))

    async def web_search(self, arguments: Mapping[str, Any], progress: Progress) -> types.CallToolResult:
        """The ``web_search`` tool: a tool error for bad arguments or when no provider returned content,
        else the LLM text and the JSON document.

        Raises:
            asyncio.CancelledError: the client cancelled (every provider run was cancelled first).
        """
        try:
            request = build_request(self.config, **search_arguments(arguments))
            options = provider_options(arguments)
            verify = flag_argument(arguments, "verify")
            fresh = flag_argument(arguments, "fresh")
        except RequestError as exc:
            return tool_error(str(exc))
        overrun = await self.session.budget_check(request, fresh=fresh, options=options or None)
        if overrun is not None:
            return tool_error(f"Error: {overrun.message(override=None)}")
        live = self.session.begin(request, remember=False, fresh=fresh)
        result = live.result
        gate = ProgressGate(progress)
        try:
            await _finish_cancelled(self._search_with_progress(live, gate, options, verify=verify), gate.close)
        except asyncio.CancelledError:
            log.info("web_search cancelled by the client: %s", result.summary().text())
            raise
        document = result.to_dict()
        if not result.ok:
            error = result.summary().error or "No provider returned results."
            return tool_error(f"Error: {error}", structured=document)
        text = types.TextContent(type="text", text=to_llm_document(result))
        return types.CallToolResult(content=[text], structured_content=document)

    async def _search_with_progress(
        self,
        live: LiveSearch,
        progress: Progress,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        verify: bool = False,
    ) -> None:
        """Run the session's ``live`` search (with the call's provider ``options``; with ``verify``
        its citations are checked after), reporting each provider that finishes through ``progress``
        (in order, from one task, so a slow client never holds a provider up)."""
        queue: asyncio.Queue[tuple[int, int, str] | None] = asyncio.Queue()
        reporter = asyncio.ensure_future(_report_progress(queue, progress))
        try:
            counter = FinishCounter(live, queue.put_nowait)
            await self.session.run(live, counter, options=options or None, verify=verify)
        except BaseException:  # cancelled: the client is not waiting for progress any more
            reporter.cancel()
            raise
        finally:
            queue.put_nowait(None)
            await asyncio.wait({reporter})

    async def list_providers(self, arguments: Mapping[str, Any], progress: Progress) -> types.CallToolResult:
        """The ``list_providers`` tool: a table as text, the rows as structured content."""
        if arguments:
            return tool_error(f"list_providers takes no arguments (got {', '.join(map(repr, arguments))})")
        readiness = await asyncio.to_thread(self.readiness)
        default = set(self.config.default_selection())
        rows = [
            {
                "id": pid,
                "label": spec.label,
                "kind": KIND_LABELS[spec.kind],
                "index": spec.index,
                "readiness": readiness[pid],
                "default": pid in default,
            }
            for pid, spec in SPECS.items()
        ]
        lines = [
            f"{row['id']}: {row['label']} ({row['kind']}; index: {row['index']}) {row['readiness']}"
            + (", default" if row["default"] else "")
            for row in rows
        ]
        text = types.TextContent(type="text", text="\n".join(lines))
        return types.CallToolResult(content=[text], structured_content={"providers": rows})

    async def history_search(self, arguments: Mapping[str, Any], progress: Progress) -> types.CallToolResult:
        """The ``history_search`` tool: the matching entries as lines of text and as structured rows."""
        unknown = sorted(set(arguments) - {"text", "limit"})
        text, limit = arguments.get("text"), arguments.get("limit", HISTORY_LIMIT)
        if unknown:
            return tool_error(f"history_search takes text and limit (got {', '.join(map(repr, unknown))})")
        if isinstance(text, str) and len(text) > MAX_QUERY_CHARS:
            return tool_error(f"text is {len(text)} characters; the limit is {MAX_QUERY_CHARS}")
        if not isinstance(text, str) or match_expression(text) is None:
            return tool_error("history_search needs text with at least one word or number")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_HISTORY_LIMIT:
            return tool_error(f"limit must be a whole number from 1 to {MAX_HISTORY_LIMIT}")
        try:
            entries = await asyncio.to_thread(self.session.history.search, text, limit=limit)
        except HistoryError as exc:
            return tool_error(self._with_notice(str(exc)))
        rows = [entry.to_dict() for entry in entries]
        lines = [
            f"{row['id']}: {row['query']} ({row['created_at']}, {row['mode']}; "
            + ", ".join(f"{count} {status}" for status, count in row["counts"].items() if count)
            + ")"
            for row in rows
        ]
        left_out = terms_left_out(text)
        note = f"\n(Only the first {MAX_TERMS} words were searched; {left_out} more were left out.)" if left_out else ""
        shown = self._with_notice(("\n".join(lines) or "No earlier search matches.") + note)
        content = types.TextContent(type="text", text=shown)
        return types.CallToolResult(content=[content], structured_content={"entries": rows})

    async def history_show(self, arguments: Mapping[str, Any], progress: Progress) -> types.CallToolResult:
        """The ``history_show`` tool: the stored search as ``web_search`` returned it."""
        entry_id = arguments.get("id")
        if set(arguments) != {"id"} or isinstance(entry_id, bool) or not isinstance(entry_id, int) or entry_id < 1:
            return tool_error("history_show takes one argument, id: a whole number from history_search")
        try:
            if not self.session.history.path.exists():
                return tool_error(f"no search with id {entry_id}: the history is empty")
            stored = await asyncio.to_thread(self.session.history.get, entry_id)
        except HistoryError as exc:
            return tool_error(str(exc))
        document = stored.result.to_dict()
        text = types.TextContent(type="text", text=self._with_notice(to_llm_document(stored.result) or "(no results)"))
        return types.CallToolResult(content=[text], structured_content=document)

    def _with_notice(self, text: str) -> str:
        """``text`` after what the history had to repair or set aside during the call (a rebuilt
        full-text index, a damaged file moved aside), if anything."""
        notice = self.session.history.take_notice()
        return f"Note: {notice}\n\n{text}" if notice else text

    async def fetch_page(self, arguments: Mapping[str, Any], progress: Progress) -> types.CallToolResult:
        """The ``fetch_page`` tool: one part of a page's text with the page's fields, or a tool error
        (bad arguments; a page that cannot be read, its reason first).

        Raises:
            asyncio.CancelledError: the client cancelled (the page's connection is closed).
        """
        from websearch_tui.core.pages import PageError
        from websearch_tui.formats.page import page_markdown

        try:
            request = PageRequest.of(arguments)
            page = self.pages.get(request.url) or await self.session.read_page(request.url)
            self.pages.put(request.url, page)
            part = PagePart.of(page.text, request.start, request.max_chars)
        except ArgumentError as exc:
            return tool_error(str(exc))
        except PageError as exc:
            return tool_error(exc.line)
        text = types.TextContent(type="text", text=f"{page_markdown(page, part.text)}\n{part.note()}")
        return types.CallToolResult(content=[text], structured_content=part.document(page))

    async def aclose(self) -> None:
        """Close the session: the engine's connections (writing what the history still holds), the page
        reader and the history file."""
        await self.session.aclose()


def search_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``web_search`` arguments as :func:`~websearch_tui.engine.requests.build_request` keywords
    (:data:`REQUEST_ARGUMENTS`: ``query``, ``providers``, ``mode``, ``recency``, ``max_results``);
    ``null`` means "not given". Ranges and choices are left to ``build_request``; provider options
    (``grok_search_mode``) to :func:`provider_options`.

    Raises:
        RequestError: an unknown argument (with a did-you-mean), a missing or non-string query, or
            providers that are not a list of strings.
    """
    known = SEARCH_ARGUMENTS_SCHEMA["properties"]
    for name in arguments:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; arguments: {', '.join(known)}"
            raise RequestError(f"unknown argument {name!r}{hint}")
    query = arguments.get("query")
    if not isinstance(query, str):
        raise RequestError("query is required and must be a string" if query is None else "query must be a string")
    providers = arguments.get("providers")
    if providers is not None and not (isinstance(providers, list) and all(isinstance(p, str) for p in providers)):
        raise RequestError('providers must be a list of provider ids, e.g. ["ddgs", "brave"]')
    return {name: arguments.get(name) for name in REQUEST_ARGUMENTS}


def flag_argument(arguments: Mapping[str, Any], name: str) -> bool:
    """``web_search``'s boolean argument ``name`` (``verify``, ``fresh``; default false).

    Raises:
        RequestError: the argument is not true, false or null.
    """
    value = arguments.get(name)
    if value is not None and not isinstance(value, bool):
        raise RequestError(f"{name} must be true or false")
    return bool(value)


def provider_options(arguments: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The provider options a ``web_search`` call sets for itself, as the engine's per-search
    ``options`` (provider id -> ``{option: value}``): ``grok_search_mode`` -> ``{"grok":
    {"search_mode": "web" | "x" | "both"}}`` (:data:`GROK_SEARCH_MODES`, case and spaces ignored);
    ``{}`` when none is given (``null`` means "not given").

    Raises:
        RequestError: a ``grok_search_mode`` that is not one of the values, naming them.
    """
    mode = arguments.get("grok_search_mode")
    if mode is None:
        return {}
    search_mode = GROK_SEARCH_MODES.get(mode.strip().lower()) if isinstance(mode, str) else None
    if search_mode is None:
        raise RequestError(f"grok_search_mode must be one of web_search, x_search, both (or web, x), not {mode!r}")
    return {"grok": {"search_mode": search_mode}}


MAX_DESCRIPTION_CHARS = 400
"""The longest tool description: an agent is sent the tool list on every turn."""


def _named_within(ids: Sequence[str], room: int) -> str:
    """``"a, b, c."`` (``"none."`` when empty), or as many of ``ids`` as fit in ``room`` characters
    followed by ``"and 12 more (list_providers)."``."""
    whole = f"{', '.join(ids) or 'none'}."
    if len(whole) <= room:
        return whole
    shown: list[str] = []
    for count, pid in enumerate(ids, 1):
        tail = f" and {len(ids) - count} more (list_providers)."
        if len(", ".join([*shown, pid])) + len(tail) > room:
            break
        shown.append(pid)
    return f"{', '.join(shown)} and {len(ids) - len(shown)} more (list_providers)."


class FinishCounter:
    """An ``on_update`` callback for the session's ``live`` search (which counts the providers whose
    run ended: :attr:`LiveSearch.done`) that passes ``(done, total, "3/6 done: Brave Search failed")``
    to ``report`` once per provider, and ``(done, total, "1/6 done: waiting 0.8 s: Exa allows one
    search per second")`` when a run waits for its pacing slot (:meth:`LiveSearch.pacing_notice`)."""

    def __init__(self, live: LiveSearch, report: Callable[[tuple[int, int, str]], None]) -> None:
        self._live = live
        self._report = report
        self._reported = 0

    def __call__(self, update: ProviderUpdate) -> None:
        done, result = len(self._live.done), self._live.result
        total, label = len(result.providers), result.label(update.provider)
        if update.paced is not None:
            self._report(
                (done, total, f"{done}/{total} done: {self._live.pacing_notice(update.provider, update.paced)}")
            )
            return
        if not update.final or done == self._reported:
            return
        self._reported = done
        self._report((done, total, f"{done}/{total} done: {label} {update.status.value}"))


async def _report_progress(queue: asyncio.Queue[tuple[int, int, str] | None], progress: Progress) -> None:
    """Send each queued ``(done, total, message)`` until ``None``; a failed send is logged and the
    rest still drain (the client may be gone)."""
    while (item := await queue.get()) is not None:
        done, total, message = item
        try:
            await progress(done, total, message)
        except Exception:
            log.debug("progress notification not sent", exc_info=True)


class ProgressGate:
    """A :data:`Progress` that passes notifications on to ``progress`` until :meth:`close` (the call
    was cancelled: its progress token is dead, and the runs ending as cancelled must not report)."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._open = True

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        if self._open:
            await self._progress(done, total, message)

    def close(self) -> None:
        """Send nothing more."""
        self._open = False


async def _finish_cancelled(work: Awaitable[None], on_cancel: Callable[[], None]) -> None:
    """Await ``work`` in its own task; when the caller is cancelled, call ``on_cancel``, cancel the
    work and wait until it has ended (every provider run cancelled, its connections closed) before
    the cancel propagates.

    Raises:
        asyncio.CancelledError: the caller was cancelled.
    """
    task = asyncio.ensure_future(work)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        on_cancel()
        task.cancel()
        with anyio.CancelScope(shield=True):  # the SDK's cancel scope would interrupt this wait
            await asyncio.wait({task})
        raise


def tool_error(message: str, *, structured: dict[str, Any] | None = None) -> types.CallToolResult:
    """A tool error result (``isError``) whose text is ``message``."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], structured_content=structured, is_error=True
    )
