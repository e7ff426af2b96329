"""Letting removed widgets' drawn lines go: :func:`release_style_caches`.

Each Textual widget draws its lines through a ``StylesCache`` of its own, which keeps the strips it
drew. ``StylesCache.get_inner_outer`` is an ``lru_cache`` on an instance method (1,024 entries), so its
key holds the ``StylesCache`` itself: a widget that is removed (the footer's keys, made again twice a
search) leaves its cache and strips alive until 1,024 newer entries push it out (issue 28: about 13
a search, about 570 strips a search with their caches). No Textual issue was found about it.

:func:`release_style_caches` empties that ``lru_cache`` (it holds two ``Style`` objects per pair of
colours, made again on the next draw). If Textual no longer has it, nothing is done (Textual's own
behaviour) and a warning is logged once.
"""

from __future__ import annotations

import logging

from websearch_tui.core.internals import fall_back

log = logging.getLogger(__name__)

PATCH = "Releasing removed widgets' style caches"
MODULE = "textual._styles_cache"
"""The private module whose ``StylesCache.get_inner_outer`` keeps its instances."""


def release_style_caches() -> None:
    """Let the style caches (and drawn lines) of widgets removed so far be freed (call after removing
    widgets)."""
    import importlib

    try:
        cache_clear = importlib.import_module(MODULE).StylesCache.get_inner_outer.cache_clear
    except (ImportError, AttributeError):
        fall_back(log, PATCH, f"{MODULE}.StylesCache.get_inner_outer.cache_clear is gone")
        return
    cache_clear()
