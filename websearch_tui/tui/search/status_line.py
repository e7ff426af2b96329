"""The one-line (wrapping) status of a provider pane: spinner, elapsed time and time limit, sources, a retry
or pacing wait or error; once the run has ended, what it cost, or where a reused (cached) result came from."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from websearch_tui.core.costs import CachedFrom, Cost
from websearch_tui.core.errors import ProviderError
from websearch_tui.core.records import record
from websearch_tui.core.results import ACTIVE_STATUSES, FINAL_STATUSES
from websearch_tui.tui.common.safe import clean

FLUSH_SECONDS = 0.1
"""How often the pane area's shared tick shows the panes' streamed answer text (parsed then) and their
status lines (seconds); the spinner moves a frame every second tick."""
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ACTIVE = frozenset(status.value for status in ACTIVE_STATUSES)
"""Pane statuses of a run in flight (as :class:`~websearch_tui.core.results.RunStatus` values)."""
FINAL = frozenset(status.value for status in FINAL_STATUSES)
"""Pane statuses of a run that has ended."""

MARKS = {"queued": "…", "done": "✓", "empty": "∅", "failed": "✗", "cancelled": "⊘", "skipped": "–"}
"""The one-character mark of each pane status that has one (a running run's mark is the spinner)."""
MARK_STYLES = {
    "done": "$text-success",
    "failed": "bold $text-error",
    "empty": "$text-warning",
    "cancelled": "$text-warning",
    "running": "$text-accent",
    "streaming": "$text-accent",
}
"""The style of a status mark (the status line's colour for that status)."""


def status_mark(status: str, frame: int = 0) -> str:
    """The mark the status line starts with for ``status`` ("" for ``idle``): the spinner's frame
    ``frame`` while the run is in flight, ✓ done, ✗ failed, ∅ empty, ⊘ cancelled, … queued."""
    if status in ("running", "streaming"):
        return SPINNER[frame % len(SPINNER)]
    return MARKS.get(status, "")


@record(frozen=True)  # made when a pane first shows its status: no pane is before the first frame
class PaneStatus:
    """What the status line shows.

    ``status`` is a :class:`~websearch_tui.engine.engine.RunStatus` value or ``"idle"`` /
    ``"skipped"`` (auto mode: the chain stopped before this provider); ``elapsed`` is seconds and
    ``limit`` the run's time limit in seconds (shown beside the elapsed time while it runs).
    ``retry_in`` (whole seconds left) and ``retry_reason`` (``"429"``, ``"timeout"``, ...) are set
    while a running provider waits to resend a request; ``paced_in`` (seconds left) while it waits for
    its pacing slot (``[providers.X] min_interval``) before it sends. ``cost`` is what an ended run cost (shown as
    :meth:`Cost.text <websearch_tui.core.costs.Cost.text>`: ``"≈ $0.004"``, ``"$0"``); ``cached`` says
    where a reused result came from (``"cached · 12 min ago"``) and is shown instead of the elapsed
    time, which means nothing for a result that was not fetched.
    """

    status: str = "idle"
    elapsed: float | None = None
    sources: int = 0
    error: ProviderError | None = None
    frame: int = 0
    retry_in: int | None = None
    retry_reason: str = ""
    limit: float | None = None
    cost: Cost | None = None
    cached: str = ""
    paced_in: float | None = None


def cached_text(cached: CachedFrom, *, live: bool) -> str:
    """How a pane says its result was reused: ``"cached · 12 min ago"`` in a search that just ran
    (``live``), ``"cached from 2026-01-07 14:20"`` (local time) in a search shown as it ended (reopened
    from the history, or back and forward), where "ago" would count from the wrong moment."""
    if live:
        return cached.text()
    return f"cached from {cached.created_at.astimezone():%Y-%m-%d %H:%M}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _cost_text(state: PaneStatus, *, paid_only: bool = False) -> str:
    """The ended run's cost as shown (``""`` when unknown to the pane, for a reused result, or with
    ``paid_only`` when it cost nothing)."""
    cost = state.cost
    if cost is None or state.cached or (paid_only and cost.usd <= 0):
        return ""
    return cost.text()


def render_status(state: PaneStatus) -> Content:
    """The status as plain :class:`Content` (error messages are provider text: sanitized)."""
    elapsed = f"{state.elapsed:.1f}s" if state.elapsed is not None else ""
    if state.cached and state.status in FINAL:
        elapsed = clean(state.cached, one_line=True, limit=60)  # instead of a time that means nothing here
    spin = SPINNER[state.frame % len(SPINNER)]
    status = state.status
    if status == "idle":
        return Content.styled("idle — waiting for a query", "dim")
    if status == "queued":
        return Content.styled("… queued", "dim")
    if status in ("running", "streaming"):
        word = "searching" if status == "running" else "streaming"
        waiting = state.retry_in is not None or state.paced_in is not None
        if state.retry_in is not None:
            word = f"retrying in {state.retry_in}s ({clean(state.retry_reason, one_line=True, limit=20)})"
        elif state.paced_in is not None:
            word = f"waiting {state.paced_in:.1f}s (paced)"
        limit = f" / {state.limit:g}s" if elapsed and state.limit else ""
        parts = [f"{spin} {word}", elapsed + limit]
        if state.sources:
            parts.append(_count(state.sources, "source"))
        return Content.styled(" · ".join(p for p in parts if p), "$text-warning" if waiting else "$text-accent")
    if status == "done":
        # reused: "✓ cached · 12 min ago · 3 sources", short enough for a narrow pane
        opening = [f"✓ {elapsed}"] if state.cached else ["✓ done", elapsed]
        parts = [*opening, _count(state.sources, "source"), _cost_text(state)]
        return Content.styled(" · ".join(p for p in parts if p), "$text-success")
    if status == "empty":
        return Content.styled(
            " · ".join(p for p in ("∅ empty", elapsed, "no renderable content", _cost_text(state)) if p),
            "$text-warning",
        )
    if status == "cancelled":
        return Content.styled(" · ".join(p for p in ("⊘ cancelled", elapsed, _cost_text(state)) if p), "$text-warning")
    if status == "skipped":
        return Content.styled("– not needed (auto mode stopped earlier)", "dim")
    if status == "failed":
        kind = state.error.kind.value if state.error else "error"
        message = clean(state.error.message) if state.error else "unknown error"
        paid = _cost_text(state, paid_only=True)
        head = Content.styled(f"✗ failed ({kind}){' · ' + paid if paid else ''}: ", "bold $text-error")
        return Content.assemble(head, Content(message))
    return Content(clean(status))


SEPARATOR = " · "
"""Between the parts of a status line ("✓ done · 1.2s · 3 sources · ≈ $0.004")."""


def fit_lines(content: Content, width: int) -> Content:
    """``content`` broken into lines of at most ``width`` cells at the :data:`SEPARATOR` between its
    parts, so a part ("3 sources", "≈ $0.004") stays whole; a part wider than ``width`` is left to
    Textual's own wrapping. ``content`` as it is when it fits or ``width`` is not known (0)."""
    if width <= 0 or content.cell_length <= width:
        return content
    lines: list[Content] = []
    line = Content("")
    for part in content.split(SEPARATOR, include_separator=True):
        if line.cell_length and (line + part).rstrip().cell_length > width:
            lines.append(line.rstrip())
            line = part
        else:
            line += part
    lines.append(line)
    return Content("\n").join(lines)


class StatusLine(Static):
    """Shows a :class:`PaneStatus`; never parses markup.

    While a run is in flight only the spinner and the numbers change, so those ticks repaint
    the line without a layout pass (a layout pass per tick per pane is what makes a busy
    screen lag). A line wider than the pane breaks between its parts (:func:`fit_lines`).
    """

    DEFAULT_CSS = """
    StatusLine { height: auto; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        self.state = PaneStatus()
        self._content = render_status(self.state)
        super().__init__(self._content, markup=False, id=id, classes=classes)

    @property
    def text(self) -> str:
        """The plain text currently shown."""
        return self._content.plain

    def show(self, state: PaneStatus) -> None:
        """Display ``state`` (skips the refresh when nothing visible changed)."""
        if state == self.state:
            return
        previous, self.state = self.state, state
        content = render_status(state)
        if content == self._content:
            return
        ticking = previous.status == state.status and state.status in ACTIVE
        self._content = content
        width = self.content_region.width if self.size.width else 0
        shown = fit_lines(content, width)
        lines = shown.split("\n")
        same_height = (
            bool(width) and len(lines) == self.size.height and all(line.cell_length <= width for line in lines)
        )
        self.update(shown, layout=not (ticking and same_height))

    def on_resize(self) -> None:
        """Break the line again for the new width (at the separators, see :func:`fit_lines`)."""
        shown = fit_lines(self._content, self.content_region.width)
        if shown != self.visual:
            self.update(shown)
