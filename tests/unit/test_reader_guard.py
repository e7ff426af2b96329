"""The reader's SSRF guard, against pages served on loopback: what is refused (loopback, private,
link-local, unique-local, multicast, unspecified, reserved, cloud metadata; IPv6 forms carrying an
IPv4 address), what ``[reader] allow_private`` lets through, redirects re-checked on every hop, a DNS
answer that changes between lookups, and URLs that are not http(s) or carry credentials."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterator, Mapping, Sequence

import pytest

from tests.page_server import PageServer, html_reply, redirect_reply
from websearch_tui.core.pages import PageError, PageReason, ReaderSettings
from websearch_tui.reader import Reader, read_page
from websearch_tui.reader.guard import AddressPolicy, check_url, refusal

ARTICLE = (
    "<html><head><title>Guarded page</title></head><body><article><h1>Guarded page</h1>"
    + "<p>This page is served on the loopback interface for the reader's guard tests, with enough words.</p>" * 4
    + "</article></body></html>"
)


class FakeDns:
    """A resolver with fixed answers per host name (each a list of answers, one per lookup, the last
    repeated), counting lookups."""

    def __init__(self, answers: Mapping[str, Sequence[Sequence[str]]]) -> None:
        self.answers = {host: list(rounds) for host, rounds in answers.items()}
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        rounds = self.answers.get(host)
        if not rounds:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return list(rounds.pop(0) if len(rounds) > 1 else rounds[0])


@pytest.fixture
def server() -> Iterator[PageServer]:
    with PageServer() as page_server:
        page_server.route("/article", html_reply(ARTICLE))
        yield page_server


async def read(url: str, allow: Sequence[str] = (), dns: FakeDns | None = None) -> object:
    """Read ``url`` with a reader allowing ``allow``; the page, or the :class:`PageError` raised."""
    reader = Reader(ReaderSettings(allow_private=tuple(allow), timeout=10), resolver=dns or FakeDns({}))
    try:
        return await reader.read(url)
    except PageError as exc:
        return exc
    finally:
        await reader.aclose()


def blocked(outcome: object) -> str:
    """The message of a ``blocked`` failure (the test fails on anything else)."""
    assert isinstance(outcome, PageError), outcome
    assert outcome.reason is PageReason.BLOCKED, outcome
    return outcome.message


# --- which addresses are refused -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("127.0.0.1", "a loopback address"),
        ("127.255.0.9", "a loopback address"),
        ("10.0.0.5", "a private address"),
        ("172.16.0.1", "a private address"),
        ("172.31.255.254", "a private address"),
        ("192.168.1.1", "a private address"),
        ("169.254.1.1", "a link-local address"),
        ("169.254.169.254", "a cloud metadata address"),
        ("169.254.170.2", "a cloud metadata address"),
        ("100.100.100.200", "a cloud metadata address"),
        ("0.0.0.0", "an unspecified address"),
        ("224.0.0.1", "a multicast address"),
        ("100.64.0.1", "a reserved address"),
        ("240.0.0.1", "a reserved address"),
        ("::1", "a loopback address"),
        ("::", "an unspecified address"),
        ("fc00::1", "a unique-local address"),
        ("fd12:3456::1", "a unique-local address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("fe80::1", "a link-local address"),
        ("ff02::1", "a multicast address"),
        ("::ffff:10.0.0.5", "a private address"),
        ("::ffff:169.254.169.254", "a cloud metadata address"),
        ("::127.0.0.1", "a reserved address"),
        ("2002:a00:1::1", "a private address"),  # 6to4 around 10.0.0.1
        ("64:ff9b::7f00:1", "a loopback address"),  # NAT64 around 127.0.0.1
    ],
)
def test_addresses_that_are_not_public_are_named(address: str, words: str) -> None:
    assert refusal(ipaddress.ip_address(address)) == words


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None


# --- loopback, with and without allow_private ----------------------------------------------------------


async def test_loopback_is_blocked_unless_allowed(server: PageServer) -> None:
    message = blocked(await read(server.url("/article")))
    assert message == "blocked: 127.0.0.1 is a loopback address; add it to [reader] allow_private to read it"
    assert server.hits == []  # refused before connecting
    page = await read(server.url("/article"), allow=["127.0.0.1"])
    assert getattr(page, "title", None) == "Guarded page"
    assert server.hits == ["/article"]


async def test_read_page_takes_allow_private(server: PageServer) -> None:
    page = await read_page(server.url("/article"), allow_private=["127.0.0.0/8"])
    assert page.title == "Guarded page" and page.status == 200


async def test_a_name_resolving_to_loopback_is_blocked_and_can_be_allowed_by_name_or_address(
    server: PageServer,
) -> None:
    dns = FakeDns({"site.test": [["127.0.0.1"]]})
    message = blocked(await read(server.url("/article", host="site.test"), dns=dns))
    assert message == (
        "blocked: site.test resolves to 127.0.0.1, a loopback address; add it to [reader] allow_private to read it"
    )
    for allow in (["site.test"], ["SITE.TEST."], ["127.0.0.1"]):
        page = await read(server.url("/article", host="site.test"), allow=allow, dns=dns)
        assert getattr(page, "final_url", "").startswith("http://site.test:"), page


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("10.0.0.5", "a private address"),
        ("172.16.4.4", "a private address"),
        ("192.168.0.10", "a private address"),
        ("169.254.0.7", "a link-local address"),
        ("169.254.169.254", "a cloud metadata address"),
        ("::1", "a loopback address"),
        ("fc00::5", "a unique-local address"),
        ("fe80::5", "a link-local address"),
    ],
)
async def test_a_name_resolving_to_a_private_address_is_blocked_before_any_connection(
    address: str, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_connection(*args: object, **kwargs: object) -> None:
        raise AssertionError("a connection was attempted")

    monkeypatch.setattr("httpcore.AnyIOBackend.connect_tcp", no_connection)
    dns = FakeDns({"example.test": [[address]]})
    message = blocked(await read("https://example.test/page", dns=dns))
    assert (
        message == f"blocked: example.test resolves to {address}, {words}; add it to [reader] allow_private to read it"
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.5/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[fc00::1]/",
        "http://[fe80::1]/",
        "http://[fd00:ec2::254]/",
        "http://0.0.0.0/",
        "http://[::ffff:127.0.0.1]/",
    ],
)
async def test_address_literals_are_blocked(url: str) -> None:
    dns = FakeDns({})
    message = blocked(await read(url, dns=dns))
    assert message.endswith("; add it to [reader] allow_private to read it")
    assert dns.lookups == []


async def test_metadata_host_names_are_blocked_without_a_lookup() -> None:
    dns = FakeDns({"metadata.google.internal": [["8.8.8.8"]]})
    message = blocked(await read("http://metadata.google.internal/computeMetadata/v1/", dns=dns))
    assert "metadata.google.internal is a cloud metadata service" in message
    assert dns.lookups == []


async def test_one_private_address_among_public_ones_blocks_the_name() -> None:
    dns = FakeDns({"mixed.test": [["93.184.215.14", "10.1.2.3"]]})
    message = blocked(await read("https://mixed.test/", dns=dns))
    assert "mixed.test resolves to 10.1.2.3, a private address" in message


# --- redirects and changing DNS answers --------------------------------------------------------------


async def test_a_redirect_into_a_private_address_is_blocked(server: PageServer) -> None:
    server.route("/jump", redirect_reply("http://10.0.0.5/admin"))
    message = blocked(await read(server.url("/jump"), allow=["127.0.0.1"]))
    assert message == "blocked: 10.0.0.5 is a private address; add it to [reader] allow_private to read it"
    assert server.hits == ["/jump"]


async def test_every_redirect_hop_is_checked_again(server: PageServer) -> None:
    """``site.test`` is allowed by name; it redirects to ``evil.test``, which resolves to the same
    loopback address but is not allowed."""
    dns = FakeDns({"site.test": [["127.0.0.1"]], "evil.test": [["127.0.0.1"]]})
    server.route("/hop", redirect_reply(server.url("/article", host="evil.test")))
    message = blocked(await read(server.url("/hop", host="site.test"), allow=["site.test"], dns=dns))
    assert message.startswith("blocked: evil.test resolves to 127.0.0.1, a loopback address")
    assert server.hits == ["/hop"]


async def test_a_dns_answer_that_changes_between_lookups_cannot_slip_through(
    server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first lookup answers an allowed address, every later one a private address. The page is
    read over the address that was checked (nothing looks the name up a second time: the system's
    resolver would fail the test), and a new connection after the answer changed is refused."""

    def no_second_lookup(*args: object, **kwargs: object) -> object:
        raise AssertionError("the name was looked up again outside the guard")

    monkeypatch.setattr(socket, "getaddrinfo", no_second_lookup)
    dns = FakeDns({"rebind.test": [["127.0.0.1"], ["10.0.0.5"]]})
    server.route("/close", html_reply(ARTICLE))
    reader = Reader(ReaderSettings(allow_private=("127.0.0.1",), timeout=10), resolver=dns)
    try:
        page = await reader.read(server.url("/article", host="rebind.test"))
        assert page.title == "Guarded page"
        await reader.aclose()  # its connections closed: the next read connects (and looks up) again
        with pytest.raises(PageError) as caught:
            await reader.read(server.url("/article", host="rebind.test"))
    finally:
        await reader.aclose()
    assert caught.value.message.startswith("blocked: rebind.test resolves to 10.0.0.5, a private address")
    assert dns.lookups == ["rebind.test", "rebind.test"]
    assert server.hits == ["/article"]


