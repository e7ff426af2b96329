"""The facts of a text a passage must repeat for a claim to be supported: numbers, dates, names.

- Numbers are compared as values: ``3,000`` == ``3000`` == ``3 000``; ``1.5 million`` ==
  ``1,500,000`` == ``1.5M``; ``1400万`` == ``14 million``; ``30%`` == ``30 percent``; a version
  (``3.12.1``) and a decimal as written (``3.10`` is not ``3.1``). A claim's number is a rounding of
  the page's when it says so (``about 567,000`` for 567,131; ``2.9 million`` for 2,914,000):
  after a hedge (about, around, roughly, nearly, ~, 约, ...) or with a scale word, the page's value
  may differ by half the claim's last stated digit.
- Dates: ``2023-10-02``, ``2 October 2023``, ``October 2, 2023``, ``October 2023``,
  ``2023年10月2日``, a year alone; a claim's date matches a page date it is part of (``October
  2023`` is in ``October 2, 2023``; ``2023`` in either).
- Names: words that start with a capital but not a sentence, and acronyms anywhere; a passage has a
  name when it (or a heading above it) has the word, or, for an acronym of three letters or more,
  words with those initials (``JWST``: James Webb Space Telescope).

:func:`find_facts` reads them, :func:`missing` says which of a claim's a passage lacks, and
:func:`describe` says how they differ (``"page says 3,000 and 6,000, claim says 30,000 and
60,000"``). All linear in the text: each pattern has bounded, possessive repeats.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Literal

from websearch_tui.verify.text import CJK, fold, tokens

Kind = Literal["number", "date", "name"]

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        1,
    )
    for name in names
}
_FULL_MONTHS = [name for name in _MONTHS if len(name) > 4 or name in ("may", "june", "july")]
_MONTH = (
    rf"(?:(?:{'|'.join(_FULL_MONTHS)})\b"
    rf"|(?:{'|'.join(sorted(set(_MONTHS) - set(_FULL_MONTHS), key=len, reverse=True))})\b\.?+)"
)
"""A month's name, or its abbreviation with or without a full stop (the stop after a full name ends a sentence)."""
_ORDINAL = r"(?:st|nd|rd|th)?+"
_DATE = re.compile(
    rf"(?<!\d)(?P<y1>\d{{4}})-(?P<m1>\d{{1,2}})-(?P<d1>\d{{1,2}})(?!\d)"
    rf"|\b(?P<m2>{_MONTH})\s++(?P<d2>\d{{1,2}}+){_ORDINAL}(?!\d)(?:,?+\s++(?P<y2>\d{{4}})(?!\d))?+"
    rf"|\b(?P<m3>{_MONTH}),?+\s++(?P<y3>\d{{4}})(?!\d)"
    rf"|\b(?P<d4>\d{{1,2}}+){_ORDINAL}(?:\s++of)?+\s++(?P<m4>{_MONTH})(?:,?+\s++(?P<y4>\d{{4}})(?!\d))?+"
    r"|(?<!\d)(?P<y5>\d{4})\s?+年(?:\s?+(?P<m5>\d{1,2}+)\s?+月(?:\s?+(?P<d5>\d{1,2}+)\s?+日)?+)?+",
    re.IGNORECASE,
)
_UNITS = ("two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORD_VALUES = {"one": 1} | dict(zip(_UNITS + _TEENS, range(2, 20), strict=True))
_WORD_VALUES |= dict(zip(_TENS, range(20, 100, 10), strict=True))
_SPELLED = (
    f"(?:{'|'.join(_TENS)})(?:-(?:one|{'|'.join(_UNITS)}))?+|{'|'.join(sorted(_UNITS + _TEENS, key=len, reverse=True))}"
)
"""A number written in words, two to ninety-nine ("one" alone is left out: "one of the largest" is no count)."""
_NUMBER = re.compile(
    rf"(?:(?<![.\d])(?<![^\W\d{CJK}])(?P<sign>-(?=\d))?+"  # not inside a word (a CJK character may touch it)
    r"(?P<int>\d{1,3}+(?:,\d{3}(?!\d))++|\d{1,3}+(?: \d{3}(?!\d))++|\d++)"
    r"(?P<frac>\.\d++)?+(?P<version>(?:\.\d++)++)?+(?:st|nd|rd|th)?+"
    rf"|\b(?P<spelled>(?i:{_SPELLED}))\b)"
    r"(?:\s?+(?P<word>(?i:thousand|million|billion|trillion|bn|mn))\b|(?P<letter>[kKMB])(?!\w)|(?P<cjk>[万亿]))?+"
    r"(?P<percent>\s?+(?:%|(?i:percent|per cent|percentage points?+)\b))?+"
)
_SCALES = {
    "thousand": 3,
    "k": 3,
    "million": 6,
    "mn": 6,
    "m": 6,
    "billion": 9,
    "bn": 9,
    "b": 9,
    "trillion": 12,
    "万": 4,
    "亿": 8,
}
_HEDGE = re.compile(
    r"(?:\b(?i:about|around|approximately|approx\.?+|roughly|nearly|almost|circa|ca\.|some|estimated)\s++|~\s?+"
    r"|约|大约|近)$"
)
_WORD = re.compile(r"[^\W_]++")
_START_OF_SENTENCE = ".!?:"
_YEARS = range(1000, 2101)


@dataclass(frozen=True)
class Fact:
    """A number, date or name of a text.

    Attributes:
        kind: ``"number"``, ``"date"`` or ``"name"``.
        surface: the text as written (``"30,000"``, ``"1 November 1755"``, ``"Pombal"``).
        start, end: where it is in the text it was read from (character offsets).
        context: the two casefolded words before it and the two after (``""`` past either end),
            to pair a claim's fact with the page's it differs from.
        keys: dates: what it states, most precise first (``("y1755-m11-d1", "y1755-m11",
            "m11-d1", "y1755")``), of which a claim's needs the first; names: the casefolded word
            (``("pombal",)``); numbers: the form as written without separators (``("3000",)``,
            ``("3.12.1",)``), or the value's digits when a scale word is applied (``("1500000",)``).
        value: numbers: the value, scale applied (``Decimal("1.5E+6")``); ``None`` for a version.
        step: numbers: how coarsely the text rounds the value (``about 567,000``: 1000; ``2.9
            million``: 100000), ``None`` when it is exact.
        percent: numbers: True for a percentage.
    """

    kind: Kind
    surface: str
    start: int
    end: int
    keys: tuple[str, ...]
    value: Decimal | None = None
    step: Decimal | None = None
    percent: bool = False
    context: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """What a passage offers a claim's facts: its own ``facts``, its ``words`` (casefolded tokens
    of the passage and of the headings above it) and ``initials`` (the first letter of each of
    its tokens, in order, for acronyms)."""

    facts: list[Fact]
    words: frozenset[str]
    initials: str


def find_facts(text: str) -> list[Fact]:
    """The dates, numbers and names of ``text`` (:func:`~websearch_tui.verify.text.clean` form,
    case kept), in order of position; a number inside a date is part of the date, and a four-digit
    whole number from 1000 to 2100 standing alone is a year. Linear."""
    dates = [fact for match in _DATE.finditer(text) if (fact := _date(match)) is not None]
    taken = [(fact.start, fact.end) for fact in dates]
    numbers = [_number(match, text) for match in _NUMBER.finditer(text) if not _inside(match, taken)]
    taken = sorted(taken + [(fact.start, fact.end) for fact in numbers])
    names = [
        Fact("name", match.group(), match.start(), match.end(), (fold(match.group()),))
        for match in _WORD.finditer(text)
        if _is_name(match, text) and not _inside(match, taken)
    ]
    return _with_context(sorted(dates + numbers + names, key=lambda fact: fact.start), text)


def evidence(text: str, headings: Iterable[str] = ()) -> Evidence:
    """The :class:`Evidence` of passage ``text`` under ``headings``. Linear."""
    words = tokens(text)
    heading_words = [word for heading in headings for word in tokens(heading)]
    return Evidence(find_facts(text), frozenset(words + heading_words), "".join(word[0] for word in words))


def missing(facts: list[Fact], found: Evidence) -> list[Fact]:
    """The claim's ``facts`` the passage's evidence ``found`` does not state, in order."""
    return [fact for fact in facts if not has(found, fact)]


def has(found: Evidence, fact: Fact) -> bool:
    """Whether the passage's evidence ``found`` states the claim's ``fact``."""
    if fact.kind == "name":
        name = fact.keys[0]
        if fact.surface.isupper() and len(name) >= 3 and name in found.initials:
            return True
        return name in found.words or any(_same_stem(name, word) for word in found.words if word[:5] == name[:5])
    return any(_same(fact, page) for page in found.facts if page.kind == fact.kind)


def describe(claim_facts: list[Fact], claim: str, found: Evidence, passage: str) -> str:
    """How the claim's facts ``claim_facts`` differ from those of the passage whose evidence is
    ``found`` (some must be :func:`missing` from it): ``"page says 3,000 and 6,000, claim says
    30,000 and 60,000"``. Each claim fact the passage lacks is paired with a passage fact of its
    kind: the one between the most of the same words; failing that, the one in the same place
    among the facts the two do not share (when they lack as many as they add); failing that, the
    only one. Facts written side by side (a range, a full name) are reported together. ``claim``
    and ``passage`` are the texts the facts were read from."""
    lacking = missing(claim_facts, found)
    unshared = [
        page for page in found.facts if not any(_same(fact, page) for fact in claim_facts if fact.kind == page.kind)
    ]
    parts = []
    for group in _groups(lacking):
        said = _span(claim, group)
        paired = (_counterpart(fact, found, lacking, unshared) for fact in group)
        counterparts = _unique(fact for fact in paired if fact is not None)
        if counterparts:
            parts.append(f"page says {_span(passage, counterparts)}, claim says {said}")
        else:
            parts.append(f"claim says {said}, the passage does not")
    return "; ".join(parts)


def _date(match: re.Match[str]) -> Fact | None:
    """The date fact of a :data:`_DATE` match; ``None`` when it is no date (a lower-case month
    name such as "may", a 13th month, a 32nd day)."""
    parts = {name[0]: value for name, value in match.groupdict().items() if value is not None}
    month_text = parts.get("m", "")
    if month_text and not month_text[0].isdigit():
        if month_text[0].islower():
            return None
        month: int | None = _MONTHS[month_text.rstrip(".").lower()]
    else:
        month = int(month_text) if month_text else None
    day = int(parts["d"]) if "d" in parts else None
    year = parts.get("y")
    if not (month is None or 1 <= month <= 12) or not (day is None or 1 <= day <= 31):
        return None
    keys = _date_keys(year, month, day)
    return Fact("date", match.group(), match.start(), match.end(), keys)


def _date_keys(year: str | None, month: int | None, day: int | None) -> tuple[str, ...]:
    """The keys of a date, most precise first: ``y1755-m11-d1``, ``y1755-m11``, ``m11-d1``, ``y1755``."""
    keys = []
    if year and month and day:
        keys.append(f"y{year}-m{month}-d{day}")
    if year and month:
        keys.append(f"y{year}-m{month}")
    if month and day:
        keys.append(f"m{month}-d{day}")
    if year:
        keys.append(f"y{year}")
    return tuple(keys)


def _number(match: re.Match[str], text: str) -> Fact:
    """The fact of a :data:`_NUMBER` match: a number, or a year (a plain four-digit whole number
    from 1000 to 2100)."""
    digits = match["int"].replace(",", "").replace(" ", "") if match["int"] else _spelled(match["spelled"])
    sign, frac, version = match["sign"] or "", match["frac"] or "", match["version"] or ""
    scale_name = (match["word"] or match["letter"] or match["cjk"] or "").lower()
    percent = match["percent"] is not None
    surface, start, end = match.group(), match.start(), match.end()
    if not (sign or frac or version or scale_name or percent) and len(digits) == 4 and int(digits) in _YEARS:
        return Fact("date", surface, start, end, (f"y{digits}",))
    if version:
        return Fact("number", surface, start, end, (sign + digits + frac + version,))
    exponent = _SCALES.get(scale_name, 0)
    value = Decimal(sign + digits + frac).scaleb(exponent)
    step = None
    if exponent or _HEDGE.search(text, max(0, start - 20), start):
        last_place = -(len(frac) - 1) if frac else len(digits) - len(digits.rstrip("0"))
        step = Decimal(1).scaleb(last_place + exponent)
    written = sign + digits + frac if not exponent else format(value.normalize(), "f")
    return Fact("number", surface, start, end, (written,), value=value, step=step, percent=percent)


def _spelled(words: str) -> str:
    """The digits of a number written in words (``"twenty-five"`` -> ``"25"``)."""
    return str(sum(_WORD_VALUES[word] for word in words.lower().split("-")))


def _same(claim: Fact, page: Fact) -> bool:
    """Whether the page's fact ``page`` states the claim's ``claim`` (same kind)."""
    if claim.kind == "date":
        return claim.keys[0] in page.keys
    if claim.percent and not page.percent:
        return False
    if claim.keys == page.keys:
        return True
    if claim.step is None or claim.value is None or page.value is None:
        return False
    return abs(page.value - claim.value) * 2 <= claim.step  # the page's value rounds to the claim's


def _same_stem(name: str, word: str) -> bool:
    """Whether ``name`` and ``word`` are forms of one name ("European", "Europe"; "Ukrainian",
    "Ukraine"): they share their first five letters or more, and at least 80% of the shorter."""
    shared = next((i for i, (a, b) in enumerate(zip(name, word, strict=False)) if a != b), min(len(name), len(word)))
    return shared >= 5 and shared >= 0.8 * min(len(name), len(word))


def _is_name(match: re.Match[str], text: str) -> bool:
    """Whether the word ``match`` is a name: an acronym (two capitals or more, all upper case), or
    a capitalised word that does not open a sentence."""
    word = match.group()
    if not word[0].isupper():
        return False
    if word.isupper() and sum(char.isalpha() for char in word) >= 2:
        return True
    return len(word) > 1 and not _opens_sentence(text, match.start())


def _opens_sentence(text: str, index: int) -> bool:
    """Whether position ``index`` of ``text`` starts a sentence: only spaces, opening quotes and
    brackets (at most four characters) lie between it and the start or a sentence end."""
    position = index
    while position > 0 and index - position < 4 and text[position - 1] in " \"'([":
        position -= 1
    return position == 0 or text[position - 1] in _START_OF_SENTENCE


def _inside(match: re.Match[str], spans: list[tuple[int, int]]) -> bool:
    """Whether ``match`` overlaps one of the sorted, disjoint ``spans``."""
    at = bisect.bisect_right(spans, (match.start(), len(match.string) + 1)) - 1
    near = spans[max(at, 0) : at + 2]
    return any(start < match.end() and match.start() < end for start, end in near)


def _with_context(facts: list[Fact], text: str) -> list[Fact]:
    """``facts`` with their ``context`` filled in: the two words before each and the two after."""
    words = [fold(word) for word in _WORD.findall(text)]
    starts = [word.start() for word in _WORD.finditer(text)]
    padded = ["", "", *words, "", ""]
    out = []
    for fact in facts:
        before = bisect.bisect_left(
            starts, fact.start
        )  # the first word at or after the fact (words[i] is padded[i + 2])
        after = bisect.bisect_left(starts, fact.end)
        out.append(replace(fact, context=(padded[before], padded[before + 1], padded[after + 2], padded[after + 3])))
    return out


def _groups(facts: list[Fact]) -> Iterator[list[Fact]]:
    """``facts`` (in order) in runs written side by side: at most five characters apart."""
    group: list[Fact] = []
    for fact in facts:
        if group and (fact.start - group[-1].end > 5 or fact.kind != group[-1].kind):
            yield group
            group = []
        group.append(fact)
    if group:
        yield group


def _counterpart(claim: Fact, found: Evidence, lacking: list[Fact], unshared: list[Fact]) -> Fact | None:
    """The passage's fact that the claim's fact ``claim`` (one of ``lacking``) stands for (see
    :func:`describe`); ``unshared`` are the passage's facts no claim fact matches. Among facts of
    its kind, and of those the percentages when it is one (or not when it is not), if any."""
    candidates = _alike(claim, found.facts)
    best = max(candidates, key=lambda fact: _shared_context(claim, fact), default=None)
    if best is not None and _shared_context(claim, best) > 0:
        return best
    ours, theirs = _alike(claim, lacking), _alike(claim, unshared)
    if len(ours) == len(theirs):
        return theirs[ours.index(claim)]
    return candidates[0] if len(candidates) == 1 else None


def _alike(claim: Fact, facts: list[Fact]) -> list[Fact]:
    """The ``facts`` of ``claim``'s kind; of those, the percentages when it is one (or the others
    when it is not), if there are any."""
    candidates = [fact for fact in facts if fact.kind == claim.kind]
    return [fact for fact in candidates if fact.percent == claim.percent] or candidates


def _shared_context(one: Fact, other: Fact) -> int:
    """How many of the four context words of ``one`` and ``other`` are the same (and not blank)."""
    return sum(word == theirs and word != "" for word, theirs in zip(one.context, other.context, strict=True))


def _span(text: str, facts: list[Fact]) -> str:
    """The facts' text: from the first to the last when they are written side by side, else each
    one's, joined by commas."""
    ordered = sorted(facts, key=lambda fact: fact.start)
    if all(later.start - earlier.end <= 5 for earlier, later in zip(ordered, ordered[1:], strict=False)):
        return text[ordered[0].start : ordered[-1].end]
    return ", ".join(fact.surface for fact in ordered)


def _unique(facts: Iterable[Fact]) -> list[Fact]:
    """``facts`` without repeats, order kept."""
    return list({(fact.start, fact.end): fact for fact in facts}.values())
