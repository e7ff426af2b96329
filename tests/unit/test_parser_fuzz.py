"""Property tests: every provider's parsing survives random and mutated upstream payloads.

Each provider's real ``stream()`` runs against an ``httpx.MockTransport`` (no sockets) that answers
every request in-process with the loopback fake's own route handlers (``tests/fake_providers``),
so MCP handshakes, redirects and continuations are answered realistically; Hypothesis then mutates
the bodies those handlers produce (JSON, SSE events, MCP JSON-RPC messages, JSON embedded in
strings, HTML text; also at the byte level: cut short, nested 100,000 deep, BOM, invalid UTF-8) and
the MCP session id header, or replaces the bodies with random JSON. When ``../shared/fixtures/providers`` is
present, real public payloads seed the provider's first answer instead of the fake's.

Property: nothing but :class:`ProviderError` escapes ``stream()``, and everything the reduced
response holds (sources, citations, answer, questions, notes, metadata) is clean text: sources and
citations have absolute http(s) URLs, and no text carries control characters or terminal escapes.

The pure helpers (``core.text`` and ``providers._parse``) and DuckDuckGo's HTML and library-row
parsers are fuzzed directly.

Settings: profile ``ci`` (default) is deterministic (``derandomize=True``, no example database);
``WEBSEARCH_FUZZ_PROFILE=explore`` draws fresh random examples, ten times as many.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import math
import os
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from unittest import mock

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fake_providers import FAKE_KEYS, OPTIONAL_FAKE_KEYS, FakeRequest, FakeResponse
from tests.fake_providers.routes import default_routes, plugins, variant_routes
from tests.helpers import find_fixture, no_wait, shared_fixture
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ProviderError
from websearch_tui.core.models import ResponseBuilder, SearchRequest, SearchResponse
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.core.text import age_seconds, canonical_url, plain_text, safe_url, sanitize
from websearch_tui.providers import ddgs, load_stream
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers import parse

# --------------------------------------------------------------------------- settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("explore", settings.get_profile("ci"), derandomize=False)
PROFILE = os.environ.get("WEBSEARCH_FUZZ_PROFILE", "ci")
SCALE = 10 if PROFILE == "explore" else 1
EXAMPLES_PER_PROVIDER = 30 * SCALE
"""Mutated-payload examples per provider case (:data:`CASE_NAMES`: the 24 providers plus six
variants); the random-JSON property runs a quarter as many."""
EXAMPLES_PER_HELPER = 200 * SCALE
"""Examples per pure-helper property."""


def fuzz_settings(examples: int) -> settings:
    """The active profile with ``examples`` examples."""
    return settings(settings.get_profile(PROFILE), max_examples=examples)


# --------------------------------------------------------------------------- provider cases

BASE = "http://fuzz.test"
"""Host every provider is pointed at; the mock transport routes its paths to the fake's handlers."""
QUERY = "python asyncio tutorial"


@dataclass(frozen=True)
class Case:
    """One way to run a provider against the fake: its settings, credentials, environment and the
    fake's variant of its routes."""

    name: str
    provider: str
    settings: ProviderSettings
    credentials: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    fake_variant: str = "default"

    def routes(self) -> dict[tuple[str, str], Any]:
        """Fresh fake handlers for every route, the provider's own in :attr:`fake_variant`."""
        table = default_routes()
        if self.fake_variant != "default":
            table.update(variant_routes(self.provider, self.fake_variant))
        return table


def _core_table(provider: str) -> dict[str, Any]:
    table: dict[str, Any] = {"base_url": f"{BASE}/{provider}"}
    if provider in ("exa", "parallel"):
        table["mcp_url"] = f"{BASE}/{provider}/mcp"
    return table


def _key(provider: str, keys: dict[str, str]) -> dict[str, str]:
    spec = SPECS[provider]
    found = [keys[name] for name in spec.key_env_vars if name in keys]
    return {spec.credentials[0].name: found[0]} if found else {}


VARIANT_OPTIONS: dict[str, dict[str, Any]] = {
    "v0": {"api_version": "v0"},
    "continuation": {"continuation": True},
    "chat": {"api": "chat"},
}
"""Config options a case variant sets (``key`` sets the optional API key instead)."""


