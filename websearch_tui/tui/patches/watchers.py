"""Forgetting the watchers that removed widgets leave on another node's reactive: :func:`drop_removed_watchers`.

Textual's ``data_bind`` and ``watch`` add ``(node, callback)`` to a list the watched node keeps per
reactive attribute, and drop the entries of closed nodes only when that attribute next changes.
Textual's ``Footer`` binds every key widget it shows to its own ``compact`` reactive, which never
changes once the app runs, and builds its keys again whenever the keys to show change (twice a search:
Cancel comes and goes), so every rebuild left its removed keys alive through that list, with their
styles, caches and drawn lines: about 11 widgets a search, the TUI's memory growing by about 0.25 MiB a
search for as long as it ran (issue 28). No Textual issue was found about it, and Textual has no public
way to drop a watcher.

:func:`drop_removed_watchers` keeps, in each of those lists, only the entries whose node is still in
the DOM (the public ``is_attached``). It first checks that the node keeps its watchers where Textual
does (``__watchers``: attribute name -> list of ``(node, callback)``); otherwise it leaves them alone
(Textual's own behaviour) and logs a warning once.
"""

from __future__ import annotations

import logging

from textual.dom import DOMNode

from websearch_tui.core.internals import fall_back

log = logging.getLogger(__name__)

PATCH = "Forgetting removed widgets' watchers"
STORAGE = "__watchers"
"""Where Textual keeps a node's watchers (set with ``setattr``, so the name is not mangled)."""


def drop_removed_watchers(node: DOMNode) -> None:
    """Forget the watchers of ``node``'s reactives that belong to nodes no longer in the DOM (call after
    removing widgets bound to ``node`` with ``data_bind`` or ``watch``)."""
    watchers = getattr(node, STORAGE, None)
    if watchers is None:  # nothing watches it yet
        return
    if not isinstance(watchers, dict) or not all(isinstance(entries, list) for entries in watchers.values()):
        fall_back(log, PATCH, f"DOMNode keeps no {STORAGE} dict of lists")
        return
    for entries in watchers.values():
        entries[:] = [entry for entry in entries if getattr(entry[0], "is_attached", True)]
