"""Setting a widget's border subtitle by repainting only its bottom line: :func:`set_border_subtitle`.

Textual's ``border_subtitle`` setter stores the new title and then calls ``refresh()`` with no
region, which repaints the whole widget: for a container, every line of it drawn again for its two
border columns and cut up by the compositor. A pane's "from history · <when>" marker changes with
every search reopened or stepped to, and that repaint of six panes took about 25 ms of CPU of its own
(measured headless at 200 x 50 against 3 ms for the bottom lines only). No Textual issue was found
about it, and Textual has no public way to set a border title without that repaint.

:func:`set_border_subtitle` stores the title where the setter does (``Widget._border_subtitle``,
converted as the setter converts it) and repaints the bottom line with the public
``Widget.refresh(region)``. Before relying on that storage it checks that the widget has it and that
the public getter reads back what was stored; otherwise it uses the public setter (the whole widget
repainted, as Textual does) and logs a warning once.
"""

from __future__ import annotations

import logging

from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget

from websearch_tui.core.internals import fall_back

log = logging.getLogger(__name__)

PATCH = "Repainting only the bottom border line for a new border subtitle"
STORAGE = "_border_subtitle"
"""Where Textual's ``border_subtitle`` setter stores the title (as a one-line ``Content``)."""


def set_border_subtitle(widget: Widget, text: str) -> None:
    """Show ``text`` (plain, never parsed as markup) as ``widget``'s border subtitle, repainting only
    the widget's bottom line (where the subtitle is drawn) once it has been laid out."""
    content = widget.render_str(Content(text)).expand_tabs(4).split()[0]  # as Textual's setter stores it
    if not isinstance(getattr(widget, STORAGE, False), (Content, type(None))):
        fall_back(log, PATCH, f"Widget keeps no {STORAGE}")
        widget.border_subtitle = content
        return
    setattr(widget, STORAGE, content)
    if widget.border_subtitle != content.markup:
        fall_back(log, PATCH, f"Widget.border_subtitle no longer reads {STORAGE}")
        widget.border_subtitle = content
        return
    widget.refresh(*_bottom_line(widget))


def _bottom_line(widget: Widget) -> tuple[Region, ...]:
    """The region of ``widget``'s bottom line, relative to its content as ``refresh`` takes regions
    (nothing, that is the whole widget, before it has been laid out)."""
    outer = widget.outer_size
    if not outer.height:
        return ()
    offset = widget.content_offset
    return (Region(-offset.x, outer.height - 1 - offset.y, outer.width, 1),)
