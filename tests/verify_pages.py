"""Long pages for the citation checker's tests and benchmark: Markdown the way the reader returns an
article, of any size, deterministic.

:func:`long_page` builds about ``size`` characters of sections (a heading, paragraphs of sentences
with numbers, dates, names and links, a bullet list, a table); every sentence is distinct (it carries
its own serial number), so a claim copied from the page is found in one place only.
:func:`claims_from` picks sentences of such a page and makes claims of them: quoted as they are,
reworded (still supported), or with one number changed (not supported).
"""

from __future__ import annotations

import random

_WORDS = (
    "the city council approved a new budget for public transport after months of debate while residents "
    "asked for more frequent trains and safer cycling routes across the older districts near the river "
    "engineers estimate that the bridge repairs will take longer than planned because of flooding and "
    "rising costs of steel concrete and labour the mayor said that schools hospitals and parks remain "
    "priorities and that the report will be published before the summer recess"
).split()
_NAMES = ("Lisbon", "Porto", "Maria Santos", "Joao Silva", "the Tagus", "Coimbra", "Braga", "the EU")
_MONTHS = ("January", "March", "May", "July", "September", "November")


def long_page(size: int, seed: int = 1) -> str:
    """About ``size`` characters (at least one section) of Markdown article text."""
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    serial = 0
    while length < size:
        section = [f"## Section {len(parts) + 1}: {rng.choice(_NAMES)}"]
        for _ in range(rng.randint(2, 4)):
            sentences = []
            for _ in range(rng.randint(3, 6)):
                serial += 1
                sentences.append(_sentence(rng, serial))
            section.append(" ".join(sentences))
        section.append("\n".join(f"- {_sentence(rng, serial + i + 1)}" for i in range(3)))
        serial += 3
        section.append(f"| Year | Riders |\n|---|---|\n| {rng.randint(1990, 2024)} | {rng.randint(1, 900):,}000 |")
        text = "\n\n".join(section)
        parts.append(text)
        length += len(text) + 2
    return "\n\n".join(parts)


def _sentence(rng: random.Random, serial: int) -> str:
    """One sentence: words of the vocabulary with a serial number, a figure, a date and a name."""
    words = [rng.choice(_WORDS) for _ in range(rng.randint(10, 18))]
    words.insert(rng.randrange(1, len(words)), f"item {serial}")
    words.insert(rng.randrange(1, len(words)), f"{rng.randint(2, 98)}.{rng.randint(1, 9)} million")
    words.insert(
        rng.randrange(1, len(words)), f"on {rng.randint(1, 28)} {rng.choice(_MONTHS)} {rng.randint(1990, 2024)}"
    )
    words.insert(rng.randrange(1, len(words)), f"[{rng.choice(_NAMES)}](https://example.org/{serial})")
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def claims_from(page_sentences: list[str], count: int, seed: int = 2) -> list[tuple[str, str]]:
    """``count`` claims made from ``page_sentences`` (plain sentences of a :func:`long_page`), each
    with what it should get: ``"quoted"`` (the sentence as it is), ``"supported"`` (its first
    words dropped and the rest kept) or ``"not_supported"`` (its million figure ten times larger: 12.3 -> 123)."""
    rng = random.Random(seed)
    chosen = rng.sample([sentence for sentence in page_sentences if " million" in sentence], count)
    claims = []
    for i, sentence in enumerate(chosen):
        kind = ("quoted", "supported", "not_supported")[i % 3]
        if kind == "supported":
            words = sentence.split()
            claims.append((" ".join(words[3:]) + " " + " ".join(words[:3]).lower(), kind))
        elif kind == "not_supported":
            words = sentence.split()
            figure = next(word for word, after in zip(words, words[1:], strict=False) if after == "million")
            claims.append((sentence.replace(f"{figure} million", f"{figure.replace('.', '')} million", 1), kind))
        else:
            claims.append((sentence, kind))
    return claims
