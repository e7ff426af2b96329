"""The provider catalogue: every provider's :class:`~websearch_tui.core.specs.ProviderSpec`, by id.

Pure data: listing providers, reading config, building the CLI and the settings screen read it
without importing a single adapter (:func:`websearch_tui.providers.load_stream` imports exactly the
one adapter a search needs).
"""

from __future__ import annotations

from websearch_tui.core.specs import UNKNOWN_INDEX, Capabilities, CredentialSpec, ProviderSpec

_KEY = "api_key"
_CONTEXT_SIZES = ("low", "medium", "high")
_CONTACT = "contact"  # how an API's operators reach the user; [search] contact is its default

SPECS: dict[str, ProviderSpec] = {
    spec.id: spec
    for spec in (
        ProviderSpec(
            id="ddgs",
            label="DuckDuckGo",
            index="Bing-derived",
            kind="conventional",
            module="websearch_tui.providers.ddgs",
            keyless=True,
            options={"region": str, "safesearch": str, "backend": str},
            option_choices={"safesearch": ("on", "moderate", "off")},
            capabilities=Capabilities(recency=True, count=True),
        ),
        ProviderSpec(
            id="exa",
            label="Exa",
            index="Exa's own crawl",
            kind="agent",
            module="websearch_tui.providers.exa",
            credentials=(CredentialSpec(_KEY, ("EXA_API_KEY",)),),
            keyless=True,
            default_base_url="https://api.exa.ai",
            default_mcp_url="https://mcp.exa.ai/mcp",
            capabilities=Capabilities(recency=True, count=True),
            default_min_interval=1.0,
        ),
        ProviderSpec(
            id="parallel",
            label="Parallel",
            index="Parallel's own crawl",
            kind="agent",
            module="websearch_tui.providers.parallel",
            credentials=(CredentialSpec(_KEY, ("PARALLEL_API_KEY",)),),
            keyless=True,
            default_base_url="https://api.parallel.ai",
            default_mcp_url="https://search.parallel.ai/mcp",
            capabilities=Capabilities(recency=True, count=True),
        ),
        ProviderSpec(
            id="brave",
            label="Brave Search",
            index="Brave's own index",
            kind="conventional",
            module="websearch_tui.providers.brave",
            credentials=(CredentialSpec(_KEY, ("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY")),),
            default_base_url="https://api.search.brave.com",
            options={"country": str, "search_lang": str, "safesearch": str},
            option_choices={"safesearch": ("off", "moderate", "strict")},
            capabilities=Capabilities(recency=True, count=True),
            default_min_interval=1.0,
        ),
        ProviderSpec(
            id="tavily",
            label="Tavily",
            index=UNKNOWN_INDEX,
            kind="agent",
            module="websearch_tui.providers.tavily",
            credentials=(CredentialSpec(_KEY, ("TAVILY_API_KEY",)),),
            default_base_url="https://api.tavily.com",
            options={"search_depth": str, "include_answer": str},
            option_choices={
                "search_depth": ("basic", "advanced", "fast", "ultra-fast"),
                "include_answer": ("basic", "advanced", "none"),
            },
            capabilities=Capabilities(recency=True, count=True, answer=True, related=True),
        ),
        ProviderSpec(
            id="searxng",
            label="SearXNG",
            index="metasearch",
            kind="conventional",
            module="websearch_tui.providers.searxng",
            credentials=(
                CredentialSpec("token", ("SEARXNG_TOKEN",)),
                CredentialSpec("username", ("SEARXNG_BASIC_USERNAME",), secret=False),
                CredentialSpec("password", ("SEARXNG_BASIC_PASSWORD",)),
            ),
            keyless=True,
            needs_base_url=True,
            options={"categories": str, "language": str, "engines": str, "safesearch": int},
            capabilities=Capabilities(recency=True, answer=True, related=True),
        ),
        ProviderSpec(
            id="openalex",
            label="OpenAlex",
            index="OpenAlex scholarly graph",
            kind="conventional",
            module="websearch_tui.providers.openalex",
            credentials=(CredentialSpec(_KEY, ("OPENALEX_API_KEY",)),),
            keyless=True,
            default_base_url="https://api.openalex.org",
            options={_CONTACT: str},
            capabilities=Capabilities(recency=True, count=True),
        ),
        ProviderSpec(
            id="arxiv",
            label="arXiv",
            index="arXiv",
            kind="conventional",
            module="websearch_tui.providers.arxiv",
            keyless=True,
            default_base_url="https://export.arxiv.org",
            options={_CONTACT: str},
            capabilities=Capabilities(recency=True, count=True),
            default_min_interval=3.0,  # arXiv's terms of use: no more than one request every three seconds
        ),
        ProviderSpec(
            id="semantic_scholar",
            label="Semantic Scholar",
            index="Semantic Scholar academic graph",
            kind="conventional",
            module="websearch_tui.providers.semantic_scholar",
            credentials=(CredentialSpec(_KEY, ("SEMANTIC_SCHOLAR_API_KEY", "S2_API_KEY")),),
            keyless=True,
            default_base_url="https://api.semanticscholar.org",
            capabilities=Capabilities(recency=True, count=True),
            default_min_interval=1.0,  # a key's starting limit; keyless calls share one pool
        ),
        ProviderSpec(
            id="wikipedia",
            label="Wikipedia",
            index="Wikipedia encyclopedia",
            kind="conventional",
            module="websearch_tui.providers.wikipedia",
            keyless=True,
            options={"language": str, _CONTACT: str},
            capabilities=Capabilities(count=True),
        ),
        ProviderSpec(
            id="hackernews",
            label="Hacker News",
            index="Hacker News community",
            kind="conventional",
            module="websearch_tui.providers.hackernews",
            keyless=True,
            default_base_url="https://hn.algolia.com",
            options={"sort": str},
            option_choices={"sort": ("relevance", "date")},
            capabilities=Capabilities(recency=True, count=True),
        ),
        ProviderSpec(
            id="perplexity",
            label="Perplexity",
            index="Perplexity's own index",
            kind="model",
            module="websearch_tui.providers.perplexity",
            credentials=(CredentialSpec(_KEY, ("PERPLEXITY_API_KEY", "PPLX_API_KEY")),),
            default_base_url="https://api.perplexity.ai",
            default_model="low",  # an Agent API preset (Sonar Pro's equivalent); api = "chat" uses sonar-pro
            options={"api": str, "search_context_size": str, "search_domain_filter": list},
            option_choices={"api": ("agent", "chat"), "search_context_size": _CONTEXT_SIZES},
            capabilities=Capabilities(
                recency=True, count=True, answer=True, citations=True, related=True, queries=True, streams=True
            ),
        ),
        ProviderSpec(
            id="perplexity_search",
            label="Perplexity Search",
            index="Perplexity's own index",
            kind="agent",
            module="websearch_tui.providers.perplexity_search",
            credentials=(CredentialSpec(_KEY, ("PERPLEXITY_API_KEY", "PPLX_API_KEY")),),
            default_base_url="https://api.perplexity.ai",
            capabilities=Capabilities(recency=True, count=True),
        ),
        ProviderSpec(
            id="jina",
            label="Jina Search",
            index="Jina's own index",
            kind="agent",
            module="websearch_tui.providers.jina",
            credentials=(CredentialSpec(_KEY, ("JINA_API_KEY",)),),
            default_base_url="https://s.jina.ai",
            options={"gl": str, "hl": str},
            capabilities=Capabilities(count=True),
            default_min_interval=1.5,
        ),
        ProviderSpec(
            id="kimi",
            label="Kimi Code Search",
            index=UNKNOWN_INDEX,
            kind="agent",
            module="websearch_tui.providers.kimi",
            credentials=(CredentialSpec(_KEY, ("KIMI_SEARCH_API_KEY", "MOONSHOT_SEARCH_API_KEY")),),
            default_base_url="https://api.kimi.com/coding",
            capabilities=Capabilities(count=True),
        ),
        ProviderSpec(
            id="kagi",
            label="Kagi Search",
            index="Kagi's own index and others",
            kind="conventional",
            module="websearch_tui.providers.kagi",
            credentials=(CredentialSpec(_KEY, ("KAGI_API_KEY",)),),
            default_base_url="https://kagi.com",
            options={"api_version": str},
            option_choices={"api_version": ("v1", "v0")},
            capabilities=Capabilities(recency=True, count=True, answer=True, related=True),
        ),
        ProviderSpec(
            id="synthetic",
            label="Synthetic Search",
            index=UNKNOWN_INDEX,
            kind="agent",
            module="websearch_tui.providers.synthetic",
            credentials=(CredentialSpec(_KEY, ("SYNTHETIC_API_KEY",)),),
            default_base_url="https://api.synthetic.new",
        ),
        ProviderSpec(
            id="you",
            label="You.com Search",
            index="You.com's own index",
            kind="conventional",
            module="websearch_tui.providers.you",
            credentials=(CredentialSpec(_KEY, ("YDC_API_KEY",)),),
            default_base_url="https://ydc-index.io",
            capabilities=Capabilities(recency=True, count=True),
            default_min_interval=0.1,
        ),
        ProviderSpec(
            id="zhipu_web_search",
            label="Zhipu Web Search",
            index="Zhipu web search",
            kind="agent",
            module="websearch_tui.providers.zhipu_web_search",
            credentials=(CredentialSpec(_KEY, ("ZHIPU_WEB_SEARCH_API_KEY",)),),
            default_base_url="https://open.bigmodel.cn",
            options={"search_engine": str, "content_size": str, "search_intent": bool},
            option_choices={"content_size": ("medium", "high")},
            capabilities=Capabilities(recency=True, count=True, queries=True),
        ),
        ProviderSpec(
            id="zai",
            label="Z.AI Web Search",
            index="Z.AI web search",
            kind="agent",
            module="websearch_tui.providers.zai",
            credentials=(CredentialSpec(_KEY, ("ZAI_API_KEY",)),),
            default_mcp_url="https://api.z.ai/api/mcp/web_search_prime/mcp",
            options={"content_size": str},
            option_choices={"content_size": ("medium", "high")},
            capabilities=Capabilities(recency=True, count=True),
            default_min_interval=1.0,
        ),
        ProviderSpec(
            id="codex_alpha",
            label="Codex Alpha Search",
            index="OpenAI web search",
            kind="model",
            module="websearch_tui.providers.codex_alpha",
            credentials=(CredentialSpec(_KEY, ("AGENT_WEB_SEARCH_CODEX_ALPHA_API_KEY",)),),
            needs_base_url=True,
            default_model="gpt-5.6-luna",
            options={"search_context_size": str},
            option_choices={"search_context_size": _CONTEXT_SIZES},
            capabilities=Capabilities(answer=True),
        ),
        ProviderSpec(
            id="anthropic",
            label="Anthropic",
            index="Anthropic web search",
            kind="model",
            module="websearch_tui.providers.anthropic",
            credentials=(
                CredentialSpec(
                    _KEY, ("ANTHROPIC_SEARCH_API_KEY", "ANTHROPIC_API_KEY", "AGENT_WEB_SEARCH_MESSAGES_API_KEY")
                ),
            ),
            default_base_url="https://api.anthropic.com",
            default_model="claude-haiku-4-5",
            options={"max_uses": int},
            capabilities=Capabilities(
                recency=True, recency_in_prompt=True, answer=True, citations=True, queries=True, streams=True
            ),
        ),
        ProviderSpec(
            id="deepseek",
            label="DeepSeek",
            index="DeepSeek web search",
            kind="model",
            module="websearch_tui.providers.deepseek",
            credentials=(CredentialSpec(_KEY, ("DEEPSEEK_API_KEY",)),),
            default_base_url="https://api.deepseek.com/anthropic",
            default_model="deepseek-flash",
            options={"max_uses": int},
            capabilities=Capabilities(recency=True, recency_in_prompt=True, answer=True, citations=True, queries=True),
        ),
        ProviderSpec(
            id="gemini",
            label="Gemini",
            index="Google",
            kind="model",
            module="websearch_tui.providers.gemini",
            credentials=(CredentialSpec(_KEY, ("GEMINI_API_KEY",)),),
            default_base_url="https://generativelanguage.googleapis.com",
            default_model="gemini-3.8-flash",
            capabilities=Capabilities(
                recency=True, recency_in_prompt=True, answer=True, citations=True, queries=True, streams=True
            ),
        ),
        ProviderSpec(
            id="openai",
            label="OpenAI",
            index="OpenAI web search",
            kind="model",
            module="websearch_tui.providers.openai",
            credentials=(CredentialSpec(_KEY, ("OPENAI_API_KEY", "AGENT_WEB_SEARCH_RESPONSES_API_KEY")),),
            default_base_url="https://api.openai.com",
            default_model="gpt-6.1-terra",
            options={"search_context_size": str},
            option_choices={"search_context_size": _CONTEXT_SIZES},
            capabilities=Capabilities(
                recency=True, recency_in_prompt=True, answer=True, citations=True, queries=True, streams=True
            ),
        ),
        ProviderSpec(
            id="codex",
            label="Codex",
            index="OpenAI web search",
            kind="model",
            module="websearch_tui.providers.codex",
            default_base_url="https://chatgpt.com/backend-api",
            default_model="gpt-6-luna",
            options={"search_context_size": str, "trust_base_url": bool},
            option_choices={"search_context_size": _CONTEXT_SIZES},
            login="websearch_tui.providers.helpers.codex_auth:login_state",
            capabilities=Capabilities(
                recency=True, recency_in_prompt=True, answer=True, citations=True, queries=True, streams=True
            ),
        ),
        ProviderSpec(
            id="grok",
            label="Grok",
            index="xAI web and X search",
            kind="model",
            module="websearch_tui.providers.grok",
            credentials=(CredentialSpec(_KEY, ("XAI_API_KEY",)),),
            default_base_url="https://api.x.ai",
            default_model="grok-4.3",
            options={"search_mode": str},
            option_choices={"search_mode": ("web", "x", "both")},
            capabilities=Capabilities(
                recency=True, recency_in_prompt=True, answer=True, citations=True, queries=True, streams=True
            ),
        ),
        ProviderSpec(
            id="ark",
            label="Volcengine ARK",
            index="Volcengine web search",
            kind="model",
            module="websearch_tui.providers.ark",
            credentials=(CredentialSpec(_KEY, ("ARK_API_KEY",)),),
            default_base_url="https://ark.cn-beijing.volces.com",
            default_model="doubao-seed-2-1-turbo-260628",
            options={"continuation": bool},
            capabilities=Capabilities(recency=True, recency_in_prompt=True, count=True, answer=True, citations=True),
        ),
        ProviderSpec(
            id="zhipu_chat_search",
            label="Zhipu Chat Search",
            index="Zhipu web search",
            kind="model",
            module="websearch_tui.providers.zhipu_chat_search",
            credentials=(CredentialSpec(_KEY, ("ZHIPU_CHAT_SEARCH_API_KEY",)),),
            default_base_url="https://open.bigmodel.cn",
            default_model="glm-5.3-flash",
            options={"search_engine": str},
            capabilities=Capabilities(
                recency=True, count=True, answer=True, citations=True, related=True, queries=True, streams=True
            ),
        ),
        ProviderSpec(
            id="linkup",
            label="Linkup",
            index="Linkup's own index",
            kind="agent",
            module="websearch_tui.providers.linkup",
            credentials=(CredentialSpec(_KEY, ("LINKUP_API_KEY",)),),
            default_base_url="https://api.linkup.so",
            options={"depth": str, "output": str},
            option_choices={"depth": ("standard", "deep", "fast"), "output": ("answer", "results")},
            capabilities=Capabilities(recency=True, count=True, answer=True, citations=True),
        ),
        ProviderSpec(
            id="serper",
            label="Serper",
            index="Google",
            kind="conventional",
            module="websearch_tui.providers.serper",
            credentials=(CredentialSpec(_KEY, ("SERPER_API_KEY",)),),
            default_base_url="https://google.serper.dev",
            options={"gl": str, "hl": str},
            capabilities=Capabilities(recency=True, count=True, answer=True, citations=True, related=True),
        ),
        ProviderSpec(
            id="firecrawl",
            label="Firecrawl Search",
            index=UNKNOWN_INDEX,
            kind="agent",
            module="websearch_tui.providers.firecrawl",
            credentials=(CredentialSpec(_KEY, ("FIRECRAWL_API_KEY",)),),
            default_base_url="https://api.firecrawl.dev",
            options={"scrape": bool, "country": str},
            capabilities=Capabilities(recency=True, count=True),
            default_min_interval=12.0,  # the free plan's /search limit: 5 requests a minute
        ),
        ProviderSpec(
            id="ollama",
            label="Ollama Web Search",
            index=UNKNOWN_INDEX,
            kind="agent",
            module="websearch_tui.providers.ollama",
            credentials=(CredentialSpec(_KEY, ("OLLAMA_API_KEY",)),),
            default_base_url="https://ollama.com",
            capabilities=Capabilities(count=True),
        ),
        ProviderSpec(
            id="valyu",
            label="Valyu",
            index="Valyu's own index (web, academic, financial)",
            kind="agent",
            module="websearch_tui.providers.valyu",
            credentials=(CredentialSpec(_KEY, ("VALYU_API_KEY",)),),
            default_base_url="https://api.valyu.ai",
            options={"search_type": str},
            option_choices={"search_type": ("all", "web", "proprietary", "news")},
            capabilities=Capabilities(recency=True, count=True),
        ),
    )
}

DEFAULT_PROVIDERS: tuple[str, ...] = ("ddgs", "exa", "parallel", "wikipedia", "openalex", "arxiv")
"""The default selection: the keyless research bench (three web indexes, the encyclopedia, two
scholarly ones), so a first search needs no key."""

BUILTIN_PRESETS: dict[str, tuple[str, ...]] = {
    "scholar": ("openalex", "arxiv", "semantic_scholar", "wikipedia"),
    "community": ("hackernews", "ddgs"),
}
"""Presets every config has, beside the user's ``[presets]`` (a user's preset of the same name wins):
``scholar``, the scholarly graphs and the encyclopedia; ``community``, Hacker News's discussions and
DuckDuckGo for the forums and blogs of the open web around them."""


def get_spec(provider_id: str) -> ProviderSpec:
    """The spec for ``provider_id``; raises ``KeyError`` for an unknown id."""
    return SPECS[provider_id]
