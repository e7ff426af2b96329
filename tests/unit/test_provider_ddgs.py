"""DuckDuckGo provider: the ddgs library path (monkeypatched, no network) and the HTML endpoint path.

Contexts that pass one ``state`` share what one engine keeps for DuckDuckGo (its lock, cool-downs
and the library call in flight); every other context starts fresh, as a run of another engine."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import ddgs as ddgs_library
import httpx
import pytest
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

from tests.helpers import collect, make_ctx
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Metadata, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers import ddgs as provider
from websearch_tui.providers.base import ProviderState

FAKE_BASE = "http://127.0.0.1:8765"


# --- library path ------------------------------------------------------------------------------


class FakeDDGS:
    """Stands in for ``ddgs.DDGS``; records constructor and ``text`` arguments."""

    calls: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    error: Exception | None = None
    delay: float = 0.0
    active = 0
    max_active = 0
    lock = threading.Lock()

    def __init__(self, timeout: int | None = 5, **kwargs: Any) -> None:
        self.timeout = timeout

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        cls = type(self)
        with cls.lock:
            cls.active += 1
            cls.max_active = max(cls.max_active, cls.active)
        try:
            cls.calls.append({"query": query, "timeout": self.timeout, "thread": threading.current_thread(), **kwargs})
            if cls.delay:
                time.sleep(cls.delay)
            if cls.error is not None:
                raise cls.error
            return list(cls.rows)
        finally:
            with cls.lock:
                cls.active -= 1


@pytest.fixture
def fake_ddgs(monkeypatch: pytest.MonkeyPatch) -> type[FakeDDGS]:
    class Fake(FakeDDGS):
        calls: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        error: Exception | None = None
        delay = 0.0
        active = 0
        max_active = 0
        lock = threading.Lock()

    monkeypatch.setattr(ddgs_library, "DDGS", Fake)
    return Fake


def library_rows(n: int) -> list[dict[str, Any]]:
    return [
        {"title": f"Result &amp; {i}", "href": f"https://r{i}.example/", "body": f"<b>body</b> {i}"} for i in range(n)
    ]


async def test_library_request_and_mapping(fake_ddgs: type[FakeDDGS]) -> None:
    fake_ddgs.rows = [
        {"title": "First", "href": "https://one.example/a", "body": "one &amp; only"},
        {"title": "", "url": "https://two.example/", "snippet": "two"},
        {"title": "No URL", "body": "dropped"},
        {"title": "Bad scheme", "href": "javascript:alert(1)"},
        {"title": "Dup", "href": "https://ONE.example/a#frag"},
    ]
    settings = ProviderSettings(options={"region": "de-de", "safesearch": "off", "backend": "duckduckgo"})
    ctx = make_ctx("ddgs", settings=settings)
    events, response = await collect("ddgs", SearchRequest("python asyncio", recency="week", max_results=5), ctx)
    call = fake_ddgs.calls[0]
    assert call["query"] == "python asyncio"
    assert call["max_results"] == 5
    assert call["region"] == "de-de"
    assert call["timelimit"] == "w"
    assert call["safesearch"] == "off"
    assert call["backend"] == "duckduckgo"
    assert isinstance(call["timeout"], int) and 1 <= call["timeout"] <= 30  # what is left of the 30 s deadline
    assert call["thread"] is not threading.main_thread()  # ran off the event loop
    assert [(s.title, s.url, s.snippet) for s in response.sources] == [
        ("First", "https://one.example/a", "one & only"),
        ("https://two.example/", "https://two.example/", "two"),
    ]
    assert isinstance(events[0], SourcesFound) and isinstance(events[-1], Metadata)
    assert response.auth_mode == "keyless"
    assert response.answer is None


async def test_library_defaults_and_slice(fake_ddgs: type[FakeDDGS]) -> None:
    fake_ddgs.rows = library_rows(12)
    _, response = await collect("ddgs", SearchRequest("q", max_results=3), make_ctx("ddgs"))
    call = fake_ddgs.calls[0]
    assert (call["region"], call["safesearch"], call["backend"], call["timelimit"]) == (
        "wt-wt",
        "moderate",
        "duckduckgo",  # DuckDuckGo itself, not ddgs's metasearch ("auto")
        None,
    )
    assert len(response.sources) == 3
    assert response.notes == []


@pytest.mark.parametrize(
    ("backend", "note"),
    [
        ("auto", "Results from the ddgs backend 'auto': a metasearch over several engines, not DuckDuckGo alone."),
        (" Bing,Brave ", "Results from the ddgs backend 'bing,brave', not DuckDuckGo."),
    ],
)
async def test_another_ddgs_backend_is_named_in_a_note(fake_ddgs: type[FakeDDGS], backend: str, note: str) -> None:
    fake_ddgs.rows = library_rows(1)
    ctx = make_ctx("ddgs", settings=ProviderSettings(options={"backend": backend}))
    _, response = await collect("ddgs", SearchRequest("q"), ctx)
    assert fake_ddgs.calls[0]["backend"] == backend.strip().lower()
    assert response.notes == [note]


@pytest.mark.parametrize(
    ("error", "kind", "text"),
    [
        (RatelimitException("202 Ratelimit"), ErrorKind.RATE_LIMIT, "DuckDuckGo is rate limiting this address"),
        (TimeoutException("timed out"), ErrorKind.TIMEOUT, "DuckDuckGo did not answer in time."),
        (DDGSException("KeyError: 'weird markup'"), ErrorKind.PROTOCOL, "weird markup"),
        (
            # what ddgs 9 raises offline (primp's error inside), for the duckduckgo backend
            DDGSException(
                "DNSError: DNSError('error sending request for url (https://html.duckduckgo.com/html/) > error "
                'resolving DNS > DNS error: no records found for Query { name: Name("html.duckduckgo.com.") }\')'
            ),
            ErrorKind.NETWORK,
            # the words of every provider's DNS failure (_http.dns_error)
            "DuckDuckGo network error: could not resolve html.duckduckgo.com. Check the connection or base URL.",
        ),
        (
            # reqwest's getaddrinfo resolver: the words of EAI_NONAME
            DDGSException(
                "ConnectError: ConnectError('error sending request for url (https://html.duckduckgo.com/html/) > "
                "client error (Connect) > dns error: failed to lookup address information: Name or service not "
                "known')"
            ),
            ErrorKind.NETWORK,
            "DuckDuckGo network error: could not resolve html.duckduckgo.com. Check the connection or base URL.",
        ),
        (
            # no resolver answered: a failed connection, not a name that does not exist
            DDGSException(
                "DNSError: DNSError('error sending request for url (https://html.duckduckgo.com/html/) > error "
                "resolving DNS > DNS error: request timed out')"
            ),
            ErrorKind.NETWORK,
            "DuckDuckGo network error: could not connect to html.duckduckgo.com. Check the connection (and DDGS_PROXY",
        ),
        (
            DDGSException(
                "DNSError: DNSError('error sending request for url (https://html.duckduckgo.com/html/) > "
                "failed to lookup address information: Temporary failure in name resolution')"
            ),
            ErrorKind.NETWORK,
            "DuckDuckGo network error: could not connect to html.duckduckgo.com. Check the connection (and DDGS_PROXY",
        ),
        (
            DDGSException(
                "ConnectError: ConnectError('error sending request for url (https://html.duckduckgo.com/html/)')"
            ),
            ErrorKind.NETWORK,
            "DuckDuckGo network error: could not connect to html.duckduckgo.com. Check the connection",
        ),
        (
            DDGSException("ProxyError: ProxyError('connection refused')"),
            ErrorKind.NETWORK,
            "DuckDuckGo network error: proxy error. Check DDGS_PROXY.",
        ),
    ],
)
async def test_library_errors_are_mapped(
    monkeypatch: pytest.MonkeyPatch, fake_ddgs: type[FakeDDGS], error: Exception, kind: ErrorKind, text: str
) -> None:
    monkeypatch.delenv("DDGS_PROXY", raising=False)
    fake_ddgs.error = error
    with pytest.raises(ProviderError) as info:
        await collect("ddgs", SearchRequest("q"), make_ctx("ddgs"))
    assert info.value.kind is kind
    assert text in info.value.message
    assert "Error(" not in info.value.message and "_ylt" not in info.value.message  # no raw exception text


async def test_a_name_that_does_not_resolve_behind_ddgs_proxy_may_be_the_proxys(
    monkeypatch: pytest.MonkeyPatch, fake_ddgs: type[FakeDDGS]
) -> None:
    """With ``DDGS_PROXY`` set the library connects to the proxy, so the name it could not resolve
    may be the proxy's: the error says so and points at ``DDGS_PROXY``."""
    monkeypatch.setenv("DDGS_PROXY", "socks5://proxy.example:9150")
    fake_ddgs.error = DDGSException(
        "DNSError: DNSError('error sending request for url (https://html.duckduckgo.com/html/) > error "
        'resolving DNS > DNS error: no records found for Query { name: Name("proxy.example.") }\')'
    )
    with pytest.raises(ProviderError) as info:
        await collect("ddgs", SearchRequest("q"), make_ctx("ddgs"))
    assert info.value.kind is ErrorKind.NETWORK
    assert info.value.message == (
        "DuckDuckGo network error: could not resolve the proxy or html.duckduckgo.com. "
        "Check the connection (and DDGS_PROXY, if you use a proxy)."
    )


