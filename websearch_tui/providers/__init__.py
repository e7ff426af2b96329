"""Provider registry: id -> the adapter's ``stream`` function, imported lazily on first use.

The specs themselves are data in :mod:`websearch_tui.core.catalogue`; :func:`load_stream` imports
exactly the one adapter module asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from websearch_tui.core.catalogue import SPECS

if TYPE_CHECKING:
    from websearch_tui.providers.base import StreamFunction


def load_stream(provider_id: str) -> StreamFunction:
    """Import the provider's module (only that one) and return its ``stream`` function.

    Raises ``KeyError`` for an unknown id.
    """
    module = importlib.import_module(SPECS[provider_id].module)
    stream: StreamFunction = module.stream
    return stream
