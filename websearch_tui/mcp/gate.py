"""The bearer-token gate of the Streamable HTTP server: ASGI middleware that refuses, with 401, every
HTTP request without the token (:func:`websearch_tui.mcp.server.http_app` puts it in front when a
token is set). A refused request is logged by method, path, client and reason, never with a header
value."""

from __future__ import annotations

import hmac
import logging

from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)


class BearerGate:
    """ASGI middleware: an HTTP request passes only with ``Authorization: Bearer <token>`` (compared in
    constant time); any other gets 401 with ``WWW-Authenticate: Bearer`` and a log line naming the
    method, path and client, never a header value."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        problem = self._problem(scope) if scope["type"] == "http" else None
        if problem is None:
            await self._app(scope, receive, send)
            return
        client = scope.get("client") or ("?", 0)
        log.warning("refused %s %s from %s:%s: %s", scope.get("method"), scope.get("path"), *client, problem)
        body = b'{"error": "invalid_token", "error_description": "a valid bearer token is required"}'
        headers = [(b"content-type", b"application/json"), (b"www-authenticate", b'Bearer error="invalid_token"')]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _problem(self, scope: Scope) -> str | None:
        """Why the request is refused (``None``: it carries the token)."""
        values = [value for name, value in scope.get("headers", ()) if name.lower() == b"authorization"]
        if not values:
            return "no bearer token"
        scheme, _, given = values[0].partition(b" ")
        if scheme.lower() != b"bearer":
            return "not a bearer token"
        return None if hmac.compare_digest(given.strip(), self._token) else "wrong bearer token"