# --- URLs ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://example.com/file", "only http and https pages can be read"),
        ("file:///etc/passwd", "only http and https pages can be read"),
        ("javascript:alert(1)", "only http and https pages can be read"),
        ("//example.com/x", "only http and https pages can be read"),
        ("https://user:secret@example.com/", "URLs with a user name or password are not read"),
        ("https://example.com/\x1b[31m", "not a usable URL"),
    ],
)
async def test_urls_that_are_not_plain_http_are_refused(url: str, words: str) -> None:
    outcome = await read(url)
    assert isinstance(outcome, PageError) and outcome.reason is PageReason.BAD_URL
    assert words in outcome.message
    assert "secret" not in outcome.message and "\x1b" not in outcome.message


def test_check_url_normalises() -> None:
    assert str(check_url(" https://Example.COM/a b ")) == "https://example.com/a%20b"


def test_policy_entries_are_checked() -> None:
    with pytest.raises(ValueError, match="not a host name"):
        AddressPolicy(["not a host"])
    policy = AddressPolicy(["10.0.0.0/8", "[::1]"])
    policy.check("x.test", [ipaddress.ip_address("10.9.9.9"), ipaddress.ip_address("::1")])


async def test_concurrent_reads_share_one_reader(server: PageServer) -> None:
    reader = Reader(ReaderSettings(allow_private=("127.0.0.1",), timeout=10))
    try:
        pages = await asyncio.gather(*(reader.read(server.url("/article")) for _ in range(8)))
    finally:
        await reader.aclose()
    assert {page.title for page in pages} == {"Guarded page"} and len(server.hits) == 8