async def test_library_no_results_is_empty_not_error(fake_ddgs: type[FakeDDGS]) -> None:
    fake_ddgs.error = DDGSException("No results found.")
    _, response = await collect("ddgs", SearchRequest("q"), make_ctx("ddgs"))
    assert response.sources == []
    assert not response.is_renderable()


async def test_library_rate_limit_cools_down(fake_ddgs: type[FakeDDGS]) -> None:
    state = ProviderState()
    fake_ddgs.error = RatelimitException("ratelimit")
    with pytest.raises(ProviderError):
        await collect("ddgs", SearchRequest("q"), make_ctx("ddgs", state=state))
    fake_ddgs.error = None
    with pytest.raises(ProviderError) as info:
        await collect("ddgs", SearchRequest("q"), make_ctx("ddgs", state=state))
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert "retry in" in info.value.message
    assert len(fake_ddgs.calls) == 1  # the second run never reached DuckDuckGo


async def test_library_requests_are_serialised(fake_ddgs: type[FakeDDGS]) -> None:
    fake_ddgs.rows = library_rows(2)
    fake_ddgs.delay = 0.05
    state = ProviderState()
    runs = (collect("ddgs", SearchRequest(f"q{i}"), make_ctx("ddgs", state=state)) for i in range(3))
    results = await asyncio.gather(*runs)
    assert all(len(response.sources) == 2 for _, response in results)
    assert fake_ddgs.max_active == 1


