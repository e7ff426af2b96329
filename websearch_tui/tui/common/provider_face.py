"""The provider list as the first frame draws it: :class:`ProviderFace`, one light widget that looks
like the :class:`~websearch_tui.tui.common.provider_selector.ProviderSelector` it stands for (the same
border, title, check boxes, labels and colours, the first row highlighted as the list highlights it
while blurred), without Textual's option list, its selection list and their styles, which the first
frame would otherwise build and draw for every provider. The search screen puts the real list in its
place right after that frame (readiness is resolved after it, into the list); the face holds the
selection until then.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual
from textual.widget import Widget

from websearch_tui.core.specs import ProviderSpec
from websearch_tui.tui.common.provider_rows import KEYS_HINT, SELECTED_MARK, UNSELECTED_MARK, selector_prompt

if TYPE_CHECKING:
    from websearch_tui.tui.common.provider_selector import ProviderSelector

BOX_LEFT = "▐"
"""The left half of a check box (Textual's ``ToggleButton.BUTTON_LEFT``, which the list draws)."""
BOX_RIGHT = "▌"
"""The right half of a check box (``ToggleButton.BUTTON_RIGHT``)."""
BOX_WIDTH = 4
"""Cells the check box takes before a provider's prompt: its two halves, the mark and a space."""


class ProviderFace(ScrollView, can_focus=False):
    """A provider list drawn row by row: ``specs`` in order, each with its check box (marked when its id
    is in ``selected``) and its prompt (:func:`~websearch_tui.tui.common.provider_rows.selector_prompt`,
    readiness as an ellipsis: the list shows it once resolved). The rows scroll as the list's do (a scrollbar
    when they do not fit). It takes no focus and no keys, and hands a click on a row to the list
    (:class:`RowClicked`): it is on screen for one frame.

    Args:
        specs: the providers, in the list's order.
        selected: ids of the providers checked.
        presets: the list's presets (name -> provider ids), handed to it.
        id: the face's id (not the list's: the face is still in the DOM while the list mounts).
    """

    DEFAULT_CSS = """
    ProviderFace {
        height: 1fr; color: $foreground; overflow-x: hidden; border: tall $border-blurred;
        padding: 0 1; background: $surface; text-wrap: nowrap; text-overflow: ellipsis;
        & > .provider-face--highlighted {
            color: $foreground; background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .provider-face--box { color: $panel-darken-2; background: $panel; }
        & > .provider-face--box-selected { color: $text-success; background: $panel; }
    }
    """
    """The selection list's look while blurred (Textual's ``OptionList`` and ``SelectionList`` rules,
    with their component classes renamed); the app's ``#providers`` rules apply to both by id."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "provider-face--option",
        "provider-face--highlighted",
        "provider-face--box",
        "provider-face--box-selected",
    }

    def __init__(
        self,
        specs: Sequence[ProviderSpec],
        selected: Iterable[str],
        *,
        presets: Mapping[str, tuple[str, ...]] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.specs = list(specs)
        self.presets = presets
        chosen = set(selected)
        self._selected = [spec.id for spec in self.specs if spec.id in chosen]
        self.highlighted = 0 if self.specs else None
        """The row drawn highlighted: the first, as the list highlights it before it has focus."""
        self.replaced = False
        """True once :meth:`replace` has put the list in the face's place (the face is being removed)."""
        self.border_title = Content("Providers")
        self.border_subtitle = Content(KEYS_HINT)
        self.virtual_size = Size(0, len(self.specs))

    class RowClicked(Message):
        """A row of the face was clicked (before the real list took its place); ``index``: the row."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def on_click(self, event: events.Click) -> None:
        """A click on a row is the list's (:class:`RowClicked`): the screen puts the list in the face's
        place and toggles that row, as a click on the list does (it was lost for the face's moment)."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.scroll_offset.y + offset.y
        if 0 <= index < len(self.specs):
            event.stop()
            self.post_message(self.RowClicked(index))

    @property
    def selected(self) -> list[str]:
        """Ids of the checked providers, in the list's order."""
        return list(self._selected)

    def replace(self, list_id: str) -> tuple[ProviderSelector, list[Awaitable[None]]]:
        """Put the real list, with id ``list_id``, in the face's place: it is added before the face, with
        the face's selection, presets and classes, and the face is hidden and removed. Returns
        the list (usable at once; mounted in a moment) and what to await for the mount and removal to
        end. Imports Textual's selection list."""
        from websearch_tui.tui.common.provider_selector import ProviderSelector

        selector = ProviderSelector(self.specs, self._selected, presets=self.presets, id=list_id)
        selector.set_classes(self.classes)
        self.replaced = True
        self.display = False
        parent = self.parent
        assert isinstance(parent, Widget)
        return selector, [parent.mount(selector, before=self), self.remove()]

    def _prompt(self, content: Content, width: int, style: VisualStyle) -> Strip:
        """``content`` on ``style``, ``width`` cells wide, as Textual draws a one-line option: a prompt
        that fits is drawn as its segments (what Textual's formatting gives a left-aligned line that
        fits), a longer one through Textual's formatting (cut with an ellipsis)."""
        if content.cell_length > width:
            strip = Visual.to_strips(self, content, width, None, style)[0]
        else:
            parts = content.render(style, end="")
            strip = Strip([Segment(text, (style + part).rich_style) for text, part in parts], content.cell_length)
        return strip.extend_cell_length(width, style.rich_style)

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the visible part: a provider's check box and prompt, or a blank line below them."""
        width = self.scrollable_content_region.width
        index = self.scroll_offset.y + y
        if not 0 <= index < len(self.specs):
            return Strip.blank(width, self.get_visual_style("provider-face--option").rich_style)
        spec = self.specs[index]
        if index == self.highlighted:
            style = self.get_visual_style("provider-face--option", "provider-face--highlighted")
        else:
            style = self.get_visual_style("provider-face--option")
        under = style.rich_style
        prompt_width = width - BOX_WIDTH
        prompt = self._prompt(selector_prompt(spec, None), prompt_width, style)
        checked = spec.id in self._selected
        box = self.get_component_rich_style("provider-face--box-selected" if checked else "provider-face--box")
        side = RichStyle.from_color(box.bgcolor, under.bgcolor)
        mark = SELECTED_MARK if checked else UNSELECTED_MARK
        head = [Segment(BOX_LEFT, side), Segment(mark, box), Segment(BOX_RIGHT, side), Segment(" ", under)]
        return Strip([*head, *prompt], width)