def make_case(name: str) -> Case:
    """The case ``name``: a provider id, or ``<id>+<variant>``: ``exa+key`` / ``parallel+key`` (REST
    with a key), ``kagi+v0`` (legacy API), ``perplexity+chat`` (Sonar chat completions),
    ``ark+continuation`` and ``anthropic+pause_turn`` (a second, continuing request, answered by
    the fake's variant of that name)."""
    provider, _, variant = name.partition("+")
    module = plugins().get(provider)
    table = {**(module.config(BASE) if module else _core_table(provider)), **VARIANT_OPTIONS.get(variant, {})}
    endpoints = {k: table.pop(k) for k in ("base_url", "mcp_url") if k in table}
    keys = {**FAKE_KEYS, **OPTIONAL_FAKE_KEYS} if variant == "key" else FAKE_KEYS
    return Case(
        name=name,
        provider=provider,
        settings=ProviderSettings(**endpoints, model="sonar-pro" if variant == "chat" else None, options=table),
        credentials=_key(provider, keys) if SPECS[provider].credentials else {},
        env=dict(module.FAKE_KEYS) if module and not SPECS[provider].credentials else {},
        fake_variant=variant if variant in getattr(module, "VARIANTS", ()) else "default",
    )


CASE_NAMES = [
    *SPECS,
    "exa+key",
    "parallel+key",
    "kagi+v0",
    "perplexity+chat",
    "ark+continuation",
    "anthropic+pause_turn",
]


# --------------------------------------------------------------------------- payload trees


class Embedded:
    """JSON text found inside a string (MCP ``content[].text``, double-encoded results): mutated as a
    tree, then encoded back into a string."""

    def __init__(self, value: Any) -> None:
        self.value = value


def explode(value: Any) -> Any:
    """``value`` with every string that holds a JSON object or array replaced by an :class:`Embedded`."""
    if isinstance(value, dict):
        return {k: explode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [explode(v) for v in value]
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "[", '"'):
        with contextlib.suppress(ValueError):
            inner = json.loads(value)
            if isinstance(inner, (dict, list)) or (isinstance(inner, str) and inner.lstrip()[:1] in ("{", "[")):
                return Embedded(explode(inner))
    return value


