"""Checked citations everywhere a search is shown or kept: the JSON document (and its schema), the
text, LLM and Markdown formats, and the history, which gives them back as they were."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from pathlib import Path

import jsonschema

from websearch_tui.core.checks import CitationCheck, Verdict
from websearch_tui.core.models import Citation, SearchRequest, SearchResponse, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.formats.json_document import JSON_DOCUMENT_SCHEMA
from websearch_tui.formats.llm import to_llm_document
from websearch_tui.formats.markdown import to_markdown
from websearch_tui.formats.text import to_text
from websearch_tui.history import HistoryStore

RUST = "https://example.com/rust"
TOWN = "https://example.com/town"
SUPPORTED = CitationCheck(
    Verdict.SUPPORTED,
    passage="Rust 1.80 was released on 25 July 2024.",
    final_url=RUST,
    retrieved_at="2026-12-02T10:00:00Z",
    content_sha256="ab" * 32,
)
WRONG_NUMBER = CitationCheck(
    Verdict.NOT_SUPPORTED,
    passage="The town had 3,000 people in 2019.",
    reason="page says 3,000, claim says 30,000",
    final_url=TOWN,
    retrieved_at="2026-12-02T10:00:01Z",
    content_sha256="cd" * 32,
)


def checked_result() -> SearchResult:
    """A search whose two citations repeat its two sources (which would collapse to one line) and
    were checked: one supported, one not."""
    response = SearchResponse(
        "perplexity",
        answer="Rust 1.80 came out on 25 July 2024 [1]. The town had 30,000 people in 2019 [2].",
        sources=[Source(url=RUST, title="Rust 1.80"), Source(url=TOWN, title="The town")],
        citations=[
            Citation(RUST, "Rust 1.80", check=SUPPORTED),
            Citation(TOWN, "The town", check=WRONG_NUMBER),
        ],
    )
    result = SearchResult(SearchRequest("rust and the town", providers=("perplexity",)), "compare")
    result.providers = ("perplexity",)
    result.labels = {"perplexity": "Perplexity"}
    result.outcomes = [ProviderOutcome("perplexity", RunStatus.DONE, response)]
    result.created_at = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)
    return result


def test_the_json_document_carries_each_check_and_matches_its_schema() -> None:
    document = checked_result().to_dict()
    citations = document["results"][0]["response"]["citations"]
    assert citations[0]["check"] == SUPPORTED.to_dict() | {"verdict": "supported"}
    assert citations[1]["check"]["verdict"] == "not_supported"
    assert citations[1]["check"]["reason"] == "page says 3,000, claim says 30,000"
    jsonschema.validate(document, JSON_DOCUMENT_SCHEMA)
    unchecked = dataclasses.replace(checked_result())
    unchecked.outcomes[0].response.citations = [Citation(RUST, "Rust 1.80")]
    assert unchecked.to_dict()["results"][0]["response"]["citations"][0]["check"] is None


def test_every_text_format_shows_the_verdicts_the_reason_and_the_tally() -> None:
    result = checked_result()
    for text in (to_text(result), to_llm_document(result), to_markdown(result)):
        assert "Citations checked: 1 of 2 check out" in text
        assert "✓ supported" in text
        assert "✗ not supported: page says 3,000, claim says 30,000" in text
        assert "The town had 3,000 people in 2019." in text
    # the same citations unchecked repeat the sources: one line instead of a list
    result.outcomes[0].response.citations = [Citation(RUST, "Rust 1.80"), Citation(TOWN, "The town")]
    assert "2 citations: sources [1]-[2], in the same order" in to_text(result)
    assert "check out" not in to_text(result) + to_markdown(result) + to_llm_document(result)


def test_the_history_gives_the_checks_back(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history.sqlite3")
    try:
        entry_id = store.add(checked_result())
        again = store.get(entry_id).result
    finally:
        store.close()
    citations = again.outcomes[0].response.citations
    assert [c.check for c in citations] == [SUPPORTED, WRONG_NUMBER]
    assert again.to_dict()["results"] == checked_result().to_dict()["results"]
