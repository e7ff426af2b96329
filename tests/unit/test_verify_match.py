"""The citation checker's verdicts: quoted, supported, not_supported with the reason, the passage
returned, and linear time on large and hostile pages.

TUNING SET: the cases of ``TUNING`` are the ones the thresholds of websearch_tui.verify.match were
tuned on. The hold-out cases, written before any tuning and never tuned on, are in
test_verify_holdout.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tests.verify_pages import claims_from, long_page
from websearch_tui.core.checks import Verdict
from websearch_tui.verify.check import check_claim
from websearch_tui.verify.match import PageIndex, judge
from websearch_tui.verify.sentences import split_sentences
from websearch_tui.verify.text import blocks, clean

EIFFEL = """\
# Eiffel Tower

The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is named
after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889.

Locally nicknamed "La dame de fer" (French for "Iron Lady"), it was constructed as the centrepiece
of the 1889 World's Fair. The tower is 330 metres (1,083 ft) tall, about the same height as an
81-storey building, and the tallest structure in Paris.

## Visitors

It was the most visited paid monument in the world, with 6.91 million people ascending it in 2015.
The tower received its 250 millionth visitor in 2010.
"""
ACME = """\
Acme Corp reported revenue of $4.3 billion for the third quarter of 2024, up 12% from a year
earlier. Net income rose to $610 million. The company now expects full-year sales between
$16.5 billion and $17 billion.

Chief executive Jane Doe said demand in Europe remained weak.
"""
WALL = "长城是中国古代的军事防御工程，总长度超过2万公里。明长城全长8851.8公里，建于1368年至1644年之间。"
TOWER = "東京タワーは1958年に完成した。高さは333メートルである。"
TABLE = """\
## Results

| Model | Score |
|---|---|
| Alpha | 81.2 |
| Beta | 79.5 |

