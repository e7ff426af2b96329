"""arXiv: preprints in physics, mathematics, computer science and neighbouring fields.

Endpoint: ``GET {base_url}/api/query?search_query=<q>&start=0&max_results=<n>&sortBy=relevance``
(default ``https://export.arxiv.org``), answered with an Atom 1.0 feed. Docs: the arXiv API user
manual (https://info.arxiv.org/help/api/user-manual.html, §3.1 query interface, §3.3 the Atom
entries, §3.4 errors: an Atom feed holding one entry whose ``id`` starts with
``http://arxiv.org/api/errors``) and its terms of use (no more than one request every three seconds,
one connection at a time: the spec's default pacing is 3 s). No key. ``[search] contact`` goes in the
User-Agent.

The query's words are searched in all fields (``all:<word> AND ...``): arXiv's own query syntax
(``ti:``, ``au:``, parentheses) is not passed through, so typed text never changes the query's
structure. A recency window becomes ``submittedDate:[<from> TO <now>]``.

The feed is untrusted XML: a body with a document type declaration is refused before parsing (no DTD
means no entity can be declared, so nothing expands: no "billion laughs", no external entity), and
the standard library's expat parser reads the rest in linear time.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt
from websearch_tui.core.models import Metadata, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import SourceList, clamp_count, collect_sources, limit_sources, make_source
from websearch_tui.providers.helpers.scholarly import author_list, doi_url, notes_line, user_agent, with_notes
from websearch_tui.providers.transport.http import HttpReply, HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import ShapeSeen, unrecognised

PATH = "/api/query"
DEFAULT_COUNT = 10
MAX_COUNT = 100
MAX_WORDS = 20
"""Words of the query searched (arXiv answers a very long conjunction slowly)."""
ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
ERROR_ID = "http://arxiv.org/api/errors"
_WORD = re.compile(r"\w+")
_VERSION = re.compile(r"v\d+$")
_DOCTYPE = b"<!DOCTYPE"


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one arXiv search; yield ``Metadata`` then ``SourcesFound`` (when it found papers).

    Raises:
        ProviderError: ``config`` for a query without a word to search; ``bad_request`` for arXiv's
            error entry (HTTP 400, or 200 with one); ``rate_limit`` (429/503 with Retry-After),
            ``server``, ``timeout``, ``network``; ``protocol`` for a body that is not an Atom feed
            (HTML, empty, malformed or with a document type declaration); ``unrecognised_response``
            for JSON or an event stream.
    """
    reply = await send(
        ctx,
        HttpRequest(
            "GET",
            join_url(ctx.base_url(), PATH),
            headers={"Accept": "application/atom+xml", "User-Agent": user_agent(ctx)},
            params=build_params(request, ctx.spec),
            describe_error=describe_error,
        ),
    )
    feed = parse_feed(ctx.spec, reply)
    yield Metadata(auth_mode="keyless")
    sources = parse_entries(ctx.spec, feed, reply.status_code)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def build_params(request: SearchRequest, spec: ProviderSpec, now: datetime | None = None) -> dict[str, str]:
    """``search_query`` (each word of the query in all fields, joined with ``AND``; a recency window as
    ``submittedDate:[<from> TO <now>]``), ``start``, ``max_results`` (1-100), ``sortBy=relevance``.

    Raises:
        ProviderError: ``config`` when the query has no word (only punctuation).
    """
    words = _WORD.findall(request.query.lower())[:MAX_WORDS]
    if not words:
        raise ProviderError(spec.id, ErrorKind.CONFIG, f"{spec.label}: the query has no word to search for.")
    query = " AND ".join(f"all:{word}" for word in words)
    days = {"day": 1, "week": 7, "month": 30, "year": 365}.get(request.recency or "")
    if days:
        moment = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
        since = moment.timestamp() - days * 86_400
        start = datetime.fromtimestamp(since, timezone.utc).strftime("%Y%m%d%H%M")
        query += f" AND submittedDate:[{start} TO {moment.strftime('%Y%m%d%H%M')}]"
    return {
        "search_query": query,
        "start": "0",
        "max_results": str(clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)),
        "sortBy": "relevance",
    }


