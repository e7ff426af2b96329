"""Checking an answer's citations against the pages they cite: the entry points.

- :func:`check_claim`: one claim against one page text (pure).
- :func:`check_page`: many claims against one read page (pure, CPU-bound: run it in a worker thread).
- :func:`unreadable`: the check of a citation whose page could not be read.
- :func:`verify_response`: every citation of a response, each cited URL read once, at most
  ``concurrency`` reads at a time, matching in worker threads.

The page is any object with the attributes of :class:`PageLike` (the reader's ``Page``), so this
package does not depend on the reader. See :mod:`.match` for what each verdict means.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timezone
from typing import Protocol

from websearch_tui.core.checks import CitationCheck, Verdict
from websearch_tui.core.models import SearchResponse
from websearch_tui.core.text import canonical_url
from websearch_tui.verify.claims import citation_claims
from websearch_tui.verify.match import PageIndex, judge

_STRENGTH = {Verdict.QUOTED: 3, Verdict.SUPPORTED: 2, Verdict.NOT_SUPPORTED: 1, Verdict.UNREADABLE: 0}


class PageLike(Protocol):
    """A page as read: ``text`` (Markdown), ``final_url`` (after redirects), ``retrieved_at``
    (a timezone-aware datetime, or ISO 8601 text) and ``content_sha256`` (hex digest of the content)."""

    @property
    def text(self) -> str: ...

    @property
    def final_url(self) -> str: ...

    @property
    def retrieved_at(self) -> datetime | str: ...

    @property
    def content_sha256(self) -> str: ...


Reader = Callable[[str], Awaitable[PageLike]]
"""Reads a URL: returns the page, or raises an exception with a ``reason`` attribute (``PageError``)."""


def check_claim(claim: str, page_text: str) -> tuple[Verdict, str | None, str | None]:
    """The verdict on ``claim`` against ``page_text`` (Markdown), the passage it rests on (or
    ``None``) and the reason it is not quoted or supported (``None`` when it is). Never returns
    ``UNREADABLE``. Linear in the page text and the claim."""
    return judge(claim, PageIndex(page_text))


def check_page(claims: Sequence[str], page: PageLike) -> list[CitationCheck]:
    """One :class:`CitationCheck` per claim of ``claims`` (same order) against ``page``, which is
    read into passages once. Pure and CPU-bound: meant for a worker thread."""
    index = PageIndex(page.text)
    stamp = _iso(page.retrieved_at)
    return [
        CitationCheck(verdict, passage, reason, page.final_url, stamp, page.content_sha256)
        for verdict, passage, reason in (judge(claim, index) for claim in claims)
    ]


def unreadable(error_reason: str, message: str) -> CitationCheck:
    """The check of a citation whose page could not be read: verdict ``UNREADABLE`` and the reason
    ``"<error_reason>: <message>"`` (``"timeout: no answer in 10 s"``; the reason alone when the
    message is blank)."""
    message = message.strip()
    return CitationCheck(Verdict.UNREADABLE, reason=f"{error_reason}: {message}" if message else error_reason)


def weakest(checks: Sequence[CitationCheck]) -> CitationCheck:
    """One check for a citation that carries several claims (the answer cites it in several
    sentences): the weakest (not_supported before supported before quoted), its reason opened by
    how many claims fared that badly (``"2 of 3 claims: page says ..."``). ``checks`` is not empty."""
    worst = min(checks, key=lambda check: _STRENGTH[check.verdict])
    count = sum(check.verdict is worst.verdict for check in checks)
    if worst.reason is None or len(checks) == 1 or worst.verdict is Verdict.UNREADABLE:
        return worst
    return CitationCheck(
        worst.verdict,
        worst.passage,
        f"{count} of {len(checks)} claims: {worst.reason}",
        worst.final_url,
        worst.retrieved_at,
        worst.content_sha256,
    )


async def verify_response(response: SearchResponse, read: Reader, *, concurrency: int = 4) -> dict[int, CitationCheck]:
    """Check every citation of ``response`` that has a URL and a claim (see
    :func:`~.claims.citation_claims`): citation index (0-based, into ``response.citations``) ->
    its check. Each URL (as :func:`~websearch_tui.core.text.canonical_url` keys it) is read once
    with ``read``, at most ``concurrency`` (>= 1) at a time; matching runs in worker threads. A read
    that raises an exception with a ``reason`` attribute (``PageError``) gives ``UNREADABLE`` checks
    with that reason and the exception's message; any other exception (a bug) cancels the other
    reads and propagates, as does a cancellation of this call.

    Raises:
        ValueError: ``concurrency`` is below 1.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    claims = citation_claims(response)
    by_url: dict[str, list[int]] = {}
    for index in claims:
        url = response.citations[index].url
        if url:
            by_url.setdefault(canonical_url(url), []).append(index)
    gate = asyncio.Semaphore(concurrency)
    tasks = [
        asyncio.create_task(_verify_url(response.citations[indexes[0]].url, indexes, claims, read, gate))
        for indexes in by_url.values()
    ]
    try:
        results = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return {index: check for result in results for index, check in result.items()}


async def _verify_url(
    url: str, indexes: list[int], claims: dict[int, list[str]], read: Reader, gate: asyncio.Semaphore
) -> dict[int, CitationCheck]:
    """The checks of the citations ``indexes``, which all cite ``url``."""
    async with gate:
        try:
            page = await read(url)
        except Exception as error:
            reason = getattr(error, "reason", None)
            if reason is None:
                raise
            failed = unreadable(str(getattr(reason, "value", reason)), str(error))
            return dict.fromkeys(indexes, failed)
    flat = [claim for index in indexes for claim in claims[index]]
    checks = iter(await asyncio.to_thread(check_page, flat, page))
    return {index: weakest([next(checks) for _ in claims[index]]) for index in indexes}


def _iso(moment: datetime | str) -> str:
    """``moment`` as ISO 8601 UTC to the second (``"2026-03-01T12:00:00Z"``); text is kept as it is
    and a naive datetime is taken to be UTC."""
    if isinstance(moment, str):
        return moment
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    return aware.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
