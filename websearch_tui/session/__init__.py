"""The application: what a user can do, whichever front end they use.

- :class:`Session` (``session.py``): search, cancel, retry the failed providers, progress, private
  mode, the back/forward trail, reopening from the history, provider readiness;
- :class:`HistoryAccess` (``history.py``): the history file, read after the recorder has written;
- :class:`SessionTrail` (``trail.py``): this session's searches, for going back and forward;
- the cache (``cache.py``): results reused from the history instead of sent again;
- budgets (``budget.py``): :class:`BudgetOverrun`, :class:`OverBudget`, the check before a search.

Front ends (``tui``, ``cli``, ``mcp``, ``api``) sit on this package; it sits on the engine.
"""

from websearch_tui.session.budget import BudgetOverrun, OverBudget
from websearch_tui.session.history import HISTORY_FLUSH_SECONDS, HistoryAccess
from websearch_tui.session.session import LiveSearch, NothingToRetry, Session, StatusResolver, pacing_notice
from websearch_tui.session.trail import SessionTrail, Shown

__all__ = [
    "HISTORY_FLUSH_SECONDS",
    "BudgetOverrun",
    "OverBudget",
    "HistoryAccess",
    "LiveSearch",
    "NothingToRetry",
    "Session",
    "SessionTrail",
    "Shown",
    "StatusResolver",
    "pacing_notice",
]
