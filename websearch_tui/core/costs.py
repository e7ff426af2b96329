"""What a provider run cost, and where a reused (cached) result came from.

A provider bills in one or more units (:class:`Price`): per request, per 1,000 results returned, per
million input or output tokens, per search a model ran inside its answer. :func:`cost_of` turns a
price and a response into a :class:`Cost` in US dollars; a cost the provider reported itself
(``Usage.cost_usd``: Exa's ``costDollars``, Valyu's deduction, Perplexity's ``usage.cost``) wins over
any estimate. A keyless run and a reused result cost nothing.

Pure data and arithmetic: no I/O, no clock (the caller passes times).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeGuard

from websearch_tui.core.records import record

if TYPE_CHECKING:  # only annotations: importing the specs (and with them the CLI parser) stays cheap
    from websearch_tui.core.models import SearchResponse

MAX_RUN_USD = 100.0
"""The most one provider run can plausibly cost, US dollars: a reported or stored cost above it (or
one that is negative or not finite) is not believed, so no provider's figure can break a total, a
chart or a budget."""
MAX_PRICE_USD = 1_000.0
"""The most a config price may charge per unit, US dollars."""


def plausible_usd(value: object, limit: float = MAX_RUN_USD) -> TypeGuard[float]:
    """True for a number of US dollars from 0 to ``limit`` (not a boolean, not NaN or infinite)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0 <= value <= limit


CostBasis = Literal["reported", "estimated", "keyless", "cached", "unknown"]
"""Where a :class:`Cost` comes from: the provider's own figure, an estimate from its price list, a
keyless run ($0), a result reused from the history ($0), or no price known (``usd`` is 0 and not
counted as known spend)."""


TYPICAL_INPUT_TOKENS = 8_000
"""Input tokens a model-native answer is expected to use before it runs: the prompt and the search
results it reads (a budget's guess until the history holds the provider's own average)."""
TYPICAL_OUTPUT_TOKENS = 1_000
"""Output tokens a model-native answer is expected to write before it runs."""


@record(frozen=True)
class Price:
    """How a provider bills, in US dollars; every unit defaults to 0 and units add up.

    Attributes:
        per_request: per search request sent.
        per_1k_results: per 1,000 results (sources) returned.
        per_million_input_tokens: per million input (prompt) tokens, as the response's usage reports them.
        per_million_output_tokens: per million output tokens.
        per_search_call: per web search a model ran inside its answer (``usage.search_requests``).
        read_on: the ISO date the public price list was read (``"2026-12-03"``); ``""`` for a price
            set in config.
        model: the model whose token prices these are (``""``: any model, as for a price set in
            config); see :func:`websearch_tui.core.prices.default_price`.
    """

    per_request: float = 0.0
    per_1k_results: float = 0.0
    per_million_input_tokens: float = 0.0
    per_million_output_tokens: float = 0.0
    per_search_call: float = 0.0
    read_on: str = ""
    model: str = ""

    UNITS = (
        "per_request",
        "per_1k_results",
        "per_million_input_tokens",
        "per_million_output_tokens",
        "per_search_call",
    )
    """The billing units, as config ``[providers.X] price = {...}`` names them."""

    def estimate(self, response: SearchResponse) -> float:
        """US dollars for one run that returned ``response``: the request, its sources, the tokens and
        search calls its usage reports (tokens it does not report count 0; search calls it does not
        report count one, the search a model that answered ran at least: a stream cancelled before its
        usage arrived still cost that), at most :data:`MAX_RUN_USD`."""
        usage = response.usage
        input_tokens = (usage.input_tokens if usage else None) or 0
        output_tokens = (usage.output_tokens if usage else None) or 0
        reported_calls = usage.search_requests if usage else None
        calls = reported_calls if reported_calls is not None else 1
        return min(MAX_RUN_USD, self._units(len(response.sources), input_tokens, output_tokens, calls))

    def _units(self, results: int, input_tokens: int, output_tokens: int, calls: int) -> float:
        """US dollars for a request with these counts."""
        return (
            self.per_request
            + self.per_1k_results * results / 1000
            + self.per_million_input_tokens * input_tokens / 1_000_000
            + self.per_million_output_tokens * output_tokens / 1_000_000
            + self.per_search_call * calls
        )

    def typical(self, results: int) -> float:
        """US dollars a run is expected to cost before it runs (a budget's estimate while the history
        knows no average for the provider): the request, ``results`` results and, for a model billed
        by the token or the search call, a typical answer (:data:`TYPICAL_INPUT_TOKENS` in,
        :data:`TYPICAL_OUTPUT_TOKENS` out, one search call), at most :data:`MAX_RUN_USD`."""
        return min(MAX_RUN_USD, self._units(results, TYPICAL_INPUT_TOKENS, TYPICAL_OUTPUT_TOKENS, 1))