def implode(value: Any) -> Any:
    """The inverse of :func:`explode` (JSON encoded with ASCII escapes, so lone surrogates survive)."""
    if isinstance(value, Embedded):
        return json.dumps(implode(value.value))
    if isinstance(value, dict):
        return {k: implode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [implode(v) for v in value]
    return value


Slot = tuple[Any, Any]
"""A position in a tree: ``(container, key)``; the container is a dict, a list or an :class:`Embedded`."""


def slots(root_holder: list[Any]) -> list[Slot]:
    """Every position in the tree held in ``root_holder[0]``, the root first (depth-first order)."""
    found: list[Slot] = []
    stack: list[Slot] = [(root_holder, 0)]
    while stack:
        container, key = stack.pop()
        found.append((container, key))
        value = container.value if isinstance(container, Embedded) else container[key]
        if isinstance(value, dict):
            stack.extend((value, k) for k in reversed(list(value)))
        elif isinstance(value, list):
            stack.extend((value, i) for i in reversed(range(len(value))))
        elif isinstance(value, Embedded):
            stack.append((value, "value"))
    return found


EXTREME_NUMBERS: list[Any] = [
    0,
    -1,
    1,
    True,
    False,
    -(2**63),
    2**64,
    10**40,
    -(10**40),
    1e308,
    -1e308,
    5e-324,
    -0.0,
    0.5,
    float("inf"),
    float("-inf"),
    float("nan"),
]
NASTY_TEXTS = [
    "",
    " ",
    "N/A",
    "null",
    "\x1b[31mred\x1b[0m",
    "\x1b]8;;https://evil.example\x07link\x1b]8;;\x07",
    "\x1b]0;title",
    "[bold red]markup[/bold red] [link=https://evil.example]x[/link]",
    "\u202eevil\u202c \u2066iso\u2069",
    "\x00\x07\x08\x0b\x0c\r\x7f\x85\x9b31m\x9d0;t\x9c",
    "<b>bold</b> &amp; &lt;script&gt; <script>x</script> <!-- c --> Vec<T>",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "http://",
    "https://",
    "https://exa mple.com/a b",
    "https://[::1",
    "http://[bad",
    "https://example.com:99999/x",
    "//example.com/x",
    "/relative/path",
    "https://example.com/\x1b[2J",
    "https://xn--80ak6aa92e.com/\u202e",
    "2038-01-19T03:14:08Z",
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00:00+14:00",
    "Mon, 01 Jan 99999999999999999999 00:00:00 GMT",
    "99999999999999999999 days ago",
    "\ud800",
    "\ud83d\ude00\U0001f980 \u0301\u200b\ufeff",
    "\u00e9" * 3000,
    "\n\n\r\r\t",
    "{}",
    "[]",
    '{"a":',
    "data: x\n\nevent: y\n",
    "[DONE]",
    "[1] [2][3] [999999999999] [-1] [a]",
]


def json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    """Random JSON values, including nasty text and extreme numbers."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=40),
        st.sampled_from(NASTY_TEXTS),
        st.sampled_from(EXTREME_NUMBERS),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.text(max_size=12) | st.sampled_from(KEYS), inner, max_size=4),
        ),
        max_leaves=max_leaves,
    )


KEYS = ["url", "title", "content", "text", "results", "data", "type", "id", "error", "message", "choices", "delta"]
"""Keys that upstream payloads use; random dicts draw from them so junk reaches the parsers' lookups."""


def deep_nesting(depth: int, leaf: Any) -> Any:
    """``leaf`` nested ``depth`` levels deep in alternating lists and dicts."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"results": value}
    return value


def swapped(value: Any) -> list[Any]:
    """Values of other JSON types standing in for ``value`` (str <-> int <-> list <-> dict)."""
    if isinstance(value, bool):
        return [int(value), str(value).lower(), [value]]
    if isinstance(value, (int, float)):
        text = str(value) if math.isfinite(value) else "Infinity"
        return [text, [value], {"value": value}, not value]
    if isinstance(value, str):
        return [len(value), -len(value) - 0.5, [value], {"text": value}]
    if isinstance(value, list):
        return [value[0] if value else None, dict(enumerate(value)), json.dumps(implode(value)), len(value)]
    if isinstance(value, dict):
        return [list(value.values()), list(value), json.dumps(implode(value)), len(value)]
    if isinstance(value, Embedded):
        return [implode(value.value), value.value]
    return [0, "", [], {}]


OPERATIONS = ("drop", "null", "swap", "number", "text", "splice", "junk", "deep", "duplicate", "truncate")


def mutate_once(draw: Callable[..., Any], root_holder: list[Any], *, deep: bool = True) -> str:
    """Apply one drawn mutation at one drawn position of the tree in ``root_holder[0]``; returns the
    operation. Without ``deep`` a drawn ``"deep"`` nests nothing (one deep nesting per tree keeps the
    tree within the harness' own recursion limit; the wire mutations nest far deeper)."""
    positions = slots(root_holder)
    container, key = positions[draw(st.integers(0, len(positions) - 1), label="position")]
    operation = draw(st.sampled_from(OPERATIONS), label="operation")
    if operation == "deep" and not deep:
        operation = "null"
    current = container.value if isinstance(container, Embedded) else container[key]
    if operation == "drop" and isinstance(container, (dict, list)) and container is not root_holder:
        del container[key]
        return operation
    if operation in ("duplicate", "truncate") and isinstance(container, list) and container is not root_holder:
        if operation == "duplicate":
            container.insert(key, json.loads(json.dumps(implode(current))))
        else:
            del container[key:]
        return operation
    if operation == "swap":
        new = draw(st.sampled_from(swapped(current)), label="swapped")
    elif operation == "number":
        new = draw(st.sampled_from(EXTREME_NUMBERS) | st.integers(), label="number")
    elif operation == "text":
        new = draw(st.sampled_from(NASTY_TEXTS) | st.text(max_size=60), label="text")
    elif operation == "splice" and isinstance(current, str):
        at = draw(st.integers(0, len(current)), label="at")
        new = current[:at] + draw(st.sampled_from(NASTY_TEXTS) | st.text(max_size=20), label="inserted") + current[at:]
    elif operation == "deep":
        new = deep_nesting(draw(st.sampled_from([3, 30, 150]), label="depth"), current)
    else:
        new = None if operation in ("null", "drop") else draw(json_values(), label="junk")
    if isinstance(container, Embedded):
        container.value = new
    else:
        container[key] = new
    return operation


def mutate(draw: Callable[..., Any], tree: Any) -> Any:
    """``tree`` after a drawn number (0-5) of mutations; shrinking goes towards the unmutated tree."""
    holder = [explode(tree)]
    done: list[str] = []
    for _ in range(draw(st.integers(0, 5), label="mutations")):
        done.append(mutate_once(draw, holder, deep="deep" not in done))
    return implode(holder[0])


DEEP_JSON = {"array": b"[" * 100_000 + b"]" * 100_000, "object": b'{"results":' * 50_000 + b"1" + b"}" * 50_000}
"""Bodies nested far deeper than any recursive parser (or ``json.loads``) can follow."""
WIRE_MUTATIONS = ("none", "truncate", "deep", "bom", "bad_utf8")


def mutate_wire(draw: Callable[..., Any], kind: str, raw: bytes) -> bytes:
    """Body bytes after one drawn byte-level change: cut short, replaced by (SSE: followed by an
    event of) deeply nested JSON, a UTF-8 BOM in front, or invalid UTF-8 inside."""
    operation = draw(st.sampled_from(WIRE_MUTATIONS), label="wire mutation")
    if operation == "truncate":
        return raw[: draw(st.integers(0, len(raw)), label="cut at")]
    if operation == "deep":
        deep = DEEP_JSON[draw(st.sampled_from(sorted(DEEP_JSON)), label="deep body")]
        return raw + b"data: " + deep + b"\n\n" if kind == "sse" else deep
    if operation == "bom":
        return b"\xef\xbb\xbf" + raw
    if operation == "bad_utf8":
        at = draw(st.integers(0, len(raw)), label="at")
        return raw[:at] + b"\xff\xc3(" + raw[at:]
    return raw


# --------------------------------------------------------------------------- bodies on the wire


def parse_sse(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body as ``{"event": name, "data": payload}`` (JSON data decoded)."""
    events = []
    for block in text.replace("\r\n", "\n").replace("\r", "\n").split("\n\n"):
        name, lines = None, []
        for line in block.split("\n"):
            field_name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field_name == "event":
                name = value
            elif field_name == "data":
                lines.append(value)
        if lines:
            data = "\n".join(lines)
            with contextlib.suppress(ValueError):
                data = json.loads(data)
            events.append({"event": name, "data": data})
    return events


def sse_body(events: Any) -> bytes:
    """An SSE body from (possibly mutated) ``parse_sse`` events; JSON data ASCII-escaped."""
    frames = []
    for item in events if isinstance(events, list) else [events]:
        name = item.get("event") if isinstance(item, dict) else None
        data = item.get("data") if isinstance(item, dict) else item
        text = data if isinstance(data, str) else json.dumps(data)
        lines = ([f"event: {name}"] if isinstance(name, str) and "\n" not in name else []) + [
            f"data: {line}" for line in text.replace("\r", "\n").split("\n")
        ]
        frames.append("\n".join(lines) + "\n\n")
    return "".join(frames).encode("utf-8", "surrogatepass")


def body_kind(content_type: str) -> str:
    """``"sse"``, ``"json"`` or ``"text"`` for a response content type."""
    lowered = content_type.lower()
    return "sse" if "event-stream" in lowered else "json" if "json" in lowered else "text"


def decode(kind: str, raw: bytes) -> Any:
    """A mutable tree for a body of ``kind`` (text bodies are one string)."""
    text = raw.decode("utf-8", "replace")
    if kind == "sse":
        return parse_sse(text)
    if kind == "json":
        with contextlib.suppress(ValueError):
            return json.loads(text)
    return text


def encode(kind: str, tree: Any) -> bytes:
    """Body bytes for a (mutated) tree of ``kind``."""
    if kind == "sse":
        return sse_body(tree)
    if kind == "json" or not isinstance(tree, str):
        return json.dumps(tree).encode("ascii")
    return tree.encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------- real fixtures as seeds

FIXTURE_SEEDS: dict[str, tuple[str, ...]] = {
    "brave": ("brave/web_search_hello_world.json", "brave/news_search_hello_world.json"),
    "tavily": ("tavily/search_basic.json", "tavily/search_bound_params.json"),
    "perplexity": ("perplexity/agent-web-search.chunks.jsonl", "perplexity/agent-web-search.json"),
    "perplexity+chat": (
        "perplexity/chat_citations.chunks.jsonl",
        "perplexity/chat_text.chunks.jsonl",
        "perplexity/chat_citations.json",
        "perplexity/chat_sonar_pro_reasoning_steps.json",
    ),
    "perplexity_search": ("perplexity/search_api.json",),
    "exa+key": ("exa/search_sdk_doc_example.json",),
    "parallel+key": ("parallel/search_sample_real.json", "parallel/search_v1beta_openapi_example.json"),
    "searxng": ("searxng/search_unresponsive_engines_count_zero.json",),
    "gemini": ("gemini/grounding_stream.sse", "gemini/grounding_generate.json"),
    "anthropic": (
        "anthropic/web_search_stream.sse",
        "anthropic/web_search_pause_turn_stream.sse",
        "anthropic/web_search_vercel.chunks.jsonl",
        "anthropic/web_search_nonstream_thinking.json",
    ),
    "deepseek": ("anthropic/web_search_vercel.json", "anthropic/web_search_pause_turn.json"),
    "openai": (
        "openai/responses_web_search_stream.sse",
        "openai/responses_web_search_vercel.chunks.jsonl",
        "openai/responses_web_search.json",
    ),
    "codex": ("openai/responses_web_search_stream.sse", "openai/responses_web_search_vercel.chunks.jsonl"),
    "grok": ("xai/responses_web_search.chunks.jsonl", "xai/responses_web_search.json"),
    "ark": ("openai/responses_web_search.json", "openai/responses_web_search_allowed_domains.json"),
    "kagi+v0": ("kagi/search_v0_steve_jobs.json",),
    "zhipu_chat_search": ("zai/chat_web_search_tool.json",),
}
"""Real public payloads (``../shared/fixtures/providers``) that may answer a case's first request."""


def fixture_seed(relative: str) -> tuple[str, bytes]:
    """``(content_type, body)`` to serve a shared fixture; ``*.chunks.jsonl`` become SSE events named
    after their ``type`` (as Anthropic and the Responses API name them)."""
    raw = shared_fixture(relative).read_bytes()
    if relative.endswith(".sse"):
        return "text/event-stream", raw
    if relative.endswith(".jsonl"):
        payloads = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
        events = [{"event": p.get("type") if isinstance(p, dict) else None, "data": p} for p in payloads]
        return "text/event-stream", sse_body(events)
    return "application/json", raw


def available_seeds(case: str) -> list[str]:
    """``"fake"`` plus the shared fixtures of ``case`` that exist on this machine."""
    return ["fake", *(name for name in FIXTURE_SEEDS.get(case, ()) if find_fixture(name) is not None)]


# --------------------------------------------------------------------------- the in-process fake


class InProcessFake:
    """An ``httpx.MockTransport`` handler serving the fake's route handlers, with drawn mutations.

    ``draw`` is Hypothesis' ``data.draw``; each response is mutated with probability chosen by the
    draws (shrinking goes towards "not mutated"): its body, and an MCP session id header (which the
    client sends back). ``seed`` (a shared fixture name) answers the first request instead of the
    fake; ``routes`` (default: :func:`default_routes`) are the fake's handlers.
    """

    def __init__(
        self,
        draw: Callable[..., Any],
        seed: str = "fake",
        random_json: bool = False,
        routes: dict[tuple[str, str], Any] | None = None,
    ) -> None:
        self.routes = routes or default_routes()
        self.draw = draw
        self.seed = seed
        self.random_json = random_json
        self.requests = 0

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        status, headers, content_type, raw = await self._answer(request)
        if self.draw(st.booleans(), label="mutate this response"):
            kind = body_kind(content_type)
            tree = self.draw(json_values(16), label="random body") if self.random_json else decode(kind, raw)
            raw = encode(kind, tree if self.random_json else mutate(self.draw, tree))
            raw = mutate_wire(self.draw, kind, raw)
        fields = [(k, v) for k, v in headers.items() if k.lower() not in ("content-length", "content-encoding")]
        fields = [(k, v) for k, v in fields if k.lower() != "content-type"]
        if any(k.lower() == "mcp-session-id" for k, _ in fields) and self.draw(st.booleans(), label="mutate session"):
            nasty = self.draw(st.sampled_from(NASTY_TEXTS), label="session id")
            fields = [(k, nasty if k.lower() == "mcp-session-id" else v) for k, v in fields]
        encoded = [(k.encode("latin-1"), v.encode("utf-8", "surrogatepass")) for k, v in fields]
        return httpx.Response(status, headers=[*encoded, (b"Content-Type", content_type.encode())], content=raw)

    async def _answer(self, request: httpx.Request) -> tuple[int, dict[str, str], str, bytes]:
        if self.seed != "fake" and self.requests == 1:
            content_type, raw = fixture_seed(self.seed)
            return 200, {}, content_type, raw
        fake = FakeRequest(
            method=request.method,
            path=request.url.path,
            query=dict(request.url.params),
            headers={k.lower(): v for k, v in request.headers.items()},
            body=request.content,
            target=request.url.raw_path.decode("ascii"),
            query_list=list(request.url.params.multi_items()),
        )
        handler = self.routes.get((request.method, request.url.path))
        if handler is None:
            return 404, {}, "application/json", b'{"error": "no route"}'
        response = handler(fake)
        if inspect.isawaitable(response):
            response = await response
        if not isinstance(response, FakeResponse):
            response = FakeResponse(200, body=response)
        return response.status, dict(response.headers), response.content_type() or "", response.body_bytes()


# --------------------------------------------------------------------------- the property

_UNSAFE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff"
    r"\ud800-\udfff\U000e0000-\U000e0fff]"
)
"""What :func:`sanitize` removes: C0 controls but tab/newline, DEL, C1, bidi controls, invisible
characters (zero-width ones, soft hyphen, fillers, variation selectors, tags), line and paragraph
separators, and surrogates (which cannot be printed)."""


def _unassigned(text: str) -> bool:
    """True when ``text`` holds an unassigned code point (which :func:`sanitize` replaces by U+FFFD)."""
    return any(unicodedata.category(char) == "Cn" for char in text)


def unsafe_texts(response: SearchResponse) -> list[str]:
    """Every text of ``response`` that carries a control character or an escape sequence."""
    texts: list[Any] = [response.answer, response.model, response.request_id, response.auth_mode]
    texts += response.related_questions + response.search_queries + response.notes
    for source in response.sources:
        texts += [source.url, source.title, source.snippet, source.published_date, source.author]
    for citation in response.citations:
        texts += [citation.url, citation.title, citation.cited_text]
    return [t for t in texts if isinstance(t, str) and _UNSAFE.search(t)]


def bad_urls(response: SearchResponse) -> list[str]:
    """Source and citation URLs that are not absolute http(s) URLs with a host. A citation may have
    the empty URL: Perplexity keeps the slot of an unusable ``citations[i]`` so ``[n]`` stays aligned."""
    urls = [s.url for s in response.sources] + [c.url for c in response.citations if c.url]
    return [u for u in urls if safe_url(u) != u]


async def run_case(case: Case, handler: InProcessFake) -> SearchResponse | ProviderError:
    """Run the case's provider to the end through the real reducer (retry waits take no time, and
    the provider's state is new: no DuckDuckGo cool-down from an earlier case); its response or
    its error."""
    builder = ResponseBuilder(case.provider)
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        ctx = ProviderContext(
            spec=SPECS[case.provider],
            client=client,
            settings=case.settings,
            credentials=case.credentials,
            deadline=time.monotonic() + 30,
            sleep=no_wait,
        )
        request = SearchRequest(QUERY, max_results=5, recency="week")
        try:
            async for event in load_stream(case.provider)(request, ctx):
                builder.apply(event)
        except ProviderError as error:
            return error
    return builder.response


def check_case(case: Case, handler: InProcessFake) -> SearchResponse | ProviderError:
    """Run ``case`` on a fresh event loop and assert the property on its outcome."""
    with mock.patch.dict(os.environ, case.env):
        outcome = asyncio.run(run_case(case, handler))
    if isinstance(outcome, ProviderError):
        assert not _UNSAFE.search(outcome.message), outcome.message
        return outcome
    assert not bad_urls(outcome), bad_urls(outcome)
    assert not unsafe_texts(outcome), unsafe_texts(outcome)
    return outcome


@pytest.mark.parametrize("case_name", CASE_NAMES)
def test_unmutated_fake_answers_give_sources(case_name: str) -> None:
    """The harness itself: every case, answered by the fake without mutation, ends with sources."""
    case = make_case(case_name)
    outcome = check_case(case, InProcessFake(lambda strategy, label=None: False, routes=case.routes()))
    assert isinstance(outcome, SearchResponse), outcome
    assert outcome.sources, case_name


@pytest.mark.parametrize("case_name", CASE_NAMES)
@given(data=st.data())
@fuzz_settings(EXAMPLES_PER_PROVIDER)
def test_mutated_payloads(case_name: str, data: st.DataObject) -> None:
    """Mutated fake or real payloads end in a clean response or a ProviderError, never a crash."""
    seed = data.draw(st.sampled_from(available_seeds(case_name)), label="seed")
    case = make_case(case_name)
    check_case(case, InProcessFake(data.draw, seed, routes=case.routes()))


@pytest.mark.parametrize("case_name", CASE_NAMES)
@given(data=st.data())
@fuzz_settings(EXAMPLES_PER_PROVIDER // 4)
def test_random_json_bodies(case_name: str, data: st.DataObject) -> None:
    """Random JSON values in place of any body end in a clean response or a ProviderError."""
    case = make_case(case_name)
    check_case(case, InProcessFake(data.draw, random_json=True, routes=case.routes()))


# --------------------------------------------------------------------------- pure helpers

anything = json_values(12) | st.binary(max_size=8) | st.tuples(st.text(max_size=5))
"""Any value a provider row may hold (and a few that JSON cannot)."""
date_texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(NASTY_TEXTS),
    st.builds(
        "{} {}".format,
        st.integers(-(10**30), 10**30),
        st.sampled_from(["s ago", "mins ago", "hours ago", "days ago", "weeks ago", "months ago", "years ago"]),
    ),
    st.builds(
        "{}, {:02d} {} {} {:02d}:{:02d}:{:02d} {}".format,
        st.sampled_from(["Mon", "Xyz"]),
        st.integers(0, 99),
        st.sampled_from(["Jan", "Feb", "Dec", "Foo"]),
        st.integers(-(10**25), 10**25),
        st.integers(0, 99),
        st.integers(0, 99),
        st.integers(0, 99),
        st.sampled_from(["GMT", "+0000", "-2359", "+9999", "UTC", ""]),
    ),
    st.builds(
        "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}".format,
        st.integers(0, 99999),
        st.integers(0, 13),
        st.integers(0, 32),
        st.integers(0, 25),
        st.integers(0, 61),
        st.integers(0, 61),
        st.sampled_from(["", "Z", "+14:00", "-23:59", "+24:00", ".999999Z"]),
    ),
    st.datetimes(timezones=st.none() | st.timezones()).map(lambda d: d.isoformat()),
    st.dates().map(lambda d: d.strftime("%B %d, %Y")),
)
"""Date texts in every shape providers send, with out-of-range parts."""


control_texts = st.text(st.characters(categories=["Cc", "Cf", "Cs", "Zl", "Zp"]) | st.characters())
"""Text rich in controls, format characters (bidi), surrogates and line separators."""


@given(st.text() | control_texts | st.sampled_from(NASTY_TEXTS) | anything)
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_sanitize_leaves_no_control_characters(value: Any) -> None:
    clean = sanitize(value)
    assert isinstance(clean, str) and not _UNSAFE.search(clean) and "\x1b" not in clean and not _unassigned(clean)
    assert sanitize(clean) == clean
    if isinstance(value, str) and not _UNSAFE.search(value) and "\r" not in value and not _unassigned(value):
        assert clean == value  # text without controls passes untouched


@given(st.text() | control_texts | st.sampled_from(NASTY_TEXTS) | anything, st.booleans())
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_plain_text_is_clean_or_none(value: Any, collapse: bool) -> None:
    text = plain_text(value, collapse=collapse)
    assert text is None or (text and text == text.strip() and not _UNSAFE.search(text))
    if text is not None and collapse:
        assert "\n" not in text and "  " not in text


urls = st.one_of(
    st.sampled_from(NASTY_TEXTS),
    st.text(max_size=60),
    st.builds(
        "{}://{}{}".format,
        st.sampled_from(["http", "https", "HTTPS", "ftp", "javascript", ""]),
        st.text(max_size=20),
        st.text(max_size=30),
    ),
    st.builds(
        "https://example.com/{}".format, st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]))
    ),
)


