"""Row and text helpers shared by the providers (providers/helpers/parse.py)."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from tests.helpers import count_canonical_urls
from websearch_tui.core.models import Source, SourcesFound
from websearch_tui.providers.helpers.parse import (
    SourceSelection,
    answer_text,
    code_text,
    collect_sources,
    first_text,
    limit_sources,
    make_source,
    markdown_quote,
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
    assert sources[0].published_text == "2025-01-02" and sources[0].age_seconds is not None
    assert sources[1].title == "https://b.example" and sources[1].published_text is None


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


# --------------------------------------------------------------------------- SourceSelection


def _source(n: int, title: str | None = None) -> Source:
    url = f"https://s{n}.example/page"
    return Source(url=url, title=title or url)


def _urls(sources: tuple[Source, ...] | list[Source]) -> list[str]:
    return [s.url.split("/")[2] for s in sources]


def test_selection_lists_the_first_max_results_and_every_cited_later_one_in_provider_order() -> None:
    selection = SourceSelection(2)
    selection.add([_source(n) for n in range(6)] + [Source("https://S1.example/page/", "repeat")])
    selection.cite(["https://s5.example/page", "https://s3.example/page/", ""])
    assert _urls(selection.selection()) == ["s0.example", "s1.example", "s3.example", "s5.example"]
    assert selection.sources[1].title == "https://s1.example/page"  # a repeat keeps the first one
    assert len(selection.sources) == 6


def test_selection_a_citation_may_come_before_its_source() -> None:
    selection = SourceSelection(1)
    selection.cite(["https://s3.example/page"])
    selection.add([_source(0), _source(1), _source(2)])
    assert _urls(selection.selection()) == ["s0.example"]
    selection.add([_source(3)])
    assert _urls(selection.selection()) == ["s0.example", "s3.example"]


def test_selection_event_only_when_the_selection_changed() -> None:
    selection = SourceSelection(1)
    assert selection.sources_event() == []
    selection.add([_source(0)])
    first = selection.sources_event()
    assert first == [SourcesFound((_source(0),), replace=True)]
    selection.add([_source(0), _source(1)])  # a repeat, and a source beyond the limit
    selection.cite(["https://s0.example/page"])  # already listed
    assert selection.sources_event() == []
    selection.cite(["https://s1.example/page"])
    assert selection.sources_event() == [SourcesFound((_source(0), _source(1)), replace=True)]
    assert selection.sources_event() == []


def test_selection_cite_only_replaces_the_cited_set() -> None:
    selection = SourceSelection(1)
    selection.add([_source(n) for n in range(4)])
    selection.cite_only(["https://s1.example/page", "https://s3.example/page"])
    assert _urls(selection.selection()) == ["s0.example", "s1.example", "s3.example"]
    selection.sources_event()
    selection.cite_only(["https://s3.example/page", "https://s0.example/page"])
    assert _urls(selection.selection()) == ["s0.example", "s3.example"]
    assert selection.sources_event() == [SourcesFound((_source(0), _source(3)), replace=True)]


def test_selection_fill_titles_names_a_url_only_source_from_a_repeat() -> None:
    selection = SourceSelection(1, fill_titles=True)
    selection.add([_source(0), _source(1)])
    selection.sources_event()
    selection.add([Source("https://s1.example/page", "Hidden", "snippet")])  # beyond the limit: no event
    assert selection.sources_event() == []
    selection.add([Source("https://s0.example/page", "Named", "snippet"), Source("https://s0.example/page", "Later")])
    assert selection.sources_event() == [
        SourcesFound((Source("https://s0.example/page", "Named", "snippet"),), replace=True)
    ]
    selection.cite(["https://s1.example/page"])
    assert [s.title for s in selection.selection()] == ["Named", "Hidden"]
    plain = SourceSelection(1)
    plain.add([_source(0), Source("https://s0.example/page", "Named")])
    assert plain.selection()[0].title == "https://s0.example/page"


def test_selection_carries_the_dropped_count() -> None:
    selection = SourceSelection(3)
    selection.dropped = 2
    selection.add([_source(0)])
    event = selection.sources_event()[0]
    assert selection.selection().dropped == 2 and isinstance(event, SourcesFound) and event.dropped == 2


def test_selection_work_per_call_is_proportional_to_what_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """4,000 sources added one call at a time, each followed by a citation: every call canonicalises
    only the URLs it is given, so the total is linear (re-scanning all sources and citations on
    every call, as before, would be some 16 million)."""
    calls = count_canonical_urls(monkeypatch)
    selection = SourceSelection(10)
    for n in range(4000):
        selection.add([_source(n)])
        selection.cite([_source(n if n % 100 == 0 else 0).url])
        selection.sources_event()
    assert calls[0] == 8000
    assert len(selection.selection()) == 10 + 39


@pytest.mark.parametrize(
    ("span", "quote"),
    [
        ("**asyncio** is the *standard* library", "asyncio is the standard library"),
        ("Use `asyncio.run()` and `__init__`", "Use asyncio.run() and __init__"),  # code spans keep their code
        ("See [the docs](https://docs.python.org/3/(x)) and ![img](https://i.example/a.png)", "See the docs and img"),
        ("### Weather\n- **Now**: 12 °C\n1. _sunny_ later\n> quoted", "Weather Now: 12 °C sunny later quoted"),
        ("2 * 3 = 6, snake_case_name and a*b stay", "2 * 3 = 6, snake_case_name and a*b stay"),
        ("~~old~~ new &amp; <b>bold</b>", "old new & bold"),
        ("**", None),
        (None, None),
    ],
)
def test_markdown_quote_is_the_plain_text_of_a_markdown_span(span: object, quote: str | None) -> None:
    assert markdown_quote(span) == quote


def test_markdown_quote_is_linear_on_unclosed_markup() -> None:
    assert markdown_quote("**x " * 20_000 + "[" * 20_000 + "`" * 20_000) is not None  # would hang if quadratic
