"""Related questions a provider suggests; choosing one searches it."""

from __future__ import annotations

from collections.abc import Sequence

from textual.binding import Binding
from textual.content import Content
from textual.message import Message

from websearch_tui.tui.common.line_list import LineList
from websearch_tui.tui.common.safe import clean


class RelatedList(LineList):
    """The related questions of one pane, one row each (``→ question``), drawn by one widget; Up / Down
    move the cursor, Enter or a click on a question posts :class:`RelatedList.Chosen`. Hidden when
    there are none."""

    BINDINGS = [
        Binding("enter", "choose", "Search this", id="related-choose"),
        Binding("down", "step(1)", "Next question", show=False, id="related-next"),
        Binding("up", "step(-1)", "Previous question", show=False, id="related-previous"),
    ]

    class Chosen(Message):
        """The user chose a related question; ``question`` is sanitized text."""

        def __init__(self, question: str) -> None:
            super().__init__()
            self.question = question

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._questions: list[str] = []

    @property
    def questions(self) -> list[str]:
        """The questions shown (sanitized, one line each), in order."""
        return list(self._questions)

    def set_questions(self, questions: Sequence[str]) -> None:
        """Replace the questions (hidden when there are none; nothing is drawn again when unchanged)."""
        wanted = [clean(q, one_line=True, limit=400) for q in questions if clean(q).strip()]
        if wanted != self._questions:
            self._questions = wanted
            self.set_rows([Content.assemble(Content.styled("→ ", "$accent"), Content(q)) for q in wanted])
        self.display = bool(wanted)

    def action_choose(self) -> None:
        """Search the question under the cursor."""
        if self._questions:
            self.post_message(self.Chosen(self._questions[self.cursor]))

    def row_clicked(self, index: int) -> None:
        """A click on a question searches it."""
        self.action_choose()
