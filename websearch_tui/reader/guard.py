"""The reader's SSRF guard: a page's URL comes from a provider's answer, so it is untrusted, and a
fetch must never reach an address that is not public unless the user allowed it.

- :func:`check_url`: only absolute ``http``/``https`` URLs with a host and without credentials.
- :class:`AddressPolicy`: which addresses are refused (loopback, private, link-local, unique-local,
  multicast, unspecified, reserved, cloud metadata; also inside IPv4-mapped, 6to4, Teredo and NAT64
  IPv6 addresses) and which hosts ``[reader] allow_private`` lets through anyway.
- :class:`GuardedBackend`: an httpcore network backend that resolves the host itself, checks every
  address it gets and connects to a checked address (TLS still names the host, so SNI and
  certificate checks are unchanged). The check is made when the connection is made, for every
  connection, so a redirect to another host is checked again and a DNS answer that changes between
  a check and the connect cannot slip through: no second lookup is ever made.

A refused address raises :class:`~websearch_tui.core.pages.PageError` with reason ``blocked``:
``"blocked: example.test resolves to 10.0.0.5, a private address; add it to [reader] allow_private
to read it"``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence

import httpcore
import httpx

from websearch_tui.core.pages import Network, PageError, PageReason, allowed_host
from websearch_tui.providers.transport.loop_backend import LoopBackend

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""``resolve(host, port) -> addresses`` (IP address strings, in the order to try them); raises
``OSError`` (``socket.gaierror``) when the name does not resolve."""

METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(text)
    for text in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle ...
        "169.254.170.2",  # AWS ECS task metadata
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
    )
)
"""Cloud instance-metadata addresses: named as such when refused."""
METADATA_HOSTS = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"}
)
"""Host names of cloud metadata services, refused by name whatever they resolve to."""
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
ALLOW_HINT = "add it to [reader] allow_private to read it"


def check_url(url: str) -> httpx.URL:
    """``url`` parsed, if the reader may ask for it.

    Raises:
        PageError: ``bad_url`` for a URL that is not absolute http(s) with a host, that carries a
            user name or password, or that cannot be parsed.
    """
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise PageError(PageReason.BAD_URL, f"not a usable URL ({exc}): {url[:200]}", url=url) from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise PageError(
            PageReason.BAD_URL,
            f"only http and https pages can be read, with a host (such as https://example.com/page): {url[:200]}",
            url=url,
        )
    if parsed.userinfo:
        raise PageError(
            PageReason.BAD_URL,
            f"URLs with a user name or password are not read (credentials would be sent to {parsed.host}); "
            "remove them from the URL",
            url=url,
        )
    return parsed


def refusal(address: Address) -> str | None:
    """Why ``address`` is not public (``"a private address"``, ``"a cloud metadata address"``, ...),
    or ``None`` when it is a public address. An IPv6 address that carries an IPv4 address
    (IPv4-mapped, 6to4, Teredo, NAT64) is judged by that IPv4 address."""
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return refusal(embedded)
    for attribute, words in _CATEGORIES:
        if getattr(address, attribute):
            return words
    if any(address in network for network in _PRIVATE if network.version == address.version):
        return "a unique-local address" if address.version == 6 else "a private address"
    return None if address.is_global else "a reserved address"


