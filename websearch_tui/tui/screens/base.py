"""The base of the app's screens: one funnel for failed workers.

Every worker of a screen runs with ``exit_on_error=False``; a worker that raises (a bug: provider
failures are outcomes, not exceptions) reaches :meth:`AppScreen.on_worker_state_changed`, which logs
the traceback (redacted by the log formatter) and shows one error notification, so the app keeps
running and the failure is never silent.
"""

from __future__ import annotations

import logging

from textual.screen import ModalScreen, Screen, ScreenResultType
from textual.worker import Worker, WorkerState

log = logging.getLogger(__name__)


class AppScreen(Screen[ScreenResultType]):
    """A screen whose failed workers are logged and shown (see the module docstring)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Log and show a worker that ended with an exception; other state changes pass."""
        worker = event.worker
        error = worker.error
        if event.state is not WorkerState.ERROR or error is None:
            return
        what = worker.description or worker.name or "a background task"
        log.error("worker %r failed", what, exc_info=error)
        self.notify(
            f"Internal error in {what}: {type(error).__name__}: {error} (details in the log file)",
            title="Something went wrong",
            severity="error",
            markup=False,
            timeout=10,
        )


class AppModalScreen(ModalScreen[ScreenResultType], AppScreen[ScreenResultType]):
    """A dialog (modal screen) whose failed workers go through the same funnel."""
