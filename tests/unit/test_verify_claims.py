"""What each citation claims: the provider's cited text, else the answer sentences with its marker."""

from __future__ import annotations

from websearch_tui.core.models import Citation, SearchResponse
from websearch_tui.verify.claims import citation_claims, marked_claims


def response(answer: str, *cited: str | None) -> SearchResponse:
    citations = [Citation(f"https://example.org/{i}", f"page {i}", text) for i, text in enumerate(cited, 1)]
    return SearchResponse(provider="test", answer=answer, citations=citations)


def test_cited_text_is_the_claim_when_the_provider_gives_one() -> None:
    answer = "Lisbon is the capital of Portugal [1]. It is old [2]."
    claims = citation_claims(response(answer, "  Lisbon, the capital of Portugal  ", None, ""))
    assert claims == {0: ["Lisbon, the capital of Portugal"], 1: ["It is old."]}


def test_a_citation_without_cited_text_or_marker_has_no_claim() -> None:
    assert citation_claims(response("No markers here.", None, None)) == {}
    assert (
        citation_claims(SearchResponse(provider="test", answer=None, citations=[Citation("https://a.example", "a")]))
        == {}
    )


def test_markers_beyond_the_citations_are_ignored() -> None:
    assert citation_claims(response("A claim [1]. Another [7].", None)) == {0: ["A claim."]}


def test_every_sentence_carrying_a_marker_is_a_claim_once() -> None:
    answer = "Paris is the capital [1]. It has 2.1 million people [1][2]. Paris is the capital [1]."
    assert marked_claims(answer) == {
        1: ["Paris is the capital.", "It has 2.1 million people."],
        2: ["It has 2.1 million people."],
    }


def test_markers_in_one_group_share_the_sentence_and_separate_groups_split_it() -> None:
    answer = "The U.S. has 50 states [3, 4]. Paris has 2.1 million people [1], and Lyon has 0.5 million [2]."
    assert marked_claims(answer) == {
        3: ["The U.S. has 50 states."],
        4: ["The U.S. has 50 states."],
        1: ["Paris has 2.1 million people"],
        2: ["and Lyon has 0.5 million"],
    }


def test_one_marker_inside_a_sentence_claims_the_whole_sentence() -> None:
    assert marked_claims("The tower [1] is 330 metres tall.") == {1: ["The tower is 330 metres tall."]}


def test_a_marker_after_the_full_stop_or_at_the_end_of_a_paragraph_stays_with_its_sentence() -> None:
    answer = "First point. [1]\n\nSecond point.[2]\nThird point.\n\nFourth point [3]\n\n- Item one [4]\n- Item two[5]."
    assert marked_claims(answer) == {
        1: ["First point."],
        2: ["Second point."],
        3: ["Fourth point"],
        4: ["Item one"],
        5: ["Item two."],
    }


def test_abbreviations_and_decimals_do_not_split_a_claim() -> None:
    answer = "Dr. Smith said e.g. the U.S. economy grew 2.5% in 2023 [1]. Approx. 3.5 million people moved [2]."
    assert marked_claims(answer) == {
        1: ["Dr. Smith said e.g. the U.S. economy grew 2.5% in 2023."],
        2: ["Approx. 3.5 million people moved."],
    }


def test_cjk_sentences_are_split_at_full_stops_without_spaces() -> None:
    answer = "北京是中国的首都。[1]上海是最大的城市[2]！东京塔建于1958年，高333米[3]。"
    assert marked_claims(answer) == {
        1: ["北京是中国的首都。"],
        2: ["上海是最大的城市!"],
        3: ["东京塔建于1958年,高333米。"],
    }


def test_markdown_and_numbered_links_are_read_as_text_and_markers() -> None:
    answer = (
        "## Summary\n\n1. **Lisbon** is in [Portugal](https://pt.example) [1](https://a.example).\n2. It is old [2]."
    )
    assert marked_claims(answer) == {1: ["Lisbon is in Portugal."], 2: ["It is old."]}