_CATEGORIES = (
    ("is_unspecified", "an unspecified address"),
    ("is_loopback", "a loopback address"),
    ("is_link_local", "a link-local address"),
    ("is_multicast", "a multicast address"),
    ("is_reserved", "a reserved address"),  # 240.0.0.0/4, ::/8 (IPv4-compatible ::127.0.0.1 among them)
)
_PRIVATE = tuple(ipaddress.ip_network(text) for text in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"))
"""Private networks (RFC 1918) and IPv6 unique-local addresses (RFC 4193)."""


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries: IPv4-mapped (``::ffff:10.0.0.1``), 6to4
    (``2002::/16``), Teredo's client (``2001::/32``) or NAT64 (``64:ff9b::/96``); else ``None``."""
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.ipv4_mapped or address.sixtofour or (address.teredo[1] if address.teredo else None)


class AddressPolicy:
    """Which hosts and addresses a fetch may reach.

    Args:
        allow_private: ``[reader] allow_private`` entries (host names, IP addresses, networks;
            see :func:`~websearch_tui.core.pages.allowed_host`): a host named here may resolve to
            any address, an address or network listed here may be reached whatever the name.

    Raises:
        ValueError: an entry that is none of those (the config loader checks them first).
    """

    def __init__(self, allow_private: Iterable[str] = ()) -> None:
        entries = [allowed_host(entry) for entry in allow_private]
        self.names = frozenset(entry for entry in entries if isinstance(entry, str))
        self.networks: tuple[Network, ...] = tuple(entry for entry in entries if not isinstance(entry, str))

    def check(self, host: str, addresses: Sequence[Address]) -> None:
        """Refuse ``host`` unless it is allowed by name, or every one of its ``addresses`` is public
        or allowed (a name with one refused address among public ones is refused: which one a
        connection would get is not ours to choose).

        Raises:
            PageError: ``blocked``, naming the host, the address and what kind of address it is.
        """
        name = _host_key(host)
        if name in self.names:
            return
        if name in METADATA_HOSTS:
            raise PageError(PageReason.BLOCKED, f"blocked: {host} is a cloud metadata service; {ALLOW_HINT}")
        for address in addresses:
            why = refusal(address)
            if why is not None and not self._allows(address):
                where = f"{host} is" if _is_literal(host) else f"{host} resolves to {address},"
                raise PageError(PageReason.BLOCKED, f"blocked: {where} {why}; {ALLOW_HINT}")

    def _allows(self, address: Address) -> bool:
        candidates = [address]
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            candidates.append(address.ipv4_mapped)
        return any(item in net for item in candidates for net in self.networks if item.version == net.version)


def _host_key(host: str) -> str:
    """``host`` as it is compared: lower case, no trailing dot, no IPv6 brackets."""
    return host.strip().lower().rstrip(".").strip("[]")


def _is_literal(host: str) -> bool:
    """True when ``host`` is an IP address rather than a name."""
    try:
        ipaddress.ip_address(_host_key(host))
    except ValueError:
        return False
    return True


async def system_resolver(host: str, port: int) -> list[str]:
    """The system's answer for ``host`` (``getaddrinfo``, in the event loop's executor): every
    address, once each, in the order given.

    Raises:
        OSError: the name does not resolve (``socket.gaierror``).
    """
    answers = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(sockaddr[0]) for *_, sockaddr in answers))


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that connects only to addresses ``policy`` allows.

    Each ``connect_tcp(host, ...)`` resolves ``host`` once with ``resolver``, checks every address
    (:meth:`AddressPolicy.check`) and connects to the checked addresses in turn, through ``inner``
    (the shared :class:`~websearch_tui.providers.transport.loop_backend.LoopBackend`). Unix sockets are refused.

    Raises (from ``connect_tcp``):
        PageError: ``blocked`` for a refused host or address.
        httpcore.ConnectError: the name does not resolve, or no address accepted the connection.
        httpcore.ConnectTimeout: resolving and connecting took longer than the connect timeout.
    """

    def __init__(
        self,
        policy: AddressPolicy,
        resolver: Resolver = system_resolver,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.policy = policy
        self.resolver = resolver
        self.inner = inner or LoopBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Resolve, check and connect (see the class)."""
        addresses = await self.checked_addresses(host, port, timeout)
        failure: httpcore.ConnectError | None = None
        for address in addresses:
            try:
                return await self.inner.connect_tcp(
                    str(address), port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
        raise failure or httpcore.ConnectError(f"no address for {host}")

    async def checked_addresses(self, host: str, port: int, timeout: float | None) -> list[Address]:
        """``host``'s addresses (itself, for an IP address), each one allowed by the policy.

        Raises:
            PageError: ``blocked``.
            httpcore.ConnectError: the name does not resolve to any address.
            httpcore.ConnectTimeout: no answer within ``timeout`` seconds.
        """
        key = _host_key(host)
        if _is_literal(key):
            addresses = [ipaddress.ip_address(key)]
        else:
            self.policy.check(host, [])  # a metadata host name is refused before it is looked up
            addresses = await self._resolve(host, port, timeout)
        self.policy.check(host, addresses)
        return addresses

    async def _resolve(self, host: str, port: int, timeout: float | None) -> list[Address]:
        try:
            async with asyncio.timeout(timeout):
                answers = await self.resolver(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host} took longer than {timeout} s") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        addresses = []
        for answer in answers:
            try:
                addresses.append(ipaddress.ip_address(answer.split("%", 1)[0]))  # "fe80::1%eth0": a zone
            except ValueError:
                continue
        if not addresses:
            raise httpcore.ConnectError(f"[Errno -2] Name or service not known: {host} has no address")
        return addresses

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None
    ) -> httpcore.AsyncNetworkStream:
        """Refused: the reader reaches hosts over TCP only.

        Raises:
            PageError: ``blocked``.
        """
        raise PageError(PageReason.BLOCKED, "blocked: the reader does not connect to Unix sockets")

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (httpcore's retry backoff), as the inner backend does."""
        await self.inner.sleep(seconds)
