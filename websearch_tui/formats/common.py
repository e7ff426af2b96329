"""Helpers several output formats share: counted words, ages and dates, indentation, status lines,
the outcomes a format shows, the merged source list and the secret-safe JSON tree. All pure."""

from __future__ import annotations

from websearch_tui.core.models import SearchResponse
from websearch_tui.core.results import ProviderOutcome, SearchResult
from websearch_tui.core.text import format_age


def checks_line(response: SearchResponse) -> str | None:
    """``"Citations checked: 4 of 5 check out"`` once any citation of ``response`` was checked."""
    tally = response.check_tally()
    if tally is None:
        return None
    good, checked = tally
    return f"Citations checked: {good} of {checked} check out"


def plural(count: int, word: str) -> str:
    """``count`` and ``word``, ``s`` added unless ``count`` is 1: ``"1 source"``, ``"3 sources"``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def age_text(date_text: str | None, age: int | None) -> str:
    """A source's age (``age`` in seconds) as the LLM text shows it (``14mo ago``), else the
    provider's own text of its date; ``""`` when neither is known."""
    return format_age(age) or (date_text or "")


def when_published(published_date: str | None, date_text: str | None, age: int | None) -> str:
    """When a source was published, for a reader: its date and age (``2024-07-25 · 14mo ago``), else
    the provider's own text of it (``last Tuesday``); ``""`` when unknown. ``age`` is in seconds."""
    day = published_date[:10] if published_date else ""
    return " · ".join(part for part in (day, format_age(age)) if part) or (date_text or "")


def indented(text: str) -> str:
    """``text`` as a 4-space-indented block: every line indented, so a multi-line snippet stays
    under its source (blank lines stay empty)."""
    return "\n".join(f"    {line}" if line else "" for line in text.split("\n"))


def dropped_sources_text(count: int) -> str:
    """The remark for ``count`` (>= 1) results left out for lack of a URL:
    ``"2 results without a usable URL were dropped."``."""
    verb = "was" if count == 1 else "were"
    return f"{plural(count, 'result')} without a usable URL {verb} dropped."


def status_line(outcome: ProviderOutcome) -> str:
    """An outcome's status in one line: ``"done in 1.2s, 3 sources"``, or for a failure
    ``"failed (auth) after 0.4s: <message>"``."""
    seconds = f"{outcome.elapsed_ms / 1000:.1f}s"
    if outcome.error is not None:
        return f"{outcome.status.value} ({outcome.error.kind.value}) after {seconds}: {outcome.error.message}"
    return f"{outcome.status.value} in {seconds}, {plural(len(outcome.response.sources), 'source')}"


def visible_outcomes(result: SearchResult) -> list[ProviderOutcome]:
    """For the LLM format: in auto mode only the winner (or every failure when none won)."""
    if result.mode == "auto" and result.winner:
        return [o for o in result.outcomes if o.provider == result.winner]
    return result.outcomes
