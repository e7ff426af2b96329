"""The HTTP server's connection cap (mcp/http_limits.py): never more connections than half the
descriptors the process may open."""

from __future__ import annotations

import resource

import pytest

from websearch_tui.mcp.http_limits import MAX_CONNECTIONS, connection_cap


@pytest.mark.parametrize(
    ("soft", "cap"),
    [(resource.RLIM_INFINITY, MAX_CONNECTIONS), (100_000, MAX_CONNECTIONS), (100, 50), (10, 8)],
)
def test_the_cap_leaves_half_the_descriptors_to_the_rest(soft: int, cap: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (soft, resource.RLIM_INFINITY))
    assert connection_cap() == cap
