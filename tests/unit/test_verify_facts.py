"""The facts a passage must repeat: numbers compared as values, dates in their common forms, names;
and the reason that names both values when they differ."""

from __future__ import annotations

import pytest

from websearch_tui.verify.facts import Fact, describe, evidence, find_facts, missing
from websearch_tui.verify.text import clean


def facts(text: str) -> list[Fact]:
    return find_facts(clean(text))


def lacking(claim: str, passage: str, headings: tuple[str, ...] = ()) -> list[str]:
    """The surfaces of the claim's facts the passage does not state."""
    return [fact.surface for fact in missing(facts(claim), evidence(clean(passage), headings))]


def reason(claim: str, passage: str) -> str:
    claim, passage = clean(claim), clean(passage)
    return describe(find_facts(claim), claim, evidence(passage), passage)


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        ("3,000 jobs", "3000 jobs"),
        ("3000 jobs", "3 000 jobs"),
        ("3 000 jobs", "3\u202f000 jobs"),  # a narrow no-break space groups thousands
        ("30% of them", "30 percent of them"),
        ("30 per cent of them", "30% of them"),
        ("1.5 million people", "1,500,000 people"),
        ("1,500,000 people", "1.5M people"),
        ("$4.3 billion", "4,300 million dollars"),
        ("14 million people", "人口约1400万"),
        ("two hours", "2 hours"),
        ("25 people", "twenty-five people"),
        ("a 3rd place", "3 place"),
        ("about 567,000 people", "567,131 people"),  # a hedged number rounds at its last stated digit
        ("2.9 million people", "2,914,000 people"),  # so does a number with a scale word
        ("Python 3.12.1", "Python 3.12.1"),
        ("-5 degrees", "\u22125 degrees"),
    ],
)
def test_numbers_that_are_the_same_value(claim: str, page: str) -> None:
    assert lacking(claim, page) == []


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        ("30,000 jobs", "3,000 jobs"),
        ("30 million people", "3 million people"),
        ("29 million people", "2.9 million people"),
        ("2.4% fell", "4.2% fell"),
        ("Python 3.10", "Python 3.1"),  # a version is compared as written
        ("Python 3.12.2", "Python 3.12.1"),
        ("567,000 people", "567,131 people"),  # not hedged: exact
        ("2,914,000 people", "2.9 million people"),  # more precise than the page
        ("30% of them", "30 of them"),
        ("-5 degrees", "5 degrees"),
        ("3 hours", "4 hours"),
        ("about 6,000 people", "6,600 people"),
    ],
)
def test_numbers_that_differ(claim: str, page: str) -> None:
    assert lacking(claim, page) != []


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("on 2023-10-02", ("y2023-m10-d2", "y2023-m10", "m10-d2", "y2023")),
        ("on October 2, 2023", ("y2023-m10-d2", "y2023-m10", "m10-d2", "y2023")),
        ("on Oct. 2nd 2023", ("y2023-m10-d2", "y2023-m10", "m10-d2", "y2023")),
        ("on 2 October 2023", ("y2023-m10-d2", "y2023-m10", "m10-d2", "y2023")),
        ("on the 2nd of October", ("m10-d2",)),
        ("in October 2023", ("y2023-m10", "y2023")),
        ("2023年10月2日", ("y2023-m10-d2", "y2023-m10", "m10-d2", "y2023")),
        ("in 2023", ("y2023",)),
    ],
)
def test_dates_in_common_forms(text: str, keys: tuple[str, ...]) -> None:
    (date,) = [fact for fact in facts(text) if fact.kind == "date"]
    assert date.keys == keys


def test_a_date_in_the_claim_matches_a_page_date_it_is_part_of() -> None:
    page = "It was released on October 2, 2023."
    assert lacking("It came out in October 2023.", page) == []
    assert lacking("It came out in 2023.", page) == []
    assert lacking("It came out on 2 October.", page) == []
    assert lacking("It came out in October 2022.", page) == ["October 2022"]
    assert lacking("It came out on 3 October.", page) == ["3 October"]


def test_lower_case_may_is_no_month_and_a_number_in_a_date_is_no_count() -> None:
    assert [(fact.kind, fact.surface) for fact in facts("The value 5 may change on 5 May 2021.")] == [
        ("number", "5"),
        ("date", "5 May 2021"),
    ]


def test_names_are_capitalised_words_inside_a_sentence_and_acronyms() -> None:
    found = facts('The tower in Paris. Named after "Gustave Eiffel", NASA and the U.S. say: Hello I am here.')
    assert [fact.surface for fact in found if fact.kind == "name"] == ["Paris", "Gustave", "Eiffel", "NASA"]


@pytest.mark.parametrize(
    ("claim", "passage", "headings"),
    [
        ("built in Paris", "built in PARIS", ()),
        ("European demand", "demand in Europe", ()),
        ("JWST's mirror", "The James Webb Space Telescope has a mirror", ()),
        ("the quake hit Lisbon", "the quake hit the city", ("Lisbon", "History")),
    ],
)
def test_a_passage_names_it_in_another_case_form_acronym_or_heading(
    claim: str, passage: str, headings: tuple[str, ...]
) -> None:
    assert lacking(claim, passage, headings) == []


@pytest.mark.parametrize(
    ("claim", "passage"),
    [("capital is Lyon", "capital is Paris"), ("led by Jane Doe", "led by Janet Doe"), ("in Austria", "in Australia")],
)
def test_a_different_name_is_missing(claim: str, passage: str) -> None:
    assert lacking(claim, passage) != []


@pytest.mark.parametrize(
    ("claim", "passage", "expected"),
    [
        (
            "Between 30,000 and 60,000 jobs were added.",
            "Between 3,000 and 6,000 jobs were added in manufacturing, up 12% on 2023.",
            "page says 3,000 and 6,000, claim says 30,000 and 60,000",
        ),
        (
            "Between 30,000 and 60,000 jobs were added.",
            "Between 3,000 and 6,000 jobs were added.",
            "page says 3,000 and 6,000, claim says 30,000 and 60,000",
        ),
        (
            "It was 3,000 to 6,000 people.",
            "It was 300 to 600 people.",
            "page says 300 to 600, claim says 3,000 to 6,000",
        ),
        ("It opened in 2019 to the public.", "It opened in 2021 to the public.", "page says 2021, claim says 2019"),
        ("The capital is Lyon.", "The capital is Paris.", "page says Paris, claim says Lyon"),
        (
            "It was led by the Duke of Saldanha.",
            "It was led by the Marquis of Pombal.",
            "page says Marquis of Pombal, claim says Duke of Saldanha",
        ),
        ("Revenue rose 21% this year.", "Revenue of $4.3 billion rose 12% this year.", "page says 12%, claim says 21%"),
        ("It has 30 million people.", "It has 3 million people.", "page says 3 million, claim says 30 million"),
        ("It has 30 million people.", "It has many people.", "claim says 30 million, the passage does not"),
    ],
)
def test_the_reason_names_both_values(claim: str, passage: str, expected: str) -> None:
    assert reason(claim, passage) == expected
