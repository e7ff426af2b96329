"""websearch-tui: research the web across many search providers at once, in the terminal.

The Python API (:mod:`websearch_tui.api`)::

    import websearch_tui

    result = websearch_tui.search("rust 1.80 release notes", providers=["ddgs", "exa"])
    for outcome in result.outcomes:
        print(outcome.provider, outcome.status.value, [s.url for s in outcome.response.sources])

    result = await websearch_tui.asearch("...")   # the same, from async code
    specs = websearch_tui.list_providers()        # the catalogue: every ProviderSpec

    page = websearch_tui.fetch("https://example.com/article")   # one page's main text, as Markdown
    print(page.title, page.word_count, page.text[:200])         # websearch_tui.PageError if unreadable

Importing the package stays cheap: no Textual, no httpx, no MCP SDK; the engine is imported when a
search runs, the reader when a page is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from websearch_tui.api import afetch, asearch, fetch, list_providers, search
from websearch_tui.core.version import __version__

if TYPE_CHECKING:
    from websearch_tui.core.pages import Page, PageError

__all__ = ["Page", "PageError", "__version__", "afetch", "asearch", "fetch", "list_providers", "search"]


def __getattr__(name: str) -> object:
    """``Page`` and ``PageError`` (:mod:`websearch_tui.core.pages`), imported when first asked for.

    Raises:
        AttributeError: any other name.
    """
    if name in ("Page", "PageError"):
        from websearch_tui.core import pages

        return getattr(pages, name)
    raise AttributeError(f"module 'websearch_tui' has no attribute {name!r}")
