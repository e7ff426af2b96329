"""Each keyed provider's public price list, as :class:`~websearch_tui.core.costs.Price` by provider id.

Every entry says the date its price list was read (``read_on``) and, in a comment, the page it was
read from; prices change, and a user's own ``[providers.X] price = {...}`` replaces an entry. List
prices are used: free allowances (a monthly credit, a free first thousand searches) are not
subtracted, so an estimate is what the run would cost once the allowance is spent. A model-native
provider's token prices are its default model's (``Price.model``): a run on another model has no
default price (:func:`default_price`) until the user sets one.

Providers that bill nothing per request have a zero price, so their runs show ``$0`` rather than an
unknown cost. Keyless-only providers have no entry (their runs are keyless, $0). Providers whose runs
report their own cost (Exa's ``costDollars``, Valyu's deduction, Perplexity's ``usage.cost``) have an
entry too, used when a response lacks the figure.

No entry (the cost shows as unknown until ``price = {...}`` is set), because no public per-use price
was found on 2026-12-03: ``jina`` (billed in tokens, at least 10,000 a search, at a top-up price
that is not published per token), ``firecrawl`` (credits come with monthly plans; no price per
credit), ``kimi``, ``synthetic``, ``zhipu_web_search``, ``zhipu_chat_search``, ``ark`` (no price
list for their search calls), ``zai`` (the MCP tool spends a GLM Coding Plan's quota), ``ollama``
(included in an Ollama account's plan), ``codex`` (a ChatGPT subscription) and ``codex_alpha`` (a
gateway whose operator sets the price).
"""

from __future__ import annotations

from websearch_tui.core.costs import Price
from websearch_tui.core.specs import ProviderSettings, ProviderSpec, asked_model

READ_ON = "2026-12-03"
"""The day these price lists were read."""

