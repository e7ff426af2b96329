"""What the pane's Line API widgets share (the answer and the lists of sources, citations and related
questions): a leaf widget that draws its own lines (``render_line``), is laid out only by its
parent's layout, and shows the screen's text selection on the lines it draws."""

from __future__ import annotations

from collections.abc import Iterable

from rich.segment import Segment
from textual.content import Content
from textual.geometry import Region
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style

from websearch_tui.tui.common.safe import terminal_text
from websearch_tui.tui.patches.kept_lines import HeightFreeLines
from websearch_tui.tui.patches.virtual_size import LayoutFreeVirtualSize


def draw_line(content: Content | None, width: int, y: int, style: Style) -> Strip:
    """``content`` (None: nothing) drawn on ``style`` as line ``y`` of a widget ``width`` cells wide,
    padded to the width and cut at it, as one strip whose segments carry their offset for Textual's
    text selection (the text's styles given as strings, such as ``bold $accent``, are the running
    app's). Characters terminals draw at another width than Rich measures are written as
    :func:`~websearch_tui.tui.common.safe.terminal_text` says, so the line is as wide on the screen as
    Rich measured it."""
    segments = []
    x = 0
    if content is not None:
        for text, part in content.render(style, ""):
            segments.append(Segment(terminal_text(text), part.rich_style_with_offset(x, y)))
            x += len(text)
    cells = content.cell_length if content is not None else 0
    if cells < width:
        segments.append(Segment(" " * (width - cells), style.rich_style_with_offset(x, y)))
    strip = Strip(segments, max(cells, width))
    return strip.crop(0, width) if cells > width else strip


class LineWidget(LayoutFreeVirtualSize, HeightFreeLines):
    """A leaf widget drawn line by line; subclasses give :meth:`plain_lines` (the text of every line,
    for copying a selection) and call :meth:`with_selection` on each line they draw.

    Its virtual size asks for no second layout (:class:`LayoutFreeVirtualSize`): a leaf widget's
    virtual size is the size the layout just gave it. A new height keeps the lines it drew
    (:class:`HeightFreeLines`): what it draws on a line depends on the width only."""

    _drawing: tuple[int, Selection | None] | None = None
    """While :meth:`render_lines` runs: the width and the text selection the lines are drawn with."""

    def plain_lines(self) -> Iterable[str]:
        """The text of every line as drawn, top to bottom (each subclass says what it draws)."""
        raise NotImplementedError

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual's, with the width and the text selection looked up once for all the lines drawn
        (each lookup walks up to the screen: about as long as drawing a short line again)."""
        self._drawing = (self.size.width, self.text_selection)
        try:
            return super().render_lines(crop)
        finally:
            self._drawing = None

    @property
    def line_width(self) -> int:
        """The width (cells) lines are drawn at: the width of the content area."""
        drawing = self._drawing
        return self.size.width if drawing is None else drawing[0]

    def with_selection(self, strip: Strip, y: int) -> Strip:
        """``strip``, drawn as line ``y``, with the part of it that is selected shown as selected."""
        drawing = self._drawing
        selection = self.text_selection if drawing is None else drawing[1]
        if selection is None or (span := selection.get_span(y)) is None:
            return strip
        start, end = span
        end = strip.cell_length if end == -1 else end
        left, middle, right = strip.divide([start, end, strip.cell_length])
        selected = self.screen.get_component_rich_style("screen--selection")
        return Strip.join([left, middle.apply_style(selected), right])

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, as shown (one line per drawn line, trailing spaces dropped)."""
        text = "\n".join(line.rstrip() for line in self.plain_lines())
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        """Show the new selection."""
        self.refresh()
