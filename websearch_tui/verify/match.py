"""Whether a page says what a claim says: the passage search and the verdict.

The page is read once into a :class:`PageIndex`: its Markdown made plain (:mod:`.text`), split
into sentences (:mod:`.sentences`), and the sentences grouped into overlapping passages of
:data:`WINDOW` sentences (one every :data:`STEP`), each remembering the headings above it. A claim
is then judged by :func:`judge`:

- ``quoted`` when its text is on the page once both are normalised (:func:`.text.quote_key`); a
  claim with an ellipsis is quoted when its pieces are there in order;
- ``supported`` when a passage has at least :data:`SUPPORT` of the claim's content words (exactly,
  or as a near spelling: "metres" for "meters") and every number, date and name of the claim
  (:mod:`.facts`); a claim whose facts all match needs only :data:`SUPPORT_WITH_FACTS` of its words,
  as the numbers and dates already pin the passage down;
- ``not_supported`` otherwise, with the closest passage and the reason: how its numbers, dates or
  names differ from the claim's, or how few of the claim's words it has.

The passages to judge are found with rapidfuzz: ``process.extract`` with ``token_set_ratio`` over
the passages' content words keeps the :data:`CANDIDATES` best at or above
:data:`PREFILTER_CUTOFF`; only those are judged. Work is linear in the page for building the index
and for each claim (the prefilter scores every passage once; the quote search is a substring
search).

What slips: the words are matched as a bag, so a claim that negates the page ("is not" for "is")
or swaps who did what to whom is judged on the same words and can pass; a model-based judge
(:mod:`.judge`) is where that would be caught.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from websearch_tui.core.checks import Verdict
from websearch_tui.verify.facts import Evidence, Fact, describe, evidence, find_facts, has, missing
from websearch_tui.verify.sentences import MARKER, split_sentences
from websearch_tui.verify.text import blocks, clean, content_words, is_cjk, quote_key, tokens

WINDOW = 3
"""Sentences per passage."""
STEP = 2
"""A passage starts every this many sentences, so two neighbouring sentences always share one."""
CANDIDATES = 10
"""How many passages the rapidfuzz prefilter keeps for the full judgement."""
PREFILTER_CUTOFF = 40.0
"""The lowest ``token_set_ratio`` (0-100) a passage may score to be judged at all."""
SUPPORT = 0.75
"""The share of a claim's content words a passage must have to support it."""
SUPPORT_WITH_FACTS = 0.5
"""The share that is enough when the claim has a number or date and all its facts match."""
RELATED = 0.5
"""The share from which the closest passage is shown with a not-supported verdict."""
NEAR_SPELLING = 85.0
"""The rapidfuzz ``ratio`` (0-100) from which a passage word stands for a claim word of 4 letters or more."""
MAX_CLAIM_CHARS = 2000
"""A longer claim is matched on its first this many characters (the quote search uses all of it), so
the work per passage stays bounded whatever a provider sends as cited text."""

Judgement = tuple[Verdict, str | None, str | None]
"""A verdict, the passage it rests on (or ``None``) and the reason (``None`` when quoted or supported)."""


@dataclass(frozen=True)
class _Candidate:
    """One passage (number ``index``) judged against a claim: ``found`` is how many of the claim's
    content words it has, ``coverage`` their share (0-1), ``lacking`` the claim's facts it does not
    state, ``score`` the prefilter's ``token_set_ratio`` (0-100)."""

    index: int
    coverage: float
    found: int
    lacking: list[Fact]
    score: float


