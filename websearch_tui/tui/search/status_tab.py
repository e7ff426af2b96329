"""A pane's tab in the tab bar (:class:`StatusTab`). Imported when the tabs are first made
(:meth:`~websearch_tui.tui.search.pane_tabs.PaneTabs.ensure`), not for the first frame: it brings in
Textual's ``Tabs``, which the first frame does not show."""

from __future__ import annotations

from textual.content import Content, ContentText
from textual.widgets import Static, Tab


class StatusTab(Tab):
    """A pane's tab. A new label as wide as the one shown (the spinner's next frame, a mark for another
    status) redraws this tab alone: Textual's ``Tab`` lays the whole screen out again for every new
    label, which in tabs mode with 24 running panes was most of the frames while they streamed."""

    @property
    def label(self) -> Content:
        """The label shown (kept here, not in Tab's private ``_label``, which this class never sets)."""
        return self._shown

    @label.setter
    def label(self, label: ContentText) -> None:
        new = Content.from_text(label)
        shown: Content | None = getattr(self, "_shown", None)  # None while Tab.__init__ sets the first
        self._shown = new
        if shown is not None and new.cell_length == shown.cell_length:
            Static.update(self, new, layout=False)  # same width: nothing moves (no Relabelled either)
        else:
            self.update(new)  # Tab's own: the bar is laid out and its underline follows
