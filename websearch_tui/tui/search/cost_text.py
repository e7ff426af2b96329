"""How the search screen words what a search cost, in its hint line.

One phrase for a whole search (:func:`search_cost_text`), from the costs the engine attached to its
outcomes (:class:`~websearch_tui.core.costs.Cost`) and the results it reused from the history
(``outcome.cached``): ``"≈ $0.021"``, ``"$0 · 3 cached"``, which the screen puts after "Cost" (the
summary of a search that just ended) or "cost" (a search shown as it ended). Pure text, no widget.
"""

from __future__ import annotations

from websearch_tui.core.costs import Cost, CostBasis
from websearch_tui.core.results import SearchResult


def search_cost_text(result: SearchResult) -> str:
    """``result``'s cost in one phrase: ``"≈ $0.021"`` (an estimate is part of it), ``"$0.0123"`` (every
    figure reported by its provider), ``"$0 · 3 cached"`` (results reused from the history count $0
    and are counted), ``"≥ $0.004 (no price for Kagi)"`` when a provider's price is not known
    (``"unknown (no price for Kagi)"`` with nothing else spent); ``""`` when no outcome has a cost and
    none was reused (nothing ended yet, or costs were not worked out)."""
    cached = sum(1 for o in result.outcomes if o.cached is not None)
    sent = [(o, o.cost) for o in result.outcomes if o.cost is not None and o.cached is None]
    if not sent and not cached:
        return ""
    total = sum(cost.usd for _, cost in sent)
    unknown = [result.label(o.provider) for o, cost in sent if cost.basis == "unknown"]
    bases = {cost.basis for _, cost in sent}
    basis: CostBasis = "estimated" if "estimated" in bases else "reported" if "reported" in bases else "keyless"
    amount = Cost(total, basis).text()
    if unknown:
        known = f"≥ {amount.removeprefix('≈ ')}" if total > 0 else "unknown"
        amount = f"{known} (no price for {', '.join(unknown)})"
    return f"{amount} · {cached} cached" if cached else amount
