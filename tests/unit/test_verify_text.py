"""The citation checker's text handling: normalisation, Markdown blocks and sentence splitting."""

from __future__ import annotations

import pytest

from websearch_tui.verify.sentences import MAX_SENTENCE, split_sentences
from websearch_tui.verify.text import Block, blocks, clean, content_words, quote_key, strip_inline, tokens


@pytest.mark.parametrize(
    ("fancy", "plain"),
    [
        ("\u201cIron Lady\u201d and \u2018dame\u2019", "\"Iron Lady\" and 'dame'"),
        ("1887\u20131889 \u2014 built \u2212 5", "1887-1889 - built - 5"),
        ("330\u00a0metres\u202f(1,083\u2009ft)", "330 metres (1,083 ft)"),
        ("\uff21\uff43\uff4d\uff45 \uff11\uff12\uff05", "Acme 12%"),  # full-width forms (NFKC)
        ("ef\ufb01cient hy\u00adphen zero\u200bwidth", "efficient hyphen zerowidth"),
    ],
)
def test_clean_straightens_quotes_dashes_spaces_and_forms(fancy: str, plain: str) -> None:
    assert clean(fancy) == plain


def test_quote_key_ignores_case_punctuation_markup_and_spacing() -> None:
    assert quote_key(clean("The  **Tower** is 330\u00a0m \u2014 “tall”.")) == quote_key('the tower is 330 m - "tall"')
    assert quote_key("The tower is 330 m tall") != quote_key("The tower is 33 0 m tall")


def test_tokens_keep_cjk_runs_and_split_them_from_digits() -> None:
    assert tokens("Paris's 3,000 东京塔建于1958年") == ["paris", "s", "3", "000", "东京塔建于", "1958", "年"]


def test_content_words_drop_stop_words_and_numbers_and_pair_cjk() -> None:
    assert content_words(["the", "tower", "is", "330", "not", "tall"]) == ["tower", "tall"]
    assert content_words(["东京塔", "高"]) == ["东京", "京塔", "高"]


def test_strip_inline_keeps_link_text_and_turns_numbered_links_into_markers() -> None:
    text = "**Lisbon** is in [Portugal](https://en.wikipedia.org/wiki/Portugal_(country)) [3](https://x.example/a) `code` ~~old~~ ~30 \\*"
    assert strip_inline(text) == "Lisbon is in Portugal [3] code old ~30 *"


def test_blocks_follow_headings_lists_tables_and_soft_breaks() -> None:
    text = clean(
        "# Lisbon\n\nLisbon had 567,131 people in\n2023. It is old.\n\n## History\n\n"
        "1. First item\n2. Second item\n- a bullet\n> a quote\n\n| Year | People |\n|---|:-:|\n| 2023 | 567,131 |\n"
        "\n### Quake\n\nIn 1755.\n\n## Today\n\nNow.\n---\n"
    )
    assert list(blocks(text)) == [
        Block("Lisbon", ("Lisbon",), heading=True),
        Block("Lisbon had 567,131 people in 2023. It is old.", ("Lisbon",)),
        Block("History", ("Lisbon", "History"), heading=True),
        Block("First item", ("Lisbon", "History")),
        Block("Second item", ("Lisbon", "History")),
        Block("a bullet", ("Lisbon", "History")),
        Block("a quote", ("Lisbon", "History")),
        Block("Year People", ("Lisbon", "History")),
        Block("2023 567,131", ("Lisbon", "History")),
        Block("Quake", ("Lisbon", "History", "Quake"), heading=True),
        Block("In 1755.", ("Lisbon", "History", "Quake")),
        Block("Today", ("Lisbon", "Today"), heading=True),
        Block("Now.", ("Lisbon", "Today")),
    ]


def test_a_deeper_heading_without_its_parents_keeps_only_the_headings_there_are() -> None:
    assert [block.headings for block in blocks("### Deep\n\ntext")] == [("Deep",), ("Deep",)]


@pytest.mark.parametrize(
    ("paragraph", "sentences"),
    [
        (
            "Dr. Smith went to Washington. He arrived at 3.5 p.m. on Monday [1]. The U.S. economy grew 2.5% [2][3].",
            [
                "Dr. Smith went to Washington.",
                "He arrived at 3.5 p.m. on Monday [1].",
                "The U.S. economy grew 2.5% [2][3].",
            ],
        ),
        ("See e.g. Fig. 3 and i.e. the rest. Next one.", ["See e.g. Fig. 3 and i.e. the rest.", "Next one."]),
        ("J. K. Rowling wrote it. [4] Then, etc. More.", ["J. K. Rowling wrote it. [4]", "Then, etc.", "More."]),
        (
            "It rose... and then fell... Then it stopped! Really? Yes.",
            ["It rose... and then fell...", "Then it stopped!", "Really?", "Yes."],
        ),
        (
            'Visit example.com for more. It is "great." [2] Okay.',
            ["Visit example.com for more.", 'It is "great." [2]', "Okay."],
        ),
        ("Version 3.12.1 is out. Approx. five people came.", ["Version 3.12.1 is out.", "Approx. five people came."]),
        (
            "See No. 5 and Fig. 2 on p. 7. The answer is no. It is 1,083 ft. Done.",
            ["See No. 5 and Fig. 2 on p. 7.", "The answer is no.", "It is 1,083 ft.", "Done."],
        ),
        ("It ends here.[1, 2] And here.", ["It ends here.[1, 2]", "And here."]),
        (
            "北京是中国的首都。[1]上海是最大的城市!人口约2400万?是的。",
            ["北京是中国的首都。[1]", "上海是最大的城市!", "人口约2400万?", "是的。"],
        ),
        (
            "東京タワーは1958年に完成した。高さは333メートルである。",
            ["東京タワーは1958年に完成した。", "高さは333メートルである。"],
        ),
        ("No stop at the end", ["No stop at the end"]),
        ("", []),
    ],
)
def test_split_sentences(paragraph: str, sentences: list[str]) -> None:
    assert split_sentences(clean(paragraph)) == sentences


def test_a_sentence_without_end_is_cut_into_bounded_pieces_and_nothing_is_lost() -> None:
    words = " ".join(f"word{i}" for i in range(1000))
    pieces = split_sentences(words)
    assert all(len(piece) <= MAX_SENTENCE for piece in pieces) and len(pieces) > 1
    assert " ".join(pieces) == words
    solid = "东" * 2000
    assert "".join(split_sentences(solid)) == solid
