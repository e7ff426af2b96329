"""The prompt model-native providers receive (PROVIDERS.md §1.5).

One user message: a scope sentence, the date window in UTC when a recency is set, the source cap
when the request has one, then ``Question: <query>`` on its own line. The system prompt goes in
the API's system slot (Anthropic ``system``, Gemini ``systemInstruction``, OpenAI/Codex
``instructions``, a ``system`` chat message) and is never prepended to the user text.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from websearch_tui.core.models import SearchRequest

SYSTEM_PROMPT = (
    "You are a research assistant with live web search. Answer the user's question first, "
    "directly and concisely, then add the supporting detail. Cite the sources you use inline "
    "with numbered markers such as [1]. Give concrete dates and version numbers where they "
    "matter, prefer primary and official sources, and say plainly when sources disagree or "
    "when you could not find something."
)
"""Answer first, cite inline, give dates and versions, prefer primary sources."""

WINDOWS = {
    "day": ("past 24 hours", 1),
    "week": ("past week", 7),
    "month": ("past month", 30),
    "year": ("past year", 365),
}
"""Recency -> (label, days): day = 1, week = 7, month = 30, year = 365 days."""

SCOPES = {
    "web": "web pages",
    "x": "posts on X",
    "both": "web pages and posts on X",
}
"""What the model is told to search: the web, X (Grok ``x_search``), or both."""


def today_utc() -> date:
    """Today's calendar date in UTC."""
    return datetime.now(timezone.utc).date()


def date_window(recency: str, today: date | None = None) -> tuple[date, date]:
    """``(start, end)`` UTC calendar dates of a recency window: ``today - N days`` to ``today``.

    Raises:
        KeyError: for a recency other than day, week, month or year.
    """
    end = today or today_utc()
    return end - timedelta(days=WINDOWS[recency][1]), end


def user_prompt(request: SearchRequest, *, scope: str = "web", today: date | None = None) -> str:
    """The user message for ``request``: scope, UTC date window (if recency), source cap, question.

    ``scope`` is ``"web"``, ``"x"`` or ``"both"`` (Grok). Example for recency ``week``, 5 results::

        Search the web for up-to-date, checkable sources and answer the question below, citing the pages you use.
        Only rely on material published in the past week (2026-11-23 to 2026-11-30, UTC).
        Cite at most 5 sources.
        Question: <query>
    """
    what = SCOPES[scope]
    lines = [
        "Search the web for up-to-date, checkable sources and answer the question below, citing the pages you use."
        if scope == "web"
        else f"Search {what} for up-to-date, checkable sources and answer the question below, citing what you use."
    ]
    if request.recency:
        start, end = date_window(request.recency, today)
        label = WINDOWS[request.recency][0]
        lines.append(f"Only rely on material published in the {label} ({start.isoformat()} to {end.isoformat()}, UTC).")
    if request.max_results:
        lines.append(f"Cite at most {request.max_results} sources.")
    lines.append(f"Question: {request.query}")
    return "\n".join(lines)
