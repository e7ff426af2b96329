"""The Stats screen's charts, drawn by plotext through textual-plotext's
:class:`~textual_plotext.PlotextPlot` (a maintained widget; nothing drawn by hand).

Each ``draw_*`` function clears the plot it is given, draws one figure of a
:class:`~websearch_tui.history.stats.StatsReport` and returns its :class:`Figure` (title and legend),
which the screen writes above the plot: plotext's own title and legend would cover bars on a short
terminal. Provider labels are plain single lines (the plot's output is read back as ANSI text, so a
label may carry no escape sequence) cut to :data:`LABEL_CELLS` characters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

from websearch_tui.core.costs import format_usd
from websearch_tui.core.text import truncate
from websearch_tui.formats.stats import label_of
from websearch_tui.history.stats import COUNTED_STATUSES, DayStats, ProviderStats, StatsReport

if TYPE_CHECKING:  # the screen imports it when it builds its plots (plotext takes ~35 ms to import)
    from textual_plotext import PlotextPlot

Rgb = tuple[int, int, int]
"""A colour as plotext and Rich both take it."""

LABEL_CELLS = 14
"""The most characters of a provider label on a chart's axis."""

CHARTS = ("latency", "outcomes", "latency-days")
"""The left chart's figures, in the order ``c`` steps through them: latency p50 / p95 per provider,
the share of each outcome per provider, each provider's daily median latency over the period."""

P50: Rgb = (64, 196, 224)
P95: Rgb = (72, 104, 200)
OUTCOME_COLORS: tuple[Rgb, ...] = ((84, 184, 84), (224, 164, 48), (216, 64, 64), (136, 136, 136))
"""Done, empty, failed, cancelled: the colours of :data:`~websearch_tui.history.stats.COUNTED_STATUSES`."""
LINE_COLORS: tuple[Rgb, ...] = (
    (64, 196, 224),
    (224, 164, 48),
    (84, 184, 84),
    (216, 96, 200),
    (216, 64, 64),
    (200, 200, 80),
)
"""The colours of the providers' lines over time, busiest first."""
SPEND: Rgb = (216, 96, 200)

DAY_TICKS = 4
"""The most dates on a time axis (``MM-DD`` each; more would run into each other on 80 columns)."""

LINE_MARKER = "hd"
"""plotext's marker for lines: quadrant blocks (2x2 dots a cell; in every monospace font), not braille
(2x4, but many fonts draw it from a wider fallback, which breaks a line's columns)."""

BAR_WIDTH = 0.6
"""A horizontal bar's thickness, as a share of its row (the gap between providers is the rest)."""


@dataclass(frozen=True)
class Figure:
    """What a drawn chart shows: its ``title`` and its ``legend`` (``(name, colour)`` per series)."""

    title: str
    legend: tuple[tuple[str, Rgb], ...] = ()

    def text(self) -> Text:
        """The title, then a swatch of its colour (one coloured cell) and the name of each series:
        ``"Latency (s) █ p50 █ p95"`` (plain text: a provider label is never markup)."""
        text = Text(self.title, style="bold")
        for name, (red, green, blue) in self.legend:
            text.append(" ")
            text.append(" ", style=Style(bgcolor=f"rgb({red},{green},{blue})"))
            text.append(f" {name}")
        return text


def short_label(stats: ProviderStats) -> str:
    """The provider's label for an axis: plain, one line, at most :data:`LABEL_CELLS` characters."""
    return truncate(label_of(stats), LABEL_CELLS)


def draw_left(plot: PlotextPlot, chart: str, report: StatsReport, days: Sequence[DayStats]) -> Figure:
    """Draw ``chart`` (one of :data:`CHARTS`) of ``report`` on ``plot``; ``days`` are the period's
    days, zeros filled (:func:`~websearch_tui.formats.stats.filled_days`)."""
    plot.plt.clear_figure()
    if chart == "latency":
        figure = _latency_bars(plot, report)
    elif chart == "outcomes":
        figure = _outcome_bars(plot, report)
    else:
        figure = _latency_lines(plot, report, days)
    plot.refresh()
    return figure


