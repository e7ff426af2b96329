"""How the search screen words what a search cost, in its hint line.

One phrase for a whole search (:func:`search_cost_text`), from the costs the engine attached to its
outcomes (:class:`~websearch_tui.core.costs.Cost`) and the results it reused from the history
(``outcome.cached``): ``"≈ $0.021"``, ``"$0 · 3 cached"``, which the screen puts after "Cost" (the
summary of a search that just ended) or "cost" (a search shown as it ended). Pure text, no widget.
"""

from __future__ import annotations

from websearch_tui.core.results import SearchResult


def search_cost_text(result: SearchResult) -> str:
    """``result``'s cost in one phrase: ``"≈ $0.021"`` (an estimate is part of it), ``"$0.0123"`` (every
    figure reported by its provider), ``"$0 · 3 cached"`` (results reused from the history count $0
    and are counted), ``"≥ $0.004 (no price for Kagi)"`` when a provider's price is not known
    (``"unknown (no price for Kagi)"`` with nothing else spent); ``""`` when no outcome has a cost and
    none was reused (nothing ended yet, or costs were not worked out). The same phrase as every
    output format's (:meth:`SearchResult.cost_text <websearch_tui.core.results.SearchResult.cost_text>`)."""
    return result.cost_text()
