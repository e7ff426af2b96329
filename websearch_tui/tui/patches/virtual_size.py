"""A widget whose virtual size changes ask for no layout: :class:`LayoutFreeVirtualSize`.

Textual declares ``Widget.virtual_size`` as ``Reactive(Size(0, 0), layout=True)``: each change of a
widget's virtual size (the size of what it can scroll through, which the layout itself sets) asks
for another layout of the screen and a repaint of the widget. For the widgets that mix this class
in, that layout changes nothing (their size on screen never depends on their virtual size), and it
cost a layout frame for each key echoed in an input and another layout and repaint each time a
pane's content grew. No Textual issue was found about it.

The mix-in declares ``virtual_size`` again, with ``layout=False, repaint=False``. It relies on
``Widget.virtual_size`` being a :class:`~textual.reactive.Reactive` that the layout sets by name
and on ``Reactive`` taking ``layout`` and ``repaint`` (checked once, when this module is
imported); otherwise the mix-in declares nothing, so the widgets keep Textual's reactive, and a
warning is logged.

A widget class puts it after its Textual base (``class Body(VerticalScroll, LayoutFreeVirtualSize)``),
or alone in place of ``Widget``: Textual takes a widget's CSS type names and default CSS from the
first base of each class only.
"""

from __future__ import annotations

import inspect
import logging

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget

from websearch_tui.core.internals import fall_back

log = logging.getLogger(__name__)

PATCH = "Virtual size changes without a layout"


def layout_free_virtual_size() -> Reactive[Size] | None:
    """A ``virtual_size`` reactive that asks for neither layout nor repaint, or None (a warning logged
    once) when Textual's ``Widget.virtual_size`` is not a reactive that one can replace."""
    if not isinstance(Widget.__dict__.get("virtual_size"), Reactive):
        fall_back(log, PATCH, "Widget.virtual_size is not a Reactive")
        return None
    if not {"layout", "repaint"} <= inspect.signature(Reactive).parameters.keys():
        fall_back(log, PATCH, "Reactive takes no layout and repaint flags")
        return None
    return Reactive(Size(0, 0), layout=False, repaint=False)


_VIRTUAL_SIZE = layout_free_virtual_size()


class LayoutFreeVirtualSize(Widget):
    """A widget whose ``virtual_size`` changes ask for no layout or repaint (see the module)."""

    if _VIRTUAL_SIZE is not None:
        virtual_size = _VIRTUAL_SIZE
