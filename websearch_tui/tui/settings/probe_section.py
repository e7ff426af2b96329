"""The Test action of a provider form: :class:`ProbeSection`, the Test button and its result line.

A Test runs one small search (:meth:`Engine.probe <websearch_tui.engine.engine.Engine.probe>`,
query :data:`TEST_QUERY`, one result) in a worker of this section. One Test runs per provider: a
new one cancels the one still running, and so does :meth:`ProbeSection.cancel` (the screen calls it
when the form is left or on Escape); only the newest Test may show its progress and result, so a
cancelled run never shows. While the engine waits to retry, the line counts the seconds down.

A failed Test says what went wrong in the words of ``websearch-tui doctor``: the shared
classification (:func:`websearch_tui.engine.doctor.classify_outcome`) gives its class and next step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Button, Static
from textual.worker import Worker, get_current_worker

from websearch_tui.core.results import OnUpdate, ProviderOutcome, ProviderUpdate, RunStatus
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.engine.doctor import classify_outcome
from websearch_tui.engine.engine import PROBE_QUERY
from websearch_tui.tui.common.safe import clean, plain
from websearch_tui.tui.common.workers import ReportsFailedWorkers

TEST_QUERY = PROBE_QUERY
"""The query the Test action sends (the engine's probe query)."""

TEST_HINT = f"Sends one search for “{TEST_QUERY}” (1 result) with the settings above, saved or not."

RunProbe = Callable[[OnUpdate], Awaitable[ProviderOutcome]]
"""``run(on_update) -> outcome``: one Test of the form's provider with its pending settings and
typed keys; ``on_update`` receives the engine's updates on the event loop."""


def describe_outcome(outcome: ProviderOutcome) -> tuple[str, bool]:
    """``("OK 0.42 s · 3 sources", True)``, or the failure: ``"Failed (auth): <message>"`` and, on a
    second line, its class and next step as ``doctor`` words them (``"Key rejected: Check the key:
    websearch-tui keys set brave."``, :func:`~websearch_tui.engine.doctor.classify_outcome`), with ``False``."""
    seconds = outcome.elapsed_ms / 1000
    if outcome.status is RunStatus.DONE:
        count = len(outcome.response.sources)
        return f"OK {seconds:.2f} s · {count} source{'s' if count != 1 else ''}", True
    diagnosis = classify_outcome(outcome)
    if outcome.error is not None:
        text = f"Failed ({outcome.error.kind.value}): {outcome.error.message}"
    else:
        text = f"Reached in {seconds:.2f} s, but no results for “{TEST_QUERY}”."
    if diagnosis.hint:
        text += f"\n{diagnosis.label[:1].upper()}{diagnosis.label[1:]}: {diagnosis.hint}"
    return text, False


class ProbeSection(Horizontal, ReportsFailedWorkers):
    """The Test button and the line that shows the Test's hint, progress or outcome.

    Args:
        spec: the provider.
        run_probe: runs one Test (:data:`RunProbe`).
    """

    DEFAULT_CSS = """
    ProbeSection .test-result { height: auto; padding: 0 0 0 1; width: 1fr; }
    ProbeSection .test-result.-ok { color: $text-success; }
    ProbeSection .test-result.-failed { color: $text-error; }
    """

    def __init__(self, spec: ProviderSpec, run_probe: RunProbe) -> None:
        super().__init__(classes="form-actions")
        self.spec = spec
        self._run_probe = run_probe
        self._worker: Worker[None] | None = None
        self._retry_timer: Timer | None = None
        self._retry: tuple[float, str] = (0.0, "")

    def compose(self) -> ComposeResult:
        """The Test button and the result line (the hint until the first Test)."""
        yield Button("Test", id=f"test-{self.spec.id}", classes="test-button", compact=True)
        yield Static(plain(TEST_HINT), classes="test-result")

    @on(Button.Pressed, ".test-button")
    def _on_test(self, event: Button.Pressed) -> None:
        event.stop()
        self.start()

    def start(self) -> None:
        """Start a Test; one still running is cancelled and never shows its result."""
        self.show_searching()
        self._worker = self.run_worker(
            self._run(), group="settings-test", exclusive=True, exit_on_error=False, description="provider test"
        )

    async def _run(self) -> None:
        """Run one Test; only while it is the newest does it show its progress and outcome."""
        worker = get_current_worker()

        def on_update(update: ProviderUpdate) -> None:
            if self._worker is not worker:
                return
            if update.retry is not None:
                self.show_retry(update.retry.delay, update.retry.reason)
            elif update.event is None and update.status in (RunStatus.RUNNING, RunStatus.STREAMING):
                self.show_searching()

        outcome = await self._run_probe(on_update)
        if self._worker is worker:
            self._worker = None
            text, ok = describe_outcome(outcome)
            self.show_test(text, ok=ok)

    def cancel(self) -> bool:
        """Cancel the running Test (the line says "Test cancelled."); True if one ran."""
        worker, self._worker = self._worker, None
        if worker is None or worker.is_finished:
            return False
        worker.cancel()
        self.show_test("Test cancelled.", ok=None)
        return True

    def show_test(self, text: str, *, ok: bool | None) -> None:
        """The Test outcome or state (``ok`` None: neither passed nor failed, e.g. in progress)."""
        self._stop_countdown()
        result = self.query_one(".test-result", Static)
        result.set_class(ok is True, "-ok")
        result.set_class(ok is False, "-failed")
        result.update(plain(text))

    def show_searching(self) -> None:
        """The Test search is on its way (again, after a retry wait)."""
        self.show_test(f"Searching “{TEST_QUERY}”…", ok=None)

    def show_retry(self, delay: float, reason: str) -> None:
        """The Test search waits ``delay`` seconds before resending (``reason``: ``"429"``, ``"timeout"``).

        Shows ``Searching “test”… retrying in 3s (429)…``, counting down each second until the next
        :meth:`show_test` or :meth:`show_searching`.
        """
        self.show_searching()
        self._retry = (time.monotonic() + delay, reason)
        self._show_countdown()
        self._retry_timer = self.set_interval(1.0, self._show_countdown)

    def _show_countdown(self) -> None:
        until, reason = self._retry
        left = max(math.ceil(until - time.monotonic()), 0)
        text = f"Searching “{TEST_QUERY}”… retrying in {left}s ({clean(reason, one_line=True, limit=20)})…"
        self.query_one(".test-result", Static).update(plain(text))

    def _stop_countdown(self) -> None:
        if self._retry_timer is not None:
            self._retry_timer.stop()
            self._retry_timer = None
