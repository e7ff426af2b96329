"""The HTTP server's connection cap (mcp/http_limits.py): never more connections than half the
descriptors the process may open."""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from websearch_tui.mcp.http_limits import MAX_CONNECTIONS, connection_cap


@pytest.mark.parametrize(
    ("soft", "cap"),
    [(resource.RLIM_INFINITY, MAX_CONNECTIONS), (100_000, MAX_CONNECTIONS), (100, 50), (10, 8)],
)
def test_the_cap_leaves_half_the_descriptors_to_the_rest(soft: int, cap: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (soft, resource.RLIM_INFINITY))
    assert connection_cap() == cap


def test_the_server_raises_its_open_file_limit_to_what_the_system_allows() -> None:
    script = (
        "import resource\n"
        "from websearch_tui.mcp.http_limits import raise_open_file_limit\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (64, 256))\n"
        "raise_open_file_limit()\n"
        "print(*resource.getrlimit(resource.RLIMIT_NOFILE))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["256", "256"]  # a limit of 64 would leave 32 connections; 256 leaves 128
