"""The text of the reader view: a page's Markdown rendered by the answer view, with highlights.

:class:`PageView` is an :class:`~websearch_tui.tui.common.answer_view.AnswerView` (the same
rendering, links and text selection as a pane's answer) that also marks a citation's passage
(component class ``page--passage``), every match of the term being searched for (``page--match``)
and the current match (``page--current``). The places are found again on the lines as rendered
whenever the width or the text changes (:mod:`~websearch_tui.tui.reader.locate`); the page text is
never parsed as markup, and highlighting only restyles cells already drawn.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from websearch_tui.tui.common.answer_view import AnswerView
from websearch_tui.tui.reader.locate import Hit, passage_hits, term_hits

PASSAGE = "page--passage"
MATCH = "page--match"
CURRENT = "page--current"

Marks = dict[int, list[tuple[int, int, str]]]
"""Line -> ``(first cell, end cell, component class)`` of each highlight on it, drawn in order."""


class PageView(AnswerView):
    """A page's Markdown with its passage and search matches highlighted (see the module docstring).

    :meth:`show_text` and :meth:`add_text` set and extend the text shown; :meth:`set_passage` and
    :meth:`set_term` say what to highlight; :attr:`passage_hits`, :attr:`matches` and
    :attr:`current` say where it is, in lines of the view at its current width.
    """

    COMPONENT_CLASSES = AnswerView.COMPONENT_CLASSES | {PASSAGE, MATCH, CURRENT}
    """The answer's styles, and the passage's, a match's and the current match's."""

    DEFAULT_CSS = """
    PageView {
        & > .page--passage { background: $success 35%; }
        & > .page--match { background: $warning 35%; }
        & > .page--current { background: $warning; color: $background; text-style: bold; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._passage = ""
        self._term = ""
        self.current: int | None = None
        """The index in :attr:`matches` of the current match (``None``: none is)."""
        self._version = 0
        """Counts the changes of the text shown (the highlights are found again after one)."""
        self._found_for: tuple[int, int, str, str] | None = None
        self._passage_hits: list[Hit] = []
        self._matches: list[Hit] = []
        self._marks: Marks = {}

    # --- the text ----------------------------------------------------------------------------

    def show_text(self, markdown: str) -> None:
        """Show ``markdown`` (sanitised page text) as the whole text."""
        self.update(markdown)
        self._version += 1
        self.refresh(layout=True)

    def add_text(self, markdown: str) -> None:
        """Add ``markdown`` after the text shown (the next part of a long page)."""
        self.append(markdown)
        self.flush()
        self._version += 1
        self.refresh(layout=True)

    def set_passage(self, passage: str | None) -> None:
        """Highlight ``passage`` (a check's passage; ``None``: nothing)."""
        self._passage = passage or ""
        self.refresh()

    def set_term(self, term: str) -> None:
        """Highlight every place ``term`` is in the text (``""``: none); no match is current."""
        if term != self._term:
            self._term = term
            self.current = None
            self.refresh()

    @property
    def term(self) -> str:
        """The term searched for (``""``: none)."""
        return self._term

    # --- where the highlights are ------------------------------------------------------------

    @property
    def passage_hits(self) -> list[Hit]:
        """Where the passage is shown, by line at the current width (empty when it is not found)."""
        self._find()
        return list(self._passage_hits)

    @property
    def matches(self) -> list[Hit]:
        """Every match of the term, in order, by line at the current width."""
        self._find()
        return list(self._matches)

    def select(self, index: int | None) -> Hit | None:
        """Make match ``index`` (wrapped around the matches) the current one; returns it (``None``:
        there are no matches, or ``index`` is ``None``)."""
        matches = self.matches
        self.current = None if index is None or not matches else index % len(matches)
        self._found_for = None  # the marks change
        self.refresh()
        return matches[self.current] if self.current is not None else None

    def _find(self) -> None:
        """Find the passage and the term in the lines as shown now, unless already found for this
        width, text, passage and term."""
        width = self.size.width
        key = (width, self._version, self._passage, self._term)
        if key == self._found_for:
            return
        if not width:
            self._passage_hits, self._matches, self._marks = [], [], {}
            return
        lines = list(self.plain_lines())
        self._passage_hits = passage_hits(lines, self._passage) if self._passage else []
        self._matches = term_hits(lines, self._term) if self._term else []
        if self.current is not None and self.current >= len(self._matches):
            self.current = None
        self._marks = _marks(lines, self._passage_hits, self._matches, self.current)
        self._found_for = key

    # --- drawing -------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        """Line ``y`` as the answer view draws it, with the highlights on it."""
        strip = super().render_line(y)
        self._find()
        for start, end, name in self._marks.get(y, ()):
            if end > start:
                left, middle, right = strip.divide([start, end, strip.cell_length])
                style = self._mark_style(name)
                marked = Strip(list(Segment.apply_style(iter(middle), post_style=style)), middle.cell_length)
                strip = Strip.join([left, marked, right])
        return strip

    def _mark_style(self, name: str) -> Style:
        """The style a highlight is drawn in, over the text's own: the current match's whole style,
        only the background of the others (a heading or a link keeps its colour)."""
        style = self.get_component_rich_style(name)
        return style if name == CURRENT else Style(bgcolor=style.bgcolor)


def _marks(lines: list[str], passage: list[Hit], matches: list[Hit], current: int | None) -> Marks:
    """The highlights by line, in cells: the passage first, the matches over it, the current match last."""
    marks: Marks = {}
    chosen = [(hit, MATCH) for hit in matches]
    if current is not None:
        chosen.append((matches[current], CURRENT))
    for hit, name in [(hit, PASSAGE) for hit in passage] + chosen:
        text = lines[hit.line]
        start = cell_len(text[: hit.start])
        marks.setdefault(hit.line, []).append((start, start + cell_len(text[hit.start : hit.end]), name))
    return marks
