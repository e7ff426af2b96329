"""The fault matrix: every registered provider against 30 faults, one search each through the real Engine.

Each cell runs a ``compare`` search with the faulty provider plus one healthy provider over real HTTP
to the loopback fake (``tests/fake_providers``). The fault is put on the faulty provider's search
call only: the request that runs its search (for the MCP providers, keyless Exa and Parallel and
Z.AI, the ``tools/call`` POST; their handshake stays healthy). DuckDuckGo runs in its HTML endpoint
mode, Codex on the fake login. A cell checks the faulty provider's outcome (status, error kind, key
phrases of its message, how many search calls the fake saw), that the healthy provider is untouched,
and that no secret reaches the outcome, the CLI output formats or the log.

Per provider or per transport family. A provider's search call travels one of six ways
(:data:`FAMILIES`): JSON over a GET, JSON over a POST, an SSE stream, MCP over Streamable HTTP
(a JSON-RPC ``tools/call`` answered as an event stream), DuckDuckGo's HTML page, and arXiv's Atom
feed (XML over a GET).
:func:`test_families_are_what_the_fake_answers` checks each provider's family against its fault-free
search call, so the table cannot drift from what the providers send.

- Per family (:data:`FAMILY_FAULTS`): faults the shared layer settles before a provider reads a
  field: timeout, refused connection, malformed JSON, an HTML page with 200, split and CRLF framing,
  a cut connection, gzip, deflate with and without its zlib header, the two bombs, brotli and a
  50 MB body. The deadline, the connection, the body cap, decompression, JSON parsing, SSE framing
  and the MCP envelope are ``transport.http``'s and the family's (``families/mcp.py`` for MCP), the
  same code for every member, and the outcome depends on the family only: the error comes from
  that code, or the payload a provider then reads is byte for byte its fault-free one. The method
  is part of the family because a cut connection is resent for a GET only. Each such fault runs
  at least once per family, on one member chosen in turn (the n-th family fault on member n, each
  modulo its count, for as many cells as the family has faults or members), so every member of a
  family meets some of these faults.
- Per provider (the other columns): faults whose outcome the provider's own code decides. The HTTP
  error answers (401/403/404/410/422, 429/500/503, the retry-hint bodies) carry the provider's
  error body, which its error describer words (and must redact: the body echoes the key), under
  its own retry policy; an empty body, null fields, hostile titles and the two foreign shapes
  reach the provider's parser. Every provider runs all of these columns.

Equivalents for providers that do not stream (said here so no cell is skipped silently):
``split`` cuts a JSON (or HTML) body into six pieces and inside every multi-byte character instead
of cutting inside every SSE event; ``crlf`` pretty-prints a JSON body with CRLF between its tokens
(an HTML page gets CRLF line endings) instead of CRLF SSE framing; ``truncated`` closes the
connection halfway through the body instead of in the middle of an event. For DuckDuckGo's HTML
page, ``malformed_json`` escapes every ``<`` (markup that no longer parses) and ``null_fields``
empties every attribute value and text node.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from http import HTTPStatus

import httpx._transports.default
import pytest
import tomlkit

from tests.fake_providers import FAKE_KEYS, FakeResponse, FakeServer, config_toml, sse_response
from tests.fake_providers import faults as payload
from tests.fake_providers.fake_codex import login as codex_login
from tests.fake_providers.routes import is_search_call, search_route
from tests.helpers import closed_port_url, no_wait
from tests.tui.conftest import fixed_status, submit, until, wait_for_search
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ErrorKind
from websearch_tui.core.models import SearchRequest, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.engine.engine import Engine
from websearch_tui.formats.llm import to_llm_document
from websearch_tui.formats.markdown import to_markdown
from websearch_tui.formats.text import to_text
from websearch_tui.providers import ddgs
from websearch_tui.providers.transport import http
from websearch_tui.settings.config import Config, parse_config
from websearch_tui.tui.app import WebSearchApp
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.source_list import SourceList

QUERY = "python asyncio tutorial"
MAX_RESULTS = 5
DEADLINE = 10.0
"""Per-provider deadline (seconds) of every cell but the timeout ones."""
SHORT_DEADLINE = 0.5
"""The deadline of the timeout cells; the faulty fake holds its answer for 30 s."""
HUGE_BODY = 50 * 1024 * 1024
BOMB_BODY = 16 * 1024 * 1024
"""A compression bomb's inflated size: twice the 8 MiB cap, from about 16 KiB on the wire."""
COMMENTS_TITLE = "<!--" * 40_000 + "x"
"""A 160 KB title of unclosed HTML comments (a quadratic tag stripper took 50 s on it)."""
SPACES_BODY = "retry" + " " * 30_000
"""An error body that made a quadratic retry-hint pattern take 20 s."""
ATTEMPTS = 1 + http.MAX_RETRIES
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters (escape, bell, C1) that must never reach stored text; tab and newline may."""
INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2028\u2029\u3164\u115f\uffa0\ufe0f\u0378\U000e0000-\U000e007f]")
"""Invisible, width-disagreeing and unassigned characters (:data:`payload.UNICODE_TITLE`'s) that
must never reach stored text or an output."""


# --------------------------------------------------------------------------- running one search


@dataclass(frozen=True)
class Cell:
    """What one search produced: the result, the faulty provider's search-call count, the log text."""

    result: SearchResult
    calls: int
    log: str

    def outcome(self, provider: str) -> ProviderOutcome:
        """The outcome of ``provider`` in this search."""
        return next(o for o in self.result.outcomes if o.provider == provider)


def healthy_partner(provider: str) -> str:
    """The provider that runs fault-free next to ``provider`` in its cells."""
    return "brave" if provider == "tavily" else "tavily"


@functools.cache
def _config_template() -> str:
    """The fake's ``config.toml`` for the placeholder address ``http://fake.invalid``, parsed once and
    kept as JSON (parsing the TOML anew for each of the ~500 searches would cost seconds)."""
    return json.dumps(tomlkit.parse(config_toml("http://fake.invalid")).unwrap())


def fake_config(base_url: str) -> Config:
    """The validated config pointing every provider at the fake at ``base_url``."""
    return parse_config(json.loads(_config_template().replace("http://fake.invalid", base_url)))


def search_calls(server: FakeServer, provider: str) -> int:
    """How many search calls of ``provider`` reached the fake."""
    _, path = search_route(provider)
    return sum(1 for request in server.requests_to(path) if is_search_call(request))


async def run_cell(
    server: FakeServer,
    provider: str,
    caplog: pytest.LogCaptureFixture,
    *,
    timeout: float = DEADLINE,
    endpoint: str | None = None,
) -> Cell:
    """One compare search of ``provider`` and its healthy partner against ``server``, configured the
    way a user would (config file, keys from the environment); ``endpoint`` replaces the fake's
    address in ``provider``'s ``base_url``/``mcp_url``."""
    engine = Engine.from_config(fake_config(server.base_url))
    engine.timeout = timeout  # below the config file's 1 s minimum for the timeout cells
    engine.sleep = no_wait  # retry waits (and pacing) take no time
    if endpoint is not None:
        settings = engine.settings[provider]
        urls = {name: getattr(settings, name) for name in ("base_url", "mcp_url") if getattr(settings, name)}
        moved = {name: url.replace(server.base_url, endpoint) for name, url in urls.items()}
        engine.settings[provider] = replace(settings, **moved)
    request = SearchRequest(query=QUERY, providers=(provider, healthy_partner(provider)), max_results=MAX_RESULTS)
    caplog.clear()
    try:
        result = await engine.search(request)
    finally:
        await engine.aclose()
    return Cell(result, search_calls(server, provider), caplog.text)


# --------------------------------------------------------------------------- fault-free baselines


_TITLE_PIECES = re.compile(r"[^\w\s.,:'()/-]+")
"""What may be encoded differently on the wire (``&amp;``, ``&#8212;``): titles are matched without it."""


@dataclass(frozen=True)
class Baseline:
    """A provider's fault-free run: its sources, every payload string its search call answered and
    the transport family that call showed (:func:`family_seen`)."""

    sources: tuple[Source, ...]
    strings: tuple[str, ...]
    family: str

    def title_to_replace(self) -> tuple[Source, str] | None:
        """A source and the longest part of its title sent verbatim in the payload (the whole title
        when it is; at least 8 characters, inside no URL of the payload), so that replacing that
        text changes this title and no link; ``None`` when no title is sent (it is the URL)."""
        urls = " ".join(text for text in self.strings if text.startswith(("http:", "https:")))
        pieces = [
            (source, piece.strip())
            for source in self.sources
            if source.title != source.url
            for piece in [source.title, *_TITLE_PIECES.split(source.title)]
        ]
        found = [
            (source, piece)
            for source, piece in pieces
            if len(piece) >= 8 and piece not in urls and any(piece in text for text in self.strings)
        ]
        return max(found, key=lambda pair: len(pair[1])) if found else None


_baselines: dict[str, Baseline] = {}

FAMILIES: dict[str, tuple[str, ...]] = {
    "json_get": ("brave", "searxng", "openalex", "semantic_scholar", "wikipedia", "hackernews"),
    "json_post": (
        "tavily",
        "perplexity_search",
        "jina",
        "kimi",
        "kagi",
        "synthetic",
        "you",
        "zhipu_web_search",
        "codex_alpha",
        "deepseek",
        "ark",
        "linkup",
        "serper",
        "firecrawl",
        "ollama",
        "valyu",
    ),
    "sse": ("perplexity", "anthropic", "gemini", "openai", "codex", "grok", "zhipu_chat_search"),
    "mcp": ("exa", "parallel", "zai"),
    "html": ("ddgs",),
    "xml_get": ("arxiv",),
}
"""The transport families (module docstring) and their members, as the fake's default routes answer."""


def family_seen(route: tuple[str, str], response: FakeResponse) -> str:
    """The transport family of a search call on ``route`` (``(METHOD, path)``) answered by ``response``."""
    method, path = route
    if path.endswith("/mcp"):
        return "mcp"
    if "text/html" in (response.content_type() or ""):
        return "html"
    if "xml" in (response.content_type() or ""):
        return "xml_get"
    if payload.is_sse(response):
        return "sse"
    return "json_get" if method == "GET" else "json_post"


async def baseline(provider: str, caplog: pytest.LogCaptureFixture) -> Baseline:
    """``provider``'s fault-free run (computed once per session)."""
    if provider not in _baselines:
        answered: list[FakeResponse] = []

        def record(response: FakeResponse) -> FakeResponse:
            answered.append(response)
            return response

        with FakeServer() as server:
            server.wrap(search_route(provider), record, when=is_search_call)
            outcome = (await run_cell(server, provider, caplog)).outcome(provider)
        assert outcome.status is RunStatus.DONE and outcome.response.sources, (provider, outcome.error)
        strings = tuple(text for response in answered for text in payload.payload_strings(response))
        families = {family_seen(search_route(provider), response) for response in answered}
        assert len(families) == 1, (provider, families)
        _baselines[provider] = Baseline(tuple(outcome.response.sources), strings, families.pop())
    return _baselines[provider]


# --------------------------------------------------------------------------- the faults

Install = Callable[[FakeServer, str, Baseline], None]
"""Puts one fault on a provider's search call: ``install(server, provider_id, its baseline)``."""


def _status(status: int, **options: object) -> Install:
    """An HTTP error answer whose message repeats the credential the request carried."""

    def install(server: FakeServer, provider: str, _: Baseline) -> None:
        server.fail(search_route(provider), status, when=is_search_call, echo_key=True, **options)

    return install


def _rewrite(transform: Callable[[FakeResponse], FakeResponse]) -> Install:
    return lambda server, provider, _: server.wrap(search_route(provider), transform, when=is_search_call)


def _hostile_title(title: str) -> Install:
    """``title`` in place of a normal one; a format that sends no titles (xAI) gets it as the
    ``title`` of every object with a ``url``."""

    def install(server: FakeServer, provider: str, normal: Baseline) -> None:
        target = normal.title_to_replace()
        transform = payload.add_titles(title) if target is None else payload.replace_text(target[1], title)
        server.wrap(search_route(provider), transform, when=is_search_call)

    return install


def _encoded(encoding: str, size: int | None = None) -> Install:
    """Bodies sent with ``Content-Encoding: encoding`` (see ``FakeResponse.encoding``); with ``size``,
    padded to that many bytes first (a bomb: a few KiB on the wire)."""

    def transform(response: FakeResponse) -> FakeResponse:
        padded = payload.pad(response, size) if size else response
        return replace(padded, gzip=False, encoding=encoding)

    return _rewrite(transform)


FAULTS: dict[str, Install] = {
    "401": _status(401),
    "403": _status(403),
    "404": _status(404),
    "410": _status(410),
    "422": _status(422),
    "429": _status(429, retry_after=2),
    "500": _status(500),
    "503": _status(503),
    "timeout": lambda server, provider, _: server.hang(search_route(provider), 30, when=is_search_call),
    "refused": lambda server, provider, _: None,  # the provider's endpoint moves to a closed port instead
    "malformed_json": _rewrite(payload.malformed),
    "html_200": lambda server, provider, _: server.html_page(search_route(provider), 200, when=is_search_call),
    "empty_200": _rewrite(payload.empty_body),
    "split": _rewrite(payload.split_events),
    "crlf": _rewrite(payload.crlf_json),
    "truncated": _rewrite(payload.truncated),
    "gzip": lambda server, provider, _: server.gzip(search_route(provider), when=is_search_call),
    "huge": _rewrite(lambda response: payload.pad(response, HUGE_BODY)),
    "null_fields": _rewrite(payload.null_fields),
    "markup_title": _hostile_title(payload.MARKUP_TITLE),
    "unicode_title": _hostile_title(payload.UNICODE_TITLE),
    "deflate": _encoded("deflate"),
    "raw_deflate": _encoded("raw-deflate"),
    "deflate_bomb": _encoded("deflate", BOMB_BODY),
    "gzip_bomb": _encoded("gzip", BOMB_BODY),
    "brotli": _encoded("br"),
    "comments_title": _hostile_title(COMMENTS_TITLE),
    "retry_spaces": _status(429, body=SPACES_BODY),
    "retry_inf": _status(429, retry_after="inf"),
    "foreign_json": _rewrite(payload.foreign_json),
    "foreign_sse": _rewrite(payload.foreign_sse),
}

FAMILY_FAULTS = (
    "timeout",
    "refused",
    "malformed_json",
    "html_200",
    "split",
    "crlf",
    "truncated",
    "gzip",
    "huge",
    "deflate",
    "raw_deflate",
    "deflate_bomb",
    "gzip_bomb",
    "brotli",
)
"""Faults the shared layer settles for every member of a transport family alike (module docstring):
each runs once per family."""
PROVIDER_FAULTS = tuple(fault for fault in FAULTS if fault not in FAMILY_FAULTS)
"""Faults whose outcome the provider's own code decides: each runs for every provider."""


def family_cells() -> list[tuple[str, str]]:
    """``(provider, fault)`` for each family: the n-th cell puts family fault n on member n (each
    modulo its count), as many cells as the family has faults or members (whichever is more), so
    every fault runs in each family and every member meets at least one."""
    return [
        (members[index % len(members)], FAMILY_FAULTS[index % len(FAMILY_FAULTS)])
        for members in FAMILIES.values()
        for index in range(max(len(members), len(FAMILY_FAULTS)))
    ]


# --------------------------------------------------------------------------- what each cell expects


@dataclass(frozen=True)
class Expect:
    """The faulty provider's expected outcome.

    ``phrases``: the error message holds at least one of them (case-insensitive), besides the
    provider's name; ``calls``: search calls the fake must have seen (``None``: not checked);
    ``same_sources``: the sources equal the fault-free run's.
    """

    status: RunStatus
    kind: ErrorKind | None = None
    phrases: tuple[str, ...] = ()
    calls: int | None = 1
    same_sources: bool = False


def failed(kind: ErrorKind, *phrases: str, calls: int | None = 1) -> Expect:
    """A ``FAILED`` outcome of ``kind`` whose message holds one of ``phrases``."""
    return Expect(RunStatus.FAILED, kind, phrases, calls)


def http_error(status: int, kind: ErrorKind, calls: int = 1) -> Expect:
    """A ``FAILED`` outcome for an HTTP error answer: the message names the status or its reason."""
    return failed(kind, f"({status}", f"{status} ", HTTPStatus(status).phrase, calls=calls)


INTACT = Expect(RunStatus.DONE, same_sources=True)
EXPECTED: dict[str, Expect] = {
    "401": failed(ErrorKind.AUTH, "authorization failed (401)"),
    "403": failed(ErrorKind.AUTH, "authorization failed (403)"),
    "404": http_error(404, ErrorKind.NOT_FOUND),
    "410": http_error(410, ErrorKind.DEPRECATED),
    "422": http_error(422, ErrorKind.BAD_REQUEST),
    "429": failed(ErrorKind.RATE_LIMIT, "rate limit", "too many requests", calls=ATTEMPTS),
    "500": http_error(500, ErrorKind.SERVER, calls=ATTEMPTS),
    "503": http_error(503, ErrorKind.SERVER, calls=ATTEMPTS),
    "timeout": failed(ErrorKind.TIMEOUT, "did not answer in time", "did not finish"),
    "refused": failed(ErrorKind.NETWORK, "could not connect", calls=0),
    "malformed_json": failed(
        ErrorKind.PROTOCOL, "malformed JSON", "failed to parse", "stream event(s) that were not JSON"
    ),
    "html_200": failed(ErrorKind.PROTOCOL, "text/html instead of", "text/html body"),
    "empty_200": failed(ErrorKind.PROTOCOL, "empty body", "stream ended before it finished"),
    "split": INTACT,
    "crlf": INTACT,
    "truncated": failed(ErrorKind.NETWORK, "network error"),
    "gzip": INTACT,
    "huge": failed(ErrorKind.PROTOCOL, "larger than"),
    "null_fields": Expect(RunStatus.EMPTY),
    "markup_title": Expect(RunStatus.DONE),
    "unicode_title": Expect(RunStatus.DONE),
    "deflate": INTACT,
    "raw_deflate": INTACT,
    "deflate_bomb": failed(ErrorKind.PROTOCOL, "larger than"),
    "gzip_bomb": failed(ErrorKind.PROTOCOL, "larger than"),
    "brotli": failed(ErrorKind.PROTOCOL, "was not asked for"),
    "comments_title": Expect(RunStatus.DONE),
    "retry_spaces": failed(ErrorKind.RATE_LIMIT, "(429", "rate limit", "too many requests", calls=ATTEMPTS),
    "retry_inf": failed(ErrorKind.RATE_LIMIT, "rate limit", "too many requests", calls=ATTEMPTS),
    "foreign_json": failed(ErrorKind.UNRECOGNISED, "answered in a shape this version does not read"),
    "foreign_sse": failed(ErrorKind.UNRECOGNISED, "answered in a shape this version does not read"),
}
"""What every provider does under each fault, unless :data:`DIFFERENT` says otherwise."""

RETRIED_ANSWERS = ("429", "500", "503", "retry_spaces", "retry_inf")
"""Faults that are HTTP answers the shared layer retries (at most :data:`ATTEMPTS` requests)."""
FINAL_ANSWERS = frozenset({"ddgs", "perplexity", "perplexity_search"})
"""Providers for which any HTTP answer is final: Perplexity (PROVIDERS.md §1.12), DuckDuckGo (never
hammer a rate-limiting DuckDuckGo, §1.12)."""
MAX_ATTEMPTS = {"jina": 2}
"""Providers that allow fewer attempts: Jina retries once (site-restricted searches fail repeatedly)."""

_UNREADABLE_PAGE = failed(ErrorKind.UNRECOGNISED, ddgs.UNREADABLE_MESSAGE)
_NO_TOOL_CONTENT = failed(ErrorKind.PROTOCOL, "tool result has no content")
_ENDED_EARLY = failed(ErrorKind.PROTOCOL, "stream ended before it finished")

DIFFERENT: dict[tuple[str, str], Expect] = {
    # DuckDuckGo: a 403 or 429 is its block (PROVIDERS.md §2.1): a rate limit, then a cool-down. Its
    # HTML endpoint has no JSON: a page it cannot read (no result links, no no-results line) is an
    # unrecognised response, "could not read DuckDuckGo results page".
    ("ddgs", "403"): failed(ErrorKind.RATE_LIMIT, "rate limit"),
    **{("ddgs", f): failed(ErrorKind.RATE_LIMIT, "rate limit") for f in ("429", "retry_spaces", "retry_inf")},
    **{("ddgs", f): _UNREADABLE_PAGE for f in ("malformed_json", "html_200", "empty_200", "null_fields")},
    **{("ddgs", f): _UNREADABLE_PAGE for f in ("foreign_json", "foreign_sse")},
    # SearXNG answers 403 when the instance has JSON output disabled (its documented cause).
    ("searxng", "403"): failed(ErrorKind.CONFIG, "JSON output disabled"),
    # Z.AI keeps its own words for 401/403 (PROVIDERS.md §1.11: the reason is in its body).
    ("zai", "401"): failed(ErrorKind.AUTH, "Z.AI API error (401)"),
    ("zai", "403"): failed(ErrorKind.AUTH, "Z.AI API error (403)"),
    # Parallel's MCP sessions: a 404 means "session gone", so it opens a new session and asks once more.
    ("parallel", "404"): http_error(404, ErrorKind.NOT_FOUND, calls=2),
    # Jina's 422 is its AssertionFailureError, "no results" (PROVIDERS.md §2.9): an empty result.
    ("jina", "422"): Expect(RunStatus.EMPTY),
    # A null-only MCP tool result has no text part left; a null-only model stream has no finish reason.
    **{(p, "null_fields"): _NO_TOOL_CONTENT for p in ("exa", "parallel", "zai")},
    **{(p, "null_fields"): _ENDED_EARLY for p in ("gemini", "zhipu_chat_search")},
    # arXiv answers XML (an Atom feed): emptying every attribute empties its namespace declarations
    # (no longer an Atom feed), and XML cannot carry a control character or "--" inside a comment, so
    # those hostile titles make a feed that does not parse (a protocol error, read in linear time).
    ("arxiv", "null_fields"): failed(ErrorKind.PROTOCOL, "not an Atom feed", "failed to parse"),
    **{("arxiv", f): failed(ErrorKind.PROTOCOL, "failed to parse") for f in ("markup_title", "comments_title")},
}
"""Cells whose provider behaves differently from :data:`EXPECTED`, with the documented reason."""


def expected(provider: str, fault: str) -> Expect:
    """What the cell ``(provider, fault)`` must produce (with the number of requests its retry rules
    allow: a retried answer is asked up to the provider's attempts; a dropped response is resent
    for a GET only, since a POST may already have reached the server)."""
    expect = DIFFERENT.get((provider, fault), EXPECTED[fault])
    attempts = MAX_ATTEMPTS.get(provider, ATTEMPTS)
    if fault in RETRIED_ANSWERS:
        expect = replace(expect, calls=1 if provider in FINAL_ANSWERS else attempts)
    elif fault == "truncated":
        expect = replace(expect, calls=attempts if search_route(provider)[0] == "GET" else 1)
    return expect


# --------------------------------------------------------------------------- checks


def secrets() -> list[str]:
    """Every secret a cell could leak: the fake API keys and the fake Codex login's tokens."""
    login = codex_login()
    keys = [value for name, value in FAKE_KEYS.items() if name != "CODEX_HOME"]
    return keys + [login[name] for name in ("access_token", "refresh_token", "id_token")]


def outputs(result: SearchResult) -> str:
    """Everything a search can show or export: the result's repr and every CLI output format."""
    document = json.dumps(result.to_dict(), ensure_ascii=False)
    shown = [to_llm_document(result), to_markdown(result), to_text(result)]
    return "\n".join([repr(result), *shown, document])


def comparable(sources: tuple[Source, ...] | list[Source]) -> tuple[Source, ...]:
    """``sources`` without their ages and ISO dates (computed at parse time: an age grows between two
    runs, and "3 months ago" is a moment counted back from each run's parse)."""
    return tuple(replace(source, age_seconds=None, published_date=None) for source in sources)


def label_word(provider: str) -> str:
    """The part of the provider's label every message of it names (``Brave`` for ``Brave Search``)."""
    return SPECS[provider].label.split()[0]


def check_faulty(provider: str, fault: str, cell: Cell, normal: Baseline) -> None:
    """The faulty provider's outcome is what :func:`expected` says."""
    outcome, expect = cell.outcome(provider), expected(provider, fault)
    error = outcome.error
    assert outcome.status is expect.status, (outcome.status, error)
    assert (error.kind if error else None) is expect.kind, error
    if error is not None:
        message = error.message.lower()
        assert label_word(provider).lower() in message, error.message
        assert any(phrase.lower() in message for phrase in expect.phrases), (expect.phrases, error.message)
        assert "unexpected error" not in message
    if expect.calls is not None:
        assert cell.calls == expect.calls
    if expect.same_sources:
        assert comparable(outcome.response.sources) == comparable(normal.sources)


def check_hostile_title(provider: str, cell: Cell, normal: Baseline, sanitized: str) -> None:
    """The hostile title is stored as ``sanitized`` (markup: brackets kept literally, every escape
    removed; Unicode: invisible characters removed, unassigned ones replaced), and no control,
    invisible or unassigned character reaches the response or any output format."""
    target = normal.title_to_replace()
    response = cell.outcome(provider).response
    titles = {source.url: source.title for source in response.sources}
    hostile = [url for url, title in titles.items() if sanitized in title]
    if cell.outcome(provider).status is not RunStatus.DONE:
        return  # a format that cannot carry the title (XML: no control characters) failed as DIFFERENT says
    # by position: a link made from the title (Wikipedia's article URL) changes with it
    at = response.sources[normal.sources.index(target[0])].url if target else None
    assert (at in hostile) if target else (hostile == list(titles)), titles
    texts = [response.answer or ""] + [s.title + (s.snippet or "") for s in response.sources]
    texts += [c.title + (c.cited_text or "") for c in response.citations]
    assert not any(CONTROL.search(text) or INVISIBLE.search(text) for text in texts)
    assert sanitized in to_llm_document(cell.result)
    assert not INVISIBLE.search(outputs(cell.result))


def check_partner(provider: str, cell: Cell, partner: Baseline) -> None:
    """The healthy provider of the cell finished with its normal sources."""
    outcome = cell.outcome(healthy_partner(provider))
    assert outcome.status is RunStatus.DONE, outcome.error
    assert comparable(outcome.response.sources) == comparable(partner.sources)


def check_no_secret(cell: Cell) -> None:
    """No secret in the outcome, the CLI formats or the log."""
    shown = outputs(cell.result)
    for secret in secrets():
        assert secret not in shown
        assert secret not in cell.log


# --------------------------------------------------------------------------- the matrix


_ssl_context = functools.cache(httpx._transports.default.create_ssl_context)


@pytest.fixture(autouse=True)
def matrix_environment(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The fake keys (and Codex login) in the environment, every log record captured, and one
    TLS context for every engine's client (the fake is plain HTTP; loading the CA bundle anew for
    each of the ~500 engines would be most of the matrix's run time). Each cell's engine is new,
    so no DuckDuckGo cool-down carries over (a later fake may get the same port)."""
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(httpx._transports.default, "create_ssl_context", _ssl_context)
    caplog.set_level("DEBUG")


def family_of(provider: str) -> str:
    """The transport family :data:`FAMILIES` puts ``provider`` in."""
    return next(family for family, members in FAMILIES.items() if provider in members)


def test_every_provider_has_one_family_and_every_fault_one_kind() -> None:
    members = [provider for providers in FAMILIES.values() for provider in providers]
    assert sorted(members) == sorted(SPECS)  # each registered provider, once
    assert set(FAMILY_FAULTS) < set(FAULTS) and set(PROVIDER_FAULTS) | set(FAMILY_FAULTS) == set(FAULTS)
    assert {provider for provider, _ in family_cells()} == set(SPECS)  # every member meets some family faults


async def test_families_are_what_the_fake_answers(caplog: pytest.LogCaptureFixture) -> None:
    seen = {provider: (await baseline(provider, caplog)).family for provider in SPECS}
    assert seen == {provider: family_of(provider) for provider in SPECS}


@pytest.mark.parametrize("fault", PROVIDER_FAULTS)
@pytest.mark.parametrize("provider", list(SPECS))
async def test_fault_cell(provider: str, fault: str, caplog: pytest.LogCaptureFixture) -> None:
    await check_cell(provider, fault, caplog)


@pytest.mark.parametrize(
    ("provider", "fault"), family_cells(), ids=[f"{family_of(p)}-{p}-{f}" for p, f in family_cells()]
)
async def test_family_fault_cell(provider: str, fault: str, caplog: pytest.LogCaptureFixture) -> None:
    await check_cell(provider, fault, caplog)


async def check_cell(provider: str, fault: str, caplog: pytest.LogCaptureFixture) -> None:
    """Run the cell ``(provider, fault)`` and check it (see the module docstring)."""
    normal = await baseline(provider, caplog)
    partner = await baseline(healthy_partner(provider), caplog)
    with FakeServer() as server:
        FAULTS[fault](server, provider, normal)
        cell = await run_cell(
            server,
            provider,
            caplog,
            timeout=SHORT_DEADLINE if fault == "timeout" else DEADLINE,
            endpoint=closed_port_url() if fault == "refused" else None,
        )
    check_faulty(provider, fault, cell, normal)
    if fault == "markup_title":
        check_hostile_title(provider, cell, normal, payload.MARKUP_TITLE_SANITIZED)
    if fault == "unicode_title":
        check_hostile_title(provider, cell, normal, payload.UNICODE_TITLE_SANITIZED)
    check_partner(provider, cell, partner)
    check_no_secret(cell)


# --------------------------------------------------------------------------- the fault transforms


def test_padding_shares_one_block_and_keeps_the_payload_valid() -> None:
    padded = payload.pad(FakeResponse(200, body={"results": [1]}), HUGE_BODY).pieces()
    assert sum(1 for piece in padded if piece is payload.PAD_BLOCK) == HUGE_BODY // len(payload.PAD_BLOCK)
    assert json.loads(padded[0] + b"x" + padded[-1]) == {"padding": "x", "results": [1]}
    stream = payload.pad(sse_response([{"type": "done"}]), 3 * len(payload.PAD_BLOCK)).pieces()
    assert [piece[:11] for piece in stream[:3]] == [b"event: ping"] * 3
    assert stream[3:] == [b'data: {"type": "done"}\n\n']


def test_rewrites_reach_double_encoded_tool_text_but_not_the_envelope_or_answer_tokens() -> None:
    rows = json.dumps(json.dumps({"results": [{"title": "Old title", "rank": 1}], "delta": "[1]"}))
    message = {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": rows}]}}
    nulled = json.loads(payload.null_fields(FakeResponse(200, body=message)).body_bytes())
    assert (nulled["jsonrpc"], nulled["id"]) == ("2.0", 7)
    inner = json.loads(json.loads(nulled["result"]["content"][0]["text"]))
    assert inner == {"results": [{"title": None, "rank": None}], "delta": None}
    swapped = json.loads(payload.replace_text("Old title", "New")(FakeResponse(200, body=message)).body_bytes())
    inner = json.loads(json.loads(swapped["result"]["content"][0]["text"]))
    assert inner == {"results": [{"title": "New", "rank": 1}], "delta": "[1]"}


# --------------------------------------------------------------------------- the TUI


TUI_PROVIDERS = ("brave", "ddgs", "exa", "openai")
"""One of each shape: a JSON API, DuckDuckGo's HTML page, an MCP tool text, a model's event stream."""


LITERAL_TITLE = "[bold red]x[/]"
"""Part of the hostile title as it must read on screen: markup shown, not applied."""


def screen_text(app: WebSearchApp) -> str:
    """The app's current frame as exported (SVG), non-breaking spaces as spaces."""
    return app.export_screenshot().replace("&#160;", " ")


async def test_hostile_titles_render_literally_in_the_panes(caplog: pytest.LogCaptureFixture) -> None:
    normals = {provider: await baseline(provider, caplog) for provider in TUI_PROVIDERS}
    with FakeServer() as server:
        for provider, normal in normals.items():
            FAULTS["markup_title"](server, provider, normal)
        config = parse_config(tomlkit.parse(config_toml(server.base_url, providers=list(TUI_PROVIDERS))).unwrap())
        app = WebSearchApp(config, Engine.from_config(config), status_resolver=fixed_status)
        async with app.run_test(size=(210, 50)) as pilot:
            await submit(pilot, QUERY)
            await wait_for_search(app, timeout=20)
            for provider in TUI_PROVIDERS:
                pane = app.screen.query_one(f"#pane-{provider}", ProviderPane)
                assert pane.status == "done", (provider, pane.response)
                shown = [row.plain for row in pane.query_one(SourceList).rows]
                assert any(payload.MARKUP_TITLE_SANITIZED in text for text in shown), (provider, shown)
                assert not any(CONTROL.search(text) for text in shown), (provider, shown)
            # the panes hold their sources now, but on a loaded machine the frame that shows them may
            # not be painted yet (seen: every pane body still blank): wait for it, not for a time
            await until(
                pilot, lambda: LITERAL_TITLE in screen_text(app), "the screen shows the hostile title literally"
            )
            screenshot = app.export_screenshot()
    assert "\x1b" not in screenshot and "\x07" not in screenshot and "pwned" not in screenshot
    assert LITERAL_TITLE in screenshot.replace("&#160;", " ")
