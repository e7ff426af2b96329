"""The answer of one pane: Markdown rendered line by line, so a frame costs what is visible.

:class:`AnswerView` is a Line API widget (``render_line``), like Textual's ``Log``: one widget for the
whole answer instead of one widget per Markdown block, so layout and compositing do not grow with
the answer. Text is appended cheaply (:meth:`AnswerView.append`) and parsed at most once per
:meth:`AnswerView.flush` (the pane area calls it once per tick for every streaming pane). Rendered
lines are kept per width: a flush re-renders only the blocks that changed (the last one, while an
answer streams), and ``render_line`` only slices the kept lines. A hidden pane (a background tab)
is never laid out, so it renders nothing until it is shown.

While the answer streams (:attr:`AnswerView.streaming`), its height grows in steps (see
:data:`RESERVE_SHARE`), so most ticks repaint only the lines that changed: no layout, no scrolling,
no repaint of the rest of the pane. A step's layout draws no line again but those that changed
(see :class:`~websearch_tui.tui.patches.kept_lines.HeightFreeLines`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip

from websearch_tui.tui.common.line_widget import LineWidget, draw_line
from websearch_tui.tui.common.markdown_lines import BlockRenderer, MarkdownDocument, Palette

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

THROTTLE_CHARS = 32_000
"""A streaming answer's last block up to this long is drawn again at every flush (see
:meth:`AnswerView._worth_showing`)."""
TAIL_SHARE = 4
KEPT_WIDTHS = 3
"""Rendered lines are kept for this many widths (layout may ask at two while a scrollbar comes and goes)."""
RESERVE_SHARE = 2
"""While an answer streams, its height grows in steps of half the visible height (at least
:data:`MIN_RESERVE` lines), one step ahead of the text: text fills blank lines already laid out, and
only when it crosses into the next step does the layout change and the pane scroll (by one step,
in the same frame), about once a second instead of once per line."""
MIN_RESERVE = 3
ENDING_WINDOW = 64
"""Characters at the end of the shown source searched for the blank line that ends a table."""
_ENDS_BLOCK = re.compile(r"\n[ \t\r]*\n[ \t\r]*\Z")
"""A blank line at the end of the source (what ends a table: the next text starts another block)."""
_BLANK = Content()


@functools.cache
def markdown_parser() -> MarkdownIt:
    """The shared GFM-like Markdown parser (tables, strikethrough, autolinks; raw HTML as its own
    tokens), made when the first answer arrives (markdown-it is not needed for the first paint)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like")


@dataclass
class _Lines:
    """The document laid out at one width: ``lines`` in order (blank margins included), ``starts[i]``
    the first line of block ``i`` (its top margin included), ``bottoms[i]`` the blank lines block
    ``i`` keeps below itself. Lines stay :class:`Content` until they are drawn (``render_line``
    makes a strip only for a line on screen, and Textual caches it until the line changes)."""

    width: int
    lines: list[Content] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    bottoms: list[int] = field(default_factory=list)
    strips: dict[int, Strip] = field(default_factory=dict)
    """Strips of the lines drawn so far (a layout change redraws them without rendering again)."""

    @property
    def height(self) -> int:
        """Lines, the last block's bottom margin included."""
        return len(self.lines) + (self.bottoms[-1] if self.bottoms else 0)

    def start_of(self, block: int) -> int:
        """The first line of ``block`` (the end of the lines for a block not laid out yet)."""
        return self.starts[block] if block < len(self.starts) else len(self.lines)

    def keep(self, blocks: int) -> None:
        """Forget every block from index ``blocks`` on."""
        if blocks < len(self.starts):
            first = self.starts[blocks]
            del self.lines[first:]
            del self.starts[blocks:]
            del self.bottoms[blocks:]
            for y in [y for y in self.strips if y >= first]:
                del self.strips[y]


