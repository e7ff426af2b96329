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
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.content import Content
from textual.geometry import Region, Size
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
        self._looks: _RowLooks | None = None  # while the rows are drawn (see render_lines)

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

    def _prompt(self, content: Content, width: int, style: VisualStyle) -> list[Segment]:
        """``content`` on ``style``, ``width`` cells wide, as Textual draws a one-line option: a prompt
        that fits is drawn as its segments (what Textual's formatting gives a left-aligned line that
        fits) and blank cells, a longer one through Textual's formatting (cut with an ellipsis)."""
        length = content.cell_length
        if length > width:
            cut = Visual.to_strips(self, content, width, None, style)[0]
            return list(cut.extend_cell_length(width, style.rich_style))
        segments = [Segment(text, (style + part).rich_style) for text, part in content.render(style, end="")]
        if length < width:
            segments.append(Segment(" " * (width - length), style.rich_style))
        return segments

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in ``crop`` (Textual's drawing, with the rows' styles looked up once for all of them)."""
        self._looks = _RowLooks(self)
        try:
            return super().render_lines(crop)
        finally:
            self._looks = None

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the visible part: a provider's check box and prompt, or a blank line below them."""
        looks = self._looks or _RowLooks(self)
        index = self.scroll_offset.y + y
        if not 0 <= index < len(self.specs):
            return Strip.blank(looks.width, looks.option.rich_style)
        spec = self.specs[index]
        style = looks.highlighted if index == self.highlighted else looks.option
        checked = spec.id in self._selected
        box = looks.checked if checked else looks.unchecked
        under = style.rich_style
        side = RichStyle.from_color(box.bgcolor, under.bgcolor)
        mark = SELECTED_MARK if checked else UNSELECTED_MARK
        head = [Segment(BOX_LEFT, side), Segment(mark, box), Segment(BOX_RIGHT, side), Segment(" ", under)]
        prompt = self._prompt(selector_prompt(spec, None), looks.width - BOX_WIDTH, style)
        return Strip([*head, *prompt], looks.width)


class _RowLooks:
    """What every row of ``face`` is drawn with now: the rows' width (cells) and the styles of a row,
    the highlighted row and the check boxes (looked up once per drawing, not once per row; a style
    when first needed: the face may be drawn before its component styles are set, with no row)."""

    def __init__(self, face: ProviderFace) -> None:
        self.face = face
        self.width = face.scrollable_content_region.width
        self.option = face.get_visual_style("provider-face--option")

    @cached_property
    def highlighted(self) -> VisualStyle:
        """The highlighted row's style."""
        return self.face.get_visual_style("provider-face--option", "provider-face--highlighted")

    @cached_property
    def checked(self) -> RichStyle:
        """A ticked check box's style."""
        return self.face.get_component_rich_style("provider-face--box-selected")

    @cached_property
    def unchecked(self) -> RichStyle:
        """An empty check box's style."""
        return self.face.get_component_rich_style("provider-face--box")
