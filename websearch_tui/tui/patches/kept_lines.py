"""A line widget keeps the lines it drew when only its height changes: :class:`HeightFreeLines`.

When a layout gives a widget a new size, Textual's ``Widget._size_updated`` calls ``_set_dirty()``
with no region, which empties the widget's ``StylesCache``: every line on screen is then drawn again,
through the widget's ``render_line`` and the style pipeline (padding, colour filters). A streaming
answer grows by a step about once a second per pane and its pane scrolls by that step in the same
frame: with six answers streaming, drawing the answer's lines again was about a third of such a
frame's work (issue 28). No Textual issue was found about it.

A widget that draws nothing at its bottom edge (no bottom border, padding or outline) draws a line at
a given width the same whatever its height, so the lines it kept stay right. :class:`HeightFreeLines`
keeps them when a new size has the same width, and marks only the lines a greater height adds. A
change of width, a widget with a bottom edge, and every other ``refresh`` empty the cache as before.

Internals relied on (Textual 8.2): ``Widget._size_updated(size, virtual_size, container_size,
layout)`` calling ``Widget._set_dirty()`` (no region) when the size changes, and
``_set_dirty(*regions)`` marking only those regions (in content coordinates). They are checked once,
when this module is imported; when one is gone, the class overrides nothing (Textual's behaviour)
and a warning is logged.
"""

from __future__ import annotations

import inspect
import logging

from textual.geometry import Region, Size
from textual.widget import Widget

from websearch_tui.core.internals import fall_back

log = logging.getLogger(__name__)

PATCH = "Keeping a line widget's lines when only its height changes"
SIZE_UPDATED_PARAMETERS = ("size", "virtual_size", "container_size", "layout")


def kept_lines_problem() -> str:
    """What this patch relies on and does not find in Textual ("" when everything is there)."""
    size_updated = getattr(Widget, "_size_updated", None)
    set_dirty = getattr(Widget, "_set_dirty", None)
    if size_updated is None or set_dirty is None:
        return "Widget has no _size_updated or _set_dirty"
    if tuple(inspect.signature(size_updated).parameters)[1:] != SIZE_UPDATED_PARAMETERS:
        return "Widget._size_updated takes other parameters"
    if [p.kind for p in inspect.signature(set_dirty).parameters.values()][1:] != [inspect.Parameter.VAR_POSITIONAL]:
        return "Widget._set_dirty takes other parameters"
    return ""


def _supported() -> bool:
    """True when Textual has what the overrides rely on; otherwise a warning is logged once."""
    problem = kept_lines_problem()
    if problem:
        fall_back(log, PATCH, problem)
    return not problem


def grown_lines(widget: Widget, old: Size, new: Size) -> Region | None:
    """The lines (content coordinates) that ``widget`` must draw when its outer size goes from
    ``old`` to ``new`` while keeping the others, or None when it must draw every line again: the
    width changed, it was never drawn, or something is drawn at its bottom edge. An empty region
    when it only got shorter."""
    styles = widget.styles
    if not old or old.width != new.width or styles.padding.bottom:
        return None
    if styles.border.bottom[0] or styles.outline.bottom[0]:
        return None
    top = styles.gutter.top
    return Region(0, old.height - top, new.width - styles.gutter.width, max(0, new.height - old.height))


class HeightFreeLines(Widget):
    """A widget whose lines do not depend on its height: a new height keeps the lines drawn (see the
    module). Put it after the widget's Textual base (``class LineWidget(Base, HeightFreeLines)``)."""

    if _supported():
        _grown: Region | None = None
        """While a size is being set: the lines to draw (None: all of them)."""

        def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
            """Textual's, keeping the drawn lines when only the height changes."""
            self._grown = grown_lines(self, self.outer_size, size)
            try:
                return super()._size_updated(size, virtual_size, container_size, layout)
            finally:
                self._grown = None

        def _set_dirty(self, *regions: Region) -> None:
            """Textual's; for a new height (see :meth:`_size_updated`), only the lines it adds (the
            first call without regions only: a refresh asked for meanwhile still draws everything)."""
            grown, self._grown = self._grown, None
            if regions or grown is None:
                super()._set_dirty(*regions)
            elif grown:
                super()._set_dirty(grown)
