"""A screen compositor whose partial updates draw only the widgets under what changed.

Textual draws a frame's changes (its dirty regions) by rendering every widget that overlaps the
*rectangle around all of them*. Two small changes far apart, such as the echo of a key in the query
box at the top of the screen and a new line at the bottom of one pane, or new lines in two panes at
opposite ends, make that rectangle most of the screen, so every pane between them is drawn again
although none of their cells is written. While six answers stream, that turned a frame of a few
milliseconds into one of 50-150 ms several times a second.

:class:`SpanCompositor` keeps Textual's compositor and its output, and narrows only which widgets a
partial update renders: those that can show in a dirty region (see :func:`touched_widgets`). The
update writes only the cells of the dirty regions (and of the pieces of lines they fall in), and a
widget that overlaps none of them, or only regions that a widget in front of it contains whole,
cannot show in any of those cells, so the terminal shows the same (``tests/tui/test_compositor.py``
compares the cells written with those of Textual's update, on screens with layers and padding).

No Textual issue was found for this: Textual's ``Compositor.render_partial_update`` crops its
render to the union of the dirty regions (``Region.from_union``) and then renders every visible
widget overlapping that crop.

Internals relied on (Textual 8.2): the private module ``textual._compositor`` (its ``Compositor``
and ``ChopsUpdate``), a compositor's ``_dirty_regions`` and ``_visible_widgets`` (its cache of
``visible_widgets``, replaced for the duration of one update) and its ``cuts``, and the screen's
``_compositor``. :func:`use_span_compositor` checks them on the screen it is given; when one is
missing, the screen keeps Textual's compositor and a warning is logged once.
"""

from __future__ import annotations

import logging
from typing import Any

from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget

from websearch_tui.core.internals import fall_back, missing_attributes

log = logging.getLogger(__name__)

PATCH = "Drawing only the widgets under a frame's changes"
COMPOSITOR_ATTRIBUTES = ("_dirty_regions", "_visible_widgets", "visible_widgets", "cuts", "render_partial_update")

try:
    from textual._compositor import ChopsUpdate, Compositor
except ImportError:  # not in the Textual this is pinned to: see use_span_compositor()
    _MODULE_MISSING = "textual._compositor"
else:
    _MODULE_MISSING = ""

    class SpanCompositor(Compositor):
        """Textual's compositor; a partial update renders only the widgets that can show in a dirty region."""

        def render_partial_update(self) -> ChopsUpdate | None:
            """The update of the dirty regions (None if there are none), as Textual's, rendering only
            the widgets that can show in one of them."""
            regions = list(self._dirty_regions)
            if not regions:
                return None
            self.cuts  # noqa: B018 - the cuts of every visible widget, computed (and kept) before the narrowing
            everything = self.visible_widgets
            narrowed = self._visible_widgets = touched_widgets(everything, regions)
            try:
                return super().render_partial_update()
            finally:
                if self._visible_widgets is narrowed:  # not dropped meanwhile (a widget drawn asked for a new map)
                    self._visible_widgets = everything


def use_span_compositor(screen: Screen[Any]) -> bool:
    """Give ``screen`` (just constructed, not yet shown) a :class:`SpanCompositor` in place of
    Textual's; True if it has one now. False, with Textual's compositor kept and a warning logged
    once, when an internal this relies on is gone."""
    stock = getattr(screen, "_compositor", None)
    problem = _missing_internals(stock)
    if problem:
        fall_back(log, PATCH, problem)
        return False
    setattr(screen, "_compositor", SpanCompositor())  # noqa: B010 - the screen's private attribute
    return True


def _missing_internals(stock: object) -> str:
    """What this module needs and does not find ("" when everything is there), for a screen whose
    compositor is ``stock``."""
    if _MODULE_MISSING:
        return f"no {_MODULE_MISSING}"
    if type(stock) is not Compositor:
        return f"the screen's _compositor is a {type(stock).__name__}, not textual._compositor.Compositor"
    missing = missing_attributes(stock, COMPOSITOR_ATTRIBUTES)
    return f"Textual's Compositor has no {', '.join(missing)}" if missing else ""


def touched_widgets(
    widgets: dict[Widget, tuple[Region, Region]], regions: list[Region]
) -> dict[Widget, tuple[Region, Region]]:
    """The entries of ``widgets`` (widget -> ``(region, clip)``, frontmost first, as the compositor
    orders them) that can show in one of ``regions``, in the same order: those whose visible part
    overlaps a region that no widget in front of them contains whole.

    The compositor paints front to back and the first widget to fill a cell wins, so a region inside
    one widget (most are: a widget refreshed its lines) hides it from every widget behind that one:
    the containers behind a pane (as wide as the screen, each of their lines cut into a piece per
    widget edge on it) are then left out. Cost: widgets x regions overlap tests at most."""
    open_regions = list(regions)
    touched: dict[Widget, tuple[Region, Region]] = {}
    for widget, (region, clip) in widgets.items():
        if not open_regions:
            break
        shown = region.intersection(clip)
        if any(shown.overlaps(dirty) for dirty in open_regions):
            touched[widget] = (region, clip)
            open_regions = [dirty for dirty in open_regions if not shown.contains_region(dirty)]
    return touched
