"""The Stats screen (F6, palette "Statistics"): what the history says about each provider, over a
period chosen at the top (7, 30 or 90 days, or all) and for every provider or one.

The figures are those of ``websearch-tui stats`` (:mod:`websearch_tui.formats.stats` makes the
cells of both): a summary line, searches per day as a sparkline (Textual's ``Sparkline``), the
per-provider table (``DataTable``), and two charts (textual-plotext, :mod:`.charts`): on the left
latency p50 / p95, outcome shares or latency per day (``c`` steps through them), on the right spend
per day. The report is read in a thread worker (:meth:`HistoryAccess.stats
<websearch_tui.session.HistoryAccess.stats>`, which may read a large history); until it arrives the
screen says "Loading…". No history, an empty period or an unreadable file is said in place of the
figures. Escape closes the screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Select, Sparkline, Static

from websearch_tui.formats.stats import (
    PROVIDER_COLUMNS,
    backfill_text,
    empty_text,
    filled_days,
    parse_since,
    provider_cells,
    summary_text,
)
from websearch_tui.history import HistoryError
from websearch_tui.history.stats import DayStats, StatsReport
from websearch_tui.session import HistoryAccess
from websearch_tui.tui.common.keys_footer import KeysFooter
from websearch_tui.tui.common.screen import AppScreen
from websearch_tui.tui.stats.charts import CHARTS, draw_left, draw_spend, short_label

if TYPE_CHECKING:
    from textual_plotext import PlotextPlot

PERIODS = (("7d", "Last 7 days"), ("30d", "Last 30 days"), ("90d", "Last 90 days"), ("all", "All time"))
"""The period selector's choices: ``(--since text, label)``."""
DEFAULT_PERIOD = "30d"
ALL_PROVIDERS = ""
"""The provider selector's value for every provider."""


def utc_now() -> datetime:
    """The current time, UTC (the screen's clock unless it is given one)."""
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class Loaded:
    """What one load found: the ``report``, whether the history file ``exists``, and the history's
    ``notice`` (a damaged file moved aside), if any."""

    report: StatsReport
    exists: bool
    notice: str | None


