"""Where the reader view finds a check's passage and a search term (websearch_tui.tui.reader.locate)."""

from __future__ import annotations

from websearch_tui.tui.reader.locate import (
    Hit,
    cut_point,
    find_runs,
    passage_hits,
    passage_offset,
    term_hits,
    text_find,
)

LINES = [
    "How tides work",
    "",
    "The tide rises twice a day, about",
    "every 12 hours and 25 minutes.",
    "",
    "Why",
    "",
    "The Moon pulls the water. It is strong.",
]


def marked(lines: list[str], hits: list[Hit]) -> list[str]:
    return [lines[hit.line][hit.start : hit.end] for hit in hits]


def test_a_passage_is_found_across_line_wraps_punctuation_and_case():
    hits = passage_hits(LINES, "the TIDE rises twice a day - about every 12 hours and 25 minutes")
    assert marked(LINES, hits) == ["The tide rises twice a day, about", "every 12 hours and 25 minutes."]


def test_a_heading_between_two_sentences_of_a_passage_is_skipped():
    hits = passage_hits(LINES, "about every 12 hours and 25 minutes. The Moon pulls the water.")
    assert marked(LINES, hits) == ["about", "every 12 hours and 25 minutes.", "The Moon pulls the water."]


def test_the_checkers_normal_form_matches_the_page_as_written():
    lines = ["“Straße” — the ﬁnal word’s form"]
    assert marked(lines, passage_hits(lines, '"Strasse" - the final word\'s form')) == [
        "Straße” — the ﬁnal word’s form"
    ]


def test_cjk_is_matched_character_by_character_so_a_wrap_inside_a_run_does_not_matter():
    lines = ["东京塔很", "高。"]
    assert marked(lines, passage_hits(lines, "东京塔很高")) == ["东京塔很", "高。"]


def test_a_passage_the_page_does_not_hold_is_not_found():
    assert passage_hits(LINES, "Nothing of this is on the page at all") == []
    assert find_runs(["a", "b"], []) == []


def test_the_longest_start_is_found_at_its_first_place():
    keys = "x a b c y a b c d e".split()
    assert find_runs(keys, "a b c d e".split()) == [(5, 5)]
    assert find_runs(keys, "a b c z".split()) == [(1, 3)]


def test_passage_offset_is_where_the_passage_starts_in_the_markdown():
    text = "# Tides\n\nThe tide rises **twice** a day.\n\nThe Moon pulls."
    assert text[passage_offset(text, "The tide rises twice a day.") or 0 :].startswith("The tide rises")
    assert passage_offset(text, "Nothing like it here at all") is None


def test_term_hits_ignore_case_and_find_every_place():
    assert term_hits(LINES, "THE") == [Hit(2, 0, 3), Hit(7, 0, 3), Hit(7, 15, 18)]
    assert term_hits(LINES, "") == []
    assert term_hits(["İstanbul is big"], "big") == [Hit(0, 12, 15)]  # a line whose lower case grows


def test_text_find_and_cut_point():
    text = "alpha\n\nbeta gamma\n\ndelta"
    assert text_find(text, "GAMMA") == 12
    assert text_find(text, "gamma", 13) is None
    assert cut_point(text, 0, 20) == len("alpha\n\nbeta gamma\n\n")  # after a paragraph break
    assert cut_point(text, 0, 15) == len("alpha\n\nbeta ")  # none in the second half: after a space
    assert cut_point(text, 0, 100) == len(text)
    assert cut_point("x" * 50, 0, 10) == 10


def test_a_passage_near_the_end_of_a_large_page_is_found_among_near_copies():
    lines = [f"Line {n} says the sea is wide and deep near the coast." for n in range(10_000)]
    passage = "Line 9990 says the sea is wide and deep near the coast. Line 9991 says"
    assert [hit.line for hit in passage_hits(lines, passage)] == [9990, 9991]
