"""The domain shown is where a browser goes (issue 27): URLs are read by the WHATWG URL Standard wherever
a host is shown, merged or opened, and mixed-script hosts are shown as punycode.

The fuzz test builds URLs from authority pieces on which RFC 3986 readers (``urllib.parse``, ``yarl``)
and browsers disagree (backslashes, ``@``, percent-encoded and full-width dots, ports, user info) and
checks that once :func:`~websearch_tui.core.text.safe_url` has passed a URL, every reader finds the
host a browser finds, and that is the host shown.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import ada_url
import pytest
import yarl
from hypothesis import given, settings
from hypothesis import strategies as st

from websearch_tui.core.merge import merge_responses
from websearch_tui.core.models import SearchResponse, Source
from websearch_tui.core.text import canonical_url, host_of, safe_url
from websearch_tui.core.urls import browser_url, display_host

SPOOF = "https://evil.example\\@bank.example/login"


def test_a_backslash_ends_the_authority_as_browsers_read_it() -> None:
    assert urlsplit(SPOOF).hostname == "bank.example"  # what the app read before
    assert safe_url(SPOOF) == "https://evil.example/@bank.example/login"
    assert host_of(SPOOF) == "evil.example"
    assert canonical_url(SPOOF) == "https://evil.example/@bank.example/login"


@pytest.mark.parametrize(
    ("url", "shown", "host"),
    [
        ("https://bank.example:443\\@evil.example/", "https://bank.example/@evil.example/", "bank.example"),
        ("https://evil%2Eexample/x", "https://evil.example/x", "evil.example"),
        ("https://bank\u3002example/", "https://bank.example/", "bank.example"),
        ("http://0x7f.1/admin", "http://127.0.0.1/admin", "127.0.0.1"),
        ("https:evil.example/path", "https://evil.example/path", "evil.example"),
        ("https://evil.example\\\\@x/", "https://evil.example//@x/", "evil.example"),
    ],
)
def test_authorities_rfc_3986_reads_otherwise_are_normalised(url: str, shown: str, host: str) -> None:
    assert safe_url(url) == shown
    assert host_of(url) == host


def test_plain_urls_are_kept_as_sent() -> None:
    for url in (
        "https://example.com",
        "https://Example.com/a/b?q=1#top",
        "https://пример.рф/путь",
        "http://[::1]:8080/",
        "https://user@bank.example@evil.example/",  # both readings: user "user@bank.example" at evil.example
    ):
        assert safe_url(url) == url


def test_other_schemes_and_hostless_urls_are_refused() -> None:
    for url in ("javascript:alert(1)", "file:///etc/passwd", "https://", "data:text/html,x", "mailto:a@b.example"):
        assert safe_url(url) is None
        assert host_of(url) == ""


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://аррӏе.com/", "xn--80ak6aa92e.com"),  # Cyrillic letters under a Latin TLD
        ("https://раураl.com/", "xn--l-7sba6dbr.com"),  # Cyrillic mixed with Latin in one label
        ("https://www.xn--80ak6aa92e.com/", "xn--80ak6aa92e.com"),  # sent as punycode: stays so
        ("https://пример.рф/", "пример.рф"),
        ("https://www.münchen.de/", "münchen.de"),
        ("https://日本語.jp/", "日本語.jp"),
        ("https://xn--e1afmkfd.xn--p1ai/", "пример.рф"),
    ],
)
def test_mixed_script_hosts_are_shown_as_punycode(url: str, host: str) -> None:
    assert host_of(url) == host


def test_a_homograph_url_is_kept_in_punycode() -> None:
    assert safe_url("https://аррӏе.com/login") == "https://xn--80ak6aa92e.com/login"
    assert display_host("xn--80ak6aa92e.com") == "xn--80ak6aa92e.com"


def test_the_merged_view_keeps_the_spoof_apart_from_the_bank() -> None:
    spoof = Source(safe_url(SPOOF) or "", "Bank login")
    bank = Source("https://bank.example/login", "Bank login")
    rows = merge_responses([SearchResponse("a", sources=[spoof]), SearchResponse("b", sources=[bank])])
    assert sorted(host_of(row.link) for row in rows) == ["bank.example", "evil.example"]


_HOSTS = st.sampled_from(
    ["bank.example", "evil.example", "EVIL.example", "evil%2Eexample", "bank\u3002example", "x.example."]
)
_PIECES = st.lists(
    st.sampled_from(["\\", "@", ":443", ":8080", "/", "?", "#", "user:pw@", "%40", "\\\\", "@@"]) | _HOSTS,
    min_size=1,
    max_size=6,
)


@settings(max_examples=400, deadline=None)
@given(scheme=st.sampled_from(["https://", "http://", "HTTPS://", "https:", "https:///"]), pieces=_PIECES)
def test_every_reader_finds_the_browser_host_in_a_kept_url(scheme: str, pieces: list[str]) -> None:
    url = scheme + "".join(pieces)
    kept = safe_url(url)
    web = browser_url(url)
    if kept is None:
        assert web is None
        return
    host = ada_url.URL(url).hostname  # where a browser goes for the URL as sent
    assert ada_url.URL(kept).hostname == host
    assert (urlsplit(kept).hostname or "") == host.strip("[]")
    assert yarl.URL(kept).raw_host == host.strip("[]")
    assert host_of(url) == display_host(host).removeprefix("www.")
    assert canonical_url(url) == canonical_url(kept)