async def test_cancelled_search_keeps_the_next_one_waiting(fake_ddgs: type[FakeDDGS]) -> None:
    """The library call cannot be interrupted: a new search waits for it instead of running beside it."""
    fake_ddgs.rows = library_rows(1)
    fake_ddgs.delay = 0.3
    state = ProviderState()
    first = asyncio.create_task(collect("ddgs", SearchRequest("first"), make_ctx("ddgs", state=state)))
    while not fake_ddgs.calls:
        await asyncio.sleep(0.01)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first  # the cancel is immediate even though the thread still runs
    _, response = await collect("ddgs", SearchRequest("second"), make_ctx("ddgs", state=state))
    assert [call["query"] for call in fake_ddgs.calls] == ["first", "second"]
    assert fake_ddgs.max_active == 1
    assert len(response.sources) == 1


async def test_202_inside_other_text_is_not_a_rate_limit(fake_ddgs: type[FakeDDGS]) -> None:
    fake_ddgs.error = DDGSException("https://10.0.202.5/ returned 500 in 2025")
    state = ProviderState()
    with pytest.raises(ProviderError) as info:
        await collect("ddgs", SearchRequest("q"), make_ctx("ddgs", state=state))
    assert info.value.kind is not ErrorKind.RATE_LIMIT
    fake_ddgs.error = None
    fake_ddgs.rows = library_rows(1)
    _, response = await collect("ddgs", SearchRequest("q"), make_ctx("ddgs", state=state))  # no cool-down started
    assert len(response.sources) == 1