DEFAULT_PRICES: dict[str, Price] = {
    # api-dashboard.search.brave.com/app/plans: Search plan, $5.00 per 1,000 requests.
    "brave": Price(per_request=0.005, read_on=READ_ON),
    # docs.tavily.com/documentation/api-credits: pay as you go $0.008 a credit; a basic search is
    # 1 credit (advanced 2: set price = { per_request = 0.016 } for search_depth = "advanced").
    "tavily": Price(per_request=0.008, read_on=READ_ON),
    # exa.ai/docs/reference/pricing: Search $7 per 1,000 requests, up to 10 results included ($1 per
    # 1,000 further results); REST responses report the charge (costDollars.total), which wins.
    "exa": Price(per_request=0.007, read_on=READ_ON),
    # docs.parallel.ai/getting-started/pricing: Search API (basic / advanced) $5 per 1,000 requests
    # of up to 10 results.
    "parallel": Price(per_request=0.005, read_on=READ_ON),
    # docs.perplexity.ai/guides/pricing: Search API $5.00 per 1,000 requests, no token costs.
    "perplexity_search": Price(per_request=0.005, read_on=READ_ON),
    # docs.perplexity.ai/guides/pricing: Agent API web_search $0.005 per invocation, plus the preset
    # model's tokens at its provider's rates (not known here); the reported usage.cost wins.
    "perplexity": Price(per_search_call=0.005, read_on=READ_ON),
    # help.kagi.com/kagi/api/api-portal.html: Search API $12 per 1,000 queries.
    "kagi": Price(per_request=0.012, read_on=READ_ON),
    # docs.you.com/administration/billing: Search API $5.00 per 1,000 calls (up to 100 results).
    "you": Price(per_request=0.005, read_on=READ_ON),
    # docs.linkup.so/pages/documentation/platform/pricing: standard depth $0.005 for searchResults,
    # $0.006 with a sourcedAnswer (the default here); deep $0.05 / $0.055.
    "linkup": Price(per_request=0.006, read_on=READ_ON),
    # serper.dev (pricing table): 1 credit a search; the smallest pack is $50 for 50,000 credits
    # ($1.00 per 1,000), larger packs down to $0.30 per 1,000.
    "serper": Price(per_request=0.001, read_on=READ_ON),
    # docs.valyu.ai/pricing: web results $1.50 per 1,000 retrieved (open databases $0.50, financial
    # data $8, licensed sources $30-50); responses report the deduction, which wins.
    "valyu": Price(per_1k_results=1.50, read_on=READ_ON),
    # developers.openalex.org (Authentication & Pricing): a search costs $1 per 1,000 beyond the
    # free key's $1 daily allowance; keyless runs cost nothing.
    "openalex": Price(per_request=0.001, read_on=READ_ON),
    # semanticscholar.org/product/api: the API and its keys are free.
    "semantic_scholar": Price(read_on=READ_ON),
    # docs.searxng.org: self-hosted metasearch; nothing is billed per search.
    "searxng": Price(read_on=READ_ON),
    # anthropic.com/pricing: Claude Haiku 4.5 $1 / $5 per million input / output tokens; web search
    # $10 per 1,000 searches.
    "anthropic": Price(
        per_million_input_tokens=1.0,
        per_million_output_tokens=5.0,
        per_search_call=0.01,
        model="claude-haiku-4-5",
        read_on=READ_ON,
    ),
    # developers.openai.com/api/docs/pricing: GPT-6.1 Terra $1.00 / $5.00 per million tokens (prompts
    # up to 272K tokens); web search $10 per 1,000 calls, its content tokens at the model's rates.
    "openai": Price(
        per_million_input_tokens=1.0,
        per_million_output_tokens=5.0,
        per_search_call=0.01,
        model="gpt-6.1-terra",
        read_on=READ_ON,
    ),
    # ai.google.dev/gemini-api/docs/pricing: Gemini 3.8 Flash $0.75 / $3.75 per million tokens
    # through 2026-12-31 ($1.50 / $7.50 from 2027-01-01); Grounding with Google Search on Gemini 3
    # $14 per 1,000 search queries after 5,000 free a month.
    "gemini": Price(
        per_million_input_tokens=0.75,
        per_million_output_tokens=3.75,
        per_search_call=0.014,
        model="gemini-3.8-flash",
        read_on=READ_ON,
    ),
    # docs.x.ai/docs/models (Grok 4.3; Tools Pricing): $1.25 / $2.50 per million tokens; web_search
    # and x_search $5 per 1,000 calls.
    "grok": Price(
        per_million_input_tokens=1.25,
        per_million_output_tokens=2.50,
        per_search_call=0.005,
        model="grok-4.3",
        read_on=READ_ON,
    ),
    # api-docs.deepseek.com/quick_start/pricing: deepseek-flash $0.30 / $1.20 per million tokens at
    # peak (cache miss; off-peak is half); search $0.75 per 1,000 successful requests, also when the
    # model's web search tool runs it.
    "deepseek": Price(
        per_million_input_tokens=0.30,
        per_million_output_tokens=1.20,
        per_search_call=0.00075,
        model="deepseek-flash",
        read_on=READ_ON,
    ),
}
"""Provider id -> its public price, as read on :data:`READ_ON` from the page named above each entry."""


def default_price(provider_id: str, model: str | None) -> Price | None:
    """The public price of a run of ``provider_id`` on ``model`` (``None``: the provider's default):
    its :data:`DEFAULT_PRICES` entry, unless that entry prices one model's tokens and ``model`` is
    another (then ``None``: the cost is unknown, never another model's figure)."""
    price = DEFAULT_PRICES.get(provider_id)
    if price is None or not price.model or model is None or model == price.model:
        return price
    return None


def price_for(spec: ProviderSpec, settings: ProviderSettings) -> Price | None:
    """The price a run of ``spec`` with ``settings`` is billed at: the config's ``price = {...}``, else
    :func:`default_price` for the model it asks for (:func:`~websearch_tui.core.specs.asked_model`);
    ``None``: unknown."""
    return settings.price or default_price(spec.id, asked_model(spec, settings))
