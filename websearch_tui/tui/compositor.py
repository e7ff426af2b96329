"""A screen compositor whose partial updates draw only the widgets under what changed.

Textual draws a frame's changes (its dirty regions) by rendering every widget that overlaps the
*rectangle around all of them*. Two small changes far apart, such as the echo of a key in the query
box at the top of the screen and a new line at the bottom of one pane, or new lines in two panes at
opposite ends, make that rectangle most of the screen, so every pane between them is drawn again
although none of their cells is written. While six answers stream, that turned a frame of a few
milliseconds into one of 50-150 ms several times a second.

:class:`SpanCompositor` keeps Textual's compositor and its output, and narrows only which widgets a
partial update renders: those that overlap at least one dirty region. The update writes only the
cells of the dirty regions, and a widget that overlaps none of them cannot show in any of those
cells, so what reaches the terminal is the same (``tests/tui/test_compositor.py`` compares it byte
for byte with Textual's on real screens).

It relies on three internals of Textual's ``Compositor`` (``_dirty_regions``, ``_visible_widgets``
and ``cuts``), checked by those tests against the installed Textual.
"""

from __future__ import annotations

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.widget import Widget


class SpanCompositor(Compositor):
    """Textual's compositor; a partial update renders only the widgets that overlap a dirty region."""

    def render_partial_update(self) -> ChopsUpdate | None:
        """The update of the dirty regions (None if there are none), as Textual's, rendering only
        the widgets that overlap at least one of them."""
        regions = list(self._dirty_regions)
        if len(regions) < 2:
            return super().render_partial_update()
        self.cuts  # noqa: B018 - the cuts of every visible widget, computed (and kept) before the narrowing
        everything = self.visible_widgets
        self._visible_widgets = touched_widgets(everything, regions)
        try:
            return super().render_partial_update()
        finally:
            self._visible_widgets = everything


def touched_widgets(
    widgets: dict[Widget, tuple[Region, Region]], regions: list[Region]
) -> dict[Widget, tuple[Region, Region]]:
    """The entries of ``widgets`` (widget -> ``(region, clip)``, in render order) whose visible part
    overlaps at least one of ``regions``, in the same order. Cost: widgets x regions overlap tests
    at worst (a few thousand in a busy frame)."""
    bounds = Region.from_union(regions)
    touched: dict[Widget, tuple[Region, Region]] = {}
    for widget, (region, clip) in widgets.items():
        shown = region.intersection(clip)
        if shown.overlaps(bounds) and any(shown.overlaps(dirty) for dirty in regions):
            touched[widget] = (region, clip)
    return touched