# --- HTML endpoint path ----------------------------------------------------------------------------

ASYNC_BOOK = (
    "//duckduckgo.com/l/?uddg=https%3A%2F%2Frust%2Dlang.github.io%2Fasync%2Dbook%2F%3Fa%3D1%26b%3D2&amp;rut=abc"
)
AD_LINK = "https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x"

# Hand-written after the markup of html.duckduckgo.com/html/: one ad, one uddg redirect, one plain link.
RESULTS_PAGE = f"""<!DOCTYPE html>
<html><head><title>rust async at DuckDuckGo</title></head>
<body>
<div class="serp__results"><div id="links" class="results">
  <div class="result results_links results_links_deep result--ad ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a class="result__a" href="{AD_LINK}">Buy Rust Now</a></h2>
      <a class="result__snippet" href="{AD_LINK}">Sponsored</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a"
           href="{ASYNC_BOOK}">Asynchronous Programming in <b>Rust</b></a>
      </h2>
      <div class="result__extras"><div class="result__extras__url">
        <img class="result__icon__img" width="16" height="16" alt=""
             src="//external-content.duckduckgo.com/ip3/rust-lang.github.io.ico" name="i15" />
        <a class="result__url" href="{ASYNC_BOOK}">rust-lang.github.io/async-book</a>
      </div></div>
      <a class="result__snippet"
         href="{ASYNC_BOOK}">Getting started with <b>async</b>&#x2F;.await &amp; futures
        in Rust.</a>
      <div class="clear"></div>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="https://tokio.rs/">Tokio &#8212; An asynchronous Rust runtime</a>
      </h2>
      <a class="result__snippet" href="https://tokio.rs/">Tokio is an event-driven, non-blocking I/O platform.</a>
      <br>
    </div>
  </div>
</div></div>
</body></html>
"""

CHALLENGE_PAGE = """<html><body><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html" method="POST"></form></body></html>"""

NO_RESULTS_PAGE = """<html><body><div class="no-results">No results.</div></body></html>"""

CHANGED_MARKUP_PAGE = (
    """<html><body><section class="serp-v2"><article>Something new</article></section></body></html>"""
)


class HtmlServer:
    def __init__(self, status: int = 200, page: str = RESULTS_PAGE) -> None:
        self.status = status
        self.page = page
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(self.status, text=self.page, headers={"content-type": "text/html; charset=UTF-8"})

    @property
    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.requests[-1].content.decode(), keep_blank_values=True)


def html_ctx(
    server: Callable[[httpx.Request], httpx.Response], state: ProviderState | None = None, **options: Any
) -> Any:
    return make_ctx("ddgs", server, settings=ProviderSettings(base_url=FAKE_BASE, options=options), state=state)


async def test_html_request_and_parse(fake_ddgs: type[FakeDDGS]) -> None:
    server = HtmlServer()
    _, response = await collect("ddgs", SearchRequest("rust async", recency="month"), html_ctx(server))
    request = server.requests[0]
    assert request.method == "POST"
    assert str(request.url) == f"{FAKE_BASE}/html/"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert "Mozilla/5.0" in request.headers["user-agent"]
    assert server.form == {"q": ["rust async"], "b": [""], "l": ["wt-wt"], "df": ["m"]}
    assert [(s.title, s.url, s.snippet) for s in response.sources] == [
        (
            "Asynchronous Programming in Rust",
            "https://rust-lang.github.io/async-book/?a=1&b=2",
            "Getting started with async/.await & futures in Rust.",
        ),
        (
            "Tokio \u2014 An asynchronous Rust runtime",
            "https://tokio.rs/",
            "Tokio is an event-driven, non-blocking I/O platform.",
        ),
    ]
    assert response.auth_mode == "keyless"
    assert fake_ddgs.calls == []  # the library is not used when base_url is set


async def test_html_options_region_and_safesearch() -> None:
    server = HtmlServer()
    await collect("ddgs", SearchRequest("q"), html_ctx(server, region="uk-en", safesearch="off"))
    assert server.form == {"q": ["q"], "b": [""], "l": ["uk-en"], "kp": ["-2"]}


