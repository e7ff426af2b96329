"""Kagi Search: ranked web results, related searches and an occasional direct answer.

API: Kagi Search API **v1**, ``POST {base_url}/api/v1/search`` (default ``https://kagi.com``), header
``Authorization: Bearer <key>``, JSON body ``{"query", "workflow": "search", "limit", "filters":
{"after"}}``. Legacy (sunset): ``GET {base_url}/api/v0/search?q=&limit=`` with ``Authorization: Bot <key>``.
Checked 2026-12-02 against Kagi's OpenAPI spec (https://kagi.com/api/docs/_spec/openapi.json, servers
``https://kagi.com/api/v1``), its generated clients (kagisearch/kagi-openapi-python, the v1 branch
of kagisearch/kagimcp) and https://help.kagi.com/kagi/api/search.html (PROVIDERS.md §2.11).

Where the docs and PROVIDERS.md differ, the docs win:

- ``data`` has 18 typed sections, not the four PROVIDERS.md names. Sources come from every section
  whose rows are web pages (:data:`SECTIONS`, titles tagged as below): ``search``, ``video``
  (``[Video]``), ``news`` and ``interesting_news`` (``[News]``, the latter from Kagi's news index),
  ``infobox`` (``[Info]``), ``interesting_finds`` (``[Small web]``, Kagi's small-web index),
  ``listicle`` (``[List]``), ``code`` (``[Code]``), ``public_records`` (``[Public record]``),
  ``web_archive`` (``[Archive]``), ``podcast`` and ``podcast_creator`` (``[Podcast]``) and
  ``package_tracking`` (``[Tracking]``, the tracking site for a tracking number). Not sources:
  ``image`` (rows are image files, not pages), ``weather`` and ``direct_answer`` (instant answers;
  the latter is the answer), ``adjacent_question`` and ``related_search`` (related searches).
- ``related_search`` items carry the query in ``title`` and a kagi.com search URL (never a source);
  ``adjacent_question`` items carry it in ``props.question``.
- ``meta`` is ``{trace, node, ms}``: there is no ``meta.id`` in v1 (kept as a fallback for v0).
- ``limit`` (1-1024) caps each section separately; we still ask for at most 40 (§1.3) and slice the
  merged list locally.
- Errors are ``{"meta", "data": [], "error": [{"code": "<namespaced string>", "url", "message",
  "location"}]}``; HTTP 403 means the key is limited to other IP addresses.
- help.kagi.com's page still shows a ``GET`` with ``Authorization: Bot``; the spec and every v1
  client use ``POST`` with ``Bearer`` (a ``GET`` on v1 gives 404), which is what we send.

v1 is always used unless the config option ``api_version = "v0"`` asks for the legacy endpoint.
There is **no automatic v0 fallback**: a v1 rejection is an auth failure (never retried, §1.12);
v0 is sunset and rejects v1 keys anyway, so a fallback would only send the key a second time, to an
endpoint the user did not choose, to rescue a key type Kagi no longer issues. The auth message says
instead that a legacy v0 key may be the cause. The response parser reads both body shapes (``data``
as an object = v1, as a list = v0) so the real v0 payloads replay through the same code.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, excerpt, mentions_quota
from websearch_tui.core.models import (
    AnswerDelta,
    Metadata,
    Note,
    RelatedQuestions,
    SearchEvent,
    SearchRequest,
    Source,
    SourcesFound,
)
from websearch_tui.core.text import plain_text
from websearch_tui.providers.base import ProviderContext
from websearch_tui.providers.helpers.parse import (
    SourceList,
    as_dict,
    as_list,
    clamp_count,
    collect_sources,
    first_text,
    limit_sources,
    make_source,
    sources_from,
    start_date,
    text_list,
)
from websearch_tui.providers.transport.http import HttpRequest, join_url, send
from websearch_tui.providers.transport.shape import Shape

PATH_V1 = "/api/v1/search"
PATH_V0 = "/api/v0/search"
DEFAULT_COUNT = 10
MAX_COUNT = 40
SECTIONS = (
    ("search", ""),
    ("video", "[Video] "),
    ("news", "[News] "),
    ("infobox", "[Info] "),
    ("interesting_news", "[News] "),
    ("interesting_finds", "[Small web] "),
    ("listicle", "[List] "),
    ("code", "[Code] "),
    ("public_records", "[Public record] "),
    ("web_archive", "[Archive] "),
    ("podcast", "[Podcast] "),
    ("podcast_creator", "[Podcast] "),
    ("package_tracking", "[Tracking] "),
)
"""The v1 ``data`` sections whose rows are web pages, in the order their sources are listed, with the
tag put before their titles (the main results first; see the module docstring for the rest)."""
RELATED_SECTIONS = ("adjacent_question", "related_search")
CODE_KINDS = {
    0: ErrorKind.SERVER,
    1: ErrorKind.BAD_REQUEST,
    2: ErrorKind.AUTH,
    100: ErrorKind.QUOTA,
    101: ErrorKind.QUOTA,
}
"""Kagi envelope error codes: internal, malformed request, unauthorized, no billing, insufficient credit."""
STATUS_OVERRIDES = (2, 100, 101)
"""Codes whose kind beats the HTTP status (code 100 "no billing" carries no quota wording)."""
KEY_HINTS = {
    "v1": "Kagi's v1 API needs a v1 key; a legacy v0 (Bot) key is rejected.",
    "v0": "Kagi's legacy v0 API needs a v0 (Bot) key; v1 keys are rejected there.",
}
IP_HINT = "A 403 can also mean the key is limited to other IP addresses (the key's IP allow-list)."
"""Added to a v1 403: Kagi keys can be restricted to IP addresses, and another address gets 403."""
V0_RECENCY_IGNORED = "Recency is not supported by Kagi's legacy v0 API; results are not filtered by date."


SHAPE = Shape.of("data", "error")
"""A Kagi answer (v0 and v1): ``data`` (with ``meta``), or the ``error`` envelope."""


async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[SearchEvent]:
    """Run one Kagi search; yield ``Metadata``, a note (v0 + recency), sources, answer, related searches.

    Raises:
        ProviderError: ``config`` without a key; ``auth`` (401/403 or envelope code 2; the message
            says a legacy v0 key may be the cause, and for a v1 403 an IP allow-list), ``quota``
            (codes 100/101 or quota wording),
            ``bad_request`` (code 1, 400/422), ``rate_limit`` (429), ``server`` (5xx, code 0),
            ``timeout``, ``network``, ``protocol`` (non-JSON body or ``data`` of an unknown shape).
            Error envelopes that arrive with HTTP 200 are raised like HTTP errors.
    """
    key = ctx.require_api_key()
    version = api_version(ctx)
    body = await _fetch(request, ctx, key, version)
    raise_for_envelope(ctx, body, version)
    sources, related, answer = parse_body(ctx, body)
    yield Metadata(request_id=request_id(body), auth_mode="api_key")
    if version == "v0" and request.recency:
        yield Note(V0_RECENCY_IGNORED)
    if sources or sources.dropped:
        yield SourcesFound(limit_sources(sources, request.max_results))
    if answer:
        yield AnswerDelta(answer)
    if related:
        yield RelatedQuestions(tuple(related))


def api_version(ctx: ProviderContext) -> str:
    """``"v0"`` when config ``api_version`` says so (``"v0"``/``"0"``/``"legacy"``), else ``"v1"``."""
    value = str(ctx.option("api_version") or "").strip().lower()
    return "v0" if value in ("v0", "0", "legacy") else "v1"


async def _fetch(request: SearchRequest, ctx: ProviderContext, key: str, version: str) -> Any:
    describer = EnvelopeDescriber(version)
    limit = clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT)
    if version == "v0":
        search = HttpRequest(
            "GET",
            join_url(ctx.base_url(), PATH_V0),
            headers={"Authorization": f"Bot {key}", "Accept": "application/json"},
            params={"q": request.query, "limit": str(limit)},
            describe_error=describer,
            expect=SHAPE,
        )
    else:
        url = join_url(ctx.base_url(), PATH_V1)
        search = HttpRequest.post_json(
            url, build_body(request), {"Authorization": f"Bearer {key}"}, describe_error=describer, expect=SHAPE
        )
    try:
        return (await send(ctx, search)).json()
    except ProviderError as error:
        raise describer.refine(error) from None


def build_body(request: SearchRequest) -> dict[str, Any]:
    """The v1 JSON body: ``query``, ``workflow: "search"``, ``limit`` (1-40) and ``filters.after`` from recency."""
    body: dict[str, Any] = {
        "query": request.query,
        "workflow": "search",
        "limit": clamp_count(request.upstream_count, DEFAULT_COUNT, MAX_COUNT),
    }
    after = start_date(request.recency)
    if after:
        body["filters"] = {"after": after}
    return body


class EnvelopeDescriber:
    """``transport.http`` error describer for Kagi bodies that also remembers the envelope codes it saw.

    Messages read ``Kagi API error (<code or status>): <msg>``. :meth:`refine` then fixes the kind
    of the raised error from those codes (code 100 "no billing" has no quota wording) and adds the
    key-version hint to auth failures.
    """

    def __init__(self, version: str) -> None:
        self.version = version
        self.codes: list[Any] = []

    def __call__(self, status: int, text: str, parsed: Any) -> str:
        """Describe a non-2xx response (``parsed`` is its JSON or ``None``)."""
        errors = envelope_errors(parsed)
        self.codes = [item.get("code") for item in errors]
        if errors:
            return describe_envelope(errors, status)
        return f"Kagi API error ({status}): {excerpt(text, 500) or 'no details'}"

    def refine(self, error: ProviderError) -> ProviderError:
        """``error`` with the kind implied by the envelope codes and, for auth, the key-version hint
        (plus :data:`IP_HINT` for a v1 403)."""
        kind = next((CODE_KINDS[c] for c in self.codes if c in STATUS_OVERRIDES), error.kind)
        if kind is not error.kind:
            error = ProviderError(
                error.provider, kind, error.message, status=error.status, retry_after=error.retry_after
            )
        if kind is not ErrorKind.AUTH:
            return error
        hint = KEY_HINTS[self.version]
        return error.with_hint(f"{hint} {IP_HINT}" if self.version == "v1" and error.status == 403 else hint)


def envelope_errors(body: Any) -> list[dict[str, Any]]:
    """The error objects of a Kagi envelope: ``error`` or ``errors`` as a list (or one object)."""
    payload = as_dict(body)
    found = payload.get("error") or payload.get("errors")
    items = [found] if isinstance(found, dict) else as_list(found)
    return [item if isinstance(item, dict) else {"msg": item} for item in items if item]


def describe_envelope(errors: list[dict[str, Any]], status: int) -> str:
    """``Kagi API error (<code or status>): <msg>; <msg>`` (with ``location`` when given)."""
    messages = []
    for item in errors:
        text = plain_text(item.get("message"), collapse=True) or plain_text(item.get("msg"), collapse=True)
        location = plain_text(item.get("location"), collapse=True)
        if location:
            messages.append(f"{text or 'error'} ({location})")
        elif text:
            messages.append(text)
    code = next((item.get("code") for item in errors if isinstance(item.get("code"), (int, str))), None)
    label = code if code is not None and not isinstance(code, bool) else status
    return f"Kagi API error ({label}): {excerpt('; '.join(messages), 500) or 'no details'}"


def raise_for_envelope(ctx: ProviderContext, body: Any, version: str) -> None:
    """Raise the error carried by a 2xx Kagi body (``{"data": null, "error": [...]}``), if any.

    Raises:
        ProviderError: kind from the first known code (auth adds the key-version hint), else
            ``quota`` for quota wording, else ``server``.
    """
    errors = envelope_errors(body)
    if not errors:
        return
    message = describe_envelope(errors, 200)
    kinds = [CODE_KINDS[item["code"]] for item in errors if item.get("code") in CODE_KINDS]
    kind = kinds[0] if kinds else (ErrorKind.QUOTA if mentions_quota(message) else ErrorKind.SERVER)
    error = ProviderError(ctx.spec.id, kind, message, status=200)
    raise error.with_hint(KEY_HINTS[version]) if kind is ErrorKind.AUTH else error


def parse_body(ctx: ProviderContext, body: Any) -> tuple[SourceList, list[str], str | None]:
    """``(sources, related, answer)`` from a v1 body (``data`` object) or a v0 body (``data`` list).

    Raises:
        ProviderError: ``protocol`` when the body is not an object or ``data`` has another type.
    """
    if not isinstance(body, dict):
        raise ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, "Kagi returned JSON that is not an object.", status=200)
    data = body.get("data")
    if data is None:
        return SourceList(), [], None
    if isinstance(data, dict):
        return parse_v1(data)
    if isinstance(data, list):
        return parse_v0(data)
    message = "Kagi returned JSON with an unexpected `data` field."
    raise ProviderError(ctx.spec.id, ErrorKind.PROTOCOL, message, status=200)


def parse_v1(data: dict[str, Any]) -> tuple[SourceList, list[str], str | None]:
    """v1 ``data``: sources from every web-page section of :data:`SECTIONS` in that order (titles
    tagged), related searches (``adjacent_question``, ``related_search``) and the direct answer."""
    sources = collect_sources(v1_source(row, tag) for section, tag in SECTIONS for row in as_list(data.get(section)))
    related = text_list([related_text(row) for section in RELATED_SECTIONS for row in as_list(data.get(section))])
    return sources, related, direct_answer(data)


def v1_source(row: Any, tag: str) -> Source | None:
    """One v1 result row, or ``None`` without a usable URL.

    Fields: ``url|href|link``, ``title|name`` (prefixed with ``tag``), ``snippet|description|summary``, ``time``.
    """
    if not isinstance(row, dict):
        return None
    title = plain_text(first_text(row, "title", "name"), collapse=True)
    return make_source(
        first_text(row, "url", "href", "link"),
        f"{tag}{title}" if title else None,
        first_text(row, "snippet", "description", "summary"),
        first_text(row, "time", "published"),
    )


def related_text(row: Any) -> Any:
    """The text of an ``adjacent_question``/``related_search`` item: ``props.question|query``, else ``title``."""
    if isinstance(row, str):
        return row
    item = as_dict(row)
    props = as_dict(item.get("props"))
    return first_text(props, "question", "query") or item.get("title")


def direct_answer(data: dict[str, Any]) -> str | None:
    """``direct_answer[0].snippet``, else its ``title`` (plain text), else ``None``."""
    first = as_dict(next(iter(as_list(data.get("direct_answer"))), None))
    return plain_text(first.get("snippet")) or plain_text(first.get("title"), collapse=True)


def parse_v0(data: list[Any]) -> tuple[SourceList, list[str], str | None]:
    """v0 ``data``: ``t: 0`` rows are results (``published`` optional), ``t: 1`` rows carry related ``list``."""
    rows = [as_dict(row) for row in data]
    results = [row for row in rows if row.get("t") == 0]
    sources = sources_from(results, url="url", title="title", snippet="snippet", date="published")
    related = [item for row in rows if row.get("t") == 1 for item in as_list(row.get("list"))]
    return sources, text_list(related), None


def request_id(body: Any) -> str | None:
    """``meta.trace`` (v1), else ``meta.id`` (v0 and v1)."""
    meta = as_dict(as_dict(body).get("meta"))
    return plain_text(meta.get("trace"), collapse=True) or plain_text(meta.get("id"), collapse=True)