class AnswerView(LineWidget):
    """A streamed (or whole) Markdown answer, rendered in the look of Textual's ``Markdown`` widget.

    Links whose target is http(s) are clickable (posting :class:`AnswerView.LinkClicked`) and sent
    as OSC 8 hyperlinks; text can be selected with the mouse.
    """

    COMPONENT_CLASSES = {
        "answer--h1",
        "answer--h2",
        "answer--h3",
        "answer--h4",
        "answer--h5",
        "answer--h6",
        "answer--em",
        "answer--strong",
        "answer--strike",
        "answer--code-inline",
        "answer--link",
        "answer--bullet",
        "answer--quote",
        "answer--quote-bar",
        "answer--fence",
        "answer--rule",
        "answer--table-header",
        "answer--table-border",
    }
    """Styles of the answer's elements (the defaults follow Textual's Markdown widget)."""

    DEFAULT_CSS = """
    AnswerView {
        height: auto;
        width: 1fr;
        color: $foreground;
        & > .answer--h1 {
            color: $markdown-h1-color;
            background: $markdown-h1-background;
            text-style: $markdown-h1-text-style;
        }
        & > .answer--h2 {
            color: $markdown-h2-color;
            background: $markdown-h2-background;
            text-style: $markdown-h2-text-style;
        }
        & > .answer--h3 {
            color: $markdown-h3-color;
            background: $markdown-h3-background;
            text-style: $markdown-h3-text-style;
        }
        & > .answer--h4 {
            color: $markdown-h4-color;
            background: $markdown-h4-background;
            text-style: $markdown-h4-text-style;
        }
        & > .answer--h5 {
            color: $markdown-h5-color;
            background: $markdown-h5-background;
            text-style: $markdown-h5-text-style;
        }
        & > .answer--h6 {
            color: $markdown-h6-color;
            background: $markdown-h6-background;
            text-style: $markdown-h6-text-style;
        }
        & > .answer--em { text-style: italic; }
        & > .answer--strong { text-style: bold; }
        & > .answer--strike { text-style: strike; }
        &:dark > .answer--code-inline { background: $warning 10%; color: $text-warning 95%; }
        &:light > .answer--code-inline { background: $error 5%; color: $text-error 95%; }
        & > .answer--link { color: $link-color; background: $link-background; text-style: $link-style; }
        & > .answer--bullet { color: $text-primary; }
        &:light > .answer--bullet { color: $text-secondary; }
        & > .answer--quote { background: $boost; }
        & > .answer--quote-bar { color: $text-primary 50%; }
        & > .answer--fence { color: rgb(210,210,210); background: black 10%; }
        &:light > .answer--fence { color: $foreground; background: white 30%; }
        & > .answer--rule { color: $secondary; }
        & > .answer--table-header { color: $primary; text-style: bold; }
        & > .answer--table-border { color: $foreground 20%; }
    }
    """

    class LinkClicked(Message):
        """A link in the answer was clicked; ``href`` is its (http/https) target."""

        def __init__(self, view: AnswerView, href: str) -> None:
            super().__init__()
            self.view = view
            self.href = href

        @property
        def control(self) -> AnswerView:
            """The view the link is in."""
            return self.view

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._document = MarkdownDocument(markdown_parser)
        self._pending: list[str] = []
        self._pending_line_end = False
        self._renders: dict[int, _Lines] = {}
        self._renderer: BlockRenderer | None = None
        self._streaming = False
        self._reserve = MIN_RESERVE
        self._layout_pending = False
        self._restyled = False

    @property
    def streaming(self) -> bool:
        """True while the answer is still being written (its height then grows in steps)."""
        return self._streaming

    @streaming.setter
    def streaming(self, value: bool) -> None:
        if value != self._streaming:
            self._streaming = value
            self.refresh(layout=True, repaint=False)  # the lines drawn stay right: only the height changes

    # --- the text --------------------------------------------------------------------------

    @property
    def source(self) -> str:
        """The Markdown shown, pending text included."""
        return self._document.source + "".join(self._pending)

    def append(self, text: str) -> None:
        """Queue ``text`` (answer Markdown, already sanitized) for the next :meth:`flush`; O(len(text))."""
        if text:
            self._pending.append(text)
            self._pending_line_end = self._pending_line_end or "\n" in text

    def flush(self, *, relayout: bool = True) -> int | None:
        """Show the text appended since the last flush (parsing it once, repainting only the lines
        that changed).

        When that needs a new layout (the answer outgrew the lines laid out for it), request one
        and return the height (lines) it will have (0 before the first layout). With
        ``relayout=False`` the layout is put off instead (what fits is shown now, the rest at the
        next flush that may lay out) and the result is None, as it is when no layout is needed.
        """
        if self._pending and self._worth_showing():
            self._show_pending()
        if not (self._layout_pending and relayout):
            return None
        self._layout_pending = False
        self.refresh(layout=True, repaint=False)  # _show_pending refreshed the lines that changed
        width = self.size.width
        return self._height(self._lines(width)) if width else 0

    @property
    def layout_pending(self) -> bool:
        """True when the text shown so far needs a new layout (it outgrew the lines laid out for it,
        or the view was never laid out): the next :meth:`flush` that may lay out requests one."""
        return self._layout_pending

    def _worth_showing(self) -> bool:
        """Whether the pending text is shown now. Each flush parses and draws the answer's last block
        again, so while an answer streams:

        - a last block that is a table is shown again once a line of it ends (a row is complete):
          drawing a table costs as much as a page of text, and its columns would otherwise change
          width with every word;
        - a last block longer than :data:`THROTTLE_CHARS` (a huge paragraph or code block that never
          ends) is shown again only once the pending text is at least 1/:data:`TAIL_SHARE` of it: the
          work stays linear in the answer's length.

        Once the answer has ended everything is shown."""
        if not self._streaming:
            return True
        if self._table_open() and not self._pending_line_end:
            return False
        tail = self._document.tail_length
        return tail <= THROTTLE_CHARS or sum(map(len, self._pending)) * TAIL_SHARE >= tail

    def _table_open(self) -> bool:
        """True when the last block shown is a table that more rows may follow (no blank line ended it)."""
        document = self._document
        blocks = document.blocks
        return bool(blocks) and blocks[-1].type == "table" and not _ENDS_BLOCK.search(document.source[-ENDING_WINDOW:])

    def _show_pending(self) -> None:
        """Parse the pending text and repaint the lines it changed; note when the height changes."""
        text = "".join(self._pending)
        self._pending.clear()
        self._pending_line_end = False
        first = self._document.append(text)
        width, height = self.size
        current = self._renders.get(width) if width else None
        top = current.start_of(first) if current is not None else 0
        before = current.lines[top:] if current is not None else []
        for lines in self._renders.values():
            lines.keep(first)
        if current is None:  # not laid out at this width yet (or just shown): the next layout renders it,
            self._layout_pending = True
            self.refresh()  # and draws every line again (lines drawn before are kept by a layout)
            return
        after = self._lines(width).lines[top:]
        if self._height(current) != height:
            self._layout_pending = True
        same = next((n for n, (old, new) in enumerate(zip(before, after, strict=False)) if not old.is_same(new)), None)
        if same is None:
            same = min(len(before), len(after))
        end = max(len(before), len(after))
        if end > same:
            self.refresh(Region(0, top + same, width, end - same))

    def update(self, markdown: str) -> None:
        """Show ``markdown`` as the whole answer at once (replacing what was there)."""
        self._pending.clear()
        self._pending_line_end = False
        self._document.replace(markdown)
        self._renders.clear()
        self.refresh(layout=True)

    def clear(self) -> None:
        """Show nothing (a new search starts)."""
        self.update("")

    # --- rendering ---------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        """Styles were applied again: draw the lines again, and render the blocks again only if the
        styles they use changed (see :meth:`_check_styles`)."""
        super().notify_style_update()
        self._restyled = True
        for lines in self._renders.values():
            lines.strips.clear()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The answer's height in lines at ``width`` (rendering what changed since the last call),
        rounded up to the next step while it streams."""
        self._reserve = max(MIN_RESERVE, container.height // RESERVE_SHARE)
        return self._height(self._lines(width))

    def _height(self, lines: _Lines) -> int:
        """The height to lay out for ``lines``: exact, or while streaming the end of the step the
        text is in, plus one more step (so the pane can scroll to the end of the step at once)."""
        end = self._step_end(lines)
        return end + self._reserve if self._streaming and end else end

    def _step_end(self, lines: _Lines) -> int:
        """The end of the text, rounded up to a reserve step while streaming."""
        if not self._streaming or not lines.height:
            return lines.height
        step = self._reserve
        return -(-lines.height // step) * step

    @property
    def text_height(self) -> int:
        """Lines the text takes at the current width (without the blank lines reserved below it)."""
        width = self.size.width
        return self._lines(width).height if width else 0

    @property
    def follow_line(self) -> int:
        """The line a pane following the answer keeps at the bottom of its view: the end of the
        answer, or while it streams the end of the step the text is in."""
        width = self.size.width
        return self._step_end(self._lines(width)) if width else 0

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the answer (blank past its end), with text selection shown."""
        width = self.line_width
        lines = self._lines(width)
        strip = lines.strips.get(y)
        if strip is None:
            content = lines.lines[y] if y < len(lines.lines) else None
            strip = lines.strips[y] = draw_line(content, width, y, self.visual_style)
        return self.with_selection(strip, y)

    def plain_lines(self) -> Iterable[str]:
        """The answer's lines as shown (bullets and table borders included), for copying a selection."""
        return (line.plain for line in self._lines(self.size.width).lines)

    async def action_link(self, href: str) -> None:
        """A link was clicked (the target was checked when the link was rendered)."""
        self.post_message(self.LinkClicked(self, href))

    def _lines(self, width: int) -> _Lines:
        """The document at ``width``, rendering only the blocks not rendered at that width yet."""
        if self._restyled:
            self._check_styles()
        lines = self._renders.pop(width, None) or _Lines(width)
        self._renders[width] = lines  # most recently used last
        while len(self._renders) > KEPT_WIDTHS:
            del self._renders[next(iter(self._renders))]
        blocks = self._document.blocks
        if len(lines.starts) < len(blocks):
            self._render_blocks(lines, len(lines.starts))
        return lines

    def _check_styles(self) -> None:
        """After styles were applied again, keep the rendered blocks unless the palette changed.

        Textual applies styles again to a widget and every widget inside it whenever a class or a
        pseudo-class (focus, hover) of any of them changes, even when no rule of this view changes:
        a pane ending its stream (``-active`` removed) or a tab shown. Rendering every block again
        then costs as much as the whole answer (tables most), so it is done only when the theme or
        the CSS changed the styles the blocks are rendered with.
        """
        self._restyled = False
        palette = self._palette()
        if self._renderer is None or self._renderer.palette != palette:
            self._renderer = BlockRenderer(palette)
            self._renders.clear()

    def _render_blocks(self, lines: _Lines, first: int) -> None:
        """Render blocks ``first`` onwards into ``lines``."""
        renderer = self._renderer or self._make_renderer()
        for block in self._document.blocks[first:]:
            rendered = renderer.render(block, lines.width)
            lines.starts.append(len(lines.lines))
            if lines.bottoms:
                lines.lines.extend([_BLANK] * max(lines.bottoms[-1], rendered.top))
            lines.lines.extend(rendered.lines)
            lines.bottoms.append(rendered.bottom)

    def _make_renderer(self) -> BlockRenderer:
        """A renderer with the current styles (themes change them)."""
        self._renderer = BlockRenderer(self._palette())
        return self._renderer

    def _palette(self) -> Palette:
        """The styles of the answer's elements now, from the component classes and the theme."""
        style = functools.partial(self.get_visual_style, partial=True)
        headings = tuple(style(f"answer--h{level}") for level in range(1, 7))
        return Palette(
            headings=headings,
            em=style("answer--em"),
            strong=style("answer--strong"),
            strike=style("answer--strike"),
            code_inline=style("answer--code-inline"),
            link=style("answer--link"),
            bullet=style("answer--bullet"),
            quote=style("answer--quote"),
            quote_bar=style("answer--quote-bar"),
            fence=style("answer--fence"),
            rule=style("answer--rule"),
            table_header=style("answer--table-header"),
            table_border=style("answer--table-border"),
            ansi=self.app.native_ansi_color,
            dark=self.app.current_theme.dark,
            console=self.app.console,
        )