async def test_html_slices_to_max_results() -> None:
    _, response = await collect("ddgs", SearchRequest("q", max_results=1), html_ctx(HtmlServer()))
    assert [s.url for s in response.sources] == ["https://rust-lang.github.io/async-book/?a=1&b=2"]


async def test_html_base_url_already_ending_in_html() -> None:
    server = HtmlServer()
    ctx = make_ctx("ddgs", server, settings=ProviderSettings(base_url=FAKE_BASE + "/html"))
    await collect("ddgs", SearchRequest("q"), ctx)
    assert str(server.requests[0].url) == f"{FAKE_BASE}/html/"


@pytest.mark.parametrize(
    ("status", "page"),
    [(202, ""), (200, CHALLENGE_PAGE), (403, "<html>Forbidden</html>")],
    ids=["202", "challenge", "403"],
)
async def test_html_rate_limit(status: int, page: str) -> None:
    server = HtmlServer(status, page)
    state = ProviderState()
    with pytest.raises(ProviderError) as info:
        await collect("ddgs", SearchRequest("q"), html_ctx(server, state))
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert info.value.message == "DuckDuckGo is rate limiting this address; wait a few minutes"
    assert info.value.retry_after and info.value.retry_after >= 60
    # cool-down: the next search fails at once without another request
    with pytest.raises(ProviderError) as again:
        await collect("ddgs", SearchRequest("q"), html_ctx(server, state))
    assert again.value.kind is ErrorKind.RATE_LIMIT
    assert len(server.requests) == 1


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


async def test_html_cool_down_ends_on_the_context_clock() -> None:
    server = HtmlServer(202, "")
    clock, state = Clock(), ProviderState()

    def ctx() -> Any:
        return make_ctx("ddgs", server, settings=ProviderSettings(base_url=FAKE_BASE), clock=clock, state=state)

    with pytest.raises(ProviderError):
        await collect("ddgs", SearchRequest("q"), ctx())
    clock.now += provider.COOLDOWN_SECONDS - 1
    with pytest.raises(ProviderError) as cooling:
        await collect("ddgs", SearchRequest("q"), ctx())
    assert cooling.value.message.endswith("(cooling down, retry in 2 s)") and len(server.requests) == 1
    clock.now += 1
    server.status, server.page = 200, RESULTS_PAGE
    _, response = await collect("ddgs", SearchRequest("q"), ctx())
    assert len(response.sources) == 2 and len(server.requests) == 2


async def test_a_cool_down_stays_with_the_state_that_saw_the_rate_limit() -> None:
    server = HtmlServer(202, "")
    with pytest.raises(ProviderError):
        await collect("ddgs", SearchRequest("q"), html_ctx(server, ProviderState()))
    server.status, server.page = 200, RESULTS_PAGE
    _, response = await collect("ddgs", SearchRequest("q"), html_ctx(server, ProviderState()))  # another engine
    assert len(response.sources) == 2 and len(server.requests) == 2


async def test_html_page_with_changed_markup_is_an_unrecognised_response() -> None:
    with pytest.raises(ProviderError) as info:
        await collect("ddgs", SearchRequest("q"), html_ctx(HtmlServer(200, CHANGED_MARKUP_PAGE)))
    assert info.value.kind is ErrorKind.UNRECOGNISED
    assert "DuckDuckGo answered in a shape this version does not read (text/html" in info.value.message
    assert "could not read DuckDuckGo results page" in info.value.message


async def test_html_no_results_page_is_empty() -> None:
    events, response = await collect("ddgs", SearchRequest("q"), html_ctx(HtmlServer(200, NO_RESULTS_PAGE)))
    assert response.sources == []
    assert isinstance(events[0], SourcesFound)


def test_decode_result_url() -> None:
    assert provider.decode_result_url("//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%20y&rut=1") == (
        "https://a.example/x%20y"
    )
    assert provider.decode_result_url("https://duckduckgo.com/y.js?ad_domain=x") is None
    assert provider.decode_result_url("//duckduckgo.com/l/?rut=1") is None
    assert provider.decode_result_url("https://plain.example/") == "https://plain.example/"
    assert provider.decode_result_url("javascript:alert(1)") is None
