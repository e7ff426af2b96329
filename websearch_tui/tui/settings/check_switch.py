"""An on/off switch that says its state in text: :class:`CheckSwitch` (``[✓] on`` / ``[ ] off``).

Textual's :class:`~textual.widgets.Switch` draws a slider in two blended colours; in a 256-colour
terminal (or a monochrome one, or with ``NO_COLOR``) both positions become similar coloured blocks
and nothing says which is which. This switch keeps the Switch's keys, clicks and ``Changed``
message, and draws a check box with a word instead; colour only adds to the text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.geometry import Size
from textual.widgets import Switch

if TYPE_CHECKING:
    from textual.app import RenderResult

ON_TEXT = "[✓] on"
"""What a switched-on :class:`CheckSwitch` shows."""
OFF_TEXT = "[ ] off"
"""What a switched-off :class:`CheckSwitch` shows."""


class CheckSwitch(Switch):
    """A :class:`~textual.widgets.Switch` drawn as :data:`ON_TEXT` / :data:`OFF_TEXT` (no slider, no animation).

    Args:
        value: on (True) or off.
        id: the widget id.
    """

    DEFAULT_CSS = """
    CheckSwitch { width: auto; }
    CheckSwitch.-on { color: $text-success; }
    """

    def __init__(self, value: bool = False, *, id: str | None = None) -> None:
        super().__init__(value, animate=False, id=id)

    def render(self) -> RenderResult:
        """The check box and the word for the current state."""
        return Content(ON_TEXT if self.value else OFF_TEXT)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """As wide as the longer of the two texts, so the row does not move when it is toggled."""
        return max(len(ON_TEXT), len(OFF_TEXT))