def parse_feed(spec: ProviderSpec, reply: HttpReply) -> ElementTree.Element:
    """The Atom ``<feed>`` of a 2xx reply.

    Raises:
        ProviderError: ``unrecognised_response`` for JSON or an event stream; ``protocol`` for an
            empty body, HTML, a document type declaration, XML that does not parse, or a root that
            is not an Atom feed.
    """
    content_type = reply.headers.get("content-type", "").split(";")[0].strip().lower()
    body = reply.body.strip()
    if "json" in content_type or "event-stream" in content_type or body[:1] in (b"{", b"["):
        raise unrecognised(spec, ShapeSeen(content_type=content_type or "no content type"), reply.status_code)
    return feed_root(spec, body, reply.status_code, content_type)


def feed_root(spec: ProviderSpec, body: bytes, status: int, content_type: str = "") -> ElementTree.Element:
    """``body`` parsed as an Atom feed (see :func:`parse_feed` for the errors)."""

    def fail(what: str) -> ProviderError:
        return ProviderError(
            spec.id, ErrorKind.PROTOCOL, f"{spec.label} returned {what} (HTTP {status})", status=status
        )

    if not body:
        raise fail("an empty body")
    if "html" in content_type:
        raise fail(f"{content_type} instead of an Atom feed: {excerpt(body.decode('utf-8', 'replace'), 200)}")
    if _DOCTYPE in body:
        raise fail("XML with a document type declaration, which is not read")
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as exc:
        raise fail(f"malformed XML ({exc}); failed to parse the Atom feed") from None
    if root.tag != f"{ATOM}feed":
        raise fail("XML that is not an Atom feed")
    return root


def parse_entries(spec: ProviderSpec, feed: ElementTree.Element, status: int = 200) -> SourceList:
    """Sources from the feed's entries, in arXiv's order.

    Raises:
        ProviderError: ``bad_request`` when the feed is arXiv's error entry.
    """
    entries = feed.findall(f"{ATOM}entry")
    for entry in entries:
        if _text(entry, "id").startswith(ERROR_ID):
            message = excerpt(_text(entry, "summary") or "unknown error", 300)
            raise ProviderError(spec.id, ErrorKind.BAD_REQUEST, f"arXiv API error ({status}): {message}", status=status)
    return collect_sources(_entry_source(entry) for entry in entries)


def _entry_source(entry: ElementTree.Element) -> Any:
    paper_id = _VERSION.sub("", _text(entry, "id").removeprefix("http://").removeprefix("https://"))
    link = f"https://{paper_id}" if paper_id.startswith("arxiv.org/abs/") else None
    category = entry.find(f"{ARXIV}primary_category")
    doi = doi_url(_text(entry, "doi", ARXIV))
    notes = notes_line(
        f"arXiv:{paper_id.removeprefix('arxiv.org/abs/')}" if link else None,
        category.get("term") if category is not None else None,
        _text(entry, "journal_ref", ARXIV),
        f"doi:{doi.removeprefix('https://doi.org/')}" if doi else None,
    )
    names = (_text(author, "name") for author in entry.findall(f"{ATOM}author"))
    return make_source(
        link,
        _text(entry, "title"),
        with_notes(notes, " ".join(_text(entry, "summary").split())),  # arXiv hard-wraps its abstracts
        _text(entry, "published"),
        author_list(names),
    )


def _text(element: ElementTree.Element, name: str, namespace: str = ATOM) -> str:
    """The stripped text of ``element``'s first ``name`` child, ``""`` when there is none."""
    child = element.find(f"{namespace}{name}")
    return (child.text or "").strip() if child is not None else ""


def describe_error(status: int, text: str, parsed: Any) -> str:
    """``arXiv API error (<s>): <summary of its error entry>``, else an excerpt of the body."""
    summary = ""
    body = text.strip().encode("utf-8", "replace")
    if body.startswith(b"<") and _DOCTYPE not in body:
        try:
            root = ElementTree.fromstring(body)
        except ElementTree.ParseError:
            root = None
        entry = root.find(f"{ATOM}entry") if root is not None else None
        summary = _text(entry, "summary") if entry is not None else ""
    return f"arXiv API error ({status}): {excerpt(summary or text, 300) or 'no details'}"
