"""The checker's entry points: the CitationCheck data, check_page, unreadable, and verify_response
(each URL read once, bounded concurrency, read failures as unreadable)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import Enum

import pytest

from websearch_tui.core.checks import CitationCheck, Verdict
from websearch_tui.core.models import Citation, SearchResponse
from websearch_tui.verify.check import check_page, unreadable, verify_response, weakest

PAGE_TEXT = "# Lisbon\n\nLisbon is the capital of Portugal. It had 567,131 people in 2023.\n"
SHA = "ab" * 32


@dataclass(frozen=True)
class FakePage:
    text: str
    final_url: str
    retrieved_at: datetime | str
    content_sha256: str = SHA


class Reason(str, Enum):
    TIMEOUT = "timeout"


class FakePageError(Exception):
    def __init__(self, reason: Reason | str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def test_to_dict_has_exactly_the_six_keys_with_the_verdict_as_text() -> None:
    check = CitationCheck(
        Verdict.NOT_SUPPORTED, "passage", "page says 1, claim says 2", "https://a.example", "2026-03-01T12:00:00Z", SHA
    )
    assert check.to_dict() == {
        "verdict": "not_supported",
        "passage": "passage",
        "reason": "page says 1, claim says 2",
        "final_url": "https://a.example",
        "retrieved_at": "2026-03-01T12:00:00Z",
        "content_sha256": SHA,
    }
    assert CitationCheck(Verdict.QUOTED).to_dict()["passage"] is None


def test_unreadable_names_the_reason_and_the_message() -> None:
    assert unreadable("timeout", " no answer in 30 s ") == CitationCheck(
        Verdict.UNREADABLE, reason="timeout: no answer in 30 s"
    )
    assert unreadable("blocked", "").reason == "blocked"


def test_check_page_gives_one_check_per_claim_with_the_page_facts() -> None:
    moment = datetime(2026, 3, 1, 13, 0, 5, 250, tzinfo=timezone(timedelta(hours=1)))
    page = FakePage(PAGE_TEXT, "https://lisbon.example/final", moment)
    checks = check_page(["Lisbon is the capital of Portugal.", "Lisbon had 576,131 people in 2023."], page)
    assert [check.verdict for check in checks] == [Verdict.QUOTED, Verdict.NOT_SUPPORTED]
    assert checks[1].reason == "page says 567,131, claim says 576,131"
    assert {(check.final_url, check.retrieved_at, check.content_sha256) for check in checks} == {
        ("https://lisbon.example/final", "2026-03-01T12:00:05Z", SHA)
    }
    naive = check_page(["x"], FakePage(PAGE_TEXT, "u", datetime(2026, 3, 1, 12, 0, 5)))[0]
    assert naive.retrieved_at == "2026-03-01T12:00:05Z"
    assert check_page(["x"], FakePage(PAGE_TEXT, "u", "2026-03-01T12:00:05Z"))[0].retrieved_at == "2026-03-01T12:00:05Z"


def test_weakest_keeps_the_worst_verdict_and_counts_the_claims_that_got_it() -> None:
    quoted, supported = CitationCheck(Verdict.QUOTED, "a"), CitationCheck(Verdict.SUPPORTED, "b")
    failed = CitationCheck(Verdict.NOT_SUPPORTED, "c", "page says 1, claim says 2")
    assert weakest([quoted, supported]) == supported
    assert weakest([failed]) == failed
    assert weakest([quoted, failed, supported, failed]) == CitationCheck(
        Verdict.NOT_SUPPORTED, "c", "2 of 4 claims: page says 1, claim says 2"
    )


class Reader:
    """A fake reader: pages by URL, failures by URL, and a record of reads and of the most at once."""

    def __init__(self, pages: dict[str, str], failures: dict[str, Exception] | None = None) -> None:
        self.pages = pages
        self.failures = failures or {}
        self.reads: list[str] = []
        self.running = 0
        self.most = 0

    async def __call__(self, url: str) -> FakePage:
        self.reads.append(url)
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            await asyncio.sleep(0.01)
            if url in self.failures:
                raise self.failures[url]
            return FakePage(self.pages[url], url + "#final", "2026-03-01T12:00:00Z")
        finally:
            self.running -= 1


async def test_verify_response_reads_each_url_once_and_checks_every_claim() -> None:
    answer = "Lisbon is the capital of Portugal [1]. It had 576,131 people in 2023 [2]. Porto is second [3]."
    citations = [
        Citation("https://lisbon.example/", "Lisbon"),
        Citation("https://lisbon.example", "Lisbon again", "It had 567,131 people in 2023."),
        Citation("", "no URL"),
        Citation("https://other.example", "no claim"),
    ]
    reader = Reader({"https://lisbon.example/": PAGE_TEXT})
    checks = await verify_response(SearchResponse("test", answer=answer, citations=citations), reader)
    assert reader.reads == ["https://lisbon.example/"]
    assert sorted(checks) == [0, 1]
    assert (checks[0].verdict, checks[1].verdict) == (Verdict.QUOTED, Verdict.QUOTED)
    assert checks[0].final_url == "https://lisbon.example/#final"


async def test_a_citation_used_in_several_sentences_gets_its_weakest_check() -> None:
    answer = "Lisbon is the capital of Portugal [1]. It had 576,131 people in 2023 [1]."
    response = SearchResponse("test", answer=answer, citations=[Citation("https://lisbon.example", "Lisbon")])
    checks = await verify_response(response, Reader({"https://lisbon.example": PAGE_TEXT}))
    assert checks[0].verdict is Verdict.NOT_SUPPORTED
    assert checks[0].reason == "1 of 2 claims: page says 567,131, claim says 576,131"


async def test_reads_run_at_most_concurrency_at_a_time() -> None:
    urls = [f"https://site{i}.example" for i in range(9)]
    answer = " ".join(f"Lisbon is the capital of Portugal [{i}]." for i in range(1, 10))
    response = SearchResponse("test", answer=answer, citations=[Citation(url, url) for url in urls])
    reader = Reader(dict.fromkeys(urls, PAGE_TEXT))
    checks = await verify_response(response, reader, concurrency=3)
    assert len(checks) == 9 and sorted(reader.reads) == urls
    assert reader.most == 3
    with pytest.raises(ValueError, match="at least 1"):
        await verify_response(response, reader, concurrency=0)


async def test_a_failed_read_gives_unreadable_with_its_reason_and_other_errors_propagate() -> None:
    answer = "Lisbon is the capital of Portugal [1]. It is old [2]."
    citations = [Citation("https://slow.example", "slow"), Citation("https://lisbon.example", "ok")]
    response = SearchResponse("test", answer=answer, citations=citations)
    failing = {"https://slow.example": FakePageError(Reason.TIMEOUT, "no answer in 30 s")}
    checks = await verify_response(response, Reader({"https://lisbon.example": PAGE_TEXT}, failing))
    assert checks[0] == CitationCheck(Verdict.UNREADABLE, reason="timeout: no answer in 30 s")
    assert checks[1].verdict is Verdict.NOT_SUPPORTED
    broken = Reader({"https://lisbon.example": PAGE_TEXT}, {"https://slow.example": KeyError("bug")})
    with pytest.raises(KeyError):
        await verify_response(response, broken)
    assert broken.running == 0
