"""The application: what a user can do, whichever front end they use.

- :class:`Session` (``session.py``): search, cancel, retry the failed providers, progress, private
  mode, the back/forward trail, reopening from the history, provider readiness;
- :class:`HistoryAccess` (``history.py``): the history file, read after the recorder has written;
- :class:`SessionTrail` (``trail.py``): this session's searches, for going back and forward.

Front ends (``tui``, ``cli``, ``mcp``, ``api``) sit on this package; it sits on the engine.
"""

from websearch_tui.session.history import HISTORY_FLUSH_SECONDS, HistoryAccess
from websearch_tui.session.session import LiveSearch, NothingToRetry, Session, StatusResolver
from websearch_tui.session.trail import SessionTrail, Shown

__all__ = [
    "HISTORY_FLUSH_SECONDS",
    "HistoryAccess",
    "LiveSearch",
    "NothingToRetry",
    "Session",
    "SessionTrail",
    "Shown",
    "StatusResolver",
]
