"""Scrollbars drawn as lines, without Rich's renderer: :class:`LineScrollBarRender`.

Textual draws a scrollbar by handing a Rich renderable (``ScrollBarRender``) to Rich's console,
which cuts its segments into lines, and then runs every line through the widget's style pipeline.
A pane's scrollbar is drawn again whenever the answer in it grows by a step, about once a second per
streaming pane, and that cost as much as drawing the answer's new lines (issue 28).
:class:`LineScrollBarRender` computes the same segments (Textual's ``ScrollBarRender.render_bar``)
and makes the lines itself, one :class:`~textual.strip.Strip` shared by all the lines that look
the same, so the style pipeline's per-strip caches serve the rest of the track.

It is used through Textual's documented hook, ``ScrollBar.renderer`` (:func:`use_line_scrollbars`).
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.css.styles import RulesMap
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

DEFAULT_BACK = Color.parse("#555555")
DEFAULT_BAR = Color.parse("bright_magenta")
"""Textual's colours for a scrollbar style that gives none."""


class LineScrollBarRender(ScrollBarRender, Visual):
    """A scrollbar (Textual's ``ScrollBarRender``: the same arguments and the same cells) that is a
    Textual :class:`~textual.visual.Visual`, so it is drawn into strips without Rich's console."""

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        """The scrollbar's ``height`` lines of ``width`` cells (a vertical bar is ``width`` thick), on
        the widget's ``style`` as Rich would put them on it."""
        lines = height or 0
        if not (width and lines):
            return []  # nothing to draw (Textual draws a line it is not given blank)
        vertical = self.vertical
        bar_style = self.style if isinstance(self.style, RichStyle) else RichStyle.parse(self.style)
        segments = self.render_bar(
            size=lines if vertical else width,
            window_size=self.window_size,
            virtual_size=self.virtual_size,
            position=self.position,
            vertical=vertical,
            thickness=width if vertical else lines,
            back_color=bar_style.bgcolor or DEFAULT_BACK,
            bar_color=bar_style.color or DEFAULT_BAR,
        ).segments
        base = style.rich_style
        shared: dict[Segment, Strip] = {}
        if vertical:
            return [_strip(shared, [segment], base) for segment in segments[:lines]]
        row = [segment for segment in segments if segment.text != "\n"][:width]
        return [_strip(shared, row, base)] * lines

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        """A scrollbar takes the width it is given."""
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        """A scrollbar's height is the one it is given; 1 when asked to size itself."""
        return 1


def _strip(shared: dict[Segment, Strip], segments: list[Segment], base: RichStyle) -> Strip:
    """``segments`` on ``base`` as one strip, the same object as an earlier line with the same first
    segment (``shared``). Only for lines that the first segment tells apart: a vertical bar's lines
    (one segment each) or a horizontal bar's one row."""
    key = segments[0]
    strip = shared.get(key)
    if strip is None:
        styled = [Segment(text, base + segment_style if segment_style else base) for text, segment_style, _ in segments]
        strip = shared[key] = Strip(styled)
    return strip


def use_line_scrollbars() -> None:
    """Draw every scrollbar with :class:`LineScrollBarRender` from now on, in every app of this process
    (Textual's documented ``ScrollBar.renderer`` hook is a class attribute; the bars look the same)."""
    ScrollBar.renderer = LineScrollBarRender
