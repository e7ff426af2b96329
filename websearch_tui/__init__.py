"""websearch-tui: research the web across many search providers at once, in the terminal.

The Python API (:mod:`websearch_tui.api`)::

    import websearch_tui

    result = websearch_tui.search("rust 1.80 release notes", providers=["ddgs", "exa"])
    for outcome in result.outcomes:
        print(outcome.provider, outcome.status.value, [s.url for s in outcome.response.sources])

    result = await websearch_tui.asearch("...")   # the same, from async code
    specs = websearch_tui.list_providers()        # the catalogue: every ProviderSpec

Importing the package stays cheap: no Textual, no httpx, no MCP SDK; the engine is imported when a
search runs.
"""

from __future__ import annotations

from websearch_tui.api import asearch, list_providers, search
from websearch_tui.core.version import __version__

__all__ = ["__version__", "asearch", "list_providers", "search"]