def _latency_bars(plot: PlotextPlot, report: StatsReport) -> Figure:
    """For each provider with a request sent, one horizontal bar of its p95 with its p50 drawn over it
    (one row per provider, so a short terminal shows them all), in seconds; the busiest on top."""
    timed = [stats for stats in report.providers if stats.latency_p50_ms is not None][::-1]
    labels = [short_label(stats) for stats in timed]
    for values, color in (
        ([(stats.latency_p95_ms or 0) / 1000 for stats in timed], P95),
        ([(stats.latency_p50_ms or 0) / 1000 for stats in timed], P50),
    ):
        if timed:
            plot.plt.bar(labels, values, color=color, orientation="horizontal", width=BAR_WIDTH)
    return Figure("Latency (s)", (("p50", P50), ("p95", P95)))


def _outcome_bars(plot: PlotextPlot, report: StatsReport) -> Figure:
    """Done, empty, failed and cancelled shares (%) stacked for each provider, horizontal, the busiest
    on top."""
    counted = [stats for stats in report.providers if stats.searches][::-1]
    if counted:
        labels = [short_label(stats) for stats in counted]
        shares = [[100 * (stats.rate(status) or 0.0) for stats in counted] for status in COUNTED_STATUSES]
        # untyped: textual-plotext's stub gives stacked_bar plotext 4's single colour, where plotext 5
        # (which it requires) takes a colour per series
        stacked: Callable[..., None] = plot.plt.stacked_bar
        stacked(labels, shares, color=list(OUTCOME_COLORS), orientation="horizontal", width=BAR_WIDTH)
        plot.plt.xlim(0, 100)
    names = [status.value for status in COUNTED_STATUSES]
    return Figure("Outcomes (%)", tuple(zip(names, OUTCOME_COLORS, strict=True)))


def _latency_lines(plot: PlotextPlot, report: StatsReport, days: Sequence[DayStats]) -> Figure:
    """One line per provider (the busiest, one per colour of :data:`LINE_COLORS`): its median latency
    (s) on each day it ran."""
    legend = []
    for stats, color in zip(report.providers, LINE_COLORS, strict=False):
        points = [
            (index, day.latency_p50_ms[stats.provider] / 1000)
            for index, day in enumerate(days)
            if stats.provider in day.latency_p50_ms
        ]
        if points:
            xs, ys = zip(*points, strict=True)
            plot.plt.plot(list(xs), list(ys), color=color, marker=LINE_MARKER)
            legend.append((short_label(stats), color))
    _day_ticks(plot, days)
    return Figure("Latency p50 per day (s)", tuple(legend))


def draw_spend(plot: PlotextPlot, report: StatsReport, days: Sequence[DayStats]) -> Figure:
    """Spend per day (US dollars) over ``days`` as a line; the period's total in the title."""
    plt = plot.plt
    plt.clear_figure()
    if days:
        plt.plot(list(range(len(days))), [day.spend_usd for day in days], marker=LINE_MARKER, color=SPEND)
        _day_ticks(plot, days)
        if not any(day.spend_usd for day in days):
            plt.ylim(0, 1)  # a flat line at $0 (keyless and cached runs), not an axis around nothing
    plot.refresh()
    return Figure(f"Spend per day ($) · total {format_usd(report.spend_usd)}")


def _day_ticks(plot: PlotextPlot, days: Sequence[DayStats]) -> None:
    """At most :data:`DAY_TICKS` x-axis ticks, evenly spaced, each the day's ``MM-DD`` (the first and
    the last day among them)."""
    if not days:
        return
    last = len(days) - 1
    ticks = sorted({round(step * last / (DAY_TICKS - 1)) for step in range(DAY_TICKS)})
    labels = [date.fromisoformat(days[index].day).strftime("%m-%d") for index in ticks]
    plot.plt.xticks([float(tick) for tick in ticks], labels)
