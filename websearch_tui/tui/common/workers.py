"""The one funnel for failed workers, for every screen and widget that starts workers.

Every worker of the app runs with ``exit_on_error=False``; a worker that raises (a bug: provider
and key store failures are outcomes, not exceptions) reaches
:meth:`ReportsFailedWorkers.on_worker_state_changed` on the node that started it
(``Worker.StateChanged`` does not bubble), which logs the traceback (redacted by the log formatter)
and shows one error notification, so the app keeps running and the failure is never silent.
"""

from __future__ import annotations

import logging

from textual.widget import Widget
from textual.worker import Worker, WorkerState

log = logging.getLogger(__name__)


class ReportsFailedWorkers(Widget):
    """Mixed into a screen or widget that starts workers: its failed workers are logged and shown.

    List it after the Textual base (``class Form(Vertical, ReportsFailedWorkers)``): Textual takes
    a widget's CSS type names (``Vertical``, ``Screen``) from its first base only.
    """

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
