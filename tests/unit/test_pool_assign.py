"""The repaired connection pool's bookkeeping (``ReclaimingPool._assign_requests_to_connections``): the
same connections closed and the same requests given the same connections as httpcore's own (after the
orphans are reclaimed), in time linear in the pool's connections."""

from __future__ import annotations

import random

import httpcore
from httpcore._async.connection_pool import AsyncPoolRequest

from websearch_tui.providers.transport.pool_repair import ReclaimingPool, repair_pool

ORIGINS = [httpcore.URL(f"http://host{n}.test/").origin for n in range(3)]


class FakeConnection:
    """A connection in a fixed state; counts how often it is asked whether it is idle."""

    def __init__(self, name: str, origin: httpcore.Origin, state: str) -> None:
        self.name, self.origin, self.state = name, origin, state
        self.idle_asked = 0

    def can_handle_request(self, origin: httpcore.Origin) -> bool:
        return origin == self.origin

    def is_available(self) -> bool:
        return self.state == "idle"

    def is_idle(self) -> bool:
        self.idle_asked += 1
        return self.state == "idle"

    def is_closed(self) -> bool:
        return self.state == "closed"

    def has_expired(self) -> bool:
        return self.state == "expired"

    def __repr__(self) -> str:
        return self.name


def a_pool(seed: int, *, repaired: bool) -> tuple[httpcore.AsyncConnectionPool, list[FakeConnection]]:
    """A pool in a random state (the same for the same seed): connections idle, active (owned by a
    request or orphaned), closed or expired, over three origins, and requests waiting or running."""
    chance = random.Random(seed)
    pool = httpcore.AsyncConnectionPool(
        max_connections=chance.randint(2, 12), max_keepalive_connections=chance.randint(0, 8)
    )
    if repaired:
        assert repair_pool(pool)
    made = iter(range(1000))
    pool.create_connection = lambda origin: FakeConnection(f"new{next(made)}", origin, "connecting")  # type: ignore[method-assign]
    states = ("idle", "idle", "active", "closed", "expired")
    connections = [
        FakeConnection(f"c{n}", chance.choice(ORIGINS), chance.choice(states)) for n in range(chance.randint(0, 14))
    ]
    pool._connections = list(connections)  # type: ignore[assignment]
    for connection in connections:
        if connection.state == "active" and chance.random() < 0.7:  # else an orphan
            running = AsyncPoolRequest(httpcore.Request("GET", f"http://x.test/{connection.name}"))
            running.connection = connection  # type: ignore[assignment]
            pool._requests.append(running)
    for n in range(chance.randint(0, 6)):
        origin = chance.choice(ORIGINS)
        url = f"http://{origin.host.decode()}/{n}"
        pool._requests.append(AsyncPoolRequest(httpcore.Request("GET", url)))
    return pool, connections


def httpcores_own(pool: httpcore.AsyncConnectionPool) -> list[httpcore.AsyncConnectionInterface]:
    """What the pool did before: orphans reclaimed, then httpcore's bookkeeping."""
    owned = {id(request.connection) for request in pool._requests if request.connection is not None}
    orphans = [c for c in pool._connections if id(c) not in owned and not (c.is_idle() or c.is_closed())]
    for connection in orphans:
        pool._connections.remove(connection)
    return [*orphans, *httpcore.AsyncConnectionPool._assign_requests_to_connections(pool)]


def outcome(pool: httpcore.AsyncConnectionPool, closing: list[httpcore.AsyncConnectionInterface]) -> tuple[object, ...]:
    """The names of the connections closed, kept, and given to each request (``None``: still waiting)."""
    given = [repr(request.connection) if request.connection is not None else None for request in pool._requests]
    return sorted(map(repr, closing)), list(map(repr, pool._connections)), given


async def test_connections_are_assigned_and_closed_as_httpcore_does() -> None:
    for seed in range(400):
        ours, _ = a_pool(seed, repaired=True)
        theirs, _ = a_pool(seed, repaired=False)
        assert outcome(ours, ours._assign_requests_to_connections()) == outcome(theirs, httpcores_own(theirs)), seed


async def test_each_connection_is_asked_whether_it_is_idle_a_bounded_number_of_times() -> None:
    pool = httpcore.AsyncConnectionPool(max_connections=48, max_keepalive_connections=48)
    assert repair_pool(pool) and isinstance(pool, ReclaimingPool)
    connections = [FakeConnection(f"c{n}", ORIGINS[0], "idle") for n in range(40)]
    pool._connections = list(connections)  # type: ignore[assignment]
    pool._requests.append(AsyncPoolRequest(httpcore.Request("GET", "http://host1.test/")))
    pool._assign_requests_to_connections()
    assert (
        max(connection.idle_asked for connection in connections) <= 3
    )  # before: 43 each (a list of them all per idle one)
