"""Whether the running asyncio event loop handles SIGINT itself: :func:`loop_handles_sigint`.

asyncio has no public way to ask which signals a loop handles (``loop.add_signal_handler`` sets,
``loop.remove_signal_handler`` removes, nothing reads); no CPython issue asking for one was found.
Its Unix event loops keep the handlers in ``loop._signal_handlers``, a dict keyed by signal number,
which :func:`loop_handles_sigint` reads. Where a Unix selector loop has no such dict (asyncio
changed), it answers False, as for a loop without handlers, and logs a warning once; other loops
(Windows, third-party ones) have no such table and are taken as handling no signal.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from websearch_tui.core.internals import fall_back

log = logging.getLogger(__name__)

PATCH = "Asking whether the event loop handles SIGINT"
TABLE = "_signal_handlers"


def loop_handles_sigint() -> bool:
    """True when the running event loop has a SIGINT handler of its own (``loop.add_signal_handler``);
    False outside a running loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    handlers = getattr(loop, TABLE, None)
    if isinstance(handlers, dict):
        return signal.SIGINT in handlers
    if sys.platform != "win32" and isinstance(loop, asyncio.SelectorEventLoop):
        fall_back(log, PATCH, f"asyncio's Unix event loop keeps no {TABLE} dict")
    return False