@given(urls | anything)
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_safe_url_gives_absolute_http_urls_only(value: Any) -> None:
    url = safe_url(value)
    if url is None:
        return
    assert url.lower().startswith(("http://", "https://"))
    assert not _UNSAFE.search(url) and not any(c in url for c in " \n\t")
    assert safe_url(url) == url
    assert isinstance(canonical_url(url), str)


@given(date_texts | anything, st.none() | st.datetimes(timezones=st.just(timezone.utc)))
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_age_seconds_is_a_non_negative_int_or_none(value: Any, now: datetime | None) -> None:
    age = age_seconds(value, now)
    assert age is None or (isinstance(age, int) and age >= 0)


@given(anything, anything, anything, anything, anything, st.none() | st.integers(1, 500))
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_make_source_is_clean_or_none(
    url: Any, title: Any, snippet: Any, published: Any, author: Any, limit: int | None
) -> None:
    source = parse.make_source(url, title, snippet, published, author, snippet_limit=limit)
    if source is None:
        return
    assert safe_url(source.url) == source.url and source.title
    texts = [source.title, source.snippet, source.published_date, source.author]
    assert not any(_UNSAFE.search(t) for t in texts if t)
    assert source.age_seconds is None or source.age_seconds >= 0
    assert limit is None or source.snippet is None or len(source.snippet) <= limit


