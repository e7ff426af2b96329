"""Wikipedia: full-text search of one language's encyclopedia through the MediaWiki Action API.

Endpoint: ``GET {base_url}/w/api.php?action=query&list=search&srsearch=<q>&srlimit=<n>&format=json
&formatversion=2`` (default ``https://<language>.wikipedia.org``). Docs:
https://www.mediawiki.org/wiki/API:Search (``list=search``, ``srprop``) and
https://www.mediawiki.org/wiki/API:Errors_and_warnings (an error is ``{"error": {"code", "info"}}``,
sent with HTTP 200). No key. Wikimedia's User-Agent policy asks for contact details:
``[search] contact`` (or ``[providers.wikipedia] contact``) goes in the User-Agent.

The language is ``[providers.wikipedia] language`` (``"de"``, ``"zh-yue"``, ``"simple"``), else the
user's locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English. Each hit becomes a source: the
article's URL on that language's Wikipedia, its title, its last edit as the date, and the search
snippet after a notes line (``Wikipedia (de) · 5,234 words``).
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import quote

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt
from websearch_tui.core.models import Metadata, SearchEvent, SearchRequest, SourcesFound
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    api_error_describer,
    as_dict,
    as_list,
    clamp_count,
    collect_sources,
    int_field,
    limit_sources,
    make_source,
)
from websearch_tui.providers.helpers.scholarly import notes_line, user_agent, with_notes
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape, ShapeSeen, unrecognised

PATH = "/w/api.php"
DEFAULT_COUNT = 10
MAX_COUNT = 50  # srlimit's maximum for clients without the apihighlimits right
DEFAULT_LANGUAGE = "en"
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")
"""Where the locale's language is read, in POSIX order."""
_LANGUAGE = re.compile(r"[a-z]{2,12}(?:-[a-z0-9]{1,12}){0,3}")
"""A Wikipedia language code (subdomain): ``en``, ``simple``, ``zh-yue``, ``be-tarask``."""
_TITLE_SAFE = "_()!,:;'*-.~"
"""Characters left as they are in an article path (Wikipedia's own links keep them)."""
RATE_LIMIT_CODES = frozenset({"ratelimited", "maxlag"})

SHAPE = Shape.of("query", "error", "batchcomplete")
"""A MediaWiki Action API answer: ``query`` (with ``search``), or an ``error`` object; a ``query``
that is not an object (an echo of the search text) is checked after parsing."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Wikipedia search; yield ``Metadata`` then ``SourcesFound`` (when articles matched).

    Raises:
        ProviderError: ``config`` for a language option that is not a Wikipedia language code;
            ``bad_request`` for MediaWiki's error object (``rate_limit`` when its code is
            ``ratelimited`` or ``maxlag``), ``rate_limit`` (429), ``server``, ``timeout``,
            ``network``, ``protocol`` for a body that is not JSON, ``unrecognised_response`` for
            JSON without ``query`` or ``error``.
    """
    code = language(ctx)
    base = ctx.settings.base_url or f"https://{code}.wikipedia.org"
    reply = await send(
        ctx,
        HttpRequest(
            "GET",
            join_url(base, PATH),
            headers={"Accept": "application/json", "User-Agent": user_agent(ctx)},
            params=build_params(request),
            describe_error=describe_error,
            expect=SHAPE,
        ),
    )
    data = as_dict(reply.json())
    error = as_dict(data.get("error"))
    if error:
        kind = ErrorKind.RATE_LIMIT if error.get("code") in RATE_LIMIT_CODES else ErrorKind.BAD_REQUEST
        message = f"Wikipedia API error ({reply.status_code}): {excerpt(_error_text(data) or 'no details', 300)}"
        raise ProviderError(ctx.spec.id, kind, message, status=reply.status_code)
    if not isinstance(data.get("query"), dict):  # e.g. another API's answer that echoes a "query" string
        seen = ShapeSeen(content_type=reply.headers.get("content-type", "").split(";")[0])
        seen.observe(None, "json", data)
        raise unrecognised(ctx.spec, seen, reply.status_code)
    yield Metadata(auth_mode="keyless")
    sources = parse_results(data, code)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))


def language(ctx: ProviderContext, environ: Mapping[str, str] = os.environ) -> str:
    """The Wikipedia language code: the ``language`` option, else the locale's (``de_DE.UTF-8`` gives
    ``de``; ``C`` and ``POSIX`` give English), else ``en``; lower case.

    Raises:
        ProviderError: ``config`` when the option is not a language code.
    """
    option = ctx.option("language")
    if isinstance(option, str) and option.strip():
        code = option.strip().lower()
        if not _LANGUAGE.fullmatch(code):
            raise ProviderError(
                ctx.spec.id,
                ErrorKind.CONFIG,
                f"Wikipedia: language {excerpt(option, 40)!r} is not a Wikipedia language code; set "
                '[providers.wikipedia] language to one such as "en", "de", "simple" or "zh-yue".',
            )
        return code
    for name in LOCALE_VARS:
        value = environ.get(name, "").strip()
        if value:
            code = re.split(r"[_.@]", value, maxsplit=1)[0].lower()
            return code if _LANGUAGE.fullmatch(code) and code not in ("c", "posix") else DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def build_params(request: SearchRequest) -> dict[str, str]:
    """``action=query``, ``list=search``, ``srsearch``, ``srlimit`` (1-50), ``srprop`` (snippet,
    last edit, word count), JSON format version 2."""
    return {
        "action": "query",
        "list": "search",
        "srsearch": request.query,
        "srlimit": str(clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)),
        "srprop": "snippet|timestamp|wordcount",
        "format": "json",
        "formatversion": "2",
        "utf8": "1",
    }


def parse_results(data: Any, code: str) -> SourceList:
    """Sources from ``query.search[]`` in Wikipedia's order; a hit without a title is dropped."""
    hits = as_list(as_dict(as_dict(data).get("query")).get("search"))
    return collect_sources(_hit_source(hit, code) for hit in hits)


def article_url(title: str, code: str) -> str:
    """The article's URL on the ``code`` Wikipedia (spaces as underscores, the rest percent-encoded)."""
    path = quote(title.replace(" ", "_"), safe=_TITLE_SAFE)
    return f"https://{code}.wikipedia.org/wiki/{path}"


def _hit_source(hit: object, code: str) -> Any:
    row = as_dict(hit)
    title = row.get("title")
    if not isinstance(title, str) or not title.strip():
        return None
    words = int_field(row, "wordcount", minimum=0)
    notes = notes_line(f"Wikipedia ({code})", f"{words:,} words" if words is not None else None)
    snippet = with_notes(notes, row.get("snippet"))
    return make_source(article_url(title.strip(), code), title, snippet, row.get("timestamp"))


def _error_text(parsed: Any) -> str | None:
    """``"<code>: <info>"`` from MediaWiki's ``{"error": {"code", "info"}}``."""
    error = as_dict(as_dict(parsed).get("error"))
    parts = [error.get(name) for name in ("code", "info")]
    return ": ".join(part.strip() for part in parts if isinstance(part, str) and part.strip()) or None


describe_error = api_error_describer("Wikipedia API error", _error_text)
"""``Wikipedia API error (<s>): <code>: <info>``."""