class PageIndex:
    """A page read for matching: its sentences, passages and their words; build once, judge many
    claims. Building is linear in the page text; memory is a few times its size."""

    def __init__(self, page_text: str) -> None:
        self._sentences: list[str] = []
        self._headings: list[tuple[str, ...]] = []
        keys: list[str] = []
        words: list[list[str]] = []
        for block in blocks(clean(page_text)):
            for sentence in split_sentences(block.text):
                found = tokens(sentence)
                if found:
                    self._sentences.append(sentence)
                    self._headings.append(block.headings)
                    keys.append(" ".join(found))
                    words.append(content_words(found))
        self._offsets: list[int] = []
        position = 1
        for key in keys:
            self._offsets.append(position)
            position += len(key) + 1
        self._key = " " + " ".join(keys) + " "
        count = len(self._sentences)
        self._passages = [range(start, min(start + WINDOW, count)) for start in range(0, max(count - 1, 1), STEP)]
        self._words = [frozenset(word for i in passage for word in words[i]) for passage in self._passages]
        self._choices = [" ".join(word for i in passage for word in words[i]) for passage in self._passages]
        self._evidence: dict[int, Evidence] = {}

    def quote(self, claim: str) -> str | None:
        """The sentences of the page that hold ``claim`` (clean form) word for word once both are
        normalised, joined; a claim with an ellipsis (``...``) is held when its pieces are there in
        that order. ``None`` when the page does not hold it. Linear."""
        position = 0
        first: int | None = None
        for piece in claim.split("..."):
            key = quote_key(piece)
            if not key:
                continue
            needle = (" " if not is_cjk(key[0]) else "") + key + (" " if not is_cjk(key[-1]) else "")
            found = self._key.find(needle, position)
            if found < 0:
                return None
            first = found if first is None else first
            position = found + len(needle) - 1
        if first is None:
            return None
        low = bisect.bisect_right(self._offsets, first + 1) - 1
        high = bisect.bisect_right(self._offsets, position - 1) - 1
        return " ".join(self._sentences[max(low, 0) : high + 1])

    def __len__(self) -> int:
        """How many passages the page has."""
        return len(self._passages)

    def passage(self, index: int) -> str:
        """The text of passage ``index``: its sentences joined by spaces."""
        return " ".join(self._sentences[i] for i in self._passages[index])

    def candidates(self, claim_words: list[str]) -> list[tuple[int, float]]:
        """The passages the prefilter keeps for ``claim_words``: (index, token_set_ratio), best first."""
        query = " ".join(claim_words)
        found = process.extract(
            query,
            self._choices,
            scorer=fuzz.token_set_ratio,
            processor=None,
            limit=CANDIDATES,
            score_cutoff=PREFILTER_CUTOFF,
        )
        return [(index, score) for _, score, index in found]

    def evidence(self, index: int) -> Evidence:
        """The :class:`~.facts.Evidence` of passage ``index`` (worked out once, on first use)."""
        if index not in self._evidence:
            headings = dict.fromkeys(heading for i in self._passages[index] for heading in self._headings[i])
            self._evidence[index] = evidence(self.passage(index), headings)
        return self._evidence[index]

    def words(self, index: int) -> frozenset[str]:
        """The content words of passage ``index``."""
        return self._words[index]


def judge(claim: str, page: PageIndex) -> Judgement:
    """The verdict on ``claim`` (any text; Markdown and citation markers are ignored) against
    ``page``, with the passage and the reason (module docstring)."""
    plain = MARKER.sub("", " ".join(block.text for block in blocks(clean(claim))))
    quoted = page.quote(plain)
    if quoted is not None:
        return Verdict.QUOTED, quoted, None
    head = plain[:MAX_CLAIM_CHARS]
    claim_words = list(dict.fromkeys(content_words(tokens(head))))
    facts = find_facts(head)
    if not claim_words and not facts:
        return Verdict.NOT_SUPPORTED, None, "the claim has no words to look for"
    judged = [_judge_passage(page, index, score, claim_words, facts) for index, score in page.candidates(claim_words)]
    if not judged:
        return Verdict.NOT_SUPPORTED, None, "no passage of the page shares the claim's words"
    best = max(judged, key=lambda one: (_supports(one, facts), one.coverage, -len(one.lacking), one.score))
    if _supports(best, facts):
        return Verdict.SUPPORTED, page.passage(best.index), None
    return Verdict.NOT_SUPPORTED, *_why_not(best, claim_words, head, facts, page)


def _judge_passage(page: PageIndex, index: int, score: float, claim_words: list[str], facts: list[Fact]) -> _Candidate:
    """How passage ``index`` bears on a claim with ``claim_words`` and ``facts``."""
    found = page.evidence(index)
    names = {fact.keys[0] for fact in facts if fact.kind == "name" and has(found, fact)}
    present = page.words(index) | found.words | names
    spellings = [word for word in present if len(word) >= 4]
    hits = sum(word in present or _near_spelling(word, spellings) for word in claim_words)
    coverage = hits / len(claim_words) if claim_words else 1.0
    return _Candidate(index, coverage, hits, missing(facts, found), score)


def _near_spelling(word: str, spellings: list[str]) -> bool:
    """Whether one of ``spellings`` is a near spelling of ``word`` (4 letters or more; CJK pairs never)."""
    if len(word) < 4 or is_cjk(word[0]):
        return False
    return (
        process.extractOne(word, spellings, scorer=fuzz.ratio, processor=None, score_cutoff=NEAR_SPELLING) is not None
    )


def _supports(candidate: _Candidate, facts: list[Fact]) -> bool:
    """Whether ``candidate`` supports a claim with ``facts``: no fact lacking and enough words."""
    if candidate.lacking:
        return False
    pinned = any(fact.kind != "name" for fact in facts)
    return candidate.coverage >= (SUPPORT_WITH_FACTS if pinned else SUPPORT)


def _why_not(
    best: _Candidate, claim_words: list[str], claim: str, facts: list[Fact], page: PageIndex
) -> tuple[str | None, str]:
    """The passage to show and the reason ``best``, the closest passage, does not support the claim
    ``claim`` with ``claim_words`` and ``facts``."""
    if best.coverage < RELATED:
        return None, f"no passage states it; the closest has {best.found} of the claim's {len(claim_words)} words"
    passage = page.passage(best.index)
    if best.lacking:
        return passage, describe(facts, claim, page.evidence(best.index), passage)
    return passage, f"the closest passage has only {best.found} of the claim's {len(claim_words)} words"