class StatsScreen(AppScreen[None]):
    """The statistics of the history, as a table and charts.

    Args:
        history: the history to read (:meth:`~websearch_tui.session.HistoryAccess.stats`, always
            called in a thread).
        now: the current time, timezone-aware (the start of "Last 7 days" and of the charts' days);
            default: :func:`utc_now`.
    """

    NAME = "stats"
    """The name the app installs the screen under (built once, kept for the next opening)."""

    BINDINGS = [
        Binding("escape", "close", "Back", id="stats-close", tooltip="Back to where you were"),
        Binding("c", "next_chart", "Chart", id="stats-chart", tooltip="Latency, outcomes or latency per day"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="stats-reload", tooltip="Read the history again"),
    ]

    DEFAULT_CSS = """
    StatsScreen { layout: vertical; }
    StatsScreen #stats-bar { height: 1; }
    StatsScreen #stats-title { width: auto; padding: 0 1; text-style: bold; }
    StatsScreen #stats-bar Select { width: 24; margin-right: 1; }
    StatsScreen #stats-summary { height: 1; padding: 0 1; color: $text-muted; }
    StatsScreen #stats-trend { height: 1; }
    StatsScreen #stats-trend-label { width: auto; padding: 0 1; color: $text-muted; }
    StatsScreen #stats-searches { width: 1fr; height: 1; margin-right: 1; }
    StatsScreen #stats-table { height: auto; max-height: 40%; }
    StatsScreen #stats-charts { height: 1fr; min-height: 7; }
    StatsScreen .chart-title { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    StatsScreen #stats-empty { height: 1fr; padding: 1 2; }
    StatsScreen .stats-figures, StatsScreen #stats-charts, StatsScreen #stats-empty { display: none; }
    """

    def __init__(self, history: HistoryAccess, *, now: Callable[[], datetime] | None = None) -> None:
        super().__init__()
        self._history = history
        self._now = now
        self._period = DEFAULT_PERIOD
        self._provider = ALL_PROVIDERS
        self._chart = CHARTS[0]
        self.report: StatsReport | None = None
        """The report on screen (``None`` until the first load ends)."""
        self._days: list[DayStats] = []
        self._reload = True
        self.pending = True
        """True from the opening (or a choice) until its report is on screen (or said unreadable)."""
        self._plots: tuple[PlotextPlot, ...] = ()
        """The left chart's plot and the spend plot (made by :meth:`compose`)."""

    def compose(self) -> ComposeResult:
        """Title and selectors, summary, searches per day, the table, the charts, the empty state, the footer."""
        with Horizontal(id="stats-bar"):
            yield Static("Statistics", id="stats-title", markup=False)
            yield Select(
                [(label, key) for key, label in PERIODS],
                value=DEFAULT_PERIOD,
                allow_blank=False,
                compact=True,
                id="stats-period",
            )
            yield Select(
                [("All providers", ALL_PROVIDERS)],
                value=ALL_PROVIDERS,
                allow_blank=False,
                compact=True,
                id="stats-provider",
            )
        yield Static("Loading…", id="stats-summary", markup=False)
        with Horizontal(id="stats-trend", classes="stats-figures"):
            yield Static("Searches per day", id="stats-trend-label", markup=False)
            yield Sparkline([], id="stats-searches")
        yield DataTable(id="stats-table", classes="stats-figures", cursor_type="row", zebra_stripes=True)
        from textual_plotext import PlotextPlot  # here, not when the app lists its bindings

        self._plots = (PlotextPlot(id="stats-left"), PlotextPlot(id="stats-spend"))
        with Horizontal(id="stats-charts"):
            for plot in self._plots:
                with Vertical():
                    yield Static("", id=f"{plot.id}-title", classes="chart-title", markup=False)
                    yield plot
        yield Static("", id="stats-empty", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        """Set the table's columns and focus it."""
        table = self.query_one("#stats-table", DataTable)
        for column in PROVIDER_COLUMNS:
            table.add_column(
                Text(column.short_header, justify="right" if column.numeric else "left"), key=column.header
            )
        table.focus()

    def reload_when_shown(self) -> None:
        """Read the history again the next time the screen comes to the front (the app's F6: the
        figures shown until then are those of the last opening)."""
        self._reload = self.pending = True

    def on_screen_resume(self) -> None:
        """Load the report when the screen is opened (not when a dialog over it, such as the
        palette, closes)."""
        if self._reload:
            self._reload = False
            self._load()

    # --- loading ----------------------------------------------------------------------------

    def action_reload(self) -> None:
        """Read the history again (Ctrl+R)."""
        self._load()

    @work(exclusive=True, group="stats-load", exit_on_error=False, description="statistics")
    async def _load(self) -> None:
        """Read the report of the chosen period and provider off the event loop, then show it."""
        since = parse_since(self._period, self._clock())
        provider = self._provider or None
        self.pending = True
        self._summary("Loading…")
        try:
            loaded = await asyncio.to_thread(self._read, since, provider)
        except HistoryError as exc:
            self._show_empty(str(exc))
            self._summary("The history cannot be read.")
        else:
            if loaded.notice:
                self.notify(loaded.notice, title="History", severity="warning", markup=False, timeout=10)
            self._show(loaded)
        self.pending = False

    def _read(self, since: datetime | None, provider: str | None) -> Loaded:
        """Blocking: the report, whether the file exists, the history's notice."""
        report = self._history.stats(since, provider, progress=self._counting)
        return Loaded(report, self._history.path.exists(), self._history.take_notice())

    def _counting(self, left: int) -> None:
        """From the loading thread: say how many older searches are still being counted in."""
        self.app.call_from_thread(self._summary, backfill_text(left))

    # --- showing ------------------------------------------------------------------------------

    def _summary(self, text: str) -> None:
        self.query_one("#stats-summary", Static).update(text)

    def _show(self, loaded: Loaded) -> None:
        """Put ``loaded``'s figures on screen, or say why there are none."""
        report = self.report = loaded.report
        if not report.provider:
            self._offer_providers(report)
        if not loaded.exists:
            path = self._history.path
            self._show_empty(
                f"No history yet: {path} does not exist.\nEvery search you run is recorded there and counted here."
            )
            self._summary("No searches recorded yet.")
            return
        if not report.searches:
            hint = "" if report.since is None else "\nChoose a longer period above to see earlier searches."
            self._show_empty(empty_text(report) + hint)
            self._summary(empty_text(report))
            return
        self._reveal(figures=True)
        self._summary(summary_text(report))
        self._days = filled_days(report, self._today())
        self.query_one("#stats-searches", Sparkline).data = [float(day.searches) for day in self._days]
        busiest = max((day.searches for day in self._days), default=0)
        self.query_one("#stats-trend-label", Static).update(f"Searches per day (most {busiest:,})")
        self._fill_table(report)
        self.call_after_refresh(self._draw)  # the table first: the charts take longer to draw

    def _clock(self) -> datetime:
        return self._now() if self._now is not None else utc_now()

    def _today(self) -> date:
        return self._clock().astimezone().date()

    def _show_empty(self, text: str) -> None:
        self._reveal(figures=False)
        self.query_one("#stats-empty", Static).update(text)

    def _reveal(self, *, figures: bool) -> None:
        """Show the figures (``.stats-figures``: hidden until the first report is in, so nothing is
        drawn and no chart built for an empty screen) or the empty state in their place. Each widget's
        ``display`` is set, not a class of the screen: that would match the CSS of every widget again."""
        for widget in self.query(".stats-figures"):
            widget.display = figures
        self.query_one("#stats-empty").display = not figures
        if not figures:
            self.query_one("#stats-charts").display = False

    def _fill_table(self, report: StatsReport) -> None:
        """One row per provider, the cells of ``websearch-tui stats`` (plain text, never markup)."""
        table = self.query_one("#stats-table", DataTable)
        table.clear()
        for stats in report.providers:
            cells = provider_cells(stats)
            row = [
                Text(cell, justify="right" if column.numeric else "left")
                for cell, column in zip(cells, PROVIDER_COLUMNS, strict=True)
            ]
            table.add_row(*row, key=stats.provider)

    def _draw(self) -> None:
        """Draw both charts of the report on screen (and show them: hidden until first drawn)."""
        if self.report is None or not self.report.searches:
            return
        self.query_one("#stats-charts").display = True
        left, spend = self._plots
        figures = (draw_left(left, self._chart, self.report, self._days), draw_spend(spend, self.report, self._days))
        for plot, figure in zip(self._plots, figures, strict=True):
            self.query_one(f"#{plot.id}-title", Static).update(figure.text())

    def _offer_providers(self, report: StatsReport) -> None:
        """The provider selector's choices: every provider of an unfiltered ``report`` (labels as text)."""
        select: Select[str] = self.query_one("#stats-provider", Select)
        options = [(Text("All providers"), ALL_PROVIDERS)]
        options += [(Text(short_label(stats)), stats.provider) for stats in report.providers]
        with select.prevent(Select.Changed):
            select.set_options(options)
            select.value = ALL_PROVIDERS

    # --- the user's choices ----------------------------------------------------------------------

    @on(Select.Changed, "#stats-period")
    def _on_period(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str) and event.value != self._period:
            self._period = event.value
            self._load()

    @on(Select.Changed, "#stats-provider")
    def _on_provider(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str) and event.value != self._provider:
            self._provider = event.value
            self._load()

    def action_next_chart(self) -> None:
        """Step the left chart through latency, outcomes and latency per day (``c``)."""
        self._chart = CHARTS[(CHARTS.index(self._chart) + 1) % len(CHARTS)]
        self._draw()

    def action_close(self) -> None:
        """Back to the screen below (Escape)."""
        self.dismiss(None)
