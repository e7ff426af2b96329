"""The history: every search the engine ran, kept in a local SQLite file and read back offline.

- :class:`HistoryStore` is the file: add, list (:meth:`~HistoryStore.entries`), full-text
  :meth:`~HistoryStore.search`, :meth:`~HistoryStore.get` (a :class:`StoredSearch` whose ``result``
  renders exactly as the search did), delete and clear; and the pages the app read
  (:meth:`~HistoryStore.add_page`, :meth:`~HistoryStore.page`), so a reopened search reads its
  sources offline.
- one row per provider run (``runs``, :mod:`websearch_tui.history.runs`) answers the cache lookup
  (:meth:`~HistoryStore.reusable`), the spend query (:meth:`~HistoryStore.spent`) and the
  statistics (:meth:`~HistoryStore.stats`, a :class:`~websearch_tui.history.stats.StatsReport`)
  without decoding a stored search.
- :class:`HistoryRecorder` is what the engine records through: it writes on its own thread, so a
  search is never delayed by the disk.
- :func:`history_path` says where the file is.

Uses ``core`` only (and the standard library's ``sqlite3``); never stores a secret (everything is
redacted first).
"""

from typing import TYPE_CHECKING

from websearch_tui.history.paths import HISTORY_ENV, HistoryError, UnknownEntry, default_history_path, history_path
from websearch_tui.history.recorder import HistoryRecorder

if TYPE_CHECKING:
    from websearch_tui.history.codec import HistoryEntry, StoredSearch, iso_utc
    from websearch_tui.history.store import HistoryStore

__all__ = [
    "HISTORY_ENV",
    "HistoryEntry",
    "HistoryError",
    "HistoryRecorder",
    "HistoryStore",
    "StoredSearch",
    "UnknownEntry",
    "default_history_path",
    "history_path",
    "iso_utc",
]


_LATER = {"HistoryStore": "store", "HistoryEntry": "codec", "StoredSearch": "codec", "iso_utc": "codec"}
"""Names imported at their first use: the store (SQLite) and the codecs are not needed to make the
recorder or to say where the file is (the TUI's first frame does both)."""


def __getattr__(name: str) -> object:
    """The store's and the codecs' names of :data:`__all__`, imported when first asked for.

    Raises:
        AttributeError: any other name.
    """
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module 'websearch_tui.history' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"websearch_tui.history.{module}"), name)
