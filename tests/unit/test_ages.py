"""Ages past two years read in years ("11y ago", not "141mo ago"), wherever an age is shown."""

from __future__ import annotations

import pytest

from websearch_tui.core.merge import merge_responses
from websearch_tui.core.models import SearchRequest, SearchResponse, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.core.text import format_age
from websearch_tui.formats.llm import to_llm_document, to_llm_merged
from websearch_tui.formats.markdown import to_markdown
from websearch_tui.formats.text import to_text
from websearch_tui.tui.search.merged_view import row_content
from websearch_tui.tui.search.source_list import render_source

DAY = 86400
OLD = 141 * 30 * DAY
"""The age that read "141mo ago": 11 years and some."""


@pytest.mark.parametrize(
    ("days", "shown"),
    [
        (425, "14mo ago"),
        (729, "24mo ago"),  # under two years: months, as before
        (730, "2y ago"),
        (141 * 30, "11y ago"),
        (40 * 365 + 20, "40y ago"),
    ],
)
def test_format_age_counts_years_from_two_years_on(days: int, shown: str) -> None:
    assert format_age(days * DAY) == shown


def old_source() -> Source:
    return Source("https://old.example/page", "An old page", "old words", "2014-01-01", OLD)


def old_result() -> SearchResult:
    response = SearchResponse(provider="brave", answer="Old news.", sources=[old_source()])
    outcome = ProviderOutcome("brave", RunStatus.DONE, response)
    return SearchResult(
        SearchRequest("old news", providers=("brave",)),
        "compare",
        providers=("brave",),
        labels={"brave": "Brave Search"},
        outcomes=[outcome],
    )


def test_every_place_an_age_is_shown_reads_years() -> None:
    shown = {
        "pane source row": render_source(1, old_source()).plain,
        "merged view row": row_content(1, merge_responses([old_result().outcomes[0].response])[0], str).plain,
        "text": to_text(old_result()),
        "markdown": to_markdown(old_result()),
        "llm": to_llm_document(old_result()),
        "llm merged": to_llm_merged(old_result()),
    }
    for where, text in shown.items():
        assert "11y ago" in text, (where, text)
        assert "mo ago" not in text, (where, text)
