"""Row and text helpers shared by the providers (providers/_parse.py)."""

from __future__ import annotations

from types import MappingProxyType

from websearch_tui.core.models import SourcesFound
from websearch_tui.providers._parse import (
    answer_text,
    code_text,
    collect_sources,
    first_text,
    limit_sources,
    make_source,
    sources_from,
)


def test_sources_from_reads_keys_and_functions_and_drops_unusable_rows() -> None:
    rows = [
        {"link": "https://a.example/x", "name": "<b>A</b>", "body": "one", "when": "2025-01-02", "by": "Ann"},
        {"link": "ftp://nope", "name": "dropped"},
        "not a row",
        MappingProxyType({"link": "https://b.example", "body": "two"}),
    ]
    sources = sources_from(
        rows,
        url="link",
        title="name",
        snippet=lambda row: row.get("body", "").upper(),
        date="when",
        author="by",
    )
    assert [s.url for s in sources] == ["https://a.example/x", "https://b.example"] and sources.dropped == 2
    assert sources[0].title == "A" and sources[0].snippet == "ONE" and sources[0].author == "Ann"
    assert sources[0].published_date == "2025-01-02" and sources[0].age_seconds is not None
    assert sources[1].title == "https://b.example" and sources[1].published_date is None


def test_sources_from_non_list_and_snippet_limit() -> None:
    assert sources_from({"url": "https://a.example"}, url="url", title="t", snippet="s") == []
    (source,) = sources_from(
        [{"url": "https://a.example", "s": "x" * 50}], url="url", title="t", snippet="s", snippet_limit=10
    )
    assert len(source.snippet or "") <= 10


def test_first_text_skips_blank_and_non_string_values() -> None:
    row = {"a": "  ", "b": 3, "c": " kept ", "d": "later"}
    assert first_text(row, "a", "b", "c", "d") == " kept "
    assert first_text(row, "a", "missing") is None
    assert first_text(None, "a") is None


def test_answer_text_sanitizes_and_strips() -> None:
    assert answer_text("  **bold**\x1b[31m red\r\n") == "**bold** red"
    assert answer_text(" \x07 ") is None
    assert answer_text(42) is None


def test_code_text() -> None:
    assert code_text(1701) == "1701" and code_text(" 1701 ") == "1701"
    assert code_text(None) is None and code_text(True) is None and code_text("") is None


def test_sources_from_counts_the_rows_it_drops() -> None:
    rows = [{"u": "https://a.example"}, {"u": "ftp://nope"}, "not a row", None, {"t": "no url"}, {"u": "https://b.x"}]
    sources = sources_from(rows, url="u", title="t", snippet=None)
    assert [s.url for s in sources] == ["https://a.example", "https://b.x"] and sources.dropped == 4
    assert sources_from([{"u": "https://a.example"}], url="u", title=None, snippet=None).dropped == 0
    assert sources_from(None, url="u", title=None, snippet=None).dropped == 0  # no list: nothing was sent


def test_collect_sources_counts_make_source_misses() -> None:
    collected = collect_sources([make_source("https://a.example"), make_source("mailto:x@y.z"), make_source(None)])
    assert [s.url for s in collected] == ["https://a.example"] and collected.dropped == 2
    collected.append(make_source("https://b.example"))
    assert len(collected) == 2 and collected.dropped == 2  # still a list; appending keeps the count


def test_limit_sources_keeps_the_dropped_count_and_the_event_reads_it() -> None:
    parsed = sources_from(
        [{"u": f"https://{n}.example"} for n in "abc"] + [{"u": ""}], url="u", title=None, snippet=None
    )
    limited = limit_sources(parsed, 2)
    assert limited == tuple(parsed[:2]) and limited.dropped == 1  # cut by the limit is not "dropped"
    event = SourcesFound(limited)
    assert event.dropped == 1 and type(event.sources) is tuple
    assert SourcesFound(limited, dropped=5).dropped == 5  # an explicit count wins
    assert SourcesFound(tuple(parsed)).dropped == 0  # a plain tuple carries no count
    assert limit_sources([make_source("https://a.example")], 1).dropped == 0
