"""Related questions a provider suggests; choosing one searches it."""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from websearch_tui.tui.safe import clean
from websearch_tui.tui.widgets.stepping import SiblingStepper, release_focus


class RelatedItem(SiblingStepper, Static, can_focus=True):
    """One related question; Enter or a click posts :class:`RelatedItem.Chosen`."""

    BINDINGS = [
        Binding("enter", "choose", "Search this", id="related-choose"),
        Binding("down", "step(1)", "Next question", show=False, id="related-next"),
        Binding("up", "step(-1)", "Previous question", show=False, id="related-previous"),
    ]

    DEFAULT_CSS = """
    RelatedItem { height: auto; }
    """

    class Chosen(Message):
        """The user chose a related question; ``question`` is sanitized text."""

        def __init__(self, question: str) -> None:
            super().__init__()
            self.question = question

    def __init__(self, question: str) -> None:
        self.question = clean(question, one_line=True, limit=400)
        super().__init__(Content.assemble(Content.styled("→ ", "$accent"), Content(self.question)), markup=False)

    def action_choose(self) -> None:
        """Search this question."""
        self.post_message(self.Chosen(self.question))

    async def _on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_choose()


class RelatedList(Vertical):
    """The related questions of one pane."""

    DEFAULT_CSS = """
    RelatedList { height: auto; }
    """

    def set_questions(self, questions: Sequence[str]) -> None:
        """Replace the questions (hidden when there are none)."""
        current = [child.question for child in self.children if isinstance(child, RelatedItem)]
        wanted = [clean(q, one_line=True, limit=400) for q in questions if clean(q).strip()]
        if current != wanted:
            release_focus(list(self.children), self)
            self.remove_children()
            self.mount_all(RelatedItem(q) for q in wanted)
        self.display = bool(wanted)