@record(frozen=True)
class Cost:
    """What one provider run cost: ``usd`` (US dollars, >= 0) and where the figure comes from."""

    usd: float
    basis: CostBasis

    def text(self) -> str:
        """For a pane or a hint line: ``"$0.0123"`` when the provider reported it (three significant
        figures), ``"≈ $0.004"`` for an estimate (two), ``"$0"`` for a keyless or reused run or a
        free one, ``"cost unknown"`` without a price."""
        if self.basis == "unknown":
            return "cost unknown"
        if self.basis in ("keyless", "cached") or self.usd == 0:
            return "$0"
        if self.basis == "reported":
            return format_usd(self.usd, significant=3)
        return f"≈ {format_usd(self.usd)}"

    def to_dict(self) -> dict[str, Any]:
        """``{"usd": 0.004, "basis": "estimated"}`` (``usd`` rounded to 6 decimals)."""
        return {"usd": round(self.usd, 6), "basis": self.basis}


def format_usd(usd: float, *, significant: int = 2) -> str:
    """US dollars for a reader: ``"$0.004"``, ``"$0.012"`` (``significant`` figures below a dollar,
    trailing zeros dropped, at least two decimals: ``"$0.50"``), ``"$1.25"``, ``"$1,204.00"`` (cents
    from a dollar up); ``"$0.00"`` for 0 or less, or a value that is not finite."""
    if not math.isfinite(usd) or usd <= 0:
        return "$0.00"
    if usd >= 1:
        return f"${usd:,.2f}"
    digits = max(2, significant - 1 - math.floor(math.log10(usd)))
    shown = f"{usd:.{digits}f}"
    if float(shown) >= 1:  # 0.9996 rounds up to a dollar
        return f"${usd:,.2f}"
    whole, fraction = shown.split(".")
    fraction = fraction.rstrip("0").ljust(2, "0")
    return f"${whole}.{fraction}"


def cost_of(price: Price | None, response: SearchResponse, *, keyless: bool) -> Cost:
    """The cost of one run that returned ``response``: the provider's reported figure when its usage
    has a :func:`plausible_usd` one (``Usage.cost_usd``), else $0 for a ``keyless`` run, else
    ``price``'s estimate, else an ``"unknown"`` cost of 0."""
    usage = response.usage
    if usage is not None and usage.cost_usd is not None and plausible_usd(usage.cost_usd):
        return Cost(float(usage.cost_usd), "reported")
    if keyless:
        return Cost(0.0, "keyless")
    if price is None:
        return Cost(0.0, "unknown")
    return Cost(price.estimate(response), "estimated")


@record(frozen=True)
class CachedFrom:
    """A provider's result reused from an earlier search instead of sending the request again.

    Attributes:
        search_id: the history id of the search whose result is reused.
        created_at: when that search started (timezone-aware).
        age_seconds: how old the result was when it was reused (seconds, >= 0).
    """

    search_id: int
    created_at: datetime
    age_seconds: float

    def text(self) -> str:
        """``"cached · 12 min ago"`` (``"just now"`` under a minute, hours past an hour)."""
        return f"cached · {age_text(self.age_seconds)}"

    def to_dict(self) -> dict[str, Any]:
        """``{"age_seconds": 720, "search_id": 41}`` (whole seconds)."""
        return {"age_seconds": int(self.age_seconds), "search_id": self.search_id}


def age_text(seconds: float) -> str:
    """``"just now"``, ``"12 min ago"``, ``"3 h ago"``, ``"2 days ago"`` for an age in seconds."""
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400 * 2:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} days ago"
