"""Each keyed provider's public price list, as :class:`~websearch_tui.core.costs.Price` by provider id.

Every entry says the date its price list was read (``read_on``); prices change, and a user's own
``[providers.X] price = {...}`` replaces an entry. Keyless providers have no entry (their runs cost
$0), nor do providers that report each request's cost themselves (their figure wins).
"""

from __future__ import annotations

from websearch_tui.core.costs import Price

DEFAULT_PRICES: dict[str, Price] = {}
"""Provider id -> its public price (filled in from each provider's pricing page)."""
