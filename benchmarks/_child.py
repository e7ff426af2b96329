"""Running the fake provider server in a child process for a benchmark.

In the benchmark's own process the fake would compete with the code under test for the GIL and
distort the numbers, so each benchmark re-runs its own script with ``--serve PORT`` in a child.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(script: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """Run ``script --serve PORT *extra`` in a child; ``(process, base_url)`` once it accepts connections
    (at most 10 s, else the child is killed and the benchmark exits)."""
    port = free_port()
    argv = [sys.executable, script, "--serve", str(port), *extra]
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return child, f"http://127.0.0.1:{port}"
        time.sleep(0.05)
    child.kill()
    raise SystemExit("the fake server did not start")
