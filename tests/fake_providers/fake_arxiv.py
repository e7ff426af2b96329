"""Fake arXiv API (``GET /arxiv/api/query``, an Atom feed), a plugin of the fake server.

Checks what the real API checks (its user manual §3.4): ``start`` and ``max_results`` whole numbers
(``max_results`` at most 30,000) and a ``search_query``; a bad one gets arXiv's error feed, one entry
whose ``id`` is under ``http://arxiv.org/api/errors``, with HTTP 400. Answers ``data/arxiv_query.xml``
(the manual's example entries) cut to ``max_results``, as ``application/atom+xml``.
"""

from __future__ import annotations

import html
from typing import Any

from .server import FakeRequest, FakeResponse, load_text

PREFIX = "/arxiv"
FAKE_KEYS: dict[str, str] = {}
SEARCH_ROUTE = ("GET", f"{PREFIX}/api/query")
ATOM = "application/atom+xml; charset=utf-8"
VARIANTS = ("default", "empty", "error_entry")


def config(base_url: str) -> dict[str, Any]:
    """The ``[providers.arxiv]`` table for the fake at ``base_url``."""
    return {"base_url": f"{base_url}{PREFIX}"}


def error_feed(message: str) -> str:
    """arXiv's error feed: one entry titled ``Error`` whose summary is ``message``."""
    anchor = html.escape(message.replace(" ", "_"), quote=True)
    text = html.escape(message, quote=False)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">\n'
        "  <title>ArXiv Query: error</title>\n"
        "  <id>http://arxiv.org/api/kvuntZ8c9a4Eq5CF7KY03nMug+Q</id>\n"
        "  <opensearch:totalResults>1</opensearch:totalResults>\n"
        "  <entry>\n"
        f"    <id>http://arxiv.org/api/errors#{anchor}</id>\n"
        "    <title>Error</title>\n"
        f"    <summary>{text}</summary>\n"
        "    <author><name>arXiv api core</name></author>\n"
        "  </entry>\n"
        "</feed>\n"
    )


def error_response(status: int, message: str) -> FakeResponse:
    """arXiv's error feed at ``status``."""
    return FakeResponse(status, {"Content-Type": ATOM}, error_feed(message).encode("utf-8"))


def _feed(entries: int | None) -> bytes:
    """The data feed with its first ``entries`` entries (all when ``None``)."""
    text = load_text("arxiv_query.xml")
    head, *rest = text.split("  <entry>")
    kept = rest if entries is None else rest[:entries]
    body = head + "".join("  <entry>" + entry for entry in kept)
    return (body if body.rstrip().endswith("</feed>") else body.rstrip() + "\n</feed>\n").encode("utf-8")


def search(variant: str = "default") -> Any:
    """The ``GET /api/query`` handler for ``variant`` (see :data:`VARIANTS`)."""

    def handler(request: FakeRequest) -> FakeResponse:
        query = request.query
        for name in ("start", "max_results"):
            value = query.get(name, "0")
            if not value.isdigit():
                return error_response(400, f"{name} must be an integer")
        if int(query.get("max_results", "10")) > 30000:
            return error_response(400, "max_results must be <= 30000")
        if not query.get("search_query", "").strip():
            return error_response(400, "search_query or id_list is required")
        if variant == "error_entry":
            return FakeResponse(200, {"Content-Type": ATOM}, error_feed("incorrect id format for 1234.12345").encode())
        count = 0 if variant == "empty" else int(query.get("max_results", "10"))
        return FakeResponse(200, {"Content-Type": ATOM}, _feed(count))

    return handler


def routes() -> dict[tuple[str, str], Any]:
    """The default route."""
    return {SEARCH_ROUTE: search()}


def variant_routes(variant: str) -> dict[tuple[str, str], Any]:
    """The route serving ``variant``."""
    return {SEARCH_ROUTE: search(variant)}