Beta scored **79.5** on the benchmark, behind [Alpha](https://alpha.example).
"""
SENATE = "The U.S. Senate voted 52-48 on Jan. 5, 2021. Dr. Smith testified for three hours."

Q, S, N = Verdict.QUOTED, Verdict.SUPPORTED, Verdict.NOT_SUPPORTED

TUNING: list[tuple[str, str, Verdict]] = [
    (EIFFEL, "It is named after the engineer Gustave Eiffel", Q),
    (EIFFEL, "Locally nicknamed \u201cLa dame de fer\u201d (French for \u201cIron Lady\u201d)", Q),
    (EIFFEL, "The tower is 330\u00a0metres (1,083\u00a0ft) tall", Q),
    (EIFFEL, "The Eiffel Tower, designed by Gustave Eiffel's company, was built between 1887 and 1889.", S),
    (EIFFEL, "About 6.9 million people visited the tower in 2015.", S),
    (EIFFEL, "At 330 metres, the tower is the tallest structure in Paris.", S),
    (EIFFEL, "Completed in 1889 for the World's Fair, the Eiffel Tower stands 330 metres tall.", S),
    (EIFFEL, "The tower was the world's most visited paid monument, with 6.91 million visitors in 2015.", S),
    (EIFFEL, "Gustave Eiffel's company built the tower between 1887 and 1889, in time for the World's Fair.", S),
    (EIFFEL, "The tower stands 330 m tall, roughly as high as an 81-storey building.", S),
    (EIFFEL, "The tower is 300 metres tall.", N),
    (EIFFEL, "6.91 million people visited the tower in 2016.", N),
    (EIFFEL, "The tower was designed by Gustave Eiffel's company in Lyon.", N),
    (EIFFEL, "The tower is 330 metres tall and the tallest structure in Marseille.", N),
    (EIFFEL, "The tower received its 25 millionth visitor in 2010.", N),
    (EIFFEL, "The tower stands 330 m tall, roughly as high as an 18-storey building.", N),
    (EIFFEL, "It received its 250 millionth visitor in 2012.", N),
    (EIFFEL, "Around 69 million people ascended the tower in 2015.", N),
    (EIFFEL, "The Louvre holds the Mona Lisa.", N),
    (ACME, "Acme's third-quarter 2024 revenue was $4.3 billion, a 12% increase.", S),
    (ACME, "Revenue rose 12 percent to 4,300 million dollars.", S),
    (ACME, "Net income rose to $0.61 billion.", S),
    (ACME, "Jane Doe said European demand stayed weak.", S),
    (ACME, "Acme expects 2024 sales of $16.5 billion to $17 billion.", S),
    (ACME, "Revenue rose 21% in the third quarter.", N),
    (ACME, "Net income rose to $6.1 billion.", N),
    (ACME, "Chief executive John Doe said demand in Europe remained weak.", N),
    (ACME, "The company expects full-year sales between $1.65 billion and $1.7 billion.", N),
    (ACME, "Acme reported revenue of $4.8 billion for the third quarter of 2024, up 12% from a year earlier.", N),
    (ACME, "Acme reported revenue of $4.3 billion for the third quarter of 2023, up 12% from a year earlier.", N),
    (WALL, "明长城全长8851.8公里。", Q),
    (WALL, "长城总长度超过2万公里", S),
    (WALL, "明长城长8851.8公里", S),
    (WALL, "明长城全长885.18公里", N),
    (WALL, "明长城建于1468年", N),
    (TOWER, "東京タワーの高さは333メートル", S),
    (TOWER, "東京タワーの高さは334メートル", N),
    (TABLE, "Beta scored 79.5 on the benchmark.", Q),
    (TABLE, "Beta scored 97.5 on the benchmark.", N),
    (SENATE, "The Senate voted 52 to 48 on January 5, 2021.", S),
    (SENATE, "The Senate voted 52 to 48 on January 6, 2021.", N),
    (SENATE, "Dr. Smith testified for three hours.", Q),
    (SENATE, "Dr. Smith testified for two hours.", N),
]


@pytest.mark.parametrize(("page", "claim", "expected"), TUNING)
def test_tuning_cases(page: str, claim: str, expected: Verdict) -> None:
    verdict, passage, reason = check_claim(claim, page)
    assert verdict is expected
    assert (reason is None) is (verdict is not N)
    assert passage is not None or verdict is N


@pytest.mark.parametrize(
    ("page", "true_claim", "changed_claim", "reason"),
    [
        (
            EIFFEL,
            "The tower received its 250 millionth visitor in 2010.",
            "The tower received its 251 millionth visitor in 2010.",
            "page says 250, claim says 251",
        ),
        (
            "The museum opened to the public in 2019 after a long renovation.",
            "The museum opened to the public in 2019 after a long renovation.",
            "The museum opened to the public in 2021 after a long renovation.",
            "page says 2019, claim says 2021",
        ),
        (
            "The summit was held in Paris and ended with a joint statement.",
            "The summit was held in Paris and ended with a joint statement.",
            "The summit was held in Lyon and ended with a joint statement.",
            "page says Paris, claim says Lyon",
        ),
        (
            "The region has 3 million inhabitants, most of them near the coast.",
            "The region has 3 million inhabitants, most of them near the coast.",
            "The region has 30 million inhabitants, most of them near the coast.",
            "page says 3 million, claim says 30 million",
        ),
        (
            "Between 3,000 and 6,000 people attended the march on Sunday.",
            "Between 3,000 and 6,000 people attended the march on Sunday.",
            "Between 30,000 and 60,000 people attended the march on Sunday.",
            "page says 3,000 and 6,000, claim says 30,000 and 60,000",
        ),
        (
            "Officials counted 3,000 to 6,000 people at the march on Sunday.",
            "Officials counted 3,000 to 6,000 people at the march on Sunday.",
            "Officials counted 30,000 to 60,000 people at the march on Sunday.",
            "page says 3,000 to 6,000, claim says 30,000 to 60,000",
        ),
    ],
)
def test_a_look_alike_claim_with_one_fact_changed_is_not_supported_and_the_reason_names_both(
    page: str, true_claim: str, changed_claim: str, reason: str
) -> None:
    assert check_claim(true_claim, page)[0] is Q
    verdict, passage, why = check_claim(changed_claim, page)
    assert (verdict, why) == (N, reason)
    assert passage is not None and true_claim in passage


def test_a_reworded_look_alike_is_judged_on_its_facts_too() -> None:
    page = "Officials counted between 3,000 and 6,000 people at the march on Sunday in the capital."
    assert check_claim("On Sunday, 3,000 to 6,000 people marched in the capital.", page)[0] is S
    verdict, _, why = check_claim("On Sunday, 30,000 to 60,000 people marched in the capital.", page)
    assert (verdict, why) == (N, "page says 3,000 and 6,000, claim says 30,000 to 60,000")


def test_quoted_with_curly_quotes_dashes_and_no_break_spaces_on_either_side() -> None:
    page = "He wrote: \u201cThe bridge\u2014finished in 1932\u2014carries 160\u00a0000 cars a day.\u201d"
    assert check_claim("The bridge - finished in 1932 - carries 160 000 cars a day.", page)[0] is Q
    assert check_claim("the bridge \u2013 finished in 1932 \u2013 carries 160,000 cars a day", page)[0] is Q
    plain = 'He wrote: "The bridge - finished in 1932 - carries 160 000 cars a day."'
    assert (
        check_claim("\u201cThe bridge\u2014finished in 1932\u2014carries\u00a0160\u00a0000 cars\u201d", plain)[0] is Q
    )


def test_quoted_returns_the_sentences_that_hold_the_quote() -> None:
    verdict, passage, reason = check_claim("the engineer Gustave Eiffel, whose company designed", EIFFEL)
    assert (verdict, reason) == (Q, None)
    assert passage == (
        "It is named after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889."
    )
    spanning = "and built the tower from 1887 to 1889. Locally nicknamed"
    assert check_claim(spanning, EIFFEL)[1] == (
        "It is named after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889. "
        'Locally nicknamed "La dame de fer" (French for "Iron Lady"), it was constructed as the centrepiece of the '
        "1889 World's Fair."
    )


def test_a_quote_with_an_ellipsis_is_quoted_when_its_pieces_are_there_in_order() -> None:
    assert check_claim("The Eiffel Tower is a wrought-iron lattice tower \u2026 in Paris, France", EIFFEL)[0] is Q
    assert check_claim("in Paris, France ... The Eiffel Tower is a wrought-iron lattice tower", EIFFEL)[0] is not Q


def test_a_quote_is_matched_on_whole_words() -> None:
    assert check_claim("ower is 330 metres", EIFFEL)[0] is not Q
    assert check_claim("Ower is 330 metres", "Power is 330 metres.")[0] is not Q


def test_a_claim_with_markers_and_markdown_is_judged_on_its_text() -> None:
    assert check_claim("The tower is **330 metres** (1,083 ft) tall [1][2].", EIFFEL)[0] is Q


def test_not_supported_without_a_close_passage_gives_no_passage() -> None:
    assert check_claim("Bananas are rich in potassium.", EIFFEL) == (
        N,
        None,
        "no passage of the page shares the claim's words",
    )
    assert check_claim("...", EIFFEL) == (N, None, "the claim has no words to look for")
    assert check_claim("The tower is tall.", "") == (N, None, "no passage of the page shares the claim's words")


def test_not_supported_on_words_alone_says_how_many_it_has() -> None:
    verdict, passage, reason = check_claim("Engineers repainted the lattice tower with bronze varnish.", EIFFEL)
    assert (verdict, reason) == (N, "the closest passage has only 3 of the claim's 6 words")
    assert passage is not None and "lattice tower" in passage


def test_known_slip_negation_and_direction_words_pass_as_supported() -> None:
    # A known limit, allowed by design: words are matched as a bag, so a claim that negates the page
    # or reverses a direction ("fell" for "rose") shares its words and facts and passes. A model-based
    # judge (websearch_tui.verify.judge) is where this would be caught. Should this start failing,
    # the checker got stricter: update the test and the docs of match.py and judge.py.
    assert check_claim("The tower is not the tallest structure in Paris.", EIFFEL)[0] is S
    assert check_claim("Acme's net income fell to $610 million.", ACME)[0] is S


def test_the_page_index_is_built_once_for_many_claims() -> None:
    index = PageIndex(EIFFEL)
    assert [judge(claim, index)[0] for claim in ("The tower is 330 metres tall.", "The tower is 300 metres tall.")] == [
        S,
        N,
    ]


def _best_time(function: Callable[[], object], runs: int = 2) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def test_a_one_megabyte_page_is_checked_right_and_in_linear_time() -> None:
    page = long_page(1_000_000)
    sentences = [sentence for block in blocks(clean(page)) for sentence in split_sentences(block.text)]
    claims = claims_from(sentences, 6)
    index = PageIndex(page)
    assert [judge(claim, index)[0].value for claim, _ in claims] == [kind for _, kind in claims]
    quarter = long_page(250_000)
    small = _best_time(lambda: check_claim(claims[1][0], quarter))
    large = _best_time(lambda: check_claim(claims[1][0], page))
    assert large < 8 * small  # linear is 4x; quadratic would be 16x


@pytest.mark.parametrize(
    "unit",
    ["[1", "[1]", "[a](", ". ", "e.g. ", "1,000", "1 000 ", "Jan 5 ", "Ab ", "\u4e1c", "about 5% ", "1.", "*"],
)
def test_hostile_pages_take_linear_time(unit: str) -> None:
    claim = "The U.S. population was about 3.5 million in 2019, e.g. per Dr. Smith [1]."
    small_page, large_page = unit * (100_000 // len(unit)), unit * (400_000 // len(unit))
    small = _best_time(lambda: check_claim(claim, small_page))
    large = _best_time(lambda: check_claim(claim, large_page))
    assert large < 8 * small + 0.05  # linear is 4x; quadratic would be 16x (+50 ms against timer noise)


def test_a_long_claim_takes_time_linear_in_its_length() -> None:
    page = long_page(100_000)
    sentence = "Officials counted 3,000 people at the march on 5 May 2021 in Lisbon. "
    small_claim, large_claim = sentence * 1_000, sentence * 4_000
    small = _best_time(lambda: check_claim(small_claim, page))
    large = _best_time(lambda: check_claim(large_claim, page))
    assert check_claim(large_claim, page)[0] is N
    assert large < 8 * small + 0.05
