"""Helpers several output formats share: counted words, ages and dates, indentation, status lines,
the outcomes a format shows, the merged source list and the secret-safe JSON tree. All pure."""

from __future__ import annotations

from websearch_tui.core.models import SearchResponse
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
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
    """An outcome's status in one line: ``"done in 1.2s, 3 sources · ≈ $0.004"`` (its cost when known,
    :func:`cost_part`), ``"done, 3 sources · cached · 12 min ago · $0"`` for a result reused from the
    history, or for a failure ``"failed (auth) after 0.4s: <message>"`` (``"failed (network) after
    3.1s, ≈ $0.021: <message>"`` when the partial run cost something)."""
    seconds = f"{outcome.elapsed_ms / 1000:.1f}s"
    cost = cost_part(outcome)
    if outcome.error is not None:
        spent = f", {cost}" if cost else ""
        return f"{outcome.status.value} ({outcome.error.kind.value}) after {seconds}{spent}: {outcome.error.message}"
    timing = "" if outcome.cached is not None else f" in {seconds}"
    line = f"{outcome.status.value}{timing}, {plural(len(outcome.response.sources), 'source')}"
    return f"{line} · {cost}" if cost else line


def cost_part(outcome: ProviderOutcome) -> str:
    """What a run cost, for its status line: ``"≈ $0.004"``, ``"$0.0123"`` (reported), ``"$0"``
    (keyless), ``"cost unknown"``, and ``"cached · 12 min ago · $0"`` for a reused result; ``""``
    when the cost was not worked out, and for a failed or cancelled run that cost nothing (or an
    unknown amount)."""
    parts = [outcome.cached.text()] if outcome.cached is not None else []
    cost = outcome.cost
    ended = outcome.status not in (RunStatus.FAILED, RunStatus.CANCELLED)
    if cost is not None and (ended or cost.usd > 0):
        parts.append(cost.text())
    return " · ".join(parts)


def cost_total_line(result: SearchResult) -> str:
    """``"Cost: ≈ $0.021"`` (:meth:`SearchResult.cost_text
    <websearch_tui.core.results.SearchResult.cost_text>`) for a search of several providers whose
    costs are known; ``""`` for one provider (its status line says it) or when none is known."""
    if len(result.outcomes) < 2:
        return ""
    text = result.cost_text()
    return f"Cost: {text}" if text else ""


def visible_outcomes(result: SearchResult) -> list[ProviderOutcome]:
    """For the LLM format: in auto mode only the winner (or every failure when none won)."""
    if result.mode == "auto" and result.winner:
        return [o for o in result.outcomes if o.provider == result.winner]
    return result.outcomes
