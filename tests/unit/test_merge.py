"""The merged view's rules: which URLs are one page, how rows are ranked, provenance, and that folding
provider updates one at a time gives what a batch merge gives, in any order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from websearch_tui.core.merge import CITATION_WEIGHT, DAY, RRF_K, SourceMerger, index_count, merge_responses
from websearch_tui.core.models import Citation, SearchResponse, Source
from websearch_tui.core.text import canonical_url


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("HTTPS://Docs.Python.ORG/3/library/asyncio.html", "https://docs.python.org/3/library/asyncio.html"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com/a#section-2", "https://example.com/a"),
        ("https://example.com/a?", "https://example.com/a"),
        ("https://example.com/a/", "https://example.com/a"),
        ("https://example.com/a%7eb%2f", "https://example.com/a~b%2F"),
        ("https://example.com/a?utm_source=news&utm_medium=email", "https://example.com/a"),
        ("https://example.com/a?fbclid=x&gclid=y&mc_eid=z&ref_src=twsrc", "https://example.com/a"),
        ("https://example.com/a?id=7&utm_campaign=x", "https://example.com/a?id=7"),
        ("https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2"),
        ("https://münchen.de/straße", "https://xn--mnchen-3ya.de/stra%C3%9Fe"),
        ("http://[2001:DB8::1]:8080/x", "http://[2001:db8::1]:8080/x"),
        ("https://user:secret@example.com/a", "https://example.com/a"),
        ("https://example.com./a", "https://example.com/a"),
    ],
)
def test_one_page_in_many_spellings_is_one_key(first: str, second: str) -> None:
    assert canonical_url(first) == canonical_url(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("https://forum.example/t?thread=1", "https://forum.example/t?thread=2"),
        ("https://www.youtube.com/watch?v=abc", "https://www.youtube.com/watch?v=xyz"),
        ("https://example.com/item?id=1", "https://example.com/item?id=2"),
        ("https://github.com/o/r/blob/f.py?ref=v1", "https://github.com/o/r/blob/f.py?ref=v2"),
        ("http://example.com/a", "https://example.com/a"),  # a site may serve different pages on each
        ("https://example.com:8443/a", "https://example.com/a"),
        ("https://example.com/A", "https://example.com/a"),  # paths are case-sensitive
        ("https://example.com/a", "https://www.example.com/a"),
    ],
)
def test_different_pages_stay_apart(first: str, second: str) -> None:
    assert canonical_url(first) != canonical_url(second)


def test_a_string_that_is_not_a_url_is_its_own_key() -> None:
    assert canonical_url("not a url") == "not a url"


def response(provider: str, *urls: str, cited: tuple[str, ...] = (), **source_fields: object) -> SearchResponse:
    sources = [Source(url, f"{provider} title {i}", **source_fields) for i, url in enumerate(urls)]  # type: ignore[arg-type]
    citations = [Citation(url, f"cited {url}") for url in cited]
    return SearchResponse(provider=provider, sources=sources, citations=citations)


ASYNCIO = "https://docs.python.org/3/library/asyncio.html"


def test_agreement_ranks_first_and_rows_keep_provenance() -> None:
    rows = merge_responses(
        [
            response("brave", "https://a.example", ASYNCIO),
            response("tavily", ASYNCIO + "#top", "https://b.example"),
            response("exa", f"{ASYNCIO}?utm_source=exa"),
        ]
    )
    top = rows[0]
    assert top.url == ASYNCIO
    assert top.ranks == {"tavily": 1, "exa": 1, "brave": 2}  # best rank first
    assert top.providers == ["exa", "tavily", "brave"]  # by rank, then id
    assert top.score == pytest.approx(2 / (RRF_K + 1) + 1 / (RRF_K + 2))
    assert [row.url for row in rows[1:]] == ["https://a.example", "https://b.example"]


def test_being_cited_weighs_and_names_the_answer_and_its_numbers() -> None:
    rows = merge_responses(
        [
            response("brave", "https://a.example", "https://b.example"),
            SearchResponse(
                provider="perplexity",
                citations=[
                    Citation("https://x.example", "X"),
                    Citation("https://b.example/", "B"),
                    Citation("https://b.example#2", "B"),
                ],
            ),
        ]
    )
    by_url = {row.url: row for row in rows}
    assert by_url["https://b.example"].cited_by == {"perplexity": [2, 3]}
    assert by_url["https://b.example"].score == pytest.approx(1 / (RRF_K + 2) + CITATION_WEIGHT)
    assert rows[0].url == "https://b.example"  # cited beats ranked first by one provider alone
    cited_only = by_url["https://x.example"]
    assert cited_only.providers == [] and cited_only.cited_by == {"perplexity": [1]}
    assert (cited_only.title, cited_only.link) == ("X", "https://x.example")


def test_ties_go_to_more_providers_then_the_better_rank_then_the_url() -> None:
    filler = [f"https://filler{i}.example" for i in range(61)]
    # 1/(60+1) for one provider at rank 1 equals 2/(60+62) for two providers at rank 62
    rows = merge_responses(
        [
            response("brave", "https://solo.example", *filler[:60], "https://pair.example"),
            response("exa", *filler, "https://pair.example"),
        ]
    )
    order = [row.url for row in rows]
    assert rows[order.index("https://pair.example")].score == pytest.approx(
        rows[order.index("https://solo.example")].score
    )
    assert order.index("https://pair.example") < order.index("https://solo.example")  # more providers
    rows = merge_responses(
        [
            response("brave", "https://one.example", "https://two.example"),
            response("exa", "https://two.example", "https://one.example"),
        ]
    )
    assert [row.url for row in rows] == ["https://one.example", "https://two.example"]  # all else equal: the URL


def test_the_best_title_snippet_and_the_earliest_date_are_kept() -> None:
    merger = SourceMerger()
    merger.update(
        SearchResponse("brave", sources=[Source(ASYNCIO, ASYNCIO, None, "2024-05-01", age_seconds=100 * DAY)])
    )
    merger.update(
        SearchResponse(
            "exa", sources=[Source(ASYNCIO, "asyncio — Asynchronous I/O", "Event loops…", "2023-01-01", 600 * DAY)]
        )
    )
    row = merger.rows[0]
    assert row.title == "asyncio — Asynchronous I/O"  # a title that is not just the URL
    assert row.snippet == "Event loops…"
    assert (row.published_date, row.age_seconds) == ("2023-01-01", 600 * DAY)


def test_two_readings_of_one_date_keep_the_best_ranked_whichever_was_parsed_later() -> None:
    """Ages are counted when each answer is parsed: "3 days ago" and the same date as text differ by
    seconds, in either direction from run to run; the merged row must not flip between them."""
    for brave_age, exa_age in ((3 * DAY, 3 * DAY + 5), (3 * DAY + 5, 3 * DAY)):
        merger = SourceMerger()
        merger.update(SearchResponse("brave", sources=[Source(ASYNCIO, "A", None, "3 days ago", brave_age)]))
        merger.update(SearchResponse("exa", sources=[Source(ASYNCIO, "A", None, "2026-11-29", exa_age)]))
        assert merger.rows[0].published_date == "3 days ago"  # brave ranked it first (it reported first)


def test_an_update_replaces_what_that_provider_said_before() -> None:
    redirect = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC"
    merger = SourceMerger()
    merger.update(response("gemini", redirect))
    merger.update(response("brave", ASYNCIO))
    assert {row.url for row in merger.rows} == {redirect, ASYNCIO}
    merger.update(response("gemini", ASYNCIO))  # the grounding redirect was resolved
    assert [(row.url, row.providers) for row in merger.rows] == [(ASYNCIO, ["brave", "gemini"])]
    merger.remove("brave")
    assert [(row.url, row.providers) for row in merger.rows] == [(ASYNCIO, ["gemini"])]
    assert merger.row(ASYNCIO + "/") is merger.rows[0]


def test_providers_of_one_index_count_once_and_unknown_indexes_apart() -> None:
    assert index_count(["openai", "codex", "codex_alpha"]) == 1  # one model's web search
    assert index_count(["perplexity", "perplexity_search", "brave"]) == 2
    assert index_count(["tavily", "kimi", "synthetic"]) == 3  # unknown: each its own
    assert index_count(["not-a-provider", "also-not"]) == 2


def test_found_by_says_when_the_finders_share_an_index() -> None:
    rows = merge_responses([response(pid, ASYNCIO) for pid in ("openai", "codex", "brave", "perplexity")])
    assert rows[0].found_by == "found by 4 (3 indexes)"
    assert rows[0].to_dict()["indexes"] == 3
    two = merge_responses([response("perplexity", ASYNCIO), response("perplexity_search", ASYNCIO)])[0]
    assert (two.found_by, two.shared_indexes) == ("found by 2 (1 index)", "1 index")
    apart = merge_responses([response("brave", ASYNCIO), response("exa", ASYNCIO)])[0]
    assert (apart.found_by, apart.shared_indexes) == ("found by 2", "")
    only_cited = merge_responses([SearchResponse("openai", citations=[Citation(ASYNCIO, "t")])])[0]
    assert only_cited.found_by == ""


def test_to_dict_is_the_json_shape() -> None:
    row = merge_responses([response("brave", ASYNCIO), SearchResponse("claude", citations=[Citation(ASYNCIO, "t")])])[0]
    assert row.to_dict() == {
        "url": ASYNCIO,
        "link": ASYNCIO,
        "title": "brave title 0",
        "snippet": None,
        "published_date": None,
        "published_text": None,
        "providers": ["brave"],
        "indexes": 1,
        "ranks": {"brave": 1},
        "cited_by": {"claude": [1]},
        "score": round(1 / 61 + CITATION_WEIGHT, 6),
    }


URLS = st.sampled_from(
    [
        ASYNCIO,
        ASYNCIO + "/",
        ASYNCIO + "#x",
        "https://a.example",
        "https://a.example?utm_source=z",
        "https://b.example/p?id=1",
        "https://b.example/p?id=2",
        "http://b.example/p?id=1",
        "https://c.example",
    ]
)
RESPONSE = st.builds(
    lambda provider, urls, cited: response(provider, *urls, cited=tuple(cited)),
    st.sampled_from(["brave", "exa", "tavily", "perplexity", "gemini"]),
    st.lists(URLS, max_size=6),
    st.lists(URLS, max_size=3),
)


def _one_per_provider(responses: list[SearchResponse]) -> list[SearchResponse]:
    return list({r.provider: r for r in responses}.values())


def _rows(responses: list[SearchResponse]) -> list[dict[str, object]]:
    return [row.to_dict() for row in merge_responses(responses)]


@settings(max_examples=200, deadline=None)
@given(st.lists(RESPONSE, max_size=5), st.randoms(use_true_random=False))
def test_merging_is_invariant_to_provider_order(responses: list[SearchResponse], shuffler) -> None:
    responses = _one_per_provider(responses)
    shuffled = responses[:]
    shuffler.shuffle(shuffled)
    assert _rows(shuffled) == _rows(responses)


@settings(max_examples=200, deadline=None)
@given(st.lists(RESPONSE, max_size=5))
def test_folding_again_changes_nothing(responses: list[SearchResponse]) -> None:
    responses = _one_per_provider(responses)
    merger = SourceMerger()
    for r in responses + responses:
        merger.update(r)
    assert [row.to_dict() for row in merger.rows] == _rows(responses)


@settings(max_examples=200, deadline=None)
@given(st.lists(RESPONSE, min_size=1, max_size=8))
def test_incremental_updates_equal_a_batch_of_the_final_responses(updates: list[SearchResponse]) -> None:
    merger = SourceMerger()
    for r in updates:  # a provider may report several times; its last response is what counts
        merger.update(r)
    assert [row.to_dict() for row in merger.rows] == _rows(_one_per_provider(updates))
