"""A loopback web server for the page reader's tests and benchmark: pages served from memory on
127.0.0.1 (a random port), in a thread of its own, each path answering what the test says: any
status and headers, a fixed body (with its length), or a body produced piece by piece (endless,
slow, cut) sent until the client goes away. Every request's path is recorded (``server.hits``)."""

from __future__ import annotations

import gzip
import http.server
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field


@dataclass
class Reply:
    """One path's answer: ``status``, ``headers`` and a ``body``: bytes (sent with a
    ``Content-Length``), or a function returning pieces (sent as they come, no length, the connection
    closed after; a client that goes away ends it)."""

    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | Callable[[], Iterable[bytes]] = b""


def html_reply(markup: str | bytes, *, charset: str | None = "utf-8", content_type: str = "text/html") -> Reply:
    """An HTML page: ``markup`` (a ``str`` is encoded in ``charset``, or UTF-8 when none is declared)
    with ``Content-Type: <content_type>[; charset=<charset>]``."""
    body = markup.encode(charset or "utf-8") if isinstance(markup, str) else markup
    header = f"{content_type}; charset={charset}" if charset else content_type
    return Reply(headers=[("Content-Type", header)], body=body)


def gzip_reply(body: bytes, content_type: str = "text/html; charset=utf-8") -> Reply:
    """``body`` gzip-compressed, with ``Content-Encoding: gzip``."""
    return Reply(headers=[("Content-Type", content_type), ("Content-Encoding", "gzip")], body=gzip.compress(body))


def redirect_reply(location: str, status: int = 302) -> Reply:
    """A redirect to ``location``."""
    return Reply(status=status, headers=[("Location", location)])


def endless(piece: bytes) -> Callable[[], Iterator[bytes]]:
    """A body that repeats ``piece`` until the client stops reading."""

    def pieces() -> Iterator[bytes]:
        while True:
            yield piece

    return pieces


class PageServer:
    """The server: ``route(path, reply)``, then ``url(path)``; ``close()`` stops it (it is also a
    context manager)."""

    def __init__(self) -> None:
        self.routes: dict[str, Reply] = {}
        self.hits: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle(self) -> None:
                try:
                    super().handle()
                except ConnectionError:  # the client went away (often the test's point: it stopped reading)
                    self.close_connection = True

            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                server.hits.append(self.path)
                reply = server.routes.get(self.path.split("?", 1)[0], Reply(status=404, body=b"not found"))
                self.send_response(reply.status)
                for name, value in reply.headers:
                    self.send_header(name, value)
                if isinstance(reply.body, bytes):
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                    return
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for piece in reply.body():
                    self.wfile.write(piece)
                    self.wfile.flush()

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: tests read ``hits`` instead."""

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="page-server", daemon=True)
        self.thread.start()

    def route(self, path: str, reply: Reply) -> str:
        """Serve ``reply`` at ``path``; returns the path's URL."""
        self.routes[path] = reply
        return self.url(path)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        """``http://<host>:<port><path>`` (``host``: a name the test's resolver maps to 127.0.0.1)."""
        return f"http://{host}:{self.port}{path}"

    def close(self) -> None:
        """Stop serving and close the listening socket."""
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    def __enter__(self) -> PageServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
