"""websearch-tui: research the web across many search providers at once, in the terminal.

The Python API (:mod:`websearch_tui.api`)::

    import websearch_tui

    result = websearch_tui.search("rust 1.80 release notes", providers=["ddgs", "exa"])
    for outcome in result.outcomes:
        print(outcome.provider, outcome.status.value, [s.url for s in outcome.response.sources])

    result = await websearch_tui.asearch("...")   # the same, from async code
    specs = websearch_tui.providers()             # the registry: every ProviderSpec

Importing the package stays cheap: no Textual, no httpx, no MCP SDK; the engine is imported when a
search runs.

``search`` and ``providers`` are also the names of two subpackages (the engine and formats, the
provider registry). Python binds a subpackage onto its parent when it is first imported, so the
package's module class makes those two subpackage modules callable as the API functions: the
names work as functions in whatever order modules were imported, and ``websearch_tui.search.engine``
and ``websearch_tui.providers.SPECS`` stay the modules they are.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["__version__", "asearch", "providers", "search"]

if TYPE_CHECKING:
    from websearch_tui.api import asearch as asearch
    from websearch_tui.api import providers as providers
    from websearch_tui.api import search as search


class _SearchPackage(types.ModuleType):
    """``websearch_tui.search``: the engine's subpackage, callable as :func:`websearch_tui.api.search`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from websearch_tui import api

        return api.search(*args, **kwargs)


class _ProvidersPackage(types.ModuleType):
    """``websearch_tui.providers``: the registry, callable as :func:`websearch_tui.api.providers`."""

    def __call__(self) -> Any:
        from websearch_tui import api

        return api.providers()


_CALLABLE_SUBPACKAGES: dict[str, type[types.ModuleType]] = {"search": _SearchPackage, "providers": _ProvidersPackage}


class _Package(types.ModuleType):
    """This package's module class: when the import system binds the ``search`` or ``providers``
    subpackage onto it, the subpackage becomes callable (see the module docstring)."""

    def __setattr__(self, name: str, value: object) -> None:
        callable_class = _CALLABLE_SUBPACKAGES.get(name)
        if callable_class is not None and type(value) is types.ModuleType:
            value.__class__ = callable_class
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    """The API names, imported on first use: ``asearch`` from :mod:`websearch_tui.api`; ``search`` and
    ``providers`` are their (callable) subpackages."""
    if name == "asearch":
        from websearch_tui.api import asearch

        return asearch
    if name in _CALLABLE_SUBPACKAGES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