@given(st.lists(st.dictionaries(st.sampled_from(["url", "title", "snippet", "date"]), anything)) | anything)
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_row_helpers_give_clean_values(rows: Any) -> None:
    sources = parse.sources_from(rows, url="url", title="title", snippet="snippet", date="date")
    kept = parse.limit_sources(sources, 3, [s.url for s in sources[5:6]])
    assert len(kept) <= 4 and all(safe_url(s.url) == s.url for s in kept)
    texts = parse.text_list(rows, limit=2)
    assert len(texts) <= 2 and all(t and not _UNSAFE.search(t) for t in texts)
    joined = parse.join_texts(rows if isinstance(rows, list) else [rows], " ")
    assert joined is None or (isinstance(joined, str) and joined.strip())
    for text in (parse.first_text(rows, "url", "title"), parse.find_message(rows)):
        assert text is None or (isinstance(text, str) and text.strip())
    for text in (parse.answer_text(rows), parse.code_text(rows)):
        assert text is None or (text and not _UNSAFE.search(text))
    choice, notes = parse.choice_option(rows, ("low", "high"), "low", "fuzz option")
    assert choice in ("low", "high") and (notes == []) == (isinstance(rows, str) and rows.lower() in ("low", "high"))


@given(anything, st.integers(1, 100), st.none() | st.integers(1, 100))
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_counts_are_in_range(value: Any, default: int, maximum: int | None) -> None:
    count = parse.clamp_count(value, default, maximum)
    assert isinstance(count, int) and (count == default or (1 <= count and (maximum is None or count <= maximum)))
    usage = parse.usage_from(
        {"i": value, "o": value}, input="i", output="o", total=value if isinstance(value, int) else None
    )
    assert usage is None or all(v is None or isinstance(v, int) for v in vars(usage).values())
    assert parse.int_field({"n": value}, "n", minimum=0) in (None, value)


@given(st.integers(0, 1200), anything)
@fuzz_settings(EXAMPLES_PER_HELPER // 3)
def test_find_message_survives_deep_nesting(depth: int, leaf: Any) -> None:
    message = parse.find_message(deep_nesting(depth, {"message": leaf}))
    assert message is None or isinstance(message, str)


# --------------------------------------------------------------------------- DuckDuckGo

DDG_CLASSES = ["result", "result__body", "result__a", "result__snippet", "result--ad", "no-results", "results_links"]
DDG_HREFS = [
    "https://example.com/a",
    "//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fx%3Fa%3D1&rut=abc",
    "//duckduckgo.com/l/?uddg=javascript%3Aalert(1)",
    "//duckduckgo.com/l/?uddg=",
    "//duckduckgo.com/l/?uddg=https%3A%2F%2Fe.com%2F%1b%5B31m",
    "https://duckduckgo.com/y.js?ad_provider=x",
    "/l/?uddg=https%3A%2F%2Fexample.net",
    "//[::1",
    *NASTY_TEXTS,
]


def html_element(tag: str, classes: list[str], href: str | None, children: list[str], closed: bool) -> str:
    """One HTML element as text (attribute values escaped or not, end tag optional)."""
    attrs = f' class="{" ".join(classes)}"' if classes else ""
    attrs += f' href="{href}"' if href is not None else ""
    return f"<{tag}{attrs}>{''.join(children)}" + (f"</{tag}>" if closed else "")


html_pages: st.SearchStrategy[str] = st.deferred(
    lambda: st.one_of(
        st.text(max_size=30) | st.sampled_from(NASTY_TEXTS) | st.just("No results."),
        st.builds(
            html_element,
            st.sampled_from(["div", "a", "h2", "span", "b", "br", "img", "p", "td", "script"]),
            st.lists(st.sampled_from(DDG_CLASSES), max_size=2),
            st.none() | st.sampled_from(DDG_HREFS),
            st.lists(html_pages, max_size=4),
            st.booleans(),
        ),
    )
)
"""Random HTML made of DuckDuckGo's result classes and links, text, and unclosed tags."""
html_texts = st.text(max_size=30) | st.sampled_from(NASTY_TEXTS) | html_pages


def result_block(href: str, title: str, snippet: str, ad: bool, closed: bool) -> str:
    """One result as DuckDuckGo's HTML page lays it out (optionally an ad, optionally unterminated)."""
    classes = "result results_links" + (" result--ad" if ad else "")
    link = f'<a class="result__a" href="{href}">{title}</a>'
    body = f'<div class="result__body"><h2 class="result__title">{link}</h2><a class="result__snippet" href="{href}">'
    return f'<div class="{classes}">{body}{snippet}</a>' + ("</div></div>" if closed else "")


result_links = st.sampled_from(DDG_HREFS[:2]) | st.sampled_from(DDG_HREFS)  # usable links half the time
result_blocks = st.builds(result_block, result_links, html_texts, html_texts, st.booleans(), st.booleans())
ddg_pages = st.lists(result_blocks | html_pages, min_size=1, max_size=8).map("".join)
"""Result pages: DuckDuckGo-shaped result blocks with random links and text, among random HTML."""


def html_answer(page: str) -> Callable[[httpx.Request], httpx.Response]:
    """A MockTransport handler answering every request with ``page`` as ``text/html``."""
    body = page.encode("utf-8", "surrogatepass")  # a lone surrogate arrives as invalid UTF-8
    return lambda request: httpx.Response(200, headers={"Content-Type": "text/html; charset=utf-8"}, content=body)


@given(ddg_pages | st.text())
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_ddgs_html_endpoint_survives_random_pages(page: str) -> None:
    case = Case("ddgs", "ddgs", ProviderSettings(base_url=f"{BASE}/ddgs"))
    outcome = check_case(case, html_answer(page))  # type: ignore[arg-type]
    if isinstance(outcome, SearchResponse):
        assert len(outcome.sources) <= 5


@given(st.lists(st.dictionaries(st.sampled_from(["title", "href", "url", "body", "snippet"]), anything)) | anything)
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_ddgs_library_rows_map_to_clean_sources(rows: Any) -> None:
    for source in ddgs.rows_to_sources(rows):
        assert safe_url(source.url) == source.url and source.title and not _UNSAFE.search(source.title)


@given(st.none() | st.sampled_from(DDG_HREFS) | st.text())
@fuzz_settings(EXAMPLES_PER_HELPER)
def test_ddgs_result_links_decode_to_safe_urls(href: str | None) -> None:
    url = ddgs.decode_result_url(href)
    assert url is None or safe_url(url) == url
